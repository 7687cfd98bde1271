/* bench/embed_cufft.c - a program with the cuFFT-only amalgamation compiled in (bench/sizes.py):
 * one wrapper called, so that everything a real user of it keeps is linked. */
#include "cubind.h"

int main(void)
{
    int version = 0;
    return cubind_cufft_get_version(&version) == CUFFT_SUCCESS ? 0 : 1;
}
