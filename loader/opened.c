/*
 * loader/opened.c - an opened library's own symbols, told from its dependencies' by the
 * address ranges of its PT_LOAD segments; its texts freed (see opened.h). Layer 2: calls the dynamic
 * loader and libc only.
 */
#define _GNU_SOURCE
#include "opened.h"

#include <dlfcn.h>
#include <link.h>
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

/* dl_iterate_phdr callback: the PT_LOAD segments of the object whose link map is `data`'s map. */
static int record_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    cubind__opened *lib = data;
    const struct link_map *map = lib->map;
    size_t i;
    (void)size;
    if (info->dlpi_addr != map->l_addr || strcmp(info->dlpi_name, map->l_name != NULL ? map->l_name : "") != 0)
        return 0;
    for (i = 0; i < info->dlpi_phnum && lib->segments < sizeof lib->segment / sizeof lib->segment[0]; ++i) {
        if (info->dlpi_phdr[i].p_type != PT_LOAD)
            continue;
        lib->segment[lib->segments].start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        lib->segment[lib->segments].end = lib->segment[lib->segments].start + info->dlpi_phdr[i].p_memsz;
        lib->segments++;
    }
    return 1;
}

void cubind__record_segments(cubind__opened *lib)
{
    dl_iterate_phdr(record_segments, lib);
}

int cubind__owns(const cubind__opened *lib, const void *address)
{
    size_t i;
    if (lib->segments == 0) /* segments unknown: take what dlsym gives */
        return 1;
    for (i = 0; i < lib->segments; ++i)
        if ((uintptr_t)address >= lib->segment[i].start && (uintptr_t)address < lib->segment[i].end)
            return 1;
    return 0;
}

cubind__fnptr cubind__own_symbol(const cubind__opened *lib, const char *symbol)
{
    void *address;
    cubind__fnptr fn;
    dlerror();
    address = dlsym(lib->handle, symbol);
    if (address == NULL || !cubind__owns(lib, address))
        return NULL; /* absent, or exported by a dependency, not by this library */
    memcpy(&fn, &address, sizeof fn);
    return fn;
}
