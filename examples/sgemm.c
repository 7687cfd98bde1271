/*
 * examples/sgemm.c - C = A * B with cuBLAS through cubind, device memory from cubind's runtime
 * module, checked against the same product on the CPU: |C - ref| <= 1e-3 * (1 + |ref|).
 *
 * Build (nothing but cubind: no -lcudart, no NVIDIA header):
 *     cc -std=c11 sgemm.c -Ibuild/include -Lbuild/lib -lcubind -lm
 * Exit: 0 PASS, 1 CUDA or cuBLAS error, 2 wrong result, 77 no GPU/driver (see check.h).
 */
#include <math.h>
#include <stdio.h>

#include "cubind/cublas.h"
#include "cubind/runtime.h"

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

    /* On failure CHECK says which call failed and why (check.h). */
    CHECK(cubind_cublas_create(&handle));
    CHECK(cubind_runtime_malloc((void **)&da, sizeof a));
    CHECK(cubind_runtime_malloc((void **)&db, sizeof b));
    CHECK(cubind_runtime_malloc((void **)&dc, sizeof c));
    CHECK(cubind_runtime_memcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
    CHECK(cubind_runtime_memcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
    /* column-major: A is M x K (lda = M), B is K x N (ldb = K), C is M x N (ldc = M) */
    CHECK(cubind_cublas_sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da, M, db, K, &beta, dc, M));
    CHECK(cubind_runtime_memcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost)); /* waits for the product */

    for (j = 0; j < N; ++j)
        for (i = 0; i < M; ++i) {
            float ref = 0.0f;
            for (k = 0; k < K; ++k)
                ref += a[i + k * M] * b[k + j * K];
            if (!(fabsf(c[i + j * M] - ref) <= 1e-3f * (1.0f + fabsf(ref))))
                ++wrong;
        }
    CHECK(cubind_runtime_free(da));
    CHECK(cubind_runtime_free(db));
    CHECK(cubind_runtime_free(dc));
    CHECK(cubind_cublas_destroy(handle));
    printf("sgemm %dx%dx%d: %s (%d of %d elements wrong)\n", M, N, K, wrong ? "FAIL" : "PASS", wrong, M * N);
    return wrong ? EXIT_WRONG : EXIT_PASS;
}
