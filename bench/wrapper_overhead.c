/*
 * bench/wrapper_overhead.c - what a cubind wrapper costs over calling the CUDA
 * function directly: the hot path is one atomic load, one test, one indirect
 * call and one status test.
 *
 * Calls cublasGetProperty of the real libcublas (host-only, no GPU needed)
 * N times directly through a dlsym'ed pointer and N times through
 * cubind_cublas_get_property, and prints nanoseconds per call for each, the
 * best of several rounds. Usage: wrapper_overhead [calls]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cubind/cubind.h"

typedef cublasStatus_t (*get_property_fn)(libraryPropertyType, int *);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 20000000L;
    struct cubind_library_info info = {.size = sizeof info};
    get_property_fn direct;
    void *handle, *symbol;
    double best_direct = 1e30, best_cubind = 1e30;
    volatile int sink = 0;
    int round, value = 0;
    long i;

    if (cubind_library_info(CUBIND_LIB_CUBLAS, &info) != CUBIND_OK) {
        fprintf(stderr, "libcublas not found: %s\n", cubind_last_error()->message);
        return 1;
    }
    handle = dlopen(info.path, RTLD_NOW | RTLD_NOLOAD);
    symbol = handle != NULL ? dlsym(handle, "cublasGetProperty") : NULL;
    if (symbol == NULL)
        return 1;
    memcpy(&direct, &symbol, sizeof direct);
    for (round = 0; round < 5; ++round) {
        double start = now(), per_call;
        for (i = 0; i < calls; ++i) {
            direct(MAJOR_VERSION, &value);
            sink += value;
        }
        per_call = (now() - start) / (double)calls;
        best_direct = per_call < best_direct ? per_call : best_direct;
        start = now();
        for (i = 0; i < calls; ++i) {
            cubind_cublas_get_property(MAJOR_VERSION, &value);
            sink += value;
        }
        per_call = (now() - start) / (double)calls;
        best_cubind = per_call < best_cubind ? per_call : best_cubind;
    }
    printf("cublasGetProperty (%s %s), %ld calls, best of 5 rounds:\n", info.soname,
           info.version_text != NULL ? info.version_text : "(version unknown)", calls);
    printf("  direct call through a dlsym pointer   %6.2f ns/call\n", best_direct);
    printf("  cubind_cublas_get_property            %6.2f ns/call\n", best_cubind);
    printf("  wrapper overhead                      %6.2f ns/call\n", best_cubind - best_direct);
    return sink == -1;
}
