// tests/cplusplus/nvidia_style_nvcc.cu - a CUDA program in NVIDIA's usual style, built by nvcc, with
// NVIDIA's names replaced by cubind's and nothing else: the templates cuda_runtime.h declares for nvcc
// only (#if defined(__CUDACC__)) on a kernel template and a __device__ variable (attributes, cache
// configuration, the kernel handle, symbols), and those it declares for every C++ compiler
// (occupancy and launch on a kernel), with dim3's constructors and cuComplex.h's helpers
// (make test-cplusplus, where nvcc is: against the mocks, whose recorder says which NVIDIA function
// each call reached, so a template that bypassed cubind would show). Its kernel is never launched
// with <<<...>>>: nvcc's launches go through the runtime nvcc links in, not cubind's.
#include <cstdio>

#include "cubind/cublas.h"
#include "cubind/runtime.h"
#include "cplusplus/reached.h"

template <typename Real>
__global__ void computeValue(Real *out, int n)
{
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        out[i] = static_cast<Real>(i);
}

__device__ float scale;

int main()
{
    // The nvcc-only templates: the kernel's type is deduced (a template-id is no const void *).
    cudaFuncAttributes attributes;
    check("func get attributes", cubind_runtime_func_get_attributes(&attributes, computeValue<float>));
    reached("func get attributes", "cudaFuncGetAttributes");
    check("func set attribute", cubind_runtime_func_set_attribute(computeValue<float>,
                                                                 cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
    reached("func set attribute", "cudaFuncSetAttribute");
    check("func set cache config", cubind_runtime_func_set_cache_config(computeValue<double>, cudaFuncCachePreferL1));
    reached("func set cache config", "cudaFuncSetCacheConfig");
    cudaKernel_t handle = nullptr;
    check("get kernel", cubind_runtime_get_kernel(&handle, computeValue<float>));
    reached("get kernel", "cudaGetKernel");

    // ... and on a __device__ variable: the symbol by reference, default offset and direction.
    const float value = 2.0f;
    check("memcpy to symbol", cubind_runtime_memcpy_to_symbol(scale, &value, sizeof value));
    reached("memcpy to symbol", "cudaMemcpyToSymbol");
    void *address = nullptr;
    check("get symbol address", cubind_runtime_get_symbol_address(&address, scale));
    reached("get symbol address", "cudaGetSymbolAddress");

    // The templates for every C++ compiler, on the same kernel template.
    int blocks = 0;
    check("occupancy", cubind_runtime_occupancy_max_active_blocks_per_multiprocessor(&blocks, computeValue<float>,
                                                                                     128, 0));
    reached("occupancy", "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
    float *out = nullptr;
    int n = 16;
    void *args[] = {&out, &n};
    const dim3 grid(4, 4);
    if (grid.x != 4 || grid.y != 4 || grid.z != 1) {
        std::printf("FAIL dim3 grid(4, 4) is %u,%u,%u\n", grid.x, grid.y, grid.z);
        failures++;
    }
    check("launch kernel", cubind_runtime_launch_kernel(computeValue<float>, grid, dim3(128), args));
    reached("launch kernel", "cudaLaunchKernel");

    // cuComplex.h's helpers (cublas_api.h includes it), as nvcc's host compiler takes them.
    const cuFloatComplex product = cuCmulf(make_cuFloatComplex(1.0f, 2.0f), make_cuFloatComplex(3.0f, 4.0f));
    if (cuCrealf(product) != -5.0f || cuCimagf(product) != 10.0f) {
        std::printf("FAIL cuCmulf: %g%+gi\n", static_cast<double>(cuCrealf(product)),
                    static_cast<double>(cuCimagf(product)));
        failures++;
    }

    if (failures == 0)
        std::printf("nvidia_style_nvcc: every template reached cubind's wrapper\n");
    return failures == 0 ? 0 : 1;
}
