/*
 * bench/calls_inline.c - the inline form's rows of bench/calls.c (this file is built with
 * CUBIND_INLINE, cubind/inline.h, and linked into the same program): the same calls as
 * bench_cubind and bench_fail_cubind, their hot path compiled here.
 */
#define CUBIND_INLINE
#include "cubind/cubind.h"

#define NOINLINE __attribute__((noinline))

void bench_cubind_inline(long n, volatile int *sink);
void bench_fail_cubind_inline(long n, volatile int *sink);

NOINLINE void bench_cubind_inline(long n, volatile int *sink)
{
    cublasPointerMode_t mode;
    for (long i = 0; i < n; ++i)
        *sink += cubind_cublas_get_pointer_mode(NULL, &mode);
}

NOINLINE void bench_fail_cubind_inline(long n, volatile int *sink)
{
    cublasMath_t mode;
    for (long i = 0; i < n; ++i)
        *sink += cubind_cublas_get_math_mode(NULL, &mode);
}
