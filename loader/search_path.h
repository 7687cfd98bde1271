/*
 * loader/search_path.h - the directories discovery searches by file name: the system loader's
 * search, a CUDA root's library directories and Python's wheels (docs/loader.md). Layer 5: includes
 * tables.h (0), strbuf.h (1) and candidate.h (4).
 */
#ifndef CUBIND_LOADER_SEARCH_PATH_H
#define CUBIND_LOADER_SEARCH_PATH_H

#include "candidate.h"
#include "strbuf.h"
#include "tables.h"

/* What dlopen(soname) would do, each file checked first and opened by its absolute path, in two
 * parts (docs/loader.md, steps 4 and 7). CUBIND__SEARCH_PATH: for each soname, newest first, the
 * dynamic loader's search path for a library opened by name from cubind (cubind__lib_search_path:
 * rpath, LD_LIBRARY_PATH, runpath), skipping relative and empty entries (the working directory) and the
 * system directories. CUBIND__SEARCH_DEFAULTS: for each soname, the ld.so cache (read once), then
 * the system directories; when it finds nothing, `why` ends with what neither part found. Returns
 * the handle, or NULL with every attempt in `why`. */
enum { CUBIND__SEARCH_PATH = 1, CUBIND__SEARCH_DEFAULTS = 2 };
void *cubind__system_search(const cubind__library_desc *desc, int part, cubind__strbuf *why, cubind__found *found);

/* With CUBIND_SEARCH_PYTHON (places.h): each site-packages directory's wheel directories of the
 * library (nvidia/cu13/lib, ...: cubind__locatables), newest soname first in each. Absent files
 * are listed together in `why`, refused ones one by one. */
void *cubind__try_wheels(const cubind__library_desc *desc, cubind__strbuf *why, cubind__found *found);

/* The system's library directories, in the order the dynamic loader searches them after its cache
 * (/lib/<triplet>, /usr/lib/<triplet>, /lib64, /usr/lib64, /lib, /usr/lib): the `index`th, or NULL
 * past the last. */
const char *cubind__system_dir(size_t index);

/* The library directories of a CUDA root, in the order searched (lib64, lib, targets/<arch>/lib):
 * the `index`th, or NULL past the last. */
const char *cubind__root_subdir(size_t index);

/* A CUDA root (steps 6 and 8) for one absolute `root`: root/{lib64,lib,targets/<arch>/lib, then the library's root_dirs:
 * nvvm/lib64}/<soname>, newest soname
 * first in each. Absent files are listed together in `why`, refused ones one by one. */
void *cubind__try_root(const cubind__library_desc *desc, const char *root, cubind__strbuf *why, cubind__found *found);

/* Each of d's sonames in `dir`, the folder of a library it is used with (cuBLAS's for cuBLASLt), so
 * that libraries used together come from one release when the folder has one: NULL when none is
 * there (nothing said) or loads (the reasons in `why`). */
void *cubind__try_beside(const cubind__library_desc *desc, const char *dir, cubind__strbuf *why,
                         cubind__found *found);

#endif /* CUBIND_LOADER_SEARCH_PATH_H */
