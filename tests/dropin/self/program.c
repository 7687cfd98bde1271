/* tests/dropin/self/program.c LIBRARY VERSION - linked with the drop-in and cubind, calls the
 * version query of the library named LIBRARY by NVIDIA's name (-DQUERY), which the drop-in
 * forwards to cubind: cubind loads the library (found through CUBIND_<LIB>_PATH, the fixture
 * library.c), although the library calls its own export through the drop-in while it is loaded.
 * The query must answer VERSION, and the library's version must have been asked of its query. */
#include <stdio.h>
#include <stdlib.h>

#include <cubind/core.h>

int QUERY(int *version);

int main(int argc, char **argv)
{
    struct cubind_library_info info = {.size = sizeof info};
    cubind_library library;
    int version = -1, status;
    if (argc != 3)
        return 2;
    status = QUERY(&version);
    if (status != 0 || version != atoi(argv[2])) {
        printf("%s: the version query answered status %d, version %d: %s\n", argv[1], status, version,
               cubind_last_error()->message);
        return 1;
    }
    library = cubind_library_from_name(argv[1]);
    if (cubind_library_info(library, &info) != CUBIND_OK) {
        printf("%s: not loaded: %s\n", argv[1], cubind_last_error()->message);
        return 1;
    }
    printf("%s: version %s, %s\n", argv[1], info.version_text,
           info.version_origin == CUBIND_VERSION_ORIGIN_QUERY ? "asked of its query" : "not asked of its query");
    return info.version_origin == CUBIND_VERSION_ORIGIN_QUERY ? 0 : 1;
}
