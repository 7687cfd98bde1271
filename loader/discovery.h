/*
 * loader/discovery.h - find and open one library in the discovery order (README, Loader), and
 * describe what was opened (path, soname, version).
 */
#ifndef CUBIND_DISCOVERY_H
#define CUBIND_DISCOVERY_H

#include <stdint.h>

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
    size_t segments;       /* the object's PT_LOAD segments, to tell its own symbols from its */
    struct {               /* dependencies' by address (dladdr scans the symbol table) */
        uintptr_t start, end;
    } segment[16];
} cubind__opened;

/* Open the library of `desc`: the explicit handle or path when given, else the
 * discovery order. Returns 0 and fills `out`, or -1 with every attempt in `why`. */
int cubind__open(const cubind__library_desc *desc, const char *explicit_path, void *explicit_handle,
                 cubind__opened *out, cubind__strbuf *why);

/* The address of `symbol` when the opened object itself exports it (not one of its
 * dependencies), else NULL. */
cubind__fnptr cubind__own_symbol(const cubind__opened *lib, const char *symbol);

/* Every environment variable the loader reads goes through this: secure_getenv, so a
 * set-user-ID or set-group-ID program (AT_SECURE) sees none of them. */
const char *cubind__getenv(const char *name);

/* 1 when `soname` belongs to the soname family of `desc`: one of its sonames, or the same
 * name with another version ("libcublas.so.14", "libcublas.so"); "libcublasLt.so.13" is
 * not of libcublas's. */
int cubind__soname_in_family(const cubind__library_desc *desc, const char *soname);

/* 0 when `handle` is the dlopen handle of an object loaded in this process (not a
 * pseudo-handle such as RTLD_NEXT) whose DT_SONAME is of the family of `desc`; else -1
 * with the reason appended to `why`. */
int cubind__check_handle(const cubind__library_desc *desc, void *handle, cubind__strbuf *why);

#endif /* CUBIND_DISCOVERY_H */
