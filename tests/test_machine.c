/*
 * tests/test_machine.c - the driver and GPU facts (cubind_driver_info, cubind_gpu_info,
 * cubind_gpu_count), "no GPU" said after a failing call's message, and the checks with a verdict
 * (cubind_check_count, cubind_check_get), against stand-ins of NVML and the driver
 * (tests/machine/fake_*.c), the generated mocks and no driver at all.
 *
 * cubind gathers the facts once per process, so each scenario runs in a child of its own, with its
 * environment set before the first call. Environment: CUBIND_TEST_MACHINE_DIR (the stand-ins),
 * CUBIND_TEST_MOCK_DIR (the mocks), CUBIND_TEST_RELEASE_MOCK_DIR (the mocks of CUDA 12.4).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cubind/cubind.h"
#include "library_cases.h"
#include "recorder.h"

/* In a child: a failed check prints where and ends the child with 1. */
#define CHECK(c)                                                                                                    \
    do {                                                                                                            \
        if (!(c)) {                                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #c,                   \
                    cubind_last_error()->message);                                                                  \
            _exit(1);                                                                                               \
        }                                                                                                           \
    } while (0)

static void path_env(const char *variable, const char *dir_variable, const char *file)
{
    char path[4096];
    const char *dir = getenv(dir_variable);
    if (dir == NULL) {
        fprintf(stderr, "%s is not set\n", dir_variable);
        _exit(2);
    }
    snprintf(path, sizeof path, "%s/%s", dir, file);
    setenv(variable, path, 1);
}

/* Run `scenario` in a child; the test fails unless it exits 0. */
static void in_child(void (*scenario)(void))
{
    int status = 0;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        scenario();
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void fake_nvml_and_driver(void)
{
    path_env("CUBIND_NVML_PATH", "CUBIND_TEST_MACHINE_DIR", "nvml/libnvidia-ml.so.1");
    path_env("CUBIND_DRIVER_PATH", "CUBIND_TEST_MACHINE_DIR", "cuda/libcuda.so.1");
}

/* A failing call of a mock cuBLAS: its message. */
static const char *failing_call(void)
{
    cublasHandle_t handle = NULL;
    path_env("CUBIND_CUBLAS_PATH", "CUBIND_TEST_MOCK_DIR", "libcublas.so.13");
    cubind_mock_set_status(CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(cubind_cublas_create(&handle) == CUBLAS_STATUS_NOT_INITIALIZED);
    cubind_mock_set_status(0);
    CHECK(cubind_last_error()->kind == CUBIND_ERROR_STATUS);
    return cubind_last_error()->message;
}

static void nvml_first(void)
{
    struct cubind_driver_info d = {.size = sizeof d};
    struct cubind_gpu_info g = {.size = sizeof g};
    int count = -1;
    fake_nvml_and_driver();
    CHECK(cubind_driver_info(&d) == CUBIND_OK);
    CHECK(d.size == sizeof d);
    CHECK(d.release != NULL && strcmp(d.release, "580.159.04") == 0);
    CHECK(d.release_major == 580 && d.release_minor == 159 && d.release_patch == 4);
    CHECK(d.release_source == CUBIND_SOURCE_NVML);
    CHECK(d.cuda_major == 13 && d.cuda_minor == 0 && d.cuda_source == CUBIND_SOURCE_DRIVER);
    CHECK(d.gpu_count == 1 && d.gpu_count_source == CUBIND_SOURCE_DRIVER);
    CHECK(d.nvml_error == NULL && d.driver_error == NULL);
    CHECK(cubind_gpu_count(&count) == CUBIND_OK && count == 1);
    CHECK(cubind_gpu_info(0, &g) == CUBIND_OK);
    CHECK(g.index == 0 && g.nvml_index == 0);
    /* NVML, asked for the driver's GPU by its PCI bus id, takes precedence */
    CHECK(strcmp(g.name, "NVIDIA H100 80GB HBM3") == 0 && g.name_source == CUBIND_SOURCE_NVML);
    CHECK(strcmp(g.uuid, "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9") == 0 && g.uuid_source == CUBIND_SOURCE_NVML);
    CHECK(g.compute_major == 9 && g.compute_minor == 0 && g.compute_source == CUBIND_SOURCE_NVML);
    CHECK(g.memory_total == 85520809984ull && g.memory_source == CUBIND_SOURCE_NVML);
    CHECK(g.mig_current == CUBIND_MIG_DISABLED && g.mig_pending == CUBIND_MIG_ENABLED);
    CHECK(g.mig_source == CUBIND_SOURCE_NVML);
    CHECK(strcmp(g.pci_bus_id, "00000000:19:00.0") == 0 && g.pci_source == CUBIND_SOURCE_NVML);
    CHECK(cubind_gpu_info(1, &g) == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(cubind_last_error()->message, "no GPU 1 (1 visible") != NULL);
    /* a GPU visible: a failing call's message is the status alone */
    CHECK(strcmp(failing_call(), "cublasCreate returned CUBLAS_STATUS_NOT_INITIALIZED (1)") == 0);
}

static void test_nvml_first(void **state)
{
    (void)state;
    in_child(nvml_first);
}

static void driver_only(void)
{
    struct cubind_driver_info d = {.size = sizeof d};
    struct {
        struct cubind_gpu_info g;
        unsigned char guard[8];
    } small;
    struct cubind_gpu_info g = {.size = sizeof g};
    path_env("CUBIND_NVML_PATH", "CUBIND_TEST_MACHINE_DIR", "absent/libnvidia-ml.so.1");
    path_env("CUBIND_DRIVER_PATH", "CUBIND_TEST_MACHINE_DIR", "cuda/libcuda.so.1");
    CHECK(cubind_driver_info(&d) == CUBIND_OK);
    CHECK(d.nvml_error != NULL && strstr(d.nvml_error, "libnvidia-ml") != NULL);
    CHECK(d.cuda_major == 13 && d.cuda_source == CUBIND_SOURCE_DRIVER);
    CHECK(d.release == NULL || d.release_source == CUBIND_SOURCE_KERNEL);
    CHECK(cubind_gpu_info(0, &g) == CUBIND_OK);
    CHECK(strcmp(g.name, "NVIDIA H100 (driver API)") == 0 && g.name_source == CUBIND_SOURCE_DRIVER);
    /* the driver's 16 bytes written as nvidia-smi writes a UUID */
    CHECK(strcmp(g.uuid, "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9") == 0 && g.uuid_source == CUBIND_SOURCE_DRIVER);
    CHECK(g.compute_major == 9 && g.compute_minor == 0 && g.compute_source == CUBIND_SOURCE_DRIVER);
    CHECK(g.memory_total == 85520809984ull && g.memory_source == CUBIND_SOURCE_DRIVER);
    CHECK(g.mig_current == CUBIND_MIG_UNKNOWN && g.mig_source == CUBIND_SOURCE_NONE && g.nvml_index == -1);
    CHECK(strcmp(g.pci_bus_id, "0000:19:00.0") == 0 && g.pci_source == CUBIND_SOURCE_DRIVER);
    /* a caller's smaller struct: no byte past its size is written */
    memset(&small, 0xa5, sizeof small);
    small.g.size = offsetof(struct cubind_gpu_info, uuid);
    CHECK(cubind_gpu_info(0, &small.g) == CUBIND_OK);
    CHECK(small.g.size == offsetof(struct cubind_gpu_info, uuid));
    CHECK(((unsigned char *)&small.g)[offsetof(struct cubind_gpu_info, uuid)] == 0xa5 && small.guard[0] == 0xa5);
}

static void test_driver_only(void **state)
{
    (void)state;
    in_child(driver_only);
}

static void no_driver(void)
{
    int count = -1;
    const char *message;
    path_env("CUBIND_NVML_PATH", "CUBIND_TEST_MACHINE_DIR", "absent/libnvidia-ml.so.1");
    path_env("CUBIND_DRIVER_PATH", "CUBIND_TEST_MACHINE_DIR", "absent/libcuda.so.1");
    CHECK(cubind_gpu_count(&count) == CUBIND_ERROR_LIBRARY_NOT_FOUND && count == 0);
    CHECK(cubind_last_error()->library == CUBIND_LIB_DRIVER);
    CHECK(strncmp(cubind_last_error()->message, "cubind_gpu_count: no CUDA driver: libcuda not found; tried: ", 60) == 0);
    message = failing_call();
    CHECK(strncmp(message, "cublasCreate returned CUBLAS_STATUS_NOT_INITIALIZED (1): no CUDA driver: libcuda not "
                           "found; tried: CUBIND_DRIVER_PATH=", 103) == 0);
    CHECK(cubind_gpu_count(NULL) == CUBIND_ERROR_INVALID_ARGUMENT);
}

static void test_no_driver(void **state)
{
    (void)state;
    in_child(no_driver);
}

/* `call` of library case `t` with the mock answering `status`: its message is the status's alone,
 * or followed by ": " and `reason` when `with_reason`. */
static void message_of(const struct cubind_test_library *t, int status, const char *name, int with_reason,
                       const char *reason)
{
    char expected[CUBIND_ERROR_MESSAGE_MAX];
    cubind_mock_set_status(status);
    CHECK(t->first_call() == status);
    cubind_mock_set_status(0);
    CHECK(cubind_last_error()->kind == CUBIND_ERROR_STATUS && cubind_last_error()->status == status);
    snprintf(expected, sizeof expected, "%s returned %s (%d)%s%s", t->first_call_function, name, status,
             with_reason ? ": " : "", with_reason ? reason : "");
    if (strcmp(cubind_last_error()->message, expected) != 0) {
        fprintf(stderr, "lib%s, %s: message \"%s\", expected \"%s\"\n", t->name, name,
                cubind_last_error()->message, expected);
        _exit(1);
    }
}

/* No driver: every library's statuses that can mean "no usable GPU" (generator/libraries.toml
 * `no_gpu`) say why, and a failure that cannot (CUFFT_INVALID_PLAN) says nothing of GPUs. The
 * libraries are the mocks, but for NVML and the driver, which are absent. */
static void no_gpu_statuses(void)
{
    char reason[CUBIND_ERROR_MESSAGE_MAX];
    size_t i, j, tested = 0;
    int count = -1;
    path_env("CUBIND_NVML_PATH", "CUBIND_TEST_MACHINE_DIR", "absent/libnvidia-ml.so.1");
    path_env("CUBIND_DRIVER_PATH", "CUBIND_TEST_MACHINE_DIR", "absent/libcuda.so.1");
    CHECK(cubind_gpu_count(&count) != CUBIND_OK && count == 0);
    CHECK(strncmp(cubind_last_error()->message, "cubind_gpu_count: no CUDA driver: ", 34) == 0);
    snprintf(reason, sizeof reason, "%s", cubind_last_error()->message + 18);
    for (i = 0; i < cubind_test_library_count; ++i) {
        const struct cubind_test_library *t = &cubind_test_libraries[i];
        if (getenv(t->env_var) != NULL)
            continue; /* NVML and the driver: absent */
        path_env(t->env_var, "CUBIND_TEST_MOCK_DIR", t->mock_soname);
        for (j = 0; j < t->no_gpu_count; ++j)
            message_of(t, t->no_gpu[j], t->no_gpu_names[j], 1, reason);
        message_of(t, t->status_not_gpu, t->status_not_gpu_name, 0, reason);
        ++tested;
    }
    CHECK(tested > 0);
}

static void test_no_gpu_statuses(void **state)
{
    (void)state;
    in_child(no_gpu_statuses);
}

/* Nobody asked the driver: the kernel module's files decide (this machine's, whatever they say). */
static void kernel_module(void)
{
    const char *message;
    unsetenv("CUBIND_DRIVER_PATH");
    message = failing_call();
    if (access("/proc/driver/nvidia/version", F_OK) != 0)
        CHECK(strcmp(message, "cublasCreate returned CUBLAS_STATUS_NOT_INITIALIZED (1): no CUDA driver: the NVIDIA "
                              "kernel module is not loaded (no /proc/driver/nvidia/version)") == 0);
    else
        CHECK(strncmp(message, "cublasCreate returned CUBLAS_STATUS_NOT_INITIALIZED (1)", 55) == 0);
}

static void test_kernel_module(void **state)
{
    (void)state;
    in_child(kernel_module);
}

static void no_gpu_visible(void)
{
    int count = -1;
    const char *expected = "driver 580.159.04, no GPU visible (cuInit returned CUDA_ERROR_NO_DEVICE (100); "
                           "CUDA_VISIBLE_DEVICES=)";
    char whole[512];
    fake_nvml_and_driver();
    setenv("FAKE_GPU_COUNT", "0", 1);
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    CHECK(cubind_gpu_count(&count) == CUBIND_ERROR_STATUS && count == 0);
    CHECK(cubind_last_error()->library == CUBIND_LIB_DRIVER && cubind_last_error()->status == 100);
    CHECK(strcmp(cubind_last_error()->function, "cuInit") == 0);
    snprintf(whole, sizeof whole, "cubind_gpu_count: %s", expected);
    CHECK(strcmp(cubind_last_error()->message, whole) == 0);
    snprintf(whole, sizeof whole, "cublasCreate returned CUBLAS_STATUS_NOT_INITIALIZED (1): %s", expected);
    CHECK(strcmp(failing_call(), whole) == 0);
}

static void test_no_gpu_visible(void **state)
{
    (void)state;
    in_child(no_gpu_visible);
}

/* NVML answers its version query only after nvmlInit_v2, as the real one does (driver 580.159.04):
 * the version is the query's, 13.0 from 13000 (two parts); that init is kept in force while NVML
 * is loaded (the machine's facts use it: NVML is initialized once). */
static void nvml_version_after_init(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    void *nvml;
    int (*init_calls)(void), (*init_count)(void);
    path_env("CUBIND_NVML_PATH", "CUBIND_TEST_MACHINE_DIR", "nvml/libnvidia-ml.so.1");
    CHECK(cubind_load(CUBIND_LIB_NVML) == CUBIND_OK);
    CHECK(cubind_library_info(CUBIND_LIB_NVML, &info) == CUBIND_OK);
    CHECK(info.version_origin == CUBIND_VERSION_ORIGIN_QUERY);
    CHECK(info.version_detail != NULL && strcmp(info.version_detail, "nvmlSystemGetCudaDriverVersion") == 0);
    CHECK(info.version_major == 13 && info.version_minor == 0 && info.version_patch == -1);
    CHECK(info.version_text != NULL && strcmp(info.version_text, "13.0") == 0);
    nvml = dlopen(info.path, RTLD_NOW | RTLD_NOLOAD);
    CHECK(nvml != NULL);
    *(void **)&init_calls = dlsym(nvml, "fake_nvml_init_calls");
    *(void **)&init_count = dlsym(nvml, "fake_nvml_init_count");
    CHECK(init_calls != NULL && init_count != NULL);
    CHECK(init_calls() == 1); /* asked once, while discovery accepted the file */
    CHECK(init_count() == 1);  /* and kept in force */
    dlclose(nvml);
}

static void test_nvml_version_after_init(void **state)
{
    (void)state;
    in_child(nvml_version_after_init);
}

/* The toolkit's stub answers nvmlInit_v2 NVML_ERROR_DRIVER_NOT_LOADED: refused, the init named. */
static void stub_nvml(void)
{
    path_env("CUBIND_NVML_PATH", "CUBIND_TEST_MACHINE_DIR", "stub/libnvidia-ml.so");
    CHECK(cubind_load(CUBIND_LIB_NVML) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(strstr(cubind_last_error()->message, "the link-time stub of NVML") != NULL);
    CHECK(strstr(cubind_last_error()->message, "refused, nvmlInit_v2 answers NVML_ERROR_DRIVER_NOT_LOADED (9)") !=
          NULL);
}

static void test_stub_nvml_refused(void **state)
{
    (void)state;
    in_child(stub_nvml);
}

/* The verdict of check `name` about `library`, or -1 when there is none. */
static int verdict_of(const char *name, cubind_library library, const char **reason)
{
    size_t n = cubind_check_count(), i;
    for (i = 0; i < n; ++i) {
        struct cubind_check c = {.size = sizeof c};
        CHECK(cubind_check_get(i, &c) == CUBIND_OK);
        if (strcmp(c.name, name) == 0 && c.library == library) {
            *reason = c.reason;
            return (int)c.verdict;
        }
    }
    return -1;
}

static void mixed_releases(void)
{
    const char *reason = NULL;
    struct cubind_check c = {.size = sizeof c};
    fake_nvml_and_driver();
    setenv("FAKE_DRIVER_RELEASE", "535.54.03", 1);
    path_env("CUBIND_CUBLAS_PATH", "CUBIND_TEST_MOCK_DIR", "libcublas.so.13");
    path_env("CUBIND_CUBLASLT_PATH", "CUBIND_TEST_RELEASE_MOCK_DIR", "libcublasLt.so.13");
    CHECK(cubind_check_count() == 0); /* nothing loaded yet */
    CHECK(cubind_load(CUBIND_LIB_CUBLAS) == CUBIND_OK && cubind_load(CUBIND_LIB_CUBLASLT) == CUBIND_OK);
    /* 535.54.03: older than 13.0's minimum, 580.65.06; 12.4 through minor-version compatibility */
    CHECK(verdict_of("driver-supports-release", CUBIND_LIB_CUBLAS, &reason) == CUBIND_CHECK_ERROR);
    CHECK(strstr(reason, "driver 535.54.03 is older than 580.65.06") != NULL);
    CHECK(verdict_of("driver-supports-release", CUBIND_LIB_CUBLASLT, &reason) == CUBIND_CHECK_WARNING);
    CHECK(strstr(reason, "minor-version compatibility (from 525.60.13)") != NULL);
    CHECK(verdict_of("coupled-release", CUBIND_LIB_CUBLAS, &reason) == CUBIND_CHECK_WARNING);
    CHECK(strstr(reason, "of CUDA 12.4") != NULL);
    CHECK(verdict_of("one-release-loaded", CUBIND_LIB_CUBLAS, &reason) == CUBIND_CHECK_OK);
    CHECK(verdict_of("driver-supports-release", CUBIND_LIB_DRIVER, &reason) == -1); /* the driver serves all */
    CHECK(cubind_check_get(cubind_check_count(), &c) == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(cubind_verdict_name(CUBIND_CHECK_WARNING), "warning") == 0);
}

static void test_mixed_releases(void **state)
{
    (void)state;
    in_child(mixed_releases);
}

/* A copy of `from` named `name` in a new temporary folder, loaded (RTLD_LOCAL): an object the walk of
 * the loaded objects counts by its file name. */
static void load_copy_as(const char *from, const char *name)
{
    char dir[] = "/tmp/cubind-test-XXXXXX", path[4096], buffer[65536];
    FILE *in, *out;
    size_t n;
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CHECK((in = fopen(from, "rb")) != NULL && (out = fopen(path, "wb")) != NULL);
    while ((n = fread(buffer, 1, sizeof buffer, in)) > 0)
        CHECK(fwrite(buffer, 1, n, out) == n);
    fclose(in);
    CHECK(fclose(out) == 0);
    CHECK(dlopen(path, RTLD_NOW | RTLD_LOCAL) != NULL);
    unlink(path);
    rmdir(dir);
}

/* Two sonames of one library loaded: the warning names both, not only the one cubind calls. */
static void two_sonames_loaded(void)
{
    const struct cubind_test_library *t = NULL;
    const char *reason = NULL, *calls;
    char stub[4096];
    size_t i;
    path_env("CUBIND_NVML_PATH", "CUBIND_TEST_MACHINE_DIR", "absent/libnvidia-ml.so.1");
    path_env("CUBIND_DRIVER_PATH", "CUBIND_TEST_MACHINE_DIR", "absent/libcuda.so.1");
    for (i = 0; i < cubind_test_library_count && t == NULL; ++i)
        if (cubind_test_libraries[i].soname_count > 1 && getenv(cubind_test_libraries[i].env_var) == NULL)
            t = &cubind_test_libraries[i];
    CHECK(t != NULL);
    path_env(t->env_var, "CUBIND_TEST_MOCK_DIR", t->mock_soname);
    snprintf(stub, sizeof stub, "%s/stub/libnvidia-ml.so", getenv("CUBIND_TEST_MACHINE_DIR"));
    load_copy_as(stub, t->sonames[1]); /* a file of another soname of the library, loaded by the program */
    CHECK(cubind_load(t->library) == CUBIND_OK);
    CHECK(verdict_of("one-release-loaded", t->library, &reason) == CUBIND_CHECK_WARNING);
    calls = strstr(reason, "; cubind calls ");
    CHECK(calls != NULL);
    for (i = 0; i < 2; ++i) {
        const char *at = strstr(reason, t->sonames[i]);
        if (at == NULL || at > calls) {
            fprintf(stderr, "%s is not named before \"; cubind calls\": %s\n", t->sonames[i], reason);
            _exit(1);
        }
    }
}

static void test_two_sonames_loaded(void **state)
{
    (void)state;
    in_child(two_sonames_loaded);
}

static void new_driver(void)
{
    const char *reason = NULL;
    fake_nvml_and_driver();
    path_env("CUBIND_CUBLASLT_PATH", "CUBIND_TEST_RELEASE_MOCK_DIR", "libcublasLt.so.13");
    CHECK(cubind_load(CUBIND_LIB_CUBLASLT) == CUBIND_OK);
    CHECK(verdict_of("driver-supports-release", CUBIND_LIB_CUBLASLT, &reason) == CUBIND_CHECK_OK);
    CHECK(strstr(reason, "driver 580.159.04 is not older than 550.54.14, the minimum of CUDA 12.4") != NULL);
}

static void test_new_driver(void **state)
{
    (void)state;
    in_child(new_driver);
}

static void *driver_info_then_cancel_point(void *arg)
{
    struct cubind_driver_info d = {.size = sizeof d};
    (void)arg;
    (void)cubind_driver_info(&d);
    pthread_testcancel();
    return NULL;
}

/* A thread cancelled while the facts are gathered (inside NVML's init, a cancellation point): the
 * gathering is finished once, by that thread, and the next caller neither waits for good nor
 * gathers again (NVML initialised twice). */
static void cancelled_while_gathering(void)
{
    struct cubind_driver_info d = {.size = sizeof d};
    int channel[2], (*init_calls)(void);
    char fd[16], byte;
    pthread_t thread;
    void *result = NULL;
    void *nvml;
    alarm(20);
    fake_nvml_and_driver();
    CHECK(pipe(channel) == 0);
    snprintf(fd, sizeof fd, "%d", channel[1]);
    setenv("FAKE_NVML_INIT_FD", fd, 1);
    setenv("FAKE_NVML_INIT_SLEEP_MS", "300", 1);
    CHECK(pthread_create(&thread, NULL, driver_info_then_cancel_point, NULL) == 0);
    CHECK(read(channel[0], &byte, 1) == 1); /* nvmlInitWithFlags is running */
    CHECK(pthread_cancel(thread) == 0);
    CHECK(pthread_join(thread, &result) == 0 && result == PTHREAD_CANCELED);
    CHECK(cubind_driver_info(&d) == CUBIND_OK);
    CHECK(d.release != NULL && strcmp(d.release, "580.159.04") == 0 && d.release_source == CUBIND_SOURCE_NVML);
    CHECK(d.gpu_count == 1);
    nvml = dlopen(getenv("CUBIND_NVML_PATH"), RTLD_NOW | RTLD_NOLOAD);
    CHECK(nvml != NULL);
    *(void **)&init_calls = dlsym(nvml, "fake_nvml_init_calls");
    CHECK(init_calls != NULL);
    CHECK(init_calls() == 1); /* the version query's init, kept for the gathering: once */
    dlclose(nvml);
}

static void test_cancelled_while_gathering(void **state)
{
    (void)state;
    in_child(cancelled_while_gathering);
}

/* The fake NVML's function `name` (fake_nvml_init_calls, fake_nvml_init_count), as loaded. */
static int (*fake_nvml(const char *name))(void)
{
    int (*fn)(void) = NULL;
    void *nvml = dlopen(getenv("CUBIND_NVML_PATH"), RTLD_NOW | RTLD_NOLOAD);
    CHECK(nvml != NULL);
    *(void **)&fn = dlsym(nvml, name);
    CHECK(fn != NULL);
    dlclose(nvml);
    return fn;
}

/* The facts gathered with NVML loaded for them: one init, the version query's, in force after. */
static void nvml_initialized_once(void)
{
    struct cubind_driver_info d = {.size = sizeof d};
    fake_nvml_and_driver();
    CHECK(cubind_driver_info(&d) == CUBIND_OK);
    CHECK(d.release != NULL && d.release_source == CUBIND_SOURCE_NVML && d.gpu_count == 1);
    CHECK(fake_nvml("fake_nvml_init_calls")() == 1);
    CHECK(fake_nvml("fake_nvml_init_count")() == 1);
}

static void test_nvml_initialized_once(void **state)
{
    (void)state;
    in_child(nvml_initialized_once);
}

/* Every text field a library fills, written by it with no terminating NUL: terminated in its buffer. */
#define TERMINATED(field) (memchr((field), '\0', sizeof(field)) != NULL)

static void unterminated_nvml(void)
{
    struct cubind_driver_info d = {.size = sizeof d};
    struct cubind_gpu_info g = {.size = sizeof g};
    path_env("CUBIND_NVML_PATH", "CUBIND_TEST_MACHINE_DIR", "nvml/libnvidia-ml.so.1");
    path_env("CUBIND_DRIVER_PATH", "CUBIND_TEST_MACHINE_DIR", "absent/libcuda.so.1");
    setenv("FAKE_UNTERMINATED", "1", 1);
    CHECK(cubind_driver_info(&d) == CUBIND_OK);
    /* the release lies in a 96-byte buffer (NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80) */
    CHECK(d.release != NULL && d.release_source == CUBIND_SOURCE_NVML && memchr(d.release, '\0', 96) != NULL);
    CHECK(d.gpu_count == 1 && d.gpu_count_source == CUBIND_SOURCE_NVML);
    CHECK(cubind_gpu_info(0, &g) == CUBIND_OK);
    CHECK(g.name_source == CUBIND_SOURCE_NVML && TERMINATED(g.name));
    CHECK(g.uuid_source == CUBIND_SOURCE_NVML && TERMINATED(g.uuid));
    CHECK(g.pci_source == CUBIND_SOURCE_NVML && TERMINATED(g.pci_bus_id));
}

static void test_unterminated_nvml(void **state)
{
    (void)state;
    in_child(unterminated_nvml);
}

static void unterminated_driver(void)
{
    struct cubind_gpu_info g = {.size = sizeof g};
    path_env("CUBIND_NVML_PATH", "CUBIND_TEST_MACHINE_DIR", "absent/libnvidia-ml.so.1");
    path_env("CUBIND_DRIVER_PATH", "CUBIND_TEST_MACHINE_DIR", "cuda/libcuda.so.1");
    setenv("FAKE_UNTERMINATED", "1", 1);
    CHECK(cubind_gpu_info(0, &g) == CUBIND_OK);
    CHECK(g.name_source == CUBIND_SOURCE_DRIVER && TERMINATED(g.name));
    CHECK(g.pci_source == CUBIND_SOURCE_DRIVER && TERMINATED(g.pci_bus_id));
    CHECK(g.uuid_source == CUBIND_SOURCE_DRIVER && TERMINATED(g.uuid)); /* cubind writes this one */
}

static void test_unterminated_driver(void **state)
{
    (void)state;
    in_child(unterminated_driver);
}

/* NVML's unsigned count of 0xffffffff: out of range, said so, not "unknown" from NVML. */
static void count_out_of_range(void)
{
    struct cubind_driver_info d = {.size = sizeof d};
    int count = -1;
    path_env("CUBIND_NVML_PATH", "CUBIND_TEST_MACHINE_DIR", "nvml/libnvidia-ml.so.1");
    path_env("CUBIND_DRIVER_PATH", "CUBIND_TEST_MACHINE_DIR", "absent/libcuda.so.1");
    setenv("FAKE_GPU_COUNT", "4294967295", 1);
    CHECK(cubind_driver_info(&d) == CUBIND_OK);
    CHECK(d.gpu_count == -1 && d.gpu_count_source == CUBIND_SOURCE_NONE);
    CHECK(d.nvml_error != NULL && strstr(d.nvml_error, "answered 4294967295 GPUs, out of range") != NULL);
    CHECK(cubind_gpu_count(&count) != CUBIND_OK && count == 0);
}

static void test_count_out_of_range(void **state)
{
    (void)state;
    in_child(count_out_of_range);
}

/* The newest of `releases` ("13.0, 12.5, 12.4, 11.8", newest first: cubind_library_info's) whose CUDA
 * major is `major`, into `out`; "" when none is. */
static void newest_release_of_major(const char *releases, int major, char *out, size_t size)
{
    const char *at = releases;
    out[0] = '\0';
    while (at != NULL && *at != '\0') {
        if (atoi(at) == major) {
            size_t length = strcspn(at, ", ");
            snprintf(out, size, "%.*s", (int)length, at);
            return;
        }
        at = strchr(at, ',');
        at = at != NULL ? at + 2 : NULL;
    }
}

/* An older release's cuBLASLt (DT_SONAME libcublasLt.so.12) answering 99.99: the version contradicts
 * the soname, which decides the release (the newest the bindings read of the soname's major, never
 * the newest release, 13.0); said in the note and a check. */
static void version_contradicts_soname(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    const char *reason = NULL;
    char newest_12[16], note[160];
    path_env("CUBIND_CUBLASLT_PATH", "CUBIND_TEST_RELEASE_MOCK_DIR", "libcublasLt.so.13");
    setenv("CUBIND_MOCK_VERSION", "99.99.0", 1);
    CHECK(cubind_load(CUBIND_LIB_CUBLASLT) == CUBIND_OK);
    CHECK(cubind_library_info(CUBIND_LIB_CUBLASLT, &info) == CUBIND_OK);
    CHECK(info.version_major == 99 && info.soname != NULL && strcmp(info.soname, "libcublasLt.so.12") == 0);
    CHECK(info.releases != NULL);
    newest_release_of_major(info.releases, 12, newest_12, sizeof newest_12);
    CHECK(newest_12[0] != '\0');
    CHECK(info.release != NULL && strcmp(info.release, newest_12) == 0);
    snprintf(note, sizeof note, "answers version 99.99.0, which contradicts its soname libcublasLt.so.12 (major 12): "
             "it is called as CUDA %s", newest_12);
    CHECK(info.release_note != NULL && strstr(info.release_note, note) != NULL);
    CHECK(verdict_of("version-matches-soname", CUBIND_LIB_CUBLASLT, &reason) == CUBIND_CHECK_WARNING);
    CHECK(strstr(reason, "contradicts its soname") != NULL);
}

static void test_version_contradicts_soname(void **state)
{
    (void)state;
    in_child(version_contradicts_soname);
}

/* CUDA 12.4's driver: cuDeviceGetDevResource is refused, and the reason names the entry point 12.4
 * has with the newest parameters (its own symbol) and the obstacle: parameter resource, whose
 * record's union members changed (generator/release_compare.py). (cuGraphAddNode, refused so
 * before, is called through a semantic adapter now: generator/semantic.toml.) */
static void refusal_names_the_obstacle(void)
{
    struct cubind_function_info info = {.size = sizeof info};
    path_env("CUBIND_DRIVER_PATH", "CUBIND_TEST_RELEASE_MOCK_DIR", "libcuda.so.1");
    CHECK(cubind_function_info("cuDeviceGetDevResource", &info) == CUBIND_OK);
    CHECK(info.state == CUBIND_FUNCTION_REFUSED && info.release != NULL && strcmp(info.release, "12.4") == 0);
    CHECK(info.reason != NULL && strstr(info.reason, "CUDA 12.4 has cuDeviceGetDevResource with the CUDA ") != NULL);
    CHECK(strstr(info.reason, "parameter resource") != NULL && strstr(info.reason, "union member") != NULL);
    /* and the error record of a call says the same */
    CHECK(cubind_driver_device_get_dev_resource(0, NULL, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS);
    CHECK(strstr(cubind_last_error()->message, "parameter resource") != NULL);
    /* cuGraphAddNode: adapted, its reason saying when it is refused */
    CHECK(cubind_function_info("cuGraphAddNode", &info) == CUBIND_OK);
    CHECK(info.state == CUBIND_FUNCTION_ADAPTED && info.reason != NULL &&
          strstr(info.reason, "nodeParams->graph.ownership is set") != NULL);
}

static void test_refusal_names_the_obstacle(void **state)
{
    (void)state;
    in_child(refusal_names_the_obstacle);
}

/* A cuBLASLt of the next major (libcublasLt.so.14 answering 14.0.0): refused, with the reason, unless
 * CUBIND_ALLOW_NEWER_MAJOR=1, which calls it as the newest release read and says so. */
static void newer_major(void)
{
    setenv("CUBIND_CUBLASLT_PATH", getenv("CUBIND_TEST_NEXT_MOCK"), 1);
    setenv("CUBIND_MOCK_VERSION", "14.0.0", 1);
    CHECK(cubind_load(CUBIND_LIB_CUBLASLT) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(strstr(cubind_last_error()->message, "its major version, 14, is newer than every release these bindings "
                                               "know") != NULL);
    CHECK(strstr(cubind_last_error()->message, "CUBIND_ALLOW_NEWER_MAJOR=1") != NULL);
}

static void newer_major_allowed(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    const char *reason = NULL;
    setenv("CUBIND_CUBLASLT_PATH", getenv("CUBIND_TEST_NEXT_MOCK"), 1);
    setenv("CUBIND_MOCK_VERSION", "14.0.0", 1);
    setenv("CUBIND_ALLOW_NEWER_MAJOR", "1", 1);
    CHECK(cubind_load(CUBIND_LIB_CUBLASLT) == CUBIND_OK);
    CHECK(cubind_library_info(CUBIND_LIB_CUBLASLT, &info) == CUBIND_OK);
    CHECK(info.release != NULL && info.releases != NULL && strncmp(info.releases, info.release, strlen(info.release)) == 0);
    CHECK(info.release_note != NULL && strstr(info.release_note, "because CUBIND_ALLOW_NEWER_MAJOR=1") != NULL);
    CHECK(verdict_of("version-matches-soname", CUBIND_LIB_CUBLASLT, &reason) == CUBIND_CHECK_OK);
}

static void test_newer_major(void **state)
{
    (void)state;
    in_child(newer_major);
    in_child(newer_major_allowed);
}

/* A library of a newer minor than every release of its major the bindings read (a CUDA 12.9 runtime,
 * cuBLASLt 12.9.1): called as the newest release of that major (its ABI is kept within a major), not
 * as an older one nor as the newest release, 13.0. With CUDA 12.5 read, a 12.6 to 12.9 library is
 * called as 12.5; the releases come from the library info, so that a release added is checked too. */
static void newer_minor(cubind_library library, const char *variable, const char *file, const char *version)
{
    struct cubind_library_info info = {.size = sizeof info};
    char newest_12[16];
    path_env(variable, "CUBIND_TEST_RELEASE_MOCK_DIR", file);
    setenv("CUBIND_MOCK_VERSION", version, 1);
    CHECK(cubind_library_info(library, &info) == CUBIND_OK);
    CHECK(info.found && info.version_text != NULL && strcmp(info.version_text, version) == 0);
    CHECK(info.releases != NULL);
    newest_release_of_major(info.releases, 12, newest_12, sizeof newest_12);
    CHECK(newest_12[0] != '\0');
    if (info.release == NULL || strcmp(info.release, newest_12) != 0)
        fprintf(stderr, "%s %s is called as CUDA %s, not %s\n", cubind_library_name(library), version,
                info.release != NULL ? info.release : "(none)", newest_12);
    CHECK(info.release != NULL && strcmp(info.release, newest_12) == 0);
    CHECK(info.release_note == NULL); /* nothing to say: a known major, a version its soname agrees with */
}

static void cublaslt_of_cuda_12_9(void)
{
    newer_minor(CUBIND_LIB_CUBLASLT, "CUBIND_CUBLASLT_PATH", "libcublasLt.so.13", "12.9.1");
}

static void curand_of_cuda_12_9(void)
{
    /* cuRAND 10.3.10 is CUDA 12.9's: CUDA 12 by libraries.toml's `cuda` table (10.3.1 to 10.3.x) */
    newer_minor(CUBIND_LIB_CURAND, "CUBIND_CURAND_PATH", "libcurand.so.10", "10.3.10");
}

static void test_newer_minor_is_called_as_the_newest_of_its_major(void **state)
{
    (void)state;
    in_child(cublaslt_of_cuda_12_9);
    in_child(curand_of_cuda_12_9);
}

/* A library whose major does not follow CUDA's, of a CUDA 12 release before 12.4 (CUDA 12.4's mock
 * answering `version`): called as the nearest release of its CUDA major (12.4), by libraries.toml's
 * `cuda` table, never as 11.8's, whose version of the same major is older (cuSOLVER 11.4.1, cuRAND
 * 10.3.0); the release note says no more than that. */
static void called_as_cuda_major(cubind_library library, const char *variable, const char *file,
                                 const char *version)
{
    struct cubind_library_info info = {.size = sizeof info};
    path_env(variable, "CUBIND_TEST_RELEASE_MOCK_DIR", file);
    setenv("CUBIND_MOCK_VERSION", version, 1);
    CHECK(cubind_library_info(library, &info) == CUBIND_OK);
    CHECK(info.version_text != NULL && strcmp(info.version_text, version) == 0);
    if (info.release == NULL || strcmp(info.release, "12.4") != 0)
        fprintf(stderr, "%s %s is called as CUDA %s\n", cubind_library_name(library), version,
                info.release != NULL ? info.release : "(none)");
    CHECK(info.release != NULL && strcmp(info.release, "12.4") == 0);
    CHECK(info.release_note == NULL || strstr(info.release_note, "11.8") == NULL);
}

static void cusolver_of_cuda_12_2(void)
{
    called_as_cuda_major(CUBIND_LIB_CUSOLVER, "CUBIND_CUSOLVER_PATH", "libcusolver.so.12", "11.5.0");
}

static void cusolver_of_cuda_12_0(void)
{
    called_as_cuda_major(CUBIND_LIB_CUSOLVER, "CUBIND_CUSOLVER_PATH", "libcusolver.so.12", "11.4.2");
}

static void curand_of_cuda_12_1(void)
{
    called_as_cuda_major(CUBIND_LIB_CURAND, "CUBIND_CURAND_PATH", "libcurand.so.10", "10.3.2");
}

static void test_called_as_cuda_major(void **state)
{
    (void)state;
    in_child(cusolver_of_cuda_12_2);
    in_child(cusolver_of_cuda_12_0);
    in_child(curand_of_cuda_12_1);
}

static void *load_cublaslt(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)cubind_load(CUBIND_LIB_CUBLASLT);
}

/* cubind_require_release of the newest release (that of the headers read) while another thread loads
 * CUDA 12.4's cuBLASLt, its version query (under the load lock) slow: the requirement and the load are
 * atomic with respect to each other. The invariant: after CUBIND_OK the library is never loaded as an
 * older release. Deterministically, the load in progress finishes first, as 12.4, and the requirement
 * is then refused as ALREADY_LOADED (without the lock it returned CUBIND_OK and the load failed after,
 * or, in the window after the load read the requirement, the library was loaded as 12.4 regardless). */
static void require_during_load(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    int channel[2], major = CUDART_VERSION / 1000, minor = CUDART_VERSION % 1000 / 10;
    char fd[16], byte;
    pthread_t thread;
    void *loaded = NULL;
    cubind_error_kind required;
    alarm(20);
    path_env("CUBIND_CUBLASLT_PATH", "CUBIND_TEST_RELEASE_MOCK_DIR", "libcublasLt.so.13");
    CHECK(pipe(channel) == 0);
    snprintf(fd, sizeof fd, "%d", channel[1]);
    setenv("CUBIND_TEST_SLOW_FD", fd, 1);
    setenv("CUBIND_MOCK_VERSION_SLEEP_MS", "300", 1);
    CHECK(pthread_create(&thread, NULL, load_cublaslt, NULL) == 0);
    CHECK(read(channel[0], &byte, 1) == 1); /* the version query is running: a load in progress */
    required = cubind_require_release(CUBIND_LIB_CUBLASLT, major, minor);
    CHECK(pthread_join(thread, &loaded) == 0);
    unsetenv("CUBIND_MOCK_VERSION_SLEEP_MS");
    (void)cubind_library_info(CUBIND_LIB_CUBLASLT, &info);
    if (required == CUBIND_OK) /* the invariant */
        CHECK(!info.found || (info.release != NULL && strncmp(info.releases, info.release, strlen(info.release)) == 0));
    CHECK((intptr_t)loaded == CUBIND_OK && info.release != NULL && strcmp(info.release, "12.4") == 0);
    CHECK(required == CUBIND_ERROR_ALREADY_LOADED);
    CHECK(strstr(cubind_last_error()->message, "is already loaded from") != NULL);
}

static void test_require_during_load(void **state)
{
    (void)state;
    in_child(require_during_load);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvml_first),     cmocka_unit_test(test_driver_only),
        cmocka_unit_test(test_no_driver),      cmocka_unit_test(test_kernel_module),
        cmocka_unit_test(test_no_gpu_visible), cmocka_unit_test(test_no_gpu_statuses), cmocka_unit_test(test_two_sonames_loaded), cmocka_unit_test(test_stub_nvml_refused),
        cmocka_unit_test(test_nvml_version_after_init),
        cmocka_unit_test(test_mixed_releases), cmocka_unit_test(test_new_driver),
        cmocka_unit_test(test_cancelled_while_gathering), cmocka_unit_test(test_nvml_initialized_once),
        cmocka_unit_test(test_unterminated_nvml), cmocka_unit_test(test_unterminated_driver),
        cmocka_unit_test(test_count_out_of_range), cmocka_unit_test(test_version_contradicts_soname), cmocka_unit_test(test_refusal_names_the_obstacle),
        cmocka_unit_test(test_newer_major), cmocka_unit_test(test_require_during_load),
        cmocka_unit_test(test_called_as_cuda_major), cmocka_unit_test(test_newer_minor_is_called_as_the_newest_of_its_major),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
