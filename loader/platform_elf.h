/*
 * loader/platform_elf.h - the one ELF reader: an ELF file's headers and dynamic section read from
 * the file (bounded by it: a truncated or hostile file is refused, never read past), and a loaded
 * object's dynamic section and symbol tables read in memory. Part of the Linux implementation of the
 * platform seam (platform.h: cubind__binary_*, cubind__object_*); the probe reads what a program
 * imports through it too (tools/probe/elf_imports.c). Layer 0, the platform seam's own header:
 * includes no loader header.
 *
 * The dynamic section is walked once, by cubind__elf_dynamic_read, whether it comes from a file or
 * from memory: everything else reads the facts it keeps.
 */
#ifndef CUBIND_LOADER_PLATFORM_ELF_H
#define CUBIND_LOADER_PLATFORM_ELF_H

#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

/* What one walk of a dynamic section found (values as written: addresses are virtual addresses,
 * relocated in memory on most ABIs; names are offsets into the string table). */
typedef struct cubind__elf_dynamic {
    const ElfW(Dyn) *entries; /* the section, up to its DT_NULL: `count` entries */
    size_t count;
    uint64_t strtab, strsz, symtab, versym, hash, gnu_hash;
    int has_strtab, has_strsz;
    uint64_t soname, runpath, rpath; /* offsets into the string table */
    int has_soname, has_runpath, has_rpath;
    uint64_t flags_1;
    size_t needed_count;
} cubind__elf_dynamic;

/* Walk the dynamic section at `entries`, at most `max` entries (SIZE_MAX in memory: up to DT_NULL). */
void cubind__elf_dynamic_read(const ElfW(Dyn) *entries, size_t max, cubind__elf_dynamic *out);

/* The name offset of the `index`th DT_NEEDED entry of a dynamic section read before. */
uint64_t cubind__elf_needed_at(const cubind__elf_dynamic *dynamic, size_t index);

/* ---- in memory: a loaded object ---- */

/* A pointer of a dynamic section in memory: relocated in place by glibc on most ABIs, left as an
 * offset from `base` on those whose dynamic section is read-only. */
uintptr_t cubind__elf_in_memory(uint64_t value, uintptr_t base);

/* The DT_SONAME of the object loaded at `base` whose dynamic section is `dynamic`, or NULL. */
const char *cubind__elf_memory_soname(const ElfW(Dyn) *dynamic, uintptr_t base);

/* The address of `name` as the object loaded at `base`, whose dynamic section is `dynamic`,
 * defines it (glibc's do_lookup_x and check_match for an unversioned reference): a function or data
 * object (not an indirect function: its resolver is the dynamic loader's to call), of the default
 * version, never a hidden one. NULL when the object does not define it, has no hash table (DT_GNU_HASH,
 * DT_HASH), or `dynamic` is NULL. */
void *cubind__elf_symbol(uintptr_t base, const ElfW(Dyn) *dynamic, const char *name);

/* ---- in a file ---- */

/* An ELF file being read: `fd` and `size` set by the caller, the rest by the functions below. Every
 * read lies in the file, or is refused with the reason in `why` (`why_size` bytes). */
typedef struct cubind__elf_file {
    int fd;
    uint64_t size;
    char *why;
    size_t why_size;
    unsigned char ident[EI_NIDENT];
    size_t ident_read;      /* bytes of `ident` the file has (fewer than EI_NIDENT: too short) */
    ElfW(Ehdr) header;      /* valid when cubind__elf_file_header returned 0 */
    ElfW(Phdr) *phdrs;      /* cubind__elf_file_program: its program headers (free: cubind__elf_file_free) */
    size_t phnum;
    uint64_t segments_end;  /* where its last PT_LOAD segment's bytes end in the file */
    ElfW(Dyn) *dyn;         /* cubind__elf_file_dynamic: its dynamic section, as read */
    cubind__elf_dynamic dynamic;
    int has_dynamic;        /* a PT_DYNAMIC header */
    long long strings_at;   /* the file offset of its dynamic string table, -1 when unknown */
} cubind__elf_file;

/* This process's ELF class, byte order and machine (machine 0 where cubind knows of none). */
#define CUBIND__ELF_CLASS (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define CUBIND__ELF_DATA ELFDATA2MSB
#else
#define CUBIND__ELF_DATA ELFDATA2LSB
#endif
unsigned cubind__elf_host_machine(void);

/* "x86-64", "AArch64", ...; NULL for a machine cubind does not name. */
const char *cubind__elf_machine_name(unsigned machine);

/* `length` bytes at `offset` into `into`: 0, or -1 with why ("truncated or corrupt: its <what> ...")
 * unless they all lie in the file and are read. */
int cubind__elf_read_at(cubind__elf_file *f, void *into, uint64_t offset, uint64_t length, const char *what);

/* Say why in f->why (printf-like) and return -1. */
int cubind__elf_fail(cubind__elf_file *f, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Its identification (f->ident, f->ident_read), then, when it is an ELF file of this process's class
 * and byte order, its header (f->header). 0 when both are read; 1 when it is not an ELF file of this
 * process's class and byte order (f->ident says what it is); -1 when its header cannot be read; -2
 * when the file cannot be read at all. */
int cubind__elf_file_header(cubind__elf_file *f);

/* Its program headers (after the header): 0, or -1 when they are not of this class's size or lie
 * past the file's end (`why` says). Sets f->segments_end. */
int cubind__elf_file_program(cubind__elf_file *f);

/* Its dynamic section (after the program headers), walked once: 0 (f->has_dynamic 0 when it has
 * none), or -1 when it cannot be read. Sets f->strings_at from DT_STRTAB and the PT_LOAD headers. */
int cubind__elf_file_dynamic(cubind__elf_file *f);

/* The name at `offset` of its dynamic string table, read into `out` (`size` bytes, at least 2):
 * `out`, or NULL when it lies outside the table or the file, or is longer than `size` - 1 bytes. */
char *cubind__elf_file_string(cubind__elf_file *f, uint64_t offset, char *out, size_t size);

/* The same, of any length (malloc'd; free it), bounded by the string table (DT_STRSZ) and the file. */
char *cubind__elf_file_string_dup(cubind__elf_file *f, uint64_t offset);

void cubind__elf_file_free(cubind__elf_file *f);

#endif /* CUBIND_LOADER_PLATFORM_ELF_H */
