/*
 * tests/gpu/toolkit.c JPEG RGB - the toolkit's compiler and codec libraries through cubind on a GPU:
 *   1. NVVM compiles NVVM IR to PTX, which the driver loads (cuModuleLoadData) and launches; the
 *      kernel doubles 256 floats, checked on the host;
 *   2. nvFatbin packs that PTX into a fat binary, which the driver loads and launches the same way;
 *   3. nvJPEG decodes JPEG (written by tests/gpu/jpeg_fixture.c with libjpeg at build time) to RGB
 *      in device memory, compared with libjpeg's decode (RGB): at most a few levels apart (two IDCTs).
 * Each step prints what it found and "ok" or why it failed; the exit status is the number failed.
 * A library that cannot be loaded fails its step with cubind's record of why.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/cubind.h"

enum { COUNT = 256, WIDTH = 64, HEIGHT = 48 };

#include "../nvvm_ir.h"

static int failed;

static int fail(const char *what)
{
    printf("FAILED: %s: %s\n", what, cubind_last_error()->message);
    failed++;
    return -1;
}

/* Load `image` (PTX or a fat binary), run cubind_scale over 256 floats, check they doubled. */
static int launch(const void *image, const char *what)
{
    CUmodule module;
    CUfunction kernel;
    CUdeviceptr device;
    float host[COUNT];
    void *params[1];
    int i;
    for (i = 0; i < COUNT; ++i)
        host[i] = (float)i;
    if (cubind_driver_module_load_data(&module, image) != CUDA_SUCCESS)
        return fail(what);
    if (cubind_driver_module_get_function(&kernel, module, "cubind_scale") != CUDA_SUCCESS ||
        cubind_driver_mem_alloc(&device, sizeof host) != CUDA_SUCCESS ||
        cubind_driver_memcpy_hto_d(device, host, sizeof host) != CUDA_SUCCESS)
        return fail(what);
    params[0] = &device;
    if (cubind_driver_launch_kernel(kernel, 1, 1, 1, COUNT, 1, 1, 0, NULL, params, NULL) != CUDA_SUCCESS ||
        cubind_driver_memcpy_dto_h(host, device, sizeof host) != CUDA_SUCCESS)
        return fail(what);
    cubind_driver_mem_free(device);
    cubind_driver_module_unload(module);
    for (i = 0; i < COUNT; ++i)
        if (host[i] != 2.0f * (float)i) {
            printf("FAILED: %s: element %d is %g, not %g\n", what, i, host[i], 2.0 * i);
            failed++;
            return -1;
        }
    printf("ok: %s: 256 floats doubled on the GPU\n", what);
    return 0;
}

static char *nvvm_ptx(void)
{
    nvvmProgram program;
    const char *options[] = {"-arch=compute_75"};
    size_t size = 0;
    int major = 0, minor = 0;
    char *ptx;
    if (cubind_nvvm_version(&major, &minor) != NVVM_SUCCESS || cubind_nvvm_create_program(&program) != NVVM_SUCCESS ||
        cubind_nvvm_add_module_to_program(program, nvvm_ir, sizeof nvvm_ir - 1, "scale") != NVVM_SUCCESS ||
        cubind_nvvm_compile_program(program, 1, options) != NVVM_SUCCESS ||
        cubind_nvvm_get_compiled_result_size(program, &size) != NVVM_SUCCESS || (ptx = malloc(size)) == NULL ||
        cubind_nvvm_get_compiled_result(program, ptx) != NVVM_SUCCESS) {
        fail("NVVM");
        return NULL;
    }
    cubind_nvvm_destroy_program(&program);
    printf("NVVM %d.%d: %zu bytes of PTX\n", major, minor, size);
    return ptx;
}

static void *fatbin_of(const char *ptx)
{
    nvFatbinHandle fatbin;
    unsigned int major = 0, minor = 0;
    size_t size = 0;
    void *image;
    if (cubind_nvfatbin_version(&major, &minor) != NVFATBIN_SUCCESS ||
        cubind_nvfatbin_create(&fatbin, NULL, 0) != NVFATBIN_SUCCESS ||
        cubind_nvfatbin_add_ptx(fatbin, ptx, strlen(ptx) + 1, "75", "scale", NULL) != NVFATBIN_SUCCESS ||
        cubind_nvfatbin_size(fatbin, &size) != NVFATBIN_SUCCESS || (image = malloc(size)) == NULL ||
        cubind_nvfatbin_get(fatbin, image) != NVFATBIN_SUCCESS) {
        fail("nvFatbin");
        return NULL;
    }
    cubind_nvfatbin_destroy(&fatbin);
    printf("nvFatbin %u.%u: a fat binary of %zu bytes\n", major, minor, size);
    return image;
}

static long read_file(const char *path, unsigned char *buffer, size_t size)
{
    FILE *in = fopen(path, "rb");
    size_t n;
    if (in == NULL)
        return -1;
    n = fread(buffer, 1, size, in);
    fclose(in);
    return (long)n;
}

static void nvjpeg_decode(const char *jpeg_path, const char *rgb_path)
{
    static unsigned char jpeg[1 << 16], reference[WIDTH * HEIGHT * 3], decoded[WIDTH * HEIGHT * 3];
    nvjpegHandle_t handle;
    nvjpegJpegState_t state;
    nvjpegImage_t image;
    CUdeviceptr device;
    long length = read_file(jpeg_path, jpeg, sizeof jpeg);
    int major = 0, minor = 0, worst = 0, i;
    double total = 0;
    if (length <= 0 || read_file(rgb_path, reference, sizeof reference) != (long)sizeof reference) {
        printf("FAILED: nvJPEG: cannot read %s or %s\n", jpeg_path, rgb_path);
        failed++;
        return;
    }
    cubind_nvjpeg_get_property(MAJOR_VERSION, &major);
    cubind_nvjpeg_get_property(MINOR_VERSION, &minor);
    if (cubind_nvjpeg_create_simple(&handle) != NVJPEG_STATUS_SUCCESS ||
        cubind_nvjpeg_jpeg_state_create(handle, &state) != NVJPEG_STATUS_SUCCESS ||
        cubind_driver_mem_alloc(&device, sizeof decoded) != CUDA_SUCCESS) {
        fail("nvJPEG");
        return;
    }
    memset(&image, 0, sizeof image);
    image.channel[0] = (unsigned char *)(uintptr_t)device;
    image.pitch[0] = WIDTH * 3;
    if (cubind_nvjpeg_decode(handle, state, jpeg, (size_t)length, NVJPEG_OUTPUT_RGBI, &image, NULL) !=
            NVJPEG_STATUS_SUCCESS ||
        cubind_driver_ctx_synchronize() != CUDA_SUCCESS ||
        cubind_driver_memcpy_dto_h(decoded, device, sizeof decoded) != CUDA_SUCCESS) {
        fail("nvJPEG decode");
        return;
    }
    for (i = 0; i < (int)sizeof decoded; ++i) {
        int d = abs((int)decoded[i] - (int)reference[i]);
        worst = d > worst ? d : worst;
        total += d;
    }
    cubind_driver_mem_free(device);
    cubind_nvjpeg_jpeg_state_destroy(state);
    cubind_nvjpeg_destroy(handle);
    printf("nvJPEG %d.%d: %d x %d decoded; against libjpeg: largest difference %d, mean %.3f\n", major, minor, WIDTH,
           HEIGHT, worst, total / (double)sizeof decoded);
    if (worst > 8 || total / (double)sizeof decoded > 1.0) {
        printf("FAILED: nvJPEG: the pixels differ from libjpeg's by more than two IDCTs do\n");
        failed++;
        return;
    }
    printf("ok: nvJPEG's pixels are libjpeg's\n");
}

int main(int argc, char **argv)
{
    CUdevice device;
    CUcontext context;
    char *ptx;
    void *fatbin;
    if (argc != 3) {
        fprintf(stderr, "usage: %s JPEG RGB\n", argv[0]);
        return 2;
    }
    if (cubind_driver_init(0) != CUDA_SUCCESS || cubind_driver_device_get(&device, 0) != CUDA_SUCCESS ||
        cubind_driver_device_primary_ctx_retain(&context, device) != CUDA_SUCCESS ||
        cubind_driver_ctx_set_current(context) != CUDA_SUCCESS)
    {
        fail("the driver");
        return 1;
    }
    ptx = nvvm_ptx();
    if (ptx != NULL) {
        launch(ptx, "NVVM's PTX");
        fatbin = fatbin_of(ptx);
        if (fatbin != NULL)
            launch(fatbin, "nvFatbin's fat binary");
        free(fatbin);
        free(ptx);
    }
    nvjpeg_decode(argv[1], argv[2]);
    return failed;
}
