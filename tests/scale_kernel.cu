// tests/scale_kernel.cu - the kernel of tests/nvvm_ir.h as CUDA C++, compiled to cubins by nvcc at build
// time (make test-real-toolkit, make gpu-build) for nvFatbin to pack: cubind_scale doubles a[threadIdx.x].
extern "C" __global__ void cubind_scale(float *a)
{
    a[threadIdx.x] *= 2.0f;
}
