/*
 * tests/mock/recorder.h - the shared state of the mock CUDA libraries.
 *
 * Every generated mock function (generated/tests/mock_<lib>.c) records the
 * exported symbol it is and the bytes of each argument it received, then
 * returns what the test asked for. Tests link this library too and read the
 * record, so they see exactly what a wrapper passed through.
 *
 * Without writing C (the installed mocks, docs/mocks.md), the environment scripts them:
 *   CUBIND_MOCK_STATUS="name=value name#N=value ..."  what a function returns, on every call or on
 *       its N-th call only (separated by white space, commas or new lines; the first rule that
 *       applies wins; otherwise the status the test set, 0 by default). `name` is an exported symbol
 *       (cublasSgemm_v2) or a C API name (cublasSgemm: every symbol the mocks export for it);
 *       `value` a number of int's range or a status of the function's library by name
 *       (CUBLAS_STATUS_EXECUTION_FAILED); a function returning a number that is not a status
 *       (cuFileRead) returns the rule's number; at most CUBIND_MOCK_MAX_RULES rules;
 *   CUBIND_MOCK_STATUS_FILE=path   the same rules read from a regular file (# starts a comment);
 *   CUBIND_MOCK_LOG=path           each call appends its exported symbol, one a line (the file is
 *       opened for each line and closed after it: the mocks keep no descriptor between calls).
 * What the mocks cannot use (an unknown name, a value out of range, too many rules, a status file
 * that is not a regular file of text, a log that cannot be opened, CUBIND_MOCK_VERSION or
 * CUBIND_MOCK_VERSION_STATUS that is not a version or a number) stops the program at its first call
 * of a mock: a line on stderr that names it, then exit status CUBIND_MOCK_REFUSED. A log write that
 * fails later says so on stderr once; the program goes on, unlogged.
 */
#ifndef CUBIND_MOCK_RECORDER_H
#define CUBIND_MOCK_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#define CUBIND_MOCK_MAX_ARG_BYTES 1024
/* The exit status of a program whose script the mocks refuse (sysexits.h's EX_CONFIG). */
#define CUBIND_MOCK_REFUSED 78
/* The most rules CUBIND_MOCK_STATUS and CUBIND_MOCK_STATUS_FILE hold together. */
#define CUBIND_MOCK_MAX_RULES 256

/* --- called by the mocks --- */
/* `caller`: the mock's return address, where the call came from (a wrapper in libcubind, or a
 * program's own code for the inline form's hot path). */
void cubind_mock_begin(const char *symbol, const void *caller);
void cubind_mock_arg(const void *value, size_t size);
int cubind_mock_status(void);
/* 1 when a rule scripted this call, with its value in *value (a mock of a function returning a number). */
int cubind_mock_scripted(int *value);
/* The second member of a status record a mock returns (cuFile's cu_err; status_detail): what the test set, 0 by default. */
int cubind_mock_detail(void);
/* Zeroes an output's `size` bytes at `p` (docs/mocks.md, "Outputs") where they are writable memory;
 * NULL, a made-up address or an offset into memory the mocks "allocated" (NULL + n) is left alone
 * rather than faulting: the kernel writes the zeros (read(2) of /dev/zero) and refuses a bad address. */
void cubind_mock_zero(void *p, size_t size);
uintptr_t cubind_mock_return(void);
/* 1 while a passthrough test runs: a version query records like any function;
 * 0 otherwise: it answers the version in CUBIND_MOCK_VERSION ("M.m.p", default
 * 77.1.2) or fails with CUBIND_MOCK_VERSION_STATUS when that is set (and not 0). With
 * CUBIND_MOCK_VERSION_SLEEP_MS it first writes a byte to $CUBIND_TEST_SLOW_FD (when set)
 * and sleeps that long (a cancellation point while cubind holds its load lock). */
int cubind_mock_passthrough(void);
int cubind_mock_version(int property, int *value);
/* The same with another default than 77.1.2: the mocks of an older CUDA release answer its version. */
int cubind_mock_version_of(int property, int *value, int major, int minor, int patch);

/* nvcc's launch configuration (the runtime mock's __cudaPushCallConfiguration and __cudaPopCallConfiguration):
 * push starts a configuration on the calling thread's stack, push_part adds an argument's bytes to it;
 * pop takes the last one pushed (0 when none: pop_part then writes zeros), pop_part writes its next bytes. */
#define CUBIND_MOCK_MAX_PUSHED 8
#define CUBIND_MOCK_MAX_PUSHED_BYTES 64
void cubind_mock_push(void);
void cubind_mock_push_part(const void *bytes, size_t size);
int cubind_mock_pop(void);
void cubind_mock_pop_part(void *bytes, size_t size);

/* The mocks of an older release, for the n-th record (n < CUBIND_MOCK_RECORDS) an adapter converts
 * (generated/tests/conversions.c): `size` bytes, the record in that release's layout. While the
 * test armed the records, the mock keeps a copy of the bytes it received and then, for an output
 * (`write` not NULL), writes the bytes the test set for that record; otherwise it does nothing. */
#define CUBIND_MOCK_RECORDS 4
#define CUBIND_MOCK_MAX_RECORD_BYTES 4096
void cubind_mock_record(unsigned n, const void *received, void *write, size_t size);

/* --- called by the tests --- */
/* Arm (1) or disarm (0) cubind_mock_record; arming forgets what was received and set. */
void cubind_mock_records_arm(int on);
/* The bytes the mock writes into its n-th record (at most the record's size). */
void cubind_mock_set_record(unsigned n, const void *bytes, size_t size);
/* What the mock received as its n-th record during the last call (NULL if nothing), and its size. */
const unsigned char *cubind_mock_record_received(unsigned n, size_t *size);
void cubind_mock_set_status(int status);
void cubind_mock_set_detail(int detail);
void cubind_mock_set_return(uintptr_t value);
void cubind_mock_set_passthrough(int on);
void cubind_mock_expect_begin(void);
void cubind_mock_expect_arg(const void *value, size_t size);
/* An argument of `size` bytes whose value is not checked (an adapter's buffer, say). */
void cubind_mock_expect_any(size_t size);
/* 1 when the last call recorded was `symbol` with exactly the expected argument bytes. */
int cubind_mock_matches(const char *symbol);
const char *cubind_mock_last_symbol(void);
const void *cubind_mock_last_caller(void);
unsigned long cubind_mock_calls(void);

#endif /* CUBIND_MOCK_RECORDER_H */
