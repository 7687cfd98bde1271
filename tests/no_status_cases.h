/*
 * tests/no_status_cases.h - every function that returns no status, generated from the IR and
 * generator/libraries.toml's `no_status` and `versions` (generated/tests/no_status_cases.c): what its
 * wrapper gives when the call cannot be made, what its mocks answer, so that tests/test_no_status.c
 * checks each without restating one. Built with CUBIND_TEST_DROPIN, each call is NVIDIA's name,
 * through the drop-in.
 */
#ifndef CUBIND_TEST_NO_STATUS_CASES_H
#define CUBIND_TEST_NO_STATUS_CASES_H

#include <stddef.h>

#include "cubind/cubind.h"

/* What a wrapper gives when the call cannot be made (libraries.toml no_status `unavailable`). */
enum cubind_test_unavailable {
    CUBIND_TEST_UNDECIDED = 0, /* no decision: a failure of the test */
    CUBIND_TEST_TEXT,          /* the static text (into the buffer, for a void function given one) */
    CUBIND_TEST_NEGATED,       /* the fixed status of the failure, negated */
    CUBIND_TEST_ZERO,          /* 0, NULL, a record of zeros */
    CUBIND_TEST_NOTHING        /* a void function: nothing */
};

/* What a mock answers (libraries.toml no_status `mock`). */
enum cubind_test_mock {
    CUBIND_TEST_MOCK_NAME = 1, /* the name of the argument's constant */
    CUBIND_TEST_MOCK_EMPTY,    /* "" */
    CUBIND_TEST_MOCK_VERSION,  /* the release's version */
    CUBIND_TEST_MOCK_ARGUMENT, /* the value of an argument */
    CUBIND_TEST_MOCK_CONSTANT, /* a constant of the headers */
    CUBIND_TEST_MOCK_ZERO      /* 0, NULL, a record of zeros (or what the test set) */
};

/* A call's result: a number, or a string (`is_text`). */
struct cubind_test_result {
    long long value;
    const char *text;
    int is_text;
};

struct cubind_test_name {
    long long value;
    const char *name;
};

/* A version: its parts (major, minor, patch) and the one integer its encoding makes of them. */
struct cubind_test_version_value {
    int parts[3];
    long long encoded;
};

/* What the installed mocks of one release answer (cubind_test_releases[i]). */
struct cubind_test_release_answer {
    int present;                               /* the release's folder holds the library's mock */
    const struct cubind_test_name *names;      /* CUBIND_TEST_MOCK_NAME: the release's constants */
    size_t name_count;
    struct cubind_test_version_value version;  /* CUBIND_TEST_MOCK_VERSION */
};

struct cubind_test_no_status {
    cubind_library library;
    const char *function;              /* the C API name */
    int returns_number;                /* a rule's number scripts it (CUBIND_MOCK_STATUS) */
    int in_half_mock;                  /* the half mock (every other symbol) exports it */
    int unavailable;                   /* enum cubind_test_unavailable */
    const char *text;                  /* CUBIND_TEST_TEXT: the text */
    int takes_buffer;                  /* the text goes into the buffer the call is given */
    int mock;                          /* enum cubind_test_mock */
    long long constant;                /* CUBIND_TEST_MOCK_CONSTANT */
    struct cubind_test_version_value test_version; /* on the tests' mocks (CUBIND_MOCK_VERSION=77.1.2) */
    const struct cubind_test_name *names; /* CUBIND_TEST_MOCK_NAME on the tests' mocks */
    size_t name_count;
    const struct cubind_test_release_answer *releases; /* one per cubind_test_releases */
    /* Calls it with zeros, but `value` for its enum parameter (NAME) or the argument it answers
     * (ARGUMENT), and `buffer` and `size` for the buffer a text goes into. */
    struct cubind_test_result (*call)(long long value, char *buffer, size_t size);
};

/* A version getter that returns a status (libraries.toml `versions`). */
struct cubind_test_version {
    cubind_library library;
    const char *function;
    int by_property;                       /* asked part by part (libraryPropertyType), else encoded */
    struct cubind_test_version_value test_version;
    const struct cubind_test_version_value *releases; /* one per cubind_test_releases; parts[0] -1: absent */
    /* Calls it for `part` (a property) or the encoded version; its status, the answer in *value. */
    int (*call)(int part, long long *value);
};

extern const struct cubind_test_no_status cubind_test_no_status[];
extern const size_t cubind_test_no_status_count;
extern const struct cubind_test_version cubind_test_versions[];
extern const size_t cubind_test_version_count;
/* The CUDA releases whose installed mocks dropin/mocks.mk builds (build/mocks/<release>/), newest first. */
extern const char *const cubind_test_releases[];
extern const size_t cubind_test_release_count;

#endif /* CUBIND_TEST_NO_STATUS_CASES_H */
