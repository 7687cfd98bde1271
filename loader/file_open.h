/*
 * loader/file_open.h - the one way the loader opens a file (the ld.so cache, a candidate library
 * before dlopen, the trace file): never waiting, and only a file of a kind its caller can use; and
 * whether dlopen would open the path it is given as written.
 * Layer 1: includes no loader header.
 */
#ifndef CUBIND_LOADER_FILE_OPEN_H
#define CUBIND_LOADER_FILE_OPEN_H

#include <sys/stat.h>
#include <sys/types.h>

/* The kinds of file a caller takes (`kinds` of cubind__open_file). A caller that reads takes
 * regular files only: a FIFO or a device could make a read wait. */
#define CUBIND__FILE_REGULAR 1u
#define CUBIND__FILE_CHARACTER_DEVICE 2u /* /dev/null, a terminal */
#define CUBIND__FILE_FIFO 4u             /* opened for writing only while a process reads it */

/* Returned when the file is of none of the kinds asked for. */
#define CUBIND__FILE_WRONG_KIND (-2)

/* open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, mode), then fstat of that descriptor: the
 * open never waits (a FIFO opened for writing without a reader fails at once with ENXIO; one
 * opened for reading, or a device waiting for a line, returns at once), and a terminal never
 * becomes the process's controlling terminal. Returns the descriptor, with O_NONBLOCK cleared
 * (reads and writes then behave as on any descriptor) and the file's status in *st; -1 with
 * errno when open, fstat or fcntl failed; CUBIND__FILE_WRONG_KIND, with *st filled and nothing
 * left open, when the file is of none of `kinds`. */
int cubind__open_file(const char *path, int flags, mode_t mode, unsigned kinds, struct stat *st);

/* The dynamic string token dlopen would replace in `path` ("ORIGIN", "LIB", "PLATFORM": $ORIGIN,
 * ${LIB}, ...), or NULL when it holds none. dlopen expands these in any path it is given, so a
 * directory named /x/$ORIGIN/ would be read as another directory: such a path is never given to
 * dlopen (there is no way to escape a token). */
const char *cubind__dlopen_token(const char *path);

/* What a file of `mode` is, for messages: "a regular file", "a directory", "a FIFO", ... */
const char *cubind__file_kind(mode_t mode);

#endif /* CUBIND_LOADER_FILE_OPEN_H */
