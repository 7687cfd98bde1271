/*
 * examples/nvidia/sgemm.c - examples/sgemm.c written for NVIDIA's headers and names (its twin):
 * C = A * B with cuBLAS, device memory from the runtime, checked against the same product on the CPU: |C - ref| <= 1e-3 * (1 + |ref|).
 *
 * Build, against NVIDIA's headers and with the drop-in alone (docs/dropin.md):
 *     cc -std=c11 -isystem /usr/local/cuda/include sgemm.c -o sgemm $(pkg-config --libs cubind-dropin) -lm
 * Exit: 0 PASS, 1 CUDA or cuBLAS error, 2 wrong result, 77 no GPU/driver (see check.h).
 */
#include <math.h>
#include <stdio.h>

#include <cuda_runtime_api.h>
#include <cublas_v2.h>

#include "check.h"

enum { M = 64, N = 48, K = 32 };

int main(void)
{
    static float a[M * K], b[K * N], c[M * N];
    const float alpha = 1.0f, beta = 0.0f;
    float *da, *db, *dc;
    cublasHandle_t handle;
    int i, j, k, wrong = 0;

    require_gpu("sgemm");
    for (i = 0; i < M * K; ++i)
        a[i] = (float)(i % 7) - 3.0f;
    for (i = 0; i < K * N; ++i)
        b[i] = (float)(i % 5) * 0.5f;

    /* On failure CHECK prints the call and its status. */
    CHECK(cublasCreate(&handle));
    CHECK(cudaMalloc((void **)&da, sizeof a));
    CHECK(cudaMalloc((void **)&db, sizeof b));
    CHECK(cudaMalloc((void **)&dc, sizeof c));
    CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
    /* column-major: A is M x K (lda = M), B is K x N (ldb = K), C is M x N (ldc = M) */
    CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da, M, db, K, &beta, dc, M));
    CHECK(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost)); /* waits for the product */

    for (j = 0; j < N; ++j)
        for (i = 0; i < M; ++i) {
            float ref = 0.0f;
            for (k = 0; k < K; ++k)
                ref += a[i + k * M] * b[k + j * K];
            if (!(fabsf(c[i + j * M] - ref) <= 1e-3f * (1.0f + fabsf(ref))))
                ++wrong;
        }
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    CHECK(cublasDestroy(handle));
    printf("sgemm %dx%dx%d: %s (%d of %d elements wrong)\n", M, N, K, wrong ? "FAIL" : "PASS", wrong, M * N);
    return wrong ? EXIT_WRONG : EXIT_PASS;
}
