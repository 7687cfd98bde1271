/* tests/dropin/runtime_memcpy.c - the runtime: devices, a stream, copies; written for NVIDIA's
 * headers alone. Prints the runtime's version as cudaRuntimeGetVersion gives it. */
#include <cuda_runtime_api.h>

#include "check.h"

int main(void)
{
    float host[64] = {0}, *device = NULL;
    cudaStream_t stream = NULL;
    int devices = 0, runtime = 0;
    CHECK(cudaRuntimeGetVersion(&runtime));
    CHECK(cudaGetDeviceCount(&devices));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaMalloc((void **)&device, sizeof host));
    CHECK(cudaMemcpyAsync(device, host, sizeof host, cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpyAsync(host, device, sizeof host, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaFree(device));
    CHECK(cudaStreamDestroy(stream));
    printf("runtime_memcpy: done (runtime %d)\n", runtime);
    return 0;
}
