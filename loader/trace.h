/*
 * loader/trace.h - call tracing (CUBIND_TRACE), used by the generated wrappers; not installed.
 * Layer 2: includes no loader header.
 *
 * Off, tracing costs the hot path nothing: while it is on, the loader never fills the slots the
 * hot path reads (cubind__trace_enabled), so every call takes its wrapper's slow path, which
 * asks cubind__tracing(). cubind__trace_state starts non-zero ("not read yet"), so the first
 * slow call takes the traced path, which reads the configuration once and sets the state to 0
 * when tracing is off. On, the traced path times the call and formats one line, written
 * with one write() under a mutex, so lines of two threads never interleave.
 */
#ifndef CUBIND_LOADER_TRACE_H
#define CUBIND_LOADER_TRACE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cubind/core.h"

/* 0: off (configuration read); anything else: not read yet, or on. */
extern _Atomic int cubind__trace_state;

/* CUBIND_NO_TRACE (make TRACE=0): a build without tracing. No wrapper's slow path calls the traced
 * path (loader/trace_log.h) and the tables hold no descriptions (the full library stripped: 1.92 MB
 * -> 1.60 MB, `make bench-size`), and CUBIND_TRACE is ignored, with one line on stderr saying so. */
static inline int cubind__tracing(void)
{
#if defined(CUBIND_NO_TRACE)
    return 0;
#else
    return atomic_load_explicit(&cubind__trace_state, memory_order_relaxed) != 0;
#endif
}

/* Read the configuration (once per process); 1 when any call is traced. */
int cubind__trace_enabled(void);

#define CUBIND__TRACE_LINE_MAX 2048

/* One call being traced: when it started, and its line as it is formatted. */
typedef struct cubind__trace_call {
    cubind_library library;
    struct timespec start;
    size_t length;
    int args; /* arguments written so far */
    const void *table;  /* the function's symbol table and its result's kind (loader/trace_log.c) */
    const char *result;
    char line[CUBIND__TRACE_LINE_MAX];
} cubind__trace_call;

/* Read the configuration (once per process), then: 0 when calls of `library` are not traced
 * (the caller just makes the call), else 1 with the start time taken. */
int cubind__trace_begin(cubind__trace_call *call, cubind_library library);

/* The line begun with `function`'s name (before its arguments). */
void cubind__trace_head(cubind__trace_call *call, const char *function);

/* After the call: 1 when its line is wanted (`failed`: it returned a status neither success nor
 * informational; with CUBIND_TRACE=errors only those are). */
int cubind__trace_wanted(int failed);

/* Each argument, in order. */
void cubind__trace_signed(cubind__trace_call *call, const char *name, long long value);
void cubind__trace_unsigned(cubind__trace_call *call, const char *name, unsigned long long value);
void cubind__trace_pointer(cubind__trace_call *call, const char *name, uintptr_t value);
void cubind__trace_floating(cubind__trace_call *call, const char *name, double value);
/* `prefix` and `constant`: the enumerator's name in two parts (loader/trace_log.c), `constant` NULL
 * when the value is none of the enum's constants. */
void cubind__trace_enum(cubind__trace_call *call, const char *name, const char *prefix, const char *constant,
                        long long value);
void cubind__trace_record(cubind__trace_call *call, const char *name);

/* The result (`name` NULL), then the line is ended with the duration and written. */
void cubind__trace_status(cubind__trace_call *call, int status);
void cubind__trace_end(cubind__trace_call *call);

#endif /* CUBIND_LOADER_TRACE_H */
