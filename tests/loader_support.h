/*
 * tests/loader_support.h - what the loader test binaries (test_loader, test_faults)
 * share: a dlopen of their own that counts how often cubind really opens a file,
 * the paths of the mock libraries, and checks that say what they expected.
 *
 * The binary that links loader_support.o defines dlopen, so it must be linked with
 * -Wl,--export-dynamic for libcubind's calls to reach it.
 */
#ifndef CUBIND_TEST_LOADER_SUPPORT_H
#define CUBIND_TEST_LOADER_SUPPORT_H

#include "library_cases.h"

/* How many times something containing `needle` was dlopen'ed (RTLD_NOLOAD probes excluded). */
int opens_of(const char *needle);

/* The C library's dlopen, not counted (for the tests' own look at a file). */
void *uncounted_dlopen(const char *file, int mode);

/* Is a file whose path contains `needle` mapped into this process? (-1: no /proc) */
int mapped(const char *needle);

/* The mock libraries: $CUBIND_TEST_MOCK_DIR, else mock/ beside the test binary;
 * the half mocks: $CUBIND_TEST_HALF_MOCK_DIR, else mock-half/ beside it. */
const char *mock_dir(void);
const char *half_mock_dir(void);
/* Path of a file beside the test binary (`name` relative to its directory). */
const char *beside_binary(const char *name);
/* "<mock_dir>/<soname>", in one of 8 rotating buffers of the calling thread (handlers run in many). */
const char *mock_path(const char *soname);
/* "<half_mock_dir>/<soname>", in one of 8 rotating buffers of the calling thread. */
const char *half_mock(const char *soname);

/* The soname of each mock, in cubind_library order (tests/library_cases.h). */
#define mock_sonames_of(lib) (cubind_test_libraries[(lib)].mock_soname)
/* How many of the mock libraries are mapped. */
int mocks_mapped(void);

/* A temporary directory (/tmp/<name>-XXXXXX, mode 0755) for a test binary's files, a path in it
 * (one of 8 rotating buffers a thread), and a copy of the first `limit` bytes (0: all) of a file. */
extern char tmp_dir[256];
int make_tmp_dir(const char *name);
int remove_tmp_dir(void);
const char *tmp_path(const char *name);
int copy_file(const char *from, const char *to, long limit);

/* Print what was expected when the check fails. */
int contains(const char *text, const char *needle);
int same(const char *a, const char *b);

/* "NAME=VALUE" in one of 16 rotating buffers (4 KiB each). */
const char *env_of(const char *name, const char *value);
/* CUBIND_<LIB>_PATH=path_of(<soname>) for every library, then the extra NAME=VALUE entries
 * (NULL-terminated); NULL-terminated, valid until the next call. */
const char *const *library_env(const char *(*path_of)(const char *soname), ...);

#endif /* CUBIND_TEST_LOADER_SUPPORT_H */
