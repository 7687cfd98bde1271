/*
 * loader/search_path.h - the directories discovery searches by file name: the system loader's
 * search (step 4) and a CUDA root's library directories (step 5). Layer 5: includes internal.h
 * (0), strbuf.h (1) and candidate.h (4).
 */
#ifndef CUBIND_LOADER_SEARCH_PATH_H
#define CUBIND_LOADER_SEARCH_PATH_H

#include "candidate.h"
#include "internal.h"
#include "strbuf.h"

/* Step 4: what dlopen(soname) would do, each file checked first and opened by its absolute path.
 * For each soname, newest first: the dynamic loader's search path for a dlopen from `self`
 * (cubind's link map, or NULL), skipping relative and empty entries (the working directory); then
 * the ld.so cache (read once, when the search path missed); then the system directories. Returns
 * the handle, or NULL with every attempt in `why`. */
void *cubind__system_search(const cubind__library_desc *desc, void *self, cubind__strbuf *why, cubind__found *found);

/* Step 5 for one absolute `root`: root/{lib64,lib,targets/<arch>/lib}/<soname>, newest soname
 * first in each. Absent files are listed together in `why`, refused ones one by one. */
void *cubind__try_root(const cubind__library_desc *desc, const char *root, cubind__strbuf *why, cubind__found *found);

/* Each of d's sonames in `dir`, the folder of a library it is used with (cuBLAS's for cuBLASLt), so
 * that libraries used together come from one release when the folder has one: NULL when none is
 * there (nothing said) or loads (the reasons in `why`). */
void *cubind__try_beside(const cubind__library_desc *desc, const char *dir, cubind__strbuf *why,
                         cubind__found *found);

#endif /* CUBIND_LOADER_SEARCH_PATH_H */
