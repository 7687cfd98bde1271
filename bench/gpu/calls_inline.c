/*
 * bench/gpu/calls_inline.c - the inline form's loops of bench/gpu/calls.c: this file is built with
 * CUBIND_INLINE (cubind/inline.h) and linked into the same program, so the same calls have their
 * hot path compiled here. Each loop returns the statuses or'ed together (0: every call succeeded).
 */
#define CUBIND_INLINE
#include "calls.h"
#include "cubind/cubind.h"

LOOP(set_stream_inline, cubind_cublas_set_stream(handle, stream))
LOOP(pointer_mode_inline, cubind_cublas_get_pointer_mode(handle, &mode))
LOOP(stream_query_inline, cubind_runtime_stream_query(stream))
LOOP(mixed_inline, cubind_cublas_set_stream(handle, stream) | cubind_cublas_get_pointer_mode(handle, &mode) |
                       cubind_runtime_stream_query(stream))
