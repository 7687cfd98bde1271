/*
 * loader/places.c - Python's and conda's places (see places.h). Nothing here runs Python: the
 * site-packages directories are those its installations lay out, found with glob(3) under the
 * prefixes the environment names; a prefix is literal (its glob characters escaped), only the parts
 * cubind adds are patterns. Layer 2: calls the platform seam (0: the environment, real paths).
 */
#define _GNU_SOURCE
#include "places.h"

#include <glob.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cubind/copies.h"
#include "platform.h"

int cubind__dirs_add(cubind__dirs *dirs, const char *dir, const char *sub)
{
    char joined[PATH_MAX], real[PATH_MAX];
    struct stat st;
    size_t i;
    if (dir == NULL || dir[0] != '/')
        return 0;
    if ((size_t)snprintf(joined, sizeof joined, "%s%s%s", dir, sub != NULL ? "/" : "", sub != NULL ? sub : "") >=
        sizeof joined)
        return 0;
    if (stat(joined, &st) != 0 || !S_ISDIR(st.st_mode) || cubind__real_path(joined, real) == NULL)
        return 0;
    for (i = 0; i < dirs->count; ++i)
        if (strcmp(dirs->items[i], real) == 0)
            return 0;
    if (dirs->count == dirs->capacity) {
        size_t capacity = dirs->capacity ? dirs->capacity * 2 : 8;
        char **items = realloc(dirs->items, capacity * sizeof *items);
        if (items == NULL)
            return 0;
        dirs->items = items;
        dirs->capacity = capacity;
    }
    if ((dirs->items[dirs->count] = strdup(real)) == NULL)
        return 0;
    dirs->count++;
    return 1;
}

void cubind__dirs_free(cubind__dirs *dirs)
{
    size_t i;
    for (i = 0; i < dirs->count; ++i)
        free(dirs->items[i]);
    free(dirs->items);
    dirs->items = NULL;
    dirs->count = dirs->capacity = 0;
}

/* `prefix` into `out` (`size` bytes) with glob's special characters escaped, so that glob reads it as
 * the directory it names: a directory the user names (VIRTUAL_ENV=/x/venv[1]) is never a pattern
 * (which would match /x/venv1). Returns its length, or `size` when it does not fit. */
static size_t escape_glob(char *out, size_t size, const char *prefix)
{
    size_t n = 0;
    for (; *prefix != '\0'; ++prefix) {
        if (strchr("*?[]\\", *prefix) != NULL) {
            if (n + 1 >= size)
                return size;
            out[n++] = '\\';
        }
        if (n + 1 >= size)
            return size;
        out[n++] = *prefix;
    }
    out[n] = '\0';
    return n;
}

/* Every directory matching `prefix` (literal: escaped) + `pattern` (cubind's own glob), in glob's
 * sorted order. */
static void add_glob(cubind__dirs *out, const char *prefix, const char *pattern)
{
    char full[PATH_MAX];
    glob_t found;
    size_t i, n;
    if (prefix == NULL || prefix[0] != '/' || (n = escape_glob(full, sizeof full, prefix)) >= sizeof full ||
        (size_t)snprintf(full + n, sizeof full - n, "%s", pattern) >= sizeof full - n)
        return;
    if (glob(full, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &found) != 0)
        return;
    /* newest Python first: a reversed lexical order puts python3.9 before python3.12, so sort by length too */
    for (i = 0; i < found.gl_pathc; ++i) {
        size_t j, best = i;
        for (j = i + 1; j < found.gl_pathc; ++j) {
            size_t a = strlen(found.gl_pathv[j]), b = strlen(found.gl_pathv[best]);
            if (a > b || (a == b && strcmp(found.gl_pathv[j], found.gl_pathv[best]) > 0))
                best = j;
        }
        if (best != i) {
            char *t = found.gl_pathv[i];
            found.gl_pathv[i] = found.gl_pathv[best];
            found.gl_pathv[best] = t;
        }
        cubind__dirs_add(out, found.gl_pathv[i], NULL);
    }
    globfree(&found);
}

/* A prefix's site-packages: lib/python3.N/site-packages (and lib64's, and Debian's dist-packages). */
static void add_prefix(cubind__dirs *out, const char *prefix)
{
    add_glob(out, prefix, "/lib/python3*/site-packages");
    add_glob(out, prefix, "/lib64/python3*/site-packages");
    add_glob(out, prefix, "/lib/python3*/dist-packages");
    add_glob(out, prefix, "/local/lib/python3*/dist-packages");
}

/* `path` cut at its last '/' twice: the prefix of <prefix>/bin/python3. 0 when it has none. */
static int prefix_of(char *path)
{
    int cuts;
    for (cuts = 0; cuts < 2; ++cuts) {
        char *slash = strrchr(path, '/');
        if (slash == NULL || slash == path)
            return 0;
        *slash = '\0';
    }
    return 1;
}

/* The prefix of the first python3 on $PATH (a venv's or the system's), and that of the interpreter
 * it links to (a venv's bin/python3 is a link to the base interpreter). */
static void add_path_python(cubind__dirs *out)
{
    const char *path = cubind__getenv("PATH");
    char file[PATH_MAX], real[PATH_MAX];
    while (path != NULL && *path != '\0') {
        const char *end = strchr(path, ':');
        size_t n = end != NULL ? (size_t)(end - path) : strlen(path);
        if (n > 0 && path[0] == '/' && n + sizeof "/python3" <= sizeof file) {
            memcpy(file, path, n);
            memcpy(file + n, "/python3", sizeof "/python3");
            if (access(file, X_OK) == 0) {
                int resolved = cubind__real_path(file, real) != NULL;
                if (prefix_of(file))
                    add_prefix(out, file);
                if (resolved && prefix_of(real))
                    add_prefix(out, real);
                return;
            }
        }
        path = end != NULL ? end + 1 : NULL;
    }
}

void cubind__site_packages(cubind__dirs *out)
{
    const char *value;
    char home[PATH_MAX];
    add_prefix(out, cubind__getenv("VIRTUAL_ENV"));
    add_prefix(out, cubind__getenv("CONDA_PREFIX"));
    value = cubind__getenv("PYTHONPATH");
    while (value != NULL && *value != '\0') {
        const char *end = strchr(value, ':');
        size_t n = end != NULL ? (size_t)(end - value) : strlen(value);
        if (n > 0 && n < sizeof home) {
            memcpy(home, value, n);
            home[n] = '\0';
            cubind__dirs_add(out, home, NULL);
        }
        value = end != NULL ? end + 1 : NULL;
    }
    add_path_python(out);
    value = cubind__getenv("HOME");
    if (value != NULL && (size_t)snprintf(home, sizeof home, "%s/.local", value) < sizeof home)
        add_glob(out, home, "/lib/python3*/site-packages");
    /* pyenv's interpreters (its python3 on $PATH is a shell script, whose prefix says nothing) */
    value = cubind__getenv("PYENV_ROOT");
    if (value != NULL)
        add_glob(out, value, "/versions/*/lib/python3*/site-packages");
    else if ((value = cubind__getenv("HOME")) != NULL &&
             (size_t)snprintf(home, sizeof home, "%s/.pyenv", value) < sizeof home)
        add_glob(out, home, "/versions/*/lib/python3*/site-packages");
    add_glob(out, "/usr/local", "/lib/python3*/dist-packages");
    add_glob(out, "/usr/local", "/lib/python3*/site-packages");
    add_glob(out, "/usr", "/lib/python3*/dist-packages");
    cubind__dirs_add(out, "/usr/lib/python3/dist-packages", NULL);
}

/* -1: not chosen through the API (the environment decides), else 0 or 1. */
static atomic_int chosen = -1;

int cubind__search_python(void)
{
    const char *value;
    int on = atomic_load_explicit(&chosen, memory_order_acquire);
    if (on >= 0)
        return on;
    value = cubind__getenv("CUBIND_SEARCH_PYTHON");
    return value != NULL && strcmp(value, "1") == 0;
}

void cubind_set_search_python(int on)
{
    atomic_store_explicit(&chosen, on < 0 ? -1 : on != 0, memory_order_release);
}
