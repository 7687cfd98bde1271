/*
 * tests/mock/names.h - the names the mocks' rules may use (generated/tests/mock_names.c, from the IR):
 * every function of every library with its C API name and the symbols its mocks export for it in
 * every release read, and every status of each library by name. The recorder (recorder.c) reads
 * them to resolve and check CUBIND_MOCK_STATUS rules; private to it and its tests.
 */
#ifndef CUBIND_MOCK_NAMES_H
#define CUBIND_MOCK_NAMES_H

#include <stddef.h>

/* What a rule may script of a function. */
enum cubind_mock_scripted {
    CUBIND_MOCK_SCRIPT_STATUS = 1, /* returns a status: a rule gives it (a number or a status name) */
    CUBIND_MOCK_SCRIPT_NUMBER,     /* returns a number that is not a status (cuFileRead): a rule gives it */
    CUBIND_MOCK_SCRIPT_NONE,       /* returns a string, a record or nothing: no rule applies */
    CUBIND_MOCK_SCRIPT_VERSION     /* the library's version query: CUBIND_MOCK_VERSION_STATUS scripts it */
};

struct cubind_mock_function {
    const char *name;     /* its C API name ("cublasSgemm") */
    const char *exports;  /* the symbols its mocks export, each ended by NUL, the list by another */
    unsigned short library;
    unsigned char scripted; /* enum cubind_mock_scripted */
};

struct cubind_mock_status {
    const char *name;
    int value;
    unsigned short library;
};

struct cubind_mock_library {
    const char *name;        /* "cublas" */
    const char *status_type; /* "cublasStatus_t" */
};

struct cubind_mock_names {
    const struct cubind_mock_library *libraries;
    size_t library_count;
    const struct cubind_mock_function *functions;
    size_t function_count;
    const struct cubind_mock_status *statuses; /* of every release read: a name 11.8 has and 13.0 dropped too */
    size_t status_count;
};

extern const struct cubind_mock_names cubind_mock_names __attribute__((visibility("hidden")));

#endif /* CUBIND_MOCK_NAMES_H */
