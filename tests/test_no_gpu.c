/*
 * tests/test_no_gpu.c - the kernel module's driver release as loader/no_gpu.c reads it from
 * /proc/driver/nvidia/version, on the formats real drivers write. Built with loader/no_gpu.c itself
 * (layer 1, libc only): cubind__driver_release_in is hidden in libcubind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "no_gpu.h"

static void expect_release(const char *line, const char *release)
{
    char out[32];
    memset(out, 'x', sizeof out);
    assert_int_equal(cubind__driver_release_in(line, out, sizeof out), 1);
    assert_string_equal(out, release);
}

static void test_open_module_x86_64(void **state)
{
    (void)state; /* the "86" of "x86_64" is no release (a 2x H200 machine, driver 580.159.04) */
    expect_release("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
                   "(nixbld@)  Thu Jan  1 00:00:01 UTC 1970\nGCC version:  gcc version 14.3.0 (GCC)\n",
                   "580.159.04");
}

static void test_proprietary_module(void **state)
{
    (void)state;
    expect_release("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.54.03  Tue Jun  6 22:20:39 UTC 2023\n",
                   "535.54.03");
}

static void test_open_module_aarch64(void **state)
{
    (void)state;
    expect_release("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.65.06  Release Build  "
                   "(dvs-builder@U16-I2-C03-12-4)  Sun Jul 27 06:54:38 UTC 2025\n",
                   "580.65.06");
}

static void test_two_parts_and_tabs(void **state)
{
    (void)state;
    expect_release("NVRM version: NVIDIA UNIX Kernel Module\t550.54\tRelease", "550.54");
}

static void test_no_release(void **state)
{
    char out[32] = "unchanged";
    (void)state;
    /* no token is a release on the first line: one part, a trailing dot, four parts, letters */
    assert_int_equal(cubind__driver_release_in("NVRM version: NVIDIA UNIX x86_64 Kernel Module 580 580. "
                                               "1.2.3.4 580.1a\n580.159.04\n", out, sizeof out), 0);
    assert_int_equal(cubind__driver_release_in("", out, sizeof out), 0);
    assert_string_equal(out, "unchanged");
    /* a release that does not fit */
    assert_int_equal(cubind__driver_release_in("Kernel Module  580.159.04 ", out, 10), 0);
    assert_int_equal(cubind__driver_release_in("Kernel Module  580.159.04 ", out, 11), 1);
    assert_string_equal(out, "580.159.04");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_module_x86_64), cmocka_unit_test(test_proprietary_module),
        cmocka_unit_test(test_open_module_aarch64), cmocka_unit_test(test_two_parts_and_tabs),
        cmocka_unit_test(test_no_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
