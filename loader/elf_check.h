/*
 * loader/elf_check.h - look at an ELF file before dlopen does: what dlopen handles
 * badly (a truncated file, another machine's library) is refused with the reason.
 */
#ifndef CUBIND_ELF_CHECK_H
#define CUBIND_ELF_CHECK_H

#include <sys/types.h>

#include "strbuf.h"

/* 0 when dlopen may go ahead with `path` (`size` bytes; faults dlopen reports well pass),
 * -1 with the reason appended to `why`. */
int cubind__check_elf(const char *path, off_t size, cubind__strbuf *why);

/* The file's DT_SONAME, read without loading it: 1 and the name in `soname` (`size` bytes),
 * 0 when the file has none, -1 when that cannot be told (not an ELF file of this process's
 * kind, unreadable, a name that does not fit). */
int cubind__elf_soname(const char *path, char *soname, size_t size);

#endif /* CUBIND_ELF_CHECK_H */
