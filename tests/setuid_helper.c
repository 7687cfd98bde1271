/*
 * tests/setuid_helper.c - linked with libcubind.a (no run path: a set-user-ID program gets no
 * $ORIGIN), made set-user-ID root and run as nobody by tests/test_hardening.c. Prints whether it
 * runs in secure mode (AT_SECURE) and where libcufft was found and by which discovery step.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/auxv.h>

#include "cubind/cubind.h"

int main(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    cubind_library_info(CUBIND_LIB_CUFFT, &info);
    printf("secure=%lu found=%d found_by=%s path=%s\nerror=%s\n", getauxval(AT_SECURE), info.found,
           info.found_by != NULL ? info.found_by : "-", info.path != NULL ? info.path : "-",
           info.error != NULL ? info.error : "-");
    return 0;
}
