/*
 * loader/search_path.c - the directories searched by file name (see search_path.h): the
 * system loader's search path, the ld.so cache and the system directories, a CUDA root's library
 * directories, Python's wheels. Every file found is handed to cubind__open_candidate by its
 * absolute path; a file absent is only counted. Layer 5: calls candidate (4), ld_cache (2),
 * places (2), strbuf (1) and the platform seam (0).
 */
#define _GNU_SOURCE
#include "search_path.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ld_cache.h"
#include "places.h"
#include "library_dirs.h"
#include "platform.h"

/* A CUDA root's library folders and the system's, of the target built for: generated/src/library_dirs.h
 * ([[platform]] in generator/libraries.toml). Arrays of arrays, not of pointers: nothing here is
 * relocated at start-up. */
static const char root_dirs[][CUBIND__PLATFORM_DIR_SIZE] = {CUBIND__PLATFORM_ROOT_DIRS};
static const char system_dirs[][CUBIND__PLATFORM_DIR_SIZE] = {CUBIND__PLATFORM_SYSTEM_DIRS};

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

const char *cubind__system_dir(size_t index)
{
    return index < sizeof system_dirs / sizeof system_dirs[0] ? system_dirs[index] : NULL;
}

const char *cubind__root_subdir(size_t index)
{
    return index < sizeof root_dirs / sizeof root_dirs[0] ? root_dirs[index] : NULL;
}

/* A CUDA root's folder `index` for library `d`: the common ones, then the library's own (nvvm/lib64). */
static const char *library_root_subdir(const cubind__library_desc *d, size_t index)
{
    size_t common = 0;
    const char *subdir = cubind__root_subdir(index);
    if (subdir != NULL)
        return subdir;
    while (cubind__root_subdir(common) != NULL)
        common++;
    return index - common < d->root_dir_count ? d->root_dirs[index - common] : NULL;
}

void *cubind__try_root(const cubind__library_desc *d, const char *root, cubind__strbuf *why, cubind__found *found)
{
    const char *subdir;
    size_t i, j, absent = 0;
    for (i = 0; (subdir = library_root_subdir(d, i)) != NULL; ++i) {
        for (j = 0; j < d->soname_count; ++j) {
            cubind__strbuf spill = {0};
            char buffer[PATH_MAX];
            struct stat st;
            void *handle;
            const char *path = join_path(buffer, sizeof buffer, &spill, root, subdir, d->sonames[j]);
            if (lstat(path, &st) != 0 && errno == ENOENT) {
                cubind__strbuf_free(&spill);
                absent++; /* absent files are listed together below */
                continue;
            }
            handle = cubind__open_candidate(d, path, "; ", "", why, found);
            cubind__strbuf_free(&spill);
            if (handle != NULL)
                return handle;
        }
    }
    if (absent > 0) {
        cubind__strbuf_printf(why, "; ");
        cubind__strbuf_escaped(why, root);
        cubind__strbuf_printf(why, "/{");
        for (i = 0; (subdir = library_root_subdir(d, i)) != NULL; ++i)
            cubind__strbuf_printf(why, "%s%s", i ? "," : "", subdir);
        cubind__strbuf_printf(why, "}/{");
        for (j = 0; j < d->soname_count; ++j)
            cubind__strbuf_printf(why, "%s%s", j ? "," : "", d->sonames[j]);
        cubind__strbuf_printf(why, "}: %s", absent == i * d->soname_count ? "none present" : "the others absent");
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
                     size_t *absent, cubind__found *found)
{
    cubind__strbuf spill = {0};
    char buffer[PATH_MAX];
    struct stat st;
    void *handle = NULL;
    const char *path = join_path(buffer, sizeof buffer, &spill, dir, soname, NULL);
    if (lstat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
        (*absent)++;
    else
        handle = cubind__open_candidate(d, path, "; system loader: ", "", why, found);
    cubind__strbuf_free(&spill);
    return handle;
}

/* The search path for a library opened by name from cubind: its rpath and the program's,
 * LD_LIBRARY_PATH (which the dynamic loader ignores in secure mode), cubind's runpath. */
void *cubind__system_search(const cubind__library_desc *d, int part, cubind__strbuf *why, cubind__found *found)
{
    char **dirs = part == CUBIND__SEARCH_PATH ? cubind__lib_search_path() : NULL;
    void *handle = NULL;
    size_t i, j, absent = 0;
    cubind__ld_cache cache = {0, NULL, 0, 0, 0};
    char cached[PATH_MAX];

    if (dirs != NULL)
        for (i = 0; dirs[i] != NULL; ++i) {
            const char *dir = dirs[i];
            if (dir[0] != '/' && !is_system_dir(dir)) {
                cubind__strbuf_printf(why, "; system loader: search path entry \"");
                cubind__strbuf_escaped(why, dir);
                cubind__strbuf_printf(why, "\" skipped (not absolute: the working directory)");
            }
        }
    for (j = 0; j < d->soname_count && handle == NULL; ++j) {
        const char *soname = d->sonames[j];
        for (i = 0; dirs != NULL && dirs[i] != NULL && handle == NULL; ++i) {
            const char *dir = dirs[i];
            if (dir[0] == '/' && !is_system_dir(dir))
                handle = try_dir(d, dir, soname, why, &absent, found);
        }
        if (part != CUBIND__SEARCH_DEFAULTS)
            continue;
        if (handle == NULL && cubind__ld_cache_lookup(&cache, soname, cached, sizeof cached) != NULL)
            handle = cubind__open_candidate(d, cached, "; system loader: ld.so cache: ", "", why, found);
        for (i = 0; i < sizeof system_dirs / sizeof system_dirs[0] && handle == NULL; ++i)
            handle = try_dir(d, system_dirs[i], soname, why, &absent, found);
    }
    cubind__ld_cache_close(&cache);
    if (handle == NULL && part == CUBIND__SEARCH_DEFAULTS) {
        cubind__strbuf_printf(why, "; system loader: no loadable");
        for (j = 0; j < d->soname_count; ++j)
            cubind__strbuf_printf(why, "%s %s", j ? "," : "", d->sonames[j]);
        cubind__strbuf_printf(why, " in the search path, the ld.so cache or the system directories");
    }
    free(dirs);
    return handle;
}

void *cubind__try_beside(const cubind__library_desc *d, const char *dir, cubind__strbuf *why, cubind__found *found)
{
    size_t j;
    void *handle = NULL;
    for (j = 0; j < d->soname_count && handle == NULL; ++j) {
        cubind__strbuf spill = {0};
        char buffer[PATH_MAX];
        struct stat st;
        const char *path = join_path(buffer, sizeof buffer, &spill, dir, d->sonames[j], NULL);
        if (lstat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR))
            handle = cubind__open_candidate(d, path, "; beside a library it is used with: ", "", why, found);
        cubind__strbuf_free(&spill);
    }
    return handle;
}

void *cubind__try_wheels(const cubind__library_desc *d, cubind__strbuf *why, cubind__found *found)
{
    const cubind__locatable *l = &cubind__locatables[d->library];
    cubind__dirs sites = {0};
    void *handle = NULL;
    size_t s, w, j, absent = 0, tried = 0;
    if (l->wheel_dir_count == 0)
        return NULL;
    cubind__site_packages(&sites);
    for (s = 0; s < sites.count && handle == NULL; ++s)
        for (w = 0; w < l->wheel_dir_count && handle == NULL; ++w)
            for (j = 0; j < d->soname_count && handle == NULL; ++j) {
                cubind__strbuf spill = {0};
                char buffer[PATH_MAX];
                struct stat st;
                const char *path = join_path(buffer, sizeof buffer, &spill, sites.items[s], l->wheel_dirs[w],
                                             d->sonames[j]);
                tried++;
                if (lstat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
                    absent++;
                else
                    handle = cubind__open_candidate(d, path, "; site-packages: ", "", why, found);
                cubind__strbuf_free(&spill);
            }
    if (handle == NULL) {
        cubind__strbuf_printf(why, "; site-packages: ");
        if (sites.count == 0)
            cubind__strbuf_printf(why, "none found");
        for (s = 0; s < sites.count; ++s) {
            cubind__strbuf_printf(why, "%s", s ? "," : "{");
            cubind__strbuf_escaped(why, sites.items[s]);
        }
        if (sites.count > 0) {
            cubind__strbuf_printf(why, "}/{");
            for (w = 0; w < l->wheel_dir_count; ++w)
                cubind__strbuf_printf(why, "%s%s", w ? "," : "", l->wheel_dirs[w]);
            cubind__strbuf_printf(why, "}/{");
            for (j = 0; j < d->soname_count; ++j)
                cubind__strbuf_printf(why, "%s%s", j ? "," : "", d->sonames[j]);
            cubind__strbuf_printf(why, "}: %s", absent == tried ? "none present" : "the others absent");
        }
    }
    cubind__dirs_free(&sites);
    return handle;
}
