/*
 * loader/copies.c - every copy of every library a program could load here, and which one it gets
 * (cubind/copies.h): the places are read directory by directory (each once, every library's stem
 * matched against its names) and the ld.so cache entry by entry; a file is one copy by its real
 * path, whatever the names it was found by; each copy's headers and soname are read through
 * a descriptor opened without waiting (file_open, cubind__binary_inspect), its version is asked in a child process
 * (copy_version), and the copy cubind takes is told by cubind_library_info. Layer 9: calls info
 * (8), library (7), search_path (5: the system directories, a CUDA root's), copy_version (3),
 * releases (3), places (2), ld_cache (2), error (2), file_open (1), strbuf (1) and the platform
 * seam (0).
 */
#define _GNU_SOURCE
#include "cubind/copies.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy_version.h"
#include "error.h"
#include "file_open.h"
#include "ld_cache.h"
#include "library.h"
#include "places.h"
#include "platform.h"
#include "releases.h"
#include "search_path.h"

struct copy {
    size_t library, order; /* index in cubind__locatables; the order found */
    char *path, *real_path, *soname, *error, *release, *version_detail, *chosen_by;
    const char *place, *version_source;
    cubind__strbuf places, seen; /* seen: "\nplace\treal directory\n" of each place listed */
    int version[3], chosen;
};

struct cubind_copies {
    struct copy *items;
    size_t count, capacity;
    size_t only; /* one library's index, or SIZE_MAX for every library */
};

size_t cubind_locatable_count(void)
{
    return cubind__locatable_count;
}

const char *cubind_locatable_name(size_t index)
{
    return index < cubind__locatable_count ? cubind__locatables[index].name : NULL;
}

/* Whether file name `name` is of `stem`'s family: <stem>.so, or <stem>.so.<digits and dots>. */
static int of_family(const char *name, const char *stem)
{
    size_t n = strlen(stem);
    const char *p;
    if (strncmp(name, stem, n) != 0 || strncmp(name + n, ".so", 3) != 0)
        return 0;
    p = name + n + 3;
    if (*p != '.' || p[1] == '\0') /* <stem>.so alone is the link-time name, not what a program loads */
        return 0;
    for (++p; *p != '\0'; ++p)
        if (!((*p >= '0' && *p <= '9') || *p == '.'))
            return 0;
    return 1;
}

/* The file checks and the soname of a new copy, read through a descriptor opened without waiting. */
static void inspect(struct copy *c)
{
    const cubind__locatable *l = &cubind__locatables[c->library];
    cubind__strbuf why = {0};
    cubind__binary binary;
    struct stat st;
    const char *token = cubind__dlopen_token(c->path) != NULL ? cubind__dlopen_token(c->path)
                                                              : cubind__dlopen_token(c->real_path);
    int fd = token != NULL ? -1 : cubind__open_file(c->real_path, O_RDONLY, 0, CUBIND__FILE_REGULAR, &st);
    if (token != NULL) /* a child's dlopen would load another file than this one: not even opened */
        cubind__strbuf_printf(&why, "its path holds $%s, which dlopen replaces (a dynamic string token)", token);
    else if (fd == CUBIND__FILE_WRONG_KIND)
        cubind__strbuf_printf(&why, "not a regular file (%s)", cubind__file_kind(st.st_mode));
    else if (fd < 0)
        cubind__strbuf_printf(&why, "cannot be opened");
    else {
        /* a script, random bytes, an executable: refused here, before a child is spent on it */
        cubind__binary_inspect(fd, (long long)st.st_size, &binary);
        if (binary.not_library[0] != '\0')
            cubind__strbuf_printf(&why, "%s", binary.not_library);
        else if (binary.refused[0] != '\0')
            cubind__strbuf_printf(&why, "%s", binary.refused);
        else if (binary.has_soname == 1) {
            c->soname = strdup(binary.soname);
            if (!of_family(binary.soname, l->stem))
                cubind__strbuf_printf(&why, "is %s, not %s", binary.soname, l->stem);
        }
        close(fd);
    }
    if (why.length > 0)
        c->error = strdup(cubind__strbuf_str(&why));
    cubind__strbuf_free(&why);
}

/* One more place of copy `c`: listed once per place and directory (its real path), the first name found. */
static void add_place(struct copy *c, const char *place, const char *path)
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(path, '/');
    size_t n = slash != NULL ? (size_t)(slash - path) : 0;
    cubind__strbuf key = {0};
    if (n == 0 || n >= sizeof dir)
        return;
    memcpy(dir, path, n);
    dir[n] = '\0';
    cubind__strbuf_printf(&key, "\n%s\t%s\n", place, cubind__real_path(dir, real) != NULL ? real : dir);
    if (strstr(cubind__strbuf_str(&c->seen), cubind__strbuf_str(&key)) == NULL) {
        cubind__strbuf_printf(&c->seen, "%s", cubind__strbuf_str(&key));
        cubind__strbuf_printf(&c->places, "%s%s: %s", c->places.length ? "; " : "", place, path);
    }
    cubind__strbuf_free(&key);
}

/* `path`, of library `library`, found at `place`: a new copy, or one more name of a known one. */
static void add_copy(struct cubind_copies *list, size_t library, const char *place, const char *path)
{
    char real[PATH_MAX];
    struct copy *c;
    size_t i;
    if (cubind__real_path(path, real) == NULL)
        return; /* a dangling link: no file */
    for (i = 0; i < list->count; ++i)
        if (list->items[i].library == library && strcmp(list->items[i].real_path, real) == 0) {
            add_place(&list->items[i], place, path);
            return;
        }
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 32;
        struct copy *items = realloc(list->items, capacity * sizeof *items);
        if (items == NULL)
            return;
        list->items = items;
        list->capacity = capacity;
    }
    c = &list->items[list->count];
    memset(c, 0, sizeof *c);
    c->library = library;
    c->order = list->count;
    c->place = place;
    c->path = strdup(path);
    c->real_path = strdup(real);
    if (c->path == NULL || c->real_path == NULL) {
        free(c->path);
        free(c->real_path);
        return;
    }
    add_place(c, place, path);
    list->count++;
    inspect(c);
}

static int wanted(const struct cubind_copies *list, size_t library)
{
    return list->only == SIZE_MAX || list->only == library;
}

/* Every file of `dir` of a wanted library's family (of `library` only, when it is not SIZE_MAX). */
static void scan_dir(struct cubind_copies *list, const char *place, const char *dir, size_t library)
{
    DIR *d;
    struct dirent *e;
    char path[PATH_MAX];
    size_t i;
    if (dir == NULL || dir[0] != '/' || (d = opendir(dir)) == NULL)
        return;
    while ((e = readdir(d)) != NULL)
        for (i = 0; i < cubind__locatable_count; ++i)
            if ((library == SIZE_MAX || library == i) && wanted(list, i) &&
                of_family(e->d_name, cubind__locatables[i].stem) &&
                (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path)
                add_copy(list, i, place, path);
    closedir(d);
}

/* A CUDA root: lib64, lib, targets/<arch>/lib, and the directories the libraries name (nvvm/lib64). */
static void scan_root(struct cubind_copies *list, const char *place, const char *root)
{
    const char *subdir;
    char dir[PATH_MAX];
    size_t i;
    if (root == NULL || root[0] != '/')
        return;
    for (i = 0; (subdir = cubind__root_subdir(i)) != NULL; ++i)
        if ((size_t)snprintf(dir, sizeof dir, "%s/%s", root, subdir) < sizeof dir)
            scan_dir(list, place, dir, SIZE_MAX);
    for (i = 0; i < cubind__locatable_count; ++i)
        if (cubind__locatables[i].root_dir_count > 0 && wanted(list, i) &&
            (size_t)snprintf(dir, sizeof dir, "%s/%s", root, cubind__locatables[i].root_dirs[0]) < sizeof dir)
            scan_dir(list, place, dir, i);
}

/* Each absolute entry of a ':'-separated list, as scan_dir. */
static void scan_list(struct cubind_copies *list, const char *place, const char *value)
{
    char dir[PATH_MAX];
    while (value != NULL && *value != '\0') {
        const char *end = strchr(value, ':');
        size_t n = end != NULL ? (size_t)(end - value) : strlen(value);
        if (n > 0 && n < sizeof dir && value[0] == '/') {
            memcpy(dir, value, n);
            dir[n] = '\0';
            scan_dir(list, place, dir, SIZE_MAX);
        }
        value = end != NULL ? end + 1 : NULL;
    }
}

struct cache_walk {
    struct cubind_copies *list;
    size_t library;
};

static void cache_entry(const char *name, const char *path, void *context)
{
    struct cache_walk *walk = context;
    (void)name;
    add_copy(walk->list, walk->library, "ld.so cache", path);
}

static void scan_places(struct cubind_copies *list, const char *cuda_path)
{
    cubind__dirs sites = {0};
    cubind__ld_cache cache = {0, NULL, 0, 0, 0};
    glob_t roots;
    size_t i, s, w;
    scan_root(list, "--cuda-path", cuda_path);
    scan_list(list, "LD_LIBRARY_PATH", cubind__getenv("LD_LIBRARY_PATH"));
    scan_root(list, "CUDA_PATH", cubind__getenv("CUDA_PATH"));
    scan_root(list, "CUDA_HOME", cubind__getenv("CUDA_HOME"));
    scan_root(list, "conda", cubind__getenv("CONDA_PREFIX"));
    cubind__site_packages(&sites);
    for (s = 0; s < sites.count; ++s)
        for (i = 0; i < cubind__locatable_count; ++i)
            for (w = 0; w < cubind__locatables[i].wheel_dir_count && wanted(list, i); ++w) {
                char dir[PATH_MAX];
                if ((size_t)snprintf(dir, sizeof dir, "%s/%s", sites.items[s], cubind__locatables[i].wheel_dirs[w]) <
                    sizeof dir)
                    scan_dir(list, "site-packages", dir, i);
            }
    cubind__dirs_free(&sites);
    for (i = 0; i < cubind__locatable_count; ++i)
        if (wanted(list, i)) {
            struct cache_walk walk = {list, i};
            cubind__ld_cache_each(&cache, cubind__locatables[i].stem, cache_entry, &walk);
        }
    cubind__ld_cache_close(&cache);
    for (i = 0; cubind__system_dir(i) != NULL; ++i)
        scan_dir(list, "system directory", cubind__system_dir(i), SIZE_MAX);
    scan_root(list, "/usr/local/cuda", "/usr/local/cuda");
    if (glob("/usr/local/cuda-*", GLOB_ONLYDIR, NULL, &roots) == 0) {
        for (i = 0; i < roots.gl_pathc; ++i)
            scan_root(list, "/usr/local/cuda", roots.gl_pathv[i]);
        globfree(&roots);
    }
}

/* The CUDA release of a copy: a bound library's release its version is called as; else the major
 * its configuration maps its version to, or the cu<N> (a wheel's) or cuda-<N>[.<M>] (a toolkit's)
 * directory of its path nearest the file. */
static char *release_of(const struct copy *c)
{
    const cubind__locatable *l = &cubind__locatables[c->library];
    const char *p;
    char text[16];
    int major = -1, nearest = -1;
    size_t i;
    if (l->library >= 0 && c->version[0] >= 0) { /* as the loader chooses it for the same version */
        cubind__strbuf ignored = {0};
        /* as the loader calls a file of this soname and version */
        int r = cubind__release_of_file((cubind_library)l->library, c->soname, c->version, &ignored);
        const char *name = r >= 0 ? cubind__release_name((cubind_library)l->library, r) : NULL;
        cubind__strbuf_free(&ignored);
        if (name != NULL)
            return strdup(name);
    }
    if (c->version[0] >= 0 && l->cuda_from_major)
        major = c->version[0];
    for (i = 0; i < l->cuda_of_major_count && c->version[0] >= 0; ++i)
        if (l->cuda_of_major[i][0] == c->version[0])
            major = l->cuda_of_major[i][1];
    /* the cu<N> directory nearest the file: the wheel's own (nvidia/cu13/lib), not one further up,
     * of a directory the user named (VIRTUAL_ENV=/x/cu11/venv) */
    for (p = c->real_path; major < 0 && (p = strstr(p, "/cu")) != NULL; ++p) {
        const char *digits = strncmp(p, "/cuda-", 6) == 0 ? p + 6 : p + 3;
        char *end;
        long value = strtol(digits, &end, 10);
        if (end != digits && (*end == '/' || (digits == p + 6 && *end == '.')) && value > 0 && value < 100)
            nearest = (int)value;
    }
    if (major < 0)
        major = nearest;
    if (major < 0)
        return NULL;
    snprintf(text, sizeof text, "%d", major);
    return strdup(text);
}

/* The copy whose real path is `real` (of library `library`), or NULL. */
static struct copy *copy_of(struct cubind_copies *list, size_t library, const char *real)
{
    size_t i;
    for (i = 0; real != NULL && i < list->count; ++i)
        if (list->items[i].library == library && strcmp(list->items[i].real_path, real) == 0)
            return &list->items[i];
    return NULL;
}

/* Which copy is taken: a bound library's, as cubind_library_info says (loading it when `load`); another's,
 * what dlopen of its sonames, newest first, finds: LD_LIBRARY_PATH, the ld.so cache, the system directories. */
static void mark_chosen(struct cubind_copies *list, size_t library, int load)
{
    const cubind__locatable *l = &cubind__locatables[library];
    cubind__ld_cache cache = {0, NULL, 0, 0, 0};
    char path[PATH_MAX], real[PATH_MAX];
    struct copy *c = NULL;
    const char *by = NULL;
    size_t j, i;
    if (l->library >= 0) {
        struct cubind_library_info info = {.size = sizeof info};
        if ((load || cubind__is_loaded((cubind_library)l->library)) &&
            cubind_library_info((cubind_library)l->library, &info) == CUBIND_OK && info.found) {
            const char *name = info.real_path != NULL ? info.real_path : info.path;
            if (name != NULL && cubind__real_path(name, real) != NULL && (c = copy_of(list, library, real)) == NULL) {
                add_copy(list, library, info.found_by, info.path); /* loaded from a place not searched here */
                c = copy_of(list, library, real);
            }
            by = info.found_by;
        }
    } else {
        for (j = 0; j < l->soname_count && c == NULL; ++j) {
            const char *ld = cubind__getenv("LD_LIBRARY_PATH");
            while (ld != NULL && *ld != '\0' && c == NULL) {
                const char *end = strchr(ld, ':');
                int n = end != NULL ? (int)(end - ld) : (int)strlen(ld);
                if (n > 0 && ld[0] == '/' &&
                    (size_t)snprintf(path, sizeof path, "%.*s/%s", n, ld, l->sonames[j]) < sizeof path &&
                    (c = copy_of(list, library, cubind__real_path(path, real))) != NULL)
                    by = "LD_LIBRARY_PATH";
                ld = end != NULL ? end + 1 : NULL;
            }
            if (c == NULL && cubind__ld_cache_lookup(&cache, l->sonames[j], path, sizeof path) != NULL &&
                (c = copy_of(list, library, cubind__real_path(path, real))) != NULL)
                by = "ld.so cache";
            for (i = 0; cubind__system_dir(i) != NULL && c == NULL; ++i)
                if ((size_t)snprintf(path, sizeof path, "%s/%s", cubind__system_dir(i), l->sonames[j]) < sizeof path &&
                    (c = copy_of(list, library, cubind__real_path(path, real))) != NULL)
                    by = "system directory";
            if (c != NULL) {
                cubind__strbuf text = {0};
                cubind__strbuf_printf(&text, "dlopen(%s): %s", l->sonames[j], by);
                c->chosen_by = cubind__strbuf_take(&text);
                cubind__strbuf_free(&text);
            }
        }
        cubind__ld_cache_close(&cache);
    }
    if (c != NULL) {
        c->chosen = 1;
        if (c->chosen_by == NULL && by != NULL)
            c->chosen_by = strdup(by);
    }
}

/* How many of the copies asked (`asked`, `count` indexes into `list`) are of `c`'s library and in the
 * directory of its real path: a directory of thousands of files named like the library costs at most
 * CUBIND__COPY_QUERIES_PER_DIR children. */
static size_t asked_beside(const struct cubind_copies *list, const size_t *asked, size_t count, const struct copy *c)
{
    const char *slash = strrchr(c->real_path, '/');
    size_t dir = slash != NULL ? (size_t)(slash - c->real_path) + 1 : 0, i, n = 0;
    for (i = 0; i < count; ++i) {
        const struct copy *other = &list->items[asked[i]];
        const char *other_slash = strrchr(other->real_path, '/');
        if (other->library == c->library && other_slash != NULL &&
            (size_t)(other_slash - other->real_path) + 1 == dir && strncmp(other->real_path, c->real_path, dir) == 0)
            ++n;
    }
    return n;
}

/* Record an invalid argument of `function` and return its kind. */
static cubind_error_kind invalid(const char *function, const char *why)
{
    cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, function, 0, "%s: %s", function, why);
    return CUBIND_ERROR_INVALID_ARGUMENT;
}

static int by_library(const void *a, const void *b)
{
    const struct copy *x = a, *y = b;
    if (x->library != y->library)
        return x->library < y->library ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

cubind_error_kind cubind_copies_find(const struct cubind_copies_options *options, cubind_copies **out)
{
    struct cubind_copies *list;
    cubind__strbuf detail = {0};
    size_t i, *asked, asked_count = 0; /* the copies asked in a child, by index */
    unsigned flags = options != NULL ? options->flags : 0;
    const char *cuda_path = options != NULL ? options->cuda_path : NULL;
    if (out == NULL || (options != NULL && options->size == 0))
        return invalid("cubind_copies_find", "out is NULL or options->size is 0");
    *out = NULL;
    if (cuda_path != NULL && cuda_path[0] != '/')
        return invalid("cubind_copies_find", "cuda_path is not an absolute path");
    if ((list = calloc(1, sizeof *list)) == NULL)
        return invalid("cubind_copies_find", "out of memory");
    list->only = SIZE_MAX;
    if (options != NULL && options->library != NULL) {
        for (i = 0; i < cubind__locatable_count && list->only == SIZE_MAX; ++i)
            if (strcmp(cubind__locatables[i].name, options->library) == 0)
                list->only = i;
        if (list->only == SIZE_MAX) {
            free(list);
            return invalid("cubind_copies_find", "no library of that name (cubind_locatable_name)");
        }
    }
    scan_places(list, cuda_path);
    for (i = 0; i < cubind__locatable_count; ++i) /* first: it may add the copy a library was loaded from */
        if (wanted(list, i))
            mark_chosen(list, i, (flags & CUBIND_COPIES_LOAD) != 0);
    if ((asked = calloc(list->count + 1, sizeof *asked)) == NULL) {
        cubind_copies_free(list);
        return invalid("cubind_copies_find", "out of memory");
    }
    for (i = 0; i < list->count; ++i) {
        struct copy *c = &list->items[i];
        const cubind__locatable *l = &cubind__locatables[c->library];
        cubind__strbuf why_not = {0};
        if (flags & CUBIND_COPIES_NO_QUERY)
            cubind__strbuf_printf(&why_not, "CUBIND_COPIES_NO_QUERY");
        else if (c->error != NULL)
            cubind__strbuf_printf(&why_not, "it cannot be loaded");
        else if (l->version_kind != CUBIND__VERSION_FILE_NAME &&
                 asked_beside(list, asked, asked_count, c) >= CUBIND__COPY_QUERIES_PER_DIR)
            cubind__strbuf_printf(&why_not, "%d copies of %s in its directory were asked already (at most %d)",
                                  CUBIND__COPY_QUERIES_PER_DIR, l->name, CUBIND__COPY_QUERIES_PER_DIR);
        else if (l->version_kind != CUBIND__VERSION_FILE_NAME)
            asked[asked_count++] = i;
        c->version_source = cubind__copy_version(l, c->path, c->real_path,
                                                 why_not.length > 0 ? cubind__strbuf_str(&why_not) : NULL, c->version,
                                                 &detail);
        cubind__strbuf_free(&why_not);
        c->version_detail = cubind__strbuf_take(&detail);
        c->release = release_of(c);
    }
    free(asked);
    cubind__strbuf_free(&detail);
    if (list->count > 0)
        qsort(list->items, list->count, sizeof *list->items, by_library);
    *out = list;
    return CUBIND_OK;
}

size_t cubind_copies_count(const cubind_copies *copies)
{
    return copies != NULL ? copies->count : 0;
}

cubind_error_kind cubind_copies_get(const cubind_copies *copies, size_t index, struct cubind_copy *copy)
{
    struct cubind_copy full;
    const struct copy *c;
    if (copies == NULL || copy == NULL || copy->size == 0 || index >= copies->count)
        return invalid("cubind_copies_get", "a NULL list or copy, copy->size 0, or index out of range");
    c = &copies->items[index];
    memset(&full, 0, sizeof full);
    full.size = copy->size < sizeof full ? copy->size : sizeof full;
    full.library = cubind__locatables[c->library].name;
    full.bound = cubind__locatables[c->library].library >= 0;
    full.path = c->path;
    full.real_path = c->real_path;
    full.place = c->place;
    full.places = cubind__strbuf_str(&c->places);
    full.soname = c->soname;
    full.version_major = c->version[0];
    full.version_minor = c->version[1];
    full.version_patch = c->version[2];
    full.version_source = c->version_source;
    full.version_detail = c->version_detail;
    full.release = c->release;
    full.chosen = c->chosen;
    full.chosen_by = c->chosen_by;
    full.error = c->error;
    memcpy(copy, &full, full.size);
    return CUBIND_OK;
}

void cubind_copies_free(cubind_copies *copies)
{
    size_t i;
    if (copies == NULL)
        return;
    for (i = 0; i < copies->count; ++i) {
        struct copy *c = &copies->items[i];
        free(c->path);
        free(c->real_path);
        free(c->soname);
        free(c->error);
        free(c->release);
        free(c->version_detail);
        free(c->chosen_by);
        cubind__strbuf_free(&c->places);
        cubind__strbuf_free(&c->seen);
    }
    free(copies->items);
    free(copies);
}
