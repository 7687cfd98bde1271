/* fftlib.c - calls one cuFFT wrapper of cubind, nothing else (tests/embed/cmake) */
#include "fftlib.h"

#include "cubind/cubind.h"

int fftlib_cufft_version(const char **message)
{
    int version = -1;
    if (cubind_cufft_get_version(&version) != CUFFT_SUCCESS) {
        *message = cubind_last_error()->message;
        return -1;
    }
    *message = "";
    return version;
}
