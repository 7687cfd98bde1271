/*
 * examples/allreduce_launcher.c - allreduce_matmul's sum over GPUs (seed 004: C = A B split along K,
 * partial products summed by ncclAllReduce, checked against the CPU) with one process per rank
 * started by a launcher, on one host or several; between hosts NCCL talks over the network.
 *
 *     mpirun -np 4 -H a:2,b:2 allreduce_launcher_mpi       the MPI build: ranks from MPI, id by MPI_Bcast
 *     srun -N 2 --ntasks-per-node=2 allreduce_launcher     with MASTER_ADDR and MASTER_PORT exported
 *     RANK=1 WORLD_SIZE=2 MASTER_ADDR=a MASTER_PORT=29500 allreduce_launcher    one such line a rank
 *
 * Without MPI the rank comes from the launcher's variables (RANK/WORLD_SIZE/LOCAL_RANK, Open MPI's,
 * MPICH's or Slurm's: common/launcher.h) and rank 0 hands the NCCL id to the others over TCP at
 * MASTER_ADDR:MASTER_PORT (common/id_exchange.h); with NCCL_COMM_ID=host:port set instead, NCCL's own bootstrap meets
 * there and every rank derives the id from it. Each rank uses GPU (local rank) mod (GPUs it sees),
 * checks C, then times the all-reduce alone. docs/multi-host.md says how to run it on several hosts.
 *
 * Build: cc -std=c11 allreduce_launcher.c common/launcher.c common/id_exchange.c \
 *            common/allreduce_slab.c -I. -Ibuild/include -Lbuild/lib -lcubind -lm
 *        MPI: mpicc -std=c11 -DCUBIND_EXAMPLE_MPI allreduce_launcher.c common/launcher.c \
 *            common/launcher_mpi.c common/allreduce_slab.c -I. -Ibuild/include -Lbuild/lib -lcubind -lm
 * Exit: 0 PASS, 1 a CUDA/NCCL error, bad launcher variables or a failed meeting (the reason is
 * printed), 2 wrong result, 77 no GPU/driver (see check.h). The MPI build exits with every rank's
 * worst status and rank 0 prints the verdict; otherwise each rank reports for itself.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "cubind/nccl.h"
#include "cubind/runtime.h"

#include "check.h"
#include "common/allreduce_slab.h"
#include "common/launcher.h"
#ifdef CUBIND_EXAMPLE_MPI
#include "common/launcher_mpi.h"
#define NAME "allreduce_launcher_mpi"
#else
#include "common/id_exchange.h"
#define NAME "allreduce_launcher"
#endif

/*
 * What this rank can do before the ranks meet: EXIT_PASS (the driver sees *devices GPUs, and
 * *id is made when makes_id), EXIT_NO_GPU, or EXIT_ERROR (ncclGetUniqueId failed).
 */
static int get_ready(int makes_id, int *devices, ncclUniqueId *id)
{
    if (cubind_runtime_get_device_count(devices) != cudaSuccess) {
        print_error("no usable CUDA driver");
        return EXIT_NO_GPU;
    }
    if (*devices <= 0) {
        fprintf(stderr, "the driver sees no GPU\n");
        return EXIT_NO_GPU;
    }
    if (makes_id && cubind_nccl_get_unique_id(id) != ncclSuccess) {
        print_error("ncclGetUniqueId failed");
        return EXIT_ERROR;
    }
    return EXIT_PASS;
}

/* After the meeting: the rank's computation on its GPU, or why it does not run. */
static int run(const struct launcher_rank *me, int status, int met, const char *why, int devices, ncclUniqueId id)
{
    int device;
    if (status == EXIT_NO_GPU) { /* and what the meeting learnt, if the ranks met */
        printf(NAME ": rank %d: SKIP (no GPU/driver)%s%s\n", me->rank, why[0] ? "; " : "", why);
        return EXIT_NO_GPU;
    }
    if (status != EXIT_PASS)
        return status;
    if (met != LAUNCHER_OK) {
        fprintf(stderr, NAME ": rank %d: %s\n", me->rank, why);
        return EXIT_ERROR;
    }
    device = me->local_rank % devices;
    if (me->local_rank >= devices) /* NCCL refuses two ranks of one communicator on one GPU */
        fprintf(stderr, NAME ": rank %d: local rank %d but %d GPU(s): GPU %d is shared\n", me->rank, me->local_rank,
                devices, device);
    return allreduce_slab_run(me->rank, me->size, device, id, 1);
}

int main(int argc, char **argv)
{
    struct launcher_rank me;
    ncclUniqueId id = {{0}}; /* rank 0's, once the ranks have met */
    char why[512] = "";
    int devices = 0, status, met;
#ifdef CUBIND_EXAMPLE_MPI
    int worst;
#else
    struct launcher_rendezvous how;
#endif

    /* NVLink SHARP (multicast) stays off: set before NCCL is loaded. */
    setenv("NCCL_NVLS_ENABLE", "0", 1);
#ifdef CUBIND_EXAMPLE_MPI
    if (launcher_mpi_start(&argc, &argv, &me, why, sizeof why) != LAUNCHER_OK) {
        fprintf(stderr, NAME ": %s\n", why);
        return EXIT_ERROR;
    }
#else
    (void)argc;
    (void)argv;
    if (launcher_rank_from_env(&me, why, sizeof why) != LAUNCHER_OK ||
        launcher_rendezvous_from_env(&me, &how, why, sizeof why) != LAUNCHER_OK) {
        fprintf(stderr, NAME ": %s\n", why);
        return EXIT_ERROR;
    }
#endif
    printf(NAME ": rank %d of %d, local rank %d%s, from %s\n", me.rank, me.size, me.local_rank,
           me.local_guessed ? " (no local rank given: the rank)" : "", me.source);

#ifdef CUBIND_EXAMPLE_MPI
    status = get_ready(me.rank == 0, &devices, &id);
    met = launcher_mpi_share_id(&me, &id, sizeof id, status == EXIT_PASS, why, sizeof why);
    status = run(&me, status, met, why, devices, id);
    worst = launcher_mpi_worst(status);
    if (me.rank == 0)
        printf(NAME ": %d rank(s): %s\n", me.size,
               worst == EXIT_PASS     ? "PASS"
               : worst == EXIT_NO_GPU ? "SKIP (no GPU/driver)"
                                      : "FAIL");
    launcher_mpi_finish();
    return worst;
#else
    /* With NCCL_COMM_ID every rank derives the same id from it; otherwise rank 0 makes it. */
    status = get_ready(me.rank == 0 || how.kind == LAUNCHER_NCCL_COMM_ID, &devices, &id);
    if (how.kind == LAUNCHER_TCP)
        met = launcher_share_id(&me, &how, &id, sizeof id, status == EXIT_PASS, why, sizeof why);
    else /* nothing to share; with NCCL_COMM_ID a rank that stops here leaves the others waiting in NCCL */
        met = status == EXIT_PASS ? LAUNCHER_OK : LAUNCHER_NOT_READY;
    return run(&me, status, met, why, devices, id);
#endif
}
