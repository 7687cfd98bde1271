/* two_libraries.c - calls cuFFT and cuBLAS through a subset of those two (tests/embed/subset_from_ir.sh) */
#include <stdio.h>

#ifdef AMALGAMATION
#include "cubind.h" /* the amalgamation's header */
#else
#include "cubind/cubind.h"
#endif

int main(void)
{
    int fft = -1;
    int blas = -1;
    if (cubind_cufft_get_version(&fft) != CUFFT_SUCCESS) {
        printf("two_libraries: %s\n", cubind_last_error()->message);
        return 1;
    }
    if (cubind_cublas_get_property(MAJOR_VERSION, &blas) != CUBLAS_STATUS_SUCCESS) {
        printf("two_libraries: %s\n", cubind_last_error()->message);
        return 1;
    }
    printf("two_libraries: cuFFT and cuBLAS called; CUBIND_LIBRARY_COUNT %d\n", (int)CUBIND_LIBRARY_COUNT);
    return 0;
}
