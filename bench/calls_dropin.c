/*
 * bench/calls_dropin.c - the drop-in's call path, counted by callgrind (bench/report.py): a call by
 * NVIDIA's name, linked with libcubind-dropin (docs/dropin.md), against the same call renamed
 * (cubind_cublas_get_pointer_mode), both reaching the empty callee (bench/callee.c) that cubind
 * loads through CUBIND_CUBLAS_PATH. Each bench_* function makes `n` calls of one shape.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cubind/cubind.h"

/* NVIDIA's declaration (cublas_api.h: cublasGetPointerMode_v2), its types spelled as the callee's. */
int cublasGetPointerMode_v2(void *handle, int *mode);

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE void bench_dropin(long n)
{
    int mode;
    for (long i = 0; i < n; ++i)
        sink += cublasGetPointerMode_v2(NULL, &mode);
}

NOINLINE void bench_renamed(long n)
{
    cublasPointerMode_t mode;
    for (long i = 0; i < n; ++i)
        sink += cubind_cublas_get_pointer_mode(NULL, &mode);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    int mode;
    /* Both paths warm (the library loaded, the symbol resolved, the PLT slots bound) first. */
    if (cublasGetPointerMode_v2(NULL, &mode) != 0) {
        fprintf(stderr, "calls_dropin: %s\n", cubind_last_error()->message);
        return 1;
    }
    sink += cubind_cublas_get_pointer_mode(NULL, (cublasPointerMode_t *)&mode);
    bench_dropin(n);
    bench_renamed(n);
    return 0;
}
