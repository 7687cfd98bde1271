/*
 * loader/trace.c - call tracing: the configuration (CUBIND_TRACE, CUBIND_TRACE_FILE, read once
 * through cubind__getenv), the line of a call and its one write(). See trace.h.
 * Layer 2: calls file_open (1), strbuf (1), the platform seam (0) and the generated tables (library and
 * status names).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_open.h"
#include "tables.h"
#include "platform.h"
#include "strbuf.h"
#include "trace.h"

enum { STATE_OFF = 0, STATE_UNREAD = 1, STATE_ON = 2 };

_Atomic int cubind__trace_state = STATE_UNREAD;

static cubind__once_flag config_once = CUBIND__ONCE_INIT;
static cubind__mutex write_lock = CUBIND__MUTEX_INIT;
static unsigned char traced[CUBIND_LIBRARY_COUNT]; /* written once, under config_once */
static int errors_only;
static int out_fd = 2;

static void lock_writes(void)
{
    cubind__mutex_lock(&write_lock);
}

static void unlock_writes(void)
{
    cubind__mutex_unlock(&write_lock);
}

/* "1", "all", "errors", library names, comma-separated; "0" or empty: off. An unknown word is
 * reported once on stderr and ignored. Returns 1 when something is traced. */
static int parse(const char *spec)
{
    int all = 0, named = 0, i;
    const char *p = spec;
    while (*p != '\0') {
        size_t n = strcspn(p, ",");
        int known = 1;
        if ((n == 1 && p[0] == '1') || (n == 3 && strncmp(p, "all", 3) == 0)) {
            all = 1;
        } else if (n == 6 && strncmp(p, "errors", 6) == 0) {
            errors_only = 1;
        } else if (n == 0 || (n == 1 && p[0] == '0')) {
            /* nothing */
        } else {
            known = 0;
            for (i = 0; i < CUBIND_LIBRARY_COUNT; i++) {
                const char *name = cubind__libraries[i].name;
                if (strlen(name) == n && strncmp(p, name, n) == 0) {
                    traced[i] = 1;
                    named = known = 1;
                }
            }
        }
        if (!known)
            dprintf(2, "cubind: CUBIND_TRACE: unknown word \"%.*s\" ignored\n", (int)n, p);
        p += n;
        if (*p == ',')
            p++;
    }
    if (all || (errors_only && !named))
        for (i = 0; i < CUBIND_LIBRARY_COUNT; i++)
            traced[i] = 1;
    return all || named || errors_only;
}

/* CUBIND_TRACE_FILE: a regular file (appended to, created if missing), a character device (/dev/null,
 * a terminal) or a FIFO that a process reads (a pipe: /dev/stdout piped, >(...)). Opened without
 * waiting: a FIFO no process reads, or any other kind of file, leaves the lines on stderr, with a
 * message saying why. Writes then block as they would on stderr: a reader that stops reading
 * holds the tracing thread up, as it would with a pipe on stderr. */
static void open_trace_file(const char *file)
{
    struct stat st;
    cubind__strbuf name = {0};
    const char *why;
    int fd = cubind__open_file(file, O_WRONLY | O_APPEND | O_CREAT, 0644,
                               CUBIND__FILE_REGULAR | CUBIND__FILE_CHARACTER_DEVICE | CUBIND__FILE_FIFO, &st);
    if (fd >= 0) {
        out_fd = fd;
        return;
    }
    if (fd == CUBIND__FILE_WRONG_KIND)
        why = cubind__file_kind(st.st_mode);
    else if (errno == ENXIO && stat(file, &st) == 0 && S_ISFIFO(st.st_mode))
        why = "a FIFO no process reads (a write would wait for one)";
    else
        why = strerror(errno);
    cubind__strbuf_escaped(&name, file);
    dprintf(2, "cubind: CUBIND_TRACE_FILE %s: %s; tracing to stderr\n", cubind__strbuf_str(&name), why);
    cubind__strbuf_free(&name);
}

static void read_config_now(void)
{
    const char *spec = cubind__getenv("CUBIND_TRACE");
    const char *file;
#if defined(CUBIND_NO_TRACE)
    if (spec != NULL && parse(spec))
        dprintf(2, "cubind: CUBIND_TRACE ignored: this build of cubind has no tracing (CUBIND_NO_TRACE)\n");
    spec = NULL;
#endif
    if (spec == NULL || !parse(spec)) {
        atomic_store_explicit(&cubind__trace_state, STATE_OFF, memory_order_relaxed);
        return;
    }
    file = cubind__getenv("CUBIND_TRACE_FILE");
    if (file != NULL && *file != '\0')
        open_trace_file(file);
    /* A child forked while another thread writes a line must not inherit the lock held. */
    cubind__at_fork(lock_writes, unlock_writes, unlock_writes);
    atomic_store_explicit(&cubind__trace_state, STATE_ON, memory_order_relaxed);
}

int cubind__trace_enabled(void)
{
    cubind__once(&config_once, read_config_now); /* opening the trace file is a cancellation point */
    return atomic_load_explicit(&cubind__trace_state, memory_order_relaxed) != STATE_OFF;
}

int cubind__trace_begin(cubind__trace_call *call, cubind_library library)
{
    cubind__once(&config_once, read_config_now); /* opening the trace file is a cancellation point */
    if (atomic_load_explicit(&cubind__trace_state, memory_order_relaxed) == STATE_OFF || (int)library < 0 ||
        (int)library >= CUBIND_LIBRARY_COUNT || !traced[library])
        return 0;
    call->library = library;
    call->length = 0;
    call->args = 0;
    clock_gettime(CLOCK_MONOTONIC, &call->start);
    return 1;
}

/* Append to the line; what does not fit is cut (the end always fits: see trace_end). */
static void append(cubind__trace_call *call, const char *format, ...)
{
    enum { RESERVED = 48 }; /* for " ... -> <number> <duration> us\n" */
    size_t room = sizeof call->line - RESERVED;
    va_list ap;
    int n;
    if (call->length >= room)
        return;
    va_start(ap, format);
    n = vsnprintf(call->line + call->length, room - call->length, format, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= room - call->length) {
        call->length = room - 1;
        memcpy(call->line + call->length - 3, "...", 3);
    } else {
        call->length += (size_t)n;
    }
}

void cubind__trace_head(cubind__trace_call *call, const char *function)
{
    append(call, "cubind-trace: tid=%ld %s %s(", cubind__thread_id(), cubind__libraries[call->library].name,
           function);
}

int cubind__trace_wanted(int failed)
{
    return !errors_only || failed;
}

/* Before an argument: its separator and name; `name` NULL: the result follows. */
static void argument(cubind__trace_call *call, const char *name)
{
    if (name == NULL) {
        append(call, ") -> ");
        call->args = -1;
        return;
    }
    append(call, "%s%s=", call->args > 0 ? ", " : "", name);
    call->args++;
}

void cubind__trace_signed(cubind__trace_call *call, const char *name, long long value)
{
    argument(call, name);
    append(call, "%lld", value);
}

void cubind__trace_unsigned(cubind__trace_call *call, const char *name, unsigned long long value)
{
    argument(call, name);
    append(call, "%llu", value);
}

void cubind__trace_pointer(cubind__trace_call *call, const char *name, uintptr_t value)
{
    argument(call, name);
    append(call, "0x%llx", (unsigned long long)value);
}

void cubind__trace_floating(cubind__trace_call *call, const char *name, double value)
{
    argument(call, name);
    append(call, "%g", value);
}

void cubind__trace_enum(cubind__trace_call *call, const char *name, const char *prefix, const char *constant,
                        long long value)
{
    argument(call, name);
    if (constant != NULL)
        append(call, "%s%s", prefix, constant);
    else
        append(call, "%lld", value);
}

void cubind__trace_record(cubind__trace_call *call, const char *name)
{
    argument(call, name);
    append(call, "{...}");
}

void cubind__trace_status(cubind__trace_call *call, int status)
{
    cubind__trace_enum(call, NULL, "", cubind_status_name(call->library, status), status);
}

void cubind__trace_end(cubind__trace_call *call)
{
    struct timespec end;
    long long ns;
    int n, saved_errno = errno, cancel_state;
    size_t done = 0;
    clock_gettime(CLOCK_MONOTONIC, &end);
    ns = (long long)(end.tv_sec - call->start.tv_sec) * 1000000000LL + (end.tv_nsec - call->start.tv_nsec);
    if (call->args >= 0) { /* void: no result */
        call->line[call->length++] = ')';
    }
    n = snprintf(call->line + call->length, sizeof call->line - call->length, " %lld.%03lld us\n", ns / 1000,
                 ns % 1000);
    if (n > 0)
        call->length += (size_t)n < sizeof call->line - call->length ? (size_t)n : sizeof call->line - call->length - 1;
    /* write() is a cancellation point: a thread cancelled there would keep the lock. */
    cancel_state = cubind__cancel_off();
    cubind__mutex_lock(&write_lock);
    while (done < call->length) {
        ssize_t w = write(out_fd, call->line + done, call->length - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    cubind__mutex_unlock(&write_lock);
    cubind__cancel_restore(cancel_state);
    errno = saved_errno;
}
