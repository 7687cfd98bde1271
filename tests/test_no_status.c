/*
 * tests/test_no_status.c - every function that returns no status, from the generated list
 * (tests/no_status_cases.h): each has a decided value for a call that cannot be made, which its
 * wrapper gives with its library missing and with its symbol missing (a string is never NULL, a
 * byte count is negative); its mock answers a value a program can use (a status's name, the
 * release's version, the argument it echoes), on the tests' mocks and on the installed mocks of
 * every release; a rule's number scripts those that return one. Built twice: test_no_status calls
 * cubind's wrappers, test_no_status-dropin NVIDIA's names through the drop-in.
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
#include "no_status_cases.h"
#include "scenario.h"

/* The case of a library (tests/library_cases.h). */
static const struct cubind_test_library *library_case(cubind_library library)
{
    size_t i;
    for (i = 0; i < cubind_test_library_count; ++i)
        if (cubind_test_libraries[i].library == library)
            return &cubind_test_libraries[i];
    return NULL;
}

/* A call that cannot be made gives its decided value; `status` is the fixed status of the failure. */
static int check_unavailable(const struct cubind_test_no_status *c, int status, cubind_error_kind expected_kind)
{
    char buffer[512], small[16];
    struct cubind_test_result r;
    const cubind_error *e;
    memset(buffer, 'x', sizeof buffer);
    memset(small, 'x', sizeof small);
    r = c->call(0, buffer, sizeof buffer);
    e = cubind_last_error();
    if (e->kind != expected_kind || !same(e->function, c->function)) {
        fprintf(stderr, "%s: the error record is not this call's failure (%s)\n", c->function, e->message);
        return 1;
    }
    switch (c->unavailable) {
    case CUBIND_TEST_TEXT:
        if (c->takes_buffer) {
            CHECK(same(buffer, c->text));
            c->call(0, small, sizeof small); /* cut to fit, ended by NUL */
            CHECK(small[sizeof small - 1] == '\0' && strncmp(small, c->text, sizeof small - 1) == 0);
            c->call(0, NULL, 0);
        } else {
            CHECK(r.is_text && r.text != NULL);
            if (!same(r.text, c->text))
                return 1;
        }
        return 0;
    case CUBIND_TEST_NEGATED:
        if (r.value != -(long long)status) {
            fprintf(stderr, "%s gives %lld, not -%d\n", c->function, r.value, status);
            return 1;
        }
        return 0;
    case CUBIND_TEST_ZERO:
        CHECK(r.value == 0 && (!r.is_text || r.text == NULL));
        return 0;
    case CUBIND_TEST_NOTHING:
        return 0;
    }
    fprintf(stderr, "%s: no decided value for a call that cannot be made\n", c->function);
    return 1;
}

static int scenario_missing_library(void)
{
    size_t i;
    for (i = 0; i < cubind_test_no_status_count; ++i) {
        const struct cubind_test_no_status *c = &cubind_test_no_status[i];
        if (check_unavailable(c, library_case(c->library)->status_missing_library, CUBIND_ERROR_LIBRARY_NOT_FOUND) != 0)
            return 1;
    }
    return 0;
}

static int scenario_missing_symbol(void)
{
    size_t i, checked = 0;
    for (i = 0; i < cubind_test_no_status_count; ++i) {
        const struct cubind_test_no_status *c = &cubind_test_no_status[i];
        if (c->in_half_mock)
            continue;
        checked++;
        if (check_unavailable(c, library_case(c->library)->status_missing_symbol, CUBIND_ERROR_SYMBOL_NOT_FOUND) != 0)
            return 1;
    }
    CHECK(checked > 0);
    return 0;
}

/* What a mock answers: `names` and `version` those of the mock at hand. */
static int check_answer(const struct cubind_test_no_status *c, const struct cubind_test_name *names, size_t name_count,
                        const struct cubind_test_version_value *version)
{
    char buffer[64];
    struct cubind_test_result r;
    size_t i;
    long long unnamed = 0;
    switch (c->mock) {
    case CUBIND_TEST_MOCK_NAME:
        CHECK(name_count > 0);
        for (i = 0; i < name_count; ++i) {
            r = c->call(names[i].value, NULL, 0);
            if (!r.is_text || r.text == NULL || !same(r.text, names[i].name))
                return 1;
            if (names[i].value >= unnamed)
                unnamed = names[i].value + 1;
        }
        r = c->call(unnamed, NULL, 0); /* a value of no constant: still a string */
        CHECK(r.is_text && r.text != NULL && contains(r.text, "unrecognized"));
        return 0;
    case CUBIND_TEST_MOCK_EMPTY:
        r = c->call(0, NULL, 0);
        CHECK(r.is_text && r.text != NULL && r.text[0] == '\0');
        return 0;
    case CUBIND_TEST_MOCK_VERSION:
        r = c->call(0, NULL, 0);
        if (r.value != version->encoded) {
            fprintf(stderr, "%s answers %lld, not %lld\n", c->function, r.value, version->encoded);
            return 1;
        }
        return 0;
    case CUBIND_TEST_MOCK_ARGUMENT:
        CHECK(c->call(4096, NULL, 0).value == 4096);
        return 0;
    case CUBIND_TEST_MOCK_CONSTANT:
        CHECK(c->call(0, NULL, 0).value == c->constant);
        return 0;
    case CUBIND_TEST_MOCK_ZERO:
        memset(buffer, 'x', sizeof buffer);
        r = c->call(0, buffer, sizeof buffer);
        CHECK(r.value == 0 && (!r.is_text || r.text == NULL));
        CHECK(!c->takes_buffer || buffer[0] == '\0'); /* an output zeroed: an empty message */
        return 0;
    }
    fprintf(stderr, "%s: no decided answer of its mock\n", c->function);
    return 1;
}

static int check_version_getter(const struct cubind_test_version *v, const struct cubind_test_version_value *expected)
{
    long long value = -1;
    int part;
    if (v->by_property) {
        for (part = 0; part < 3; ++part)
            if (v->call(part, &value) != 0 || value != expected->parts[part]) {
                fprintf(stderr, "%s(%d) answers %lld, not %d\n", v->function, part, value, expected->parts[part]);
                return 1;
            }
        return 0;
    }
    if (v->call(0, &value) != 0 || value != expected->encoded) {
        fprintf(stderr, "%s answers %lld, not %lld\n", v->function, value, expected->encoded);
        return 1;
    }
    return 0;
}

/* On the tests' mocks (CUBIND_MOCK_VERSION=77.1.2). */
static int scenario_mock(void)
{
    size_t i;
    for (i = 0; i < cubind_test_no_status_count; ++i) {
        const struct cubind_test_no_status *c = &cubind_test_no_status[i];
        if (check_answer(c, c->names, c->name_count, &c->test_version) != 0)
            return 1;
    }
    for (i = 0; i < cubind_test_version_count; ++i)
        if (check_version_getter(&cubind_test_versions[i], &cubind_test_versions[i].test_version) != 0)
            return 1;
    return 0;
}

/* On the installed mocks of the release $CUBIND_TEST_RELEASE (an index of cubind_test_releases). */
static int scenario_released(void)
{
    size_t r = (size_t)atoi(getenv("CUBIND_TEST_RELEASE")), i, checked = 0;
    CHECK(r < cubind_test_release_count);
    for (i = 0; i < cubind_test_no_status_count; ++i) {
        const struct cubind_test_no_status *c = &cubind_test_no_status[i];
        const struct cubind_test_release_answer *a = &c->releases[r];
        if (!a->present)
            continue;
        checked++;
        if (check_answer(c, a->names, a->name_count, &a->version) != 0) {
            fprintf(stderr, "(the mocks of CUDA %s)\n", cubind_test_releases[r]);
            return 1;
        }
    }
    for (i = 0; i < cubind_test_version_count; ++i) {
        const struct cubind_test_version *v = &cubind_test_versions[i];
        if (v->releases[r].parts[0] >= 0 && check_version_getter(v, &v->releases[r]) != 0) {
            fprintf(stderr, "(the mocks of CUDA %s)\n", cubind_test_releases[r]);
            return 1;
        }
    }
    CHECK(checked > 0);
    return 0;
}

/* CUBIND_MOCK_STATUS gives every function returning a number the rule's number (7). */
static int scenario_scripted(void)
{
    size_t i, checked = 0;
    for (i = 0; i < cubind_test_no_status_count; ++i) {
        const struct cubind_test_no_status *c = &cubind_test_no_status[i];
        if (!c->returns_number)
            continue;
        checked++;
        if (c->call(4096, NULL, 0).value != 7) {
            fprintf(stderr, "%s does not return its rule's number\n", c->function);
            return 1;
        }
    }
    CHECK(checked > 0);
    return 0;
}

/* ---- CMocka tests (parent) --------------------------------------------------------------------- */

static void run(const char *scenario, const char *const *env)
{
    struct run_options options = {env, 0};
    if (run_scenario(scenario, &options) != 0)
        fail_msg("scenario %s failed", scenario);
}

static const char *missing(const char *soname)
{
    static _Thread_local char paths[8][512];
    static _Thread_local int next;
    char *path = paths[next++ % 8];
    snprintf(path, sizeof paths[0], "/nonexistent/%s", soname);
    return path;
}

static void test_decided(void **state)
{
    size_t i;
    (void)state;
    assert_true(cubind_test_no_status_count > 0);
    for (i = 0; i < cubind_test_no_status_count; ++i) {
        if (cubind_test_no_status[i].unavailable == CUBIND_TEST_UNDECIDED || cubind_test_no_status[i].mock == 0)
            fail_msg("%s has no decided value", cubind_test_no_status[i].function);
    }
}

static void test_missing_library(void **state)
{
    (void)state;
    run("missing_library", library_env(missing, NULL));
}

static void test_missing_symbol(void **state)
{
    (void)state;
    run("missing_symbol", library_env(half_mock, NULL));
}

static void test_mock(void **state)
{
    (void)state;
    run("mock", library_env(mock_path, env_of("CUBIND_MOCK_VERSION", "77.1.2"), NULL));
}

static void test_scripted(void **state)
{
    static char rules[8192];
    size_t i, used = 0;
    (void)state;
    for (i = 0; i < cubind_test_no_status_count; ++i)
        if (cubind_test_no_status[i].returns_number)
            used += (size_t)snprintf(rules + used, sizeof rules - used, "%s=7 ", cubind_test_no_status[i].function);
    assert_true(used < sizeof rules);
    run("scripted", library_env(mock_path, env_of("CUBIND_MOCK_STATUS", rules), NULL));
}

/* The installed mocks (dropin/mocks.mk) of each release, found through LD_LIBRARY_PATH as a program
 * finds them ($CUBIND_TEST_MOCKS: their folder; the test is skipped without it). */
static void test_released(void **state)
{
    const char *mocks = getenv("CUBIND_TEST_MOCKS");
    static char unset[64][64], folder[1024], index[48];
    const char *env[68];
    size_t r, l, n;
    (void)state;
    if (mocks == NULL) {
        skip();
        return;
    }
    for (r = 0; r < cubind_test_release_count; ++r) {
        for (l = n = 0; l < cubind_test_library_count && n < 64; ++l, ++n) { /* unset: found as a program finds them */
            snprintf(unset[n], sizeof unset[n], "%s=", cubind_test_libraries[l].env_var);
            env[n] = unset[n];
        }
        snprintf(folder, sizeof folder, "LD_LIBRARY_PATH=%s/%s", mocks, cubind_test_releases[r]);
        snprintf(index, sizeof index, "CUBIND_TEST_RELEASE=%zu", r);
        env[n++] = folder;
        env[n++] = index;
        env[n] = NULL;
        run("released", env);
    }
}

int main(int argc, char **argv)
{
    static const struct scenario scenarios[] = {
        {"missing_library", scenario_missing_library},
        {"missing_symbol", scenario_missing_symbol},
        {"mock", scenario_mock},
        {"released", scenario_released},
        {"scripted", scenario_scripted},
        {NULL, NULL},
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decided),
        cmocka_unit_test(test_missing_library),
        cmocka_unit_test(test_missing_symbol),
        cmocka_unit_test(test_mock),
        cmocka_unit_test(test_scripted),
        cmocka_unit_test(test_released),
    };
    int scenario = scenario_main(argc, argv, scenarios);
    if (scenario >= 0)
        return scenario;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
