/*
 * tests/scenario.h - run a test scenario in a fresh process.
 *
 * cubind loads each library once per process, so every discovery case needs a
 * new one: the CMocka test (parent) re-executes its own binary with
 * `--scenario NAME` and the environment the case needs; the child runs the
 * scenario, whose CHECKs print what failed and make it exit non-zero.
 */
#ifndef CUBIND_TEST_SCENARIO_H
#define CUBIND_TEST_SCENARIO_H

#include <stddef.h>
#include <stdio.h>

/* In a scenario: check a condition, report it with its location when false. */
#define CHECK(cond)                                                                                            \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                          \
            return 1;                                                                                          \
        }                                                                                                      \
    } while (0)

typedef int (*scenario_fn)(void);

struct scenario {
    const char *name;
    scenario_fn run;
};

/* Options of a child run. */
struct run_options {
    const char *const *env;  /* NAME=VALUE entries added to (or, with empty VALUE, removed from) the environment */
    int inhibit_ld_cache;    /* run through the dynamic loader with --inhibit-cache (no ld.so.cache), and
                                cubind with CUBIND_LD_SO_CACHE naming no file (it reads the cache itself) */
};

/* The program that runs this machine's programs when the tests run under an emulator (a cross build:
 * CUBIND_TEST_EMULATOR=/usr/bin/qemu-aarch64, which make test-aarch64 sets), or NULL. An emulated
 * program's own executions reach the host's kernel, which cannot run it: its children run through this,
 * and the target's dynamic loader (a child run without the ld.so cache) is taken from under
 * CUBIND_TEST_EMULATOR_ROOT (the emulator's root of the target's files: QEMU_LD_PREFIX). */
const char *test_emulator(void);

/* Run scenario `name` in a child; 0 when it passed (its output is printed when it did not). Under an
 * emulator (test_emulator) the child is the emulator running this program. */
int run_scenario(const char *name, const struct run_options *options);

/* The same, for a child expected to fail: its exit status (128 + the signal that ended it) in
 * *exit_status and its output (stdout and stderr, cut to `size` - 1 bytes) in `output`; -1 when it
 * could not be run. `timeout_s` > 0: the child is killed (SIGKILL) when that many seconds pass
 * without output: a case that must not hang fails instead. */
int run_scenario_output(const char *name, const struct run_options *options, int timeout_s, int *exit_status,
                        char *output, size_t size);

/* main() of a binary with scenarios: dispatch `--scenario NAME`, else return -1. */
int scenario_main(int argc, char **argv, const struct scenario *scenarios);

#endif /* CUBIND_TEST_SCENARIO_H */
