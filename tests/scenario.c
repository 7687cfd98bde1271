/* tests/scenario.c - run a test scenario in a fresh process (see scenario.h). */
#define _GNU_SOURCE
#include "scenario.h"

#include <elf.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int find_interp(struct dl_phdr_info *info, size_t size, void *data)
{
    int i;
    (void)size;
    if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0')
        return 0; /* not the main program */
    for (i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_INTERP) {
            *(const char **)data = (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
            return 1;
        }
    return 0;
}

static char **child_environment(const char *const *changes)
{
    size_t n = 0, extra = 0, i, j, k = 0;
    char **env;
    while (environ[n] != NULL)
        n++;
    while (changes != NULL && changes[extra] != NULL)
        extra++;
    env = calloc(n + extra + 1, sizeof *env);
    for (i = 0; i < n; ++i) {
        int replaced = 0;
        for (j = 0; j < extra; ++j) {
            size_t len = strcspn(changes[j], "=") + 1;
            if (strncmp(environ[i], changes[j], len) == 0)
                replaced = 1;
        }
        if (!replaced)
            env[k++] = environ[i];
    }
    for (j = 0; j < extra; ++j) {
        size_t len = strcspn(changes[j], "=") + 1, later;
        int overridden = 0;
        for (later = j + 1; later < extra; ++later) /* a later change of the same name wins */
            overridden |= strncmp(changes[later], changes[j], len) == 0;
        if (!overridden && changes[j][len] != '\0')
            env[k++] = (char *)changes[j];
    }
    env[k] = NULL;
    return env;
}

const char *test_emulator(void)
{
    const char *emulator = getenv("CUBIND_TEST_EMULATOR");
    return emulator != NULL && emulator[0] == '/' ? emulator : NULL;
}

int run_scenario_output(const char *name, const struct run_options *options, int timeout_s, int *exit_status,
                        char *output, size_t size)
{
    char self[4096], interp_path[4096];
    const char *interp = NULL;
    char *argv[7];
    char **env;
    int argc = 0, status = 0, out[2];
    pid_t pid;
    posix_spawn_file_actions_t actions;
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    size_t used = 0;
    ssize_t got;

    if (len <= 0 || size == 0)
        return -1;
    self[len] = '\0';
    if (test_emulator() != NULL)
        argv[argc++] = (char *)test_emulator();
    if (options != NULL && options->inhibit_ld_cache) {
        dl_iterate_phdr(find_interp, &interp);
        if (interp == NULL)
            return -1;
        /* the emulator finds the target's dynamic loader under its root, but is handed its path */
        if (test_emulator() != NULL && getenv("CUBIND_TEST_EMULATOR_ROOT") != NULL &&
            (size_t)snprintf(interp_path, sizeof interp_path, "%s%s", getenv("CUBIND_TEST_EMULATOR_ROOT"), interp) <
                sizeof interp_path)
            interp = interp_path;
        argv[argc++] = (char *)interp;
        argv[argc++] = (char *)"--inhibit-cache";
    }
    argv[argc++] = self;
    argv[argc++] = (char *)"--scenario";
    argv[argc++] = (char *)name;
    argv[argc] = NULL;
    if (options != NULL && options->inhibit_ld_cache) {
        /* cubind reads the ld.so cache itself (discovery step 4): none for it either */
        const char *changes[64];
        size_t n = 0;
        while (options->env != NULL && options->env[n] != NULL && n < 62) {
            changes[n] = options->env[n];
            n++;
        }
        changes[n++] = "CUBIND_LD_SO_CACHE=/nonexistent/ld.so.cache";
        changes[n] = NULL;
        env = child_environment(changes);
    } else
        env = child_environment(options != NULL ? options->env : NULL);
    if (pipe(out) != 0)
        return -1;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, out[1], 2);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    if (posix_spawn(&pid, argv[0], &actions, NULL, argv, env) != 0) {
        free(env);
        return -1;
    }
    posix_spawn_file_actions_destroy(&actions);
    free(env);
    close(out[1]);
    for (;;) { /* its output, until it ends or its time is up (then it is killed: a hang fails, not waits) */
        struct pollfd ready = {out[0], POLLIN, 0};
        if (poll(&ready, 1, timeout_s > 0 ? timeout_s * 1000 : -1) == 0) {
            kill(pid, SIGKILL);
            break;
        }
        if ((got = read(out[0], output + used, size - 1 - used)) <= 0)
            break;
        used += (size_t)got;
    }
    output[used] = '\0';
    close(out[0]);
    waitpid(pid, &status, 0);
    *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return 0;
}

int run_scenario(const char *name, const struct run_options *options)
{
    char output[65536];
    int status;
    if (run_scenario_output(name, options, 0, &status, output, sizeof output) != 0)
        return -1;
    if (status != 0) {
        fprintf(stderr, "scenario %s failed (%s %d):\n%s\n", name, status > 128 ? "signal" : "exit",
                status > 128 ? status - 128 : status, output);
        return 1;
    }
    return 0;
}

int scenario_main(int argc, char **argv, const struct scenario *scenarios)
{
    int i;
    if (argc != 3 || strcmp(argv[1], "--scenario") != 0)
        return -1;
    for (i = 0; scenarios[i].name != NULL; ++i)
        if (strcmp(scenarios[i].name, argv[2]) == 0)
            return scenarios[i].run();
    fprintf(stderr, "no scenario %s\n", argv[2]);
    return 2;
}
