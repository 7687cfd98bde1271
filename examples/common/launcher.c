/*
 * examples/common/launcher.c - which rank this process is, from a launcher's environment variables,
 * and where the ranks meet (see launcher.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "launcher.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEFAULT_TIMEOUT_S = 120 };

/* --- the rank from the environment ---------------------------------------------------------- */

static const struct {
    const char *rank, *size, *local, *source;
} VARIABLE_SETS[] = {
    {"RANK", "WORLD_SIZE", "LOCAL_RANK", "RANK/WORLD_SIZE/LOCAL_RANK"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI's OMPI_COMM_WORLD_*"},
    {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPICH's PMI_RANK/PMI_SIZE/MPI_LOCALRANKID"},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "Slurm's SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID"},
};

/* A decimal number in [low, high], digits only (no sign, no spaces). */
static int parse_number(const char *name, const char *text, long low, long high, int *out, char *why, size_t why_size)
{
    long value = 0;
    const char *p = text;
    if (*p == '\0') {
        snprintf(why, why_size, "%s is empty", name);
        return LAUNCHER_FAILED;
    }
    for (; *p != '\0'; ++p) {
        if (*p < '0' || *p > '9' || value > (LONG_MAX - 9) / 10) {
            snprintf(why, why_size, "%s=%s is not a number from %ld to %ld", name, text, low, high);
            return LAUNCHER_FAILED;
        }
        value = value * 10 + (*p - '0');
    }
    if (value < low || value > high) {
        snprintf(why, why_size, "%s=%s is not a number from %ld to %ld", name, text, low, high);
        return LAUNCHER_FAILED;
    }
    *out = (int)value;
    return LAUNCHER_OK;
}

int launcher_rank_from_env(struct launcher_rank *me, char *why, size_t why_size)
{
    size_t i;
    for (i = 0; i < sizeof VARIABLE_SETS / sizeof VARIABLE_SETS[0]; ++i) {
        const char *rank = getenv(VARIABLE_SETS[i].rank), *size = getenv(VARIABLE_SETS[i].size);
        const char *local = getenv(VARIABLE_SETS[i].local);
        if (rank == NULL && size == NULL) {
            if (local != NULL) {
                snprintf(why, why_size, "%s is set but %s and %s are not", VARIABLE_SETS[i].local,
                         VARIABLE_SETS[i].rank, VARIABLE_SETS[i].size);
                return LAUNCHER_FAILED;
            }
            continue;
        }
        if (rank == NULL || size == NULL) {
            snprintf(why, why_size, "%s is set but %s is not", rank ? VARIABLE_SETS[i].rank : VARIABLE_SETS[i].size,
                     rank ? VARIABLE_SETS[i].size : VARIABLE_SETS[i].rank);
            return LAUNCHER_FAILED;
        }
        if (parse_number(VARIABLE_SETS[i].size, size, 1, INT_MAX, &me->size, why, why_size) != LAUNCHER_OK ||
            parse_number(VARIABLE_SETS[i].rank, rank, 0, INT_MAX, &me->rank, why, why_size) != LAUNCHER_OK)
            return LAUNCHER_FAILED;
        if (me->rank >= me->size) {
            snprintf(why, why_size, "%s=%s is not below %s=%s", VARIABLE_SETS[i].rank, rank, VARIABLE_SETS[i].size,
                     size);
            return LAUNCHER_FAILED;
        }
        me->local_guessed = local == NULL;
        me->local_rank = me->rank;
        if (local != NULL) {
            if (parse_number(VARIABLE_SETS[i].local, local, 0, INT_MAX, &me->local_rank, why, why_size) != LAUNCHER_OK)
                return LAUNCHER_FAILED;
            if (me->local_rank >= me->size) {
                snprintf(why, why_size, "%s=%s is not below %s=%s", VARIABLE_SETS[i].local, local,
                         VARIABLE_SETS[i].size, size);
                return LAUNCHER_FAILED;
            }
        }
        me->source = VARIABLE_SETS[i].source;
        return LAUNCHER_OK;
    }
    me->rank = 0;
    me->size = 1;
    me->local_rank = 0;
    me->local_guessed = 0;
    me->source = "no launcher variables: one rank";
    return LAUNCHER_OK;
}

/* --- how the ranks meet --------------------------------------------------------------------- */

/* how->port from text, a port number (1..65535) that the variable `name` holds. */
static int copy_port(const char *name, const char *text, struct launcher_rendezvous *how, char *why, size_t why_size)
{
    int port;
    if (parse_number(name, text, 1, 65535, &port, why, why_size) != LAUNCHER_OK)
        return LAUNCHER_FAILED;
    snprintf(how->port, sizeof how->port, "%d", port);
    return LAUNCHER_OK;
}

/* host:port, [ipv6]:port or ipv6-without-brackets is not accepted: the last ':' splits. */
static int split_address(const char *name, const char *text, struct launcher_rendezvous *how, char *why,
                         size_t why_size)
{
    const char *colon = strrchr(text, ':');
    const char *host = text;
    size_t host_length;
    if (colon == NULL || colon == text) {
        snprintf(why, why_size, "%s=%s is not host:port", name, text);
        return LAUNCHER_FAILED;
    }
    host_length = (size_t)(colon - text);
    if (text[0] == '[' && colon[-1] == ']') { /* [ipv6]:port */
        host = text + 1;
        host_length -= 2;
    }
    if (host_length == 0 || host_length >= sizeof how->host) {
        snprintf(why, why_size, "%s=%s: the host is empty or too long", name, text);
        return LAUNCHER_FAILED;
    }
    memcpy(how->host, host, host_length);
    how->host[host_length] = '\0';
    if (copy_port(name, colon + 1, how, why, why_size) != LAUNCHER_OK) {
        snprintf(why, why_size, "%s=%s: the port is not a number from 1 to 65535", name, text);
        return LAUNCHER_FAILED;
    }
    return LAUNCHER_OK;
}

int launcher_rendezvous_from_env(const struct launcher_rank *me, struct launcher_rendezvous *how, char *why,
                                 size_t why_size)
{
    const char *comm_id = getenv("NCCL_COMM_ID"), *addr = getenv("MASTER_ADDR"), *port = getenv("MASTER_PORT");
    const char *timeout = getenv("RENDEZVOUS_TIMEOUT");
    memset(how, 0, sizeof *how);
    how->timeout_s = DEFAULT_TIMEOUT_S;
    if (timeout != NULL &&
        parse_number("RENDEZVOUS_TIMEOUT", timeout, 1, 86400, &how->timeout_s, why, why_size) != LAUNCHER_OK)
        return LAUNCHER_FAILED;
    if (comm_id != NULL) { /* NCCL reads it too, whatever the id says: it must win */
        how->kind = LAUNCHER_NCCL_COMM_ID;
        return split_address("NCCL_COMM_ID", comm_id, how, why, why_size);
    }
    if (me->size == 1) {
        how->kind = LAUNCHER_ALONE;
        return LAUNCHER_OK;
    }
    if (addr == NULL || port == NULL) {
        snprintf(why, why_size,
                 "%d ranks need a meeting point: set NCCL_COMM_ID=host:port (rank 0's host), or MASTER_ADDR and "
                 "MASTER_PORT%s",
                 me->size,
                 addr != NULL   ? " (MASTER_PORT is not set)"
                 : port != NULL ? " (MASTER_ADDR is not set)"
                                : "");
        return LAUNCHER_FAILED;
    }
    if (addr[0] == '\0' || strlen(addr) >= sizeof how->host) {
        snprintf(why, why_size, "MASTER_ADDR is empty or too long");
        return LAUNCHER_FAILED;
    }
    how->kind = LAUNCHER_TCP;
    strcpy(how->host, addr);
    return copy_port("MASTER_PORT", port, how, why, why_size);
}

int launcher_describe_not_ready(const int *ready, int size, char *why, size_t why_size)
{
    int r, count = 0;
    size_t used = 0;
    for (r = 0; r < size; ++r)
        if (!ready[r]) {
            if (count < 8 && used + 16 < why_size)
                used += (size_t)snprintf(why + used, why_size - used, "%s%d", count ? ", " : "rank(s) ", r);
            ++count;
        }
    if (count > 0 && used < why_size)
        snprintf(why + used, why_size - used, "%s cannot run (%d in all; see their output)", count > 8 ? ", ..." : "",
                 count);
    return count;
}
