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
#include <cmocka.h>

#include "cubind/cubind.h"

/* Header versions the bindings were generated from, per library. */
static const int header_versions[CUBIND_LIBRARY_COUNT][3] = {
    [CUBIND_LIB_CUBLAS] = {CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH},
    [CUBIND_LIB_CUBLASLT] = {CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH},
    [CUBIND_LIB_CUFFT] = {CUFFT_VER_MAJOR, CUFFT_VER_MINOR, CUFFT_VER_PATCH},
    [CUBIND_LIB_CURAND] = {CURAND_VER_MAJOR, CURAND_VER_MINOR, CURAND_VER_PATCH},
    [CUBIND_LIB_CUSOLVER] = {CUSOLVER_VER_MAJOR, CUSOLVER_VER_MINOR, CUSOLVER_VER_PATCH},
    [CUBIND_LIB_CUSOLVERMG] = {CUSOLVER_VER_MAJOR, CUSOLVER_VER_MINOR, CUSOLVER_VER_PATCH},
    [CUBIND_LIB_CUSPARSE] = {CUSPARSE_VER_MAJOR, CUSPARSE_VER_MINOR, CUSPARSE_VER_PATCH},
};

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
    int lib, i;
    (void)state;
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        struct cubind_library_info info = {.size = sizeof info};
        int version[3] = {-1, -1, -1}, from_soname[3] = {-1, -1, -1}, from_file[3] = {-1, -1, -1};
        int n_soname, n_file;
        print_message("%-11s ", cubind_library_name((cubind_library)lib));
        assert_int_equal(cubind_library_info((cubind_library)lib, &info), CUBIND_OK);
        version[0] = info.version_major;
        version[1] = info.version_minor;
        version[2] = info.version_patch;
        print_message("%d.%d.%d %s (%s)\n", version[0], version[1], version[2], info.real_path, info.version_source);
        assert_non_null(info.soname);
        n_soname = name_version(info.soname, from_soname);
        n_file = name_version(info.real_path, from_file);
        assert_true(n_soname >= 1);
        assert_true(n_file >= 1);
        for (i = 0; i < n_soname; ++i)
            assert_int_equal(version[i], from_soname[i]);
        for (i = 0; i < n_file; ++i)
            assert_int_equal(version[i], from_file[i]);
        /* A version asked of the library has all three parts; one read from a file name
         * (libcusolverMg) has those the name has: libcusolverMg.so.12 here, .so.12.0.4.66 elsewhere. */
        if (strncmp(info.version_source, "file name", 9) != 0)
            assert_true(version[0] >= 0 && version[1] >= 0 && version[2] >= 0);
        for (i = 0; i < 3 && version[i] >= 0; ++i)
            assert_int_equal(version[i], header_versions[lib][i]);
        assert_true(i >= 1);
    }
}

/* cubind's census of missing functions agrees with dlsym on the same object. */
static void test_missing_functions_are_really_missing(void **state)
{
    int lib;
    size_t i;
    (void)state;
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        struct cubind_library_info info = {.size = sizeof info};
        void *handle;
        assert_int_equal(cubind_library_info((cubind_library)lib, &info), CUBIND_OK);
        handle = dlopen(info.path, RTLD_NOW | RTLD_NOLOAD);
        assert_non_null(handle);
        assert_int_equal(info.functions_found + info.functions_missing, info.functions);
        for (i = 0; i < info.functions_missing; ++i) {
            assert_null(dlsym(handle, info.missing[i]));
            assert_int_equal(cubind_function_available(info.missing[i]), 0);
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
    assert_int_equal(cubind_library_info(CUBIND_LIB_CUSPARSE, &info), CUBIND_OK);
    if (info.version_major != 12 || info.version_minor != 6)
        skip(); /* another CUDA release: other facts */
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
    char version[32];
    (void)state;
    if (cubind_function_available("curandGenerateBinomial"))
        skip();
    assert_int_equal(cubind_library_info(CUBIND_LIB_CURAND, &info), CUBIND_OK);
    cubind_clear_error();
    assert_int_equal(cubind_curand_generate_binomial(NULL, NULL, 0, 0, 0.5), CURAND_STATUS_VERSION_MISMATCH);
    error = cubind_last_error();
    assert_int_equal(error->kind, CUBIND_ERROR_SYMBOL_NOT_FOUND);
    assert_string_equal(error->function, "curandGenerateBinomial");
    assert_string_equal(error->status_name, "CURAND_STATUS_VERSION_MISMATCH");
    assert_non_null(strstr(error->message, info.path));
    snprintf(version, sizeof version, "%d.%d.%d", info.version_major, info.version_minor, info.version_patch);
    assert_non_null(strstr(error->message, version));
}

static void expect_creation(const char *function, cubind_library library, int status, int success, int gpu)
{
    const cubind_error *error = cubind_last_error();
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_versions_match_file_names_and_headers),
        cmocka_unit_test(test_missing_functions_are_really_missing),
        cmocka_unit_test(test_cuda_13_0_missing_symbols),
        cmocka_unit_test(test_missing_symbol_call),
        cmocka_unit_test(test_handle_creation),
        cmocka_unit_test(test_host_call_succeeds),
    };
    return cmocka_run_group_tests_name("real CUDA libraries", tests, NULL, NULL);
}
