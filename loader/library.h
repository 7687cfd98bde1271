/*
 * loader/library.h - the load state and resolution of library.c, for the layer above it (info.c).
 * Layer 7.
 */
#ifndef CUBIND_LIBRARY_H
#define CUBIND_LIBRARY_H

#include <stddef.h>

#include "internal.h"
#include "opened.h"
#include "releases.h"

enum { CUBIND__LOAD_OK = 0, CUBIND__LOAD_FAILED = -1, CUBIND__LOAD_REENTERED = -2 };

/* 1 for a library id of this build, else 0; the record of an unknown one, and its kind. */
int cubind__valid_library(cubind_library library);
cubind_error_kind cubind__invalid_library(const char *function, cubind_library library);

/* Load `library` once (CUBIND__LOAD_*), and why it failed (valid for as long as the copy is loaded:
 * the life of the process for libcubind.so, never unloaded; cubind__unloading, loader/platform.h). */
int cubind__ensure_loaded(cubind_library library);
const char *cubind__load_error(cubind_library library, int outcome);
/* Record that `library` could not be loaded for `function` (a wrapper's name) or `api`. */
void cubind__record_load_failure(cubind_library library, const char *function, const char *api, int outcome);

/* Whether it is loaded, what was opened, and the release it is called as (loaded only). */
int cubind__is_loaded(cubind_library library);
const cubind__opened *cubind__opened_of(cubind_library library);
int cubind__release_in_use(cubind_library library);
/* cubind_require_release: record that `library` is accepted from CUDA major.minor on, atomically with
 * respect to a load in progress (which finishes first); the release it is loaded as then, or -1. */
int cubind__require_release_in_use(cubind_library library, int major, int minor);

/* What a call of function `index` is in the loaded library's release (releases.h). */
void cubind__resolve_in_release(cubind_library library, const cubind__symbol_table *table, size_t index,
                                cubind__resolution *out);

/* Every function of a loaded library resolved once (those callable cached): how many are
 * callable, and the C API names of the others. */
void cubind__census(cubind_library library, size_t *found, const char *const **missing, size_t *missing_count);

/* Every C API name of `library`, built on first use and kept (NULL when out of memory). */
const char *const *cubind__all_names(cubind_library library);

/* The copy is being unloaded (cubind__unloading, loader/platform.h): free what every library's state keeps (its opened
 * description, the texts of its failures, its path, its census) and forget it; the libraries
 * opened stay open. */
void cubind__library_unload(void);


#endif /* CUBIND_LIBRARY_H */
