/*
 * loader/internal.h - what generated sources and the loader share; not installed.
 *
 * Each library's generated source owns a symbol table (exported names and one
 * atomic slot per function). A wrapper's hot path is cubind__symbol(): one
 * acquire load of its slot, one test, then the indirect call.
 */
#ifndef CUBIND_LOADER_INTERNAL_H
#define CUBIND_LOADER_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>

#include "cubind/cubind.h"

#if defined(__GNUC__) || defined(__clang__)
#define CUBIND_LIKELY(x) __builtin_expect(!!(x), 1)
#define CUBIND_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CUBIND_COLD __attribute__((cold, noinline))
#else
#define CUBIND_LIKELY(x) (x)
#define CUBIND_UNLIKELY(x) (x)
#define CUBIND_COLD
#endif

/* Any function pointer; converted to the wrapper's exact type before the call. */
typedef void (*cubind__fnptr)(void);
typedef _Atomic(cubind__fnptr) cubind__slot;

typedef struct cubind__symbol_table {
    cubind_library library;
    size_t count;
    const char *const *symbols;      /* exported symbol of each slot ("cublasSgemm_v2") */
    const char *const *names;        /* C API name ("cublasSgemm") */
    const char *const *cubind_names; /* wrapper name ("cubind_cublas_sgemm") */
    cubind__slot *slots;
} cubind__symbol_table;

/* Ask a loaded library its version through its own query function (already resolved).
 * Returns 0 and fills version[0..2], or -1 with the failing native status in *status. */
typedef int (*cubind__version_query)(cubind__fnptr query, int version[3], int *status);

typedef struct cubind__library_desc {
    const char *name;                   /* "cublas" */
    const char *file;                   /* "libcublas": its sonames' stem, how messages name it */
    const char *env_var;                /* "CUBIND_CUBLAS_PATH" */
    const char *const *sonames;         /* newest first */
    size_t soname_count;
    const char *version_query_name;     /* "cublasGetProperty", or NULL: read the file name */
    cubind__version_query version_query;
    const int *refused_statuses;        /* statuses of the version query that mean "not this library" */
    const char *const *refusal_reasons; /* what such a file is, one per status */
    size_t refused_count;
    int status_success;
    int status_missing_library;
    int status_missing_symbol;
    const cubind__symbol_table *symbols;
} cubind__library_desc;

extern const cubind__library_desc cubind__libraries[CUBIND_LIBRARY_COUNT];

/* Slow path of cubind__symbol: load the library, resolve and cache the symbol.
 * NULL after recording a library-not-found or symbol-not-found error; then, when
 * `unavailable_status` is not NULL, it holds the status a status-returning wrapper returns:
 * the library's fixed missing-library or missing-symbol code, decided where the failure
 * happened (before the error handler ran, so nothing the handler does can change it). */
cubind__fnptr cubind__resolve(const cubind__symbol_table *table, size_t index, int *unavailable_status);

/* Record a non-success status of function `index` and call the error handler. */
CUBIND_COLD void cubind__status_error(const cubind__symbol_table *table, size_t index, int status);

/* `unavailable_status`: see cubind__resolve; written only when NULL is returned. */
static inline cubind__fnptr cubind__symbol(const cubind__symbol_table *table, cubind__slot *slot, size_t index,
                                           int *unavailable_status)
{
    cubind__fnptr fn = atomic_load_explicit(slot, memory_order_acquire);
    if (CUBIND_LIKELY(fn != NULL))
        return fn;
    return cubind__resolve(table, index, unavailable_status);
}

#endif /* CUBIND_LOADER_INTERNAL_H */
