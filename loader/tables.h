/*
 * loader/tables.h - the generated tables the loader reads besides the symbol tables: each library's
 * description (generated/src/libraries.c), the oldest driver of each CUDA release, and every library
 * cubind locates (generated/src/locate.c); not installed. Layer 0: includes the core API
 * (cubind/core.h) only. Arrays, not pointers: nothing here is relocated at start-up.
 */
#ifndef CUBIND_LOADER_TABLES_H
#define CUBIND_LOADER_TABLES_H

#include <stddef.h>

#include "cubind/core.h"

/* Any function pointer (as internal.h has it: C11 lets a typedef be repeated). */
typedef void (*cubind__fnptr)(void);

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

#endif /* CUBIND_LOADER_TABLES_H */
