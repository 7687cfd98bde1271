/*
 * tests/install_check.c - compiled against an installed cubind only (its include/ and lib/):
 * the public headers are self-contained and the library links with nothing else.
 */
#include <stdio.h>

#include "cubind/cubind.h"

int main(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    cubind_library_info(CUBIND_LIB_CUFFT, &info);
    printf("cubind %s: %s %s\n", cubind_version(), info.name, info.found ? "found" : "not found");
    return info.name != NULL ? 0 : 1;
}
