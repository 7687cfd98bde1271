/*
 * bench/gpu/calls.c - what cubind costs on cheap real calls (issue 8, "On the GPU"): cublasSetStream,
 * cublasGetPointerMode and cudaStreamQuery (of an idle stream), `calls` times each, through cubind
 * and directly. This program is linked to libcublas and libcudart as well as to libcubind, and
 * cubind uses those loaded copies ("already loaded"): both paths reach the same functions.
 *
 * The headline is the mix: one loop whose every iteration makes the three calls once; 101 rounds
 * of 3334 iterations make the 10^6 cheap real calls on each path. It is measured through
 * the out-of-line wrappers and through their inline form (bench/gpu/calls_inline.c, built with
 * CUBIND_INLINE). Each function's own loop is the detail.
 *
 * Interleaved rounds in one process pinned to the CPU it started on: in round r each loop is timed
 * through cubind then directly (r even) or directly then through cubind (r odd); the warm-up rounds
 * before them are not kept. Short rounds (about a millisecond) keep the two paths of a round close
 * in time: with rounds of 10^6 calls (tens of milliseconds) the machine's drift between the two
 * halves of a round spread the rounds' ratios from 0.54 to 1.78, and the median moved from 0.99 to
 * 1.016 between runs of the same binaries. Prints a Markdown table: the median ns/call of each path, their
 * difference (the overhead cubind adds, ns/call) and the median over rounds of the per-round time
 * ratio cubind / direct (goal <= 1.01), with the rounds' smallest and largest ratio.
 *
 * Usage: calls [iterations per loop, default 3334] [rounds, default 101] [warm-up rounds, default 5]
 * Exit: 0 done, 1 a call did not return success, 77 no GPU/driver.
 */
#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu; clock_gettime */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "bench_gpu.h"
#include "calls.h"

enum { MAX_ROUNDS = 101 };

long calls = 3334L; /* iterations of each loop */
cublasHandle_t handle;
cudaStream_t stream;
cublasPointerMode_t mode;

LOOP(set_stream_cubind, cubind_cublas_set_stream(handle, stream))
LOOP(set_stream_direct, cublasSetStream(handle, stream))
LOOP(pointer_mode_cubind, cubind_cublas_get_pointer_mode(handle, &mode))
LOOP(pointer_mode_direct, cublasGetPointerMode(handle, &mode))
LOOP(stream_query_cubind, cubind_runtime_stream_query(stream))
LOOP(stream_query_direct, cudaStreamQuery(stream))
LOOP(mixed_cubind, cubind_cublas_set_stream(handle, stream) | cubind_cublas_get_pointer_mode(handle, &mode) |
                       cubind_runtime_stream_query(stream))
LOOP(mixed_direct, cublasSetStream(handle, stream) | cublasGetPointerMode(handle, &mode) | cudaStreamQuery(stream))

/* The mix first: the headline. calls_per_iteration: to give ns per call. */
static const struct {
    const char *name;
    int (*cubind)(void);
    int (*direct)(void);
    int calls_per_iteration;
} cases[] = {
    {"**the mix** (each iteration: the three below, once each)", mixed_cubind, mixed_direct, 3},
    {"**the mix, inline form** (`CUBIND_INLINE`: bench/gpu/calls_inline.c)", mixed_inline, mixed_direct, 3},
    {"cublasSetStream", set_stream_cubind, set_stream_direct, 1},
    {"cublasGetPointerMode", pointer_mode_cubind, pointer_mode_direct, 1},
    {"cudaStreamQuery", stream_query_cubind, stream_query_direct, 1},
    {"cublasSetStream, inline form", set_stream_inline, set_stream_direct, 1},
    {"cublasGetPointerMode, inline form", pointer_mode_inline, pointer_mode_direct, 1},
    {"cudaStreamQuery, inline form", stream_query_inline, stream_query_direct, 1},
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

static void row(int c, double *cubind, double *direct, double *ratio, int rounds)
{
    const double per = (double)calls * cases[c].calls_per_iteration;
    double lo = ratio[0], hi = ratio[0], r, cubind_ns, direct_ns;
    int i;
    for (i = 1; i < rounds; ++i) {
        lo = ratio[i] < lo ? ratio[i] : lo;
        hi = ratio[i] > hi ? ratio[i] : hi;
    }
    r = median(ratio, rounds);
    cubind_ns = median(cubind, rounds) / per;
    direct_ns = median(direct, rounds) / per;
    printf("| %s | %.2f | %.2f | %+.2f | %.4f | %.4f to %.4f | %s |\n", cases[c].name, cubind_ns, direct_ns,
           cubind_ns - direct_ns, r, lo, hi, r <= 1.01 ? "yes" : "**no**");
}

int main(int argc, char **argv)
{
    static double cubind_ns[CASES][MAX_ROUNDS], direct_ns[CASES][MAX_ROUNDS], ratio[CASES][MAX_ROUNDS];
    struct cubind_library_info cublas_info = {.size = sizeof cublas_info},
                               runtime_info = {.size = sizeof runtime_info};
    struct cudaDeviceProp prop;
    int rounds = 101, warmup = 5, round, c, count = 0, version = 0, cpu;
    char pinned[64];
    cpu_set_t set;

    setvbuf(stdout, NULL, _IOLBF, 0); /* the report and the diagnostics on stderr stay in order */
    if (argc > 1)
        calls = atol(argv[1]);
    if (argc > 2)
        rounds = atoi(argv[2]);
    if (argc > 3)
        warmup = atoi(argv[3]);
    if (calls < 1 || rounds < 1 || rounds > MAX_ROUNDS || warmup < 0) {
        fprintf(stderr, "usage: calls [iterations per loop >= 1] [rounds 1..%d] [warm-up rounds >= 0]\n",
                MAX_ROUNDS);
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

    /* This thread on one CPU, the one it is on: no migration between or within loops. Only now: the
     * threads CUDA started while setting up keep every CPU (pinned first, they shared this one). */
    cpu = sched_getcpu();
    CPU_ZERO(&set);
    if (cpu >= 0)
        CPU_SET(cpu, &set);
    if (cpu >= 0 && sched_setaffinity(0, sizeof set, &set) == 0)
        snprintf(pinned, sizeof pinned, "the timing thread pinned to CPU %d", cpu);
    else
        snprintf(pinned, sizeof pinned, "not pinned (sched_setaffinity failed)");

    for (round = -warmup; round < rounds; ++round) /* negative rounds: warm-up, not kept */
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
        }

    printf("%s; cuBLAS %d (%s, cubind: %s), CUDA runtime %s (cubind: %s); %ld iterations per loop (the mix: "
           "%ld calls a round, %ld on each path), %d rounds after %d of warm-up, cubind first in even rounds and "
           "direct first in odd ones; "
           "one process, %s; wall clock (CLOCK_MONOTONIC) around each loop. Overhead: the difference of the two "
           "medians; the ratio: the median of the rounds' ratios.\n\n",
           prop.name, version, cublas_info.soname, cublas_info.found_by, runtime_info.soname,
           runtime_info.found_by, calls, 3 * calls, 3 * calls * rounds, rounds, warmup, pinned);
    printf("| calls | cubind ns/call | direct ns/call | overhead ns/call | time ratio cubind / direct "
           "(median of rounds) | ratios (min to max) | ≤ 1.01 |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (c = 0; c < CASES; ++c)
        row(c, cubind_ns[c], direct_ns[c], ratio[c], rounds);
    printf("\nThe goal is the mix's: through the out-of-line wrappers (what an FFI calls) and through the inline "
           "form (C and C++ with CUBIND_INLINE). Each function alone is detail: on a call of a few ns "
           "(cublasGetPointerMode) a wrapper's fixed ~1 ns is a large fraction.\n");

    cublasDestroy(handle);
    cudaStreamDestroy(stream);
    return EXIT_PASS;
}
