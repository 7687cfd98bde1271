/*
 * loader/no_gpu.c - why no GPU can be used here (loader/no_gpu.h). Layer 1: calls libc and the platform
 * seam (0: the environment, once-only) only.
 *
 * The failure path of a wrapper whose status can mean "no usable GPU" (libraries.toml `no_gpu`;
 * error.c) says it after the call's message, so the decision
 * must need nothing above libc and the platform: the kernel module's files and the environment. The driver API's
 * own answer, when a program asked for it (cubind_gpu_count, machine.c), replaces it.
 */
#define _GNU_SOURCE
#include "no_gpu.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

#define PROC_DRIVER "/proc/driver/nvidia"

_Atomic(const cubind__no_gpu_reason *) cubind__no_gpu_now;

static cubind__no_gpu_reason decided;
static cubind__once_flag decide_once = CUBIND__ONCE_INIT;

/* Read a small file of the kernel module into `out` (NUL-terminated); 0 when it cannot be read. */
static int read_small(const char *path, char *out, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    ssize_t n;
    if (fd < 0)
        return 0;
    n = read(fd, out, size - 1);
    close(fd);
    if (n < 0)
        return 0;
    out[n] = '\0';
    return 1;
}

/* A release: digits '.' digits, optionally '.' digits, and nothing else ("580.159.04", "535.54.03"). */
static int is_release(const char *p, size_t n)
{
    size_t i = 0;
    int parts = 0;
    while (parts < 3) {
        size_t start = i;
        while (i < n && isdigit((unsigned char)p[i]))
            ++i;
        if (i == start)
            return 0;
        ++parts;
        if (i == n)
            return parts >= 2;
        if (p[i] != '.')
            return 0;
        ++i;
    }
    return 0;
}

int cubind__driver_release_in(const char *text, char *out, size_t size)
{
    /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.54.03  Tue Jun  6 ...",
     * "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...": the
     * first whitespace-separated token of the first line that is a release, as text ("04" stays) */
    const char *p = text;
    if (size == 0)
        return 0;
    while (*p != '\0' && *p != '\n') {
        size_t n = 0;
        while (*p == ' ' || *p == '\t')
            ++p;
        while (p[n] != '\0' && p[n] != '\n' && p[n] != ' ' && p[n] != '\t')
            ++n;
        if (n > 0 && is_release(p, n)) {
            if (n + 1 > size)
                return 0;
            memcpy(out, p, n);
            out[n] = '\0';
            return 1;
        }
        p += n;
    }
    return 0;
}

int cubind__kernel_driver_release(char *out, size_t size)
{
    char text[512];
    if (size == 0 || !read_small(PROC_DRIVER "/version", text, sizeof text))
        return 0;
    return cubind__driver_release_in(text, out, size);
}

/* GPUs the kernel module knows (the folders of /proc/driver/nvidia/gpus), and whether a GPU's UUID
 * (its "GPU UUID:" line) starts with `uuid` (when not NULL). */
static int kernel_gpus(const char *uuid, int *uuid_found)
{
    DIR *dir = opendir(PROC_DRIVER "/gpus");
    struct dirent *e;
    int count = 0;
    if (dir == NULL)
        return 0;
    while ((e = readdir(dir)) != NULL) {
        char path[512], text[2048];
        const char *line;
        if (e->d_name[0] == '.')
            continue;
        ++count;
        if (uuid == NULL || strlen(e->d_name) > 256)
            continue;
        snprintf(path, sizeof path, PROC_DRIVER "/gpus/%s/information", e->d_name);
        if (read_small(path, text, sizeof text) && (line = strstr(text, "GPU UUID:")) != NULL) {
            line += 9;
            while (*line == ' ' || *line == '\t')
                ++line;
            if (strncmp(line, uuid, strlen(uuid)) == 0)
                *uuid_found = 1;
        }
    }
    closedir(dir);
    return count;
}

int cubind__kernel_gpu_count(void)
{
    return kernel_gpus(NULL, NULL);
}

/* Whether a /dev/nvidia<N> device file exists (a container given no GPU has none). */
static int device_files(void)
{
    DIR *dir = opendir("/dev");
    struct dirent *e;
    int found = 0;
    if (dir == NULL)
        return 1; /* cannot tell: say nothing */
    while (!found && (e = readdir(dir)) != NULL)
        found = strncmp(e->d_name, "nvidia", 6) == 0 && isdigit((unsigned char)e->d_name[6]);
    closedir(dir);
    return found;
}

/* Whether CUDA_VISIBLE_DEVICES (`value`) leaves no GPU of the `count` the module knows: CUDA reads
 * its entries up to the first it cannot use, so the first decides whether any is left. */
static int hides_every_gpu(const char *value, int count)
{
    char first[128];
    size_t n = 0, i;
    int found = 0;
    while (*value == ' ')
        ++value;
    while (value[n] != '\0' && value[n] != ',' && value[n] != ' ' && n + 1 < sizeof first) {
        first[n] = value[n];
        ++n;
    }
    first[n] = '\0';
    if (n == 0)
        return 1;
    for (i = 0; i < n && isdigit((unsigned char)first[i]); ++i) {
    }
    if (i == n)
        return atol(first) >= count;
    if (strncmp(first, "MIG-", 4) == 0)
        return 0; /* a MIG instance: the module's files do not list them */
    if (strncmp(first, "GPU-", 4) == 0) {
        kernel_gpus(first, &found);
        return !found;
    }
    return 1; /* "-1", "none", ...: no device */
}

/* `text` into `r`: printable ASCII, cut to fit, NULs after it. */
static void keep(cubind__no_gpu_reason *r, const char *text)
{
    size_t n = 0;
    memset(r->text, 0, sizeof r->text);
    for (; text[n] != '\0' && n + 1 < sizeof r->text - 16; ++n)
        r->text[n] = text[n] >= 0x20 && text[n] < 0x7f ? text[n] : '?';
    r->length = n;
}

static void decide(char *decided_text, size_t size)
{
    char release[64];
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    int count;
    decided_text[0] = '\0';
    if (cubind__getenv("CUBIND_DRIVER_PATH") != NULL && cubind__getenv("CUBIND_DRIVER_PATH")[0] != '\0')
        return; /* the program named its driver: what it answers is its own */
    if (!cubind__kernel_driver_release(release, sizeof release)) {
        snprintf(decided_text, size, "no CUDA driver: the NVIDIA kernel module is not loaded (no "
                 PROC_DRIVER "/version)");
        return;
    }
    count = kernel_gpus(NULL, NULL);
    if (count == 0)
        snprintf(decided_text, size, "driver %s, no GPU (the kernel module lists none in " PROC_DRIVER
                 "/gpus)", release);
    else if (!device_files())
        snprintf(decided_text, size, "driver %s, no GPU visible (no /dev/nvidia<N> device file)", release);
    else if (visible != NULL && hides_every_gpu(visible, count))
        snprintf(decided_text, size, "driver %s, no GPU visible (CUDA_VISIBLE_DEVICES=%.200s)", release,
                 visible);
}

static void decide_and_keep(void)
{
    char text[CUBIND__NO_GPU_TEXT_SIZE];
    const cubind__no_gpu_reason *expected = NULL;
    decide(text, sizeof text);
    keep(&decided, text);
    atomic_compare_exchange_strong(&cubind__no_gpu_now, &expected, &decided);
}

const cubind__no_gpu_reason *cubind__no_gpu_decide(void)
{
    cubind__once(&decide_once, decide_and_keep); /* it opens and reads files: uncancelled */
    return atomic_load_explicit(&cubind__no_gpu_now, memory_order_acquire);
}

void cubind__no_gpu_publish(const char *text)
{
    /* Kept for the life of the process: another thread may be copying the one it replaces. */
    cubind__no_gpu_reason *r = malloc(sizeof *r);
    if (r == NULL)
        return;
    keep(r, text);
    atomic_store_explicit(&cubind__no_gpu_now, r, memory_order_release);
}
