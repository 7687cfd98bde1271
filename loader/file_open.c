/*
 * loader/file_open.c - opening a file without waiting, and checking its kind from the
 * descriptor before it is read or written (see file_open.h): a check of the path, then an
 * open, could be raced by a FIFO put in its place; and the dynamic string tokens dlopen would
 * replace in a path. Layer 1: calls libc only.
 */
#define _GNU_SOURCE
#include "file_open.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

const char *cubind__dlopen_token(const char *path)
{
    static const char tokens[][9] = {"ORIGIN", "PLATFORM", "LIB"}; /* glibc's, as its is_dst reads them */
    size_t i;
    for (; (path = strchr(path, '$')) != NULL; ++path) {
        int curly = path[1] == '{';
        for (i = 0; i < sizeof tokens / sizeof tokens[0]; ++i) {
            size_t n = strlen(tokens[i]);
            char next = path[1 + curly + n];
            if (strncmp(path + 1 + curly, tokens[i], n) == 0 &&
                (curly ? next == '}' : !(isalnum((unsigned char)next) || next == '_')))
                return tokens[i];
        }
    }
    return NULL;
}

/* Each kind of file: its type bits, the CUBIND__FILE_* bit a caller asks for it by (0: none takes
 * it), and its name in messages. */
static const struct {
    mode_t type;
    unsigned kind;
    char name[24];
} kinds_of_file[] = {
    {S_IFREG, CUBIND__FILE_REGULAR, "a regular file"},
    {S_IFCHR, CUBIND__FILE_CHARACTER_DEVICE, "a character device"},
    {S_IFIFO, CUBIND__FILE_FIFO, "a FIFO"},
    {S_IFDIR, 0, "a directory"},
    {S_IFBLK, 0, "a block device"},
    {S_IFSOCK, 0, "a socket"},
};

#define KIND_COUNT (sizeof kinds_of_file / sizeof kinds_of_file[0])

/* The entry of kinds_of_file for `mode`, or KIND_COUNT when none. */
static size_t kind_of(mode_t mode)
{
    size_t i;
    for (i = 0; i < KIND_COUNT; ++i)
        if ((mode & S_IFMT) == kinds_of_file[i].type)
            break;
    return i;
}

int cubind__open_file(const char *path, int flags, mode_t mode, unsigned kinds, struct stat *st)
{
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, mode), status, saved;
    size_t i;
    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0 || (status = fcntl(fd, F_GETFL)) < 0)
        goto failed;
    i = kind_of(st->st_mode);
    if (i == KIND_COUNT || (kinds_of_file[i].kind & kinds) == 0) {
        close(fd);
        return CUBIND__FILE_WRONG_KIND;
    }
    if (fcntl(fd, F_SETFL, status & ~O_NONBLOCK) != 0)
        goto failed;
    return fd;
failed:
    saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

const char *cubind__file_kind(mode_t mode)
{
    size_t i = kind_of(mode);
    return i < KIND_COUNT ? kinds_of_file[i].name : "not a file";
}
