/*
 * tests/passthrough_main.c - runs the generated passthrough test of every
 * wrapper against the mock libraries.
 *
 * The mocks are chosen through CUBIND_<LIB>_PATH (set by the Makefile); a
 * group's setup first checks that cubind really loaded the mock from that path,
 * so the tests cannot pass against another library.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "cubind/cubind.h"
#include "passthrough.h"
#include "passthrough_groups.h"
#include "recorder.h"

/* Why no GPU can be used in this process, as a failing call says it: "" when nothing is said (the
 * driver named by CUBIND_DRIVER_PATH answers for itself: the full build's tests name the mock),
 * the kernel module's absence where it is absent (this machine's files, whatever they say: as
 * tests/test_machine.c's kernel_module), NULL when the module is loaded (GPUs or not: any reason). */
static const char *no_gpu_reason(void)
{
    const char *driver = getenv("CUBIND_DRIVER_PATH");
    if (driver != NULL && driver[0] != '\0')
        return "";
    if (access("/proc/driver/nvidia/version", F_OK) != 0)
        return "no CUDA driver: the NVIDIA kernel module is not loaded (no /proc/driver/nvidia/version)";
    return NULL;
}

void cubind_test_assert_status_recorded(cubind_library library, const char *function, int status, int no_gpu)
{
    const char *reason = no_gpu ? no_gpu_reason() : "";
    const cubind_error *error = cubind_last_error();
    char expected[CUBIND_ERROR_MESSAGE_MAX];
    assert_int_equal(error->kind, CUBIND_ERROR_STATUS);
    assert_int_equal(error->library, library);
    assert_int_equal(error->status, status);
    assert_string_equal(error->function, function);
    assert_string_equal(error->status_name, cubind_status_name(library, status));
    /* the whole message, put together from the generated names without printf */
    snprintf(expected, sizeof expected, "%s returned %s (%d)", function,
             error->status_name[0] != '\0' ? error->status_name : "an unknown status", status);
    if (reason == NULL) { /* a reason or none, after the status's message */
        assert_true(strncmp(error->message, expected, strlen(expected)) == 0);
        return;
    }
    if (reason[0] != '\0')
        snprintf(expected + strlen(expected), sizeof expected - strlen(expected), ": %s", reason);
    assert_string_equal(error->message, expected);
}

void cubind_test_status_detail(cubind_library library, const char *function, int (*call)(void), int status,
                               const char *member, cubind_library names)
{
    char expected[CUBIND_ERROR_MESSAGE_MAX];
    const char *name = names != CUBIND_LIB_NONE ? cubind_status_name(names, 3) : NULL;
    const cubind_error *error;
    cubind_mock_set_status(status);
    cubind_mock_set_detail(3);
    cubind_clear_error();
    assert_int_equal(call(), status);
    error = cubind_last_error();
    assert_int_equal(error->status, status);
    snprintf(expected, sizeof expected, "%s returned %s (%d); its %s is %s (3)", function, cubind_status_name(library, status),
             status, member, name != NULL ? name : "an unknown status");
    assert_true(strncmp(error->message, expected, strlen(expected)) == 0);
    cubind_mock_set_detail(0); /* zero says nothing: the message is the status's alone */
    cubind_clear_error();
    assert_int_equal(call(), status);
    assert_null(strstr(cubind_last_error()->message, "; its "));
    cubind_mock_set_status(0);
}

void cubind_test_no_gpu(cubind_library library, const char *function, int (*call)(void), const int *statuses,
                        size_t count, int not_gpu)
{
    size_t i;
    for (i = 0; i < count; ++i) {
        cubind_mock_set_status(statuses[i]);
        assert_int_equal(call(), statuses[i]);
        cubind_test_assert_status_recorded(library, function, statuses[i], 1);
    }
    cubind_mock_set_status(not_gpu);
    assert_int_equal(call(), not_gpu);
    cubind_test_assert_status_recorded(library, function, not_gpu, 0);
    cubind_mock_set_status(0);
}

void cubind_test_assert_caller(int inline_form, int round, int returns_status)
{
    Dl_info caller;
    assert_true(dladdr(cubind_mock_last_caller(), &caller) != 0 && caller.dli_fname != NULL);
    if (inline_form && round == 1)
        assert_null(strstr(caller.dli_fname, "libcubind.so"));
    else if (!inline_form && returns_status)
        assert_non_null(strstr(caller.dli_fname, "libcubind.so"));
}

void cubind_test_assert_no_error(void)
{
    assert_int_equal(cubind_last_error()->kind, CUBIND_OK);
}

void cubind_test_assert_zero(const char *name, const void *bytes, size_t size)
{
    const unsigned char *b = bytes;
    size_t i;
    for (i = 0; i < size; ++i)
        if (b[i] != 0)
            fail_msg("the mock left output %s's byte %zu of %zu at 0x%02x, not zero", name, i, size, b[i]);
}

/* Error handler calls, counted; static: a failed assertion leaves the handler installed. */
static int handler_calls;

static void count_handler_call(const cubind_error *error, void *user)
{
    (void)error;
    (void)user;
    ++handler_calls;
}

void cubind_test_informational(cubind_library library, const char *function, int (*call)(void),
                               const int *statuses, size_t count, int failure)
{
    size_t i;
    int round;
    cubind_clear_error();
    handler_calls = 0;
    cubind_set_error_handler(count_handler_call, NULL);
    for (i = 0; i < count; ++i)
        for (round = 0; round < 2; ++round) {
            cubind_mock_set_status(statuses[i]);
            assert_int_equal(call(), statuses[i]);
            cubind_test_assert_no_error();
            assert_int_equal(handler_calls, 0);
        }
    cubind_mock_set_status(failure);
    assert_int_equal(call(), failure);
    cubind_test_assert_status_recorded(library, function, failure, 0);
    assert_int_equal(handler_calls, 1);
    for (i = 0; i < count; ++i) {
        cubind_mock_set_status(statuses[i]);
        assert_int_equal(call(), statuses[i]);
        cubind_test_assert_status_recorded(library, function, failure, 0);
        assert_int_equal(handler_calls, 1);
    }
    cubind_set_error_handler(NULL, NULL);
    cubind_mock_set_status(0);
}


const char *cubind_test_release_symbol(const struct cubind_test_release_call *calls, size_t count,
                                       const char *release, const char *newest, int *action)
{
    size_t i;
    *action = 0;
    for (i = 0; i < count; ++i)
        if (calls[i].release == NULL ? release == NULL : release != NULL && strcmp(calls[i].release, release) == 0) {
            *action = calls[i].action;
            return calls[i].symbol;
        }
    return newest;
}

void cubind_test_assert_not_called(cubind_library library, const char *function, unsigned long calls_before)
{
    const cubind_error *error = cubind_last_error();
    struct cubind_library_info info = {.size = sizeof info};
    assert_int_equal(cubind_mock_calls(), calls_before);
    assert_int_equal(error->kind, CUBIND_ERROR_SYMBOL_NOT_FOUND);
    assert_int_equal(error->library, library);
    assert_string_equal(error->function, function);
    /* the record names the release the library is called as */
    assert_int_equal(cubind_library_info(library, &info), CUBIND_OK);
    assert_non_null(info.release);
    assert_non_null(strstr(error->message, info.release));
}

/* The library must come from the mock named by `variable` (its CUBIND_<LIB>_PATH), of the release
 * CUBIND_TEST_RELEASE names when set, lacking exactly the functions that release cannot call. */
static int loaded_from_mock(cubind_library library, const char *variable, size_t not_callable)
{
    struct cubind_library_info info = {.size = sizeof info};
    const char *expected = getenv(variable), *release = getenv("CUBIND_TEST_RELEASE");
    if (expected == NULL || cubind_library_info(library, &info) != CUBIND_OK || strcmp(info.path, expected) != 0 ||
        strcmp(info.found_by, variable) != 0 || info.functions_missing != not_callable ||
        /* of that release, when the bindings know it for this library and the library tells its minor */
        (release != NULL && (info.release == NULL || strcmp(info.release, release) != 0) &&
         strstr(info.releases, release) != NULL && info.version_minor >= 0)) {
        fprintf(stderr, "passthrough: lib%s is not the mock named by %s (%s)\n", cubind_library_name(library),
                variable, cubind_last_error()->message);
        return -1;
    }
    return 0;
}

#define GROUP(lib_enum, name, variable)                                                                         \
    static int setup_##name(void **state)                                                                      \
    {                                                                                                          \
        (void)state;                                                                                           \
        /* loaded and resolved first, with the mocks answering as the libraries (version, entry points), and   \
         * successfully: the status a test before set would fail NVML's nvmlInit_v2 before its version query */ \
        cubind_mock_set_passthrough(0);                                                                        \
        cubind_mock_set_status(0);                                                                             \
        if (loaded_from_mock(lib_enum, variable, cubind_passthrough_##name##_not_callable()) != 0)             \
            return -1;                                                                                         \
        cubind_mock_set_passthrough(1);                                                                        \
        return 0;                                                                                              \
    }
CUBIND_PASSTHROUGH_GROUPS(GROUP)
#undef GROUP

int main(void)
{
    int failed = 0;
    size_t total = 0;
#define GROUP(lib_enum, name, variable)                                                                         \
    failed += _cmocka_run_group_tests("passthrough_" #name, cubind_passthrough_##name,                          \
                                      cubind_passthrough_##name##_count, setup_##name, NULL);                   \
    total += cubind_passthrough_##name##_count - 1; /* its statuses' test, then one a wrapper */
    CUBIND_PASSTHROUGH_GROUPS(GROUP)
#undef GROUP
    printf("passthrough: %zu wrappers tested, %d failed\n", total, failed);
    return failed == 0 ? 0 : 1;
}
