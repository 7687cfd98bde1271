/*
 * bench/calls.c - one call path per function, counted by callgrind (bench/report.py):
 * each bench_* function, called once, makes `n` calls of one shape, and its inclusive
 * instruction count divided by n is the cost of a call (loop included: compare rows). The callee is bench/callee.c (empty),
 * which this program links directly (the PLT row) and cubind loads through
 * CUBIND_CUBLAS_PATH; every path calls the same code.
 *
 *   calls N    the per-call rows: PLT, bare dlsym pointer, checked pointer, cubind, cubind's
 *              inline form (bench/calls_inline.c); failing calls without and with a handler, and
 *              through the inline form; first call of a second function.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/cubind.h"

/* The callee's own declarations (bench/callee.c), linked directly. */
int cublasGetPointerMode_v2(void *handle, int *mode);
int cublasGetMathMode(void *handle, int *mode);

typedef int (*get_mode_fn)(void *, int *);

#define NOINLINE __attribute__((noinline))

static void *library;
static get_mode_fn bare; /* dlsym'ed once, before the loop */
static volatile int sink;
static int sink_mode;

NOINLINE void bench_plt(long n)
{
    int mode;
    for (long i = 0; i < n; ++i)
        sink += cublasGetPointerMode_v2(NULL, &mode);
}

NOINLINE void bench_dlsym(long n)
{
    int mode;
    for (long i = 0; i < n; ++i)
        sink += bare(NULL, &mode);
}

/* The nvmath / cudarc shape: a pointer resolved on first use, tested on every call. */
static get_mode_fn checked_fn;
NOINLINE static int checked_get_pointer_mode(void *handle, int *mode)
{
    if (checked_fn == NULL) {
        void *symbol = dlsym(library, "cublasGetPointerMode_v2");
        memcpy(&checked_fn, &symbol, sizeof checked_fn);
    }
    if (checked_fn == NULL)
        return 1;
    return checked_fn(handle, mode);
}

NOINLINE void bench_checked(long n)
{
    int mode;
    for (long i = 0; i < n; ++i)
        sink += checked_get_pointer_mode(NULL, &mode);
}

NOINLINE void bench_cubind(long n)
{
    cublasPointerMode_t mode;
    for (long i = 0; i < n; ++i)
        sink += cubind_cublas_get_pointer_mode(NULL, &mode);
}

NOINLINE void bench_fail_direct(long n)
{
    int mode;
    for (long i = 0; i < n; ++i)
        sink += cublasGetMathMode(NULL, &mode);
}

NOINLINE void bench_fail_cubind(long n)
{
    cublasMath_t mode;
    for (long i = 0; i < n; ++i)
        sink += cubind_cublas_get_math_mode(NULL, &mode);
}

/* bench/calls_inline.c, built with CUBIND_INLINE. */
void bench_cubind_inline(long n, volatile int *sink);
void bench_fail_cubind_inline(long n, volatile int *sink);

static void handler(const cubind_error *error, void *user)
{
    (void)error;
    (void)user;
}

NOINLINE void bench_fail_handler(long n)
{
    cublasMath_t mode;
    for (long i = 0; i < n; ++i)
        sink += cubind_cublas_get_math_mode(NULL, &mode);
}

/* One call: the first of cublasSetPointerMode_v2, libcublas already loaded by the rows above. */
NOINLINE void bench_second_function(long n)
{
    (void)n;
    sink += cubind_cublas_set_pointer_mode(NULL, CUBLAS_POINTER_MODE_HOST);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    const char *path = getenv("CUBIND_CUBLAS_PATH");
    void *symbol;
    cublasPointerMode_t mode;
    cublasMath_t math;

    if (path == NULL || (library = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        fprintf(stderr, "calls: set CUBIND_CUBLAS_PATH to the bench callee (%s)\n", dlerror());
        return 1;
    }
    symbol = dlsym(library, "cublasGetPointerMode_v2");
    memcpy(&bare, &symbol, sizeof bare);
    /* Every path warm (resolved, loaded) before it is counted, but the second function's. */
    if (cubind_cublas_get_pointer_mode(NULL, &mode) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "calls: %s\n", cubind_last_error()->message);
        return 1;
    }
    cubind_cublas_get_math_mode(NULL, &math);
    sink += cublasGetPointerMode_v2(NULL, &sink_mode) + bare(NULL, &sink_mode) + cublasGetMathMode(NULL, &sink_mode);
    sink += checked_get_pointer_mode(NULL, &sink_mode);

    bench_plt(n);
    bench_dlsym(n);
    bench_checked(n);
    bench_cubind(n);
    bench_cubind_inline(n, &sink);
    bench_fail_direct(n);
    bench_fail_cubind(n);
    bench_fail_cubind_inline(n, &sink);
    cubind_set_error_handler(handler, NULL);
    bench_fail_handler(n);
    cubind_set_error_handler(NULL, NULL);
    bench_second_function(1);
    printf("calls: %ld of each; status of the failing call: %s\n", n, cubind_last_error()->status_name);
    return 0;
}
