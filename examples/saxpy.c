/*
 * examples/saxpy.c - out = a * x + y with a kernel compiled at run time (seed 001: CUDA Python's
 * SAXPY with NVRTC and the driver API), done twice:
 *   1. NVRTC compiles the source to a CUBIN for this GPU; the driver loads and launches it;
 *   2. NVRTC compiles it to LTO-IR (-dlto); nvJitLink links that into a CUBIN; same launch.
 * Both results are checked against the CPU: |out - ref| <= 1e-6 * (1 + |ref|) (one fp32 FMA).
 *
 * Build: cc -std=c11 saxpy.c -Ibuild/include -Lbuild/lib -lcubind -lm
 * Exit: 0 PASS, 1 CUDA error, 2 wrong result, 77 no GPU/driver (see check.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cubind/driver.h"
#include "cubind/nvjitlink.h"
#include "cubind/nvrtc.h"

#include "check.h"

/* extern "C": the kernel keeps its name, so cuModuleGetFunction finds "saxpy" unmangled. */
static const char source[] =
    "extern \"C\" __global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)\n"
    "{\n"
    "    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = a * x[i] + y[i];\n"
    "}\n";

enum { N = 1 << 20, THREADS = 256 };

/* Compiles `source` with `options`; prints the compiler's log when it fails. */
static nvrtcProgram compile(const char *const *options, int count)
{
    nvrtcProgram prog;
    size_t log_size = 0;
    nvrtcResult status;

    CHECK(cubind_nvrtc_create_program(&prog, source, "saxpy.cu", 0, NULL, NULL));
    status = cubind_nvrtc_compile_program(prog, count, options);
    if (status != NVRTC_SUCCESS) {
        char *log;
        CHECK(cubind_nvrtc_get_program_log_size(prog, &log_size));
        log = malloc(log_size + 1);
        if (log && cubind_nvrtc_get_program_log(prog, log) == NVRTC_SUCCESS)
            fprintf(stderr, "NVRTC log:\n%s\n", log);
        free(log);
        CHECK(status);
    }
    return prog;
}

/* Loads a CUBIN, runs saxpy over N elements and compares with the CPU; returns 1 if correct. */
static int run(const char *how, const void *cubin, float a, const float *x, const float *y, float *out,
               CUdeviceptr dx, CUdeviceptr dy, CUdeviceptr dout)
{
    CUmodule module;
    CUfunction kernel;
    size_t n = N, i, bad = 0;
    void *args[] = {&a, &dx, &dy, &dout, &n}; /* addresses of the arguments, in the kernel's order */

    CHECK(cubind_driver_module_load_data(&module, cubin));
    CHECK(cubind_driver_module_get_function(&kernel, module, "saxpy"));
    CHECK(cubind_driver_memset_d8(dout, 0, N * sizeof(float))); /* no stale result from the first run */
    CHECK(cubind_driver_launch_kernel(kernel, (N + THREADS - 1) / THREADS, 1, 1, THREADS, 1, 1, 0, NULL, args,
                                      NULL));
    CHECK(cubind_driver_ctx_synchronize()); /* launch errors surface here */
    CHECK(cubind_driver_memcpy_dto_h(out, dout, N * sizeof(float)));
    CHECK(cubind_driver_module_unload(module));

    for (i = 0; i < N; ++i) {
        float ref = a * x[i] + y[i];
        if (!(fabsf(out[i] - ref) <= 1e-6f * (1.0f + fabsf(ref)))) {
            if (bad++ < 5)
                fprintf(stderr, "%s: out[%zu] = %g, expected %g\n", how, i, (double)out[i], (double)ref);
        }
    }
    printf("  %s: %zu of %d elements wrong\n", how, bad, N);
    return bad == 0;
}

int main(void)
{
    static float x[N], y[N], out[N];
    const float a = 2.5f;
    CUdevice device;
    CUcontext context;
    CUdeviceptr dx, dy, dout;
    int major, minor, ok;
    char arch[64], link_arch[64];
    size_t size, i;
    nvrtcProgram prog;
    nvJitLinkHandle linker;
    char *cubin, *ltoir, *linked;

    require_gpu("saxpy");
    for (i = 0; i < N; ++i) {
        x[i] = (float)(i % 1000) * 0.001f;
        y[i] = 1.0f - (float)(i % 77) * 0.01f;
    }

    /* The primary context is the one the runtime and the libraries share; retain it and make it current. */
    CHECK(cubind_driver_device_get(&device, 0));
    CHECK(cubind_driver_device_primary_ctx_retain(&context, device));
    CHECK(cubind_driver_ctx_set_current(context));

    /* Compile for exactly this GPU: sm_XY, a CUBIN that needs no JIT at load time. */
    CHECK(cubind_driver_device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    CHECK(cubind_driver_device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    snprintf(link_arch, sizeof link_arch, "-arch=sm_%d%d", major, minor);

    CHECK(cubind_driver_mem_alloc(&dx, N * sizeof(float)));
    CHECK(cubind_driver_mem_alloc(&dy, N * sizeof(float)));
    CHECK(cubind_driver_mem_alloc(&dout, N * sizeof(float)));
    CHECK(cubind_driver_memcpy_hto_d(dx, x, sizeof x));
    CHECK(cubind_driver_memcpy_hto_d(dy, y, sizeof y));
    printf("saxpy: sm_%d%d, %d elements\n", major, minor, N);

    /* 1. NVRTC -> CUBIN -> driver. */
    {
        const char *options[] = {arch};
        prog = compile(options, 1);
        CHECK(cubind_nvrtc_get_cubin_size(prog, &size));
        cubin = malloc(size);
        if (!cubin)
            return EXIT_ERROR;
        CHECK(cubind_nvrtc_get_cubin(prog, cubin));
        CHECK(cubind_nvrtc_destroy_program(&prog));
        ok = run("NVRTC cubin", cubin, a, x, y, out, dx, dy, dout);
        free(cubin);
    }

    /* 2. NVRTC -> LTO-IR -> nvJitLink -> CUBIN -> driver. */
    {
        const char *options[] = {arch, "-dlto"};
        const char *link_options[] = {link_arch, "-lto"};
        nvJitLinkResult status;

        prog = compile(options, 2);
        CHECK(cubind_nvrtc_get_ltoir_size(prog, &size));
        ltoir = malloc(size);
        if (!ltoir)
            return EXIT_ERROR;
        CHECK(cubind_nvrtc_get_ltoir(prog, ltoir));
        CHECK(cubind_nvrtc_destroy_program(&prog));

        CHECK(cubind_nvjitlink_create(&linker, 2, link_options));
        status = cubind_nvjitlink_add_data(linker, NVJITLINK_INPUT_LTOIR, ltoir, size, "saxpy.ltoir");
        if (status == NVJITLINK_SUCCESS)
            status = cubind_nvjitlink_complete(linker);
        if (status != NVJITLINK_SUCCESS) { /* the linker's log says why */
            size_t log_size = 0;
            char *log;
            CHECK(cubind_nvjitlink_get_error_log_size(linker, &log_size));
            log = malloc(log_size + 1);
            if (log && cubind_nvjitlink_get_error_log(linker, log) == NVJITLINK_SUCCESS)
                fprintf(stderr, "nvJitLink log:\n%s\n", log);
            free(log);
            CHECK(status);
        }
        CHECK(cubind_nvjitlink_get_linked_cubin_size(linker, &size));
        linked = malloc(size);
        if (!linked)
            return EXIT_ERROR;
        CHECK(cubind_nvjitlink_get_linked_cubin(linker, linked));
        CHECK(cubind_nvjitlink_destroy(&linker));
        free(ltoir);
        ok = run("NVRTC LTO-IR + nvJitLink cubin", linked, a, x, y, out, dx, dy, dout) && ok;
        free(linked);
    }

    CHECK(cubind_driver_mem_free(dx));
    CHECK(cubind_driver_mem_free(dy));
    CHECK(cubind_driver_mem_free(dout));
    CHECK(cubind_driver_device_primary_ctx_release(device));
    printf("saxpy: %s\n", ok ? "PASS" : "FAIL");
    return ok ? EXIT_PASS : EXIT_WRONG;
}
