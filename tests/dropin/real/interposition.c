/* tests/dropin/real/interposition.c - written for NVIDIA's headers, linked with the drop-in, run on
 * the real libraries: cuBLAS (which imports cuBLASLt's exports) and cuSOLVER (cuBLAS's, cuSPARSE's)
 * are loaded by cubind's first calls. Their statuses do not matter (no GPU is needed): what
 * tests/dropin/run.sh checks is where the libraries' own references were bound. */
#include <stdio.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

int main(void)
{
    cublasHandle_t blas = NULL;
    cusolverDnHandle_t solver = NULL;
    int blas_status = (int)cublasCreate(&blas), solver_status = (int)cusolverDnCreate(&solver);
    printf("interposition: cublasCreate %d, cusolverDnCreate %d\n", blas_status, solver_status);
    return 0;
}
