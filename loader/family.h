/*
 * loader/family.h - which objects are of a library: its soname family, told by DT_SONAME.
 * Layer 2: includes tables.h (0) and strbuf.h (1).
 */
#ifndef CUBIND_LOADER_FAMILY_H
#define CUBIND_LOADER_FAMILY_H

#include "strbuf.h"
#include "tables.h"

/* 1 when `soname` belongs to the soname family of `desc`: one of its sonames, or the same
 * name with another version ("libcublas.so.14", "libcublas.so"); "libcublasLt.so.13" is
 * not of libcublas's. */
int cubind__soname_in_family(const cubind__library_desc *desc, const char *soname);

/* 0 when `soname` is of the family of `desc`; else -1 with ": is libcublasLt.so.13, not libcublas
 * (...)" appended to `why`. A file without DT_SONAME (`soname` NULL) cannot be told to be the
 * library and is refused too. */
int cubind__check_family(const cubind__library_desc *desc, const char *soname, cubind__strbuf *why);

#endif /* CUBIND_LOADER_FAMILY_H */
