/*
 * tests/mock/reentrant_constructor.c - linked into a mock libcublas: its constructor
 * calls cubind while cubind is dlopen'ing it (tests/test_faults.c, "reentrant
 * constructor"). A cuBLAS call, this library's own, must reach its own definition at
 * once; cubind's API asked about cuBLAS refuses (it is being loaded by this very thread);
 * a cuFFT call must load libcufft. What each call returned is kept in
 * cubind_test_reentrant for the test to read once the dlopen has finished.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cubind/cubind.h"
#include "reentrant_constructor.h"

__attribute__((visibility("default"))) struct reentrant_report cubind_test_reentrant;

static void keep(struct reentrant_call *call, int result)
{
    const cubind_error *error = cubind_last_error();
    call->result = result;
    call->kind = (int)error->kind;
    call->status = error->status;
    snprintf(call->function, sizeof call->function, "%s", error->function);
    snprintf(call->message, sizeof call->message, "%.*s", (int)sizeof call->message - 1, error->message);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((constructor)) static void call_cubind_while_loaded(void)
{
    struct reentrant_report *r = &cubind_test_reentrant;
    struct cubind_library_info info = {.size = sizeof info};
    cublasHandle_t handle;
    cufftHandle plan;
    double start;

    if (getenv("CUBIND_TEST_REENTRANT") == NULL)
        return; /* loaded by something else than the test */
    r->ran = 1;
    cubind_clear_error();
    start = now();
    keep(&r->cublas_create, (int)cubind_cublas_create(&handle));
    r->cublas_seconds = now() - start;
    cubind_clear_error();
    keep(&r->cublas_load, (int)cubind_load(CUBIND_LIB_CUBLAS));
    cubind_clear_error();
    keep(&r->cublas_info, (int)cubind_library_info(CUBIND_LIB_CUBLAS, &info));
    r->cublas_info_found = info.found;
    cubind_clear_error();
    keep(&r->cublas_set_path, (int)cubind_set_library_path(CUBIND_LIB_CUBLAS, "/nonexistent/libcublas.so.13"));
    r->cublas_available = cubind_function_available("cublasCreate");
    cubind_clear_error();
    keep(&r->cufft_create, (int)cubind_cufft_create(&plan));
    cubind_clear_error();
    keep(&r->cufft_info, (int)cubind_library_info(CUBIND_LIB_CUFFT, &info));
    r->cufft_info_found = info.found;
    r->done = 1;
}
