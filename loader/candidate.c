/*
 * loader/candidate.c - a candidate file, checked before dlopen (see candidate.h). dlopen of a
 * FIFO would block, of a truncated ELF file die of SIGBUS, of another machine's library say "No
 * such file or directory"; a wrong library's constructors must never run; a path holding $ORIGIN
 * (or $LIB, $PLATFORM) would be expanded by dlopen into another file's. The file is opened
 * once for these checks (its headers, dynamic section and soname read with one pread each), and
 * its real path is read from that descriptor. Layer 4: calls library_version (3), family (2),
 * file_open (1), strbuf (1) and the platform seam (0: the file's headers, dlopen).
 */
#define _GNU_SOURCE
#include "candidate.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "family.h"
#include "file_open.h"
#include "platform.h"

/* Append the system's reason a library could not be opened, escaped (it repeats paths, which may
 * hold any byte). */
static void open_reason(cubind__strbuf *why)
{
    const char *reason = cubind__lib_error();
    cubind__strbuf_escaped(why, reason != NULL ? reason : "unknown dlopen error");
}

void *cubind__open_candidate(const cubind__library_desc *d, const char *path, const char *prefix, const char *more,
                             cubind__strbuf *why, cubind__found *found)
{
    struct stat st;
    cubind__strbuf reason = {0};
    void *handle = NULL;
    cubind__binary binary;
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
            cubind__binary_inspect(fd, (long long)st.st_size, &binary);
            has_soname = binary.has_soname;
            go = binary.refused[0] == '\0';
            if (go) /* as the system knows it: symbolic links resolved ("" when it cannot tell) */
                cubind__real_path_of(fd, found->real_path, sizeof found->real_path);
            else
                cubind__strbuf_printf(&reason, ": %s", binary.refused);
            close(fd);
        }
        /* before dlopen: a wrong library's constructors never run; a file whose soname cannot be
         * read is not an ELF file dlopen takes, and it says why */
        if (go && has_soname >= 0)
            go = cubind__check_family(d, has_soname ? binary.soname : NULL, &reason) == 0;
    }
    if (go) {
        handle = cubind__lib_open(path);
        if (handle == NULL) {
            cubind__strbuf_printf(&reason, ": ");
            open_reason(&reason);
        } else if (cubind__refused(d, handle, &reason, &found->answer)) {
            handle = NULL;
        } else {
            cubind__lib_facts facts; /* the real path is of this file only when it was loaded by this name */
            if (cubind__lib_facts_of(handle, &facts) != 0 || strcmp(facts.name, path) != 0)
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
