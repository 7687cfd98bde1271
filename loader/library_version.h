/*
 * loader/library_version.h - a library's version: asked of its version query, or read from its file
 * name; and the query's answers that refuse a file. Layer 3: includes internal.h (0),
 * strbuf.h (1) and opened.h (2).
 */
#ifndef CUBIND_LOADER_LIBRARY_VERSION_H
#define CUBIND_LOADER_LIBRARY_VERSION_H

#include "internal.h"
#include "opened.h"
#include "strbuf.h"

/* The version query's answer, kept when discovery asked it to accept or refuse a file, so that it
 * is asked once. */
typedef struct cubind__version_answer {
    void *handle; /* the handle the query was asked of; NULL when not asked */
    void *address; /* the query's address */
    int failed, status, version[3]; /* failed: as cubind__version_query returns (-2: the init failed) */
    cubind__fnptr held_fini; /* the fini of an init the query left in force, or NULL (cubind__version_query) */
} cubind__version_answer;

/* A library not linked -Bsymbolic (NVML, NCCL) calls its own exported functions through the
 * global scope, where the drop-in's forwarders come first: such a call, made while this thread
 * asks the library's version query (its init and fini included), comes back to cubind for a
 * library still being loaded. The function `index` of `table` as the object being asked defines
 * it (not a dependency), called as without the drop-in, uncached (no release is chosen yet); NULL
 * when this thread asks no query of that library. (Its calls from other threads and from its
 * constructors: own_call.h.) */
cubind__fnptr cubind__asked_definition(cubind_library library, const cubind__symbol_table *table, size_t index);

/* Run the fini of an init left in force by the query of `answer`, if any (a handle let go). */
void cubind__version_answer_drop(cubind__version_answer *answer);

/* The function a failed version query names: the init when it failed (`failed` -2), else the query. */
const char *cubind__version_failed_name(const cubind__library_desc *desc, int failed);

/* 1 (after saying why in `why` and closing `handle`) when the file answers its version query with
 * a status that says it is not the library: the driver's link-time stub answers
 * CUDA_ERROR_STUB_LIBRARY. Else 0; the answer, when asked, is kept in `answer`. */
int cubind__refused(const cubind__library_desc *desc, void *handle, cubind__strbuf *why,
                    cubind__version_answer *answer);

/* Fill out->version, out->version_source and out->version_text. The version query is asked here
 * unless `answer` holds its answer for out->handle already; an init that query left in force is
 * then out's (out->held_fini), and the answer's is dropped. */
void cubind__read_version(const cubind__library_desc *desc, cubind__opened *out, cubind__version_answer *answer);

#endif /* CUBIND_LOADER_LIBRARY_VERSION_H */
