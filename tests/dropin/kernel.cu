// tests/dropin/kernel.cu - a kernel launched with <<<...>>>, built by nvcc -cudart=shared and linked
// with the drop-in: its runtime API calls go to the drop-in, its registration and launch entry
// points (__cudaRegisterFatBinary, ...) to libcudart (docs/dropin.md, "Programs built by nvcc").
#include <cstdio>
#include <cuda_runtime_api.h>

__global__ void add_one(float *x) { x[threadIdx.x] += 1.0f; }

int main()
{
    float *x = nullptr;
    cudaError_t allocated = cudaMalloc(&x, 32 * sizeof(float));
    if (allocated == cudaSuccess)
        add_one<<<1, 32>>>(x);
    std::printf("kernel: cudaMalloc %d\n", (int)allocated);
    return 0;
}
