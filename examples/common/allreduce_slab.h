/*
 * examples/common/allreduce_slab.h - one rank of seed 004 (nvmath's distributed matmul with the
 * ALLREDUCE epilog): C = A B split over the ranks along K, the partial products summed by NCCL.
 * Shared by allreduce_matmul.c (ranks forked on one host) and allreduce_launcher.c (ranks started
 * by a launcher, on one host or several).
 */
#ifndef CUBIND_EXAMPLES_ALLREDUCE_SLAB_H
#define CUBIND_EXAMPLES_ALLREDUCE_SLAB_H

#include "cubind/nccl.h"

/* C (M x N) = A (M x K) B (K x N), column-major. */
enum { ALLREDUCE_M = 256, ALLREDUCE_N = 192, ALLREDUCE_K = 512 };

/*
 * Rank `rank` of `ranks`, on GPU `device`, in the communicator that `id` names: the rank holds the
 * K-slab [k0, k1) of A's columns and of B's rows, computes A[:, k0:k1] B[k0:k1, :] with cuBLAS,
 * and ncclAllReduce (sum, in place) adds the partial products: every rank then holds the full C
 * and checks it against the CPU product, |C - ref| <= 1e-5 * (1 + S), S the sum of |a b| over the
 * K terms (the inputs are small multiples of 1/2: every sum is in fact exact).
 * With `timed`, then times ncclAllReduce alone (events on the stream, median of 21 after 3 to warm
 * up) on C's size and on 64 MiB, and prints both.
 * Prints the rank's PASS/FAIL line; returns EXIT_PASS or EXIT_WRONG (a failed call exits, check.h).
 */
int allreduce_slab_run(int rank, int ranks, int device, ncclUniqueId id, int timed);

#endif
