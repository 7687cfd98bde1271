/*
 * bench/cufft_bare.c - the same as bench/cufft_cubind.c with a bare dlopen + dlsym of
 * the library file cubind found (argv[1]); with a second argument it prints what is mapped.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "maps.h"

int main(int argc, char **argv)
{
    int version = 0;
    int (*get_version)(int *);
    void *library = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    void *symbol = library != NULL ? dlsym(library, "cufftGetVersion") : NULL;
    if (symbol == NULL)
        return 1;
    memcpy(&get_version, &symbol, sizeof get_version);
    if (get_version(&version) != 0)
        return 1;
    if (argc > 2) {
        printf("version: %d\n", version);
        print_mapped_libraries();
    }
    return 0;
}
