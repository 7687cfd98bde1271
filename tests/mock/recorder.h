/*
 * tests/mock/recorder.h - the shared state of the mock CUDA libraries.
 *
 * Every generated mock function (generated/tests/mock_<lib>.c) records the
 * exported symbol it is and the bytes of each argument it received, then
 * returns what the test asked for. Tests link this library too and read the
 * record, so they see exactly what a wrapper passed through.
 *
 * Without writing C (the installed mocks, docs/mocks.md), the environment scripts them:
 *   CUBIND_MOCK_STATUS="symbol=status symbol#N=status ..."  the status a function returns, on
 *       every call or on its N-th call only (separated by white space, commas or new lines;
 *       the first rule that applies wins; otherwise the status the test set, 0 by default);
 *   CUBIND_MOCK_STATUS_FILE=path   the same rules read from a file (# starts a comment);
 *   CUBIND_MOCK_LOG=path           each call appends its exported symbol, one a line.
 */
#ifndef CUBIND_MOCK_RECORDER_H
#define CUBIND_MOCK_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#define CUBIND_MOCK_MAX_ARG_BYTES 1024

/* --- called by the mocks --- */
/* `caller`: the mock's return address, where the call came from (a wrapper in libcubind, or a
 * program's own code for the inline form's hot path). */
void cubind_mock_begin(const char *symbol, const void *caller);
void cubind_mock_arg(const void *value, size_t size);
int cubind_mock_status(void);
/* The second member of a status record a mock returns (cuFile's cu_err; status_detail): what the test set, 0 by default. */
int cubind_mock_detail(void);
/* Zeroes an output's `size` bytes at `p` (docs/mocks.md, "Outputs") where they are writable memory;
 * NULL, a made-up address or an offset into memory the mocks "allocated" (NULL + n) is left alone
 * rather than faulting: the kernel writes the zeros (read(2) of /dev/zero) and refuses a bad address. */
void cubind_mock_zero(void *p, size_t size);
uintptr_t cubind_mock_return(void);
/* 1 while a passthrough test runs: a version query records like any function;
 * 0 otherwise: it answers the version in CUBIND_MOCK_VERSION ("M.m.p", default
 * 77.1.2) or fails with CUBIND_MOCK_VERSION_STATUS when that is set. With
 * CUBIND_MOCK_VERSION_SLEEP_MS it first writes a byte to $CUBIND_TEST_SLOW_FD (when set)
 * and sleeps that long (a cancellation point while cubind holds its load lock). */
int cubind_mock_passthrough(void);
int cubind_mock_version(int property, int *value);
/* The same with another default than 77.1.2: the mocks of an older CUDA release answer its version. */
int cubind_mock_version_of(int property, int *value, int major, int minor, int patch);

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
