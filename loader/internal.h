/*
 * loader/internal.h - what generated sources and the loader share; not installed.
 *
 * Each library's generated source owns a symbol table: its names in one string
 * (addressed by offsets, so the table needs no relocation at start-up) and one
 * atomic slot per function. A wrapper's hot path is cubind__cached(): one load
 * of its slot, one test, the indirect call, then the status test; everything
 * else (the first call, an unavailable function, tracing) is its cold slow path.
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

/* Where a function's three names start in its table's `strings`. */
typedef struct cubind__name_offsets {
    unsigned symbol;      /* the exported symbol ("cublasSgemm_v2") */
    unsigned name;        /* the C API name ("cublasSgemm") */
    unsigned cubind_name; /* the wrapper's name ("cubind_cublas_sgemm") */
} cubind__name_offsets;

typedef struct cubind__symbol_table {
    cubind_library library;
    size_t count;
    const char *strings;                 /* every name, each NUL-terminated */
    const cubind__name_offsets *offsets; /* count of them */
    cubind__slot *slots;        /* read by the hot path; never written while tracing, so that every
                                   call takes the slow path, which traces */
    cubind__slot *traced_slots; /* resolved symbols while tracing */
} cubind__symbol_table;

static inline const char *cubind__symbol_name(const cubind__symbol_table *table, size_t index)
{
    return table->strings + table->offsets[index].symbol;
}

static inline const char *cubind__function_name(const cubind__symbol_table *table, size_t index)
{
    return table->strings + table->offsets[index].name;
}

/* The strings of a function follow each other (symbol, C API name when it differs, cubind name),
 * with no padding: the C API name ends where the cubind name starts. */
static inline size_t cubind__function_name_length(const cubind__symbol_table *table, size_t index)
{
    return table->offsets[index].cubind_name - table->offsets[index].name - 1;
}

static inline const char *cubind__cubind_name(const cubind__symbol_table *table, size_t index)
{
    return table->strings + table->offsets[index].cubind_name;
}

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

/* The slow path: load the library, resolve the symbol (cached in `slots`, or in `traced_slots`
 * while tracing). NULL after recording a library-not-found or symbol-not-found error; then, when
 * `unavailable_status` is not NULL, it holds the status a status-returning wrapper returns:
 * the library's fixed missing-library or missing-symbol code, decided where the failure
 * happened (before the error handler ran, so nothing the handler does can change it). */
cubind__fnptr cubind__resolve(const cubind__symbol_table *table, size_t index, int *unavailable_status);

/* cubind_status_name, with the name's length in `*length` (not written when NULL is returned). */
const char *cubind__status_name_length(cubind_library library, int status, size_t *length);

/* Record that function `index` returned the non-success `status`, call the error handler,
 * and return `status` (so that a wrapper's failure branch is one tail call). */
CUBIND_COLD int cubind__status_error(const cubind__symbol_table *table, size_t index, int status);

/* The hot path's read of a slot: NULL until resolved, and always NULL while tracing. */
static inline cubind__fnptr cubind__cached(cubind__slot *slot)
{
    return atomic_load_explicit(slot, memory_order_acquire);
}

/* After the success test: `status` is returned as the callee left it in its register. Without
 * this, gcc re-materialises the success constant it now knows (one more instruction a call). */
#if defined(__GNUC__) || defined(__clang__)
#define CUBIND_AS_RETURNED(status) __asm__("" : "+r"(status))
#else
#define CUBIND_AS_RETURNED(status) ((void)0)
#endif

#endif /* CUBIND_LOADER_INTERNAL_H */
