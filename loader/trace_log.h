/*
 * loader/trace_log.h - the one traced path of every wrapper (CUBIND_TRACE); not installed.
 * Layer 3.
 *
 * A wrapper's slow path, while tracing, hands its arguments to cubind__trace_args before its call
 * and its result to cubind__trace_result after it: the formatting is here, once, and what it
 * needs of each function is data, generated in its library's symbol table (cubind__trace_table,
 * loader/internal.h), not code in each of the 2,788 wrappers.
 *
 * A function's description is one string: the result's kind, then each parameter's kind and name,
 * each followed by ';' ("s;pplan;inx;e0:type;ibatch;"); a name the library's table holds (one of
 * its most used) is one byte, 0x80 and up, its number there ("s;p\200;inx;..."). Kinds, and the variadic argument each
 * takes (the parameters' to cubind__trace_args, the result's to cubind__trace_result): every integer
 * and pointer a cubind__word holding its value (a signed one converted: -1 is all ones), as a shared
 * slow path has them whatever their kinds (generator/shapes.py):
 *   v  no result (void): no argument            s  a status: int
 *   i  signed integer: cubind__word             u  unsigned integer: cubind__word
 *   p  pointer: cubind__word                    f  floating point: double
 *   r  a structure by value: no argument (written as {...})
 *   e<n>:  an enum: cubind__word, written by name when the library's enum number n has it
 */
#ifndef CUBIND_LOADER_TRACE_LOG_H
#define CUBIND_LOADER_TRACE_LOG_H

#include <stddef.h>

#include "internal.h"
#include "trace.h"

/* Before the call of function `id` (CUBIND__FUNCTION_ID, loader/internal.h): 0 when its calls are not traced (and
 * cubind__trace_result on `call` then does nothing), else 1 with its line begun (its name and
 * arguments, the parameters' values as its description says) and the call's start time taken.
 * errno is left as it was. */
int cubind__trace_args(cubind__trace_call *call, unsigned id, ...);

/* The same for function `index` of `table` with the description given (what cubind__trace_args
 * does with the table's own). */
int cubind__trace_described(cubind__trace_call *call, const cubind__symbol_table *table, size_t index,
                            const char *description, ...);

/* After the call: nothing when cubind__trace_args on `call` returned 0; else its result, when its
 * description has one, then the line is written when it is wanted (CUBIND_TRACE=errors: a failing
 * status only). */
void cubind__trace_result(cubind__trace_call *call, ...);

/* What a wrapper's slow path writes (templates/library.c.j2): its call's description, its
 * arguments before the call, its result after it. Built without tracing (CUBIND_NO_TRACE), nothing. */
#if defined(CUBIND_NO_TRACE)
#define CUBIND__TRACE_CALL(call)
#define CUBIND__TRACE_ARGS(...) ((void)0)
#define CUBIND__TRACE_RESULT(...) ((void)0)
#else
/* The line's buffer (2 KB) as a variable length array: the slow path's frame is then addressed
 * from its frame pointer, so that its parameters passed on the stack are reached with short
 * displacements and its unwind information needs no step per push (`make bench-size`: 8% of the
 * library with tracing). One element, always. */
static inline size_t cubind__trace_calls(void)
{
#if defined(__clang__)
    size_t one = 1;
    __asm__("" : "+r"(one)); /* clang makes an array of a constant length a fixed one */
    return one;
#else
    return cubind__tracing() ? 1 : 1;
#endif
}
#define CUBIND__TRACE_CALL(call) cubind__trace_call call##_space[cubind__trace_calls()], *call = call##_space
#define CUBIND__TRACE_ARGS(...) ((void)cubind__trace_args(__VA_ARGS__))
#define CUBIND__TRACE_RESULT(...) cubind__trace_result(__VA_ARGS__)
#endif

/* The name of `value` in the library's enum number `which` of its descriptions, NULL when none:
 * what follows the prefix its enum's names share, which is in *prefix ("CUBLAS_OP_" and "N"). */
const char *cubind__trace_enum_name(const cubind__symbol_table *table, unsigned which, long long value,
                                    const char **prefix);

#endif /* CUBIND_LOADER_TRACE_LOG_H */
