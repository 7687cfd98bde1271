/*
 * tests/gpu/cupti.c - CUPTI's activity API, through cubind, records the work of a cubind program:
 * a kernel compiled by NVRTC and launched through the driver API, and two copies (host to device,
 * device to host). Activity buffers are requested and completed through CUPTI's callbacks; the
 * records are then checked: one kernel record named "scale" with the launch's grid and block, and
 * two memcpy records of the copies' kinds and sizes, none dropped. The result is checked too.
 * Exit status: 0 when every check holds, 1 otherwise, 77 when no GPU can be used here.
 * Run by tests/gpu/cupti.sh (built by `make gpu-build`).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/cubind.h"

#define N 1024
#define BUFFER_SIZE (1u << 20)

static const char source[] =
    "extern \"C\" __global__ void scale(float *x, float a, int n)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }\n";

static int failures;
static unsigned kernels, copies_htod, copies_dtoh, other_records;
static uint64_t bytes_htod, bytes_dtoh;
static int kernel_named_scale, kernel_shape_ok;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "cupti: check failed at line %d: %s\n", __LINE__, #cond); \
            failures++;                                                                \
        }                                                                              \
    } while (0)

static void buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = malloc(BUFFER_SIZE);
    *size = *buffer != NULL ? BUFFER_SIZE : 0;
    *max_records = 0; /* as many as fit */
}

static void buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    CUpti_Activity *record = NULL;
    CUptiResult status;
    (void)context;
    (void)stream;
    (void)size;
    /* CUPTI_ERROR_MAX_LIMIT_REACHED ends the loop: informational, so cubind records no error */
    while ((status = cubind_cupti_activity_get_next_record(buffer, valid, &record)) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
            kernels++;
            kernel_named_scale = k->name != NULL && strcmp(k->name, "scale") == 0;
            kernel_shape_ok = k->gridX == N / 128 && k->gridY == 1 && k->blockX == 128 && k->blockY == 1 && k->end >= k->start;
        } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)record;
            if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD) {
                copies_htod++;
                bytes_htod += m->bytes;
            } else if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) {
                copies_dtoh++;
                bytes_dtoh += m->bytes;
            }
        } else {
            other_records++;
        }
    }
    CHECK(status == CUPTI_ERROR_MAX_LIMIT_REACHED);
    free(buffer);
}

/* A failing driver call whose error says no GPU can be used: 77 (skipped), like the examples. */
static int no_gpu(CUresult status)
{
    return status == CUDA_ERROR_NO_DEVICE || status == CUDA_ERROR_NOT_INITIALIZED || status == CUDA_ERROR_STUB_LIBRARY ||
           cubind_last_error()->kind == CUBIND_ERROR_LIBRARY_NOT_FOUND;
}

static char *compile_ptx(void)
{
    nvrtcProgram program;
    size_t size = 0;
    char *ptx;
    nvrtcResult status;
    if (cubind_nvrtc_create_program(&program, source, "scale.cu", 0, NULL, NULL) != NVRTC_SUCCESS)
        return NULL;
    status = cubind_nvrtc_compile_program(program, 0, NULL);
    if (status != NVRTC_SUCCESS) {
        char log[4096] = "";
        size_t log_size = 0;
        if (cubind_nvrtc_get_program_log_size(program, &log_size) == NVRTC_SUCCESS && log_size <= sizeof log)
            cubind_nvrtc_get_program_log(program, log);
        fprintf(stderr, "cupti: NVRTC: %s\n", log);
        cubind_nvrtc_destroy_program(&program);
        return NULL;
    }
    ptx = cubind_nvrtc_get_ptx_size(program, &size) == NVRTC_SUCCESS ? malloc(size) : NULL;
    if (ptx != NULL && cubind_nvrtc_get_ptx(program, ptx) != NVRTC_SUCCESS) {
        free(ptx);
        ptx = NULL;
    }
    cubind_nvrtc_destroy_program(&program);
    return ptx;
}

int main(void)
{
    static float host[N];
    CUdevice device;
    CUcontext context;
    CUmodule module;
    CUfunction function;
    CUdeviceptr x;
    CUresult status;
    float a = 2.0f;
    int n = N, i;
    void *args[3];
    size_t dropped = 1;
    char *ptx;

    if ((status = cubind_driver_init(0)) != CUDA_SUCCESS) {
        printf("SKIP cupti: %s\n", cubind_last_error()->message);
        return no_gpu(status) ? 77 : 1;
    }
    CHECK(cubind_cupti_activity_register_callbacks(buffer_requested, buffer_completed) == CUPTI_SUCCESS);
    CHECK(cubind_cupti_activity_enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS);
    CHECK(cubind_cupti_activity_enable(CUPTI_ACTIVITY_KIND_MEMCPY) == CUPTI_SUCCESS);

    CHECK(cubind_driver_device_get(&device, 0) == CUDA_SUCCESS);
    CHECK(cubind_driver_device_primary_ctx_retain(&context, device) == CUDA_SUCCESS);
    CHECK(cubind_driver_ctx_set_current(context) == CUDA_SUCCESS);
    ptx = compile_ptx();
    CHECK(ptx != NULL);
    if (ptx == NULL || failures > 0) {
        printf("FAIL cupti: setup (%s)\n", cubind_last_error()->message);
        return 1;
    }
    CHECK(cubind_driver_module_load_data(&module, ptx) == CUDA_SUCCESS);
    CHECK(cubind_driver_module_get_function(&function, module, "scale") == CUDA_SUCCESS);
    for (i = 0; i < N; ++i)
        host[i] = (float)i;
    CHECK(cubind_driver_mem_alloc(&x, sizeof host) == CUDA_SUCCESS);
    CHECK(cubind_driver_memcpy_hto_d(x, host, sizeof host) == CUDA_SUCCESS);
    args[0] = &x;
    args[1] = &a;
    args[2] = &n;
    CHECK(cubind_driver_launch_kernel(function, N / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
    CHECK(cubind_driver_ctx_synchronize() == CUDA_SUCCESS);
    CHECK(cubind_driver_memcpy_dto_h(host, x, sizeof host) == CUDA_SUCCESS);
    for (i = 0; i < N; ++i)
        if (host[i] != 2.0f * (float)i) {
            CHECK(host[i] == 2.0f * (float)i);
            break;
        }

    CHECK(cubind_cupti_activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) == CUPTI_SUCCESS);
    CHECK(cubind_cupti_activity_get_num_dropped_records(context, 0, &dropped) == CUPTI_SUCCESS);
    CHECK(dropped == 0);
    /* the end of each buffer's records (MAX_LIMIT_REACHED) is informational: no error recorded */
    CHECK(cubind_last_error()->kind == CUBIND_OK);

    printf("cupti: %u kernel record(s) (named scale: %d, grid and block as launched: %d), %u HtoD (%llu bytes), "
           "%u DtoH (%llu bytes), %u other\n", kernels, kernel_named_scale, kernel_shape_ok, copies_htod,
           (unsigned long long)bytes_htod, copies_dtoh, (unsigned long long)bytes_dtoh, other_records);
    CHECK(kernels == 1);
    CHECK(kernel_named_scale);
    CHECK(kernel_shape_ok);
    CHECK(copies_htod == 1 && bytes_htod == sizeof host);
    CHECK(copies_dtoh == 1 && bytes_dtoh == sizeof host);

    CHECK(cubind_cupti_activity_disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS);
    CHECK(cubind_cupti_activity_disable(CUPTI_ACTIVITY_KIND_MEMCPY) == CUPTI_SUCCESS);
    CHECK(cubind_driver_mem_free(x) == CUDA_SUCCESS);
    CHECK(cubind_driver_module_unload(module) == CUDA_SUCCESS);
    CHECK(cubind_driver_device_primary_ctx_release(device) == CUDA_SUCCESS);
    free(ptx);
    printf("%s cupti\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
