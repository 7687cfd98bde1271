/*
 * loader/handle_check.h - is a handle the handle of one of a library's loaded objects?
 * Layer 3: includes tables.h (0) and strbuf.h (1).
 */
#ifndef CUBIND_LOADER_HANDLE_CHECK_H
#define CUBIND_LOADER_HANDLE_CHECK_H

#include "strbuf.h"
#include "tables.h"

/* 1 when `handle` is the dlopen handle of an object loaded in this process (not a pseudo-handle
 * such as RTLD_NEXT) whose DT_SONAME is of the family of `desc`; else 0. Formats nothing. */
int cubind__handle_in_family(const cubind__library_desc *desc, void *handle);

/* 0 when cubind__handle_in_family; else -1 with the reason appended to `why` (may be NULL). */
int cubind__check_handle(const cubind__library_desc *desc, void *handle, cubind__strbuf *why);

#endif /* CUBIND_LOADER_HANDLE_CHECK_H */
