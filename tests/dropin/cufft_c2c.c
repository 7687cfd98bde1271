/* tests/dropin/cufft_c2c.c - a forward and inverse complex FFT with cuFFT, written for NVIDIA's
 * headers alone. */
#include <cufft.h>
#include <cuda_runtime_api.h>

#include "check.h"

int main(void)
{
    enum { N = 256 };
    cufftComplex *data = NULL;
    cufftHandle plan = 0;
    int version = 0;
    CHECK(cufftGetVersion(&version));
    CHECK(cudaMalloc((void **)&data, N * sizeof *data));
    CHECK(cufftPlan1d(&plan, N, CUFFT_C2C, 1));
    CHECK(cufftExecC2C(plan, data, data, CUFFT_FORWARD));
    CHECK(cufftExecC2C(plan, data, data, CUFFT_INVERSE));
    CHECK(cudaDeviceSynchronize());
    CHECK(cufftDestroy(plan));
    CHECK(cudaFree(data));
    printf("cufft_c2c: done (cuFFT %d)\n", version);
    return 0;
}
