/* tests/mock/recorder.c - shared state of the mock CUDA libraries (see recorder.h). */
#define _POSIX_C_SOURCE 200809L
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

struct args {
    unsigned char bytes[CUBIND_MOCK_MAX_ARG_BYTES];
    unsigned char any[CUBIND_MOCK_MAX_ARG_BYTES]; /* expected: 1 where any byte matches */
    size_t length;
    int overflow;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *last_symbol = "";
static const void *last_caller;
static struct args recorded, expected;
static unsigned long calls;
static int status_to_return;
static uintptr_t value_to_return;
static int passthrough;

static void append(struct args *a, const void *value, size_t size)
{
    if (a->length + size > sizeof a->bytes) {
        a->overflow = 1;
        return;
    }
    if (value != NULL)
        memcpy(a->bytes + a->length, value, size);
    memset(a->any + a->length, value == NULL, size);
    a->length += size;
}

EXPORT void cubind_mock_begin(const char *symbol, const void *caller)
{
    pthread_mutex_lock(&lock);
    last_symbol = symbol;
    last_caller = caller;
    recorded.length = 0;
    recorded.overflow = 0;
    calls++;
    pthread_mutex_unlock(&lock);
}

EXPORT void cubind_mock_arg(const void *value, size_t size)
{
    pthread_mutex_lock(&lock);
    append(&recorded, value, size);
    pthread_mutex_unlock(&lock);
}

EXPORT int cubind_mock_status(void)
{
    return status_to_return;
}

EXPORT uintptr_t cubind_mock_return(void)
{
    return value_to_return;
}

EXPORT int cubind_mock_passthrough(void)
{
    return passthrough;
}

EXPORT int cubind_mock_version(int property, int *value)
{
    return cubind_mock_version_of(property, value, 77, 1, 2);
}

EXPORT int cubind_mock_version_of(int property, int *value, int major, int minor, int patch)
{
    int version[3];
    const char *text = getenv("CUBIND_MOCK_VERSION");
    const char *fail = getenv("CUBIND_MOCK_VERSION_STATUS");
    const char *sleep_ms = getenv("CUBIND_MOCK_VERSION_SLEEP_MS");
    version[0] = major, version[1] = minor, version[2] = patch;
    if (sleep_ms != NULL && property == 0) { /* a slow query: nanosleep is a cancellation point */
        const char *fd_text = getenv("CUBIND_TEST_SLOW_FD");
        long ms = atol(sleep_ms);
        struct timespec delay;
        if (fd_text != NULL && write(atoi(fd_text), "v", 1) != 1)
            abort();
        delay.tv_sec = ms / 1000;
        delay.tv_nsec = (ms % 1000) * 1000000L;
        while (nanosleep(&delay, &delay) != 0)
            ;
    }
    if (fail != NULL && fail[0] != '\0')
        return atoi(fail);
    if (text != NULL)
        sscanf(text, "%d.%d.%d", &version[0], &version[1], &version[2]);
    if (property < 0 || property > 2 || value == NULL)
        return -1;
    *value = version[property];
    return 0;
}

EXPORT void cubind_mock_set_status(int status)
{
    status_to_return = status;
}

EXPORT void cubind_mock_set_return(uintptr_t value)
{
    value_to_return = value;
}

EXPORT void cubind_mock_set_passthrough(int on)
{
    passthrough = on;
}

EXPORT void cubind_mock_expect_begin(void)
{
    expected.length = 0;
    expected.overflow = 0;
}

EXPORT void cubind_mock_expect_arg(const void *value, size_t size)
{
    append(&expected, value, size);
}

EXPORT void cubind_mock_expect_any(size_t size)
{
    append(&expected, NULL, size);
}

EXPORT int cubind_mock_matches(const char *symbol)
{
    int same;
    size_t i;
    pthread_mutex_lock(&lock);
    same = strcmp(symbol, last_symbol) == 0 && !recorded.overflow && !expected.overflow &&
           recorded.length == expected.length;
    for (i = 0; same && i < recorded.length; ++i)
        same = expected.any[i] || recorded.bytes[i] == expected.bytes[i];
    pthread_mutex_unlock(&lock);
    return same;
}

EXPORT const char *cubind_mock_last_symbol(void)
{
    return last_symbol;
}

EXPORT const void *cubind_mock_last_caller(void)
{
    return last_caller;
}

EXPORT unsigned long cubind_mock_calls(void)
{
    return calls;
}
