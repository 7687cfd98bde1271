/*
 * tests/consumers/consumer.c - a C program built against an installed cubind only, through
 * pkg-config and through CMake (find_package(cubind): cubind::cubind and cubind::cubind_static).
 *
 * Prints what every consumer (consumer.lua, consumer_cffi.py, ctypes_example.py, consumer.rs)
 * prints, line for line: every library cubind knows (from CUBIND_LIBRARY_COUNT and
 * cubind_library_name) with what cubind_library_info says of it, then the error record of a
 * call into cuRAND, whose library the test makes missing (CUBIND_CURAND_PATH names no file).
 * run.sh compares the outputs.
 */
#include <stdio.h>

#include "cubind/cubind.h"

int main(void)
{
    int lib, version = 0;
    const cubind_error *e;
    curandStatus_t status;

    printf("cubind %s, %d libraries\n", cubind_version(), (int)CUBIND_LIBRARY_COUNT);
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        struct cubind_library_info info = {.size = sizeof info}; /* the caller says how much it has */
        cubind_error_kind kind = cubind_library_info((cubind_library)lib, &info);
        printf("%s: kind %d found %d soname %s version %s functions %zu missing %zu\n",
               cubind_library_name((cubind_library)lib), (int)kind, info.found,
               info.soname != NULL ? info.soname : "-", info.version_text != NULL ? info.version_text : "-",
               info.functions, info.functions_missing);
    }
    cubind_clear_error();
    status = cubind_curand_get_version(&version);
    e = cubind_last_error();
    printf("curandGetVersion: status %d kind %d library %s function %s status_name %s message %s\n",
           (int)status, (int)e->kind, e->library_name, e->function, e->status_name, e->message);
    return 0;
}
