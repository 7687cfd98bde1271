/*
 * tests/gpu/toolkit.c JPEG RGB [ARCH=CUBIN...] - the toolkit's compiler and codec libraries through cubind
 * on a GPU, with the release each is called as:
 *   1. NVVM compiles NVVM IR to PTX, which the driver loads (cuModuleLoadData) and launches; the
 *      kernel doubles 256 floats, checked on the host;
 *   2. nvFatbin packs that PTX into a fat binary, which the driver loads and launches the same way;
 *      then the cubins given (tests/scale_kernel.cu, compiled by nvcc at build time: sm_ARCH each),
 *      packed into one fat binary, loaded and launched the same way;
 *   3. nvJPEG decodes JPEG (written by tests/gpu/jpeg_fixture.c with libjpeg at build time) to RGB
 *      in device memory, compared with libjpeg's decode (RGB): at most a few levels apart (two IDCTs);
 *      then encodes libjpeg's RGB (nvjpegEncodeImage, quality 95, 4:4:4), decodes that with nvJPEG
 *      and compares it with the RGB encoded. When the release nvJPEG is called as has
 *      nvjpegEncoderParamsSetRestartInterval (CUDA 13.0 added it), the encoding has restart markers
 *      (a DRI segment); where it does not, the call returns the missing-symbol status, calls nothing
 *      and records why. nvjpegEncoderParamsCopyHuffmanTables (which 13.0 removed) is said callable or
 *      not, as cubind_function_info sees it.
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

/* A fat binary of the cubins given ("ARCH=PATH" each: sm_ARCH's code), as nvFatbinAddCubin packs them. */
static void *fatbin_of_cubins(char **cubins, int count)
{
    static unsigned char code[1 << 20];
    nvFatbinHandle fatbin;
    size_t size = 0;
    void *image;
    int i;
    if (cubind_nvfatbin_create(&fatbin, NULL, 0) != NVFATBIN_SUCCESS) {
        fail("nvFatbin");
        return NULL;
    }
    for (i = 0; i < count; ++i) {
        char arch[16];
        const char *path = strchr(cubins[i], '=');
        FILE *in;
        size_t n;
        if (path == NULL || (size_t)(path - cubins[i]) >= sizeof arch || (in = fopen(path + 1, "rb")) == NULL) {
            printf("FAILED: nvFatbin: cannot read the cubin %s (ARCH=PATH)\n", cubins[i]);
            failed++;
            cubind_nvfatbin_destroy(&fatbin);
            return NULL;
        }
        n = fread(code, 1, sizeof code, in);
        fclose(in);
        memcpy(arch, cubins[i], (size_t)(path - cubins[i]));
        arch[path - cubins[i]] = '\0';
        if (cubind_nvfatbin_add_cubin(fatbin, code, n, arch, "scale") != NVFATBIN_SUCCESS) {
            fail("nvFatbin: nvFatbinAddCubin");
            cubind_nvfatbin_destroy(&fatbin);
            return NULL;
        }
    }
    if (cubind_nvfatbin_size(fatbin, &size) != NVFATBIN_SUCCESS || (image = malloc(size)) == NULL ||
        cubind_nvfatbin_get(fatbin, image) != NVFATBIN_SUCCESS) {
        fail("nvFatbin");
        return NULL;
    }
    cubind_nvfatbin_destroy(&fatbin);
    printf("nvFatbin: %d cubins packed into a fat binary of %zu bytes\n", count, size);
    return image;
}

/* The release cubind calls `library` as, and the file. */
static void called_as(cubind_library library)
{
    struct cubind_library_info info = {.size = sizeof info};
    if (cubind_library_info(library, &info) == CUBIND_OK)
        printf("%s %d.%d (%s) is called as CUDA %s\n", cubind_library_name(library), info.version_major,
               info.version_minor, info.real_path, info.release != NULL ? info.release : "?");
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

/* Decode `jpeg` with nvJPEG to interleaved RGB in device memory, copy it back, and compare it with
 * `reference` (WIDTH x HEIGHT): the largest and the mean difference of a byte. 0, or -1 having failed
 * the step `what`. */
static int decode_and_compare(nvjpegHandle_t handle, const unsigned char *jpeg, size_t length,
                              const unsigned char *reference, const char *what, int *worst, double *mean)
{
    static unsigned char decoded[WIDTH * HEIGHT * 3];
    nvjpegJpegState_t state;
    nvjpegImage_t image;
    CUdeviceptr device;
    double total = 0;
    int i;
    if (cubind_nvjpeg_jpeg_state_create(handle, &state) != NVJPEG_STATUS_SUCCESS ||
        cubind_driver_mem_alloc(&device, sizeof decoded) != CUDA_SUCCESS)
        return fail(what);
    memset(&image, 0, sizeof image);
    image.channel[0] = (unsigned char *)(uintptr_t)device;
    image.pitch[0] = WIDTH * 3;
    if (cubind_nvjpeg_decode(handle, state, jpeg, length, NVJPEG_OUTPUT_RGBI, &image, NULL) != NVJPEG_STATUS_SUCCESS ||
        cubind_driver_ctx_synchronize() != CUDA_SUCCESS ||
        cubind_driver_memcpy_dto_h(decoded, device, sizeof decoded) != CUDA_SUCCESS)
        return fail(what);
    *worst = 0;
    for (i = 0; i < (int)sizeof decoded; ++i) {
        int d = abs((int)decoded[i] - (int)reference[i]);
        *worst = d > *worst ? d : *worst;
        total += d;
    }
    *mean = total / (double)sizeof decoded;
    cubind_driver_mem_free(device);
    cubind_nvjpeg_jpeg_state_destroy(state);
    return 0;
}

static void nvjpeg_decode(const char *jpeg_path, const char *rgb_path)
{
    static unsigned char jpeg[1 << 16], reference[WIDTH * HEIGHT * 3];
    nvjpegHandle_t handle;
    long length = read_file(jpeg_path, jpeg, sizeof jpeg);
    int major = 0, minor = 0, worst = 0;
    double mean = 0;
    if (length <= 0 || read_file(rgb_path, reference, sizeof reference) != (long)sizeof reference) {
        printf("FAILED: nvJPEG: cannot read %s or %s\n", jpeg_path, rgb_path);
        failed++;
        return;
    }
    cubind_nvjpeg_get_property(MAJOR_VERSION, &major);
    cubind_nvjpeg_get_property(MINOR_VERSION, &minor);
    if (cubind_nvjpeg_create_simple(&handle) != NVJPEG_STATUS_SUCCESS) {
        fail("nvJPEG");
        return;
    }
    if (decode_and_compare(handle, jpeg, (size_t)length, reference, "nvJPEG decode", &worst, &mean) != 0)
        return;
    cubind_nvjpeg_destroy(handle);
    printf("nvJPEG %d.%d: %d x %d decoded; against libjpeg: largest difference %d, mean %.3f\n", major, minor, WIDTH,
           HEIGHT, worst, mean);
    if (worst > 8 || mean > 1.0) {
        printf("FAILED: nvJPEG: the pixels differ from libjpeg's by more than two IDCTs do\n");
        failed++;
        return;
    }
    printf("ok: nvJPEG's pixels are libjpeg's\n");
}

/* Whether bytes [0, length) of a JPEG hold the marker 0xFF `code` (DRI: 0xDD). */
static int has_marker(const unsigned char *jpeg, size_t length, unsigned char code)
{
    size_t i;
    for (i = 0; i + 1 < length; ++i)
        if (jpeg[i] == 0xFF && jpeg[i + 1] == code)
            return 1;
    return 0;
}

/* nvjpegEncoderParamsSetRestartInterval where the release has it (a restart every 4 MCUs: the
 * encoding must then have a DRI segment); where it does not, the missing-symbol status, no call,
 * and the record. Returns whether the interval was set. */
static int restart_interval(nvjpegEncoderParams_t params)
{
    struct cubind_function_info info = {.size = sizeof info};
    nvjpegStatus_t status = cubind_nvjpeg_encoder_params_set_restart_interval(params, 4, NULL);
    cubind_function_info("nvjpegEncoderParamsSetRestartInterval", &info);
    printf("nvjpegEncoderParamsSetRestartInterval (added in CUDA %s): %s in CUDA %s -> %s\n", info.added_in,
           info.state == CUBIND_FUNCTION_CALLABLE ? "callable" : "not callable", info.release != NULL ? info.release : "?",
           cubind_status_name(CUBIND_LIB_NVJPEG, status));
    if (info.state == CUBIND_FUNCTION_CALLABLE) {
        if (status != NVJPEG_STATUS_SUCCESS)
            fail("nvJPEG: nvjpegEncoderParamsSetRestartInterval");
        return status == NVJPEG_STATUS_SUCCESS;
    }
    if (status != NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED || cubind_last_error()->kind != CUBIND_ERROR_SYMBOL_NOT_FOUND) {
        printf("FAILED: nvJPEG: nvjpegEncoderParamsSetRestartInterval is not callable, yet returned %s (%s)\n",
               cubind_status_name(CUBIND_LIB_NVJPEG, status), cubind_last_error()->message);
        failed++;
    } else
        printf("ok: not called: %s\n", cubind_last_error()->message);
    return 0;
}

/* Encode `rgb` (WIDTH x HEIGHT, interleaved) on the GPU, decode the JPEG with nvJPEG, compare. */
static void nvjpeg_encode(const unsigned char *rgb)
{
    static unsigned char jpeg[1 << 16];
    struct cubind_function_info removed = {.size = sizeof removed};
    nvjpegHandle_t handle;
    nvjpegEncoderState_t encoder;
    nvjpegEncoderParams_t params;
    nvjpegImage_t image;
    CUdeviceptr source;
    size_t length = sizeof jpeg;
    int worst = 0, restarts;
    double mean = 0;
    if (cubind_nvjpeg_create_simple(&handle) != NVJPEG_STATUS_SUCCESS ||
        cubind_nvjpeg_encoder_state_create(handle, &encoder, NULL) != NVJPEG_STATUS_SUCCESS ||
        cubind_nvjpeg_encoder_params_create(handle, &params, NULL) != NVJPEG_STATUS_SUCCESS ||
        cubind_nvjpeg_encoder_params_set_quality(params, 95, NULL) != NVJPEG_STATUS_SUCCESS ||
        cubind_nvjpeg_encoder_params_set_sampling_factors(params, NVJPEG_CSS_444, NULL) != NVJPEG_STATUS_SUCCESS ||
        cubind_driver_mem_alloc(&source, WIDTH * HEIGHT * 3) != CUDA_SUCCESS ||
        cubind_driver_memcpy_hto_d(source, rgb, WIDTH * HEIGHT * 3) != CUDA_SUCCESS) {
        fail("nvJPEG encoder");
        return;
    }
    restarts = restart_interval(params);
    memset(&image, 0, sizeof image);
    image.channel[0] = (unsigned char *)(uintptr_t)source;
    image.pitch[0] = WIDTH * 3;
    if (cubind_nvjpeg_encode_image(handle, encoder, params, &image, NVJPEG_INPUT_RGBI, WIDTH, HEIGHT, NULL) !=
            NVJPEG_STATUS_SUCCESS ||
        cubind_nvjpeg_encode_retrieve_bitstream(handle, encoder, jpeg, &length, NULL) != NVJPEG_STATUS_SUCCESS ||
        cubind_driver_ctx_synchronize() != CUDA_SUCCESS) {
        fail("nvJPEG encode");
        return;
    }
    printf("nvJPEG: %d x %d encoded to %zu bytes of JPEG (%s restart markers)\n", WIDTH, HEIGHT, length,
           has_marker(jpeg, length, 0xDD) ? "with" : "without");
    if (restarts && !has_marker(jpeg, length, 0xDD)) {
        printf("FAILED: nvJPEG: the restart interval was set, the JPEG has no DRI segment\n");
        failed++;
    }
    if (decode_and_compare(handle, jpeg, length, rgb, "nvJPEG decode of its encoding", &worst, &mean) != 0)
        return;
    cubind_function_info("nvjpegEncoderParamsCopyHuffmanTables", &removed);
    printf("nvjpegEncoderParamsCopyHuffmanTables: %s in CUDA %s%s%s\n",
           removed.state == CUBIND_FUNCTION_CALLABLE ? "callable" : "not callable",
           removed.release != NULL ? removed.release : "?", removed.reason != NULL ? ": " : "",
           removed.reason != NULL ? removed.reason : "");
    cubind_nvjpeg_encoder_params_destroy(params);
    cubind_nvjpeg_encoder_state_destroy(encoder);
    cubind_nvjpeg_destroy(handle);
    cubind_driver_mem_free(source);
    printf("nvJPEG: its decode of its encoding against the RGB encoded: largest difference %d, mean %.3f\n", worst,
           mean);
    if (worst > 24 || mean > 2.0) {
        printf("FAILED: nvJPEG: its encoding at quality 95 lost more than quantization does\n");
        failed++;
        return;
    }
    printf("ok: nvJPEG encodes and decodes what it encoded\n");
}

int main(int argc, char **argv)
{
    CUdevice device;
    CUcontext context;
    char *ptx;
    void *fatbin;
    static unsigned char rgb[WIDTH * HEIGHT * 3];
    if (argc < 3) {
        fprintf(stderr, "usage: %s JPEG RGB [ARCH=CUBIN...]\n", argv[0]);
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
    if (argc > 3 && (fatbin = fatbin_of_cubins(argv + 3, argc - 3)) != NULL) {
        launch(fatbin, "nvFatbin's fat binary of cubins");
        free(fatbin);
    }
    called_as(CUBIND_LIB_NVFATBIN);
    nvjpeg_decode(argv[1], argv[2]);
    if (read_file(argv[2], rgb, sizeof rgb) == (long)sizeof rgb)
        nvjpeg_encode(rgb);
    called_as(CUBIND_LIB_NVJPEG);
    return failed;
}
