/*
 * loader/discovery.c - the README's discovery order, first hit wins, absolute
 * paths only:
 *   1. the path or handle given through the API;  2. CUBIND_<LIB>_PATH;
 *   3. a copy already loaded, newest soname first: the loaded objects are walked
 *      (dl_iterate_phdr; their DT_SONAME, or the file name they were loaded by), and
 *      only a soname found there is asked of dlopen (RTLD_NOLOAD), so that a soname
 *      not loaded costs no search of the file system;
 *   4. the system loader's search by soname, newest first, done here so that every
 *      file is checked before dlopen and known by an absolute path: the search path
 *      the dynamic loader reports (LD_LIBRARY_PATH, rpath; relative and empty entries,
 *      which mean the working directory, are skipped), the ld.so cache (read once per
 *      search, and only when the search path missed; looked up as ld.so does, by a
 *      binary search), the system directories;
 *   5. $CUDA_PATH, $CUDA_HOME, $CONDA_PREFIX, /usr/local/cuda with lib64, lib,
 *      targets/<arch>/lib.
 * An explicit choice (1 or 2) that fails is final. Every attempt that fails is written
 * to `why`, so a failure lists each path tried and what the system said; the text is
 * written only for what failed (a load that succeeds formats nothing). A path is
 * looked at before dlopen: directories, FIFOs and devices, ELF files cut short or
 * built for another machine are refused with the reason (dlopen would block, die of
 * SIGBUS, or say "No such file or directory"), and so is a file whose DT_SONAME is
 * not of the library's soname family (libcublasLt.so.13 given as libcublas). The file
 * is opened once for these checks (its headers, dynamic section and soname read with
 * one pread each), and its real path is read from that descriptor.
 * Environment variables are read with secure_getenv: a set-user-ID or set-group-ID
 * program ignores them.
 */
#define _GNU_SOURCE
#include "discovery.h"
#include "elf_check.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cubind/cubind.h"

#if defined(__x86_64__)
static const char target_dirs[][32] = {"targets/x86_64-linux/lib"};
#elif defined(__aarch64__)
static const char target_dirs[][32] = {"targets/sbsa-linux/lib", "targets/aarch64-linux/lib"};
#else
static const char target_dirs[][32] = {"lib"};
#endif

/* Arrays of arrays, not of pointers: nothing here is relocated at start-up. */
static const char root_vars[][16] = {"CUDA_PATH", "CUDA_HOME", "CONDA_PREFIX"};
static const char default_root[] = "/usr/local/cuda";

#if defined(__x86_64__)
#define CACHE_ARCH_FLAGS 0x0300 /* FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
#define CACHE_ARCH_FLAGS 0x0a00 /* FLAG_AARCH64_LIB64 */
#endif
static const char default_ld_cache[] = "/etc/ld.so.cache";
static const char system_dirs[][32] = {
#if defined(__x86_64__)
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
#elif defined(__aarch64__)
    "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64",
#endif
    "/lib", "/usr/lib"};

/* What a discovery run learned beside the handle, for cubind__open: the answer of the version
 * query when it was asked to accept or refuse the file (so it is asked once), and the real path
 * of the file it opened, read from the descriptor of its checks. */
struct found {
    void *query_handle; /* the handle the query was asked of; NULL when not asked */
    void *query_address;
    int query_failed, status, version[3];
    char real_path[PATH_MAX]; /* "" when unknown */
};

const char *cubind__getenv(const char *name)
{
    return secure_getenv(name);
}

/* cubind__strbuf_escaped, a run of printable characters at a time (it appends a character at a time). */
static void append_escaped(cubind__strbuf *why, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    while (*p != '\0') {
        const unsigned char *run = p;
        size_t n;
        while (*p != '\\' && (n = cubind__printable_length(p)) > 0)
            p += n;
        if (p > run)
            cubind__strbuf_printf(why, "%.*s", (int)(p - run), (const char *)run);
        if (*p != '\0') {
            cubind__strbuf_printf(why, "\\x%02x", *p);
            ++p;
        }
    }
}

/* A copy of `text` escaped as cubind__strbuf_escaped does, or NULL when out of memory. */
static char *escaped_copy(const char *text)
{
    cubind__strbuf escaped = {0};
    const unsigned char *p;
    for (p = (const unsigned char *)text; *p >= 0x20 && *p < 0x7f && *p != '\\'; ++p)
        ;
    if (*p == '\0') /* printable ASCII: nothing to escape */
        return strdup(text);
    append_escaped(&escaped, text);
    return escaped.failed ? (cubind__strbuf_free(&escaped), (char *)NULL) : cubind__strbuf_take(&escaped);
}

/* Append dlerror's text, escaped (it repeats paths, which may hold any byte). */
static void dl_reason(cubind__strbuf *why)
{
    const char *reason = dlerror();
    append_escaped(why, reason != NULL ? reason : "unknown dlopen error");
}

int cubind__soname_in_family(const cubind__library_desc *d, const char *soname)
{
    size_t i;
    for (i = 0; i < d->soname_count; ++i) {
        const char *so = strstr(d->sonames[i], ".so");
        size_t stem = so != NULL ? (size_t)(so - d->sonames[i]) + 3 : strlen(d->sonames[i]);
        if (strcmp(soname, d->sonames[i]) == 0)
            return 1;
        /* the same name with another version: "libcublas.so", "libcublas.so.14" */
        if (strncmp(soname, d->sonames[i], stem) == 0 && (soname[stem] == '\0' || soname[stem] == '.'))
            return 1;
    }
    return 0;
}

/* "... is libcublasLt.so.13, not libcublas" when `soname` is not of d's family; a file
 * without DT_SONAME (NULL) cannot be told to be the library and is refused too. */
static int check_family(const cubind__library_desc *d, const char *soname, cubind__strbuf *why)
{
    size_t i;
    if (soname == NULL) {
        cubind__strbuf_printf(why, ": has no DT_SONAME, so it cannot be told to be %s", d->file);
        return -1;
    }
    if (cubind__soname_in_family(d, soname))
        return 0;
    cubind__strbuf_printf(why, ": is ");
    append_escaped(why, soname);
    cubind__strbuf_printf(why, ", not %s (its DT_SONAME is none of", d->file);
    for (i = 0; i < d->soname_count; ++i)
        cubind__strbuf_printf(why, "%s %s", i ? "," : "", d->sonames[i]);
    cubind__strbuf_printf(why, " or another version of them)");
    return -1;
}

static const char *file_type(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a file";
}

/* 1 (after saying why and closing the handle) when the file answers its version query with a status
 * that says it is not the library: the driver's link-time stub answers CUDA_ERROR_STUB_LIBRARY. The
 * answer is kept in `found` for read_version, which does not ask again. */
static int refused(const cubind__library_desc *d, void *handle, cubind__strbuf *why, struct found *found)
{
    void *address;
    size_t i;
    cubind__fnptr query;
    found->query_handle = NULL;
    if (d->refused_count == 0 || d->version_query_name[0] == '\0')
        return 0;
    address = dlsym(handle, d->version_query_name);
    if (address == NULL)
        return 0;
    memcpy(&query, &address, sizeof query);
    found->query_handle = handle;
    found->query_address = address;
    found->status = 0;
    found->version[0] = found->version[1] = found->version[2] = -1;
    found->query_failed = cubind__version_query(d->library, query, found->version, &found->status) != 0;
    if (!found->query_failed)
        return 0;
    for (i = 0; i < d->refused_count; ++i) {
        if (found->status == d->refused_statuses[i]) {
            const char *name = cubind_status_name(cubind_library_from_name(d->name), found->status);
            cubind__strbuf_printf(why, ": refused, %s answers %s (%d): %s", d->version_query_name,
                                  name != NULL ? name : "a status", found->status, d->refusal_reasons[i]);
            found->query_handle = NULL;
            dlclose(handle);
            return 1;
        }
    }
    return 0;
}

/* The path of the open file `fd` as the kernel knows it (symbolic links resolved), into
 * found->real_path; "" when /proc cannot tell (not mounted, the file deleted). */
static void real_path_of(int fd, struct found *found)
{
    char link[32] = "/proc/self/fd/", digits[16];
    size_t n = 0, at = strlen(link);
    ssize_t got;
    unsigned value = (unsigned)fd;
    do
        digits[n++] = (char)('0' + value % 10);
    while ((value /= 10) != 0 && n < sizeof digits);
    while (n > 0)
        link[at++] = digits[--n];
    link[at] = '\0';
    found->real_path[0] = '\0';
    got = readlink(link, found->real_path, sizeof found->real_path - 1);
    if (got <= 0 || (size_t)got >= sizeof found->real_path - 1 || found->real_path[0] != '/') {
        found->real_path[0] = '\0';
        return;
    }
    found->real_path[got] = '\0';
    if (got >= 10 && strcmp(found->real_path + got - 10, " (deleted)") == 0)
        found->real_path[0] = '\0';
}

/* dlopen an absolute path after looking at it. On failure `prefix`, `more`, the path (escaped)
 * and the reason are appended to `why`; nothing is written when it loads. */
static void *open_path(const cubind__library_desc *d, const char *path, const char *prefix, const char *more,
                       cubind__strbuf *why, struct found *found)
{
    struct stat st;
    cubind__strbuf reason = {0};
    void *handle = NULL;
    char soname[256];
    int has_soname = -1, go = 0;
    found->real_path[0] = '\0';
    if (stat(path, &st) != 0) {
        cubind__strbuf_printf(&reason, ": %s", strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        cubind__strbuf_printf(&reason, ": is a directory");
    } else if (!S_ISREG(st.st_mode)) { /* dlopen of a FIFO would wait for a writer */
        cubind__strbuf_printf(&reason, ": not a regular file (%s)", file_type(st.st_mode));
    } else {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        go = 1; /* a file that cannot be opened: dlopen says why */
        if (fd >= 0) {
            go = cubind__inspect_elf(fd, st.st_size, soname, sizeof soname, &has_soname, &reason) == 0;
            if (go)
                real_path_of(fd, found);
            close(fd);
        }
        /* before dlopen: a wrong library's constructors never run; a file whose soname cannot be
         * read is not an ELF file dlopen takes, and it says why */
        if (go && has_soname >= 0)
            go = check_family(d, has_soname ? soname : NULL, &reason) == 0;
    }
    if (go) {
        handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            cubind__strbuf_printf(&reason, ": ");
            dl_reason(&reason);
        } else if (refused(d, handle, &reason, found)) {
            handle = NULL;
        } else {
            struct link_map *map = NULL; /* the real path is of this file only when dlopen loaded it by this name */
            if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL || map->l_name == NULL ||
                strcmp(map->l_name, path) != 0)
                found->real_path[0] = '\0';
        }
    }
    if (handle == NULL) {
        found->real_path[0] = '\0';
        cubind__strbuf_printf(why, "%s%s", prefix, more);
        append_escaped(why, path);
        cubind__strbuf_printf(why, "%s", cubind__strbuf_str(&reason));
    }
    cubind__strbuf_free(&reason);
    return handle;
}

/* `dir`/`name` (and /`name2` when not NULL) in `buffer` (`size` bytes), or, when it does not fit, in
 * `spill` (the system then says "File name too long" of it). Returns the path. */
static const char *join_path(char *buffer, size_t size, cubind__strbuf *spill, const char *dir, const char *name,
                             const char *name2)
{
    size_t a = strlen(dir), b = strlen(name), c = name2 != NULL ? strlen(name2) : 0;
    if (a + b + c + 3 > size) {
        if (name2 != NULL)
            cubind__strbuf_printf(spill, "%s/%s/%s", dir, name, name2);
        else
            cubind__strbuf_printf(spill, "%s/%s", dir, name);
        return cubind__strbuf_str(spill);
    }
    memcpy(buffer, dir, a);
    buffer[a] = '/';
    memcpy(buffer + a + 1, name, b + 1);
    if (name2 != NULL) {
        buffer[a + 1 + b] = '/';
        memcpy(buffer + a + 2 + b, name2, c + 1);
    }
    return buffer;
}

static void *try_root(const cubind__library_desc *d, const char *root, cubind__strbuf *why, struct found *found)
{
    const char *subdirs[2 + sizeof target_dirs / sizeof target_dirs[0]];
    size_t nsub = 0, i, j, absent = 0;
    subdirs[nsub++] = "lib64";
    subdirs[nsub++] = "lib";
    for (i = 0; i < sizeof target_dirs / sizeof target_dirs[0]; ++i)
        subdirs[nsub++] = target_dirs[i];
    for (i = 0; i < nsub; ++i) {
        for (j = 0; j < d->soname_count; ++j) {
            cubind__strbuf spill = {0};
            char buffer[PATH_MAX];
            struct stat st;
            void *handle;
            const char *path = join_path(buffer, sizeof buffer, &spill, root, subdirs[i], d->sonames[j]);
            if (lstat(path, &st) != 0 && errno == ENOENT) {
                cubind__strbuf_free(&spill);
                absent++; /* absent files are listed together below */
                continue;
            }
            handle = open_path(d, path, "; ", "", why, found);
            cubind__strbuf_free(&spill);
            if (handle != NULL)
                return handle;
        }
    }
    if (absent > 0) {
        cubind__strbuf_printf(why, "; ");
        append_escaped(why, root);
        cubind__strbuf_printf(why, "/{");
        for (i = 0; i < nsub; ++i)
            cubind__strbuf_printf(why, "%s%s", i ? "," : "", subdirs[i]);
        cubind__strbuf_printf(why, "}/{");
        for (j = 0; j < d->soname_count; ++j)
            cubind__strbuf_printf(why, "%s%s", j ? "," : "", d->sonames[j]);
        cubind__strbuf_printf(why, "}: %s", absent == nsub * d->soname_count ? "none present" : "the others absent");
    }
    return NULL;
}

/* The ld.so cache, mapped on the first look-up of a search and unmapped at its end. */
struct ld_cache {
    int tried;
    const unsigned char *map;
    size_t size;    /* of the mapping */
    size_t base;    /* offset of the "glibc-ld.so.cache1.1" header: string offsets count from it */
    size_t entries; /* whole entries in the file */
};

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

static void cache_open(struct ld_cache *c)
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
    fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 48) {
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

static void cache_close(struct ld_cache *c)
{
    if (c->map != NULL)
        munmap((void *)c->map, c->size);
    c->map = NULL;
}

/* The string at offset `at` of the cache (from its header), or NULL when it does not end inside it. */
static const char *cache_string(const struct ld_cache *c, uint32_t at)
{
    size_t start = c->base + at;
    if (start < c->base || start >= c->size || memchr(c->map + start, 0, c->size - start) == NULL)
        return NULL;
    return (const char *)c->map + start;
}

/* cache_compare of `soname` and the key at offset `key`; a key outside the file compares below it. */
static int compare_key(const struct ld_cache *c, const char *soname, uint32_t key)
{
    if (c->base + key >= c->size)
        return 1;
    return cache_compare(soname, (const char *)c->map + c->base + key, (const char *)c->map + c->size);
}

/* The ld.so cache's entry for `soname` (this machine's kind of library, no glibc-hwcaps
 * variant), or NULL; the text is copied to `out`. Reads the "glibc-ld.so.cache1.1" format,
 * after the old one or alone; found by a binary search, as ld.so finds it (the cache is sorted,
 * descending, in _dl_cache_libcmp's order), then the entries of that name in order. */
static const char *cache_lookup(struct ld_cache *c, const char *soname, char *out, size_t size)
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
        const unsigned char *e = c->map + c->base + 48 + left * 24;
        const char *key_text, *value_text;
        int32_t flags;
        uint32_t key, value;
        uint64_t hwcap;
        memcpy(&flags, e, 4);
        memcpy(&key, e + 4, 4);
        memcpy(&value, e + 8, 4);
        memcpy(&hwcap, e + 16, 8);
        if (compare_key(c, soname, key) != 0)
            break; /* past the entries of this name */
        if (hwcap != 0) /* a glibc-hwcaps variant: the plain entry is for every machine */
            continue;
        if ((flags & 0xff) != 0x03 && (flags & 0xff) != 0x01) /* FLAG_ELF_LIBC6, FLAG_ELF */
            continue;
#ifdef CACHE_ARCH_FLAGS
        if ((flags & 0xff00) != CACHE_ARCH_FLAGS)
            continue;
#endif
        key_text = cache_string(c, key);
        value_text = cache_string(c, value);
        if (key_text == NULL || value_text == NULL || strcmp(key_text, soname) != 0)
            continue;
        if (value_text[0] == '/' && strlen(value_text) < size) {
            strcpy(out, value_text);
            return out;
        }
    }
    return NULL;
}

static int is_system_dir(const char *dir)
{
    size_t i;
    for (i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; ++i)
        if (strcmp(dir, system_dirs[i]) == 0)
            return 1;
    return 0;
}

/* Try `dir`/`soname`: NULL when absent (nothing said) or refused (the reason in `why`). */
static void *try_dir(const cubind__library_desc *d, const char *dir, const char *soname, cubind__strbuf *why,
                     size_t *absent, struct found *found)
{
    cubind__strbuf spill = {0};
    char buffer[PATH_MAX];
    struct stat st;
    void *handle = NULL;
    const char *path = join_path(buffer, sizeof buffer, &spill, dir, soname, NULL);
    if (lstat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
        (*absent)++;
    else
        handle = open_path(d, path, "; system loader: ", "", why, found);
    cubind__strbuf_free(&spill);
    return handle;
}

/* The DT_SONAME of an object from its dynamic section `dyn` (`base`: its load address), or NULL. */
static const char *dynamic_soname(const ElfW(Dyn) *dyn, uintptr_t base)
{
    uintptr_t strtab = 0;
    size_t offset = 0;
    int has_soname = 0;
    for (; dyn != NULL && dyn->d_tag != DT_NULL; ++dyn) {
        if (dyn->d_tag == DT_STRTAB)
            strtab = (uintptr_t)dyn->d_un.d_ptr;
        else if (dyn->d_tag == DT_SONAME) {
            offset = (size_t)dyn->d_un.d_val;
            has_soname = 1;
        }
    }
    if (!has_soname || strtab == 0)
        return NULL;
    if (strtab < base) /* ABIs that leave the dynamic section unrelocated */
        strtab += base;
    return (const char *)strtab + offset;
}

/*
 * Step 4: what dlopen(soname) would do, each file checked first and opened by its absolute
 * path. For each soname, newest first: the dynamic loader's search path for a dlopen from
 * cubind (its rpath and the program's, LD_LIBRARY_PATH, which the loader ignores in secure
 * mode, cubind's runpath; dlinfo RTLD_DI_SERINFO), skipping
 * relative and empty entries (the working directory); then the ld.so cache
 * ($CUBIND_LD_SO_CACHE when set, "" for none; read once, when the search path missed); then
 * the system directories.
 */
static void *system_search(const cubind__library_desc *d, void *self, cubind__strbuf *why, struct found *found)
{
    union {
        Dl_serinfo info;
        char bytes[2048];
    } small;
    Dl_serinfo size_info, *info = NULL;
    void *handle = NULL;
    size_t i, j, absent = 0;
    struct ld_cache cache = {0, NULL, 0, 0, 0};
    char cached[PATH_MAX];

    if (self != NULL && dlinfo(self, RTLD_DI_SERINFOSIZE, &size_info) == 0 &&
        (info = size_info.dls_size <= sizeof small ? &small.info : malloc(size_info.dls_size)) != NULL) {
        *info = size_info;
        if (dlinfo(self, RTLD_DI_SERINFO, info) != 0) {
            if (info != &small.info)
                free(info);
            info = NULL;
        }
    }
    if (info != NULL)
        for (i = 0; i < info->dls_cnt; ++i) {
            const char *dir = info->dls_serpath[i].dls_name;
            if (dir[0] != '/' && !is_system_dir(dir)) {
                cubind__strbuf_printf(why, "; system loader: search path entry \"");
                append_escaped(why, dir);
                cubind__strbuf_printf(why, "\" skipped (not absolute: the working directory)");
            }
        }
    for (j = 0; j < d->soname_count && handle == NULL; ++j) {
        const char *soname = d->sonames[j];
        for (i = 0; info != NULL && i < info->dls_cnt && handle == NULL; ++i) {
            const char *dir = info->dls_serpath[i].dls_name;
            if (dir[0] == '/' && !is_system_dir(dir))
                handle = try_dir(d, dir, soname, why, &absent, found);
        }
        if (handle == NULL && cache_lookup(&cache, soname, cached, sizeof cached) != NULL)
            handle = open_path(d, cached, "; system loader: ld.so cache: ", "", why, found);
        for (i = 0; i < sizeof system_dirs / sizeof system_dirs[0] && handle == NULL; ++i)
            handle = try_dir(d, system_dirs[i], soname, why, &absent, found);
    }
    cache_close(&cache);
    if (handle == NULL) {
        cubind__strbuf_printf(why, "; system loader: no loadable");
        for (j = 0; j < d->soname_count; ++j)
            cubind__strbuf_printf(why, "%s %s", j ? "," : "", d->sonames[j]);
        cubind__strbuf_printf(why, " in the search path, the ld.so cache or the system directories");
    }
    if (info != &small.info)
        free(info);
    return handle;
}

/* dl_iterate_phdr reports the program first: the r_debug the dynamic loader publishes through
 * the program's DT_DEBUG entry (what debuggers read) starts the main namespace's list. */
static int program_link_map(struct dl_phdr_info *info, size_t size, void *data)
{
    size_t i;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            const ElfW(Dyn) *dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
            for (; dyn->d_tag != DT_NULL; ++dyn)
                if (dyn->d_tag == DT_DEBUG && dyn->d_un.d_ptr != 0)
                    *(struct link_map **)data = ((const struct r_debug *)dyn->d_un.d_ptr)->r_map;
        }
    return 1; /* the program only */
}

/* The first link map of the main namespace (the program's own). The walks below follow its
 * l_next under dl_iterate_phdr's lock, where dlopen must not be called (it takes the loader's
 * other lock first). From DT_DEBUG; in a program without one, dlinfo of what dlopen(NULL)
 * returns. The program is never unloaded, so this is asked once, and that handle is not
 * closed. NULL only if the dynamic loader cannot say. */
static struct link_map *main_map(void)
{
    static _Atomic(struct link_map *) cached;
    struct link_map *map = atomic_load_explicit(&cached, memory_order_acquire);
    if (map == NULL) {
        dl_iterate_phdr(program_link_map, &map);
        if (map == NULL) {
            void *program = dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD);
            if (program == NULL || dlinfo(program, RTLD_DI_LINKMAP, &map) != 0)
                return NULL;
        }
        atomic_store_explicit(&cached, map, memory_order_release);
    }
    return map;
}

/* One walk of the loaded objects (dl_iterate_phdr, which holds the loader's lock while it calls
 * back) for steps 3 and 4: which of d's sonames (bit i for sonames[i]; those past 64 are always
 * asked) name a loaded object, by its DT_SONAME or the file name it was loaded by; and cubind's
 * own link map, the one holding `self_address` (a dlopen from cubind searches cubind's rpath, not
 * the program's runpath): the main namespace's link map with the load address and name
 * dl_iterate_phdr reports (it hands out the link map's own l_name). */
struct walk {
    const cubind__library_desc *d;
    unsigned long long loaded;
    uintptr_t self_address;
    struct link_map *head; /* main_map(): where the main namespace's link-map list starts */
    struct link_map *self;
};

static int walk_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct walk *walk = data;
    const char *name = info->dlpi_name != NULL ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    const char *soname = NULL;
    size_t i;
    (void)size;
    base = base != NULL ? base + 1 : name;
    for (i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC && soname == NULL) {
            soname = dynamic_soname((const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr), info->dlpi_addr);
        } else if (ph->p_type == PT_LOAD && walk->self == NULL &&
                   walk->self_address - (info->dlpi_addr + ph->p_vaddr) < ph->p_memsz) {
            struct link_map *l;
            for (l = walk->head; l != NULL && walk->self == NULL; l = l->l_next)
                if (l->l_addr == info->dlpi_addr && l->l_name == info->dlpi_name)
                    walk->self = l;
        }
    }
    for (i = 0; i < walk->d->soname_count && i < 64; ++i)
        if ((soname != NULL && strcmp(soname, walk->d->sonames[i]) == 0) || strcmp(base, walk->d->sonames[i]) == 0)
            walk->loaded |= 1ull << i;
    return 0;
}

/* Step 3: a copy already loaded, newest soname first; only the sonames the walk found loaded are
 * asked of dlopen (a RTLD_NOLOAD probe of one not loaded searches every directory for nothing).
 * Nothing is written to `why` unless a loaded copy is refused; then the step's text up to it: the
 * sonames before it, the refusal and its soname. *listed is how many sonames that text names. */
static void *already_loaded(const cubind__library_desc *d, const struct walk *walk, cubind__strbuf *why,
                            struct found *found, size_t *listed)
{
    size_t i;
    *listed = 0;
    for (i = 0; i < d->soname_count; ++i) {
        cubind__strbuf reason = {0};
        void *handle;
        if (i < 64 && !(walk->loaded & (1ull << i)))
            continue;
        handle = dlopen(d->sonames[i], RTLD_NOW | RTLD_NOLOAD);
        if (handle == NULL)
            continue;
        if (!refused(d, handle, &reason, found))
            return handle;
        for (; *listed < i; ++*listed)
            cubind__strbuf_printf(why, " %s", d->sonames[*listed]);
        cubind__strbuf_printf(why, "%s %s", cubind__strbuf_str(&reason), d->sonames[i]);
        cubind__strbuf_free(&reason);
        *listed = i + 1;
    }
    return NULL;
}

static void *discover(const cubind__library_desc *d, const char *explicit_path, void *explicit_handle,
                      const char **found_by, cubind__strbuf *why, struct found *found)
{
    cubind__strbuf loaded = {0}; /* step 3's text: written only when the whole search fails */
    cubind__strbuf later = {0};  /* steps 4 and 5's, after it */
    struct walk walk = {NULL, 0, (uintptr_t)(const void *)default_ld_cache, NULL, NULL};
    Dl_info where;
    void *self = NULL;
    const char *env;
    void *handle;
    size_t i, listed;

    if (explicit_handle != NULL) {
        *found_by = "cubind_set_library_handle";
        return explicit_handle;
    }
    if (explicit_path != NULL) {
        *found_by = "cubind_set_library_path";
        return open_path(d, explicit_path, "cubind_set_library_path: ", "", why, found);
    }
    env = cubind__getenv(d->env_var);
    if (env != NULL && env[0] != '\0') {
        *found_by = d->env_var;
        if (env[0] != '/') {
            cubind__strbuf_printf(why, "%s=", d->env_var);
            append_escaped(why, env);
            cubind__strbuf_printf(why, ": refused, a relative path (cubind loads only absolute paths, never "
                                       "relative to the working directory)");
            return NULL;
        }
        return open_path(d, env, d->env_var, "=", why, found);
    }
    walk.d = d;
    walk.head = main_map();
    dl_iterate_phdr(walk_object, &walk);
    handle = already_loaded(d, &walk, &loaded, found, &listed);
    if (handle != NULL) {
        *found_by = "already loaded";
        goto done;
    }
    /* where the walk cannot tell cubind's own object (loaded in another namespace), dladdr1 can */
    if (walk.self == NULL && dladdr1(default_ld_cache, &where, &self, RTLD_DL_LINKMAP) == 0)
        self = NULL;
    handle = system_search(d, walk.self != NULL ? (void *)walk.self : self, &later, found);
    if (handle != NULL) {
        *found_by = "system loader";
        goto done;
    }
    for (i = 0; i <= sizeof root_vars / sizeof root_vars[0]; ++i) {
        const char *name = i < sizeof root_vars / sizeof root_vars[0] ? root_vars[i] : default_root;
        const char *root = i < sizeof root_vars / sizeof root_vars[0] ? cubind__getenv(name) : default_root;
        if (root == NULL || root[0] == '\0')
            continue;
        if (root[0] != '/') {
            cubind__strbuf_printf(&later, "; %s=", name);
            append_escaped(&later, root);
            cubind__strbuf_printf(&later, ": ignored, a relative path");
            continue;
        }
        handle = try_root(d, root, &later, found);
        if (handle != NULL) {
            *found_by = name;
            goto done;
        }
    }
    cubind__strbuf_printf(why, "%s unset; already loaded: none of%s", d->env_var, cubind__strbuf_str(&loaded));
    for (i = listed; i < d->soname_count; ++i)
        cubind__strbuf_printf(why, " %s", d->sonames[i]);
    cubind__strbuf_printf(why, "%s", cubind__strbuf_str(&later));
done:
    cubind__strbuf_free(&loaded);
    cubind__strbuf_free(&later);
    return handle;
}

static char *read_soname(const struct link_map *map)
{
    const char *soname = dynamic_soname(map->l_ld, (uintptr_t)map->l_addr);
    return soname != NULL ? strdup(soname) : NULL;
}

struct handle_search {
    const void *handle;
    const struct link_map *head; /* main_map() */
    int found;
    int in_family;  /* its DT_SONAME is of d's family */
    int with_names; /* copy the soname and name out (for a message) */
    const cubind__library_desc *d;
    char *soname;
    char *name;
};

/* Called by dl_iterate_phdr, which holds the loader's lock: the link-map list cannot change
 * while it is walked. Only the first call does the work. */
static int find_handle(struct dl_phdr_info *info, size_t size, void *data)
{
    struct handle_search *search = data;
    const struct link_map *l;
    (void)info;
    (void)size;
    for (l = search->head; l != NULL; l = l->l_next)
        if ((const void *)l == search->handle) {
            const char *soname = dynamic_soname(l->l_ld, (uintptr_t)l->l_addr);
            search->found = 1;
            search->in_family = soname != NULL && cubind__soname_in_family(search->d, soname);
            if (search->with_names) {
                search->soname = soname != NULL ? strdup(soname) : NULL;
                search->name = strdup(l->l_name != NULL && l->l_name[0] != '\0' ? l->l_name : "the main program");
            }
            break;
        }
    return 1;
}

/* cubind__check_handle; with `why` NULL, the answer alone (nothing formatted). */
static int check_handle(const cubind__library_desc *d, void *handle, cubind__strbuf *why)
{
    struct handle_search search = {NULL, NULL, 0, 0, 0, NULL, NULL, NULL};
    int result;
    cubind__strbuf text = {0};
    if (handle == RTLD_DEFAULT || handle == RTLD_NEXT) {
        if (why != NULL)
            cubind__strbuf_printf(why, "%s is a pseudo-handle, not the handle of a loaded library",
                                  handle == RTLD_DEFAULT ? "RTLD_DEFAULT" : "RTLD_NEXT");
        return -1;
    }
    /* a dlopen handle is its object's link map: it must be one of the process's (main namespace) */
    search.handle = handle;
    search.head = main_map();
    search.d = d;
    search.with_names = why != NULL;
    dl_iterate_phdr(find_handle, &search);
    if (!search.found) {
        if (why != NULL)
            cubind__strbuf_printf(why, "%p is not the handle of an object loaded in this process (dlopen's main "
                                       "namespace)", handle);
        return -1;
    }
    if (why == NULL)
        return search.in_family ? 0 : -1;
    append_escaped(&text, search.name != NULL ? search.name : "?");
    result = check_family(d, search.soname, &text);
    free(search.soname);
    free(search.name);
    if (result != 0)
        cubind__strbuf_printf(why, "%s", cubind__strbuf_str(&text));
    cubind__strbuf_free(&text);
    return result;
}

int cubind__check_handle(const cubind__library_desc *d, void *handle, cubind__strbuf *why)
{
    cubind__strbuf ignored = {0};
    int result;
    if (check_handle(d, handle, NULL) == 0)
        return 0;
    result = check_handle(d, handle, why != NULL ? why : &ignored); /* again, to say why */
    cubind__strbuf_free(&ignored);
    return result;
}

/* "libcusolverMg.so.12.0.4.66" -> 12, 0, 4; absent parts stay -1. Returns how many were read. */
static int version_from_file_name(const char *path, int version[3])
{
    const char *base = strrchr(path, '/');
    const char *p;
    int n = 0;
    base = base != NULL ? base + 1 : path;
    p = strstr(base, ".so.");
    if (p == NULL)
        return 0;
    p += 4;
    while (n < 3 && *p >= '0' && *p <= '9') {
        char *end;
        long value = strtol(p, &end, 10);
        version[n++] = value > INT_MAX ? INT_MAX : (int)value;
        if (*end != '.')
            break;
        p = end + 1;
    }
    return n;
}

/* dl_iterate_phdr callback: the PT_LOAD segments of the object whose link map is `data`. */
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

/* 1 when `address` lies in the opened object itself, not in one of its dependencies. */
static int owns(const cubind__opened *lib, const void *address)
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
    if (address == NULL || !owns(lib, address))
        return NULL; /* absent, or exported by a dependency, not by this library */
    memcpy(&fn, &address, sizeof fn);
    return fn;
}

/* The version and how it was told. The version query is asked here unless the discovery asked it
 * of this very handle already (to accept or refuse the file): then its answer is taken. */
static void read_version(const cubind__library_desc *d, cubind__opened *out, const struct found *found)
{
    cubind__strbuf text = {0};
    char number[48];
    int n;
    out->version[0] = out->version[1] = out->version[2] = -1;
    if (d->version_query_name[0] != '\0') {
        int status = 0, failed = 0, exported, version[3] = {-1, -1, -1};
        if (found->query_handle != NULL && found->query_handle == out->handle) {
            exported = owns(out, found->query_address);
            failed = found->query_failed;
            status = found->status;
            memcpy(version, found->version, sizeof version);
        } else {
            cubind__fnptr query = cubind__own_symbol(out, d->version_query_name);
            exported = query != NULL;
            if (exported)
                failed = cubind__version_query(d->library, query, version, &status) != 0;
        }
        if (!exported) {
            cubind__strbuf_printf(&text, "%s is not exported: version unknown", d->version_query_name);
        } else if (failed) {
            cubind_library library = cubind_library_from_name(d->name);
            const char *name = cubind_status_name(library, status);
            cubind__strbuf_printf(&text, "%s failed with %s (%d): version unknown", d->version_query_name,
                                  name != NULL ? name : "an unknown status", status);
        } else {
            memcpy(out->version, version, sizeof version);
        }
        out->version_source = exported && !failed ? strdup(d->version_query_name) : cubind__strbuf_take(&text);
    } else {
        const char *file = out->real_path != NULL ? out->real_path : out->path;
        const char *base = strrchr(file, '/');
        n = version_from_file_name(file, out->version);
        cubind__strbuf_printf(&text, "file name ");
        append_escaped(&text, base != NULL ? base + 1 : file);
        cubind__strbuf_printf(&text, " (%s has no version query)%s", d->file,
                              n == 0 ? ": version unknown" : "");
        out->version_source = cubind__strbuf_take(&text);
    }
    if (out->version[0] < 0) {
        memcpy(number, "unknown", sizeof "unknown");
    } else { /* "13", "13.1" or "13.1.0" */
        size_t at = 0;
        for (n = 0; n < 3 && out->version[n] >= 0; ++n) {
            char digits[16];
            size_t k = 0;
            unsigned value = (unsigned)out->version[n];
            if (n > 0)
                number[at++] = '.';
            do
                digits[k++] = (char)('0' + value % 10);
            while ((value /= 10) != 0);
            while (k > 0)
                number[at++] = digits[--k];
        }
        number[at] = '\0';
    }
    out->version_text = strdup(number);
}

int cubind__open(const cubind__library_desc *d, const char *explicit_path, void *explicit_handle,
                 cubind__opened *out, cubind__strbuf *why)
{
    struct link_map *map = NULL;
    const char *found_by = NULL;
    cubind__strbuf tried = {0};
    char resolved[PATH_MAX];
    struct found found;
    void *handle;

    found.query_handle = NULL;
    found.real_path[0] = '\0';
    handle = discover(d, explicit_path, explicit_handle, &found_by, &tried, &found);
    if (handle == NULL) {
        cubind__strbuf_printf(why, "%s not found; tried: %s", d->file, cubind__strbuf_str(&tried));
        cubind__strbuf_free(&tried);
        return -1;
    }
    cubind__strbuf_free(&tried);
    /* every step's object is checked again once open: a handle, or one already loaded */
    if (check_handle(d, handle, NULL) != 0 || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL) {
        cubind__strbuf_printf(why, "%s: %s gave ", d->file, found_by);
        check_handle(d, handle, why);
        if (handle != explicit_handle)
            dlclose(handle);
        return -1;
    }
    cubind__strbuf_free(why);
    memset(out, 0, sizeof *out);
    out->handle = handle;
    out->map = map;
    dl_iterate_phdr(record_segments, out);
    out->found_by = found_by;
    if (found.real_path[0] != '\0' && handle != explicit_handle) /* read from the descriptor of the checks */
        out->real_path = strdup(found.real_path);
    else
        out->real_path = realpath(map->l_name != NULL && map->l_name[0] != '\0' ? map->l_name
                                  : explicit_path != NULL                      ? explicit_path
                                                                               : "/proc/self/exe",
                                  resolved) != NULL
                             ? strdup(resolved)
                             : NULL;
    /* always absolute: an object the program loaded by a relative name is named by its real path */
    out->path = strdup(map->l_name != NULL && map->l_name[0] == '/' ? map->l_name
                       : out->real_path != NULL                    ? out->real_path
                       : explicit_path != NULL                     ? explicit_path
                                                                   : "(main program)");
    out->path_escaped = escaped_copy(out->path != NULL ? out->path : "");
    out->soname = read_soname(map);
    if (out->path == NULL || out->path_escaped == NULL) {
        cubind__strbuf_printf(why, "%s: out of memory", d->file);
        return -1;
    }
    read_version(d, out, &found);
    return 0;
}
