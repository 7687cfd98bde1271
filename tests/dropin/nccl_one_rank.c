/* tests/dropin/nccl_one_rank.c - an all-reduce on one rank with NCCL, written for NVIDIA's headers
 * alone. */
#include <nccl.h>
#include <cuda_runtime_api.h>

#include "check.h"

int main(void)
{
    float *buffer = NULL;
    ncclComm_t comm = NULL;
    int devices[1] = {0}, version = 0;
    CHECK(ncclGetVersion(&version));
    CHECK(cudaMalloc((void **)&buffer, 1024 * sizeof *buffer));
    CHECK(ncclCommInitAll(&comm, 1, devices));
    CHECK(ncclAllReduce(buffer, buffer, 1024, ncclFloat, ncclSum, comm, NULL));
    CHECK(cudaDeviceSynchronize());
    CHECK(ncclCommDestroy(comm));
    CHECK(cudaFree(buffer));
    printf("nccl_one_rank: done (NCCL %d)\n", version);
    return 0;
}
