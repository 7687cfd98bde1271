/*
 * loader/discovery.h - find and open one library in DESIGN.md's order, and
 * describe what was opened (path, soname, version).
 */
#ifndef CUBIND_DISCOVERY_H
#define CUBIND_DISCOVERY_H

#include "internal.h"
#include "strbuf.h"

typedef struct cubind__opened {
    void *handle;
    void *map;             /* struct link_map * of the object */
    const char *found_by;  /* discovery step, see struct cubind_library_info */
    char *path;            /* as loaded (the link map's name) */
    char *path_escaped;    /* the same, printable */
    char *real_path;       /* symbolic links resolved */
    char *soname;          /* DT_SONAME, or NULL */
    int version[3];        /* -1 when unknown */
    char *version_source;
    char *version_text;    /* "13.1.0", "12" or "unknown" */
} cubind__opened;

/* Open the library of `desc`: the explicit handle or path when given, else the
 * discovery order. Returns 0 and fills `out`, or -1 with every attempt in `why`. */
int cubind__open(const cubind__library_desc *desc, const char *explicit_path, void *explicit_handle,
                 cubind__opened *out, cubind__strbuf *why);

/* The address of `symbol` when the opened object itself exports it (not one of its
 * dependencies), else NULL. */
cubind__fnptr cubind__own_symbol(const cubind__opened *lib, const char *symbol);

#endif /* CUBIND_DISCOVERY_H */
