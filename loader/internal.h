/*
 * loader/internal.h - what generated sources and the loader share; not installed. Layer 0:
 * includes no loader header. It declares functions of every layer (the tables of the generated
 * sources, cubind__resolve of library.c, the error paths of error.c); which of them a loader
 * file may call is its layer's business (tests/check_loader_layers.py checks the calls).
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

#include "cubind/cubind.h"
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

/* Capacities of a library's description. Its strings are arrays, not pointers, so that the
 * descriptions need no relocation at start-up; generated/src/libraries.c asserts that each fits. */
#define CUBIND__NAME_SIZE 16
#define CUBIND__ENV_VAR_SIZE 40
#define CUBIND__SONAMES_MAX 4
#define CUBIND__SONAME_SIZE 32
#define CUBIND__QUERY_NAME_SIZE 40
#define CUBIND__REFUSED_MAX 2
#define CUBIND__REASON_SIZE 96
/* A CUDA root's directories where the toolkit keeps a library besides lib64, lib ("nvvm/lib64") */
#define CUBIND__ROOT_DIRS_MAX 1
#define CUBIND__ROOT_DIR_SIZE 24

typedef struct cubind__library_desc {
    cubind_library library;              /* its index in cubind__libraries */
    char name[CUBIND__NAME_SIZE];        /* "cublas" */
    char file[CUBIND__SONAME_SIZE];      /* "libcublas": its sonames' stem, how messages name it */
    char env_var[CUBIND__ENV_VAR_SIZE];  /* "CUBIND_CUBLAS_PATH" */
    char sonames[CUBIND__SONAMES_MAX][CUBIND__SONAME_SIZE]; /* newest first */
    size_t soname_count;
    char version_query_name[CUBIND__QUERY_NAME_SIZE]; /* "cublasGetProperty", or "": read the file name */
    char version_init_name[CUBIND__QUERY_NAME_SIZE]; /* called before the query ("nvmlInit_v2"), or "" */
    int refused_statuses[CUBIND__REFUSED_MAX]; /* statuses of the version query that mean "not this library" */
    char refusal_reasons[CUBIND__REFUSED_MAX][CUBIND__REASON_SIZE]; /* what such a file is, one per status */
    size_t refused_count;
    unsigned long long coupled;          /* bit (1 << library) of each library it must share a release with */
    int serves_every_release;            /* one library for every CUDA release (the driver) */
    int soname_versioned;                /* its soname's number is its major version (not libcuda.so.1's) */
    int abi_version;                     /* the CUDA version the bindings were generated for: 13000 */
    int status_success;
    int status_missing_library;
    int status_missing_symbol;
    char root_dirs[CUBIND__ROOT_DIRS_MAX][CUBIND__ROOT_DIR_SIZE]; /* of a CUDA root, besides lib64, ... ("nvvm/lib64") */
    size_t root_dir_count;
} cubind__library_desc;

extern const cubind__library_desc cubind__libraries[CUBIND_LIBRARY_COUNT];

/* The oldest driver that runs a CUDA release (generated/src/libraries.c, from generator/libraries.toml):
 * with all of the release's features, and through minor-version compatibility. Newest release first;
 * cubind__driver_minimum_count entries, then one with an empty release. */
typedef struct cubind__driver_minimum {
    char release[8];      /* "12.4" */
    int full[3];          /* 550, 54, 14 */
    int minor_compat[3];  /* 525, 60, 13 */
    char full_text[16];   /* "550.54.14" */
    char minor_compat_text[16];
} cubind__driver_minimum;
extern const cubind__driver_minimum cubind__driver_minimums[];
extern const size_t cubind__driver_minimum_count;

/* A library's symbol table, its 2 * count slots (the inline form's, then tracing's) and its
 * count offsets (generated/src/<library>.c). */
const cubind__symbol_table *cubind__symbols(cubind_library library);
cubind__slot *cubind__slots(cubind_library library);
cubind__offset *cubind__offsets(cubind_library library);

/* Ask a loaded library its version through its own query function (`query`, resolved from
 * `version_query_name`, which is not "", in `handle`). A library with a `version_init_name` has
 * that function called first and its fini (libraries.toml: version.fini) after, both looked up in
 * `handle` (never a global lookup). Returns 0 and fills version[0..2]; -1 with the query's failing
 * native status in *status; -2 with the init's (or status_missing_symbol when `handle` lacks it).
 * `held_fini`, when not NULL, is set to NULL, or, after a query that succeeded, to the fini, which
 * is then not called: the init stays in force, and the caller calls the fini when it lets the
 * library go (NVML initialized once by the load, not again by the machine's facts). */
int cubind__version_query(cubind_library library, void *handle, cubind__fnptr query, int version[3], int *status,
                          cubind__fnptr *held_fini);

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

/* Every library cubind locates: the bound ones first, at their cubind_library index, then those of
 * generator/libraries.toml's [[locate]] (generated/src/locate.c). Arrays, not pointers: nothing is
 * relocated at start-up. What the copies of a library are, and their versions: loader/copies.c. */
#define CUBIND__LOCATE_NAME_SIZE 32
#define CUBIND__LOCATE_SONAMES_MAX 6
#define CUBIND__LOCATE_SONAME_SIZE 40
#define CUBIND__WHEEL_DIRS_MAX 2
#define CUBIND__WHEEL_DIR_SIZE 32
#define CUBIND__CUDA_MAP_MAX 4

enum cubind__version_kind {
    CUBIND__VERSION_PROPERTY = 1,    /* f(libraryPropertyType, int *) for MAJOR, MINOR, PATCH; 0 is success */
    CUBIND__VERSION_ENCODED = 2,     /* one number, through an int * (0 is success) or returned (size_t) */
    CUBIND__VERSION_MAJOR_MINOR = 3, /* f(int *major, int *minor); 0 is success */
    CUBIND__VERSION_FILE_NAME = 4    /* no function: the numbers of the file's name */
};

typedef struct cubind__locatable {
    char name[CUBIND__LOCATE_NAME_SIZE];   /* "cublas", "cupti" */
    char stem[CUBIND__LOCATE_SONAME_SIZE]; /* "libcupti": every <stem>.so[.N...] is of its family */
    int library;                           /* its cubind_library, or -1: located, not bound */
    char sonames[CUBIND__LOCATE_SONAMES_MAX][CUBIND__LOCATE_SONAME_SIZE]; /* newest first */
    unsigned char soname_count;
    char wheel_dirs[CUBIND__WHEEL_DIRS_MAX][CUBIND__WHEEL_DIR_SIZE]; /* relative to site-packages */
    unsigned char wheel_dir_count;
    char root_dirs[CUBIND__ROOT_DIRS_MAX][CUBIND__ROOT_DIR_SIZE];    /* of a CUDA root, besides lib64, ... */
    unsigned char root_dir_count;
    unsigned char version_kind;            /* enum cubind__version_kind */
    unsigned char returns_value;           /* ENCODED: the function returns the number */
    char version_function[CUBIND__QUERY_NAME_SIZE];
    int encoding[3];                       /* ENCODED: part i = value % encoding[i-1] / encoding[i] */
    unsigned char encoding_count;
    unsigned char cuda_from_major;         /* the library's major is the CUDA major it belongs to */
    unsigned char cuda_of_major[CUBIND__CUDA_MAP_MAX][2]; /* {library major, CUDA major} */
    unsigned char cuda_of_major_count;
} cubind__locatable;

extern const cubind__locatable cubind__locatables[];
extern const size_t cubind__locatable_count;

#endif /* CUBIND_LOADER_INTERNAL_H */
