/*
 * loader/error.c - the thread-local error record, status messages and the error handler.
 *
 * The handler runs on the failing thread with no cubind lock held, on a copy of
 * the record, so it may call back into cubind; errors it causes are recorded
 * but do not call it again. It may also leave by longjmp or a C++ exception: the
 * "inside the handler" guard is the address of the frame that called it, and an
 * error recorded from a frame that is not deeper on the stack (the handler was left
 * without returning) calls the handler afresh, so no flag is left set for ever.
 */
#include "error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static _Thread_local cubind_error tls_error;
/* Stack address of the cubind__error_record frame whose handler call is in progress on this
 * thread (0: none). Stacks grow down on every target cubind builds for. */
static _Thread_local uintptr_t tls_handler_frame;

static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static cubind_error_handler handler_fn;
static void *handler_user;

static void fill_defaults(cubind_error *error)
{
    if (error->library_name == NULL) {
        error->library = CUBIND_LIB_NONE;
        error->library_name = "";
        error->function = "";
        error->status_name = "";
    }
}

const cubind_error *cubind_last_error(void)
{
    fill_defaults(&tls_error);
    return &tls_error;
}

void cubind_clear_error(void)
{
    tls_error.kind = CUBIND_OK;
    tls_error.library = CUBIND_LIB_NONE;
    tls_error.status = 0;
    tls_error.library_name = "";
    tls_error.function = "";
    tls_error.status_name = "";
    tls_error.message[0] = '\0';
}

void cubind_set_error_handler(cubind_error_handler handler, void *user)
{
    pthread_mutex_lock(&handler_lock);
    handler_fn = handler;
    handler_user = user;
    pthread_mutex_unlock(&handler_lock);
}

/* Copy `src` into `dst` (`size` bytes, NUL-terminated) with control characters and bytes
 * that are not valid UTF-8 written as \xNN; printable UTF-8 is kept. Cut at a character. */
static void sanitize_into(char *dst, size_t size, const char *src)
{
    const unsigned char *p = (const unsigned char *)src;
    size_t out = 0;
    while (*p != '\0') {
        size_t n = cubind__printable_length(p);
        if (n == 0) {
            if (out + 4 >= size)
                break;
            snprintf(dst + out, 5, "\\x%02x", *p);
            out += 4;
            p++;
            continue;
        }
        if (out + n >= size)
            break;
        memcpy(dst + out, p, n);
        out += n;
        p += n;
    }
    dst[out] = '\0';
}

/* Only these kinds carry a status: the native one, or the fixed one a wrapper returned. */
static int status_is_meaningful(cubind_error_kind kind)
{
    return kind == CUBIND_ERROR_STATUS || kind == CUBIND_ERROR_LIBRARY_NOT_FOUND ||
           kind == CUBIND_ERROR_SYMBOL_NOT_FOUND;
}

void cubind__error_record(cubind_error_kind kind, cubind_library library, const char *function, int status,
                          const char *format, ...)
{
    va_list args;
    cubind_error_handler fn;
    void *user;
    const char *name = cubind_library_name(library);
    const char *status_name;
    char raw[CUBIND_ERROR_MESSAGE_MAX];
#if defined(__GNUC__) || defined(__clang__)
    uintptr_t frame = (uintptr_t)__builtin_frame_address(0); /* the real stack, not a sanitizer's */
#else
    uintptr_t frame = (uintptr_t)&args;
#endif

    if (!status_is_meaningful(kind))
        status = 0;
    status_name = name != NULL && status_is_meaningful(kind) ? cubind_status_name(library, status) : NULL;
    tls_error.kind = kind;
    tls_error.library = name != NULL ? library : CUBIND_LIB_NONE;
    tls_error.status = status;
    tls_error.library_name = name != NULL ? name : "";
    tls_error.function = function != NULL ? function : "";
    tls_error.status_name = status_name != NULL ? status_name : "";
    va_start(args, format);
    vsnprintf(raw, sizeof raw, format, args);
    va_end(args);
    sanitize_into(tls_error.message, sizeof tls_error.message, raw);

    /* Inside a handler call made by a frame above this one: errors it causes call no handler.
     * A frame at or above the recorded one means the handler was left without returning. */
    if (tls_handler_frame != 0 && frame < tls_handler_frame)
        return;
    pthread_mutex_lock(&handler_lock);
    fn = handler_fn;
    user = handler_user;
    pthread_mutex_unlock(&handler_lock);
    if (fn != NULL) {
        cubind_error copy = tls_error;
        tls_handler_frame = frame;
        fn(&copy, user);
        tls_handler_frame = 0;
    }
}

CUBIND_COLD void cubind__status_error(const cubind__symbol_table *table, size_t index, int status)
{
    const char *status_name = cubind_status_name(table->library, status);
    cubind__error_record(CUBIND_ERROR_STATUS, table->library, table->names[index], status, "%s returned %s (%d)",
                         table->names[index], status_name != NULL ? status_name : "an unknown status", status);
}
