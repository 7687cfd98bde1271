/*
 * tests/gpu/no_gpu.c - "no GPU" said plainly, on a GPU machine (issue 19; tests/gpu/run.sh runs it
 * twice). With the GPUs visible, cubind_gpu_count must give as many as nvidia-smi lists (argv[1]),
 * and cuBLAS's handle must be created. With CUDA_VISIBLE_DEVICES set to nothing, the driver is
 * there but sees no GPU: a failing cuBLAS call's record must say so (made first, before cubind
 * has asked the driver anything), and cubind_gpu_count must return 0 with a record naming the
 * driver's release and CUDA_VISIBLE_DEVICES.
 * Exit status 0 when every expectation holds; it prints what it saw.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/cubind.h"

static int expect(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    int hidden = visible != NULL && visible[0] == '\0', count = -1, failed = 0;
    cublasHandle_t handle = NULL;
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    cubind_error_kind kind;
    const char *message;
    if (hidden) {
        status = cubind_cublas_create(&handle);
        message = cubind_last_error()->message;
        printf("cublasCreate: %d: %s\n", (int)status, message);
        failed += expect(status != CUBLAS_STATUS_SUCCESS, "cublasCreate fails");
        failed += expect(strstr(message, "no GPU visible") != NULL || strstr(message, "no GPU") != NULL,
                         "cublasCreate's record says no GPU is visible");
    }
    kind = cubind_gpu_count(&count);
    message = cubind_last_error()->message;
    printf("cubind_gpu_count: %d, count %d%s%s\n", (int)kind, count, kind != CUBIND_OK ? ": " : "",
           kind != CUBIND_OK ? message : "");
    if (!hidden) {
        failed += expect(kind == CUBIND_OK && argc > 1 && count == atoi(argv[1]), "as many GPUs as nvidia-smi lists");
        status = cubind_cublas_create(&handle);
        failed += expect(status == CUBLAS_STATUS_SUCCESS, "cublasCreate succeeds");
        if (handle != NULL)
            cubind_cublas_destroy(handle);
        return failed;
    }
    failed += expect(kind != CUBIND_OK && count == 0, "no GPU counted with CUDA_VISIBLE_DEVICES empty");
    failed += expect(strstr(message, "no GPU visible") != NULL && strstr(message, "CUDA_VISIBLE_DEVICES=") != NULL,
                     "cubind_gpu_count's record says no GPU is visible and why");
    return failed;
}
