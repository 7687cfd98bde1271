/*
 * tests/test_real.c - cubind on the real CUDA libraries of this machine
 * (default discovery, normally /usr/local/cuda).
 *
 * - every library is found, and the version it reports about itself equals the
 *   numbers in its file names and the version of the headers cubind was
 *   generated from;
 * - what cubind lists as missing is exactly what dlsym cannot find;
 * - a missing symbol (curandGenerateBinomial in CUDA 13.0) returns the fixed
 *   status with a complete record;
 * - creating a handle returns the library's real status: without a GPU a
 *   failure, recorded with that exact status; with one, success.
 *
 * CUBIND_TEST_RELEASE=12.4: the libraries found are an older release's (CUDA 12.4's arm64 libraries,
 * under qemu: make test-aarch64), not the toolkit's the headers came from: each found is called as
 * that release, and its version is its file name's. A library of the configuration the machine lacks
 * (only some of a release are fetched) is reported not found, and its wrappers return its fixed status.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
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
#include "library_cases.h"

/* Whether this machine has the library where discovery looks: a file of one of its sonames
 * that the system loader or $CUDA_PATH/lib64 (default /usr/local/cuda) provides. The driver,
 * libcuda.so.1, comes with a GPU driver, not with the toolkit: without one it is not found. */
/* The toolkit the headers came from: $CUDA_PATH, else /usr/local/cuda. */
static const char *toolkit_root(void)
{
    return getenv("CUDA_PATH") != NULL ? getenv("CUDA_PATH") : "/usr/local/cuda";
}

/* A file of a major newer than every release the bindings read (CUDA 13.0's libnvjpeg.so.13, whose
 * headers cubind read from 12.4): refused by design (docs/releases.md), with that reason. */
static int refused_as_newer(cubind_library library)
{
    struct cubind_library_info info = {.size = sizeof info};
    return cubind_library_info(library, &info) == CUBIND_ERROR_LIBRARY_NOT_FOUND && info.error != NULL &&
           strstr(info.error, "is newer than every release these bindings know") != NULL;
}

/* The release the libraries are of (CUBIND_TEST_RELEASE), or NULL: the toolkit's, the headers' own. */
static const char *libraries_release(void)
{
    const char *release = getenv("CUBIND_TEST_RELEASE");
    return release != NULL && release[0] != '\0' ? release : NULL;
}

static int expected_present(const struct cubind_test_library *t)
{
    const char *root = toolkit_root();
    size_t i;

    for (i = 0; i < t->soname_count; ++i) {
        char path[4096];
        void *handle = dlopen(t->sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (handle != NULL) {
            dlclose(handle);
            return 1;
        }
        snprintf(path, sizeof path, "%s/lib64/%s", root, t->sonames[i]);
        if (access(path, F_OK) == 0)
            return 1;
    }
    return 0;
}

/* Whether a file is in the CUDA toolkit ($CUDA_PATH, else /usr/local/cuda; links resolved). */
static int in_toolkit(const char *real_path)
{
    const char *root = toolkit_root();
    char resolved[4096];
    size_t n;
    if (real_path == NULL || realpath(root, resolved) == NULL)
        return 0;
    n = strlen(resolved);
    return strncmp(real_path, resolved, n) == 0 && real_path[n] == '/';
}

/* "13.1.0" -> 13, 1, 0; returns how many parts. */
static int parse_version(const char *text, int version[3])
{
    return sscanf(text, "%d.%d.%d", &version[0], &version[1], &version[2]);
}

/* Numbers after ".so." in a file name: libcublas.so.13.1.0.3 -> 13, 1, 0. */
static int name_version(const char *path, int version[3])
{
    const char *base = strrchr(path, '/');
    const char *p = strstr(base != NULL ? base : path, ".so.");
    int n = 0;
    if (p == NULL)
        return 0;
    p += 4;
    while (n < 3 && *p >= '0' && *p <= '9') {
        char *end;
        version[n++] = (int)strtol(p, &end, 10);
        if (*end != '.')
            break;
        p = end + 1;
    }
    return n;
}

static int gpu_present(void)
{
    int (*init)(unsigned int);
    int (*count)(int *);
    void *symbol;
    int devices = 0;
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (cuda == NULL)
        return 0;
    symbol = dlsym(cuda, "cuInit");
    memcpy(&init, &symbol, sizeof symbol);
    symbol = dlsym(cuda, "cuDeviceGetCount");
    memcpy(&count, &symbol, sizeof symbol);
    return init != NULL && count != NULL && init(0) == 0 && count(&devices) == 0 && devices > 0;
}

static void test_versions_match_file_names_and_headers(void **state)
{
    size_t lib;
    int i;
    (void)state;
    for (lib = 0; lib < cubind_test_library_count; ++lib) {
        const struct cubind_test_library *t = &cubind_test_libraries[lib];
        struct cubind_library_info info = {.size = sizeof info};
        int version[3] = {-1, -1, -1}, from_soname[3] = {-1, -1, -1}, from_file[3] = {-1, -1, -1};
        int header[3] = {-1, -1, -1};
        int n_soname, n_file, n_header, parts = t->version_parts ? t->version_parts : 3;
        print_message("%-11s ", t->name);
        if (refused_as_newer(t->library)) {
            print_message("refused: a major newer than the releases read (CUBIND_ALLOW_NEWER_MAJOR=1 calls it)\n");
            continue;
        }
        if (!expected_present(t)) {
            /* not on this machine: not found, and the record lists every place tried */
            assert_int_equal(cubind_library_info(t->library, &info), CUBIND_ERROR_LIBRARY_NOT_FOUND);
            assert_int_equal(info.found, 0);
            print_message("not found (%s)\n", info.error);
            assert_non_null(strstr(info.error, t->sonames[0]));
            assert_non_null(strstr(info.error, t->env_var));
            assert_non_null(strstr(info.error, "system loader"));
            continue;
        }
        assert_int_equal(cubind_library_info(t->library, &info), CUBIND_OK);
        version[0] = info.version_major;
        version[1] = info.version_minor;
        version[2] = info.version_patch;
        print_message("%s %s (%s)\n", info.version_text != NULL ? info.version_text : "(version unknown)", info.real_path,
                      info.version_source);
        assert_non_null(info.soname);
        n_soname = name_version(info.soname, from_soname);
        n_file = name_version(info.real_path, from_file);
        assert_true(n_soname >= 1);
        assert_true(n_file >= 1);
        for (i = 0; i < n_soname && t->soname_versioned; ++i)
            assert_int_equal(version[i], from_soname[i]);
        /* a file name that extends the soname (libcublas.so.13.1.0.3) carries the version; another
         * (CUPTI 13.0's libcupti.so.2025.3.1, numbered by its year) does not */
        if (strncmp(strrchr(info.real_path, '/') != NULL ? strrchr(info.real_path, '/') + 1 : info.real_path, info.soname,
                    strlen(info.soname)) == 0)
            for (i = 0; i < n_file && i < parts && t->soname_versioned; ++i)
                assert_int_equal(version[i], from_file[i]);
        /* A version asked of the library has the parts its kind of query gives (13.0 from
         * cudaRuntimeGetVersion, 2.28.9 from ncclGetVersion); one read from a file name
         * (libcusolverMg) has those the name has. */
        for (i = 0; i < t->version_parts; ++i)
            assert_true(version[i] >= 0);
        for (i = parts; i < 3; ++i)
            assert_int_equal(version[i], -1);
        /* An older release's library is called as that release; its version is its file name's. */
        if (libraries_release() != NULL && t->soname_versioned) {
            assert_non_null(info.release);
            assert_string_equal(info.release, libraries_release());
            continue;
        }
        /* A library of the toolkit the headers came from has the headers' version; one installed
         * beside it (NCCL and cuDNN from the system's packages) only the same major: its soname. */
        n_header = parse_version(t->header_version, header);
        if (!in_toolkit(info.real_path))
            n_header = 1;
        /* A library that comes with the driver (its soname's number is no version: libcuda,
         * libnvidia-ml) answers the CUDA level the driver supports, whatever the headers' release. */
        if (!t->soname_versioned)
            n_header = 0;
        for (i = 0; i < n_header && version[i] >= 0; ++i)
            assert_int_equal(version[i], header[i]);
        assert_true(i >= 1 || n_header == 0);
    }
}

/* A library whose version query can refuse a file (the driver's link-time stub answers
 * CUDA_ERROR_STUB_LIBRARY): the toolkit's lib64/stubs copy, given explicitly, is refused. */
static void test_stubs_are_refused(void **state)
{
    const char *root = toolkit_root();
    size_t lib, tested = 0;
    (void)state;
    for (lib = 0; lib < cubind_test_library_count; ++lib) {
        const struct cubind_test_library *t = &cubind_test_libraries[lib];
        struct cubind_library_info info = {.size = sizeof info};
        char stub[4096];
        const char *dot = strstr(t->sonames[0], ".so");
        if (t->version_refusals == 0 || dot == NULL || expected_present(t))
            continue;
        snprintf(stub, sizeof stub, "%s/lib64/stubs/%.*s.so", root, (int)(dot - t->sonames[0]), t->sonames[0]);
        if (access(stub, F_OK) != 0)
            continue;
        assert_int_equal(cubind_set_library_path(t->library, stub), CUBIND_OK);
        assert_int_equal(cubind_library_info(t->library, &info), CUBIND_ERROR_LIBRARY_NOT_FOUND);
        print_message("%s: %s\n", t->name, info.error);
        assert_non_null(strstr(info.error, "refused"));
        assert_non_null(strstr(info.error, "stub"));
        assert_int_equal(cubind_set_library_path(t->library, NULL), CUBIND_OK);
        tested++;
    }
    if (tested == 0)
        skip();
}

/* cubind's census of missing functions agrees with dlsym on the same object: a missing function is not
 * exported, or is not in the release the library is called as (one that release removed, which the
 * file may still export: never called, docs/releases.md). */
static void test_missing_functions_are_really_missing(void **state)
{
    size_t lib, i;
    (void)state;
    for (lib = 0; lib < cubind_test_library_count; ++lib) {
        struct cubind_library_info info = {.size = sizeof info};
        void *handle;
        if (!expected_present(&cubind_test_libraries[lib]) || refused_as_newer(cubind_test_libraries[lib].library))
            continue;
        assert_int_equal(cubind_library_info(cubind_test_libraries[lib].library, &info), CUBIND_OK);
        handle = dlopen(info.path, RTLD_NOW | RTLD_NOLOAD);
        assert_non_null(handle);
        assert_int_equal(info.functions_found + info.functions_missing, info.functions);
        for (i = 0; i < info.functions_missing; ++i) {
            struct cubind_function_info function = {.size = sizeof function};
            assert_int_equal(cubind_function_available(info.missing[i]), 0);
            assert_int_equal(cubind_function_info(info.missing[i], &function), CUBIND_OK);
            assert_int_equal(function.state, CUBIND_FUNCTION_MISSING);
            if (dlsym(handle, info.missing[i]) != NULL) {
                print_message("%s: exported by %s, not in CUDA %s: %s\n", info.missing[i], info.path, info.release,
                              function.reason != NULL ? function.reason : "(no reason)");
                assert_non_null(function.reason);
                assert_non_null(strstr(function.reason, "does not exist"));
            }
        }
        dlclose(handle);
    }
}

/* The CUDA 13.0 libraries lack functions their headers declare: 36 cuSPARSE *_bufferSizeExt
 * and cusparseXgebsr2csr, the cusolverDnLogger* family, cublasLtDisableCpuInstructionsSetMask,
 * curandGenerateBinomial(Method). cubind must list exactly those. */
static void test_cuda_13_0_missing_symbols(void **state)
{
    struct cubind_library_info info = {.size = sizeof info};
    size_t i, buffer_size_ext = 0;
    (void)state;
    if (cubind_library_info(CUBIND_LIB_CUSPARSE, &info) != CUBIND_OK || info.version_major != 12 ||
        info.version_minor != 6)
        skip(); /* another CUDA release, or none: other facts */
    assert_int_equal(info.functions_missing, 37);
    for (i = 0; i < info.functions_missing; ++i) {
        if (strstr(info.missing[i], "_bufferSizeExt") != NULL)
            buffer_size_ext++;
        else
            assert_string_equal(info.missing[i], "cusparseXgebsr2csr");
    }
    assert_int_equal(buffer_size_ext, 36);
    assert_int_equal(cubind_library_info(CUBIND_LIB_CUSOLVER, &info), CUBIND_OK);
    assert_true(info.functions_missing > 0);
    for (i = 0; i < info.functions_missing; ++i)
        assert_memory_equal(info.missing[i], "cusolverDnLogger", strlen("cusolverDnLogger"));
    assert_int_equal(cubind_library_info(CUBIND_LIB_CUBLASLT, &info), CUBIND_OK);
    assert_int_equal(info.functions_missing, 1);
    assert_string_equal(info.missing[0], "cublasLtDisableCpuInstructionsSetMask");
    assert_int_equal(cubind_library_info(CUBIND_LIB_CURAND, &info), CUBIND_OK);
    assert_int_equal(info.functions_missing, 2);
    assert_string_equal(info.missing[0], "curandGenerateBinomial");
    assert_string_equal(info.missing[1], "curandGenerateBinomialMethod");
}

static void test_missing_symbol_call(void **state)
{
    struct cubind_library_info info = {.size = sizeof info};
    const cubind_error *error;
    (void)state;
    if (cubind_function_available("curandGenerateBinomial") == CUBIND_FUNCTION_AVAILABLE)
        skip();
    assert_int_equal(cubind_library_info(CUBIND_LIB_CURAND, &info), CUBIND_OK);
    cubind_clear_error();
    assert_int_equal(cubind_curand_generate_binomial(NULL, NULL, 0, 0, 0.5), CURAND_STATUS_VERSION_MISMATCH);
    error = cubind_last_error();
    assert_int_equal(error->kind, CUBIND_ERROR_SYMBOL_NOT_FOUND);
    assert_string_equal(error->function, "curandGenerateBinomial");
    assert_string_equal(error->status_name, "CURAND_STATUS_VERSION_MISMATCH");
    assert_non_null(strstr(error->message, info.path));
    assert_non_null(info.version_text);
    assert_non_null(strstr(error->message, info.version_text));
}

static const struct cubind_test_library *test_library(cubind_library library)
{
    size_t i;
    for (i = 0; i < cubind_test_library_count; ++i)
        if (cubind_test_libraries[i].library == library)
            return &cubind_test_libraries[i];
    fail_msg("library %d is not in the configuration", (int)library);
    return NULL;
}

static void expect_creation(const char *function, cubind_library library, int status, int success, int gpu)
{
    const cubind_error *error = cubind_last_error();
    const struct cubind_test_library *t = test_library(library);
    if (!expected_present(t)) { /* not on this machine: the fixed status, and the record says so */
        print_message("%s -> %s (%s not here)\n", function, t->status_missing_library_name, t->sonames[0]);
        assert_int_equal(status, t->status_missing_library);
        assert_int_equal(error->kind, CUBIND_ERROR_LIBRARY_NOT_FOUND);
        assert_string_equal(error->function, function);
        cubind_clear_error();
        return;
    }
    print_message("%s -> %d %s (GPU %s)\n", function, status,
                  status == success ? "success" : cubind_status_name(library, status), gpu ? "present" : "absent");
    if (gpu) {
        assert_int_equal(status, success);
        return;
    }
    assert_int_not_equal(status, success);
    assert_int_equal(error->kind, CUBIND_ERROR_STATUS);
    assert_int_equal(error->library, library);
    assert_int_equal(error->status, status);
    assert_string_equal(error->function, function);
    assert_non_null(cubind_status_name(library, status));
    assert_string_equal(error->status_name, cubind_status_name(library, status));
    assert_non_null(strstr(error->message, error->status_name));
}

static void test_handle_creation(void **state)
{
    int gpu = gpu_present();
    cublasHandle_t blas;
    cublasLtHandle_t lt;
    curandGenerator_t generator;
    cusolverDnHandle_t dn;
    cusparseHandle_t sparse;
    (void)state;
    cubind_clear_error();
    expect_creation("cublasCreate", CUBIND_LIB_CUBLAS, cubind_cublas_create(&blas), CUBLAS_STATUS_SUCCESS, gpu);
    if (gpu)
        assert_int_equal(cubind_cublas_destroy(blas), CUBLAS_STATUS_SUCCESS);
    expect_creation("cublasLtCreate", CUBIND_LIB_CUBLASLT, cubind_cublasLt_create(&lt), CUBLAS_STATUS_SUCCESS, gpu);
    if (gpu)
        assert_int_equal(cubind_cublasLt_destroy(lt), CUBLAS_STATUS_SUCCESS);
    expect_creation("curandCreateGenerator", CUBIND_LIB_CURAND,
                    cubind_curand_create_generator(&generator, CURAND_RNG_PSEUDO_DEFAULT), CURAND_STATUS_SUCCESS, gpu);
    if (gpu)
        assert_int_equal(cubind_curand_destroy_generator(generator), CURAND_STATUS_SUCCESS);
    expect_creation("cusolverDnCreate", CUBIND_LIB_CUSOLVER, cubind_cusolverDn_create(&dn), CUSOLVER_STATUS_SUCCESS, gpu);
    if (gpu)
        assert_int_equal(cubind_cusolverDn_destroy(dn), CUSOLVER_STATUS_SUCCESS);
    expect_creation("cusparseCreate", CUBIND_LIB_CUSPARSE, cubind_cusparse_create(&sparse), CUSPARSE_STATUS_SUCCESS, gpu);
    if (gpu)
        assert_int_equal(cubind_cusparse_destroy(sparse), CUSPARSE_STATUS_SUCCESS);
}

/* A call that needs no GPU succeeds and leaves no error: a host generator of cuRAND. */
static void test_host_call_succeeds(void **state)
{
    curandGenerator_t generator;
    float numbers[4] = {0};
    (void)state;
    cubind_clear_error();
    assert_int_equal(cubind_curand_create_generator_host(&generator, CURAND_RNG_PSEUDO_DEFAULT), CURAND_STATUS_SUCCESS);
    assert_int_equal(cubind_curand_set_pseudo_random_generator_seed(generator, 1234ULL), CURAND_STATUS_SUCCESS);
    assert_int_equal(cubind_curand_generate_uniform(generator, numbers, 4), CURAND_STATUS_SUCCESS);
    assert_true(numbers[0] > 0.0f && numbers[0] <= 1.0f && numbers[0] != numbers[1]);
    assert_int_equal(cubind_curand_destroy_generator(generator), CURAND_STATUS_SUCCESS);
    assert_int_equal(cubind_last_error()->kind, CUBIND_OK);
}

/* CUPTI (libcupti.so.13 of the toolkit) without a driver: its version and its statuses' names are
 * host answers; enabling kernel activity records and subscribing to callbacks need the driver.
 * CUPTI 13.0 answers CUPTI_ERROR_UNKNOWN there (measured), and cubind's record names the call and
 * says why no GPU can be used; with a GPU both succeed. */
static void test_cupti_without_driver(void **state)
{
    uint32_t version = 0;
    const char *name = NULL;
    const cubind_error *error;
    CUpti_SubscriberHandle subscriber = NULL;
    CUptiResult status;
    int gpu = gpu_present();
    (void)state;
    if (!expected_present(test_library(CUBIND_LIB_CUPTI)))
        skip(); /* not on this machine (a release's libraries without CUPTI) */
    cubind_clear_error();
    assert_int_equal(cubind_cupti_get_version(&version), CUPTI_SUCCESS);
    assert_int_equal(version, CUPTI_API_VERSION); /* the headers' API version: libcupti.so.13 of 13.0 */
    assert_int_equal(cubind_cupti_get_result_string(CUPTI_ERROR_NOT_INITIALIZED, &name), CUPTI_SUCCESS);
    assert_string_equal(name, "CUPTI_ERROR_NOT_INITIALIZED");
    assert_string_equal(cubind_status_name(CUBIND_LIB_CUPTI, CUPTI_ERROR_NOT_INITIALIZED), name);
    assert_int_equal(cubind_last_error()->kind, CUBIND_OK);

    status = cubind_cupti_activity_enable(CUPTI_ACTIVITY_KIND_KERNEL);
    error = cubind_last_error();
    if (gpu) {
        assert_int_equal(status, CUPTI_SUCCESS);
        assert_int_equal(cubind_cupti_activity_disable(CUPTI_ACTIVITY_KIND_KERNEL), CUPTI_SUCCESS);
    } else {
        assert_int_equal(status, CUPTI_ERROR_UNKNOWN);
        assert_int_equal(error->kind, CUBIND_ERROR_STATUS);
        assert_int_equal(error->library, CUBIND_LIB_CUPTI);
        assert_int_equal(error->status, CUPTI_ERROR_UNKNOWN);
        assert_string_equal(error->function, "cuptiActivityEnable");
        assert_string_equal(error->status_name, "CUPTI_ERROR_UNKNOWN");
        /* the status is one of CUPTI's no_gpu statuses: after the status, the message says why no
         * GPU can be used ("...UNKNOWN (999): no CUDA driver: ...") */
        assert_non_null(strstr(error->message, "CUPTI_ERROR_UNKNOWN (999): "));
    }
    cubind_clear_error();
    status = cubind_cupti_subscribe(&subscriber, NULL, NULL);
    if (gpu) {
        assert_int_equal(status, CUPTI_SUCCESS);
        assert_int_equal(cubind_cupti_unsubscribe(subscriber), CUPTI_SUCCESS);
    } else {
        assert_int_equal(status, CUPTI_ERROR_UNKNOWN);
        assert_string_equal(cubind_last_error()->function, "cuptiSubscribe");
        assert_non_null(strstr(cubind_last_error()->message, "CUPTI_ERROR_UNKNOWN (999): "));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_versions_match_file_names_and_headers),
        cmocka_unit_test(test_missing_functions_are_really_missing),
        cmocka_unit_test(test_stubs_are_refused),
        cmocka_unit_test(test_cuda_13_0_missing_symbols),
        cmocka_unit_test(test_missing_symbol_call),
        cmocka_unit_test(test_handle_creation),
        cmocka_unit_test(test_host_call_succeeds),
        cmocka_unit_test(test_cupti_without_driver),
    };
    return cmocka_run_group_tests_name("real CUDA libraries", tests, NULL, NULL);
}
