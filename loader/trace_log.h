/*
 * loader/trace_log.h - the one traced path of every wrapper (CUBIND_TRACE); not installed.
 * Layer 3.
 *
 * A wrapper's traced copy only makes its call and hands its result and arguments to
 * cubind__trace_log with a description of their types, generated beside it: the formatting is
 * here, once, not in each of the 2,788 wrappers (it was half of libcubind's code).
 *
 * The description is one string: the result's kind, then each parameter's kind and name, each
 * followed by ';' ("s;pplan;inx;e0:type;ibatch;"). Kinds, and the variadic argument each takes,
 * in order (the result's first, the parameters' after it):
 *   v  no result (void): no argument            s  a status: int
 *   i  signed integer: long long                u  unsigned integer: unsigned long long
 *   p  pointer: uintptr_t                       f  floating point: double
 *   r  a structure by value: no argument (written as {...})
 *   e<n>:  an enum: long long, written by name when `lookup(n, value)` knows it
 */
#ifndef CUBIND_LOADER_TRACE_LOG_H
#define CUBIND_LOADER_TRACE_LOG_H

#include <stddef.h>

#include "internal.h"
#include "trace.h"

/* The name of `value` in the library's enum number `which` of descriptions, NULL when none. */
typedef const char *(*cubind__trace_lookup)(unsigned which, long long value);

/* After a traced call (cubind__trace_begin returned 1): the line of function `index` of `table`,
 * when it is wanted (`failed`: a non-success status; CUBIND_TRACE=errors), written and ended. */
void cubind__trace_log(cubind__trace_call *call, const cubind__symbol_table *table, size_t index, int failed,
                       cubind__trace_lookup lookup, const char *description, ...);

#endif /* CUBIND_LOADER_TRACE_LOG_H */
