/*
 * loader/copy_version.h - the version of a copy of a library that this process has not loaded:
 * asked of the file in a child process, or read from its name (cubind_copies_find). Layer 3:
 * includes tables.h (0) and strbuf.h (1).
 */
#ifndef CUBIND_LOADER_COPY_VERSION_H
#define CUBIND_LOADER_COPY_VERSION_H

#include "strbuf.h"
#include "tables.h"

/* How long a child may take to load a file and answer its version query, in milliseconds. */
#define CUBIND__COPY_QUERY_MS 10000

/* How many copies of one library in one directory are asked their version in a child, at most
 * (cubind_copies_find): the later ones are read from their file names, so that a directory of
 * thousands of files named like a library cannot keep the probe forking for minutes. */
#define CUBIND__COPY_QUERIES_PER_DIR 4

/* The version of the file at `path` (its real path `real`), of locatable library `l`: asked of
 * its version query in a forked child (which loads the file, asks, writes the answer to a pipe and
 * exits; killed after CUBIND__COPY_QUERY_MS) unless `not_asked` says why not (then no child is
 * forked) or the library has no query; else, or when the query fails, the numbers of its real file
 * name. Fills version[3] (-1 unknown) and returns "query", "file-name" or "none"; `detail` says the
 * function asked or the name read, and why a query was not used ("not asked: <not_asked>"). */
const char *cubind__copy_version(const cubind__locatable *l, const char *path, const char *real,
                                 const char *not_asked, int version[3], cubind__strbuf *detail);

/* The numbers after ".so." of the base name of `file` into version[0..2]; returns how many (0 to 3). */
int cubind__version_of_name(const char *file, int version[3]);

#endif /* CUBIND_LOADER_COPY_VERSION_H */
