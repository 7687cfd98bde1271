/*
 * tests/mock/test_script.c - the mocks' script (tests/mock/recorder.h): what CUBIND_MOCK_STATUS,
 * CUBIND_MOCK_STATUS_FILE, CUBIND_MOCK_LOG, CUBIND_MOCK_VERSION and CUBIND_MOCK_VERSION_STATUS
 * give, and what they refuse. A rule names a function by an exported symbol or its C API name and
 * gives a number or a status by name (the names come from the IR: tests/mock/names.h, whose table
 * the cases pick from); whatever the mocks cannot use stops the program at its first call with a
 * line naming it and exit status CUBIND_MOCK_REFUSED, never a hang, an abort or a rule dropped; the
 * log keeps no descriptor a program can close. The recorder is called as a mock calls it.
 * Each scenario runs in a fresh process (tests/scenario.h): the script is read once a process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "names.h"
#include "recorder.h"
#include "scenario.h"

static char tmp[256];

static const char *tmp_file(const char *name)
{
    static char paths[8][512];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, sizeof paths[0], "%s/%s", tmp, name);
    return path;
}

/* ---- picked from the IR's names (names.h) -------------------------------------------------------- */

/* A function returning a status whose C API name is not among its exports (cublasSgemm:
 * cublasSgemm_v2), else any returning a status; with a status of its library other than 0. */
struct pick {
    const struct cubind_mock_function *function;
    const struct cubind_mock_status *status;
};

static struct pick pick_status(void)
{
    const struct cubind_mock_names *n = &cubind_mock_names;
    struct pick p = {NULL, NULL};
    size_t i, j;
    for (i = 0; i < n->function_count && p.status == NULL; ++i) {
        const struct cubind_mock_function *f = &n->functions[i];
        int renamed = strcmp(f->name, f->exports) != 0;
        if (f->scripted != CUBIND_MOCK_SCRIPT_STATUS || (!renamed && i + 1 < n->function_count))
            continue;
        for (j = 0; j < n->status_count; ++j)
            if (n->statuses[j].library == f->library && n->statuses[j].value != 0) {
                p.function = f, p.status = &n->statuses[j];
                break;
            }
    }
    return p;
}

static const struct cubind_mock_function *pick_scripted(int scripted)
{
    size_t i;
    for (i = 0; i < cubind_mock_names.function_count; ++i)
        if (cubind_mock_names.functions[i].scripted == scripted)
            return &cubind_mock_names.functions[i];
    return NULL;
}

/* A call of a mock: its symbol, then the status it returns. */
static int call(const char *symbol)
{
    cubind_mock_begin(symbol, NULL);
    return cubind_mock_status();
}

/* ---- scenarios (run in a child process) ---------------------------------------------------------- */

/* The first call, which reads the script: a refused one never returns. */
static int scenario_first_call(void)
{
    call("a_symbol_no_rule_names");
    printf("the call returned\n");
    return 0;
}

/* $CUBIND_TEST_SYMBOL returns $CUBIND_TEST_STATUS on its $CUBIND_TEST_CALL-th call (1: every call). */
static int scenario_rule_applies(void)
{
    int expected = atoi(getenv("CUBIND_TEST_STATUS")), nth = atoi(getenv("CUBIND_TEST_CALL")), i;
    const char *symbol = getenv("CUBIND_TEST_SYMBOL");
    for (i = 1; i < nth; ++i)
        CHECK(call(symbol) == 0);
    CHECK(call(symbol) == expected);
    CHECK(call("a_symbol_no_rule_names") == 0);
    return 0;
}

/* A failed log write says so and the program goes on. */
static int scenario_log_fails(void)
{
    call("first");
    call("second");
    printf("went on\n");
    return 0;
}

/* The program closes its descriptors between calls and opens a file of its own: the log is not
 * written into it, and /dev/zero's reads (outputs zeroed) do not consume it. */
static int scenario_descriptors(void)
{
    char own_path[512], line[64] = "", zeros[8];
    int fd, n = 0;
    FILE *log;
    snprintf(own_path, sizeof own_path, "%s", getenv("CUBIND_TEST_OWN"));
    call("first");
    memset(zeros, 1, sizeof zeros);
    cubind_mock_zero(zeros, sizeof zeros);
    for (fd = 3; fd < 1024; ++fd)
        close(fd);
    fd = open(own_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, "own", 3) == 3 && lseek(fd, 0, SEEK_SET) == 0);
    call("second");
    memset(zeros, 1, sizeof zeros);
    cubind_mock_zero(zeros, sizeof zeros);
    CHECK(zeros[0] == 0 && zeros[7] == 0);
    CHECK(lseek(fd, 0, SEEK_CUR) == 0);  /* nothing read from it */
    CHECK(lseek(fd, 0, SEEK_END) == 3);  /* nothing written to it */
    close(fd);
    log = fopen(getenv("CUBIND_MOCK_LOG"), "r");
    CHECK(log != NULL);
    while (fgets(line, sizeof line, log) != NULL)
        n++;
    fclose(log);
    CHECK(n == 2 && strcmp(line, "second\n") == 0);
    return 0;
}

/* CUBIND_MOCK_VERSION_STATUS=0 is no failure: the version is answered. */
static int scenario_version_answered(void)
{
    int value = -1;
    CHECK(cubind_mock_version_of(0, &value, 12, 4, 1) == 0 && value == 12);
    CHECK(cubind_mock_version_of(2, &value, 12, 4, 1) == 0 && value == 1);
    return 0;
}

static int scenario_version_query(void)
{
    int value = -1;
    cubind_mock_version_of(0, &value, 12, 4, 1);
    printf("the query returned\n");
    return 0;
}

/* 8 threads logging and counting calls at once: every call logged once, each rule's N-th call once. */
enum { THREADS = 8, ROUNDS = 500 };

static void *calls_of_a_thread(void *symbol)
{
    int i, failed = 0;
    for (i = 0; i < ROUNDS; ++i)
        failed += call(symbol) != 0;
    return (void *)(intptr_t)failed;
}

static int scenario_threads(void)
{
    pthread_t threads[THREADS];
    const char *symbol = getenv("CUBIND_TEST_SYMBOL");
    char line[256];
    intptr_t failed = 0;
    void *result;
    int i, lines = 0;
    FILE *log;
    for (i = 0; i < THREADS; ++i)
        CHECK(pthread_create(&threads[i], NULL, calls_of_a_thread, (void *)symbol) == 0);
    for (i = 0; i < THREADS; ++i) {
        pthread_join(threads[i], &result);
        failed += (intptr_t)result;
    }
    CHECK(failed == 1); /* the rule's N-th call, in whichever thread made it */
    log = fopen(getenv("CUBIND_MOCK_LOG"), "r");
    CHECK(log != NULL);
    while (fgets(line, sizeof line, log) != NULL) {
        CHECK(strncmp(line, symbol, strlen(symbol)) == 0 && strcmp(line + strlen(symbol), "\n") == 0);
        lines++;
    }
    fclose(log);
    CHECK(lines == THREADS * ROUNDS);
    return 0;
}

/* nvcc's launch configuration: what is pushed is popped, last first, per thread. */
static int scenario_pushed(void)
{
    int a = 1, b = 2, out = 0;
    long long c = 3, wide = 0;
    cubind_mock_push();
    cubind_mock_push_part(&a, sizeof a);
    cubind_mock_push();
    cubind_mock_push_part(&b, sizeof b);
    cubind_mock_push_part(&c, sizeof c);
    CHECK(cubind_mock_pop() == 1);
    cubind_mock_pop_part(&out, sizeof out);
    cubind_mock_pop_part(&wide, sizeof wide);
    CHECK(out == 2 && wide == 3);
    CHECK(cubind_mock_pop() == 1);
    cubind_mock_pop_part(&out, sizeof out);
    CHECK(out == 1);
    CHECK(cubind_mock_pop() == 0);
    cubind_mock_pop_part(&out, sizeof out);
    CHECK(out == 0); /* nothing pushed: zeros */
    return 0;
}

/* ---- CMocka tests (parent) ----------------------------------------------------------------------- */

/* The child's exit status and output, for a scenario run with `env`. */
/* A child that hangs is killed after 60 s (exit 137): a case that must not hang fails instead. */
static int run_env(const char *scenario, const char *const *env, char *output, size_t size)
{
    struct run_options options = {env, 0};
    int status = -1;
    assert_int_equal(run_scenario_output(scenario, &options, 60, &status, output, size), 0);
    return status;
}

/* The first call is refused: exit status CUBIND_MOCK_REFUSED and a line containing `says`. */
static void refused(const char *const *env, const char *says)
{
    char output[8192];
    int status = run_env("first_call", env, output, sizeof output);
    if (status != CUBIND_MOCK_REFUSED || strstr(output, says) == NULL || strstr(output, "cubind mock: ") == NULL)
        fail_msg("expected exit %d saying \"%s\"; got exit %d:\n%s", CUBIND_MOCK_REFUSED, says, status, output);
}

static void passes(const char *scenario, const char *const *env)
{
    char output[8192];
    if (run_env(scenario, env, output, sizeof output) != 0)
        fail_msg("scenario %s failed:\n%s", scenario, output);
}

static void write_file(const char *path, const char *text, size_t length)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, length, f), length);
    fclose(f);
}

static const char *env_entry(const char *name, const char *value)
{
    static char entries[16][8192];
    static int next;
    char *entry = entries[next++ % 16];
    snprintf(entry, sizeof entries[0], "%s=%s", name, value);
    return entry;
}

static void test_status_file_not_regular(void **state)
{
    const char *fifo = tmp_file("rules.fifo");
    (void)state;
    assert_int_equal(mkfifo(fifo, 0600), 0);
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS_FILE", fifo), NULL}, "is a FIFO");
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS_FILE", tmp), NULL}, "is a directory");
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS_FILE", "/dev/zero"), NULL}, "is a character device");
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS_FILE", tmp_file("none")), NULL}, "cannot open");
}

/* A rule after 64 KiB of comments applies; one after a NUL byte is not dropped: the file is refused. */
static void test_status_file_read_whole(void **state)
{
    const struct pick p = pick_status();
    static char text[70000];
    char rule[256], status[32];
    size_t used = 0;
    (void)state;
    assert_non_null(p.function);
    while (used < 65536)
        used += (size_t)snprintf(text + used, sizeof text - used, "# a comment line of the status file\n");
    used += (size_t)snprintf(text + used, sizeof text - used, "%s#2=%d\n", p.function->exports, p.status->value);
    write_file(tmp_file("long.rules"), text, used);
    snprintf(status, sizeof status, "%d", p.status->value);
    passes("rule_applies", (const char *[]){env_entry("CUBIND_MOCK_STATUS_FILE", tmp_file("long.rules")),
                                            env_entry("CUBIND_TEST_SYMBOL", p.function->exports),
                                            env_entry("CUBIND_TEST_STATUS", status), "CUBIND_TEST_CALL=2", NULL});
    snprintf(rule, sizeof rule, "# first\n%c%s=%d\n", '\0', p.function->exports, p.status->value);
    write_file(tmp_file("nul.rules"), rule, strlen(rule + 9) + 9);
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS_FILE", tmp_file("nul.rules")), NULL}, "NUL byte at offset 8");
}

/* A C API name stands for the symbols its mocks export; a status is named by its library's enum. */
static void test_rule_names(void **state)
{
    const struct pick p = pick_status();
    char rule[256], status[32];
    (void)state;
    assert_non_null(p.function);
    snprintf(status, sizeof status, "%d", p.status->value);
    snprintf(rule, sizeof rule, "%s=%s", p.function->name, p.status->name);
    passes("rule_applies", (const char *[]){env_entry("CUBIND_MOCK_STATUS", rule),
                                            env_entry("CUBIND_TEST_SYMBOL", p.function->exports),
                                            env_entry("CUBIND_TEST_STATUS", status), "CUBIND_TEST_CALL=1", NULL});
    snprintf(rule, sizeof rule, "%s#3=%d", p.function->exports, p.status->value);
    passes("rule_applies", (const char *[]){env_entry("CUBIND_MOCK_STATUS", rule),
                                            env_entry("CUBIND_TEST_SYMBOL", p.function->exports),
                                            env_entry("CUBIND_TEST_STATUS", status), "CUBIND_TEST_CALL=3", NULL});
}

static void test_rules_refused(void **state)
{
    const struct pick p = pick_status();
    const struct cubind_mock_function *version = pick_scripted(CUBIND_MOCK_SCRIPT_VERSION);
    const struct cubind_mock_function *none = pick_scripted(CUBIND_MOCK_SCRIPT_NONE);
    const struct cubind_mock_function *number = pick_scripted(CUBIND_MOCK_SCRIPT_NUMBER);
    static char many[CUBIND_MOCK_MAX_RULES * 160 + 64];
    char rule[256], says[1024];
    size_t used = 0;
    int i;
    (void)state;
    assert_non_null(p.function);
    snprintf(rule, sizeof rule, "%sNoSuchFunction=1", p.function->name);
    snprintf(says, sizeof says, "rule 1 \"%s\": %sNoSuchFunction is no function of the mocks", rule, p.function->name);
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS", rule), NULL}, says);
    snprintf(rule, sizeof rule, "%s#-1=1", p.function->exports);
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS", rule), NULL}, "the call number after \"#\" is not from 1");
    snprintf(rule, sizeof rule, "%s#0=1", p.function->exports);
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS", rule), NULL}, "the call number after \"#\" is not from 1");
    snprintf(rule, sizeof rule, "%s=4294967309", p.function->exports);
    snprintf(says, sizeof says, "rule 1 \"%s\": 4294967309 is out of range", rule);
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS", rule), NULL}, says);
    snprintf(rule, sizeof rule, "%s=NO_SUCH_STATUS", p.function->exports);
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS", rule), NULL}, "NO_SUCH_STATUS is no status of");
    snprintf(rule, sizeof rule, "%s=12abc", p.function->exports);
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS", rule), NULL}, "\"12abc\" is not a number");
    snprintf(rule, sizeof rule, "%s", p.function->exports);
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS", rule), NULL}, "expected symbol=status");
    used = (size_t)snprintf(many, sizeof many, "CUBIND_MOCK_STATUS=");
    for (i = 0; i <= CUBIND_MOCK_MAX_RULES; ++i)
        used += (size_t)snprintf(many + used, sizeof many - used, "%s#%d=1 ", p.function->exports, i + 1);
    assert_true(used < sizeof many - 1);
    snprintf(says, sizeof says, "rule %d \"%s#%d=1\": more than %d rules", CUBIND_MOCK_MAX_RULES + 1, p.function->exports,
             CUBIND_MOCK_MAX_RULES + 1, CUBIND_MOCK_MAX_RULES);
    refused((const char *[]){many, NULL}, says);
    write_file(tmp_file("bad.rules"), "# fine\n\n  bad#x=1\n", 18);
    snprintf(says, sizeof says, "CUBIND_MOCK_STATUS_FILE %s line 3: rule 1", tmp_file("bad.rules"));
    refused((const char *[]){env_entry("CUBIND_MOCK_STATUS_FILE", tmp_file("bad.rules")), NULL}, says);
    if (version != NULL) {
        snprintf(rule, sizeof rule, "%s=1", version->name);
        refused((const char *[]){env_entry("CUBIND_MOCK_STATUS", rule), NULL}, "version query");
    }
    if (none != NULL) {
        snprintf(rule, sizeof rule, "%s=1", none->name);
        refused((const char *[]){env_entry("CUBIND_MOCK_STATUS", rule), NULL}, "returns no status and no number");
    }
    if (number != NULL) {
        snprintf(rule, sizeof rule, "%s=%s", number->name, p.status->name);
        refused((const char *[]){env_entry("CUBIND_MOCK_STATUS", rule), NULL}, "returns a number, not a status");
    }
}

static void test_log(void **state)
{
    const char *fifo = tmp_file("log.fifo");
    char output[8192];
    int status;
    (void)state;
    assert_int_equal(mkfifo(fifo, 0600), 0);
    refused((const char *[]){env_entry("CUBIND_MOCK_LOG", fifo), NULL}, "a FIFO no one reads");
    refused((const char *[]){env_entry("CUBIND_MOCK_LOG", tmp), NULL}, "cannot open");
    status = run_env("log_fails", (const char *[]){"CUBIND_MOCK_LOG=/dev/full", NULL}, output, sizeof output);
    if (status != 0 || strstr(output, "CUBIND_MOCK_LOG: cannot write /dev/full") == NULL ||
        strstr(output, "went on") == NULL || strstr(output, "cannot write /dev/full: No space left on device; second") != NULL)
        fail_msg("a log on /dev/full: exit %d:\n%s", status, output);
}

static void test_descriptors(void **state)
{
    (void)state;
    passes("descriptors", (const char *[]){env_entry("CUBIND_MOCK_LOG", tmp_file("calls.log")),
                                           env_entry("CUBIND_TEST_OWN", tmp_file("own.txt")), NULL});
}

static void test_version_variables(void **state)
{
    char output[8192];
    int status;
    (void)state;
    status = run_env("version_query", (const char *[]){"CUBIND_MOCK_VERSION_STATUS=abc", NULL}, output, sizeof output);
    if (status != CUBIND_MOCK_REFUSED || strstr(output, "CUBIND_MOCK_VERSION_STATUS=abc: not a status") == NULL)
        fail_msg("CUBIND_MOCK_VERSION_STATUS=abc: exit %d:\n%s", status, output);
    status = run_env("version_query", (const char *[]){"CUBIND_MOCK_VERSION=banana", NULL}, output, sizeof output);
    if (status != CUBIND_MOCK_REFUSED || strstr(output, "CUBIND_MOCK_VERSION=banana: not a version") == NULL)
        fail_msg("CUBIND_MOCK_VERSION=banana: exit %d:\n%s", status, output);
    status = run_env("version_query", (const char *[]){"CUBIND_MOCK_VERSION=12.4.1.7", NULL}, output, sizeof output);
    assert_int_equal(status, CUBIND_MOCK_REFUSED);
    passes("version_answered", (const char *[]){"CUBIND_MOCK_VERSION_STATUS=0", "CUBIND_MOCK_VERSION=", NULL});
}

static void test_threads(void **state)
{
    const struct pick p = pick_status();
    char rule[256];
    (void)state;
    snprintf(rule, sizeof rule, "%s#777=%d", p.function->exports, p.status->value);
    passes("threads", (const char *[]){env_entry("CUBIND_MOCK_LOG", tmp_file("threads.log")),
                                       env_entry("CUBIND_MOCK_STATUS", rule),
                                       env_entry("CUBIND_TEST_SYMBOL", p.function->exports), NULL});
}

static void test_pushed(void **state)
{
    (void)state;
    passes("pushed", NULL);
}

static int make_tmp(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/cubind-mock-script-XXXXXX");
    return mkdtemp(tmp) != NULL ? 0 : -1;
}

static int remove_tmp(void **state)
{
    char command[512];
    (void)state;
    snprintf(command, sizeof command, "rm -rf '%s'", tmp);
    return system(command) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    static const struct scenario scenarios[] = {
        {"first_call", scenario_first_call},
        {"rule_applies", scenario_rule_applies},
        {"log_fails", scenario_log_fails},
        {"descriptors", scenario_descriptors},
        {"version_answered", scenario_version_answered},
        {"version_query", scenario_version_query},
        {"threads", scenario_threads},
        {"pushed", scenario_pushed},
        {NULL, NULL},
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_file_not_regular),
        cmocka_unit_test(test_status_file_read_whole),
        cmocka_unit_test(test_rule_names),
        cmocka_unit_test(test_rules_refused),
        cmocka_unit_test(test_log),
        cmocka_unit_test(test_descriptors),
        cmocka_unit_test(test_version_variables),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_pushed),
    };
    int scenario = scenario_main(argc, argv, scenarios);
    if (scenario >= 0)
        return scenario;
    return cmocka_run_group_tests(tests, make_tmp, remove_tmp);
}
