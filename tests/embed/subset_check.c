/*
 * tests/embed/subset_check.c - a subset's library ids and the libraries it leaves out.
 *
 *   subset_check ids          every library id with its name: the same lines for the full
 *                             library and a subset (the Makefile compares them): ids are pinned
 *   subset_check absent LIB.. every library not named is reported absent (not part of the build) by
 *                             cubind_load and cubind_library_info, with no function; every one
 *                             named has its functions and is never reported so
 */
#include <stdio.h>
#include <string.h>

#include "cubind/cubind.h"

#define ABSENT "not part of this build of cubind"

static int named(const char *name, int argc, char **argv)
{
    int i;
    for (i = 2; i < argc; ++i)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

static int check_library(cubind_library lib, int kept)
{
    struct cubind_library_info info;
    const char *name = cubind_library_name(lib);
    cubind_error_kind loaded = cubind_load(lib);
    int load_says_absent = loaded != CUBIND_OK && strstr(cubind_last_error()->message, ABSENT) != NULL;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    cubind_library_info(lib, &info);
    if (kept && (load_says_absent || info.functions == 0 || (info.error != NULL && strstr(info.error, ABSENT)))) {
        fprintf(stderr, "subset_check: %s is in the build but reported absent or without functions\n", name);
        return 1;
    }
    if (!kept && !(load_says_absent && loaded == CUBIND_ERROR_LIBRARY_NOT_FOUND && info.functions == 0 &&
                   !info.found && info.error != NULL && strstr(info.error, ABSENT) != NULL)) {
        fprintf(stderr, "subset_check: %s is not in the build but cubind_load/cubind_library_info do not say so "
                        "(load %d, functions %zu, error %s)\n",
                name, (int)loaded, info.functions, info.error != NULL ? info.error : "(none)");
        return 1;
    }
    printf("%s: %s (%zu functions)\n", name, kept ? "in the build" : "absent", info.functions);
    return 0;
}

int main(int argc, char **argv)
{
    int lib, failed = 0;
    if (argc >= 2 && strcmp(argv[1], "ids") == 0) {
        for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib)
            printf("%d %s\n", lib, cubind_library_name((cubind_library)lib));
        return 0;
    }
    if (argc < 3 || strcmp(argv[1], "absent") != 0) {
        fprintf(stderr, "usage: subset_check ids | subset_check absent LIBRARY...\n");
        return 2;
    }
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib)
        failed |= check_library((cubind_library)lib, named(cubind_library_name((cubind_library)lib), argc, argv));
    return failed;
}
