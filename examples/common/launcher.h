/*
 * examples/common/launcher.h - which rank this process is and how the ranks meet, when a launcher
 * (mpirun, srun, torchrun, a shell loop over hosts) started one process per rank.
 *
 * Nothing here touches CUDA or cubind, so that the tests (tests/launcher/) run it on a machine with
 * no GPU. id_exchange.h is the TCP meeting; launcher_mpi.h is the same with MPI.
 */
#ifndef CUBIND_EXAMPLES_LAUNCHER_H
#define CUBIND_EXAMPLES_LAUNCHER_H

#include <stddef.h>

/* What the launcher_* functions return. */
enum {
    LAUNCHER_OK = 0,        /* done */
    LAUNCHER_NOT_READY = 1, /* the ranks met, but at least one cannot run (no GPU): none goes on */
    LAUNCHER_FAILED = -1    /* bad variables, a timeout, a peer that broke off: `why` says which */
};

struct launcher_rank {
    int rank;           /* 0 .. size - 1 */
    int size;           /* the number of ranks */
    int local_rank;     /* the rank among those of this host: picks the GPU */
    int local_guessed;  /* 1: the launcher gave no local rank, local_rank is rank */
    const char *source; /* the variables (or MPI) it came from, for messages */
};

enum launcher_meeting { LAUNCHER_ALONE, LAUNCHER_NCCL_COMM_ID, LAUNCHER_TCP };

/* How the ranks meet (launcher_rendezvous_from_env). */
struct launcher_rendezvous {
    enum launcher_meeting kind; /* ALONE: one rank; NCCL_COMM_ID: NCCL's bootstrap; TCP: rank 0 serves the id */
    char host[256];             /* NCCL_COMM_ID's host, or MASTER_ADDR */
    char port[8];               /* its port, or MASTER_PORT (1..65535) */
    int timeout_s;              /* RENDEZVOUS_TIMEOUT (seconds, default 120): TCP only */
};

/*
 * The rank, the number of ranks and the local rank, from the first of these sets whose variables
 * are set (a user's RANK/WORLD_SIZE first: mpirun under sbatch also passes Slurm's variables on):
 *     RANK, WORLD_SIZE, LOCAL_RANK                                            torchrun, by hand
 *     OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK  Open MPI's mpirun
 *     PMI_RANK, PMI_SIZE, MPI_LOCALRANKID                                     MPICH's mpiexec
 *     SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID                               srun
 * None set: one rank (0 of 1). A set with only some of its rank and size variables, a value that
 * is not a decimal number, or a rank or local rank not below the size is an error. A set without
 * its local rank variable takes the rank (local_guessed).
 * Returns LAUNCHER_OK, or LAUNCHER_FAILED with the reason in why.
 */
int launcher_rank_from_env(struct launcher_rank *me, char *why, size_t why_size);

/*
 * How the ranks meet: NCCL_COMM_ID=host:port when set (every rank derives the NCCL id from it,
 * rank 0's ncclCommInitRank listens there); otherwise one rank needs none; otherwise
 * MASTER_ADDR and MASTER_PORT (rank 0 listens there and sends the id to the others). Also reads
 * RENDEZVOUS_TIMEOUT. Returns LAUNCHER_OK, or LAUNCHER_FAILED with the reason in why (a job of
 * several ranks with no address, a malformed address or port).
 */
int launcher_rendezvous_from_env(const struct launcher_rank *me, struct launcher_rendezvous *how, char *why,
                                 size_t why_size);

/* Writes "rank(s) A, B, ... cannot run" for the ranks whose ready[r] is 0; returns their number. */
int launcher_describe_not_ready(const int *ready, int size, char *why, size_t why_size);

#endif
