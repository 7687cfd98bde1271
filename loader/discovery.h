/*
 * loader/discovery.h - find and open one library in the discovery order (README, Loader), and
 * describe what was opened (path, soname, version). Layer 6: includes tables.h (0),
 * strbuf.h (1) and opened.h (2).
 */
#ifndef CUBIND_LOADER_DISCOVERY_H
#define CUBIND_LOADER_DISCOVERY_H

#include "opened.h"
#include "strbuf.h"
#include "tables.h"

/* Open the library of `desc`: the explicit handle or path when given, else the
 * discovery order; `beside` (or NULL) is the folder of a library it is used with, already loaded,
 * searched after the copies already loaded. Returns 0 and fills `out`, or -1 with every attempt
 * in `why`. */
int cubind__open(const cubind__library_desc *desc, const char *explicit_path, void *explicit_handle,
                 const char *beside, cubind__opened *out, cubind__strbuf *why);

#endif /* CUBIND_LOADER_DISCOVERY_H */
