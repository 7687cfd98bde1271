/*
 * tests/test_libraries.c - every library cubind loads, one CMocka test each, on its
 * mock: what generator/libraries.toml says of it holds in the built library.
 *
 * The cases come from generated/tests/library_cases.c, so a library added to the
 * configuration is tested here with no code: a missing file gives its fixed
 * missing-library status and a record naming CUBIND_<LIB>_PATH; a symbol the half
 * mock lacks gives its fixed missing-symbol status and a record naming the exported
 * symbol (nvJitLink's versioned __nvJitLink*_13_0 names); the version is read with
 * the library's own kind of query; the id, name and soname agree.
 * Each scenario runs in a fresh process (tests/scenario.h).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cubind/cubind.h"
#include "library_cases.h"
#include "loader_support.h"
#include "scenario.h"

/* The case of the library named by $CUBIND_TEST_LIBRARY. */
static const struct cubind_test_library *current(void)
{
    const char *name = getenv("CUBIND_TEST_LIBRARY");
    size_t i;
    for (i = 0; name != NULL && i < cubind_test_library_count; ++i)
        if (strcmp(cubind_test_libraries[i].name, name) == 0)
            return &cubind_test_libraries[i];
    fprintf(stderr, "CUBIND_TEST_LIBRARY=%s names no library\n", name != NULL ? name : "(unset)");
    exit(2);
}

/* ---- scenarios (run in a child process) -------------------------------------------------------- */

static int scenario_missing_library(void)
{
    const struct cubind_test_library *t = current();
    const cubind_error *e;
    CHECK(t->first_call() == t->status_missing_library);
    e = cubind_last_error();
    CHECK(e->kind == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(e->library == t->library);
    CHECK(same(e->library_name, t->name));
    CHECK(same(e->function, t->first_call_function));
    CHECK(e->status == t->status_missing_library);
    CHECK(same(e->status_name, t->status_missing_library_name));
    CHECK(contains(e->message, t->env_var));
    CHECK(contains(e->message, "/nonexistent/"));
    CHECK(cubind_load(t->library) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    return 0;
}

static int scenario_missing_symbol(void)
{
    const struct cubind_test_library *t = current();
    struct cubind_library_info info = {.size = sizeof info};
    const cubind_error *e;
    CHECK(t->missing_call() == t->status_missing_symbol);
    e = cubind_last_error();
    CHECK(e->kind == CUBIND_ERROR_SYMBOL_NOT_FOUND);
    CHECK(e->library == t->library);
    CHECK(same(e->function, t->missing_call_function));
    CHECK(same(e->status_name, t->status_missing_symbol_name));
    CHECK(contains(e->message, t->missing_call_symbol)); /* the exported name that was missing */
    CHECK(cubind_function_available(t->missing_call_function) == 0);
    CHECK(cubind_function_available(t->missing_call_symbol) == 0);
    CHECK(cubind_library_info(t->library, &info) == CUBIND_OK);
    CHECK(info.functions_missing > 0 && info.functions_found > 0);
    CHECK(info.functions_found + info.functions_missing == info.functions);
    return 0;
}

/* One library for every release (the driver), older than the bindings (the mock answers version
 * 12.2): a function it lacks is one that needs a newer library, and the record says which version
 * is needed and which is there. */
static int scenario_missing_in_older(void)
{
    const struct cubind_test_library *t = current();
    const cubind_error *e;
    char needed[64];
    CHECK(t->missing_call() == t->status_missing_symbol);
    e = cubind_last_error();
    CHECK(e->kind == CUBIND_ERROR_SYMBOL_NOT_FOUND);
    CHECK(same(e->function, t->missing_call_function));
    snprintf(needed, sizeof needed, "for CUDA %d.%d", t->abi_version / 1000, t->abi_version % 1000 / 10);
    CHECK(contains(e->message, needed));
    CHECK(contains(e->message, "supports CUDA 12.2"));
    return 0;
}

/* The mock answers CUBIND_MOCK_VERSION=77.1.2 in the library's own way (GetProperty, one encoded
 * integer, major and minor); the loader must decode exactly the parts that way gives. */
static int scenario_version(void)
{
    const struct cubind_test_library *t = current();
    struct cubind_library_info info = {.size = sizeof info};
    const int expected[3] = {77, 1, 2};
    int parts[3], i;
    CHECK(t->first_call() == 0);
    CHECK(cubind_library_info(t->library, &info) == CUBIND_OK);
    CHECK(info.found == 1);
    CHECK(info.library == t->library);
    CHECK(same(info.name, t->name));
    CHECK(same(info.found_by, t->env_var));
    CHECK(same(info.soname, t->mock_soname));
    CHECK(info.functions_missing == t->removed);
    parts[0] = info.version_major, parts[1] = info.version_minor, parts[2] = info.version_patch;
    if (t->version_parts == 0) {
        /* read from the file name: the mock is "<soname>", so only the soname's major */
        const char *major = strrchr(t->mock_soname, '.') + 1;
        CHECK(parts[0] == atoi(major) && parts[1] == -1 && parts[2] == -1);
        CHECK(contains(info.version_source, "file name"));
        return 0;
    }
    for (i = 0; i < 3; ++i)
        CHECK(parts[i] == (i < t->version_parts ? expected[i] : -1));
    return 0;
}

/* ---- CMocka tests (parent) --------------------------------------------------------------------- */

static void run_case_version(const struct cubind_test_library *t, const char *scenario, const char *path,
                             const char *version)
{
    const char *env[] = {env_of(t->env_var, path), env_of("CUBIND_TEST_LIBRARY", t->name),
                         env_of("CUBIND_MOCK_VERSION", version), NULL};
    struct run_options options = {env, 0};
    if (run_scenario(scenario, &options) != 0)
        fail_msg("lib%s: scenario %s failed", t->name, scenario);
}

static void run_case(const struct cubind_test_library *t, const char *scenario, const char *path)
{
    run_case_version(t, scenario, path, "77.1.2");
}

static void test_library(void **state)
{
    const struct cubind_test_library *t = *state;
    char missing[512];
    snprintf(missing, sizeof missing, "/nonexistent/%s", t->mock_soname);
    /* the configuration and the built library agree on the id and the name */
    assert_string_equal(cubind_library_name(t->library), t->name);
    assert_int_equal(cubind_library_from_name(t->name), t->library);
    assert_string_equal(cubind_status_name(t->library, t->status_missing_library), t->status_missing_library_name);
    assert_string_equal(cubind_status_name(t->library, t->status_missing_symbol), t->status_missing_symbol_name);
    run_case(t, "missing_library", missing);
    run_case(t, "missing_symbol", half_mock(t->mock_soname));
    run_case(t, "version", mock_path(t->mock_soname));
    if (t->abi_version != 0)
        run_case_version(t, "missing_in_older", half_mock(t->mock_soname), "12.2.0");
}

static int setup_case(void **state)
{
    static size_t next;
    *state = (void *)&cubind_test_libraries[next++];
    return 0;
}

int main(int argc, char **argv)
{
    static const struct scenario scenarios[] = {
        {"missing_library", scenario_missing_library},
        {"missing_symbol", scenario_missing_symbol},
        {"version", scenario_version},
        {"missing_in_older", scenario_missing_in_older},
        {NULL, NULL},
    };
    struct CMUnitTest *tests;
    size_t i;
    int scenario = scenario_main(argc, argv, scenarios);
    if (scenario >= 0)
        return scenario;
    assert_int_equal(cubind_test_library_count, CUBIND_LIBRARY_COUNT);
    tests = calloc(cubind_test_library_count, sizeof *tests);
    if (tests == NULL)
        return 1;
    for (i = 0; i < cubind_test_library_count; ++i) {
        tests[i].name = cubind_test_libraries[i].name;
        tests[i].test_func = test_library;
        tests[i].setup_func = setup_case;
    }
    i = (size_t)_cmocka_run_group_tests("libraries", tests, cubind_test_library_count, NULL, NULL);
    free(tests);
    return (int)i;
}
