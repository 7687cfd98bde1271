/*
 * examples/common/launcher_mpi.c - launcher_mpi.h: the rank and the id's broadcast through MPI.
 */
#include "launcher_mpi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

int launcher_mpi_start(int *argc, char ***argv, struct launcher_rank *me, char *why, size_t why_size)
{
    MPI_Comm host;
    if (MPI_Init(argc, argv) != MPI_SUCCESS || MPI_Comm_rank(MPI_COMM_WORLD, &me->rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &me->size) != MPI_SUCCESS ||
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me->rank, MPI_INFO_NULL, &host) != MPI_SUCCESS) {
        snprintf(why, why_size, "MPI did not start");
        return LAUNCHER_FAILED;
    }
    if (MPI_Comm_rank(host, &me->local_rank) != MPI_SUCCESS) {
        snprintf(why, why_size, "MPI: no rank in this host's communicator");
        return LAUNCHER_FAILED;
    }
    MPI_Comm_free(&host);
    me->local_guessed = 0;
    me->source = "MPI_COMM_WORLD (local rank: MPI_COMM_TYPE_SHARED)";
    return LAUNCHER_OK;
}

int launcher_mpi_share_id(const struct launcher_rank *me, void *id, size_t id_size, int ready, char *why,
                          size_t why_size)
{
    int *readiness = malloc(sizeof(int) * (size_t)me->size), result = LAUNCHER_FAILED;
    snprintf(why, why_size, "MPI: the meeting failed");
    if (readiness != NULL && id_size <= INT_MAX &&
        MPI_Allgather(&ready, 1, MPI_INT, readiness, 1, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS) {
        if (launcher_describe_not_ready(readiness, me->size, why, why_size) > 0)
            result = LAUNCHER_NOT_READY;
        else if (MPI_Bcast(id, (int)id_size, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS)
            result = LAUNCHER_OK;
    }
    free(readiness);
    return result;
}

int launcher_mpi_worst(int status)
{
    int worst = status;
    if (MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return status > 1 ? status : 1;
    return worst;
}

void launcher_mpi_finish(void)
{
    MPI_Finalize();
}
