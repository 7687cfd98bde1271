/*
 * tests/gpu/test_gpu.c - cubind's wrappers compute correct results on a real GPU.
 *
 * The other tests check the loader, the error records and the pass-through of
 * arguments, on mocks or without a GPU. This one checks the end of the chain:
 * one real computation per library, through the cubind wrappers, compared with
 * a plain CPU computation of the same thing:
 *   cuBLAS     sgemm and sgemm_64 (ILP64), 64x48x32, column-major;
 *   cuBLASLt   fp32 matmul with the RELU_BIAS epilogue and a heuristic algorithm;
 *   cuFFT      a 1D complex-to-complex forward FFT of size 64 against a naive DFT;
 *   cuRAND     XORWOW uniforms of a device and of a host generator, same seed;
 *   cuSOLVER   LU solve (getrf/getrs) of a 32x32 system, residual and devInfo;
 *   cuSPARSE   generic-API SpMV of a 100x80 CSR matrix;
 * and which library files (and versions) were used.
 *
 * It runs only on machines with a GPU: without one every test FAILS (never skips),
 * so that a GPU run that silently lost its GPU cannot pass.
 * Device memory comes from the CUDA runtime (cubind does not bind it); each test
 * frees its buffers in the teardown, also when it fails.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <cuda_runtime_api.h>

#include "cubind/cubind.h"

static const double pi = 3.14159265358979323846;

/* A CUDA runtime call that must succeed. */
#define CHECK_CUDA(call)                                                                                   \
    do {                                                                                                   \
        cudaError_t cuda_error_ = (call);                                                                  \
        if (cuda_error_ != cudaSuccess)                                                                    \
            fail_msg("%s failed: %s (%s)", #call, cudaGetErrorName(cuda_error_),                           \
                     cudaGetErrorString(cuda_error_));                                                     \
    } while (0)

/* A cubind wrapper that must return `success`; otherwise cubind's record says why. */
#define CHECK(call, success)                                                                               \
    do {                                                                                                   \
        int status_ = (int)(call);                                                                         \
        if (status_ != (int)(success))                                                                     \
            fail_msg("%s returned %d: %s", #call, status_, cubind_last_error()->message);                  \
    } while (0)

/* Fails the test unless a GPU is usable: this program is meant for GPU machines only. */
static void require_gpu(void)
{
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess)
        fail_msg("no usable GPU: cudaGetDeviceCount failed: %s (%s)", cudaGetErrorName(error),
                 cudaGetErrorString(error));
    if (count <= 0)
        fail_msg("no usable GPU: cudaGetDeviceCount reports %d devices", count);
}

/* Device buffers of the running test, freed by free_device_buffers (the teardown). */
enum { MAX_BUFFERS = 16 };
static void *device_buffers[MAX_BUFFERS];
static int device_buffer_count;

static void *device_alloc(size_t bytes)
{
    void *pointer = NULL;
    assert_true(device_buffer_count < MAX_BUFFERS);
    CHECK_CUDA(cudaMalloc(&pointer, bytes > 0 ? bytes : 1));
    device_buffers[device_buffer_count++] = pointer;
    return pointer;
}

/* A device copy of `bytes` of host memory. */
static void *device_copy(const void *host, size_t bytes)
{
    void *pointer = device_alloc(bytes);
    CHECK_CUDA(cudaMemcpy(pointer, host, bytes, cudaMemcpyHostToDevice));
    return pointer;
}

/* Waits for the GPU's work, then copies a result back. */
static void copy_to_host(void *host, const void *device, size_t bytes)
{
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
}

static int free_device_buffers(void **state)
{
    (void)state;
    while (device_buffer_count > 0)
        cudaFree(device_buffers[--device_buffer_count]);
    return 0;
}

/* Small exact-in-float values, deterministic: multiples of 1/8 in [-1, 1]. */
static float pattern(int i, int salt)
{
    return (float)((i * 37 + salt * 11) % 17 - 8) / 8.0f;
}

/* Column-major C = alpha * A(m x k) * B(k x n) + beta * C, in double. */
static void cpu_gemm(int m, int n, int k, float alpha, const float *a, const float *b, float beta, float *c)
{
    int i, j, p;
    for (j = 0; j < n; ++j)
        for (i = 0; i < m; ++i) {
            double sum = 0.0;
            for (p = 0; p < k; ++p)
                sum += (double)a[i + p * m] * (double)b[p + j * k];
            c[i + j * m] = (float)(alpha * sum + beta * (double)c[i + j * m]);
        }
}

/* Fails unless every got[i] is within tolerance * (1 + |expected[i]|) of expected[i]. */
static void assert_close(const char *what, const float *got, const float *expected, int count, double tolerance)
{
    int i;
    for (i = 0; i < count; ++i) {
        double error = fabs((double)got[i] - (double)expected[i]);
        if (!(error <= tolerance * (1.0 + fabs((double)expected[i]))))
            fail_msg("%s: element %d is %.9g, expected %.9g", what, i, (double)got[i], (double)expected[i]);
    }
}

/* Every library loads, and reports where it came from and its version. */
static void test_library_info(void **state)
{
    struct cudaDeviceProp properties;
    int device = 0, lib;
    (void)state;
    require_gpu();
    CHECK_CUDA(cudaGetDevice(&device));
    CHECK_CUDA(cudaGetDeviceProperties(&properties, device));
    print_message("GPU %d: %s (compute capability %d.%d)\n", device, properties.name, properties.major,
                  properties.minor);
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        struct cubind_library_info info = {.size = sizeof info};
        if (cubind_library_info((cubind_library)lib, &info) != CUBIND_OK && info.error != NULL &&
            strstr(info.error, "is newer than every release these bindings know") != NULL) {
            /* refused by design (docs/releases.md): CUDA 13.0's nvJPEG with the 12.4 headers cubind read */
            print_message("%-11s refused: %s\n", cubind_library_name((cubind_library)lib), info.error);
            continue;
        }
        if (cubind_library_info((cubind_library)lib, &info) != CUBIND_OK)
            fail_msg("%s not found: %s", cubind_library_name((cubind_library)lib), cubind_last_error()->message);
        assert_int_equal(info.found, 1);
        assert_non_null(info.real_path);
        assert_true(info.version_major >= 0);
        print_message("%-11s %s  %s (found by %s; version from %s)\n", info.name,
                      info.version_text != NULL ? info.version_text : "(version unknown)", info.real_path, info.found_by,
                      info.version_source);
    }
}

/* cuBLAS: sgemm and its ILP64 twin sgemm_64 against a CPU triple loop. */
static void test_cublas_sgemm(void **state)
{
    enum { M = 64, N = 48, K = 32 };
    static float a[M * K], b[K * N], c0[M * N], expected[M * N], got[M * N];
    const float alpha = 1.5f, beta = 0.5f;
    cublasHandle_t handle;
    float *da, *db, *dc;
    int i;
    (void)state;
    require_gpu();
    for (i = 0; i < M * K; ++i)
        a[i] = pattern(i, 1);
    for (i = 0; i < K * N; ++i)
        b[i] = pattern(i, 2);
    for (i = 0; i < M * N; ++i)
        c0[i] = pattern(i, 3);
    memcpy(expected, c0, sizeof expected);
    cpu_gemm(M, N, K, alpha, a, b, beta, expected);

    CHECK(cubind_cublas_create(&handle), CUBLAS_STATUS_SUCCESS);
    da = device_copy(a, sizeof a);
    db = device_copy(b, sizeof b);
    dc = device_copy(c0, sizeof c0);
    /* column-major: lda = M, ldb = K, ldc = M */
    CHECK(cubind_cublas_sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da, M, db, K, &beta, dc, M),
          CUBLAS_STATUS_SUCCESS);
    copy_to_host(got, dc, sizeof got);
    assert_close("cublasSgemm", got, expected, M * N, 1e-4);

    CHECK_CUDA(cudaMemcpy(dc, c0, sizeof c0, cudaMemcpyHostToDevice));
    CHECK(cubind_cublas_sgemm_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int64_t)M, (int64_t)N, (int64_t)K, &alpha, da,
                                 (int64_t)M, db, (int64_t)K, &beta, dc, (int64_t)M),
          CUBLAS_STATUS_SUCCESS);
    copy_to_host(got, dc, sizeof got);
    assert_close("cublasSgemm_64", got, expected, M * N, 1e-4);
    CHECK(cubind_cublas_destroy(handle), CUBLAS_STATUS_SUCCESS);
}

/* cuBLASLt: D = relu(A * B + bias) in fp32, the algorithm chosen by the heuristic. */
static void test_cublaslt_matmul_relu_bias(void **state)
{
    enum { M = 64, N = 48, K = 32 };
    static float a[M * K], b[K * N], bias[M], expected[M * N], got[M * N];
    const float alpha = 1.0f, beta = 0.0f;
    const uint64_t workspace_size = 4u << 20;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_RELU_BIAS;
    cublasLtHandle_t handle;
    cublasLtMatmulDesc_t operation;
    cublasLtMatrixLayout_t a_layout, b_layout, d_layout;
    cublasLtMatmulPreference_t preference;
    cublasLtMatmulHeuristicResult_t heuristic;
    int algorithms = 0, i, j, negatives = 0;
    float *da, *db, *dd, *dbias;
    void *workspace;
    (void)state;
    require_gpu();
    for (i = 0; i < M * K; ++i)
        a[i] = pattern(i, 4);
    for (i = 0; i < K * N; ++i)
        b[i] = pattern(i, 5);
    for (i = 0; i < M; ++i)
        bias[i] = pattern(i, 6);
    memset(expected, 0, sizeof expected);
    cpu_gemm(M, N, K, 1.0f, a, b, 0.0f, expected);
    for (j = 0; j < N; ++j)
        for (i = 0; i < M; ++i) {
            float value = expected[i + j * M] + bias[i]; /* bias: one value per row of D */
            negatives += value < 0.0f;
            expected[i + j * M] = value > 0.0f ? value : 0.0f;
        }
    assert_true(negatives > 0); /* the ReLU has something to clip */

    da = device_copy(a, sizeof a);
    db = device_copy(b, sizeof b);
    dbias = device_copy(bias, sizeof bias);
    dd = device_alloc(sizeof got);
    workspace = device_alloc((size_t)workspace_size);

    CHECK(cubind_cublasLt_create(&handle), CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matmul_desc_create(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matmul_desc_set_attribute(operation, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                                    sizeof epilogue),
          CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matmul_desc_set_attribute(operation, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias,
                                                    sizeof dbias),
          CUBLAS_STATUS_SUCCESS);
    /* column-major layouts; C (beta = 0) and D share one */
    CHECK(cubind_cublasLt_matrix_layout_create(&a_layout, CUDA_R_32F, M, K, M), CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matrix_layout_create(&b_layout, CUDA_R_32F, K, N, K), CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matrix_layout_create(&d_layout, CUDA_R_32F, M, N, M), CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matmul_preference_create(&preference), CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matmul_preference_set_attribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                          &workspace_size, sizeof workspace_size),
          CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matmul_algo_get_heuristic(handle, operation, a_layout, b_layout, d_layout, d_layout,
                                                    preference, 1, &heuristic, &algorithms),
          CUBLAS_STATUS_SUCCESS);
    assert_int_equal(algorithms, 1);
    assert_true(heuristic.workspaceSize <= workspace_size);

    CHECK(cubind_cublasLt_matmul(handle, operation, &alpha, da, a_layout, db, b_layout, &beta, dd, d_layout, dd,
                                 d_layout, &heuristic.algo, workspace, (size_t)workspace_size, NULL),
          CUBLAS_STATUS_SUCCESS);
    copy_to_host(got, dd, sizeof got);
    assert_close("cublasLtMatmul RELU_BIAS", got, expected, M * N, 1e-4);

    CHECK(cubind_cublasLt_matmul_preference_destroy(preference), CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matrix_layout_destroy(d_layout), CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matrix_layout_destroy(b_layout), CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matrix_layout_destroy(a_layout), CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_matmul_desc_destroy(operation), CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublasLt_destroy(handle), CUBLAS_STATUS_SUCCESS);
}

/* cuFFT: a forward C2C FFT of size 64 against a naive DFT computed in double. */
static void test_cufft_c2c_forward(void **state)
{
    enum { SIZE = 64 };
    static cufftComplex signal[SIZE], got[SIZE];
    double expected_re[SIZE], expected_im[SIZE], largest = 0.0;
    cufftHandle plan;
    cufftComplex *data;
    int n, k;
    (void)state;
    require_gpu();
    for (n = 0; n < SIZE; ++n) {
        signal[n].x = (float)(sin(0.3 * n) + 0.25 * cos(1.7 * n));
        signal[n].y = pattern(n, 7);
    }
    for (k = 0; k < SIZE; ++k) { /* X[k] = sum_n x[n] exp(-2 pi i k n / SIZE) */
        double re = 0.0, im = 0.0;
        for (n = 0; n < SIZE; ++n) {
            double angle = -2.0 * pi * (double)((k * n) % SIZE) / SIZE;
            re += signal[n].x * cos(angle) - signal[n].y * sin(angle);
            im += signal[n].x * sin(angle) + signal[n].y * cos(angle);
        }
        expected_re[k] = re;
        expected_im[k] = im;
        largest = fmax(largest, hypot(re, im));
    }

    data = device_copy(signal, sizeof signal);
    CHECK(cubind_cufft_plan1d(&plan, SIZE, CUFFT_C2C, 1), CUFFT_SUCCESS);
    CHECK(cubind_cufft_exec_c2c(plan, data, data, CUFFT_FORWARD), CUFFT_SUCCESS);
    copy_to_host(got, data, sizeof got);
    /* relative 1e-3 of the largest coefficient: an elementwise relative bound means nothing near 0 */
    for (k = 0; k < SIZE; ++k) {
        double error = hypot((double)got[k].x - expected_re[k], (double)got[k].y - expected_im[k]);
        if (!(error <= 1e-3 * largest))
            fail_msg("cufftExecC2C: X[%d] = %g%+gi, expected %g%+gi", k, (double)got[k].x, (double)got[k].y,
                     expected_re[k], expected_im[k]);
    }
    CHECK(cubind_cufft_destroy(plan), CUFFT_SUCCESS);
}

/* Uniform floats of an XORWOW generator seeded 1234, made on the device or on the host. */
static void curand_uniforms(int on_host, float *out, size_t count)
{
    curandGenerator_t generator;
    float *target = on_host ? out : device_alloc(count * sizeof *out);
    if (on_host)
        CHECK(cubind_curand_create_generator_host(&generator, CURAND_RNG_PSEUDO_XORWOW), CURAND_STATUS_SUCCESS);
    else
        CHECK(cubind_curand_create_generator(&generator, CURAND_RNG_PSEUDO_XORWOW), CURAND_STATUS_SUCCESS);
    CHECK(cubind_curand_set_pseudo_random_generator_seed(generator, 1234ULL), CURAND_STATUS_SUCCESS);
    CHECK(cubind_curand_generate_uniform(generator, target, count), CURAND_STATUS_SUCCESS);
    if (!on_host)
        copy_to_host(out, target, count * sizeof *out);
    CHECK(cubind_curand_destroy_generator(generator), CURAND_STATUS_SUCCESS);
}

/* cuRAND: the device and the host generator give the same sequence, all in (0, 1]. */
static void test_curand_device_matches_host(void **state)
{
    enum { COUNT = 4096 };
    static float device_values[COUNT], host_values[COUNT];
    int i, distinct = 0;
    (void)state;
    require_gpu();
    curand_uniforms(0, device_values, COUNT);
    curand_uniforms(1, host_values, COUNT);
    for (i = 0; i < COUNT; ++i) {
        if (!(device_values[i] > 0.0f && device_values[i] <= 1.0f))
            fail_msg("curandGenerateUniform: value %d is %.9g, outside (0, 1]", i, (double)device_values[i]);
        /* cuRAND documents the host generator as giving the device generator's results:
         * compared bit for bit */
        if (memcmp(&device_values[i], &host_values[i], sizeof(float)) != 0)
            fail_msg("curand: value %d is %.9g on the device, %.9g on the host", i, (double)device_values[i],
                     (double)host_values[i]);
        distinct += i > 0 && device_values[i] != device_values[i - 1];
    }
    assert_true(distinct > COUNT / 2); /* a sequence, not a constant */
}

/* cuSOLVER: LU factorization and solve of a diagonally dominant 32x32 system. */
static void test_cusolver_getrf_getrs(void **state)
{
    enum { N = 32 };
    static float a[N * N], b[N], x[N];
    cusolverDnHandle_t handle;
    float *da, *db, *work;
    int *pivots, *dinfo, lwork = 0, info = -1, i, j;
    double worst = 0.0, scale = 0.0;
    (void)state;
    require_gpu();
    for (j = 0; j < N; ++j) /* column-major, strongly diagonal: well conditioned */
        for (i = 0; i < N; ++i)
            a[i + j * N] = (i == j ? 4.0f : 0.0f) + pattern(i * N + j, 8) / (float)N;
    for (i = 0; i < N; ++i)
        b[i] = pattern(i, 9) + 0.5f;

    CHECK(cubind_cusolverDn_create(&handle), CUSOLVER_STATUS_SUCCESS);
    da = device_copy(a, sizeof a);
    db = device_copy(b, sizeof b);
    pivots = device_alloc(N * sizeof *pivots);
    dinfo = device_alloc(sizeof *dinfo);
    CHECK(cubind_cusolverDn_sgetrf_buffer_size(handle, N, N, da, N, &lwork), CUSOLVER_STATUS_SUCCESS);
    assert_true(lwork >= 0);
    work = device_alloc((size_t)lwork * sizeof *work);
    CHECK(cubind_cusolverDn_sgetrf(handle, N, N, da, N, work, pivots, dinfo), CUSOLVER_STATUS_SUCCESS);
    copy_to_host(&info, dinfo, sizeof info);
    assert_int_equal(info, 0);
    info = -1;
    CHECK(cubind_cusolverDn_sgetrs(handle, CUBLAS_OP_N, N, 1, da, N, pivots, db, N, dinfo),
          CUSOLVER_STATUS_SUCCESS);
    copy_to_host(&info, dinfo, sizeof info);
    assert_int_equal(info, 0);
    copy_to_host(x, db, sizeof x);

    /* max |A x - b| small against max |A| |x| + |b| */
    for (i = 0; i < N; ++i) {
        double residual = -(double)b[i], magnitude = fabs((double)b[i]);
        for (j = 0; j < N; ++j) {
            residual += (double)a[i + j * N] * (double)x[j];
            magnitude += fabs((double)a[i + j * N] * (double)x[j]);
        }
        worst = fmax(worst, fabs(residual));
        scale = fmax(scale, magnitude);
    }
    print_message("sgetrs: max |Ax - b| = %.3g (scale %.3g)\n", worst, scale);
    assert_true(worst <= 1e-5 * scale);
    CHECK(cubind_cusolverDn_destroy(handle), CUSOLVER_STATUS_SUCCESS);
}

/* cuSPARSE: y = alpha * A x + beta * y with a 100x80 CSR matrix, generic API. */
static void test_cusparse_spmv_csr(void **state)
{
    enum { ROWS = 100, COLS = 80, MAX_NNZ = ROWS * COLS };
    static int offsets[ROWS + 1], columns[MAX_NNZ];
    static float values[MAX_NNZ], x[COLS], y0[ROWS], expected[ROWS], got[ROWS];
    const float alpha = 2.0f, beta = -0.5f;
    cusparseHandle_t handle;
    cusparseSpMatDescr_t matrix;
    cusparseDnVecDescr_t x_vector, y_vector;
    size_t buffer_size = 0;
    void *buffer;
    float *dy;
    int i, j, nnz = 0;
    (void)state;
    require_gpu();
    for (i = 0; i < ROWS; ++i) { /* a diagonal band plus a scattered pattern; every row has entries */
        offsets[i] = nnz;
        for (j = 0; j < COLS; ++j)
            if (j == i % COLS || (i * 7 + j * 3) % 11 == 0) {
                columns[nnz] = j;
                values[nnz] = pattern(nnz, 10) + 0.0625f;
                nnz++;
            }
    }
    offsets[ROWS] = nnz;
    for (j = 0; j < COLS; ++j)
        x[j] = pattern(j, 11);
    for (i = 0; i < ROWS; ++i) {
        double sum = 0.0;
        int p;
        y0[i] = pattern(i, 12);
        for (p = offsets[i]; p < offsets[i + 1]; ++p)
            sum += (double)values[p] * (double)x[columns[p]];
        expected[i] = (float)(alpha * sum + beta * (double)y0[i]);
    }

    CHECK(cubind_cusparse_create(&handle), CUSPARSE_STATUS_SUCCESS);
    CHECK(cubind_cusparse_create_csr(&matrix, ROWS, COLS, nnz, device_copy(offsets, sizeof offsets),
                                     device_copy(columns, (size_t)nnz * sizeof *columns),
                                     device_copy(values, (size_t)nnz * sizeof *values), CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
          CUSPARSE_STATUS_SUCCESS);
    CHECK(cubind_cusparse_create_dn_vec(&x_vector, COLS, device_copy(x, sizeof x), CUDA_R_32F),
          CUSPARSE_STATUS_SUCCESS);
    dy = device_copy(y0, sizeof y0);
    CHECK(cubind_cusparse_create_dn_vec(&y_vector, ROWS, dy, CUDA_R_32F), CUSPARSE_STATUS_SUCCESS);
    CHECK(cubind_cusparse_sp_mv_buffer_size(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matrix, x_vector,
                                            &beta, y_vector, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &buffer_size),
          CUSPARSE_STATUS_SUCCESS);
    buffer = device_alloc(buffer_size);
    CHECK(cubind_cusparse_sp_mv(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matrix, x_vector, &beta, y_vector,
                                CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buffer),
          CUSPARSE_STATUS_SUCCESS);
    copy_to_host(got, dy, sizeof got);
    assert_close("cusparseSpMV", got, expected, ROWS, 1e-5);

    CHECK(cubind_cusparse_destroy_dn_vec(y_vector), CUSPARSE_STATUS_SUCCESS);
    CHECK(cubind_cusparse_destroy_dn_vec(x_vector), CUSPARSE_STATUS_SUCCESS);
    CHECK(cubind_cusparse_destroy_sp_mat(matrix), CUSPARSE_STATUS_SUCCESS);
    CHECK(cubind_cusparse_destroy(handle), CUSPARSE_STATUS_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_library_info, free_device_buffers),
        cmocka_unit_test_teardown(test_cublas_sgemm, free_device_buffers),
        cmocka_unit_test_teardown(test_cublaslt_matmul_relu_bias, free_device_buffers),
        cmocka_unit_test_teardown(test_cufft_c2c_forward, free_device_buffers),
        cmocka_unit_test_teardown(test_curand_device_matches_host, free_device_buffers),
        cmocka_unit_test_teardown(test_cusolver_getrf_getrs, free_device_buffers),
        cmocka_unit_test_teardown(test_cusparse_spmv_csr, free_device_buffers),
    };
    return cmocka_run_group_tests_name("cubind on a GPU", tests, NULL, NULL);
}
