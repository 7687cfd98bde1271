/*
 * examples/allreduce_matmul.c - C = A B split over the GPUs along K, summed with NCCL (seed 004:
 * nvmath's distributed matmul with the ALLREDUCE epilog).
 *
 * One process per GPU: the program forks its ranks. Rank r computes its K-slab's partial product
 * with cuBLAS and ncclAllReduce sums them; every rank checks the full C against the CPU
 * (common/allreduce_slab.c, shared with allreduce_launcher.c, whose ranks a launcher starts).
 *
 *     allreduce_matmul        one rank per GPU
 *     allreduce_matmul 2      two ranks (at most the number of GPUs)
 *
 * The parent never initialises CUDA (CUDA does not survive fork()): a short-lived child counts the
 * GPUs; the ranks are forked before the parent creates the NCCL unique id, which reaches them
 * through a pipe each.
 * Build: cc -std=c11 allreduce_matmul.c common/allreduce_slab.c -I. -Ibuild/include -Lbuild/lib -lcubind -lm
 * Exit: 0 when every rank passed, 1 CUDA/NCCL error, 2 wrong result, 77 no GPU/driver (see check.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cubind/nccl.h"
#include "cubind/runtime.h"

#include "check.h"
#include "common/allreduce_slab.h"

enum { MAX_RANKS = 64 };

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
    printf("allreduce_matmul: %dx%dx%d over %d rank(s), %d GPU(s) present\n", ALLREDUCE_M, ALLREDUCE_N, ALLREDUCE_K,
           ranks, devices);

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
            exit(allreduce_slab_run(r, ranks, r, id, 0));
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
