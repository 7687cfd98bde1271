/*
 * loader/discovery.c - the README's discovery order, first hit wins, absolute
 * paths only:
 *   1. the path or handle given through the API;  2. CUBIND_<LIB>_PATH;
 *   3. a copy already loaded (RTLD_NOLOAD, newest soname first);
 *   4. the system loader's search by soname, newest first, done here so that every
 *      file is checked before dlopen and known by an absolute path: the search path
 *      the dynamic loader reports (LD_LIBRARY_PATH, rpath; relative and empty entries,
 *      which mean the working directory, are skipped), the ld.so cache, the system
 *      directories;
 *   5. $CUDA_PATH, $CUDA_HOME, $CONDA_PREFIX, /usr/local/cuda with lib64, lib,
 *      targets/<arch>/lib.
 * An explicit choice (1 or 2) that fails is final. Every attempt is written to
 * `why`, so a failure lists each path tried and what the system said. A path is
 * looked at before dlopen: directories, FIFOs and devices, ELF files cut short or
 * built for another machine are refused with the reason (dlopen would block, die of
 * SIGBUS, or say "No such file or directory"), and so is a file whose DT_SONAME is
 * not of the library's soname family (libcublasLt.so.13 given as libcublas).
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
static const char *const target_dirs[] = {"targets/x86_64-linux/lib"};
#elif defined(__aarch64__)
static const char *const target_dirs[] = {"targets/sbsa-linux/lib", "targets/aarch64-linux/lib"};
#else
static const char *const target_dirs[] = {"lib"};
#endif

static const char *const root_vars[] = {"CUDA_PATH", "CUDA_HOME", "CONDA_PREFIX"};
static const char default_root[] = "/usr/local/cuda";

#if defined(__x86_64__)
#define CACHE_ARCH_FLAGS 0x0300 /* FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
#define CACHE_ARCH_FLAGS 0x0a00 /* FLAG_AARCH64_LIB64 */
#endif
static const char default_ld_cache[] = "/etc/ld.so.cache";
static const char *const system_dirs[] = {
#if defined(__x86_64__)
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
#elif defined(__aarch64__)
    "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64",
#endif
    "/lib", "/usr/lib"};

const char *cubind__getenv(const char *name)
{
    return secure_getenv(name);
}

/* Append dlerror's text, escaped (it repeats paths, which may hold any byte). */
static void dl_reason(cubind__strbuf *why)
{
    const char *reason = dlerror();
    cubind__strbuf_escaped(why, reason != NULL ? reason : "unknown dlopen error");
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
    cubind__strbuf_escaped(why, soname);
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

/* dlopen an absolute path, saying in `why` why not. */
/* 1 (after saying why and closing the handle) when the file answers its version query with a status
 * that says it is not the library: the driver's link-time stub answers CUDA_ERROR_STUB_LIBRARY. */
static int refused(const cubind__library_desc *d, void *handle, cubind__strbuf *why)
{
    int status = 0, version[3];
    size_t i;
    void *address;
    cubind__fnptr query;
    if (d->refused_count == 0 || d->version_query == NULL)
        return 0;
    address = dlsym(handle, d->version_query_name);
    if (address == NULL)
        return 0;
    memcpy(&query, &address, sizeof query);
    if (d->version_query(query, version, &status) == 0)
        return 0;
    for (i = 0; i < d->refused_count; ++i) {
        if (status == d->refused_statuses[i]) {
            const char *name = cubind_status_name(cubind_library_from_name(d->name), status);
            cubind__strbuf_printf(why, ": refused, %s answers %s (%d): %s", d->version_query_name,
                                  name != NULL ? name : "a status", status, d->refusal_reasons[i]);
            dlclose(handle);
            return 1;
        }
    }
    return 0;
}

static void *open_path(const cubind__library_desc *d, const char *path, cubind__strbuf *why)
{
    struct stat st;
    void *handle;
    char soname[256];
    cubind__strbuf_escaped(why, path);
    if (stat(path, &st) != 0) {
        cubind__strbuf_printf(why, ": %s", strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        cubind__strbuf_printf(why, ": is a directory");
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) { /* dlopen of a FIFO would wait for a writer */
        cubind__strbuf_printf(why, ": not a regular file (%s)", file_type(st.st_mode));
        return NULL;
    }
    if (cubind__check_elf(path, st.st_size, why) != 0)
        return NULL;
    switch (cubind__elf_soname(path, soname, sizeof soname)) {
    case 1: /* before dlopen: a wrong library's constructors never run */
        if (check_family(d, soname, why) != 0)
            return NULL;
        break;
    case 0:
        if (check_family(d, NULL, why) != 0)
            return NULL;
        break;
    default: /* not an ELF file dlopen takes: it says why */
        break;
    }
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        cubind__strbuf_printf(why, ": ");
        dl_reason(why);
    } else if (refused(d, handle, why)) {
        return NULL;
    }
    return handle;
}

static void *try_root(const cubind__library_desc *d, const char *root, cubind__strbuf *why)
{
    const char *subdirs[2 + sizeof target_dirs / sizeof target_dirs[0]];
    size_t nsub = 0, i, j, absent = 0;
    subdirs[nsub++] = "lib64";
    subdirs[nsub++] = "lib";
    for (i = 0; i < sizeof target_dirs / sizeof target_dirs[0]; ++i)
        subdirs[nsub++] = target_dirs[i];
    for (i = 0; i < nsub; ++i) {
        for (j = 0; j < d->soname_count; ++j) {
            cubind__strbuf path = {0};
            struct stat st;
            void *handle;
            cubind__strbuf_printf(&path, "%s/%s/%s", root, subdirs[i], d->sonames[j]);
            if (lstat(cubind__strbuf_str(&path), &st) != 0 && errno == ENOENT) {
                cubind__strbuf_free(&path);
                absent++; /* absent files are listed together below */
                continue;
            }
            cubind__strbuf_printf(why, "; ");
            handle = open_path(d, cubind__strbuf_str(&path), why);
            cubind__strbuf_free(&path);
            if (handle != NULL)
                return handle;
        }
    }
    if (absent > 0) {
        cubind__strbuf_printf(why, "; ");
        cubind__strbuf_escaped(why, root);
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

/* The ld.so cache's entry for `soname` (this machine's kind of library), or NULL; the text
 * is copied to `out`. Reads the "glibc-ld.so.cache1.1" format, after the old one or alone. */
static const char *cache_lookup(const char *soname, char *out, size_t size)
{
    const char *file = cubind__getenv("CUBIND_LD_SO_CACHE");
    const unsigned char *map;
    struct stat st;
    size_t off = 0, n, i, total;
    const char *found = NULL;
    int fd;
    if (file == NULL)
        file = default_ld_cache;
    if (file[0] == '\0')
        return NULL;
    fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 48) {
        close(fd);
        return NULL;
    }
    total = (size_t)st.st_size;
    map = mmap(NULL, total, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return NULL;
    if (memcmp(map, "ld.so-1.7.0", 11) == 0) { /* the old format first: skip its entries */
        uint32_t old;
        memcpy(&old, map + 12, sizeof old);
        off = 16 + (size_t)old * 12;
        off = (off + 7) & ~(size_t)7;
    }
    if (off + 48 <= total && memcmp(map + off, "glibc-ld.so.cache1.1", 20) == 0) {
        uint32_t count;
        memcpy(&count, map + off + 20, sizeof count);
        n = count;
        for (i = 0; i < n && off + 48 + (i + 1) * 24 <= total; ++i) {
            const unsigned char *e = map + off + 48 + i * 24;
            int32_t flags;
            uint32_t key, value;
            uint64_t hwcap;
            memcpy(&flags, e, 4);
            memcpy(&key, e + 4, 4);
            memcpy(&value, e + 8, 4);
            memcpy(&hwcap, e + 16, 8);
            if (hwcap != 0) /* a glibc-hwcaps variant: the plain entry is for every machine */
                continue;
            if ((flags & 0xff) != 0x03 && (flags & 0xff) != 0x01) /* FLAG_ELF_LIBC6, FLAG_ELF */
                continue;
#ifdef CACHE_ARCH_FLAGS
            if ((flags & 0xff00) != CACHE_ARCH_FLAGS)
                continue;
#endif
            if (off + key >= total || off + value >= total || memchr(map + off + key, 0, total - off - key) == NULL ||
                memchr(map + off + value, 0, total - off - value) == NULL)
                continue;
            if (strcmp((const char *)map + off + key, soname) == 0 && map[off + value] == '/' &&
                strlen((const char *)map + off + value) < size) {
                strcpy(out, (const char *)map + off + value);
                found = out;
                break;
            }
        }
    }
    munmap((void *)map, total);
    return found;
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
                     size_t *absent)
{
    cubind__strbuf path = {0};
    struct stat st;
    void *handle = NULL;
    cubind__strbuf_printf(&path, "%s/%s", dir, soname);
    if (lstat(cubind__strbuf_str(&path), &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
        (*absent)++;
    } else {
        cubind__strbuf_printf(why, "; system loader: ");
        handle = open_path(d, cubind__strbuf_str(&path), why);
    }
    cubind__strbuf_free(&path);
    return handle;
}

/*
 * Step 4: what dlopen(soname) would do, each file checked first and opened by its absolute
 * path. For each soname, newest first: the dynamic loader's search path for a dlopen from
 * cubind (its rpath and the program's, LD_LIBRARY_PATH, which the loader ignores in secure
 * mode, cubind's runpath; dlinfo RTLD_DI_SERINFO), skipping
 * relative and empty entries (the working directory); then the ld.so cache
 * ($CUBIND_LD_SO_CACHE when set, "" for none); then the system directories.
 */
static void *system_search(const cubind__library_desc *d, cubind__strbuf *why)
{
    Dl_serinfo size_info, *info = NULL;
    Dl_info where;
    void *self = NULL; /* cubind's own object: a dlopen from it searches its rpath, not the program's runpath */
    void *handle = NULL;
    size_t i, j, absent = 0;
    char cached[PATH_MAX];

    if (dladdr1(default_ld_cache, &where, &self, RTLD_DL_LINKMAP) == 0)
        self = NULL;
    if (self != NULL && dlinfo(self, RTLD_DI_SERINFOSIZE, &size_info) == 0 &&
        (info = malloc(size_info.dls_size)) != NULL) {
        *info = size_info;
        if (dlinfo(self, RTLD_DI_SERINFO, info) != 0) {
            free(info);
            info = NULL;
        }
    }
    if (info != NULL)
        for (i = 0; i < info->dls_cnt; ++i) {
            const char *dir = info->dls_serpath[i].dls_name;
            if (dir[0] != '/' && !is_system_dir(dir)) {
                cubind__strbuf_printf(why, "; system loader: search path entry \"");
                cubind__strbuf_escaped(why, dir);
                cubind__strbuf_printf(why, "\" skipped (not absolute: the working directory)");
            }
        }
    for (j = 0; j < d->soname_count && handle == NULL; ++j) {
        const char *soname = d->sonames[j];
        for (i = 0; info != NULL && i < info->dls_cnt && handle == NULL; ++i) {
            const char *dir = info->dls_serpath[i].dls_name;
            if (dir[0] == '/' && !is_system_dir(dir))
                handle = try_dir(d, dir, soname, why, &absent);
        }
        if (handle == NULL && cache_lookup(soname, cached, sizeof cached) != NULL) {
            cubind__strbuf_printf(why, "; system loader: ld.so cache: ");
            handle = open_path(d, cached, why);
        }
        for (i = 0; i < sizeof system_dirs / sizeof system_dirs[0] && handle == NULL; ++i)
            handle = try_dir(d, system_dirs[i], soname, why, &absent);
    }
    if (handle == NULL) {
        cubind__strbuf_printf(why, "; system loader: no loadable");
        for (j = 0; j < d->soname_count; ++j)
            cubind__strbuf_printf(why, "%s %s", j ? "," : "", d->sonames[j]);
        cubind__strbuf_printf(why, " in the search path, the ld.so cache or the system directories");
    }
    free(info);
    return handle;
}

static void *discover(const cubind__library_desc *d, const char *explicit_path, void *explicit_handle,
                      const char **found_by, cubind__strbuf *why)
{
    const char *env;
    void *handle;
    size_t i;

    if (explicit_handle != NULL) {
        *found_by = "cubind_set_library_handle";
        return explicit_handle;
    }
    if (explicit_path != NULL) {
        *found_by = "cubind_set_library_path";
        cubind__strbuf_printf(why, "cubind_set_library_path: ");
        return open_path(d, explicit_path, why);
    }
    env = cubind__getenv(d->env_var);
    if (env != NULL && env[0] != '\0') {
        *found_by = d->env_var;
        cubind__strbuf_printf(why, "%s=", d->env_var);
        if (env[0] != '/') {
            cubind__strbuf_escaped(why, env);
            cubind__strbuf_printf(why, ": refused, a relative path (cubind loads only absolute paths, never "
                                       "relative to the working directory)");
            return NULL;
        }
        return open_path(d, env, why);
    }
    cubind__strbuf_printf(why, "%s unset; already loaded: none of", d->env_var);
    for (i = 0; i < d->soname_count; ++i) {
        handle = dlopen(d->sonames[i], RTLD_NOW | RTLD_NOLOAD);
        if (handle != NULL && !refused(d, handle, why)) {
            *found_by = "already loaded";
            return handle;
        }
        cubind__strbuf_printf(why, " %s", d->sonames[i]);
    }
    handle = system_search(d, why);
    if (handle != NULL) {
        *found_by = "system loader";
        return handle;
    }
    for (i = 0; i <= sizeof root_vars / sizeof root_vars[0]; ++i) {
        const char *name = i < sizeof root_vars / sizeof root_vars[0] ? root_vars[i] : default_root;
        const char *root = i < sizeof root_vars / sizeof root_vars[0] ? cubind__getenv(name) : default_root;
        if (root == NULL || root[0] == '\0')
            continue;
        if (root[0] != '/') {
            cubind__strbuf_printf(why, "; %s=", name);
            cubind__strbuf_escaped(why, root);
            cubind__strbuf_printf(why, ": ignored, a relative path");
            continue;
        }
        handle = try_root(d, root, why);
        if (handle != NULL) {
            *found_by = name;
            return handle;
        }
    }
    return NULL;
}

static char *read_soname(const struct link_map *map);

struct handle_search {
    const void *handle;
    int found;
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
    for (l = _r_debug.r_map; l != NULL; l = l->l_next)
        if ((const void *)l == search->handle) {
            search->found = 1;
            search->soname = read_soname(l);
            search->name = strdup(l->l_name != NULL && l->l_name[0] != '\0' ? l->l_name : "the main program");
            break;
        }
    return 1;
}

int cubind__check_handle(const cubind__library_desc *d, void *handle, cubind__strbuf *why)
{
    struct handle_search search = {NULL, 0, NULL, NULL};
    int result;
    cubind__strbuf text = {0};
    if (handle == RTLD_DEFAULT || handle == RTLD_NEXT) {
        cubind__strbuf_printf(why, "%s is a pseudo-handle, not the handle of a loaded library",
                              handle == RTLD_DEFAULT ? "RTLD_DEFAULT" : "RTLD_NEXT");
        return -1;
    }
    /* a dlopen handle is its object's link map: it must be one of the process's (main namespace) */
    search.handle = handle;
    dl_iterate_phdr(find_handle, &search);
    if (!search.found) {
        cubind__strbuf_printf(why, "%p is not the handle of an object loaded in this process (dlopen's main "
                                   "namespace)", handle);
        return -1;
    }
    cubind__strbuf_escaped(&text, search.name != NULL ? search.name : "?");
    result = check_family(d, search.soname, &text);
    free(search.soname);
    free(search.name);
    if (result != 0)
        cubind__strbuf_printf(why, "%s", cubind__strbuf_str(&text));
    cubind__strbuf_free(&text);
    return result;
}

static char *read_soname(const struct link_map *map)
{
    const ElfW(Dyn) *dyn;
    uintptr_t strtab = 0;
    size_t offset = 0;
    int has_soname = 0;
    for (dyn = map->l_ld; dyn != NULL && dyn->d_tag != DT_NULL; ++dyn) {
        if (dyn->d_tag == DT_STRTAB)
            strtab = (uintptr_t)dyn->d_un.d_ptr;
        else if (dyn->d_tag == DT_SONAME) {
            offset = (size_t)dyn->d_un.d_val;
            has_soname = 1;
        }
    }
    if (!has_soname || strtab == 0)
        return NULL;
    if (strtab < (uintptr_t)map->l_addr) /* ABIs that leave the dynamic section unrelocated */
        strtab += (uintptr_t)map->l_addr;
    return strdup((const char *)strtab + offset);
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

cubind__fnptr cubind__own_symbol(const cubind__opened *lib, const char *symbol)
{
    void *address;
    cubind__fnptr fn;
    size_t i;
    int own = lib->segments == 0; /* segments unknown: take what dlsym gives */
    dlerror();
    address = dlsym(lib->handle, symbol);
    if (address == NULL)
        return NULL;
    for (i = 0; i < lib->segments && !own; ++i)
        own = (uintptr_t)address >= lib->segment[i].start && (uintptr_t)address < lib->segment[i].end;
    if (!own)
        return NULL; /* exported by a dependency, not by this library */
    memcpy(&fn, &address, sizeof fn);
    return fn;
}

static void read_version(const cubind__library_desc *d, cubind__opened *out)
{
    cubind__strbuf text = {0};
    int n;
    out->version[0] = out->version[1] = out->version[2] = -1;
    if (d->version_query_name != NULL) {
        cubind__fnptr query = cubind__own_symbol(out, d->version_query_name);
        int status = 0, version[3] = {-1, -1, -1};
        if (query == NULL) {
            cubind__strbuf_printf(&text, "%s is not exported: version unknown", d->version_query_name);
        } else if (d->version_query(query, version, &status) != 0) {
            cubind_library library = cubind_library_from_name(d->name);
            const char *name = cubind_status_name(library, status);
            cubind__strbuf_printf(&text, "%s failed with %s (%d): version unknown", d->version_query_name,
                                  name != NULL ? name : "an unknown status", status);
        } else {
            memcpy(out->version, version, sizeof version);
            cubind__strbuf_printf(&text, "%s", d->version_query_name);
        }
    } else {
        const char *file = out->real_path != NULL ? out->real_path : out->path;
        const char *base = strrchr(file, '/');
        n = version_from_file_name(file, out->version);
        cubind__strbuf_printf(&text, "file name ");
        cubind__strbuf_escaped(&text, base != NULL ? base + 1 : file);
        cubind__strbuf_printf(&text, " (%s has no version query)%s", d->file,
                              n == 0 ? ": version unknown" : "");
    }
    out->version_source = cubind__strbuf_take(&text);
    if (out->version[0] < 0)
        cubind__strbuf_printf(&text, "unknown");
    else {
        cubind__strbuf_printf(&text, "%d", out->version[0]);
        for (n = 1; n < 3 && out->version[n] >= 0; ++n)
            cubind__strbuf_printf(&text, ".%d", out->version[n]);
    }
    out->version_text = cubind__strbuf_take(&text);
}

int cubind__open(const cubind__library_desc *d, const char *explicit_path, void *explicit_handle,
                 cubind__opened *out, cubind__strbuf *why)
{
    struct link_map *map = NULL;
    const char *found_by = NULL;
    cubind__strbuf tried = {0};
    cubind__strbuf escaped = {0};
    char resolved[PATH_MAX];
    void *handle = discover(d, explicit_path, explicit_handle, &found_by, &tried);

    if (handle == NULL) {
        cubind__strbuf_printf(why, "%s not found; tried: %s", d->file, cubind__strbuf_str(&tried));
        cubind__strbuf_free(&tried);
        return -1;
    }
    cubind__strbuf_free(&tried);
    /* every step's object is checked again once open: a handle, or one already loaded */
    cubind__strbuf_printf(why, "%s: %s gave ", d->file, found_by);
    if (cubind__check_handle(d, handle, why) != 0 || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL) {
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
    cubind__strbuf_escaped(&escaped, out->path != NULL ? out->path : "");
    out->path_escaped = cubind__strbuf_take(&escaped);
    out->soname = read_soname(map);
    if (out->path == NULL || out->path_escaped == NULL) {
        cubind__strbuf_printf(why, "%s: out of memory", d->file);
        return -1;
    }
    read_version(d, out);
    return 0;
}
