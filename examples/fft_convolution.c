/*
 * examples/fft_convolution.c - circular convolution of a batch of signals with one filter by FFT
 * (seed 000: nvmath's FFT with a callback-style pointwise step):
 *     y = C2R( R2C(x) .* R2C(h) ) / L
 * cuFFT does the transforms (batched 1-D R2C and C2R, cufftPlanMany); the pointwise complex
 * product and the 1/L scaling are a kernel compiled by NVRTC and launched through the driver API
 * on the runtime's primary context, the context cuFFT and cubind_runtime_malloc use.
 * Checked against the direct circular convolution in double: |y - ref| <= 1e-5 * (1 + S), S the
 * sum of |x[j]| |h[i - j]| over the L terms of ref (fp32 FFTs of length 256 err by ~1e-7 * S).
 *
 * Build: cc -std=c11 fft_convolution.c -Ibuild/include -Lbuild/lib -lcubind -lm
 * Exit: 0 PASS, 1 CUDA error, 2 wrong result, 77 no GPU/driver (see check.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cubind/cufft.h"
#include "cubind/driver.h"
#include "cubind/nvrtc.h"
#include "cubind/runtime.h"

#include "check.h"

enum { L = 256, BATCH = 8, F = L / 2 + 1 /* R2C keeps the non-redundant half of the spectrum */ };

static const char source[] =
    "extern \"C\" __global__ void multiply(float2 *x, const float2 *h, int f, int total, float scale)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < total) {\n"
    "        float2 a = x[i], b = h[i % f]; /* every signal of the batch times the same filter */\n"
    "        x[i] = make_float2((a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale);\n"
    "    }\n"
    "}\n";

/* NVRTC -> CUBIN for this GPU -> module, in the current context. */
static CUmodule load_kernel(CUdevice device)
{
    nvrtcProgram prog;
    nvrtcResult status;
    CUmodule module;
    int major, minor;
    char arch[64], *cubin;
    const char *options[1];
    size_t size;

    CHECK(cubind_driver_device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    CHECK(cubind_driver_device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    options[0] = arch;
    CHECK(cubind_nvrtc_create_program(&prog, source, "multiply.cu", 0, NULL, NULL));
    status = cubind_nvrtc_compile_program(prog, 1, options);
    if (status != NVRTC_SUCCESS) {
        char log[8192] = "";
        size_t log_size = 0;
        if (cubind_nvrtc_get_program_log_size(prog, &log_size) == NVRTC_SUCCESS && log_size <= sizeof log)
            cubind_nvrtc_get_program_log(prog, log);
        fprintf(stderr, "NVRTC log:\n%s\n", log);
        CHECK(status);
    }
    CHECK(cubind_nvrtc_get_cubin_size(prog, &size));
    cubin = malloc(size);
    if (!cubin)
        exit(EXIT_ERROR);
    CHECK(cubind_nvrtc_get_cubin(prog, cubin));
    CHECK(cubind_nvrtc_destroy_program(&prog));
    CHECK(cubind_driver_module_load_data(&module, cubin));
    free(cubin);
    return module;
}

int main(void)
{
    static float x[BATCH * L], h[L], y[BATCH * L];
    cufftComplex *dX, *dH;
    float *dx, *dh;
    cufftHandle plan_r2c, plan_r2c_filter, plan_c2r;
    CUdevice device;
    CUcontext context;
    CUmodule module;
    CUfunction multiply;
    CUdeviceptr X, H;
    int n[1] = {L}, f = F, total = BATCH * F, b, i, j, bad = 0;
    float scale = 1.0f / L; /* cuFFT's inverse is unnormalised */
    void *args[] = {&X, &H, &f, &total, &scale};
    double worst = 0.0;
    unsigned state = 7;

    require_gpu("fft_convolution");
    for (i = 0; i < BATCH * L; ++i) {
        state = state * 1103515245u + 12345u;
        x[i] = (float)((state >> 8) % 2001u) / 1000.0f - 1.0f; /* [-1, 1] */
    }
    for (i = 0; i < L; ++i)
        h[i] = (float)exp(-i / 16.0) * (i % 2 ? -1.0f : 1.0f);

    /* The runtime creates the device's primary context on first use; cuFFT runs there. */
    CHECK(cubind_runtime_set_device(0));
    CHECK(cubind_runtime_free(NULL)); /* the usual idiom to initialise the context now */
    CHECK(cubind_driver_device_get(&device, 0));
    CHECK(cubind_driver_device_primary_ctx_retain(&context, device)); /* the same context */
    CHECK(cubind_driver_ctx_set_current(context));
    module = load_kernel(device);
    CHECK(cubind_driver_module_get_function(&multiply, module, "multiply"));

    CHECK(cubind_runtime_malloc((void **)&dx, sizeof x));
    CHECK(cubind_runtime_malloc((void **)&dh, sizeof h));
    CHECK(cubind_runtime_malloc((void **)&dX, sizeof(cufftComplex) * BATCH * F));
    CHECK(cubind_runtime_malloc((void **)&dH, sizeof(cufftComplex) * F));
    CHECK(cubind_runtime_memcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
    CHECK(cubind_runtime_memcpy(dh, h, sizeof h, cudaMemcpyHostToDevice));

    /* Batched 1-D plans, contiguous signals: NULL embeds mean the basic layout (idist L, odist F). */
    CHECK(cubind_cufft_plan_many(&plan_r2c, 1, n, NULL, 1, L, NULL, 1, F, CUFFT_R2C, BATCH));
    CHECK(cubind_cufft_plan_many(&plan_r2c_filter, 1, n, NULL, 1, L, NULL, 1, F, CUFFT_R2C, 1));
    CHECK(cubind_cufft_plan_many(&plan_c2r, 1, n, NULL, 1, F, NULL, 1, L, CUFFT_C2R, BATCH));
    CHECK(cubind_cufft_exec_r2c(plan_r2c, dx, dX));
    CHECK(cubind_cufft_exec_r2c(plan_r2c_filter, dh, dH));

    /* All on the legacy default stream (NULL), so the kernel runs after the transforms. */
    X = (CUdeviceptr)(uintptr_t)dX;
    H = (CUdeviceptr)(uintptr_t)dH;
    CHECK(cubind_driver_launch_kernel(multiply, (total + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CHECK(cubind_cufft_exec_c2r(plan_c2r, dX, dx)); /* C2R overwrites its input: dX is used up */
    CHECK(cubind_runtime_memcpy(y, dx, sizeof y, cudaMemcpyDeviceToHost));

    for (b = 0; b < BATCH; ++b)
        for (i = 0; i < L; ++i) {
            double ref = 0.0, mag = 0.0, err;
            for (j = 0; j < L; ++j) {
                double t = (double)x[b * L + j] * h[(i - j + L) % L];
                ref += t;
                mag += fabs(t);
            }
            err = fabs(y[b * L + i] - ref) / (1e-5 * (1.0 + mag));
            if (!(err <= 1.0))
                ++bad;
            if (!(err <= worst))
                worst = err;
        }

    CHECK(cubind_cufft_destroy(plan_r2c));
    CHECK(cubind_cufft_destroy(plan_r2c_filter));
    CHECK(cubind_cufft_destroy(plan_c2r));
    CHECK(cubind_driver_module_unload(module));
    CHECK(cubind_runtime_free(dx));
    CHECK(cubind_runtime_free(dh));
    CHECK(cubind_runtime_free(dX));
    CHECK(cubind_runtime_free(dH));
    CHECK(cubind_driver_device_primary_ctx_release(device));
    printf("fft_convolution: %d signals of %d, %d of %d outputs outside the tolerance (worst error / tolerance "
           "= %.3g): %s\n",
           BATCH, L, bad, BATCH * L, worst, bad ? "FAIL" : "PASS");
    return bad ? EXIT_WRONG : EXIT_PASS;
}
