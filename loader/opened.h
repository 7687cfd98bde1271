/*
 * loader/opened.h - a library as opened (its handle, path, soname, version), and the symbols
 * the object itself exports. Layer 2: includes tables.h (0) and platform.h (0).
 */
#ifndef CUBIND_LOADER_OPENED_H
#define CUBIND_LOADER_OPENED_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"
#include "tables.h"

typedef struct cubind__opened {
    void *handle;
    const char *found_by;  /* discovery step, see struct cubind_library_info */
    char *loaded_by;       /* found already loaded: by whom (struct cubind_library_info), else NULL */
    char *path;            /* as loaded (the name the system gives the object) */
    char *path_escaped;    /* the same, printable */
    char *real_path;       /* symbolic links resolved */
    char *soname;          /* DT_SONAME, or NULL */
    int version[3];        /* -1 when unknown */
    char *version_source;
    int version_origin;    /* cubind_version_origin */
    char *version_detail;  /* the query's name or the file name; NULL for CUBIND_VERSION_ORIGIN_NONE */
    char *version_text;    /* "13.1.0", "12" or "unknown" */
    cubind__fnptr held_fini; /* the fini of the init its version query left in force (NVML's), or NULL */
    int version_unasked;   /* 1 when its version query was not asked (CUBIND_NO_VERSION_QUERY names it) */
    size_t segments;       /* the object's loadable segments, to tell its own symbols from its */
    cubind__segment segment[CUBIND__SEGMENTS_MAX]; /* dependencies' by address (dlsym searches them too) */
} cubind__opened;

/* Free the texts of `lib` (its paths, soname, version texts) and clear it; the object stays open. */
void cubind__opened_free(cubind__opened *lib);

/* Fill lib->segments and lib->segment from the loaded object `facts` describes (platform.h). */
void cubind__record_segments(cubind__opened *lib, const cubind__lib_facts *facts);

/* 1 when `address` lies in the opened object itself, not in one of its dependencies (also when
 * its segments are unknown). */
int cubind__owns(const cubind__opened *lib, const void *address);

/* The address of `symbol` when the opened object itself exports it (not one of its
 * dependencies), else NULL. */
cubind__fnptr cubind__own_symbol(const cubind__opened *lib, const char *symbol);

#endif /* CUBIND_LOADER_OPENED_H */
