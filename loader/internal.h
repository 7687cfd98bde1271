/*
 * loader/internal.h - what the generated wrapper sources and the loader share; not installed. Layer 0:
 * includes no loader header, and of the API only its core (cubind/core.h, cubind/inline.h), not the
 * whole generated API. It declares functions of every layer (the symbol tables of the generated sources,
 * cubind__resolve of library.c, the error paths of error.c); which of them a loader file may call
 * is its layer's business (tests/check_loader_layers.py checks the calls). The loader's other
 * tables (the libraries' descriptions, what cubind locates) are tables.h's.
 *
 * Each library's generated source owns a symbol table: its names in one read-only
 * object (addressed by offsets, so the table needs no relocation at start-up), atomic
 * slots, one per function for the inline form and one for tracing, and one offset per
 * function for the out-of-line wrapper. A wrapper's hot path is cubind__target(): its
 * slow path's address plus its offset (0 until resolved, so the first call takes the
 * slow path), the call, then the status test. The slow path is everything else: the
 * first call, an unavailable function, tracing.
 */
#ifndef CUBIND_LOADER_INTERNAL_H
#define CUBIND_LOADER_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cubind/core.h"
#include "cubind/inline.h"

#if defined(__GNUC__) || defined(__clang__)
#define CUBIND_LIKELY(x) __builtin_expect(!!(x), 1)
#define CUBIND_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CUBIND_COLD __attribute__((cold, noinline))
#define CUBIND_NOINLINE __attribute__((noinline))
#else
#define CUBIND_LIKELY(x) (x)
#define CUBIND_UNLIKELY(x) (x)
#define CUBIND_COLD
#define CUBIND_NOINLINE
#endif

/* Any function pointer; converted to the wrapper's exact type before the call. */
typedef void (*cubind__fnptr)(void);
typedef _Atomic(cubind__fnptr) cubind__slot;
/* The inline form (cubind/inline.h) reads the same slots as plain cubind_slot with __atomic builtins. */
_Static_assert(sizeof(cubind__slot) == sizeof(cubind_slot) && _Alignof(cubind__slot) == _Alignof(cubind_slot),
               "an atomic slot is laid out as a plain one");

/* What a shared slow path (generated/src/<library>.c) takes an integer, an enum or a pointer as, and
 * what tracing reads each of them as (loader/trace_log.h). */
typedef unsigned long long cubind__word;

/* What the out-of-line wrapper adds to its slow path's address to reach its function: 0 until
 * resolved (and always while tracing), so that the hot path needs no test before its call. */
typedef _Atomic(uintptr_t) cubind__offset;

/* Where a function's three names start in its table's `strings` (under 64 KiB: the generated
 * source asserts it). */
typedef struct cubind__name_offsets {
    unsigned short symbol;      /* the exported symbol ("cublasSgemm_v2") */
    unsigned short name;        /* the C API name ("cublasSgemm") */
    unsigned short cubind_name; /* the wrapper's name ("cubind_cublas_sgemm") */
} cubind__name_offsets;

/* The header of a library's symbol table (generated/src/<library>.c): the names and their
 * offsets follow it in the same read-only object, at the byte offsets it holds. */
typedef struct cubind__symbol_table {
    cubind_library library;
    size_t count;
    size_t strings_at; /* every name, each NUL-terminated, from the table's address */
    size_t offsets_at; /* count cubind__name_offsets into those names, from the table's address */
    size_t trace_at;   /* what tracing reads (cubind__trace_table), from the table's address; 0: none */
} cubind__symbol_table;

/* What tracing reads of a library's functions (loader/trace_log.c), in the same read-only object
 * as its symbol table, each part at an offset from the table's address: its strings, each
 * function's description (loader/trace_log.h), and the constants of the enums they name, for their
 * names. Offsets into the strings have 16 bits (under 64 KiB: the generated source asserts it).
 * Built without tracing (CUBIND_NO_TRACE), a library has none (trace_at is 0). */
typedef struct cubind__trace_enum_range {
    unsigned short prefix; /* what its constants' names start with ("CUBLAS_OP_"), in the strings */
    unsigned short first;  /* its first constant in `values` and `value_names` */
    unsigned short count;  /* its constants, by ascending value */
} cubind__trace_enum_range;

typedef struct cubind__trace_table {
    unsigned strings;      /* the descriptions, parameter names and constants' names, each NUL-terminated */
    unsigned descriptions; /* count unsigned short: each function's description, in the strings */
    unsigned names;        /* name_count unsigned short: the parameter names a description names by
                              one byte from 0x80 (loader/trace_log.h), in the strings */
    unsigned enums;        /* enum_count cubind__trace_enum_range (the enum numbered n in descriptions: e<n>:) */
    unsigned values;       /* every enum's constants' values: int, or long long (value_size) */
    unsigned value_names;  /* their names after the prefix (unsigned short), in the strings */
    unsigned short name_count;
    unsigned short enum_count;
    unsigned short value_size; /* sizeof of a value: 4 when every one fits in an int, else 8 */
} cubind__trace_table;

static inline const cubind__name_offsets *cubind__name_offsets_of(const cubind__symbol_table *table,
                                                                 size_t index)
{
    return (const cubind__name_offsets *)((const char *)table + table->offsets_at) + index;
}

static inline const char *cubind__symbol_name(const cubind__symbol_table *table, size_t index)
{
    return (const char *)table + table->strings_at + cubind__name_offsets_of(table, index)->symbol;
}

static inline const char *cubind__function_name(const cubind__symbol_table *table, size_t index)
{
    return (const char *)table + table->strings_at + cubind__name_offsets_of(table, index)->name;
}

/* The strings of a function follow each other (symbol, C API name when it differs, cubind name),
 * with no padding: the C API name ends where the cubind name starts. */
static inline size_t cubind__function_name_length(const cubind__symbol_table *table, size_t index)
{
    const cubind__name_offsets *o = cubind__name_offsets_of(table, index);
    return (size_t)o->cubind_name - o->name - 1; /* in size_t: no sign extension */
}

static inline const char *cubind__cubind_name(const cubind__symbol_table *table, size_t index)
{
    return (const char *)table + table->strings_at + cubind__name_offsets_of(table, index)->cubind_name;
}

/* A library's symbol table, its 2 * count slots (the inline form's, then tracing's) and its
 * count offsets (generated/src/<library>.c). */
const cubind__symbol_table *cubind__symbols(cubind_library library);
cubind__slot *cubind__slots(cubind_library library);
cubind__offset *cubind__offsets(cubind_library library);

/* The slow path: load the library, resolve the symbol (cached in its slot, or in its tracing
 * slot while tracing; not tracing, also as its offset from `slow`, the wrapper's slow path).
 * NULL after recording a library-not-found or symbol-not-found error; then, when
 * `unavailable_status` is not NULL, it holds the status a status-returning wrapper returns:
 * the library's fixed missing-library or missing-symbol code, decided where the failure
 * happened (before the error handler ran, so nothing the handler does can change it). */
cubind__fnptr cubind__resolve(const cubind__symbol_table *table, size_t index, int *unavailable_status,
                              cubind__fnptr slow);

/* cubind_status_name, with the name's length in `*length` (not written when NULL is returned). */
const char *cubind__status_name_length(cubind_library library, int status, size_t *length);

/* 1 when `status` is one `library` documents as informational, not a failure (libraries.toml
 * `informational`; generated/src/status_names.c): never recorded, no handler call. */
int cubind__status_informational(cubind_library library, int status);

/* 1 when `status` can mean "no usable GPU" for `library` (libraries.toml `no_gpu`;
 * generated/src/status_names.c): only then does the failure's message say why no GPU can be used. */
int cubind__status_no_gpu(cubind_library library, int status);

/* Record that function `index` returned the non-success `status`, call the error handler,
 * and return `status` (so that a wrapper's failure branch is one tail call). */
CUBIND_COLD int cubind__status_error(const cubind__symbol_table *table, size_t index, int status);

/* The same for a library whose status is a record (status_member in generator/libraries.toml):
 * `detail`, when not NULL, is the record's second member (cuFile's cu_err), which the message names
 * when cubind__status_detail says the status comes with it. */
CUBIND_COLD int cubind__status_error_detail(const cubind__symbol_table *table, size_t index, int status,
                                            const int *detail);

/* A status record's second member (status_detail in generator/libraries.toml; generated/src/libraries.c):
 * 1 when `status` of `library` comes with one, with its name in *member and the library naming its
 * values in *names (CUBIND_LIB_NONE when that library is not in this build); 0 otherwise. */
int cubind__status_detail(cubind_library library, int status, const char **member, cubind_library *names);

/* The same for a library with informational statuses (cubind__status_informational): one of those
 * is only returned. The wrappers of the other libraries call the functions without the test, so
 * that their failure path costs what it did before statuses could be informational. */
CUBIND_COLD int cubind__status_error_informational(const cubind__symbol_table *table, size_t index, int status);
int cubind__wrapper_status_informational(const cubind__symbol_table *table, size_t index, int status);

/* The slow path of a status-returning wrapper returns `status`, not success, and has reported
 * it (the loader's error, or the status through cubind__status_error): returns `status`, and
 * the wrapper's cubind__wrapper_status_error, which follows on this thread, reports nothing. */
CUBIND_COLD int cubind__reported(int status);

/* An out-of-line wrapper's failure branch (through cubind_failed of its library's source):
 * cubind__status_error, unless its slow path has just reported this failure (cubind__reported).
 * Declared here without CUBIND_COLD (error.c defines them so): the branch that calls one would be
 * taken for cold, moved out of its wrapper into a part of its own with an unwind entry of its own;
 * in the wrapper, after the `ret`, it shares the wrapper's, and the success path is the same. */
int cubind__wrapper_status_error(const cubind__symbol_table *table, size_t index, int status);

/* cubind__wrapper_status_error for a library whose status is a record, with its second member. */
int cubind__wrapper_status_error_detail(const cubind__symbol_table *table, size_t index, int status, int detail);

/* A function's number: its index in its library's symbol table, and the library. */
#define CUBIND__FUNCTION_ID(library, index) ((unsigned)(index) << 8 | (unsigned)(library))

/* cubind_status_error given a library or an index that names no function: records an
 * invalid-argument error and returns `status`. */
CUBIND_COLD int cubind__status_error_refused(cubind_library library, unsigned index, int status);

/* ThreadSanitizer sees C11 atomics, not assembly: under it the offset is read in C. */
#if defined(__SANITIZE_THREAD__)
#define CUBIND__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CUBIND__TSAN 1
#endif
#endif

/* The out-of-line wrapper's callee: `slow` plus `*offset`, read with acquire order. On x86-64
 * the read is the `add`'s own operand (an aligned 8-byte load is atomic there, and x86 orders
 * every load as an acquire), which a C11 atomic load is not folded into: one instruction less. */
static inline cubind__fnptr cubind__target(cubind__fnptr slow, cubind__offset *offset)
{
    uintptr_t target = (uintptr_t)slow;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(CUBIND__TSAN)
    __asm__("add %1, %0" : "+r"(target) : "m"(*offset) : "cc");
#else
    target += atomic_load_explicit(offset, memory_order_acquire);
#endif
    return (cubind__fnptr)target;
}

/* After the success test: `status` is returned as the callee left it in its register. Without
 * this, gcc re-materialises the success constant it now knows (one more instruction a call). */
#if defined(__GNUC__) || defined(__clang__)
#define CUBIND_AS_RETURNED(status) __asm__("" : "+r"(status))
#else
#define CUBIND_AS_RETURNED(status) ((void)0)
#endif

#endif /* CUBIND_LOADER_INTERNAL_H */
