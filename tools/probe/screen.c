/*
 * tools/probe/screen.c - the probe survives the libraries it inspects. The report is written by a
 * child process, which first loads each library the report will load, one after the other, as the
 * report would (cubind_load: discovery, then the version query), and writes a byte to a pipe after
 * each. A library the child does not get through - its query dereferences NULL (a signal), sleeps
 * (no byte within PROBE_SCREEN_SECONDS: the child is killed), or ends the process - is named to the
 * loader in CUBIND_NO_VERSION_QUERY, so that its version is read from its file name instead, and
 * its report says why (probe_version_error); a new child starts over, nothing of the report written
 * yet. Once every library is loaded the child writes the report and exits with its status, which
 * the parent returns: a library costs one load, as without the child. A failed child leaves no core
 * file; what a library prints goes to standard error (probe_open_report), once for each child.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cubind/cubind.h"
#include "output.h"
#include "probe.h"

/* How long a library may take to load and answer its version query, as cubind_copies_find gives a copy. */
#define PROBE_SCREEN_SECONDS 10

static char *errors[CUBIND_LIBRARY_COUNT];
static int unasked[CUBIND_LIBRARY_COUNT]; /* named in CUBIND_NO_VERSION_QUERY by not_asked */

const char *probe_version_error(cubind_library library)
{
    return (unsigned)library < CUBIND_LIBRARY_COUNT ? errors[library] : NULL;
}

/* Whether the report loads `library`: those it reports, the driver and NVML (the headline and the
 * driver section ask them), and every one for --all (each copy taken) and --check (the functions FILE
 * uses). */
static int loaded_by_report(const struct probe *probe, cubind_library library)
{
    return probe->all || probe->check != NULL || probe_covers(probe, library) ||
           library == cubind_library_from_name("driver") || library == cubind_library_from_name("nvml");
}

/* In the child: load each library of order[0..count), a byte (the library) to `fd` after each; then,
 * every library loaded, write the report and exit with its status. */
static void child(struct probe *probe, int (*report)(struct probe *), const cubind_library *order, size_t count,
                  int fd)
{
    struct rlimit no_core = {0, 0};
    size_t i;
    setrlimit(RLIMIT_CORE, &no_core);
    for (i = 0; i < count; ++i) {
        unsigned char done = (unsigned char)order[i];
        cubind_load(order[i]);
        if (write(fd, &done, 1) != 1)
            _exit(PROBE_EXIT_WRITE);
    }
    close(fd);
    exit(report(probe)); /* as main returns: what a library printed is flushed, its destructors run */
}

/* Why the child that was loading `library` gave no answer: its end (`status`), or the time out. */
static void keep_error(cubind_library library, int timed_out, int status)
{
    char text[256];
    if (timed_out)
        snprintf(text, sizeof text, "loading it and asking its version query did not end within %d s (the process "
                 "that asked was killed); the report did not ask it again", PROBE_SCREEN_SECONDS);
    else if (WIFSIGNALED(status))
        snprintf(text, sizeof text, "loading it and asking its version query killed the process that asked (signal "
                 "%d, %s); the report did not ask it again", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(text, sizeof text, "loading it and asking its version query ended the process that asked (exit "
                 "status %d); the report did not ask it again", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    free(errors[library]);
    errors[library] = strdup(text);
}

/* Name `library` in CUBIND_NO_VERSION_QUERY, after the names already there. */
static void not_asked(cubind_library library)
{
    const char *before = getenv("CUBIND_NO_VERSION_QUERY");
    char names[4096];
    snprintf(names, sizeof names, "%s%s%s", before != NULL ? before : "", before != NULL && *before ? "," : "",
             cubind_library_name(library));
    setenv("CUBIND_NO_VERSION_QUERY", names, 1);
    unasked[library] = 1;
}

/* One child: the index in `order` of the library it did not get through, or `count` with its exit status
 * in *status (-1: it ended by a signal while writing the report, said on stderr). */
static size_t one_child(struct probe *probe, int (*report)(struct probe *), const cubind_library *order, size_t count,
                        int *status)
{
    int fds[2], timed_out = 0, ended = 0;
    size_t next = 0;
    pid_t pid;
    if (pipe2(fds, O_CLOEXEC) != 0 || (fflush(NULL), pid = fork()) < 0) {
        *status = report(probe); /* no pipe or no child: the report is written here, as without screening */
        return count;
    }
    if (pid == 0) {
        close(fds[0]);
        child(probe, report, order, count, fds[1]);
    }
    close(fds[1]);
    while (next < count) {
        struct pollfd wait_for = {.fd = fds[0], .events = POLLIN};
        unsigned char done;
        ssize_t n;
        int ready = poll(&wait_for, 1, PROBE_SCREEN_SECONDS * 1000);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0) {
            timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
        do
            n = read(fds[0], &done, 1);
        while (n < 0 && errno == EINTR);
        if (n != 1 || done != (unsigned char)order[next])
            break;
        ++next;
    }
    close(fds[0]);
    while (waitpid(pid, &ended, 0) < 0)
        if (errno != EINTR) {
            *status = PROBE_EXIT_OK; /* SIGCHLD ignored: the child's status is lost, its report is written */
            return next < count ? (keep_error(order[next], timed_out, 0), next) : count;
        }
    if (next < count) {
        keep_error(order[next], timed_out, ended);
        return next;
    }
    if (WIFSIGNALED(ended) && WTERMSIG(ended) == SIGPIPE) { /* the reader went away: end as the child did */
        signal(SIGPIPE, SIG_DFL);
        raise(SIGPIPE);
    }
    if (WIFSIGNALED(ended)) {
        fprintf(stderr, "cubind-probe: the report ended with signal %d (%s) before it was complete\n",
                WTERMSIG(ended), strsignal(WTERMSIG(ended)));
        *status = PROBE_EXIT_WRITE;
    } else
        *status = WEXITSTATUS(ended);
    return count;
}

int probe_survive(struct probe *probe, int (*report)(struct probe *))
{
    cubind_library order[CUBIND_LIBRARY_COUNT];
    size_t count = 0, failed, i;
    int lib, status = PROBE_EXIT_OK;
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib)
        if (loaded_by_report(probe, (cubind_library)lib))
            order[count++] = (cubind_library)lib;
    /* each child that fails names one library more, whose query the next child does not ask; one that
     * fails again without its query cannot be loaded at all: the last child leaves it to the report,
     * which stops there (said on stderr) */
    while ((failed = one_child(probe, report, order, count, &status)) < count) {
        if (unasked[order[failed]]) {
            fprintf(stderr, "cubind-probe: loading %s ends the process even without its version query: %s\n",
                    cubind_library_name(order[failed]), errors[order[failed]]);
            for (i = failed; i + 1 < count; ++i)
                order[i] = order[i + 1];
            --count;
            continue;
        }
        not_asked(order[failed]);
    }
    return status;
}
