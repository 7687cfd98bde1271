/*
 * bench/census.c - cubind_library_info's census of libcublas (the real library): the
 * library is loaded first, then bench_census is the first cubind_library_info, which
 * looks up every cuBLAS function cubind wraps (bench/report.py, row f).
 */
#include <stdio.h>

#include "cubind/cubind.h"

static struct cubind_library_info info;

__attribute__((noinline)) void bench_census(void)
{
    info.size = sizeof info; /* the caller says how much it has */
    cubind_library_info(CUBIND_LIB_CUBLAS, &info);
}

int main(void)
{
    if (cubind_load(CUBIND_LIB_CUBLAS) != CUBIND_OK) {
        fprintf(stderr, "census: %s\n", cubind_last_error()->message);
        return 1;
    }
    bench_census();
    printf("census: %s %s, %zu functions, %zu found, %zu missing\n", info.soname, info.path, info.functions,
           info.functions_found, info.functions_missing);
    return 0;
}
