/*
 * bench/gpu/calls.c - what cubind costs on cheap real calls (issue 8, "On the GPU"): cublasSetStream,
 * cublasGetPointerMode and cudaStreamQuery (of an idle stream), `calls` times each, through cubind
 * and directly. This program is linked to libcublas and libcudart as well as to libcubind, and
 * cubind uses those loaded copies ("already loaded"): both paths reach the same functions.
 *
 * Interleaved rounds in one process: in round r each call is timed through cubind then directly
 * (r even) or directly then through cubind (r odd); one round before them is warm-up. Prints a
 * Markdown table: the median ns/call of each path and the median over rounds of the per-round time
 * ratio cubind / direct (goal <= 1.01).
 *
 * Usage: calls [calls per loop, default 1000000] [rounds, default 11]
 * Exit: 0 done, 1 a call did not return success, 77 no GPU/driver.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "bench_gpu.h"

#define NOINLINE __attribute__((noinline))

enum { MAX_ROUNDS = 101 };

static long calls = 1000000L;
static cublasHandle_t handle;
static cudaStream_t stream;
static cublasPointerMode_t mode;

/* One loop of `calls` calls; returns the statuses or'ed together (0: every call succeeded). */
#define LOOP(name, call)                                                                                     \
    NOINLINE static int name(void)                                                                           \
    {                                                                                                        \
        int bad = 0;                                                                                         \
        for (long i = 0; i < calls; ++i)                                                                     \
            bad |= (int)(call);                                                                              \
        return bad;                                                                                          \
    }
LOOP(set_stream_cubind, cubind_cublas_set_stream(handle, stream))
LOOP(set_stream_direct, cublasSetStream(handle, stream))
LOOP(pointer_mode_cubind, cubind_cublas_get_pointer_mode(handle, &mode))
LOOP(pointer_mode_direct, cublasGetPointerMode(handle, &mode))
LOOP(stream_query_cubind, cubind_runtime_stream_query(stream))
LOOP(stream_query_direct, cudaStreamQuery(stream))

static const struct {
    const char *name;
    int (*cubind)(void);
    int (*direct)(void);
} cases[] = {
    {"cublasSetStream", set_stream_cubind, set_stream_direct},
    {"cublasGetPointerMode", pointer_mode_cubind, pointer_mode_direct},
    {"cudaStreamQuery", stream_query_cubind, stream_query_direct},
};
enum { CASES = sizeof cases / sizeof cases[0] };

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Runs `loop` once; returns its time in ns; exits if a call failed. */
static double timed(int (*loop)(void), const char *name, const char *path)
{
    double start = now_ns(), elapsed;
    int bad = loop();
    elapsed = now_ns() - start;
    if (bad != 0) {
        fprintf(stderr, "FAIL (CUDA error): %s through %s returned %d (or'ed statuses)\n", name, path, bad);
        exit(EXIT_ERROR);
    }
    return elapsed;
}

static void row(const char *name, double *cubind, double *direct, double *ratio, int rounds)
{
    double lo = ratio[0], hi = ratio[0], r;
    int i;
    for (i = 1; i < rounds; ++i) {
        lo = ratio[i] < lo ? ratio[i] : lo;
        hi = ratio[i] > hi ? ratio[i] : hi;
    }
    r = median(ratio, rounds);
    printf("| %s | %.2f | %.2f | %.4f | %.4f to %.4f | %s |\n", name, median(cubind, rounds) / (double)calls,
           median(direct, rounds) / (double)calls, r, lo, hi, r <= 1.01 ? "yes" : "**no**");
}

int main(int argc, char **argv)
{
    static double cubind_ns[CASES + 1][MAX_ROUNDS], direct_ns[CASES + 1][MAX_ROUNDS], ratio[CASES + 1][MAX_ROUNDS];
    struct cubind_library_info cublas_info = {.size = sizeof cublas_info},
                               runtime_info = {.size = sizeof runtime_info};
    struct cudaDeviceProp prop;
    int rounds = 11, round, c, count = 0, version = 0;

    setvbuf(stdout, NULL, _IOLBF, 0); /* the report and the diagnostics on stderr stay in order */
    if (argc > 1)
        calls = atol(argv[1]);
    if (argc > 2)
        rounds = atoi(argv[2]);
    if (calls < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: calls [calls per loop >= 1] [rounds 1..%d]\n", MAX_ROUNDS);
        return EXIT_ERROR;
    }
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("calls: SKIP (no GPU/driver)\n");
        return EXIT_NO_GPU;
    }
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess || cudaStreamCreate(&stream) != cudaSuccess ||
        cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS || cublasGetVersion(handle, &version) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "FAIL (CUDA error): setting up the device, the stream or the cuBLAS handle\n");
        return EXIT_ERROR;
    }
    /* Load both libraries through cubind now: their first call stays out of the rounds too. */
    if (cubind_library_info(CUBIND_LIB_CUBLAS, &cublas_info) != CUBIND_OK ||
        cubind_library_info(CUBIND_LIB_RUNTIME, &runtime_info) != CUBIND_OK) {
        print_error("cubind did not find libcublas or libcudart");
        return EXIT_ERROR;
    }

    for (round = -1; round < rounds; ++round) /* round -1: warm-up, not kept */
        for (c = 0; c < CASES; ++c) {
            double t_cubind, t_direct;
            if (round % 2 == 0) {
                t_cubind = timed(cases[c].cubind, cases[c].name, "cubind");
                t_direct = timed(cases[c].direct, cases[c].name, "the direct call");
            } else {
                t_direct = timed(cases[c].direct, cases[c].name, "the direct call");
                t_cubind = timed(cases[c].cubind, cases[c].name, "cubind");
            }
            if (round < 0)
                continue;
            cubind_ns[c][round] = t_cubind;
            direct_ns[c][round] = t_direct;
            ratio[c][round] = t_cubind / t_direct;
            cubind_ns[CASES][round] += t_cubind; /* the "all three" row: the round's sums */
            direct_ns[CASES][round] += t_direct;
        }
    for (round = 0; round < rounds; ++round)
        ratio[CASES][round] = cubind_ns[CASES][round] / direct_ns[CASES][round];

    printf("%s; cuBLAS %d (%s, cubind: %s), CUDA runtime %s (cubind: %s); %ld calls per loop, %d rounds after "
           "one of warm-up, cubind first in even rounds and direct first in odd ones; wall clock "
           "(CLOCK_MONOTONIC) around each loop.\n\n",
           prop.name, version, cublas_info.soname, cublas_info.found_by, runtime_info.soname,
           runtime_info.found_by, calls, rounds);
    printf("| call | cubind ns/call | direct ns/call | time ratio cubind / direct (median of rounds) | "
           "ratios (min to max) | ≤ 1.01 |\n");
    printf("|---|---|---|---|---|---|\n");
    for (c = 0; c < CASES; ++c)
        row(cases[c].name, cubind_ns[c], direct_ns[c], ratio[c], rounds);
    row("all three (per-round sums)", cubind_ns[CASES], direct_ns[CASES], ratio[CASES], rounds);

    cublasDestroy(handle);
    cudaStreamDestroy(stream);
    return EXIT_PASS;
}
