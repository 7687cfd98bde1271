/*
 * examples/nvidia/check.h - what the examples' twins with NVIDIA's names share: CHECK, print_error,
 * the "no GPU here" exit and the exit codes, with NVIDIA's names and headers only. The twin of
 * examples/check.h, written by hand: that one reads cubind's error record (cubind_last_error),
 * which has no NVIDIA counterpart, and so it is where the examples keep what is cubind's alone.
 * The twins themselves are generated from the examples (generated/examples/nvidia/,
 * generator/twins.py), and find this file first on their include path.
 *
 * Success is 0 in every CUDA library (cudaSuccess, CUDA_SUCCESS, CUBLAS_STATUS_SUCCESS,
 * NVRTC_SUCCESS, CUFFT_SUCCESS, CUDNN_STATUS_SUCCESS, ncclSuccess, ...), so one macro checks them
 * all: on failure it prints the call and its status, and exits.
 */
#ifndef CUBIND_EXAMPLES_NVIDIA_CHECK_H
#define CUBIND_EXAMPLES_NVIDIA_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>

enum {
    EXIT_PASS = 0,   /* the GPU result matches the CPU reference */
    EXIT_ERROR = 1,  /* a CUDA call failed */
    EXIT_WRONG = 2,  /* the calls succeeded but the result is wrong */
    EXIT_NO_GPU = 77 /* no driver or no GPU: nothing was tested (the automake "skip" status) */
};

/* What failed: NVIDIA's libraries keep no error record, the status was the call's return value. */
static inline void print_error(const char *what)
{
    fprintf(stderr, "%s\n", what);
}

static inline void check_failed(const char *call, int status, const char *file, int line)
{
    fprintf(stderr, "FAIL (CUDA error): %s:%d: %s failed: status %d\n", file, line, call, status);
    exit(EXIT_ERROR);
}

#define CHECK(call)                                                  \
    do {                                                             \
        int check_status_ = (int)(call);                             \
        if (check_status_ != 0)                                      \
            check_failed(#call, check_status_, __FILE__, __LINE__);  \
    } while (0)

/*
 * Exits with EXIT_NO_GPU, and says why, unless the CUDA driver loads and sees a GPU (on cubind's
 * mocks the driver loads and sees none).
 */
static inline void require_gpu(const char *example)
{
    int count = 0;
    CUresult status = cuInit(0);
    if (status == CUDA_SUCCESS)
        status = cuDeviceGetCount(&count);
    if (status != CUDA_SUCCESS) {
        printf("%s: SKIP (no usable CUDA driver: status %d)\n", example, (int)status);
        exit(EXIT_NO_GPU);
    }
    if (count == 0) {
        printf("%s: SKIP (the driver sees no GPU)\n", example);
        exit(EXIT_NO_GPU);
    }
}

#endif
