/*
 * tests/test_trace.c - call tracing (CUBIND_TRACE, CUBIND_TRACE_FILE) on the mocks.
 *
 * The configuration is read once per process, so each case runs a scenario in a child
 * (tests/scenario.h) with its environment; the child calls wrappers against the mocks,
 * the parent reads the trace file and checks its lines: every call traced and its format
 * (function, integer, enum by name and by number, pointer in hex, status name, duration);
 * the library filter; errors only; nothing written when unset; two threads at once (every
 * line whole, the count exact); the configuration read at the first call only; every library's
 * informational statuses (tests/library_cases.h) traced, but neither recorded nor handled while
 * tracing, and not errors for CUBIND_TRACE=errors.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cubind/cubind.h"
#include "loader_support.h"
#include "recorder.h"
#include "scenario.h"

#define CALLS_PER_THREAD 500

/* cublasSgemm with recognisable arguments; transb is no cublasOperation_t constant. */
static cublasStatus_t sgemm(int m)
{
    return cubind_cublas_sgemm((cublasHandle_t)(uintptr_t)0x1234, CUBLAS_OP_T, (cublasOperation_t)77, m, 8, 9,
                               (const float *)(uintptr_t)0xa1, (const float *)(uintptr_t)0xa2, 10,
                               (const float *)(uintptr_t)0xb1, 11, (const float *)(uintptr_t)0xb2,
                               (float *)(uintptr_t)0xc1, 12);
}

static cufftResult plan1d(void)
{
    return cubind_cufft_plan1d((cufftHandle *)(uintptr_t)0xf0, 64, CUFFT_R2C, 3);
}

/* The line of sgemm(m) with `status`, duration excluded (a regular expression). */
static const char *sgemm_line(int m, const char *status)
{
    static char line[1024];
    snprintf(line, sizeof line,
             "^cubind-trace: tid=[0-9]+ cublas cublasSgemm\\(handle=0x1234, transa=CUBLAS_OP_T, transb=77, "
             "m=%d, n=8, k=9, alpha=0xa1, A=0xa2, lda=10, B=0xb1, ldb=11, beta=0xb2, C=0xc1, ldc=12\\) -> "
             "%s [0-9]+\\.[0-9]{3} us$",
             m, status);
    return line;
}

static const char *const plan1d_line = "^cubind-trace: tid=[0-9]+ cufft cufftPlan1d\\(plan=0xf0, nx=64, "
                                       "type=CUFFT_R2C, batch=3\\) -> CUFFT_INVALID_VALUE [0-9]+\\.[0-9]{3} us$";

/* ---- scenarios (run in a child process) -------------------------------------------------------- */

static int scenario_calls(void)
{
    CHECK(sgemm(4) == CUBLAS_STATUS_SUCCESS);
    cubind_mock_set_status(CUBLAS_STATUS_INVALID_VALUE);
    CHECK(sgemm(5) == CUBLAS_STATUS_INVALID_VALUE);
    cubind_mock_set_status(CUFFT_INVALID_VALUE);
    CHECK(plan1d() == CUFFT_INVALID_VALUE);
    cubind_mock_set_status(0);
    CHECK(sgemm(6) == CUBLAS_STATUS_SUCCESS);
    return 0;
}

static void *calls_thread(void *arg)
{
    int i;
    for (i = 0; i < CALLS_PER_THREAD; ++i)
        if (sgemm((int)(intptr_t)arg) != CUBLAS_STATUS_SUCCESS)
            return arg;
    return NULL;
}

static int scenario_threads(void)
{
    pthread_t threads[2];
    void *result[2];
    CHECK(pthread_create(&threads[0], NULL, calls_thread, (void *)(intptr_t)1) == 0);
    CHECK(pthread_create(&threads[1], NULL, calls_thread, (void *)(intptr_t)2) == 0);
    CHECK(pthread_join(threads[0], &result[0]) == 0 && result[0] == NULL);
    CHECK(pthread_join(threads[1], &result[1]) == 0 && result[1] == NULL);
    return 0;
}

/* The variables are read at the first call: changing them afterwards changes nothing. */
static int scenario_read_once(void)
{
    CHECK(getenv("CUBIND_TMP_DIR") != NULL);
    snprintf(tmp_dir, sizeof tmp_dir, "%s", getenv("CUBIND_TMP_DIR"));
    CHECK(sgemm(1) == CUBLAS_STATUS_SUCCESS);
    if (getenv("CUBIND_TRACE") != NULL) {
        CHECK(unsetenv("CUBIND_TRACE") == 0);
        CHECK(setenv("CUBIND_TRACE_FILE", tmp_path("other.log"), 1) == 0);
    } else {
        CHECK(setenv("CUBIND_TRACE", "1", 1) == 0);
    }
    CHECK(sgemm(2) == CUBLAS_STATUS_SUCCESS);
    return 0;
}

static int handler_calls;

static void count_handler_call(const cubind_error *error, void *user)
{
    (void)error;
    (void)user;
    ++handler_calls;
}

/* Each library's first call returning each of its informational statuses, then its failure
 * status. While tracing every call takes the traced path, a third path to the record. */
static int scenario_informational(void)
{
    size_t l, i;
    cubind_set_error_handler(count_handler_call, NULL);
    for (l = 0; l < cubind_test_library_count; ++l) {
        const struct cubind_test_library *t = &cubind_test_libraries[l];
        for (i = 0; i < t->informational_count; ++i) {
            cubind_mock_set_status(t->informational[i]);
            CHECK(t->first_call() == t->informational[i]);
            CHECK(cubind_last_error()->kind == CUBIND_OK);
            CHECK(handler_calls == 0);
        }
    }
    for (l = 0; l < cubind_test_library_count; ++l) {
        const struct cubind_test_library *t = &cubind_test_libraries[l];
        cubind_mock_set_status(t->status_failure);
        CHECK(t->first_call() == t->status_failure);
        CHECK(cubind_last_error()->kind == CUBIND_ERROR_STATUS);
        CHECK(cubind_last_error()->status == t->status_failure);
        CHECK(handler_calls == (int)l + 1);
    }
    return 0;
}

/* ---- CMocka tests (parent) --------------------------------------------------------------------- */

/* Run `scenario` with CUBIND_TRACE=`trace` (NULL: unset) and the trace file trace.log, removed
 * first; returns the file's text (NULL when there is none), to be freed. */
static char *traced_run(const char *scenario, const char *trace)
{
    const char *file = tmp_path("trace.log");
    const char *const *env = library_env(mock_path, env_of("CUBIND_TRACE", trace != NULL ? trace : ""),
                                         env_of("CUBIND_TRACE_FILE", file), env_of("CUBIND_TMP_DIR", tmp_dir),
                                         NULL);
    struct run_options options = {env, 0};
    char *text;
    long size;
    FILE *f;
    unlink(file);
    unlink(tmp_path("other.log"));
    if (run_scenario(scenario, &options) != 0)
        fail_msg("scenario %s failed", scenario);
    f = fopen(file, "r");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    rewind(f);
    text = calloc(1, (size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    return text;
}

/* Line `n` (from 0) of `text`, without its newline, in a static buffer; NULL past the end. */
static const char *line_of(const char *text, int n)
{
    static char line[4096];
    const char *end;
    for (; n > 0 && text != NULL; --n) {
        text = strchr(text, '\n');
        text = text != NULL ? text + 1 : NULL;
    }
    if (text == NULL || *text == '\0')
        return NULL;
    end = strchr(text, '\n');
    assert_non_null(end); /* every line ends with its newline */
    snprintf(line, sizeof line, "%.*s", (int)(end - text), text);
    return line;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; text != NULL && *text != '\0'; ++text)
        n += *text == '\n';
    return n;
}

static void assert_matches(const char *line, const char *pattern)
{
    regex_t re;
    int ok;
    assert_non_null(line);
    assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
    ok = regexec(&re, line, 0, NULL, 0) == 0;
    regfree(&re);
    if (!ok)
        fail_msg("line\n  %s\ndoes not match\n  %s", line, pattern);
}

static void test_every_call(void **state)
{
    char *text = traced_run("calls", "1");
    (void)state;
    assert_non_null(text);
    assert_int_equal(count_lines(text), 4);
    assert_matches(line_of(text, 0), sgemm_line(4, "CUBLAS_STATUS_SUCCESS"));
    assert_matches(line_of(text, 1), sgemm_line(5, "CUBLAS_STATUS_INVALID_VALUE"));
    assert_matches(line_of(text, 2), plan1d_line);
    assert_matches(line_of(text, 3), sgemm_line(6, "CUBLAS_STATUS_SUCCESS"));
    free(text);
}

static void test_library_filter(void **state)
{
    char *text = traced_run("calls", "cufft");
    (void)state;
    assert_non_null(text);
    assert_int_equal(count_lines(text), 1);
    assert_matches(line_of(text, 0), plan1d_line);
    free(text);
    text = traced_run("calls", "cublas");
    assert_int_equal(count_lines(text), 3);
    assert_null(strstr(text, "cufft"));
    free(text);
}

static void test_errors_only(void **state)
{
    char *text = traced_run("calls", "errors");
    (void)state;
    assert_non_null(text);
    assert_int_equal(count_lines(text), 2);
    assert_matches(line_of(text, 0), sgemm_line(5, "CUBLAS_STATUS_INVALID_VALUE"));
    assert_matches(line_of(text, 1), plan1d_line);
    free(text);
    text = traced_run("calls", "cublas,errors");
    assert_non_null(text);
    assert_int_equal(count_lines(text), 1);
    assert_matches(line_of(text, 0), sgemm_line(5, "CUBLAS_STATUS_INVALID_VALUE"));
    free(text);
}

/* The line of library `t`'s first call returning `status` (a regular expression). */
static const char *first_call_line(const struct cubind_test_library *t, const char *status)
{
    static char line[512];
    snprintf(line, sizeof line, "^cubind-trace: tid=[0-9]+ %s %s\\(.*\\) -> %s [0-9]+\\.[0-9]{3} us$", t->name,
             t->first_call_function, status);
    return line;
}

static void test_informational(void **state)
{
    char *text = traced_run("informational", "1");
    size_t l, i;
    int n = 0;
    (void)state;
    for (l = 0; l < cubind_test_library_count; ++l)
        for (i = 0; i < cubind_test_libraries[l].informational_count; ++i)
            assert_matches(line_of(text, n++),
                           first_call_line(&cubind_test_libraries[l], cubind_test_libraries[l].informational_names[i]));
    assert_true(n > 0); /* the configuration has informational statuses to test */
    for (l = 0; l < cubind_test_library_count; ++l)
        assert_matches(line_of(text, n++),
                       first_call_line(&cubind_test_libraries[l], cubind_test_libraries[l].status_failure_name));
    assert_int_equal(count_lines(text), n);
    free(text);
    text = traced_run("informational", "errors"); /* the failures only */
    for (l = 0; l < cubind_test_library_count; ++l)
        assert_matches(line_of(text, (int)l),
                       first_call_line(&cubind_test_libraries[l], cubind_test_libraries[l].status_failure_name));
    assert_int_equal(count_lines(text), (int)cubind_test_library_count);
    free(text);
}

static void test_unset(void **state)
{
    (void)state;
    assert_null(traced_run("calls", NULL));
    assert_null(traced_run("calls", "0"));
}

static void test_threads(void **state)
{
    char *text = traced_run("threads", "1");
    int i, per_thread[3] = {0, 0, 0};
    (void)state;
    assert_non_null(text);
    assert_int_equal(count_lines(text), 2 * CALLS_PER_THREAD);
    for (i = 0; i < 2 * CALLS_PER_THREAD; ++i) {
        const char *line = line_of(text, i);
        int m = strstr(line, "m=1,") != NULL ? 1 : 2;
        assert_matches(line, sgemm_line(m, "CUBLAS_STATUS_SUCCESS"));
        per_thread[m]++;
    }
    assert_int_equal(per_thread[1], CALLS_PER_THREAD);
    assert_int_equal(per_thread[2], CALLS_PER_THREAD);
    free(text);
}

static void test_read_once(void **state)
{
    char *text = traced_run("read_once", "1");
    (void)state;
    assert_non_null(text);
    assert_int_equal(count_lines(text), 2); /* still on, into the same file */
    assert_matches(line_of(text, 1), sgemm_line(2, "CUBLAS_STATUS_SUCCESS"));
    assert_int_equal(access(tmp_path("other.log"), F_OK), -1);
    free(text);
    assert_null(traced_run("read_once", NULL)); /* still off */
}

static int setup(void **state)
{
    (void)state;
    return make_tmp_dir("cubind-test-trace");
}

static int teardown(void **state)
{
    (void)state;
    unlink(tmp_path("trace.log"));
    unlink(tmp_path("other.log"));
    return remove_tmp_dir();
}

int main(int argc, char **argv)
{
    static const struct scenario scenarios[] = {
        {"calls", scenario_calls},
        {"threads", scenario_threads},
        {"read_once", scenario_read_once},
        {"informational", scenario_informational},
        {NULL, NULL},
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_call),  cmocka_unit_test(test_library_filter), cmocka_unit_test(test_errors_only),
        cmocka_unit_test(test_unset),       cmocka_unit_test(test_threads),        cmocka_unit_test(test_read_once),
        cmocka_unit_test(test_informational),
    };
    int scenario = scenario_main(argc, argv, scenarios);
    if (scenario >= 0)
        return scenario;
    return cmocka_run_group_tests(tests, setup, teardown);
}
