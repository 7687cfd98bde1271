/* tests/dropin/cublas_sgemm.c - C = A * B with cuBLAS, written for NVIDIA's headers alone. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "check.h"

int main(void)
{
    enum { N = 4 };
    const float alpha = 1.0f, beta = 0.0f;
    float *a = NULL, *b = NULL, *c = NULL;
    cublasHandle_t handle = NULL;
    int version = 0;
    CHECK(cudaMalloc((void **)&a, N * N * sizeof *a));
    CHECK(cudaMalloc((void **)&b, N * N * sizeof *b));
    CHECK(cudaMalloc((void **)&c, N * N * sizeof *c));
    CHECK(cublasCreate(&handle));
    CHECK(cublasGetVersion(handle, &version));
    CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &alpha, a, N, b, N, &beta, c, N));
    CHECK(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, N, N, &alpha, a, N, b, N, &beta, c, N));
    CHECK(cublasDestroy(handle));
    CHECK(cudaFree(c));
    CHECK(cudaFree(b));
    CHECK(cudaFree(a));
    printf("cublas_sgemm: done (cuBLAS %d)\n", version);
    return 0;
}
