/*
 * loader/error.c - the thread-local error record, status messages and the error handler.
 *
 * The handler runs on the failing thread with no cubind lock held, on a copy of
 * the record, so it may call back into cubind; errors it causes are recorded
 * but do not call it again. It may also leave by longjmp or a C++ exception, so
 * "the handler is running" is not a flag that could be left set for ever: a
 * thread-local hint says a handler was entered, and when it is set the stack is
 * walked (the unwinder, _Unwind_Backtrace) for a live frame of call_handler. None:
 * the handler was left without returning, the hint is stale and the handler is
 * called afresh. Where the stack cannot be walked, the hint's frame address is
 * compared with the current one instead (stacks grow down on every target).
 */
#include "error.h"

#include <pthread.h>
#if defined(__GNUC__) || defined(__clang__)
#include <unwind.h>
#define CUBIND_NOINLINE __attribute__((noinline))
#define CUBIND_CLEANUP(fn) __attribute__((cleanup(fn)))
#define CUBIND_FRAME_ADDRESS() ((uintptr_t)__builtin_frame_address(0))
#define CUBIND_HAVE_UNWIND 1
#else
#define CUBIND_NOINLINE
#define CUBIND_CLEANUP(fn)
#define CUBIND_FRAME_ADDRESS() ((uintptr_t)&tls_error)
#endif
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static _Thread_local cubind_error tls_error;
/* The frame address of call_handler when this thread entered the handler; 0 once it returned.
 * Left set when the handler was left by longjmp: a hint, checked by handler_running(). */
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

static void leave_handler(uintptr_t **guard)
{
    **guard = 0;
}

/* Call the handler; the one frame whose presence on the stack means "the handler is running".
 * The hint is reset when it returns, or when a C++ exception unwinds it (error.c is built with
 * -fexceptions); a longjmp skips both, which handler_running() finds out. */
static CUBIND_NOINLINE void call_handler(cubind_error_handler fn, const cubind_error *error, void *user)
{
    CUBIND_CLEANUP(leave_handler) uintptr_t *guard = &tls_handler_frame;
    *guard = CUBIND_FRAME_ADDRESS();
    fn(error, user);
}

#ifdef CUBIND_HAVE_UNWIND
struct handler_walk {
    uintptr_t handler_start;
    int found;
};

static _Unwind_Reason_Code visit_frame(struct _Unwind_Context *context, void *data)
{
    struct handler_walk *walk = data;
    uintptr_t ip = (uintptr_t)_Unwind_GetIP(context);
    if (ip != 0 && (uintptr_t)_Unwind_FindEnclosingFunction((void *)(ip - 1)) == walk->handler_start) {
        walk->found = 1;
        return _URC_NORMAL_STOP;
    }
    return _URC_NO_REASON;
}
#endif

/* 1 when a handler call of this thread is live on the stack (this error comes from inside it). */
static CUBIND_NOINLINE int handler_running(void)
{
    uintptr_t here = CUBIND_FRAME_ADDRESS();
#ifdef CUBIND_HAVE_UNWIND
    struct handler_walk walk;
    _Unwind_Reason_Code reached;
    walk.handler_start = (uintptr_t)call_handler;
    walk.found = 0;
    reached = _Unwind_Backtrace(visit_frame, &walk);
    if (walk.found)
        return 1;
    if (reached == _URC_END_OF_STACK) { /* the whole stack walked: the hint is stale */
        tls_handler_frame = 0;
        return 0;
    }
#endif
    return here < tls_handler_frame; /* no unwind information: deeper than the handler's call */
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

    /* errors caused by the handler itself call no handler */
    if (tls_handler_frame != 0 && handler_running())
        return;
    pthread_mutex_lock(&handler_lock);
    fn = handler_fn;
    user = handler_user;
    pthread_mutex_unlock(&handler_lock);
    if (fn != NULL) {
        cubind_error copy = tls_error;
        call_handler(fn, &copy, user);
    }
}

CUBIND_COLD void cubind__status_error(const cubind__symbol_table *table, size_t index, int status)
{
    const char *status_name = cubind_status_name(table->library, status);
    cubind__error_record(CUBIND_ERROR_STATUS, table->library, table->names[index], status, "%s returned %s (%d)",
                         table->names[index], status_name != NULL ? status_name : "an unknown status", status);
}
