/*
 * tests/library_cases.h - one case per library cubind loads, generated from
 * generator/libraries.toml (generated/tests/library_cases.c), so the loader
 * tests iterate over every library instead of restating its facts.
 */
#ifndef CUBIND_TEST_LIBRARY_CASES_H
#define CUBIND_TEST_LIBRARY_CASES_H

#include <stddef.h>

#include "cubind/cubind.h"

struct cubind_test_library {
    cubind_library library;
    const char *name;                        /* "cublas" */
    const char *env_var;                     /* "CUBIND_CUBLAS_PATH" */
    const char *const *sonames;              /* newest first */
    size_t soname_count;
    int status_missing_library;              /* the fixed statuses and their names */
    const char *status_missing_library_name;
    int status_missing_symbol;
    const char *status_missing_symbol_name;
    const char *version_kind;                /* "property", "encoded", "major-minor", "file-name" */
    int version_parts;                       /* how many of major.minor.patch the query gives (0: file name) */
    int version_calls;                       /* calls of the query a load makes (GetProperty: one a part) */
    int (*first_call)(void);                 /* a status-returning wrapper of the library, its status */
    const char *first_call_function;         /* its C API name */
    int (*missing_call)(void);               /* a wrapper whose symbol the half mock lacks */
    const char *missing_call_function;       /* its C API name */
    const char *missing_call_symbol;         /* the exported symbol it needs */
    const char *header_version;              /* of the headers the bindings come from: "13.1.0", "13.0" */
    size_t version_refusals;                 /* statuses of the version query that refuse a file (a stub) */
    int soname_versioned;                    /* the soname's number is the major version */
    const int *informational;                /* the statuses it documents as informational (NULL: none) */
    const char *const *informational_names;
    size_t informational_count;
    int status_failure;                      /* a status that is a failure: neither success nor informational */
    const char *status_failure_name;
    int abi_version;                         /* one library for every release (the driver): the
                                                bindings' CUDA version; else 0 */
    const char *wheel_dir;                   /* its first pip wheel directory ("nvidia/cu13/lib"), or NULL */
    const int *no_gpu;                       /* the statuses that can mean "no usable GPU" (NULL: none) */
    const char *const *no_gpu_names;
    size_t no_gpu_count;
    int status_not_gpu;                      /* a failure that cannot: its message never says why no GPU */
    const char *status_not_gpu_name;
    const char *mock_soname;                 /* the soname its mocks carry: the newest of a major the
                                                bindings read (libnvjpeg.so.13) */
    size_t removed;                          /* functions the newest release removed (kept from the release
                                                the library was first bound from): missing on its mock too */
};

extern const struct cubind_test_library cubind_test_libraries[];
extern const size_t cubind_test_library_count;

#endif /* CUBIND_TEST_LIBRARY_CASES_H */
