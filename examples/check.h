/*
 * examples/check.h - what every example shares: CHECK, the "no GPU here" exit and the exit codes.
 *
 * Every cubind wrapper returns its library's status, and success is 0 in every CUDA library
 * (cudaSuccess, CUDA_SUCCESS, CUBLAS_STATUS_SUCCESS, NVRTC_SUCCESS, ncclSuccess, ...), so one
 * macro checks them all. On failure cubind has filled the calling thread's error record:
 * CHECK prints it and exits.
 */
#ifndef CUBIND_EXAMPLES_CHECK_H
#define CUBIND_EXAMPLES_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "cubind/cubind.h"

enum {
    EXIT_PASS = 0,   /* the GPU result matches the CPU reference */
    EXIT_ERROR = 1,  /* a CUDA call failed */
    EXIT_WRONG = 2,  /* the calls succeeded but the result is wrong */
    EXIT_NO_GPU = 77 /* no driver or no GPU: nothing was tested (the automake "skip" status) */
};

static inline void print_error(const char *what)
{
    const cubind_error *e = cubind_last_error();
    fprintf(stderr, "%s\n  library %s, function %s, status %d (%s)\n  %s\n", what, e->library_name,
            e->function, e->status, e->status_name, e->message);
}

static inline void check_failed(const char *call, const char *file, int line)
{
    char what[512];
    snprintf(what, sizeof what, "FAIL (CUDA error): %s:%d: %s failed", file, line, call);
    print_error(what);
    exit(EXIT_ERROR);
}

#define CHECK(call)                                      \
    do {                                                 \
        if ((call) != 0)                                 \
            check_failed(#call, __FILE__, __LINE__);     \
    } while (0)

/*
 * Exits with EXIT_NO_GPU, and says why, unless the CUDA driver loads and sees a GPU. It
 * initialises the driver: a program that forks its workers (allreduce_matmul) must not call
 * it before fork().
 */
static inline void require_gpu(const char *example)
{
    int count = 0;
    if (cubind_driver_init(0) != CUDA_SUCCESS || cubind_driver_device_get_count(&count) != CUDA_SUCCESS) {
        print_error("no usable CUDA driver");
        printf("%s: SKIP (no GPU/driver)\n", example);
        exit(EXIT_NO_GPU);
    }
    if (count == 0) {
        printf("%s: SKIP (the driver sees no GPU)\n", example);
        exit(EXIT_NO_GPU);
    }
}

#endif
