/*
 * tests/mock/slow_constructor.c - linked into a mock libcufft whose constructor takes
 * $CUBIND_TEST_SLOW_MS milliseconds (default 200), so that a test can fork while
 * another thread is inside cubind's dlopen of it (tests/test_faults.c). It writes one
 * byte to the file descriptor $CUBIND_TEST_SLOW_FD, when set, as it starts.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((constructor)) static void take_a_while(void)
{
    const char *ms_text = getenv("CUBIND_TEST_SLOW_MS");
    const char *fd_text = getenv("CUBIND_TEST_SLOW_FD");
    long ms = ms_text != NULL ? atol(ms_text) : 200;
    struct timespec delay;
    if (fd_text != NULL && write(atoi(fd_text), "s", 1) != 1)
        abort();
    delay.tv_sec = ms / 1000;
    delay.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&delay, &delay) != 0)
        ;
}
