/*
 * loader/discovery.c - DESIGN.md's discovery order, first hit wins, absolute
 * paths only:
 *   1. the path or handle given through the API;  2. CUBIND_<LIB>_PATH;
 *   3. a copy already loaded (RTLD_NOLOAD, newest soname first);
 *   4. the system loader by soname, newest first;
 *   5. $CUDA_PATH, $CUDA_HOME, $CONDA_PREFIX, /usr/local/cuda with lib64, lib,
 *      targets/<arch>/lib.
 * An explicit choice (1 or 2) that fails is final. Every attempt is written to
 * `why`, so a failure lists each path tried and what the system said. A path is
 * looked at before dlopen: directories, FIFOs and devices, ELF files cut short or
 * built for another machine are refused with the reason (dlopen would block, die of
 * SIGBUS, or say "No such file or directory").
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
#include <sys/stat.h>

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

static const char *dl_reason(void)
{
    const char *reason = dlerror();
    return reason != NULL ? reason : "unknown dlopen error";
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
static void *open_path(const char *path, cubind__strbuf *why)
{
    struct stat st;
    void *handle;
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
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL)
        cubind__strbuf_printf(why, ": %s", dl_reason());
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
            handle = open_path(cubind__strbuf_str(&path), why);
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

/* 1 (after closing the handle and saying why) when the file answers its version query with a status
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
            struct link_map *map = NULL;
            cubind__strbuf_printf(why, "; ");
            if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name != NULL)
                cubind__strbuf_escaped(why, map->l_name);
            const char *name = cubind_status_name(cubind_library_from_name(d->name), status);
            cubind__strbuf_printf(why, ": refused, %s answers %s (%d): %s", d->version_query_name,
                                  name != NULL ? name : "a status", status, d->refusal_reasons[i]);
            dlclose(handle);
            return 1;
        }
    }
    return 0;
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
        handle = open_path(explicit_path, why);
        return handle != NULL && refused(d, handle, why) ? NULL : handle;
    }
    env = getenv(d->env_var);
    if (env != NULL && env[0] != '\0') {
        *found_by = d->env_var;
        cubind__strbuf_printf(why, "%s=", d->env_var);
        if (env[0] != '/') {
            cubind__strbuf_escaped(why, env);
            cubind__strbuf_printf(why, ": refused, a relative path (cubind loads only absolute paths, never "
                                       "relative to the working directory)");
            return NULL;
        }
        handle = open_path(env, why);
        return handle != NULL && refused(d, handle, why) ? NULL : handle;
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
    for (i = 0; i < d->soname_count; ++i) {
        handle = dlopen(d->sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            cubind__strbuf_printf(why, "; system loader: %s", dl_reason());
        } else if (!refused(d, handle, why)) {
            *found_by = "system loader";
            return handle;
        }
    }
    for (i = 0; i <= sizeof root_vars / sizeof root_vars[0]; ++i) {
        const char *name = i < sizeof root_vars / sizeof root_vars[0] ? root_vars[i] : default_root;
        const char *root = i < sizeof root_vars / sizeof root_vars[0] ? getenv(name) : default_root;
        if (root == NULL || root[0] == '\0')
            continue;
        if (root[0] != '/') {
            cubind__strbuf_printf(why, "; %s=", name);
            cubind__strbuf_escaped(why, root);
            cubind__strbuf_printf(why, ": ignored, a relative path");
            continue;
        }
        handle = try_root(d, root, why);
        if (handle != NULL && !refused(d, handle, why)) {
            *found_by = name;
            return handle;
        }
    }
    return NULL;
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

cubind__fnptr cubind__own_symbol(const cubind__opened *lib, const char *symbol)
{
    void *address;
    Dl_info info;
    void *owner = NULL;
    cubind__fnptr fn;
    dlerror();
    address = dlsym(lib->handle, symbol);
    if (address == NULL)
        return NULL;
    if (dladdr1(address, &info, &owner, RTLD_DL_LINKMAP) != 0 && owner != NULL && owner != lib->map)
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
        cubind__strbuf_printf(&text, " (lib%s has no version query)%s", d->name,
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
        cubind__strbuf_printf(why, "lib%s not found; tried: %s", d->name, cubind__strbuf_str(&tried));
        cubind__strbuf_free(&tried);
        return -1;
    }
    cubind__strbuf_free(&tried);
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL) {
        cubind__strbuf_printf(why, "lib%s: %s gave a handle dlinfo cannot describe: %s", d->name, found_by,
                              dl_reason());
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->handle = handle;
    out->map = map;
    out->found_by = found_by;
    out->path = strdup(map->l_name != NULL && map->l_name[0] != '\0' ? map->l_name
                       : explicit_path != NULL                      ? explicit_path
                                                                    : "(main program)");
    out->real_path = realpath(out->path, resolved) != NULL ? strdup(resolved) : NULL;
    cubind__strbuf_escaped(&escaped, out->path != NULL ? out->path : "");
    out->path_escaped = cubind__strbuf_take(&escaped);
    out->soname = read_soname(map);
    if (out->path == NULL || out->path_escaped == NULL) {
        cubind__strbuf_printf(why, "lib%s: out of memory", d->name);
        return -1;
    }
    read_version(d, out);
    return 0;
}
