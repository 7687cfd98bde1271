// tests/handler_throw.cpp - an error handler that leaves by a C++ exception: the exception
// reaches the caller through cubind's C frames, and the next error calls the handler again.
// Run by `make test-hardening` with CUBIND_CUFFT_PATH naming no file.
#include <cstdio>
#include <stdexcept>

#include "cubind/cubind.h"

static int calls;

static void throwing_handler(const cubind_error *error, void *)
{
    ++calls;
    throw std::runtime_error(error->message);
}

int main()
{
    int caught = 0;
    cubind_set_error_handler(throwing_handler, nullptr);
    for (int i = 0; i < 3; ++i) {
        try {
            cufftHandle plan = 0;
            (void)cubind_cufft_create(&plan);
        } catch (const std::runtime_error &e) {
            ++caught;
        }
    }
    std::printf("handler_throw: %d calls, %d exceptions caught\n", calls, caught);
    return calls == 3 && caught == 3 ? 0 : 1;
}
