/*
 * loader/opened.c - an opened library's own symbols, told from its dependencies' by the
 * address ranges of its loadable segments; its texts freed (see opened.h). Layer 2: calls the platform
 * seam (0) and libc only.
 */
#include "opened.h"

#include <stdlib.h>
#include <string.h>

void cubind__opened_free(cubind__opened *lib)
{
    free(lib->path);
    free(lib->loaded_by);
    free(lib->path_escaped);
    free(lib->real_path);
    free(lib->soname);
    free(lib->version_source);
    free(lib->version_detail);
    free(lib->version_text);
    memset(lib, 0, sizeof *lib);
}

void cubind__record_segments(cubind__opened *lib, const cubind__lib_facts *facts)
{
    lib->segments = facts->segment_count;
    memcpy(lib->segment, facts->segment, facts->segment_count * sizeof facts->segment[0]);
}

int cubind__owns(const cubind__opened *lib, const void *address)
{
    size_t i;
    if (lib->segments == 0) /* segments unknown: take what dlsym gives */
        return 1;
    for (i = 0; i < lib->segments; ++i)
        if ((uintptr_t)address - lib->segment[i].start < lib->segment[i].size)
            return 1;
    return 0;
}

cubind__fnptr cubind__own_symbol(const cubind__opened *lib, const char *symbol)
{
    void *address = cubind__lib_symbol(lib->handle, symbol);
    cubind__fnptr fn;
    if (address == NULL || !cubind__owns(lib, address))
        return NULL; /* absent, or exported by a dependency, not by this library */
    memcpy(&fn, &address, sizeof fn);
    return fn;
}
