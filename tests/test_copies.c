/*
 * tests/test_copies.c - cubind/copies.h from C: the arguments refused, the libraries listed, every
 * bound library's mock found in a given CUDA root with the version its own query gives (asked in a
 * child; the same as cubind_library_info says of the file once loaded), and the discovery switch
 * set through the API (cubind_set_search_python), each way in a child process of its own (a library
 * is loaded once). The fixture trees are made here, in a temporary directory, of links to the mocks
 * (tests/loader_support.h); a directory named by the environment is never a glob pattern.
 * tests/copies/test_copies.py drives the same through cubind-probe --all.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cubind/cubind.h"
#include "loader_support.h"

static const char recorder[] = "libcubind_mock_recorder.so"; /* the mocks' dependency, beside them */

/* mkdir -p */
static void make_dirs(const char *path)
{
    char buf[1024];
    size_t i;
    snprintf(buf, sizeof buf, "%s", path);
    for (i = 1; buf[i] != '\0'; ++i)
        if (buf[i] == '/') {
            buf[i] = '\0';
            mkdir(buf, 0755);
            buf[i] = '/';
        }
    mkdir(buf, 0755);
}

/* Links to every mock (and their recorder) in `dir`; returns how many libraries it holds. */
static size_t link_mocks(const char *dir, int only_with_wheels)
{
    char link[1200];
    size_t i, n = 0;
    make_dirs(dir);
    snprintf(link, sizeof link, "%s/%s", dir, recorder);
    assert_int_equal(symlink(mock_path(recorder), link), 0);
    for (i = 0; i < cubind_test_library_count; ++i) {
        if (only_with_wheels && cubind_test_libraries[i].wheel_dir == NULL)
            continue;
        snprintf(link, sizeof link, "%s/%s", dir, mock_sonames_of(i));
        assert_int_equal(symlink(mock_path(mock_sonames_of(i)), link), 0);
        n++;
    }
    return n;
}

static void test_invalid_arguments(void **state)
{
    struct cubind_copies_options options = {.size = sizeof options};
    struct cubind_copy copy = {.size = sizeof copy};
    cubind_copies *copies = NULL;
    (void)state;
    assert_int_equal(cubind_copies_find(NULL, NULL), CUBIND_ERROR_INVALID_ARGUMENT);
    options.size = 0;
    assert_int_equal(cubind_copies_find(&options, &copies), CUBIND_ERROR_INVALID_ARGUMENT);
    assert_null(copies);
    options.size = sizeof options;
    options.library = "no-such-library";
    assert_int_equal(cubind_copies_find(&options, &copies), CUBIND_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cubind_last_error()->kind, CUBIND_ERROR_INVALID_ARGUMENT);
    assert_true(contains(cubind_last_error()->message, "cubind_copies_find"));
    options.library = NULL;
    options.cuda_path = "relative/cuda";
    assert_int_equal(cubind_copies_find(&options, &copies), CUBIND_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cubind_copies_get(NULL, 0, &copy), CUBIND_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cubind_copies_count(NULL), 0);
    cubind_copies_free(NULL);
}

static void test_every_library_is_locatable(void **state)
{
    size_t i, j, n = cubind_locatable_count();
    (void)state;
    assert_true(n > (size_t)CUBIND_LIBRARY_COUNT); /* the bound ones, then those only located */
    for (i = 0; i < (size_t)CUBIND_LIBRARY_COUNT; ++i)
        assert_true(same(cubind_locatable_name(i), cubind_library_name((cubind_library)i)));
    for (i = 0; i < n; ++i)
        for (j = i + 1; j < n; ++j)
            assert_false(strcmp(cubind_locatable_name(i), cubind_locatable_name(j)) == 0);
    assert_null(cubind_locatable_name(n));
}

/* Every bound library's mock in a root given as cuda_path: listed first, at "--cuda-path", with the
 * version its query answers in a child, which is what cubind says of the same file once loaded. */
static void test_a_given_root(void **state)
{
    char root[512], lib64[600], real[4096];
    size_t i, k, listed = 0;
    (void)state;
    snprintf(root, sizeof root, "%s/root", tmp_dir);
    snprintf(lib64, sizeof lib64, "%s/lib64", root);
    link_mocks(lib64, 0);
    for (i = 0; i < cubind_test_library_count; ++i) {
        struct cubind_copies_options options = {.size = sizeof options, .library = cubind_test_libraries[i].name,
                                                .cuda_path = root};
        struct cubind_library_info info = {.size = sizeof info};
        struct cubind_copy copy = {.size = sizeof copy};
        cubind_copies *copies = NULL;
        assert_int_equal(cubind_copies_find(&options, &copies), CUBIND_OK);
        assert_true(cubind_copies_count(copies) >= 1);
        assert_int_equal(cubind_copies_get(copies, 0, &copy), CUBIND_OK);
        assert_true(same(copy.library, cubind_test_libraries[i].name) && copy.bound == 1);
        assert_true(same(copy.place, "--cuda-path") && contains(copy.path, lib64));
        assert_non_null(realpath(mock_path(mock_sonames_of(i)), real));
        assert_true(same(copy.real_path, real));
        assert_true(same(copy.soname, mock_sonames_of(i)) && copy.error == NULL);
        for (k = 0; k < cubind_copies_count(copies); ++k) { /* one library's copies only */
            struct cubind_copy other = {.size = sizeof other};
            assert_int_equal(cubind_copies_get(copies, k, &other), CUBIND_OK);
            assert_true(same(other.library, cubind_test_libraries[i].name));
        }
        assert_int_equal(cubind_copies_get(copies, cubind_copies_count(copies), &copy), CUBIND_ERROR_INVALID_ARGUMENT);
        /* the same file loaded into this process */
        assert_int_equal(cubind_set_library_path(cubind_test_libraries[i].library, mock_path(mock_sonames_of(i))),
                         CUBIND_OK);
        assert_int_equal(cubind_library_info(cubind_test_libraries[i].library, &info), CUBIND_OK);
        assert_int_equal(copy.version_major, info.version_major);
        assert_int_equal(copy.version_minor, info.version_minor);
        assert_int_equal(copy.version_patch, info.version_patch);
        assert_true(same(copy.version_source, cubind_test_libraries[i].version_parts > 0 ? "query" : "file-name"));
        assert_true(same(copy.release, info.release));
        assert_false(copy.chosen); /* not asked to load: only a library already loaded is told */
        cubind_copies_free(copies);
        /* now loaded: the copy cubind took is told without CUBIND_COPIES_LOAD */
        assert_int_equal(cubind_copies_find(&options, &copies), CUBIND_OK);
        for (k = 0; k < cubind_copies_count(copies); ++k) {
            struct cubind_copy c = {.size = sizeof c};
            assert_int_equal(cubind_copies_get(copies, k, &c), CUBIND_OK);
            assert_int_equal(c.chosen, strcmp(c.real_path, real) == 0); /* `copy` went with its list */
            if (c.chosen)
                assert_true(same(c.chosen_by, "cubind_set_library_path"));
        }
        cubind_copies_free(copies);
        listed++;
    }
    assert_int_equal(listed, cubind_test_library_count);
}

/* In a child: the fixture's site-packages is the only place of the libraries (no CUDA root, no ld.so
 * cache); with the switch set through the API to `on`, how many libraries load from it. */
/* In a forked child: the only place to search is the virtual environment `venv` (no CUDA root,
 * conda, user site, ld.so cache or python3 on PATH). */
static void only_the_venv(const char *venv)
{
    setenv("VIRTUAL_ENV", venv, 1);
    setenv("HOME", tmp_dir, 1);
    setenv("CUBIND_LD_SO_CACHE", "", 1);
    unsetenv("CUDA_PATH");
    unsetenv("CUDA_HOME");
    unsetenv("CONDA_PREFIX");
    unsetenv("PYTHONPATH");
    setenv("PATH", "/nonexistent", 1);
}

static int loads_from_wheels(const char *venv, int on)
{
    int status = 0;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        size_t i;
        int n = 0;
        only_the_venv(venv);
        unsetenv("CUBIND_SEARCH_PYTHON");
        cubind_set_search_python(on);
        for (i = 0; i < cubind_test_library_count; ++i) {
            struct cubind_library_info info = {.size = sizeof info};
            if (cubind_test_libraries[i].wheel_dir == NULL)
                continue;
            /* strcmp, not same(): a mismatch is an answer here, not a failure to print */
            if (cubind_library_info(cubind_test_libraries[i].library, &info) == CUBIND_OK &&
                (strcmp(info.found_by, "site-packages") == 0 ||
                 strcmp(info.found_by, "beside a library it is used with") == 0) &&
                strstr(info.path, venv) != NULL)
                n++;
        }
        _exit(n);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void test_the_switch_through_the_api(void **state)
{
    char venv[512], dir[1024];
    size_t i, wheels = 0;
    (void)state;
    snprintf(venv, sizeof venv, "%s/venv", tmp_dir);
    for (i = 0; i < cubind_test_library_count; ++i) {
        char link[1200];
        if (cubind_test_libraries[i].wheel_dir == NULL)
            continue;
        snprintf(dir, sizeof dir, "%s/lib/python3.11/site-packages/%s", venv, cubind_test_libraries[i].wheel_dir);
        make_dirs(dir);
        snprintf(link, sizeof link, "%s/%s", dir, recorder);
        if (access(link, F_OK) != 0)
            assert_int_equal(symlink(mock_path(recorder), link), 0);
        snprintf(link, sizeof link, "%s/%s", dir, mock_sonames_of(i));
        /* a copy, not a link: a library used with it is looked for beside its real path */
        assert_int_equal(copy_file(mock_path(mock_sonames_of(i)), link, 0), 0);
        wheels++;
    }
    assert_true(wheels > 0);
    assert_int_equal(loads_from_wheels(venv, 1), (int)wheels);
    assert_int_equal(loads_from_wheels(venv, 0), 0);
}

/* Copies (not links) of every mock that has a wheel, in `venv`'s site-packages; returns how many. */
static size_t fill_wheels(const char *venv)
{
    char dir[1024], file[1200];
    size_t i, wheels = 0;
    for (i = 0; i < cubind_test_library_count; ++i) {
        if (cubind_test_libraries[i].wheel_dir == NULL)
            continue;
        snprintf(dir, sizeof dir, "%s/lib/python3.11/site-packages/%s", venv, cubind_test_libraries[i].wheel_dir);
        make_dirs(dir);
        snprintf(file, sizeof file, "%s/%s", dir, recorder);
        if (access(file, F_OK) != 0)
            assert_int_equal(copy_file(mock_path(recorder), file, 0), 0);
        snprintf(file, sizeof file, "%s/%s", dir, mock_sonames_of(i));
        assert_int_equal(copy_file(mock_path(mock_sonames_of(i)), file, 0), 0);
        wheels++;
    }
    return wheels;
}

/* In a child, with VIRTUAL_ENV=`named` and the switch on: how many libraries cubind_library_info says
 * were loaded from under `named`, plus 1000 when cubind_copies_find lists a copy under `other`, or
 * any library without its copy under `named`. */
static int loads_from_named(const char *named, const char *other)
{
    int status = 0;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char named_dir[600], other_dir[600];
        size_t i, k;
        int n = 0;
        only_the_venv(named);
        unsetenv("PYENV_ROOT");
        cubind_set_search_python(1);
        snprintf(named_dir, sizeof named_dir, "%s/", named);
        snprintf(other_dir, sizeof other_dir, "%s/", other);
        for (i = 0; i < cubind_test_library_count; ++i) {
            struct cubind_copies_options options = {.size = sizeof options, .flags = CUBIND_COPIES_NO_QUERY,
                                                    .library = cubind_test_libraries[i].name};
            struct cubind_library_info info = {.size = sizeof info};
            cubind_copies *copies = NULL;
            int in_named = 0;
            if (cubind_test_libraries[i].wheel_dir == NULL)
                continue;
            if (cubind_copies_find(&options, &copies) != CUBIND_OK)
                _exit(255);
            for (k = 0; k < cubind_copies_count(copies); ++k) {
                struct cubind_copy copy = {.size = sizeof copy};
                if (cubind_copies_get(copies, k, &copy) != CUBIND_OK)
                    _exit(255);
                if (strncmp(copy.path, other_dir, strlen(other_dir)) == 0)
                    n = 1000;
                in_named |= strncmp(copy.path, named_dir, strlen(named_dir)) == 0;
            }
            cubind_copies_free(copies);
            if (!in_named)
                n = 1000;
            if (cubind_library_info(cubind_test_libraries[i].library, &info) == CUBIND_OK && info.path != NULL &&
                strncmp(info.path, named_dir, strlen(named_dir)) == 0)
                n++;
        }
        _exit(n > 255 ? 255 : n);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* VIRTUAL_ENV=<tmp>/venv[1]: the directory of that name, never a pattern matching <tmp>/venv1, whose
 * copies are neither listed nor loaded (issue 25). */
static void test_a_named_directory_is_not_a_pattern(void **state)
{
    char named[512], other[512];
    size_t wheels;
    (void)state;
    snprintf(named, sizeof named, "%s/venv[1]", tmp_dir);
    snprintf(other, sizeof other, "%s/venv1", tmp_dir);
    wheels = fill_wheels(named);
    assert_int_equal(fill_wheels(other), wheels);
    assert_true(wheels > 0);
    assert_int_equal(loads_from_named(named, other), (int)wheels);
}

static int setup(void **state)
{
    (void)state;
    return make_tmp_dir("cubind-copies");
}

static int teardown(void **state)
{
    (void)state;
    return remove_tmp_dir();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_every_library_is_locatable),
        cmocka_unit_test(test_the_switch_through_the_api),
        cmocka_unit_test(test_a_named_directory_is_not_a_pattern),
        cmocka_unit_test(test_a_given_root),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
