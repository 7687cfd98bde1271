/* tests/dropin/self/program.c LIBRARY - linked with the drop-in and cubind, the library named
 * LIBRARY (found through CUBIND_<LIB>_PATH, the fixture library.c) must load with its version
 * asked of its query, although its version init calls its own export through the drop-in. */
#include <stdio.h>

#include <cubind/core.h>

int main(int argc, char **argv)
{
    struct cubind_library_info info = {.size = sizeof info};
    cubind_library library;
    if (argc != 2)
        return 2;
    library = cubind_library_from_name(argv[1]);
    if (cubind_library_info(library, &info) != CUBIND_OK) {
        printf("%s: not loaded: %s\n", argv[1], cubind_last_error()->message);
        return 1;
    }
    printf("%s: version %s, %s\n", argv[1], info.version_text,
           info.version_origin == CUBIND_VERSION_ORIGIN_QUERY ? "asked of its query" : "not asked of its query");
    return info.version_origin == CUBIND_VERSION_ORIGIN_QUERY ? 0 : 1;
}
