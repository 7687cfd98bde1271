/*
 * bench/cufft_cubind.c - a cuFFT-only program through cubind: process start to the
 * first cufftGetVersion (bench/report.py, row g; its twin is bench/cufft_bare.c).
 * With an argument, it also prints where libcufft was found and what is mapped (row h).
 */
#include <stdio.h>

#include "cubind/cubind.h"
#include "maps.h"

int main(int argc, char **argv)
{
    int version = 0;
    struct cubind_library_info info = {.size = sizeof info};
    (void)argv;
    if (cubind_cufft_get_version(&version) != CUFFT_SUCCESS)
        return 1;
    if (argc > 1) {
        if (cubind_library_info(CUBIND_LIB_CUFFT, &info) == CUBIND_OK)
            printf("path: %s\nversion: %d\n", info.path, version);
        print_mapped_libraries();
    }
    return 0;
}
