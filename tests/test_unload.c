/*
 * tests/test_unload.c - libcubind stays loaded after dlclose (it is linked -z nodelete).
 *
 * This program is not linked to libcubind: it opens it with dlopen (as an FFI does), lets it
 * register its fork handlers (the load lock's pthread_atfork), closes it, and forks. Were
 * libcubind unmapped, fork() would call handlers that are no longer there.
 * CUBIND_TEST_LIBRARY is the path of the libcubind.so.0 under test.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cubind/cubind.h"

static void test_dlclose_leaves_libcubind_loaded(void **state)
{
    const char *path = getenv("CUBIND_TEST_LIBRARY");
    void *library, *again;
    cubind_error_kind (*load)(cubind_library);
    int status = -1;
    pid_t child;
    (void)state;
    assert_non_null(path);
    library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(library);
    *(void **)&load = dlsym(library, "cubind_load");
    assert_non_null(load);
    /* Takes the load lock, which registers the fork handlers; the load itself fails (no such file). */
    assert_int_equal(load(CUBIND_LIB_CUFFT), CUBIND_ERROR_LIBRARY_NOT_FOUND);
    assert_int_equal(dlclose(library), 0);

    again = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(again); /* still mapped */
    assert_int_equal(dlclose(again), 0);

    child = fork();
    assert_true(child >= 0);
    if (child == 0)
        _exit(0);
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dlclose_leaves_libcubind_loaded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
