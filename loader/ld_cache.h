/*
 * loader/ld_cache.h - the ld.so cache, read as ld.so reads it, for the system loader's search.
 * Layer 2: includes no loader header.
 */
#ifndef CUBIND_LOADER_LD_CACHE_H
#define CUBIND_LOADER_LD_CACHE_H

#include <stddef.h>

/* The cache of one search: mapped on its first look-up, unmapped by cubind__ld_cache_close.
 * Start it as {0}. */
typedef struct cubind__ld_cache {
    int tried;
    const unsigned char *map;
    size_t size;    /* of the mapping */
    size_t base;    /* offset of the "glibc-ld.so.cache1.1" header: string offsets count from it */
    size_t entries; /* whole entries in the file */
} cubind__ld_cache;

/* The cache's entry for `soname` (this machine's kind of library, no glibc-hwcaps variant), an
 * absolute path copied to `out` (`size` bytes), or NULL. The cache is $CUBIND_LD_SO_CACHE when
 * set ("" for none), else /etc/ld.so.cache; opened on the first look-up. */
const char *cubind__ld_cache_lookup(cubind__ld_cache *cache, const char *soname, char *out, size_t size);

/* Every entry of the cache (this machine's kind, no glibc-hwcaps variant) whose name is `stem`
 * followed by ".so" and nothing or a dot: `each(name, path, context)` with its absolute path, in
 * the cache's order (newest version first). Opens the cache as cubind__ld_cache_lookup does. */
void cubind__ld_cache_each(cubind__ld_cache *cache, const char *stem,
                           void (*each)(const char *name, const char *path, void *context), void *context);

void cubind__ld_cache_close(cubind__ld_cache *cache);

#endif /* CUBIND_LOADER_LD_CACHE_H */
