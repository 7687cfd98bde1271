/*
 * loader/error.c - the thread-local error record, status messages and the error handler.
 *
 * A failing status is the common error and its path is short: the facts and a message put
 * together from the generated names (no formatting, no lock, no copy); then the handler,
 * read with one atomic load, is given the thread's record itself. While a handler runs,
 * errors it causes go to a spare record in the frame that called it (which cubind_last_error
 * then returns), so the record the handler reads never changes under it; the newest becomes
 * the thread's record when the handler returns.
 *
 * The handler runs on the failing thread with no cubind lock held, so it may call back into
 * cubind; errors it causes are recorded but do not call it again. It may also leave by
 * longjmp or a C++ exception, so "the handler is running" is not a flag that could be left
 * set for ever: a thread-local hint says a handler was entered, and when it is set the stack
 * is walked (platform.h) for a live frame of call_handler. None: the
 * handler was left without returning, the hint is stale and the handler is called afresh.
 * Where the stack cannot be walked, the hint's frame address is compared with the current
 * one instead (stacks grow down on every target).
 * Layer 2: calls strbuf and no_gpu (1), the platform seam (0: the stack walk, the unload watch, a mutex) and the
 * generated tables (library names, status names).
 */
#define _GNU_SOURCE
#include "error.h"
#include "no_gpu.h"

#if defined(__GNUC__) || defined(__clang__)
#define CUBIND_NOINLINE __attribute__((noinline))
#define CUBIND_FRAME_ADDRESS() ((uintptr_t)__builtin_frame_address(0))
#else
#define CUBIND_NOINLINE
#define CUBIND_FRAME_ADDRESS() ((uintptr_t)&tls)
#endif
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "platform.h"
#include "tables.h"

struct thread_errors {
    cubind_error record;
    /* The frame address of call_handler when this thread entered the handler; 0 once it returned.
     * Left set when the handler was left by longjmp: a hint, checked by handler_running(). */
    uintptr_t handler_frame;
    cubind_error *spare; /* in call_handler's frame: where errors go while the handler runs */
    int spare_written;
    int reported; /* a wrapper's slow path reported the failure its wrapper is about to see */
};

static CUBIND__THREAD_LOCAL struct thread_errors tls;

/* The installed handler and its argument, replaced whole: one atomic load reads both. Every
 * pair ever installed is kept (another thread may be calling it), each distinct pair once. */
struct handler {
    cubind_error_handler fn;
    void *user;
    struct handler *earlier;
};

static cubind__mutex handler_lock = CUBIND__MUTEX_INIT;
static struct handler *handlers; /* under handler_lock */
static _Atomic(const struct handler *) installed;

static CUBIND_NOINLINE int handler_running(struct thread_errors *t);

/* The record an error goes to: the thread's, or the spare while a handler of this thread runs.
 * `*in_handler` tells which. */
static cubind_error *target(struct thread_errors *t, int *in_handler)
{
    *in_handler = t->handler_frame != 0 && handler_running(t);
    if (*in_handler) {
        t->spare_written = 1;
        return t->spare;
    }
    return &t->record;
}

const cubind_error *cubind_last_error(void)
{
    struct thread_errors *t = &tls;
    cubind_error *r = &t->record;
    if (t->handler_frame != 0 && t->spare_written && handler_running(t))
        return t->spare;
    if (r->library_name == NULL) { /* never written */
        r->library = CUBIND_LIB_NONE;
        r->library_name = "";
        r->function = "";
        r->status_name = "";
    }
    return r;
}

void cubind_clear_error(void)
{
    int in_handler;
    cubind_error *r = target(&tls, &in_handler);
    r->kind = CUBIND_OK;
    r->library = CUBIND_LIB_NONE;
    r->status = 0;
    r->library_name = "";
    r->function = "";
    r->status_name = "";
    r->message[0] = '\0';
}

void cubind_set_error_handler(cubind_error_handler handler, void *user)
{
    struct handler *h = NULL;
    cubind__mutex_lock(&handler_lock);
    if (handler != NULL) {
        for (h = handlers; h != NULL; h = h->earlier)
            if (h->fn == handler && h->user == user)
                break;
        if (h == NULL)
            cubind__unload_watch(); /* before it is kept */
        if (h == NULL && (h = malloc(sizeof *h)) != NULL) {
            h->fn = handler;
            h->user = user;
            h->earlier = handlers;
            handlers = h;
        }
    }
    if (handler == NULL || h != NULL)
        atomic_store_explicit(&installed, h, memory_order_release);
    cubind__mutex_unlock(&handler_lock);
    if (handler != NULL && h == NULL)
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, "cubind_set_error_handler", 0,
                             "cubind_set_error_handler: out of memory; the earlier handler stays");
}

void cubind__error_unload(void)
{
    struct handler *h, *earlier;
    cubind__mutex_lock(&handler_lock);
    atomic_store_explicit(&installed, NULL, memory_order_release);
    for (h = handlers; h != NULL; h = earlier) {
        earlier = h->earlier;
        free(h);
    }
    handlers = NULL;
    cubind__mutex_unlock(&handler_lock);
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

/* Call the handler; the one frame whose presence on the stack means "the handler is running".
 * A handler left by longjmp or an exception skips the reset, which handler_running() finds out. */
static CUBIND_NOINLINE void call_handler(struct thread_errors *t, const struct handler *h)
{
    cubind_error spare;
    t->spare = &spare;
    t->spare_written = 0;
    t->handler_frame = CUBIND_FRAME_ADDRESS();
    h->fn(&t->record, h->user);
    t->handler_frame = 0;
    if (t->spare_written) /* the handler caused errors: the newest is the thread's record */
        t->record = spare;
    t->spare = NULL;
}

/* Stops the walk at a frame of call_handler. */
static int handler_frame(uintptr_t address, void *unused)
{
    (void)unused;
    return cubind__enclosing_function(address - 1) == (uintptr_t)call_handler;
}

/* 1 when a handler call of this thread is live on the stack (this error comes from inside it). */
static CUBIND_NOINLINE int handler_running(struct thread_errors *t)
{
    uintptr_t here = CUBIND_FRAME_ADDRESS();
    int walked;
    cubind__unwinder_find(); /* looked up the first time a stack is walked, only while a hint is set */
    walked = cubind__stack_walk(handler_frame, NULL);
    if (walked == CUBIND__WALK_STOPPED)
        return 1;
    if (walked == CUBIND__WALK_END) { /* the whole stack walked: the hint is stale */
        t->handler_frame = 0;
        return 0;
    }
    return here < t->handler_frame; /* no unwinder: deeper than the handler's call */
}

/* Only these kinds carry a status: the native one, or the fixed one a wrapper returned. */
static int status_is_meaningful(cubind_error_kind kind)
{
    return kind == CUBIND_ERROR_STATUS || kind == CUBIND_ERROR_LIBRARY_NOT_FOUND ||
           kind == CUBIND_ERROR_SYMBOL_NOT_FOUND;
}

/* Call the handler, if one is installed and this error does not come from inside it. */
static void notify(struct thread_errors *t, int in_handler)
{
    const struct handler *h = atomic_load_explicit(&installed, memory_order_acquire);
    if (h != NULL && !in_handler)
        call_handler(t, h);
}

void cubind__error_record(cubind_error_kind kind, cubind_library library, const char *function, int status,
                          const char *format, ...)
{
    struct thread_errors *t = &tls;
    cubind_error *r;
    va_list args;
    const char *name = (int)library >= 0 && (int)library < CUBIND_LIBRARY_COUNT ? cubind__libraries[library].name
                                                                                : NULL;
    const char *status_name;
    char raw[CUBIND_ERROR_MESSAGE_MAX];
    int in_handler;

    if (!status_is_meaningful(kind))
        status = 0;
    status_name = name != NULL && status_is_meaningful(kind) ? cubind_status_name(library, status) : NULL;
    va_start(args, format);
    vsnprintf(raw, sizeof raw, format, args);
    va_end(args);
    r = target(t, &in_handler);
    r->kind = kind;
    r->library = name != NULL ? library : CUBIND_LIB_NONE;
    r->status = status;
    r->library_name = name != NULL ? name : "";
    r->function = function != NULL ? function : "";
    r->status_name = status_name != NULL ? status_name : "";
    sanitize_into(r->message, sizeof r->message, raw);
    notify(t, in_handler);
}

/* Copy `length` bytes of a name: 16 at a time, the last 16 overlapping (as memcpy itself does,
 * without its call; gcc would inline a copy of unknown length as one byte a step). */
static void copy_name(char *out, const char *text, size_t length)
{
    size_t i;
    if (length >= 16) {
        for (i = 0; i + 16 < length; i += 16)
            memcpy(out + i, text + i, 16);
        memcpy(out + length - 16, text + length - 16, 16);
    } else if (length >= 8) {
        memcpy(out, text, 8);
        memcpy(out + length - 8, text + length - 8, 8);
    } else {
        for (i = 0; i < length; ++i)
            out[i] = text[i];
    }
}

/* "cublasSgemm returned CUBLAS_STATUS_NOT_INITIALIZED (1)": names from the generated tables
 * (printable, under 128 bytes each), so the message needs neither formatting nor escaping. Returns
 * where the message ends. */
static char *status_message(char *out, const char *function, size_t function_length, const char *status_name,
                            size_t name_length, int status)
{
    static const char unknown[] = "an unknown status";
    char digits[32] = {0}; /* the number ends at digits[16], then ")" and NULs: 16 bytes are copied */
    char *d = digits + 16;
    unsigned magnitude = status < 0 ? 0u - (unsigned)status : (unsigned)status;
    *d = ')';
    do {
        *--d = (char)('0' + magnitude % 10u);
        magnitude /= 10u;
    } while (magnitude != 0);
    if (status < 0)
        *--d = '-';
    if (status_name == NULL) {
        status_name = unknown;
        name_length = sizeof unknown - 1;
    }
    if (function_length + name_length + 32 > CUBIND_ERROR_MESSAGE_MAX)
        function_length = name_length = 0; /* cannot happen with generated names; never overflow */
    copy_name(out, function, function_length);
    out += function_length;
    memcpy(out, " returned ", 10);
    out += 10;
    copy_name(out, status_name, name_length);
    out += name_length;
    memcpy(out, " (", 2);
    memcpy(out + 2, d, 16);
    return out + 2 + (digits + 17 - d); /* after the ")" */
}

/* The first failing call whose status can mean "no usable GPU" decides why (no_gpu.c), in every
 * build: the kernel module's files say it whether or not this build binds the driver. */
static CUBIND_NOINLINE const cubind__no_gpu_reason *no_gpu_first(void)
{
    return cubind__no_gpu_decide();
}

/* ": no CUDA driver: ..." after a failing call's message (at `end`), when no GPU can be used
 * (no_gpu.c): the reason is printable and padded with NULs, so it is copied 16 bytes at a time. */
static CUBIND_NOINLINE void say_why(char *message, char *end, const cubind__no_gpu_reason *why)
{
    size_t i, length = why->length, room = (size_t)(message + CUBIND_ERROR_MESSAGE_MAX - end);
    if (length + 2 + 16 >= room)
        return; /* cannot happen: messages of statuses are under 300 bytes, reasons under 512 */
    end[0] = ':';
    end[1] = ' ';
    for (i = 0; i < length; i += 16)
        memcpy(end + 2 + i, why->text + i, 16);
    end[2 + length] = '\0';
}

/* "; its cu_err is CUDA_ERROR_NOT_INITIALIZED (3)" at `end`, when `library`'s status is a record whose
 * second member tells more of `status` (cubind__status_detail): that member's value, `detail`, named by
 * the library its values belong to. Returns where the message ends. */
static CUBIND_NOINLINE char *detail_message(char *end, cubind_library library, int status, int detail)
{
    const char *member, *name;
    cubind_library names;
    size_t member_length, name_length = 0;
    char *start;
    if (!cubind__status_detail(library, status, &member, &names))
        return end;
    member_length = strlen(member);
    name = names != CUBIND_LIB_NONE ? cubind__status_name_length(names, detail, &name_length) : NULL;
    if (member_length > 64)
        return end; /* cannot happen: a member's name */
    memcpy(end, "; its ", 6);
    memcpy(end + 6, member, member_length);
    memcpy(end + 6 + member_length, " is", 3);
    /* " is NAME (n)" as status_message writes "X returned NAME (n)", X empty */
    start = end + 6 + member_length + 3;
    end = status_message(start, "", 0, name, name_length, detail);
    /* status_message wrote " returned NAME (n)": keep " NAME (n)" */
    memmove(start, start + 9, (size_t)(end - start - 9));
    return end - 9;
}

CUBIND_COLD int cubind__status_error(const cubind__symbol_table *table, size_t index, int status)
{
    return cubind__status_error_detail(table, index, status, NULL);
}

CUBIND_COLD int cubind__status_error_detail(const cubind__symbol_table *table, size_t index, int status,
                                            const int *detail)
{
    struct thread_errors *t = &tls;
    const cubind__no_gpu_reason *why;
    char *end;
    int in_handler;
    cubind_error *r;
    const char *function;
    size_t name_length = 0;
    const char *status_name;
    r = target(t, &in_handler);
    function = cubind__function_name(table, index);
    status_name = cubind__status_name_length(table->library, status, &name_length);
    r->kind = CUBIND_ERROR_STATUS;
    r->library = table->library;
    r->status = status;
    r->library_name = cubind__libraries[table->library].name;
    r->function = function;
    r->status_name = status_name != NULL ? status_name : "";
    end = status_message(r->message, function, cubind__function_name_length(table, index), status_name,
                         name_length, status);
    if (detail != NULL && *detail != 0) /* 0 (CUDA_SUCCESS) would say nothing */
        end = detail_message(end, table->library, status, *detail);
    *end = '\0';
    if (cubind__status_no_gpu(table->library, status)) { /* not for an invalid plan, say */
        why = cubind__no_gpu_known();
        if (why == NULL)
            why = no_gpu_first();
        if (why->length != 0)
            say_why(r->message, end, why);
    }
    notify(t, in_handler);
    return status;
}

CUBIND_COLD int cubind__reported(int status)
{
    tls.reported = 1;
    return status;
}

/* 1 when this thread's slow path has just reported the failure its wrapper sees (cubind__reported),
 * which is then forgotten. */
static int reported_already(void)
{
    struct thread_errors *t = &tls;
    if (!t->reported)
        return 0;
    t->reported = 0;
    return 1;
}

CUBIND_COLD int cubind__wrapper_status_error_detail(const cubind__symbol_table *table, size_t index, int status,
                                                    int detail)
{
    if (reported_already())
        return status;
    return cubind__status_error_detail(table, index, status, &detail);
}

/* Without a detail: a tail call, the failing call's path one call shorter. */
CUBIND_COLD int cubind__wrapper_status_error(const cubind__symbol_table *table, size_t index, int status)
{
    if (reported_already())
        return status;
    return cubind__status_error_detail(table, index, status, NULL);
}

CUBIND_COLD int cubind__status_error_informational(const cubind__symbol_table *table, size_t index, int status)
{
    if (cubind__status_informational(table->library, status))
        return status; /* not a failure ("not ready"): the thread's record and the handler are left alone */
    return cubind__status_error(table, index, status);
}

CUBIND_COLD int cubind__wrapper_status_informational(const cubind__symbol_table *table, size_t index, int status)
{
    if (cubind__status_informational(table->library, status)) {
        tls.reported = 0; /* what its slow path may have marked */
        return status;
    }
    return cubind__wrapper_status_error(table, index, status);
}

/* cubind_status_error's refusal (generated/src/libraries.c): a library or an index that names no function. */
CUBIND_COLD int cubind__status_error_refused(cubind_library library, unsigned index, int status)
{
    if ((int)library < 0 || (int)library >= CUBIND_LIBRARY_COUNT)
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, "cubind_status_error", 0,
                             "cubind_status_error: %d is not a cubind library (0 to %d)", (int)library,
                             CUBIND_LIBRARY_COUNT - 1);
    else
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_status_error", 0,
                             "cubind_status_error: lib%s has no function %u (it has %zu)",
                             cubind__libraries[library].name, index, cubind__symbols(library)->count);
    return status;
}
