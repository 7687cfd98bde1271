/* app.c - a program linking the installed static library fftlib (tests/embed/cmake) */
#include <stdio.h>

#include "fftlib.h"

int main(void)
{
    const char *message = "";
    int version = fftlib_cufft_version(&message);
    if (version < 0)
        printf("app: %s\n", message);
    else
        printf("app: cuFFT %d\n", version);
    return 0;
}
