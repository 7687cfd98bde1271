/*
 * loader/candidate.h - one candidate file of a library, looked at before dlopen and opened by its
 * absolute path. Layer 4: includes tables.h (0), strbuf.h (1) and library_version.h (3).
 */
#ifndef CUBIND_LOADER_CANDIDATE_H
#define CUBIND_LOADER_CANDIDATE_H

#include <limits.h>

#include "library_version.h"
#include "strbuf.h"
#include "tables.h"

/* What a discovery run learned beside the handle: the answer of the version query when it was
 * asked to accept or refuse the file (so it is asked once), and the real path of the file it
 * opened, read from the descriptor of its checks. */
typedef struct cubind__found {
    cubind__version_answer answer;
    char real_path[PATH_MAX]; /* "" when unknown */
    char loaded_by[PATH_MAX + 96]; /* found already loaded: which object needs it, or that none does; else "" */
} cubind__found;

/* dlopen the absolute `path` after looking at it: a directory, FIFO or device, an ELF file cut
 * short or built for another machine, or a file whose DT_SONAME is not of d's soname family is
 * refused with the reason, and so is a file whose version query refuses it. Returns the handle,
 * or NULL with `prefix`, `more`, the path (escaped) and the reason appended to `why`; nothing is
 * written when it loads. */
void *cubind__open_candidate(const cubind__library_desc *desc, const char *path, const char *prefix,
                             const char *more, cubind__strbuf *why, cubind__found *found);

#endif /* CUBIND_LOADER_CANDIDATE_H */
