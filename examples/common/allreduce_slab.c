/*
 * examples/common/allreduce_slab.c - one rank's K-slab, the all-reduce and the check (see
 * allreduce_slab.h). Every CUDA, cuBLAS and NCCL call goes through cubind.
 */
#include "allreduce_slab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cubind/cublas.h"
#include "cubind/nccl.h"
#include "cubind/runtime.h"

#include "check.h"

enum { M = ALLREDUCE_M, N = ALLREDUCE_N, K = ALLREDUCE_K, WARM_UP = 3, REPEATS = 21 };
#define LARGE_BYTES ((size_t)64 << 20)

static int compare_floats(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* ncclAllReduce of `count` floats alone: the median of REPEATS, each between two events. */
static void time_all_reduce(ncclComm_t comm, cudaStream_t stream, size_t count, int rank, int ranks)
{
    cudaEvent_t start[REPEATS], stop[REPEATS];
    float ms[REPEATS], median;
    const double bytes = (double)count * sizeof(float);
    float *buffer;
    int i;

    CHECK(cubind_runtime_malloc((void **)&buffer, count * sizeof(float)));
    CHECK(cubind_runtime_memset(buffer, 0, count * sizeof(float))); /* zeros stay zeros: no overflow */
    for (i = 0; i < REPEATS; ++i) {
        CHECK(cubind_runtime_event_create(&start[i]));
        CHECK(cubind_runtime_event_create(&stop[i]));
    }
    for (i = 0; i < WARM_UP; ++i)
        CHECK(cubind_nccl_all_reduce(buffer, buffer, count, ncclFloat, ncclSum, comm, stream));
    for (i = 0; i < REPEATS; ++i) {
        CHECK(cubind_runtime_event_record(start[i], stream));
        CHECK(cubind_nccl_all_reduce(buffer, buffer, count, ncclFloat, ncclSum, comm, stream));
        CHECK(cubind_runtime_event_record(stop[i], stream));
    }
    CHECK(cubind_runtime_stream_synchronize(stream));
    for (i = 0; i < REPEATS; ++i) {
        CHECK(cubind_runtime_event_elapsed_time(&ms[i], start[i], stop[i]));
        CHECK(cubind_runtime_event_destroy(start[i]));
        CHECK(cubind_runtime_event_destroy(stop[i]));
    }
    CHECK(cubind_runtime_free(buffer));
    qsort(ms, REPEATS, sizeof ms[0], compare_floats);
    median = ms[REPEATS / 2];
    /* Bus bandwidth as nccl-tests defines it for all-reduce: bytes * 2 (n - 1) / n per second. */
    printf("  rank %d: all-reduce of %.0f KiB: %.1f us (median of %d), bus bandwidth %.2f GB/s\n", rank, bytes / 1024.0,
           median * 1000.0, REPEATS, median > 0.0f ? bytes * 2.0 * (ranks - 1) / ranks / (median * 1e-3) / 1e9 : 0.0);
}

int allreduce_slab_run(int rank, int ranks, int device, ncclUniqueId id, int timed)
{
    static float a[M * K], b[K * N], bslab[K * N], c[M * N];
    const float one = 1.0f, zero = 0.0f;
    const int k0 = rank * K / ranks, k1 = (rank + 1) * K / ranks, kr = k1 - k0;
    float *da, *db, *dc;
    cudaStream_t stream;
    cublasHandle_t blas;
    ncclComm_t comm;
    int i, j, l, bad = 0;

    for (i = 0; i < M * K; ++i) /* the same A and B in every rank */
        a[i] = (float)((i * 7) % 11 - 5);
    for (i = 0; i < K * N; ++i)
        b[i] = (float)((i * 3) % 9 - 4) * 0.5f;
    for (j = 0; j < N; ++j) /* B's rows [k0, k1), packed: kr x N, ld kr */
        for (l = 0; l < kr; ++l)
            bslab[l + j * kr] = b[k0 + l + j * K];

    CHECK(cubind_runtime_set_device(device)); /* before NCCL: the communicator binds to the current GPU */
    CHECK(cubind_runtime_stream_create(&stream));
    CHECK(cubind_runtime_malloc((void **)&da, sizeof(float) * M * kr));
    CHECK(cubind_runtime_malloc((void **)&db, sizeof(float) * kr * N));
    CHECK(cubind_runtime_malloc((void **)&dc, sizeof(float) * M * N));
    /* A's columns [k0, k1) are contiguous in column-major order: M x kr, ld M. */
    CHECK(cubind_runtime_memcpy(da, a + (size_t)k0 * M, sizeof(float) * M * kr, cudaMemcpyHostToDevice));
    CHECK(cubind_runtime_memcpy(db, bslab, sizeof(float) * kr * N, cudaMemcpyHostToDevice));

    CHECK(cubind_cublas_create(&blas));
    CHECK(cubind_cublas_set_stream(blas, stream));
    CHECK(cubind_cublas_sgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, M, N, kr, &one, da, M, db, kr, &zero, dc, M));

    /* Every rank calls this with its own rank; it returns when all `ranks` have joined. */
    CHECK(cubind_nccl_comm_init_rank(&comm, ranks, id, rank));
    /* Same stream as the sgemm: the sum starts after this rank's partial product. */
    CHECK(cubind_nccl_all_reduce(dc, dc, (size_t)M * N, ncclFloat, ncclSum, comm, stream));
    CHECK(cubind_runtime_stream_synchronize(stream));
    CHECK(cubind_runtime_memcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));

    for (j = 0; j < N; ++j)
        for (i = 0; i < M; ++i) {
            double ref = 0.0, mag = 0.0;
            for (l = 0; l < K; ++l) {
                ref += (double)a[i + l * M] * b[l + j * K];
                mag += fabs((double)a[i + l * M] * b[l + j * K]);
            }
            if (!(fabs(c[i + j * M] - ref) <= 1e-5 * (1.0 + mag)))
                ++bad;
        }
    printf("  rank %d of %d (GPU %d), K slab [%d, %d): %d of %d elements wrong: %s\n", rank, ranks, device, k0, k1, bad,
           M * N, bad ? "FAIL" : "PASS");
    if (timed) {
        time_all_reduce(comm, stream, (size_t)M * N, rank, ranks);
        time_all_reduce(comm, stream, LARGE_BYTES / sizeof(float), rank, ranks);
    }

    CHECK(cubind_nccl_comm_destroy(comm));
    CHECK(cubind_cublas_destroy(blas));
    CHECK(cubind_runtime_free(da));
    CHECK(cubind_runtime_free(db));
    CHECK(cubind_runtime_free(dc));
    CHECK(cubind_runtime_stream_destroy(stream));
    return bad ? EXIT_WRONG : EXIT_PASS;
}
