/*
 * bench/gpu/calls.h - what bench/gpu/calls.c shares with bench/gpu/calls_inline.c: the loops'
 * length and arguments, the loop itself, and the inline form's loops.
 */
#ifndef CUBIND_BENCH_GPU_CALLS_H
#define CUBIND_BENCH_GPU_CALLS_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

extern long calls; /* iterations of each loop */
extern cublasHandle_t handle;
extern cudaStream_t stream;
extern cublasPointerMode_t mode;

/* One loop of `calls` calls; returns the statuses or'ed together (0: every call succeeded). */
#define LOOP(name, call)                                                                                     \
    __attribute__((noinline)) int name(void)                                                                 \
    {                                                                                                        \
        int bad = 0;                                                                                         \
        for (long i = 0; i < calls; ++i)                                                                     \
            bad |= (int)(call);                                                                              \
        return bad;                                                                                          \
    }

int set_stream_inline(void);
int pointer_mode_inline(void);
int stream_query_inline(void);
int mixed_inline(void);

#endif /* CUBIND_BENCH_GPU_CALLS_H */
