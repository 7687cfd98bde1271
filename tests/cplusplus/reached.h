// tests/cplusplus/reached.h - the checks of the C++ programs of make test-cplusplus (nvidia_style.cpp,
// nvidia_style_nvcc.cu), after cubind/runtime.h: a call's status, and the NVIDIA function it reached
// (the mock recorder's last call), failures counted.
#ifndef CUBIND_TEST_REACHED_H
#define CUBIND_TEST_REACHED_H

#include <cstdio>
#include <cstring>

extern "C" {
#include "mock/recorder.h"
}

static int failures = 0;
// On NVIDIA's libraries (CUBIND_TEST_REAL_LIBRARIES): no recorder to ask.
static bool real = false;

// The last call the mock libcudart received was `symbol`.
static void reached(const char *what, const char *symbol)
{
    if (real)
        return;
    const char *last = cubind_mock_last_symbol();
    if (last == nullptr || std::strcmp(last, symbol) != 0) {
        std::printf("FAIL %s: the mock's last call is %s, not %s\n", what, last ? last : "(none)", symbol);
        failures++;
    }
}

static void check(const char *what, cudaError_t status)
{
    if (status != cudaSuccess) {
        std::printf("FAIL %s: status %d\n", what, static_cast<int>(status));
        failures++;
    }
}

#endif /* CUBIND_TEST_REACHED_H */
