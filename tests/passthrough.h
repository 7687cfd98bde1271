/*
 * tests/passthrough.h - checks shared by the generated per-wrapper passthrough
 * tests (generated/tests/passthrough_<lib>.c).
 */
#ifndef CUBIND_TEST_PASSTHROUGH_H
#define CUBIND_TEST_PASSTHROUGH_H

#include "cubind/cubind.h"

/* The wrapper recorded the mock's non-success status as a status error of `function`. */
void cubind_test_assert_status_recorded(cubind_library library, const char *function, int status);

/* The wrapper recorded nothing (the call was made and the value returned). */
void cubind_test_assert_no_error(void);

#endif /* CUBIND_TEST_PASSTHROUGH_H */
