/*
 * loader/ld_cache.c - the ld.so cache reader (see ld_cache.h): the file is mapped once per
 * search and every offset in it is checked against its size, so a cut or corrupt cache is
 * read as far as it is sound. Layer 2: calls file_open (1) and the platform seam (0: the environment).
 */
#define _GNU_SOURCE
#include "ld_cache.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_open.h"
#include "library_dirs.h" /* CUBIND__PLATFORM_LD_CACHE_FLAGS: the entries of this machine */
#include "platform.h"

static const char default_ld_cache[] = "/etc/ld.so.cache";

/* Compare `name` with the cache key at `key` (bounded by `end`) as ld.so orders its cache
 * (_dl_cache_libcmp, plain chars: runs of digits compare as numbers); a key running past
 * `end` compares below every name (the look-up never takes it). */
static int cache_compare(const char *name, const char *key, const char *end)
{
    while (*name != '\0') {
        if (key >= end)
            return 1;
        if (*name >= '0' && *name <= '9') {
            unsigned long a, b;
            if (!(*key >= '0' && *key <= '9'))
                return 1;
            a = (unsigned long)(*name++ - '0');
            b = (unsigned long)(*key++ - '0');
            while (*name >= '0' && *name <= '9')
                a = a * 10 + (unsigned long)(*name++ - '0');
            while (key < end && *key >= '0' && *key <= '9')
                b = b * 10 + (unsigned long)(*key++ - '0');
            if (a != b)
                return a < b ? -1 : 1;
        } else if (*key >= '0' && *key <= '9') {
            return -1;
        } else if (*name != *key) {
            return *name < *key ? -1 : 1;
        } else {
            ++name;
            ++key;
        }
    }
    return key >= end ? 1 : *key == '\0' ? 0 : 0 < *key ? -1 : 1;
}

static void cache_open(cubind__ld_cache *c)
{
    const char *file = cubind__getenv("CUBIND_LD_SO_CACHE");
    struct stat st;
    size_t off = 0;
    int fd;
    c->tried = 1;
    if (file == NULL)
        file = default_ld_cache;
    if (file[0] == '\0')
        return;
    fd = cubind__open_file(file, O_RDONLY, 0, CUBIND__FILE_REGULAR, &st); /* a FIFO: refused, never waited on */
    if (fd < 0)
        return;
    if (st.st_size < 48) {
        close(fd);
        return;
    }
    c->size = (size_t)st.st_size;
    c->map = mmap(NULL, c->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (c->map == MAP_FAILED) {
        c->map = NULL;
        return;
    }
    if (memcmp(c->map, "ld.so-1.7.0", 11) == 0) { /* the old format first: skip its entries */
        uint32_t old;
        memcpy(&old, c->map + 12, sizeof old);
        off = 16 + (size_t)old * 12;
        off = (off + 7) & ~(size_t)7;
    }
    if (off + 48 <= c->size && memcmp(c->map + off, "glibc-ld.so.cache1.1", 20) == 0) {
        uint32_t count;
        memcpy(&count, c->map + off + 20, sizeof count);
        c->base = off;
        c->entries = (c->size - off - 48) / 24;
        if ((size_t)count < c->entries)
            c->entries = count;
    }
}

void cubind__ld_cache_close(cubind__ld_cache *c)
{
    if (c->map != NULL)
        munmap((void *)c->map, c->size);
    c->map = NULL;
}

/* The string at offset `at` of the cache (from its header), or NULL when it does not end inside it. */
static const char *cache_string(const cubind__ld_cache *c, uint32_t at)
{
    size_t start = c->base + at;
    if (start < c->base || start >= c->size || memchr(c->map + start, 0, c->size - start) == NULL)
        return NULL;
    return (const char *)c->map + start;
}

/* cache_compare of `soname` and the key at offset `key`; a key outside the file compares below it. */
static int compare_key(const cubind__ld_cache *c, const char *soname, uint32_t key)
{
    if (c->base + key >= c->size)
        return 1;
    return cache_compare(soname, (const char *)c->map + c->base + key, (const char *)c->map + c->size);
}

/* Entry `index`'s name and absolute path, when it is a plain entry of this machine's kind; else 0. */
static int entry_of(const cubind__ld_cache *c, size_t index, const char **key_text, const char **value_text)
{
    const unsigned char *e = c->map + c->base + 48 + index * 24;
    int32_t flags;
    uint32_t key, value;
    uint64_t hwcap;
    memcpy(&flags, e, 4);
    memcpy(&key, e + 4, 4);
    memcpy(&value, e + 8, 4);
    memcpy(&hwcap, e + 16, 8);
    if (hwcap != 0) /* a glibc-hwcaps variant: the plain entry is for every machine */
        return 0;
    if ((flags & 0xff) != 0x03 && (flags & 0xff) != 0x01) /* FLAG_ELF_LIBC6, FLAG_ELF */
        return 0;
#ifdef CUBIND__PLATFORM_LD_CACHE_FLAGS
    if ((flags & 0xff00) != CUBIND__PLATFORM_LD_CACHE_FLAGS)
        return 0;
#endif
    *key_text = cache_string(c, key);
    *value_text = cache_string(c, value);
    return *key_text != NULL && *value_text != NULL && (*value_text)[0] == '/';
}

void cubind__ld_cache_each(cubind__ld_cache *c, const char *stem,
                           void (*each)(const char *name, const char *path, void *context), void *context)
{
    size_t i, n = strlen(stem);
    if (!c->tried)
        cache_open(c);
    if (c->map == NULL)
        return;
    for (i = 0; i < c->entries; ++i) {
        const char *key_text, *value_text;
        if (entry_of(c, i, &key_text, &value_text) && strncmp(key_text, stem, n) == 0 &&
            strncmp(key_text + n, ".so", 3) == 0 && (key_text[n + 3] == '\0' || key_text[n + 3] == '.'))
            each(key_text, value_text, context);
    }
}

/* The "glibc-ld.so.cache1.1" format, after the old one or alone; found by a binary search, as
 * ld.so finds it (the cache is sorted, descending, in _dl_cache_libcmp's order), then the entries
 * of that name in order. */
const char *cubind__ld_cache_lookup(cubind__ld_cache *c, const char *soname, char *out, size_t size)
{
    size_t left = 0, right, middle;
    if (!c->tried)
        cache_open(c);
    if (c->map == NULL || c->entries == 0)
        return NULL;
    right = c->entries;
    while (left < right) { /* the first entry not above `soname` */
        uint32_t key;
        middle = left + (right - left) / 2;
        memcpy(&key, c->map + c->base + 48 + middle * 24 + 4, sizeof key);
        if (compare_key(c, soname, key) < 0)
            left = middle + 1;
        else
            right = middle;
    }
    for (; left < c->entries; ++left) {
        const char *key_text, *value_text;
        uint32_t key;
        memcpy(&key, c->map + c->base + 48 + left * 24 + 4, 4);
        if (compare_key(c, soname, key) != 0)
            break; /* past the entries of this name */
        if (!entry_of(c, left, &key_text, &value_text) || strcmp(key_text, soname) != 0)
            continue;
        if (strlen(value_text) < size) {
            strcpy(out, value_text);
            return out;
        }
    }
    return NULL;
}
