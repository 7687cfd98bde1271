/* tests/dropin/driver_nvrtc.c - compile a kernel with NVRTC and launch it with the driver API,
 * written for NVIDIA's headers alone. */
#include <cuda.h>
#include <nvrtc.h>

#include "check.h"

static const char source[] =
    "extern \"C\" __global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }\n";

int main(void)
{
    static char ptx[1 << 16];
    nvrtcProgram program = NULL;
    size_t ptx_size = 0;
    CUdevice device = 0;
    CUcontext context = NULL;
    CUmodule module = NULL;
    CUfunction function = NULL;
    CUdeviceptr x = 0;
    float a = 2.0f;
    void *args[2];
    int driver = 0;
    CHECK(nvrtcCreateProgram(&program, source, "scale.cu", 0, NULL, NULL));
    CHECK(nvrtcCompileProgram(program, 0, NULL));
    CHECK(nvrtcGetPTXSize(program, &ptx_size));
    CHECK(ptx_size > sizeof ptx);
    CHECK(nvrtcGetPTX(program, ptx));
    CHECK(nvrtcDestroyProgram(&program));
    CHECK(cuInit(0));
    CHECK(cuDriverGetVersion(&driver));
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CHECK(cuCtxSetCurrent(context));
    CHECK(cuModuleLoadData(&module, ptx));
    CHECK(cuModuleGetFunction(&function, module, "scale"));
    CHECK(cuMemAlloc(&x, 32 * sizeof(float)));
    args[0] = &x;
    args[1] = &a;
    CHECK(cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemFree(x));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(device));
    printf("driver_nvrtc: done (driver %d)\n", driver);
    return 0;
}
