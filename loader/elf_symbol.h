/*
 * loader/elf_symbol.h - a symbol of a loaded object, looked up in the object's own dynamic symbol
 * table, in memory, without the dynamic loader. Layer 1: includes no loader header.
 *
 * dlsym (and dladdr) take the dynamic loader's lock, which a thread inside dlopen holds while the
 * library's constructors run: a thread such a constructor starts and waits for would wait for ever
 * in dlsym. This look-up reads only the object's mapped tables (DT_GNU_HASH or DT_HASH, DT_SYMTAB,
 * DT_STRTAB, DT_VERSYM), which the dynamic loader finished before any of its code ran.
 */
#ifndef CUBIND_LOADER_ELF_SYMBOL_H
#define CUBIND_LOADER_ELF_SYMBOL_H

#include <link.h>
#include <stdint.h>

/* The address of `name` as the object loaded at `base`, whose dynamic section is `dynamic`,
 * defines it: a function or data object (not an indirect function: its resolver is the dynamic
 * loader's to call), of the version an unversioned reference binds to (the default one; never a
 * hidden version). NULL when the object does not define it, has no hash table, or `dynamic` is
 * NULL. */
void *cubind__elf_symbol(uintptr_t base, const ElfW(Dyn) *dynamic, const char *name);

#endif /* CUBIND_LOADER_ELF_SYMBOL_H */
