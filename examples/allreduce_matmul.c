/*
 * examples/allreduce_matmul.c - C = A B split over the GPUs along K, summed with NCCL (seed 004:
 * nvmath's distributed matmul with the ALLREDUCE epilog).
 *
 * One process per GPU: the program forks its ranks. Rank r holds the K-slab [k0, k1) of A's columns
 * and of B's rows, computes its partial product A[:, k0:k1] B[k0:k1, :] with cuBLAS, and
 * ncclAllReduce (sum, in place) adds the partial products: every rank then holds the full C and
 * checks it against the CPU product: |C - ref| <= 1e-5 * (1 + S), S the sum of |a b| over the K
 * terms (the inputs are small multiples of 1/2, so every sum is in fact exact).
 *
 *     allreduce_matmul        one rank per GPU
 *     allreduce_matmul 2      two ranks (at most the number of GPUs)
 *
 * The parent never initialises CUDA (CUDA does not survive fork()): a short-lived child counts the
 * GPUs; the ranks are forked before the parent creates the NCCL unique id, which reaches them
 * through a pipe each.
 * Build: cc -std=c11 allreduce_matmul.c -Ibuild/include -Lbuild/lib -lcubind -lm
 * Exit: 0 when every rank passed, 1 CUDA/NCCL error, 2 wrong result, 77 no GPU/driver (see check.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

enum { M = 256, N = 192, K = 512, MAX_RANKS = 64 };

static int read_all(int fd, void *buf, size_t size)
{
    char *p = buf;
    while (size > 0) {
        ssize_t got = read(fd, p, size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        size -= (size_t)got;
    }
    return 0;
}

/* The number of GPUs, asked in a child so that this process stays without CUDA; -1 if none usable. */
static int count_devices(void)
{
    int fd[2], count = -1, status;
    pid_t pid;
    if (pipe(fd) != 0)
        return -1;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int n = -1;
        close(fd[0]);
        if (cubind_runtime_get_device_count(&n) != cudaSuccess) {
            print_error("no usable CUDA driver");
            n = -1;
        }
        if (write(fd[1], &n, sizeof n) != (ssize_t)sizeof n)
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    if (pid < 0 || read_all(fd[0], &count, sizeof count) != 0)
        count = -1;
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, &status, 0);
    return count;
}

/* One rank: GPU `rank`, its K-slab, the all-reduce, the check. Returns the exit status. */
static int run_rank(int rank, int ranks, ncclUniqueId id)
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

    CHECK(cubind_runtime_set_device(rank)); /* before NCCL: the communicator binds to the current GPU */
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

    CHECK(cubind_nccl_comm_destroy(comm));
    CHECK(cubind_cublas_destroy(blas));
    CHECK(cubind_runtime_free(da));
    CHECK(cubind_runtime_free(db));
    CHECK(cubind_runtime_free(dc));
    CHECK(cubind_runtime_stream_destroy(stream));
    printf("  rank %d of %d (GPU %d), K slab [%d, %d): %d of %d elements wrong: %s\n", rank, ranks, rank, k0, k1,
           bad, M * N, bad ? "FAIL" : "PASS");
    return bad ? EXIT_WRONG : EXIT_PASS;
}

int main(int argc, char **argv)
{
    int fds[MAX_RANKS][2], devices, ranks, r, failed = 0, result = EXIT_PASS;
    pid_t pids[MAX_RANKS];
    ncclUniqueId id;

    /* NVLink SHARP (multicast) stays off: set before NCCL is loaded anywhere, inherited by the ranks. */
    setenv("NCCL_NVLS_ENABLE", "0", 1);

    devices = count_devices();
    if (devices <= 0) {
        printf("allreduce_matmul: SKIP (no GPU/driver)\n");
        return EXIT_NO_GPU;
    }
    ranks = argc > 1 ? atoi(argv[1]) : devices;
    if (ranks < 1 || ranks > devices || ranks > MAX_RANKS) {
        fprintf(stderr, "usage: %s [RANKS], 1 <= RANKS <= %d (the number of GPUs)\n", argv[0], devices);
        return EXIT_ERROR;
    }
    printf("allreduce_matmul: %dx%dx%d over %d rank(s), %d GPU(s) present\n", M, N, K, ranks, devices);

    for (r = 0; r < ranks; ++r)
        if (pipe(fds[r]) != 0) {
            perror("pipe");
            return EXIT_ERROR;
        }
    fflush(NULL);
    for (r = 0; r < ranks; ++r) {
        pids[r] = fork();
        if (pids[r] < 0) {
            perror("fork");
            return EXIT_ERROR;
        }
        if (pids[r] == 0) {
            int i;
            for (i = 0; i < ranks; ++i) { /* keep only this rank's read end */
                close(fds[i][1]);
                if (i != r)
                    close(fds[i][0]);
            }
            if (read_all(fds[r][0], &id, sizeof id) != 0) {
                fprintf(stderr, "rank %d: no NCCL id from the parent\n", r);
                exit(EXIT_ERROR);
            }
            exit(run_rank(r, ranks, id));
        }
        close(fds[r][0]);
    }

    /* The id names the parent's bootstrap socket: the parent stays alive until every rank is done. */
    if (cubind_nccl_get_unique_id(&id) != ncclSuccess) {
        print_error("ncclGetUniqueId failed");
        result = EXIT_ERROR; /* the ranks read end-of-file and exit */
    } else {
        for (r = 0; r < ranks; ++r)
            if (write(fds[r][1], &id, sizeof id) != (ssize_t)sizeof id)
                perror("write");
    }
    for (r = 0; r < ranks; ++r)
        close(fds[r][1]);

    for (r = 0; r < ranks; ++r) {
        int status, code;
        while (waitpid(pids[r], &status, 0) < 0 && errno == EINTR)
            ;
        code = WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_ERROR;
        if (code != EXIT_PASS) {
            ++failed;
            if (result == EXIT_PASS || code == EXIT_WRONG)
                result = code;
        }
    }
    printf("allreduce_matmul: %d rank(s), %d failed: %s\n", ranks, failed, result == EXIT_PASS ? "PASS" : "FAIL");
    return result;
}
