/*
 * tests/launcher/driver.c - one rank for tests/launcher/run.sh. It finds its rank as
 * examples/allreduce_launcher.c does (common/launcher.h and id_exchange.h; common/launcher_mpi.h
 * when built with CUBIND_EXAMPLE_MPI), meets the other ranks with a 128-byte id that rank 0 makes from its process
 * id and the clock, and prints one line:
 *     rank R of S local L id DIGEST from SOURCE    met; DIGEST: FNV-1a of the id this rank holds
 *     rank R of S not ready: WHY                    exit 3: a rank was not ready (DRIVER_NOT_READY=r
 *                                                   makes rank r say so)
 *     error: WHY                                    exit 1
 * No CUDA and no cubind: it runs under mpirun or with plain variables on a machine without a GPU.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"
#ifdef CUBIND_EXAMPLE_MPI
#include "launcher_mpi.h"
#else
#include "id_exchange.h"
#endif

enum { ID_SIZE = 128, EXIT_NOT_READY = 3 };

static uint64_t digest(const unsigned char *bytes, size_t size)
{
    uint64_t h = 14695981039346656037ULL;
    size_t i;
    for (i = 0; i < size; ++i)
        h = (h ^ bytes[i]) * 1099511628211ULL;
    return h;
}

int main(int argc, char **argv)
{
    struct launcher_rank me;
    unsigned char id[ID_SIZE] = {0};
    char why[512] = "";
    const char *not_ready = getenv("DRIVER_NOT_READY");
    int met, ready;
#ifdef CUBIND_EXAMPLE_MPI
    if (launcher_mpi_start(&argc, &argv, &me, why, sizeof why) != LAUNCHER_OK) {
        printf("error: %s\n", why);
        return 1;
    }
#else
    struct launcher_rendezvous how;
    (void)argc;
    (void)argv;
    if (launcher_rank_from_env(&me, why, sizeof why) != LAUNCHER_OK ||
        launcher_rendezvous_from_env(&me, &how, why, sizeof why) != LAUNCHER_OK) {
        printf("error: %s\n", why);
        return 1;
    }
#endif
    ready = not_ready == NULL || atoi(not_ready) != me.rank;
    if (me.rank == 0) { /* an id that differs from run to run: a linear congruential sequence */
        struct timespec now;
        uint64_t x;
        size_t i;
        clock_gettime(CLOCK_REALTIME, &now);
        x = (uint64_t)getpid() << 32 ^ (uint64_t)now.tv_nsec;
        for (i = 0; i < ID_SIZE; ++i) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            id[i] = (unsigned char)(x >> 56);
        }
    }
#ifdef CUBIND_EXAMPLE_MPI
    met = launcher_mpi_share_id(&me, id, sizeof id, ready, why, sizeof why);
#else
    if (how.kind == LAUNCHER_TCP)
        met = launcher_share_id(&me, &how, id, sizeof id, ready, why, sizeof why);
    else if (how.kind == LAUNCHER_ALONE)
        met = ready ? LAUNCHER_OK : LAUNCHER_NOT_READY;
    else {
        snprintf(why, sizeof why, "NCCL_COMM_ID: NCCL itself meets at %s port %s", how.host, how.port);
        met = LAUNCHER_FAILED;
    }
#endif
    if (met == LAUNCHER_OK)
        printf("rank %d of %d local %d id %016llx from %s\n", me.rank, me.size, me.local_rank,
               (unsigned long long)digest(id, sizeof id), me.source);
    else if (met == LAUNCHER_NOT_READY)
        printf("rank %d of %d not ready: %s\n", me.rank, me.size, why);
    else
        printf("error: %s\n", why);
#ifdef CUBIND_EXAMPLE_MPI
    launcher_mpi_finish();
#endif
    return met == LAUNCHER_OK ? 0 : met == LAUNCHER_NOT_READY ? EXIT_NOT_READY : 1;
}
