/*
 * examples/common/id_exchange.h - the meeting at MASTER_ADDR:MASTER_PORT (launcher.h's
 * LAUNCHER_TCP): rank 0 hands its NCCL id to the other ranks over TCP. POSIX sockets only, no
 * CUDA: tests/launcher/ runs it between processes on 127.0.0.1.
 */
#ifndef CUBIND_EXAMPLES_ID_EXCHANGE_H
#define CUBIND_EXAMPLES_ID_EXCHANGE_H

#include <stddef.h>

#include "launcher.h"

/*
 * The TCP meeting (how->kind LAUNCHER_TCP), called by every rank: rank 0 listens on how->port
 * (on MASTER_ADDR when it names this host's loopback, else on every address), the others connect
 * to how->host, retrying until rank 0 listens. Each says whether it is ready; once all size ranks
 * have, rank 0 sends its id_size bytes at id to all of them, or, when one is not ready, tells all
 * that none goes on. Everything is bounded by how->timeout_s.
 * Returns LAUNCHER_OK (id filled in every rank), LAUNCHER_NOT_READY (why names the ranks) or
 * LAUNCHER_FAILED (why: a timeout, a rank missing, a duplicate rank, another WORLD_SIZE, rank 0
 * gone).
 */
int launcher_share_id(const struct launcher_rank *me, const struct launcher_rendezvous *how, void *id, size_t id_size,
                      int ready, char *why, size_t why_size);

#endif
