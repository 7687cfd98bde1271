/*
 * examples/sgemm.c - C = alpha * A * B + beta * C with cuBLAS through cubind,
 * checked against the same product computed on the CPU.
 *
 * Device memory comes from the CUDA runtime (cubind binds the math libraries,
 * not the runtime). Build:
 *     cc sgemm.c -Ibuild/include -Lbuild/lib -lcubind -lcudart
 * Exit status: 0 when the GPU result matches, 1 on a CUDA or cuBLAS error,
 * 2 on a wrong result.
 */
#include <math.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "cubind/cubind.h"

enum { M = 64, N = 48, K = 32 };

/* Called by cubind on every failure, on the failing thread. */
static void report(const cubind_error *error, void *user)
{
    (void)user;
    fprintf(stderr, "cubind: %s\n", error->message);
}

int main(void)
{
    static float a[M * K], b[K * N], c[M * N], expected[M * N];
    const float alpha = 1.0f, beta = 0.0f;
    float *da = NULL, *db = NULL, *dc = NULL;
    cublasHandle_t handle;
    int i, j, k, status = 1;

    for (i = 0; i < M * K; ++i)
        a[i] = (float)(i % 7) - 3.0f;
    for (i = 0; i < K * N; ++i)
        b[i] = (float)(i % 5) * 0.5f;

    cubind_set_error_handler(report, NULL);
    if (cubind_cublas_create(&handle) != CUBLAS_STATUS_SUCCESS) {
        /* cubind_last_error() has the library, the function, the status and the reason */
        fprintf(stderr, "no cuBLAS: %s\n", cubind_last_error()->status_name);
        return 1;
    }
    if (cudaMalloc((void **)&da, sizeof a) != cudaSuccess || cudaMalloc((void **)&db, sizeof b) != cudaSuccess ||
        cudaMalloc((void **)&dc, sizeof c) != cudaSuccess)
        goto out;
    if (cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice) != cudaSuccess)
        goto out;
    /* column-major: A is M x K (lda = M), B is K x N (ldb = K), C is M x N (ldc = M) */
    if (cubind_cublas_sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da, M, db, K, &beta, dc, M) !=
        CUBLAS_STATUS_SUCCESS)
        goto out;
    if (cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost) != cudaSuccess)
        goto out;

    status = 0;
    for (j = 0; j < N; ++j)
        for (i = 0; i < M; ++i) {
            float sum = 0.0f;
            for (k = 0; k < K; ++k)
                sum += a[i + k * M] * b[k + j * K];
            expected[i + j * M] = sum;
            if (fabsf(c[i + j * M] - sum) > 1e-3f * (1.0f + fabsf(sum)))
                status = 2;
        }
    printf("sgemm %dx%dx%d on the GPU: %s (C[0] = %g, expected %g)\n", M, N, K, status == 0 ? "correct" : "WRONG",
           (double)c[0], (double)expected[0]);
out:
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cubind_cublas_destroy(handle);
    return status;
}
