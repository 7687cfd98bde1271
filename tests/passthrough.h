/*
 * tests/passthrough.h - checks shared by the generated per-wrapper passthrough
 * tests (generated/tests/passthrough_<lib>.c).
 */
#ifndef CUBIND_TEST_PASSTHROUGH_H
#define CUBIND_TEST_PASSTHROUGH_H

#include "cubind/cubind.h"
#include "release_rules.h" /* generated/src: enum cubind__release_action */

/* The wrapper recorded the mock's non-success status as a status error of `function`: its message
 * is the status's, followed by why no GPU can be used here when `no_gpu` (the status can mean "no
 * usable GPU": generator/libraries.toml `no_gpu`) and this process has such a reason. */
void cubind_test_assert_status_recorded(cubind_library library, const char *function, int status, int no_gpu);

/* Where the mock was called from. Built with CUBIND_INLINE (`inline_form`), the second call
 * (`round` 1: the symbol is resolved by then) must come from the inline hot path compiled into
 * this test; the first may come from either (a census, cubind_library_info, may have resolved the
 * symbol already). Without it, a status-returning wrapper in libcubind makes every call (others
 * may tail-call the mock, which then sees the test as its caller: nothing is checked for them). */
void cubind_test_assert_caller(int inline_form, int round, int returns_status);

/* The wrapper recorded nothing (the call was made and the value returned). */
void cubind_test_assert_no_error(void);

/* The output `name` the mock wrote (its `size` bytes, filled with another pattern before the call)
 * is all zeros (docs/mocks.md, "Outputs"); otherwise fails naming the byte and its value. */
void cubind_test_assert_zero(const char *name, const void *bytes, size_t size);

/* What a function's call is in each release whose call differs from the newest's (the newest's own
 * entry: a function it removed, kept from the unit's first release). */
struct cubind_test_release_call {
    const char *release; /* "12.4"; NULL: the newest (CUBIND_TEST_RELEASE unset) */
    int action;          /* enum cubind__release_action */
    const char *symbol;  /* the symbol called (SYMBOL, ADAPTER), or the release's own (REFUSED) */
};
/* a semantic adapter: an adapter through another entry point (generator/semantic.py), with other
 * arguments than the passthrough's: tested by test_semantic.c. Not a loader code. */
enum { CUBIND_TEST_SEMANTIC = 100 };

/* The symbol the mock must see in `release`, the release of the library's mocks this run loads (NULL:
 * the newest's), and in `*action` what the call is there (0: as in the newest). */
const char *cubind_test_release_symbol(const struct cubind_test_release_call *calls, size_t count,
                                       const char *release, const char *newest, int *action);

/* The wrapper of `function` made no call (the mock counted none since `calls_before`) and
 * recorded why: the function cannot be called in this release. */
void cubind_test_assert_not_called(cubind_library library, const char *function, unsigned long calls_before);
/* `call` (a wrapper of `function` with zeros) when the mock returns each of the `count` statuses
 * the library documents as informational: each is returned unchanged, twice (the first call of
 * the wrapper takes its slow path, the second its hot path), and neither recorded nor passed to
 * the error handler; then the mock's `failure` is recorded and handled; then the informational
 * statuses again replace neither that record nor call the handler. */
void cubind_test_informational(cubind_library library, const char *function, int (*call)(void),
                               const int *statuses, size_t count, int failure);

/* `call` when the mock returns each of the `count` statuses that can mean "no usable GPU": each
 * message ends with why no GPU can be used here, in every build (a subset without the driver too),
 * where one is known; then `not_gpu`, a failure about the call, whose message never says it. */
/* A library whose status is a record with a second member (status_detail): `call` failing with
 * `status` and a nonzero second member records a message that names it ("; its cu_err is
 * CUDA_ERROR_NOT_INITIALIZED (3)", with `names`' status names), and with a zero one does not. */
void cubind_test_status_detail(cubind_library library, const char *function, int (*call)(void), int status,
                               const char *member, cubind_library names);

void cubind_test_no_gpu(cubind_library library, const char *function, int (*call)(void), const int *statuses,
                        size_t count, int not_gpu);

#endif /* CUBIND_TEST_PASSTHROUGH_H */
