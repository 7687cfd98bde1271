/*
 * loader/places.h - the places beyond the system's where a program can find a CUDA library: Python's
 * site-packages directories (found without running Python), the conda prefix, and the switch that
 * makes discovery search them (CUBIND_SEARCH_PYTHON, cubind_set_search_python). Layer 2: includes
 * strbuf.h (1).
 */
#ifndef CUBIND_LOADER_PLACES_H
#define CUBIND_LOADER_PLACES_H

#include <stddef.h>

/* A list of distinct absolute directories, in the order found (malloc'd strings). */
typedef struct cubind__dirs {
    char **items;
    size_t count, capacity;
} cubind__dirs;

/* Append `dir` (joined with `sub` when not NULL) when it is an existing directory whose real path
 * is not already listed. Returns 1 when appended. */
int cubind__dirs_add(cubind__dirs *dirs, const char *dir, const char *sub);
void cubind__dirs_free(cubind__dirs *dirs);

/* Python's site-packages (and dist-packages) directories, without running Python:
 * $VIRTUAL_ENV's, $CONDA_PREFIX's, the entries of $PYTHONPATH, those of the prefix of the first
 * python3 on $PATH, ~/.local's, pyenv's versions, /usr/local/lib/python3.* and /usr/lib/python3*.
 * Environment variables are read with secure_getenv (none in a set-user-ID program). */
void cubind__site_packages(cubind__dirs *out);

/* Whether discovery searches the Python wheels and the conda prefix, before $CUDA_PATH / $CUDA_HOME
 * and the system's defaults: cubind_set_search_python's choice, else CUBIND_SEARCH_PYTHON=1. */
int cubind__search_python(void);

#endif /* CUBIND_LOADER_PLACES_H */
