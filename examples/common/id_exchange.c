/*
 * examples/common/id_exchange.c - the TCP meeting at which rank 0 hands its NCCL id to the other
 * ranks (see id_exchange.h). Its messages are fixed-size and big-endian:
 *     hello (rank r > 0 to rank 0): magic, size, rank, ready, id_size          5 x uint32
 *     reply (rank 0 to rank r):     magic, status, reason, value [+ id bytes]  4 x uint32
 * Rank 0 replies only when all ranks have said hello, so the reply is also a barrier.
 */
#define _POSIX_C_SOURCE 200809L
#include "id_exchange.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
    MAGIC = 0x63626931, /* "cbi1": cubind's id exchange, version 1 */
    HELLO_WORDS = 5,
    REPLY_WORDS = 4,
    REPLY_OK = 0,        /* the id follows */
    REPLY_NOT_READY = 1, /* reason: how many ranks cannot run, value: the first of them */
    REPLY_REJECTED = 2,  /* reason: one of REJECT_*, value: what rank 0 expected */
    REJECT_SIZE = 1,
    REJECT_RANK = 2,
    REJECT_DUPLICATE = 3,
    REJECT_ID_SIZE = 4,
    HELLO_WAIT_MS = 5000, /* a rank sends its hello right after connecting; others are dropped */
    RETRY_MS = 100        /* between connection attempts while rank 0 is not listening yet */
};

/* The I/O helpers' outcomes. */
enum { IO_OK, IO_EOF, IO_TIMEOUT, IO_ERROR };

/* --- bounded socket I/O --------------------------------------------------------------------- */

static struct timespec deadline_after(int ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec += 1;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static int earlier_ms(const struct timespec *deadline, int cap_ms)
{
    struct timespec now;
    long long left;
    clock_gettime(CLOCK_MONOTONIC, &now);
    left = (long long)(deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000L;
    if (left < 0)
        left = 0;
    return left < cap_ms ? (int)left : cap_ms;
}

/* Waits until fd has `events` or the deadline passes: IO_OK, IO_TIMEOUT or IO_ERROR. */
static int wait_for(int fd, short events, const struct timespec *deadline)
{
    for (;;) {
        struct pollfd p = {fd, events, 0};
        int ms = earlier_ms(deadline, INT_MAX), n = poll(&p, 1, ms);
        if (n > 0)
            return IO_OK;
        if (n == 0)
            return IO_TIMEOUT;
        if (errno != EINTR)
            return IO_ERROR;
    }
}

/*
 * Sends (direction POLLOUT) or receives (POLLIN) exactly size bytes before the deadline: IO_OK,
 * IO_EOF (the peer closed first), IO_TIMEOUT or IO_ERROR. Sending never writes to data.
 */
static int transfer(int fd, void *data, size_t size, short direction, const struct timespec *deadline)
{
    char *p = data;
    while (size > 0) {
        ssize_t done = direction == POLLOUT ? send(fd, p, size, MSG_NOSIGNAL) : recv(fd, p, size, 0);
        if (done > 0) {
            p += done;
            size -= (size_t)done;
        } else if (done == 0) {
            return IO_EOF;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int waited = wait_for(fd, direction, deadline);
            if (waited != IO_OK)
                return waited;
        } else if (errno != EINTR) {
            return IO_ERROR;
        }
    }
    return IO_OK;
}

static int send_all(int fd, const void *data, size_t size, const struct timespec *deadline)
{
    return transfer(fd, (void *)data, size, POLLOUT, deadline);
}

static int recv_all(int fd, void *data, size_t size, const struct timespec *deadline)
{
    return transfer(fd, data, size, POLLIN, deadline);
}

static void put_words(unsigned char *out, const uint32_t *words, int n)
{
    int i;
    for (i = 0; i < n; ++i) {
        out[4 * i] = (unsigned char)(words[i] >> 24);
        out[4 * i + 1] = (unsigned char)(words[i] >> 16);
        out[4 * i + 2] = (unsigned char)(words[i] >> 8);
        out[4 * i + 3] = (unsigned char)words[i];
    }
}

static void get_words(const unsigned char *in, uint32_t *words, int n)
{
    int i;
    for (i = 0; i < n; ++i)
        words[i] = (uint32_t)in[4 * i] << 24 | (uint32_t)in[4 * i + 1] << 16 | (uint32_t)in[4 * i + 2] << 8 |
                   (uint32_t)in[4 * i + 3];
}

/* A socket of the address's family, non-blocking and closed on exec; -1 on failure. */
static int open_socket(const struct addrinfo *a)
{
    int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0)
        return -1;
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* --- rank 0: listen, collect every hello, then answer all ------------------------------------ */

static int is_loopback(const struct addrinfo *a)
{
    if (a->ai_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)(const void *)a->ai_addr)->sin_addr.s_addr) >> 24) == 127;
    if (a->ai_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)(const void *)a->ai_addr)->sin6_addr, &in6addr_loopback,
                      sizeof in6addr_loopback) == 0;
    return 0;
}

/*
 * Listens on how->port: on MASTER_ADDR when all its addresses are loopback ones (a test, one host),
 * else on every address (MASTER_ADDR is the name the other hosts use; this host may not know it).
 */
static int listen_for_ranks(const struct launcher_rendezvous *how, int backlog, char *why, size_t why_size)
{
    struct addrinfo hints, *found = NULL, *a;
    int fd = -1, status, loopback, error = 0;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    loopback = getaddrinfo(how->host, how->port, &hints, &found) == 0;
    for (a = found; a != NULL; a = a->ai_next)
        loopback = loopback && is_loopback(a);
    if (!loopback) {
        if (found != NULL)
            freeaddrinfo(found);
        hints.ai_flags = AI_PASSIVE;
        status = getaddrinfo(NULL, how->port, &hints, &found);
        if (status != 0) {
            snprintf(why, why_size, "port %s: %s", how->port, gai_strerror(status));
            return -1;
        }
    }
    for (a = found; a != NULL && fd < 0; a = a->ai_next) {
        const int on = 1;
        fd = open_socket(a);
        if (fd < 0) {
            error = errno;
            continue;
        }
        if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 || bind(fd, a->ai_addr, a->ai_addrlen) != 0 ||
            listen(fd, backlog) != 0) {
            error = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(found);
    if (fd < 0)
        snprintf(why, why_size, "cannot listen on %s port %s: %s", loopback ? how->host : "every address", how->port,
                 strerror(error));
    return fd;
}

/* Sends every joined rank the same reply (and the id when status is REPLY_OK), then closes them. */
static void answer_all(int *peers, int size, const uint32_t reply[REPLY_WORDS], const void *id, size_t id_size,
                       const struct timespec *deadline)
{
    unsigned char header[4 * REPLY_WORDS];
    int r;
    put_words(header, reply, REPLY_WORDS);
    for (r = 1; r < size; ++r)
        if (peers[r] >= 0) {
            if (send_all(peers[r], header, sizeof header, deadline) == IO_OK && reply[1] == REPLY_OK)
                send_all(peers[r], id, id_size, deadline);
            close(peers[r]);
            peers[r] = -1;
        }
}

/* Names up to a few ranks whose peers[r] is still -1 ("2, 3"). */
static void list_missing(const int *peers, int size, char *out, size_t out_size)
{
    int r, listed = 0;
    size_t used = 0;
    out[0] = '\0';
    for (r = 1; r < size && used + 16 < out_size; ++r)
        if (peers[r] < 0) {
            if (listed == 8) {
                snprintf(out + used, out_size - used, ", ...");
                return;
            }
            used += (size_t)snprintf(out + used, out_size - used, "%s%d", listed ? ", " : "", r);
            ++listed;
        }
}

/* Reads one hello on a just accepted connection; 1 if it is a hello of this protocol. */
static int read_hello(int fd, uint32_t hello[HELLO_WORDS], const struct timespec *deadline)
{
    unsigned char bytes[4 * HELLO_WORDS];
    struct timespec hello_deadline = deadline_after(earlier_ms(deadline, HELLO_WAIT_MS));
    if (recv_all(fd, bytes, sizeof bytes, &hello_deadline) != IO_OK)
        return 0;
    get_words(bytes, hello, HELLO_WORDS);
    return hello[0] == MAGIC;
}

static int serve_id(const struct launcher_rank *me, const struct launcher_rendezvous *how, const void *id,
                    size_t id_size, int ready, char *why, size_t why_size)
{
    const struct timespec deadline = deadline_after(how->timeout_s * 1000);
    int *peers = malloc(sizeof(int) * (size_t)me->size), *readiness = malloc(sizeof(int) * (size_t)me->size);
    int listener, joined = 0, r, result = LAUNCHER_FAILED;
    uint32_t reply[REPLY_WORDS] = {MAGIC, REPLY_OK, 0, 0};
    if (peers == NULL || readiness == NULL) {
        snprintf(why, why_size, "out of memory");
        goto done;
    }
    for (r = 0; r < me->size; ++r)
        peers[r] = -1;
    readiness[0] = ready;
    listener = listen_for_ranks(how, me->size < 128 ? me->size : 128, why, why_size);
    if (listener < 0)
        goto done;
    while (joined < me->size - 1) {
        uint32_t hello[HELLO_WORDS];
        int fd, waited = wait_for(listener, POLLIN, &deadline);
        if (waited != IO_OK) {
            char missing[128];
            list_missing(peers, me->size, missing, sizeof missing);
            snprintf(why, why_size, "%d of the %d other ranks came to port %s within %d s (missing: rank %s)", joined,
                     me->size - 1, how->port, how->timeout_s, missing);
            break;
        }
        fd = accept(listener, NULL, NULL);
        if (fd < 0)
            continue; /* the connection went away, or a signal: keep waiting */
        if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 || !read_hello(fd, hello, &deadline)) {
            close(fd); /* not one of ours (a port scan, a stale job): ignored */
            continue;
        }
        reply[1] = REPLY_REJECTED;
        reply[2] = hello[1] != (uint32_t)me->size          ? REJECT_SIZE
                   : hello[2] == 0 || hello[2] >= hello[1] ? REJECT_RANK
                   : peers[hello[2]] >= 0                  ? REJECT_DUPLICATE
                   : hello[4] != (uint32_t)id_size         ? REJECT_ID_SIZE
                                                           : 0;
        if (reply[2] != 0) {
            unsigned char header[4 * REPLY_WORDS];
            reply[3] = reply[2] == REJECT_ID_SIZE ? (uint32_t)id_size : (uint32_t)me->size;
            snprintf(why, why_size, "a rank that says it is rank %u of %u (id of %u bytes) %s", hello[2], hello[1],
                     hello[4],
                     reply[2] == REJECT_SIZE        ? "has another WORLD_SIZE"
                     : reply[2] == REJECT_RANK      ? "has a rank out of range"
                     : reply[2] == REJECT_DUPLICATE ? "came twice: two processes have that rank"
                                                    : "has another id size");
            put_words(header, reply, REPLY_WORDS);
            send_all(fd, header, sizeof header, &deadline);
            close(fd);
            break;
        }
        peers[hello[2]] = fd;
        readiness[hello[2]] = hello[3] != 0;
        ++joined;
    }
    close(listener);
    if (joined == me->size - 1) {
        int first = -1, count = launcher_describe_not_ready(readiness, me->size, why, why_size);
        for (r = 0; r < me->size && first < 0; ++r)
            if (!readiness[r])
                first = r;
        reply[1] = count == 0 ? REPLY_OK : REPLY_NOT_READY;
        reply[2] = (uint32_t)count;
        reply[3] = (uint32_t)(first < 0 ? 0 : first);
        answer_all(peers, me->size, reply, id, id_size, &deadline);
        result = count == 0 ? LAUNCHER_OK : LAUNCHER_NOT_READY;
    }
done:
    if (peers != NULL)
        for (r = 1; r < me->size; ++r)
            if (peers[r] >= 0)
                close(peers[r]); /* a failed meeting: the others read end-of-file and stop */
    free(peers);
    free(readiness);
    return result;
}

/* --- ranks 1..size-1: connect (retrying), say hello, wait for the reply ---------------------- */

/* A connected socket to how->host:how->port, retried until the deadline; -1 with why set. */
static int connect_to_rank0(const struct launcher_rendezvous *how, const struct timespec *deadline, char *why,
                            size_t why_size)
{
    int error = 0;
    for (;;) {
        struct addrinfo hints, *found = NULL, *a;
        int status, fd = -1;
        memset(&hints, 0, sizeof hints);
        hints.ai_socktype = SOCK_STREAM;
        status = getaddrinfo(how->host, how->port, &hints, &found);
        if (status != 0) { /* a name not (yet) known: retried like a refused connection */
            snprintf(why, why_size, "MASTER_ADDR %s: %s", how->host, gai_strerror(status));
            found = NULL;
        }
        for (a = found; a != NULL && fd < 0; a = a->ai_next) {
            int pending;
            socklen_t length = sizeof pending;
            fd = open_socket(a);
            if (fd < 0) {
                error = errno;
                continue;
            }
            if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
                error = errno;
            } else {
                pending = ETIMEDOUT; /* unless the attempt ended before the deadline: SO_ERROR says how */
                if (wait_for(fd, POLLOUT, deadline) == IO_OK &&
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &pending, &length) != 0)
                    pending = errno;
                if (pending == 0)
                    break; /* connected */
                error = pending;
            }
            close(fd);
            fd = -1;
        }
        if (found != NULL)
            freeaddrinfo(found);
        if (fd >= 0)
            return fd;
        if (earlier_ms(deadline, RETRY_MS) < RETRY_MS) {
            if (status == 0)
                snprintf(why, why_size, "rank 0 at %s port %s did not answer within %d s (%s)", how->host, how->port,
                         how->timeout_s, strerror(error));
            return -1;
        }
        nanosleep(&(struct timespec){0, RETRY_MS * 1000000L}, NULL);
    }
}

static int fetch_id(const struct launcher_rank *me, const struct launcher_rendezvous *how, void *id, size_t id_size,
                    int ready, char *why, size_t why_size)
{
    const struct timespec deadline = deadline_after(how->timeout_s * 1000);
    const uint32_t hello[HELLO_WORDS] = {MAGIC, (uint32_t)me->size, (uint32_t)me->rank, (uint32_t)(ready != 0),
                                         (uint32_t)id_size};
    unsigned char hello_bytes[4 * HELLO_WORDS], reply_bytes[4 * REPLY_WORDS];
    uint32_t reply[REPLY_WORDS];
    int fd = connect_to_rank0(how, &deadline, why, why_size), got, result = LAUNCHER_FAILED;
    if (fd < 0)
        return LAUNCHER_FAILED;
    put_words(hello_bytes, hello, HELLO_WORDS);
    got = send_all(fd, hello_bytes, sizeof hello_bytes, &deadline);
    if (got == IO_OK)
        got = recv_all(fd, reply_bytes, sizeof reply_bytes, &deadline);
    if (got == IO_OK) {
        get_words(reply_bytes, reply, REPLY_WORDS);
        if (reply[0] != MAGIC) {
            snprintf(why, why_size, "%s port %s is not rank 0 of this job (a wrong reply)", how->host, how->port);
        } else if (reply[1] == REPLY_OK) {
            got = recv_all(fd, id, id_size, &deadline);
            result = got == IO_OK ? LAUNCHER_OK : LAUNCHER_FAILED;
        } else if (reply[1] == REPLY_NOT_READY) {
            snprintf(why, why_size, "%u rank(s) cannot run, the first is rank %u (see its output)", reply[2], reply[3]);
            result = LAUNCHER_NOT_READY;
        } else {
            snprintf(why, why_size, "rank 0 rejected this rank: %s %u",
                     reply[2] == REJECT_SIZE        ? "its WORLD_SIZE is"
                     : reply[2] == REJECT_RANK      ? "the rank is not below"
                     : reply[2] == REJECT_DUPLICATE ? "another process has the same rank; WORLD_SIZE"
                                                    : "the id size is",
                     reply[3]);
        }
    }
    if (got == IO_EOF)
        snprintf(why, why_size, "rank 0 at %s port %s closed the connection without the id (it failed: see its output)",
                 how->host, how->port);
    else if (got == IO_TIMEOUT)
        snprintf(why, why_size, "the ranks did not all meet within %d s at %s port %s", how->timeout_s, how->host,
                 how->port);
    else if (got == IO_ERROR)
        snprintf(why, why_size, "talking to rank 0 at %s port %s: %s", how->host, how->port, strerror(errno));
    close(fd);
    return result;
}

int launcher_share_id(const struct launcher_rank *me, const struct launcher_rendezvous *how, void *id, size_t id_size,
                      int ready, char *why, size_t why_size)
{
    if (how->kind != LAUNCHER_TCP || id_size > UINT32_MAX) {
        snprintf(why, why_size, "launcher_share_id: not a TCP meeting");
        return LAUNCHER_FAILED;
    }
    return me->rank == 0 ? serve_id(me, how, id, id_size, ready, why, why_size)
                         : fetch_id(me, how, id, id_size, ready, why, why_size);
}
