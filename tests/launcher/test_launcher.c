/*
 * tests/launcher/test_launcher.c - the launcher units of the examples (examples/common/launcher.c
 * and id_exchange.c), no GPU needed: the rank from each launcher's variables and the errors for a bad set, the meeting
 * point from the environment, and the TCP meeting itself between 2 to 4 forked processes on
 * 127.0.0.1 (the id reaches every rank; a rank that is not ready stops all; a missing rank 0 or
 * rank, a duplicate rank, another WORLD_SIZE end in an error within the timeout).
 */
#define _POSIX_C_SOURCE 200809L
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "id_exchange.h"
#include "launcher.h"

enum { ID_SIZE = 128, MAX_RANKS = 4 };

/* Every variable launcher.c reads: cleared before each case, so that the outer environment (a CI
 * job under Slurm, say) cannot leak in. */
static const char *const VARIABLES[] = {
    "RANK", "WORLD_SIZE", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
    "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
    "NCCL_COMM_ID", "MASTER_ADDR", "MASTER_PORT", "RENDEZVOUS_TIMEOUT",
};

/* Clears VARIABLES, then sets "NAME=VALUE" pairs, NULL-terminated. */
static void set_environment(const char *const *assignments)
{
    size_t i;
    for (i = 0; i < sizeof VARIABLES / sizeof VARIABLES[0]; ++i)
        unsetenv(VARIABLES[i]);
    for (; *assignments != NULL; ++assignments) {
        char name[64];
        const char *equals = strchr(*assignments, '=');
        assert_non_null(equals);
        snprintf(name, sizeof name, "%.*s", (int)(equals - *assignments), *assignments);
        assert_int_equal(setenv(name, equals + 1, 1), 0);
    }
}

/* --- the rank from the environment ----------------------------------------------------------- */

struct rank_case {
    const char *assignments[8];
    int rank, size, local_rank, local_guessed;
    const char *source; /* a part of me.source */
};

static void expect_rank(const struct rank_case *c)
{
    struct launcher_rank me;
    char why[256] = "";
    set_environment(c->assignments);
    if (launcher_rank_from_env(&me, why, sizeof why) != LAUNCHER_OK)
        fail_msg("%s: %s", c->assignments[0] ? c->assignments[0] : "(none)", why);
    assert_int_equal(me.rank, c->rank);
    assert_int_equal(me.size, c->size);
    assert_int_equal(me.local_rank, c->local_rank);
    assert_int_equal(me.local_guessed, c->local_guessed);
    assert_non_null(strstr(me.source, c->source));
}

static void test_rank_from_each_launcher(void **state)
{
    static const struct rank_case cases[] = {
        {{NULL}, 0, 1, 0, 0, "no launcher variables"},
        {{"RANK=1", "WORLD_SIZE=4", "LOCAL_RANK=1", NULL}, 1, 4, 1, 0, "RANK/WORLD_SIZE"},
        {{"RANK=3", "WORLD_SIZE=4", NULL}, 3, 4, 3, 1, "RANK/WORLD_SIZE"},
        {{"OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=3", "OMPI_COMM_WORLD_LOCAL_RANK=0", NULL}, 2, 3, 0, 0,
         "Open MPI"},
        {{"PMI_RANK=1", "PMI_SIZE=2", "MPI_LOCALRANKID=1", NULL}, 1, 2, 1, 0, "MPICH"},
        {{"SLURM_PROCID=5", "SLURM_NTASKS=8", "SLURM_LOCALID=1", NULL}, 5, 8, 1, 0, "Slurm"},
        {{"SLURM_PROCID=0", "SLURM_NTASKS=1", NULL}, 0, 1, 0, 1, "Slurm"},
        /* a user's RANK wins; mpirun inside an sbatch script passes Slurm's batch-step variables on */
        {{"RANK=1", "WORLD_SIZE=2", "SLURM_PROCID=0", "SLURM_NTASKS=1", NULL}, 1, 2, 1, 1, "RANK/WORLD_SIZE"},
        {{"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=1", "SLURM_PROCID=0",
          "SLURM_NTASKS=2", "SLURM_LOCALID=0", NULL},
         1, 2, 1, 0, "Open MPI"},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        expect_rank(&cases[i]);
}

struct error_case {
    const char *assignments[4];
    const char *message; /* a part of why */
};

/* One way of reading the environment: LAUNCHER_OK, or LAUNCHER_FAILED with why. */
typedef int (*reader)(const char *const *assignments, char *why, size_t why_size);

/* Each case must fail, with its message in why. */
static void expect_errors(const struct error_case *cases, size_t n, reader attempt)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        char why[256] = "";
        assert_int_equal(attempt(cases[i].assignments, why, sizeof why), LAUNCHER_FAILED);
        if (strstr(why, cases[i].message) == NULL)
            fail_msg("expected \"%s\", got \"%s\"", cases[i].message, why);
    }
}

static int read_rank(const char *const *assignments, char *why, size_t why_size)
{
    struct launcher_rank me;
    set_environment(assignments);
    return launcher_rank_from_env(&me, why, why_size);
}

static void test_rank_errors_name_the_variable(void **state)
{
    static const struct error_case cases[] = {
        {{"RANK=0", NULL}, "RANK is set but WORLD_SIZE is not"},
        {{"WORLD_SIZE=2", NULL}, "WORLD_SIZE is set but RANK is not"},
        {{"LOCAL_RANK=0", NULL}, "LOCAL_RANK is set but RANK and WORLD_SIZE are not"},
        {{"SLURM_PROCID=0", NULL}, "SLURM_PROCID is set but SLURM_NTASKS is not"},
        {{"OMPI_COMM_WORLD_SIZE=2", NULL}, "OMPI_COMM_WORLD_SIZE is set but OMPI_COMM_WORLD_RANK is not"},
        {{"RANK=2", "WORLD_SIZE=2", NULL}, "RANK=2 is not below WORLD_SIZE=2"},
        {{"RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=2", NULL}, "LOCAL_RANK=2 is not below WORLD_SIZE=2"},
        {{"RANK=-1", "WORLD_SIZE=2", NULL}, "RANK=-1 is not a number"},
        {{"RANK=1x", "WORLD_SIZE=2", NULL}, "RANK=1x is not a number"},
        {{"RANK= 1", "WORLD_SIZE=2", NULL}, "RANK= 1 is not a number"},
        {{"RANK=", "WORLD_SIZE=2", NULL}, "RANK is empty"},
        {{"RANK=0", "WORLD_SIZE=0", NULL}, "WORLD_SIZE=0 is not a number from 1"},
        {{"RANK=0", "WORLD_SIZE=99999999999", NULL}, "WORLD_SIZE=99999999999 is not a number"},
        {{"PMI_RANK=0", "PMI_SIZE=2", "MPI_LOCALRANKID=x", NULL}, "MPI_LOCALRANKID=x is not a number"},
    };
    (void)state;
    expect_errors(cases, sizeof cases / sizeof cases[0], read_rank);
}

/* --- where the ranks meet -------------------------------------------------------------------- */

static int meeting_from(const char *const *assignments, int size, struct launcher_rendezvous *how, char *why,
                        size_t why_size)
{
    const struct launcher_rank me = {0, size, 0, 0, "test"};
    set_environment(assignments);
    return launcher_rendezvous_from_env(&me, how, why, why_size);
}

static int read_meeting_of_two(const char *const *assignments, char *why, size_t why_size)
{
    struct launcher_rendezvous how;
    return meeting_from(assignments, 2, &how, why, why_size);
}

static void test_meeting_point(void **state)
{
    static const char *const alone[] = {NULL}, *const master[] = {"MASTER_ADDR=node7", "MASTER_PORT=29500", NULL};
    static const char *const comm_id[] = {"NCCL_COMM_ID=10.0.0.1:1234", "MASTER_ADDR=node7", "MASTER_PORT=29500",
                                          "RENDEZVOUS_TIMEOUT=5", NULL};
    static const char *const ipv6[] = {"NCCL_COMM_ID=[::1]:4321", NULL};
    struct launcher_rendezvous how;
    char why[256] = "";
    (void)state;

    assert_int_equal(meeting_from(alone, 1, &how, why, sizeof why), LAUNCHER_OK);
    assert_int_equal(how.kind, LAUNCHER_ALONE);
    assert_int_equal(meeting_from(master, 2, &how, why, sizeof why), LAUNCHER_OK);
    assert_int_equal(how.kind, LAUNCHER_TCP);
    assert_string_equal(how.host, "node7");
    assert_string_equal(how.port, "29500");
    assert_int_equal(how.timeout_s, 120);
    /* NCCL reads NCCL_COMM_ID whatever id it is given: it wins over MASTER_ADDR */
    assert_int_equal(meeting_from(comm_id, 2, &how, why, sizeof why), LAUNCHER_OK);
    assert_int_equal(how.kind, LAUNCHER_NCCL_COMM_ID);
    assert_string_equal(how.host, "10.0.0.1");
    assert_string_equal(how.port, "1234");
    assert_int_equal(how.timeout_s, 5);
    assert_int_equal(meeting_from(ipv6, 2, &how, why, sizeof why), LAUNCHER_OK);
    assert_string_equal(how.host, "::1");
    assert_string_equal(how.port, "4321");
}

static void test_meeting_point_errors(void **state)
{
    static const struct error_case cases[] = {
        {{NULL}, "2 ranks need a meeting point: set NCCL_COMM_ID=host:port"},
        {{"MASTER_ADDR=node7", NULL}, "(MASTER_PORT is not set)"},
        {{"MASTER_PORT=29500", NULL}, "(MASTER_ADDR is not set)"},
        {{"MASTER_ADDR=node7", "MASTER_PORT=0", NULL}, "MASTER_PORT=0 is not a number from 1 to 65535"},
        {{"MASTER_ADDR=node7", "MASTER_PORT=65536", NULL}, "MASTER_PORT=65536 is not a number"},
        {{"NCCL_COMM_ID=node7", NULL}, "NCCL_COMM_ID=node7 is not host:port"},
        {{"NCCL_COMM_ID=:1234", NULL}, "NCCL_COMM_ID=:1234 is not host:port"},
        {{"NCCL_COMM_ID=node7:http", NULL}, "NCCL_COMM_ID=node7:http: the port is not a number from 1 to 65535"},
        {{"MASTER_ADDR=node7", "MASTER_PORT=29500", "RENDEZVOUS_TIMEOUT=0", NULL}, "RENDEZVOUS_TIMEOUT=0"},
    };
    (void)state;
    expect_errors(cases, sizeof cases / sizeof cases[0], read_meeting_of_two);
}

static void test_describe_not_ready(void **state)
{
    const int ready[] = {1, 0, 1, 0};
    char why[128] = "";
    (void)state;
    assert_int_equal(launcher_describe_not_ready(ready, 4, why, sizeof why), 2);
    assert_non_null(strstr(why, "rank(s) 1, 3 cannot run"));
    assert_int_equal(launcher_describe_not_ready(ready, 1, why, sizeof why), 0);
}

/* --- the TCP meeting between processes ------------------------------------------------------- */

/* What one forked rank reports back through its pipe. */
struct outcome {
    int result;
    unsigned char id[ID_SIZE];
    char why[256];
};

struct participant {
    int rank, size, ready;
    size_t id_size;
    int timeout_s;
};

/* A port that was free a moment ago on 127.0.0.1 (the kernel's choice). */
static int free_port(void)
{
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;
    assert_true(fd >= 0);
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&address, sizeof address), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&address, &length), 0);
    port = ntohs(address.sin_port);
    close(fd);
    return port;
}

/* Forks one rank that meets the others at 127.0.0.1:port; returns the read end of its pipe. */
static int start_rank(const struct participant *p, int port, pid_t *pid)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    *pid = fork();
    assert_true(*pid >= 0);
    if (*pid == 0) {
        struct launcher_rank me = {p->rank, p->size, p->rank, 0, "test"};
        struct launcher_rendezvous how;
        struct outcome out;
        size_t i;
        memset(&out, 0, sizeof out);
        memset(&how, 0, sizeof how);
        how.kind = LAUNCHER_TCP;
        strcpy(how.host, "127.0.0.1");
        snprintf(how.port, sizeof how.port, "%d", port);
        how.timeout_s = p->timeout_s;
        if (p->rank == 0) /* an id no other rank could guess: from this process */
            for (i = 0; i < ID_SIZE; ++i)
                out.id[i] = (unsigned char)((unsigned)getpid() * 31u + (unsigned)i * 7u + 1u);
        out.result = launcher_share_id(&me, &how, out.id, p->id_size, p->ready, out.why, sizeof out.why);
        close(fds[0]);
        if (write(fds[1], &out, sizeof out) != (ssize_t)sizeof out)
            _exit(2);
        _exit(0);
    }
    close(fds[1]);
    return fds[0];
}

static void finish_rank(int fd, pid_t pid, struct outcome *out)
{
    int status;
    assert_int_equal(read(fd, out, sizeof *out), (ssize_t)sizeof *out);
    close(fd);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * Runs the participants (rank 0 is started last, a moment after the others, so that they first
 * find nobody listening and retry), and collects what each reported.
 */
static void meet(const struct participant *ps, int n, struct outcome *outs)
{
    const int port = free_port();
    int fds[MAX_RANKS + 1], i;
    pid_t pids[MAX_RANKS + 1];
    assert_true(n <= MAX_RANKS + 1);
    for (i = n - 1; i >= 0; --i) {
        if (ps[i].rank == 0)
            nanosleep(&(struct timespec){0, 200000000L}, NULL);
        fds[i] = start_rank(&ps[i], port, &pids[i]);
    }
    for (i = 0; i < n; ++i)
        finish_rank(fds[i], pids[i], &outs[i]);
}

static void test_id_reaches_every_rank(void **state)
{
    int size;
    (void)state;
    for (size = 2; size <= MAX_RANKS; ++size) {
        struct participant ps[MAX_RANKS];
        struct outcome outs[MAX_RANKS];
        static const unsigned char zero[ID_SIZE];
        int r;
        for (r = 0; r < size; ++r)
            ps[r] = (struct participant){r, size, 1, ID_SIZE, 20};
        meet(ps, size, outs);
        for (r = 0; r < size; ++r) {
            if (outs[r].result != LAUNCHER_OK)
                fail_msg("%d ranks: rank %d: %s", size, r, outs[r].why);
            assert_memory_equal(outs[r].id, outs[0].id, ID_SIZE);
        }
        assert_memory_not_equal(outs[0].id, zero, ID_SIZE);
    }
}

static void test_a_rank_not_ready_stops_all(void **state)
{
    static const int not_ready[] = {2, 0};
    size_t k;
    (void)state;
    for (k = 0; k < sizeof not_ready / sizeof not_ready[0]; ++k) {
        struct participant ps[3];
        struct outcome outs[3];
        char expected[64];
        int r;
        for (r = 0; r < 3; ++r)
            ps[r] = (struct participant){r, 3, r != not_ready[k], ID_SIZE, 20};
        meet(ps, 3, outs);
        for (r = 0; r < 3; ++r)
            assert_int_equal(outs[r].result, LAUNCHER_NOT_READY);
        snprintf(expected, sizeof expected, "rank(s) %d cannot run", not_ready[k]);
        assert_non_null(strstr(outs[0].why, expected));
        snprintf(expected, sizeof expected, "the first is rank %d", not_ready[k]);
        assert_non_null(strstr(outs[1].why, expected));
    }
}

static void test_missing_rank_times_out(void **state)
{
    /* rank 1 waits longer than rank 0: it sees rank 0 give up */
    const struct participant ps[] = {{0, 3, 1, ID_SIZE, 1}, {1, 3, 1, ID_SIZE, 20}};
    struct outcome outs[2];
    (void)state;
    meet(ps, 2, outs);
    assert_int_equal(outs[0].result, LAUNCHER_FAILED);
    assert_non_null(strstr(outs[0].why, "1 of the 2 other ranks came"));
    assert_non_null(strstr(outs[0].why, "missing: rank 2"));
    assert_int_equal(outs[1].result, LAUNCHER_FAILED);
    assert_non_null(strstr(outs[1].why, "closed the connection without the id"));
}

static void test_no_rank_0_times_out(void **state)
{
    const struct participant ps[] = {{1, 2, 1, ID_SIZE, 1}};
    struct outcome out;
    (void)state;
    meet(ps, 1, &out);
    assert_int_equal(out.result, LAUNCHER_FAILED);
    assert_non_null(strstr(out.why, "did not answer within 1 s"));
}

static void test_mismatches_are_rejected(void **state)
{
    const struct participant other_size[] = {{0, 2, 1, ID_SIZE, 10}, {1, 3, 1, ID_SIZE, 10}};
    const struct participant duplicate[] = {{0, 3, 1, ID_SIZE, 10}, {1, 3, 1, ID_SIZE, 10}, {1, 3, 1, ID_SIZE, 10}};
    const struct participant other_id[] = {{0, 2, 1, ID_SIZE, 10}, {1, 2, 1, ID_SIZE / 2, 10}};
    struct outcome outs[3];
    (void)state;

    meet(other_size, 2, outs);
    assert_int_equal(outs[0].result, LAUNCHER_FAILED);
    assert_non_null(strstr(outs[0].why, "has another WORLD_SIZE"));
    assert_int_equal(outs[1].result, LAUNCHER_FAILED);
    assert_non_null(strstr(outs[1].why, "rejected this rank: its WORLD_SIZE is 2"));

    meet(duplicate, 3, outs);
    assert_int_equal(outs[0].result, LAUNCHER_FAILED);
    assert_non_null(strstr(outs[0].why, "came twice"));
    assert_int_equal(outs[1].result, LAUNCHER_FAILED); /* one rejected, the other left without the id */
    assert_int_equal(outs[2].result, LAUNCHER_FAILED);
    assert_true(strstr(outs[1].why, "same rank") != NULL || strstr(outs[2].why, "same rank") != NULL);

    meet(other_id, 2, outs);
    assert_int_equal(outs[0].result, LAUNCHER_FAILED);
    assert_non_null(strstr(outs[0].why, "another id size"));
    assert_int_equal(outs[1].result, LAUNCHER_FAILED);
}

/* A connection that is not a rank (a port scan, a stale job) is dropped; the meeting goes on. */
static void test_stranger_is_ignored(void **state)
{
    const int port = free_port();
    struct outcome outs[2];
    int fds[2], stranger = -1, attempt;
    pid_t pids[2];
    struct sockaddr_in address;
    const struct participant ps[] = {{0, 2, 1, ID_SIZE, 20}, {1, 2, 1, ID_SIZE, 20}};
    (void)state;

    fds[0] = start_rank(&ps[0], port, &pids[0]);
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons((unsigned short)port);
    for (attempt = 0; attempt < 200 && stranger < 0; ++attempt) { /* until rank 0 listens */
        stranger = socket(AF_INET, SOCK_STREAM, 0);
        assert_true(stranger >= 0);
        if (connect(stranger, (struct sockaddr *)&address, sizeof address) != 0) {
            close(stranger);
            stranger = -1;
            nanosleep(&(struct timespec){0, 50000000L}, NULL);
        }
    }
    assert_true(stranger >= 0);
    /* longer than a hello, so that rank 0 reads a whole one and finds no magic */
    assert_int_equal(write(stranger, "GET / HTTP/1.0\r\nHost: x\r\n\r\n", 27), 27);
    fds[1] = start_rank(&ps[1], port, &pids[1]);
    finish_rank(fds[0], pids[0], &outs[0]);
    finish_rank(fds[1], pids[1], &outs[1]);
    close(stranger);
    if (outs[0].result != LAUNCHER_OK || outs[1].result != LAUNCHER_OK)
        fail_msg("rank 0: %s; rank 1: %s", outs[0].why, outs[1].why);
    assert_memory_equal(outs[0].id, outs[1].id, ID_SIZE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_from_each_launcher),
        cmocka_unit_test(test_rank_errors_name_the_variable),
        cmocka_unit_test(test_meeting_point),
        cmocka_unit_test(test_meeting_point_errors),
        cmocka_unit_test(test_describe_not_ready),
        cmocka_unit_test(test_id_reaches_every_rank),
        cmocka_unit_test(test_a_rank_not_ready_stops_all),
        cmocka_unit_test(test_missing_rank_times_out),
        cmocka_unit_test(test_no_rank_0_times_out),
        cmocka_unit_test(test_mismatches_are_rejected),
        cmocka_unit_test(test_stranger_is_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
