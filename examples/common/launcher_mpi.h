/*
 * examples/common/launcher_mpi.h - the rank and the meeting of launcher.h, from MPI: the ranks are
 * MPI_COMM_WORLD's, the local rank is the rank among the processes that share this host's memory
 * (MPI_COMM_TYPE_SHARED), and rank 0's NCCL id reaches the others by MPI_Bcast.
 * Built only where MPI is found (examples/examples.mk): the programs define CUBIND_EXAMPLE_MPI.
 */
#ifndef CUBIND_EXAMPLES_LAUNCHER_MPI_H
#define CUBIND_EXAMPLES_LAUNCHER_MPI_H

#include <stddef.h>

#include "launcher.h"

/* MPI_Init and the rank; LAUNCHER_OK or LAUNCHER_FAILED (why). */
int launcher_mpi_start(int *argc, char ***argv, struct launcher_rank *me, char *why, size_t why_size);

/*
 * Every rank says whether it is ready (MPI_Allgather); when all are, rank 0's id_size bytes at id
 * reach every rank (MPI_Bcast). LAUNCHER_OK, LAUNCHER_NOT_READY (why names the ranks that are not)
 * or LAUNCHER_FAILED (an MPI error).
 */
int launcher_mpi_share_id(const struct launcher_rank *me, void *id, size_t id_size, int ready, char *why,
                          size_t why_size);

/* The largest of every rank's exit status (MPI_Allreduce), for one verdict printed by rank 0. */
int launcher_mpi_worst(int status);

/* MPI_Finalize. */
void launcher_mpi_finish(void);

#endif
