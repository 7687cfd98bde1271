/*
 * bench/gpu/bench_gpu.h - what the GPU benchmarks share: CHECK, require_gpu and the exit codes
 * (examples/check.h, or bench/gpu/direct.h in the direct build) and a median.
 */
#ifndef CUBIND_BENCH_GPU_H
#define CUBIND_BENCH_GPU_H

#include <stdlib.h>

#ifdef CUBIND_BENCH_DIRECT
#include "direct.h"
#else
#include "check.h"
#endif

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (n >= 1); sorts v. */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

#endif
