/*
 * loader/candidate.c - a candidate file, checked before dlopen (see candidate.h). dlopen of a
 * FIFO would block, of a truncated ELF file die of SIGBUS, of another machine's library say "No
 * such file or directory"; a wrong library's constructors must never run; a path holding $ORIGIN
 * (or $LIB, $PLATFORM) would be expanded by dlopen into another file's. The file is opened
 * once for these checks (its headers, dynamic section and soname read with one pread each), and
 * its real path is read from that descriptor. Layer 4: calls library_version (3), family (2),
 * elf_check (2), file_open (1) and strbuf (1).
 */
#define _GNU_SOURCE
#include "candidate.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_check.h"
#include "family.h"
#include "file_open.h"

/* Append dlerror's text, escaped (it repeats paths, which may hold any byte). */
static void dl_reason(cubind__strbuf *why)
{
    const char *reason = dlerror();
    cubind__strbuf_escaped(why, reason != NULL ? reason : "unknown dlopen error");
}

/* The path of the open file `fd` as the kernel knows it (symbolic links resolved), into
 * found->real_path; "" when /proc cannot tell (not mounted, the file deleted). */
static void real_path_of(int fd, cubind__found *found)
{
    char link[32] = "/proc/self/fd/", digits[16];
    size_t n = 0, at = strlen(link);
    ssize_t got;
    unsigned value = (unsigned)fd;
    do
        digits[n++] = (char)('0' + value % 10);
    while ((value /= 10) != 0 && n < sizeof digits);
    while (n > 0)
        link[at++] = digits[--n];
    link[at] = '\0';
    found->real_path[0] = '\0';
    got = readlink(link, found->real_path, sizeof found->real_path - 1);
    if (got <= 0 || (size_t)got >= sizeof found->real_path - 1 || found->real_path[0] != '/') {
        found->real_path[0] = '\0';
        return;
    }
    found->real_path[got] = '\0';
    if (got >= 10 && strcmp(found->real_path + got - 10, " (deleted)") == 0)
        found->real_path[0] = '\0';
}

void *cubind__open_candidate(const cubind__library_desc *d, const char *path, const char *prefix, const char *more,
                             cubind__strbuf *why, cubind__found *found)
{
    struct stat st;
    cubind__strbuf reason = {0};
    void *handle = NULL;
    char soname[256];
    int has_soname = -1, go = 0;
    const char *token = cubind__dlopen_token(path);
    found->real_path[0] = '\0';
    if (token != NULL) { /* dlopen would load another file than the one checked here */
        cubind__strbuf_printf(&reason, ": refused, the path holds $%s, which dlopen replaces (a dynamic string token)",
                              token);
    } else if (stat(path, &st) != 0) {
        cubind__strbuf_printf(&reason, ": %s", strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        cubind__strbuf_printf(&reason, ": is a directory");
    } else if (!S_ISREG(st.st_mode)) { /* dlopen of a FIFO would wait for a writer; never opened */
        cubind__strbuf_printf(&reason, ": not a regular file (%s)", cubind__file_kind(st.st_mode));
    } else {
        /* checked again from the descriptor: the path may have become a FIFO since stat */
        int fd = cubind__open_file(path, O_RDONLY, 0, CUBIND__FILE_REGULAR, &st);
        go = fd != CUBIND__FILE_WRONG_KIND; /* a file that cannot be opened: dlopen says why */
        if (!go)
            cubind__strbuf_printf(&reason, ": not a regular file (%s)", cubind__file_kind(st.st_mode));
        if (fd >= 0) {
            go = cubind__inspect_elf(fd, st.st_size, soname, sizeof soname, &has_soname, &reason) == 0;
            if (go)
                real_path_of(fd, found);
            close(fd);
        }
        /* before dlopen: a wrong library's constructors never run; a file whose soname cannot be
         * read is not an ELF file dlopen takes, and it says why */
        if (go && has_soname >= 0)
            go = cubind__check_family(d, has_soname ? soname : NULL, &reason) == 0;
    }
    if (go) {
        handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            cubind__strbuf_printf(&reason, ": ");
            dl_reason(&reason);
        } else if (cubind__refused(d, handle, &reason, &found->answer)) {
            handle = NULL;
        } else {
            struct link_map *map = NULL; /* the real path is of this file only when dlopen loaded it by this name */
            if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL || map->l_name == NULL ||
                strcmp(map->l_name, path) != 0)
                found->real_path[0] = '\0';
        }
    }
    if (handle == NULL) {
        found->real_path[0] = '\0';
        cubind__strbuf_printf(why, "%s%s", prefix, more);
        cubind__strbuf_escaped(why, path);
        cubind__strbuf_printf(why, "%s", cubind__strbuf_str(&reason));
    }
    cubind__strbuf_free(&reason);
    return handle;
}
