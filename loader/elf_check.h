/*
 * loader/elf_check.h - look at an ELF file before dlopen does: what dlopen handles
 * badly (a truncated file, another machine's library) is refused with the reason, and
 * the file's DT_SONAME and DT_NEEDED are read without loading it. Layer 2: includes strbuf.h (1).
 */
#ifndef CUBIND_LOADER_ELF_CHECK_H
#define CUBIND_LOADER_ELF_CHECK_H

#include <stddef.h>
#include <sys/types.h>

#include "strbuf.h"

/* Look at the open file `fd` (`size` bytes). Returns 0 when dlopen may go ahead with it (faults
 * dlopen reports well pass), -1 with the reason appended to `why`. Sets *has_soname to 1 with
 * the file's DT_SONAME in `soname` (`soname_size` bytes), 0 when the file has none, -1 when that
 * cannot be told (not an ELF file of this process's kind, unreadable, a name that does not fit). */
int cubind__inspect_elf(int fd, off_t size, char *soname, size_t soname_size, int *has_soname,
                        cubind__strbuf *why);

/* Whether the open file `fd` (`size` bytes) is an ELF shared object (ET_DYN) of this process's class,
 * byte order and machine, from its header alone: 0 when it is, -1 with the reason appended to `why`
 * ("not an ELF file: a script (it starts with #!)", "not a shared object: ..."). What dlopen would
 * refuse anyway, said before anything (a child process) is spent on the file. */
int cubind__elf_shared_object(int fd, off_t size, cubind__strbuf *why);

/* The DT_NEEDED names of the open ELF file `fd` (`size` bytes), each followed by '\n', appended to
 * `out` (a name longer than 255 bytes is left out). Returns how many, or -1 when they cannot be read
 * (not an ELF file of this process's kind, cut short, no string table). */
int cubind__elf_needed(int fd, off_t size, cubind__strbuf *out);

#endif /* CUBIND_LOADER_ELF_CHECK_H */
