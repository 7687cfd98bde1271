/* fft_only.c - a program that calls cuFFT only, through cubind::embedded (tests/embed/cmake) */
#include <stdio.h>

#include "cubind/cubind.h"

int main(void)
{
    int version = -1;
    if (cubind_cufft_get_version(&version) != CUFFT_SUCCESS)
        printf("fft_only: %s\n", cubind_last_error()->message);
    else
        printf("fft_only: cuFFT %d\n", version);
    return 0;
}
