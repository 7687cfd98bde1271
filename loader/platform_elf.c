/*
 * loader/platform_elf.c - the one ELF reader (platform_elf.h), and the parts of the platform seam
 * (platform.h) that read ELF: a library's file before it is loaded (cubind__binary_inspect,
 * cubind__binary_needed) and a loaded object's own tables (cubind__object_needs,
 * cubind__object_symbol). A file is read with pread, each part checked to lie in it first, so a
 * file cut short while it is read gives a short read (refused), never SIGBUS; the header and the
 * program headers come in one read, the dynamic section and each name in one more.
 * Layer 0, the platform seam: calls libc only.
 */
#define _GNU_SOURCE
#include "platform_elf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

/* Dynamic entries read at most: real files have well under a hundred. */
#define DYNAMIC_MAX 4096

/* ---- the dynamic section, from a file or in memory ---- */

void cubind__elf_dynamic_read(const ElfW(Dyn) *entries, size_t max, cubind__elf_dynamic *out)
{
    size_t i;
    memset(out, 0, sizeof *out);
    out->entries = entries;
    for (i = 0; entries != NULL && i < max && entries[i].d_tag != DT_NULL; ++i) {
        uint64_t value = (uint64_t)entries[i].d_un.d_val;
        switch (entries[i].d_tag) {
        case DT_STRTAB: out->strtab = value; out->has_strtab = 1; break;
        case DT_STRSZ: out->strsz = value; out->has_strsz = 1; break;
        case DT_SYMTAB: out->symtab = value; break;
        case DT_VERSYM: out->versym = value; break;
        case DT_HASH: out->hash = value; break;
        case DT_GNU_HASH: out->gnu_hash = value; break;
        case DT_SONAME: out->soname = value; out->has_soname = 1; break;
        case DT_RUNPATH: out->runpath = value; out->has_runpath = 1; break;
        case DT_RPATH: out->rpath = value; out->has_rpath = 1; break;
        case DT_FLAGS_1: out->flags_1 = value; break;
        case DT_NEEDED: out->needed_count++; break;
        default: break;
        }
    }
    out->count = i;
}

uint64_t cubind__elf_needed_at(const cubind__elf_dynamic *dynamic, size_t index)
{
    size_t i;
    for (i = 0; i < dynamic->count; ++i)
        if (dynamic->entries[i].d_tag == DT_NEEDED && index-- == 0)
            return (uint64_t)dynamic->entries[i].d_un.d_val;
    return 0;
}

/* ---- in memory ---- */

uintptr_t cubind__elf_in_memory(uint64_t value, uintptr_t base)
{
    uintptr_t p = (uintptr_t)value;
    return p < base ? p + base : p;
}

const char *cubind__elf_memory_soname(const ElfW(Dyn) *dynamic, uintptr_t base)
{
    cubind__elf_dynamic d;
    cubind__elf_dynamic_read(dynamic, SIZE_MAX, &d);
    if (!d.has_soname || d.strtab == 0)
        return NULL;
    return (const char *)cubind__elf_in_memory(d.strtab, base) + d.soname;
}

int cubind__object_needs(const cubind__object *object, const char *name)
{
    cubind__elf_dynamic d;
    const char *strings;
    size_t i;
    cubind__elf_dynamic_read(object->tables, SIZE_MAX, &d);
    if (d.strtab == 0)
        return 0;
    strings = (const char *)cubind__elf_in_memory(d.strtab, object->base);
    for (i = 0; i < d.needed_count; ++i)
        if (strcmp(strings + cubind__elf_needed_at(&d, i), name) == 0)
            return 1;
    return 0;
}

/* One name's look-up: the first acceptable match, else the only visible versioned one. */
struct match {
    const ElfW(Sym) *found, *versioned;
    unsigned versioned_count;
};

struct tables {
    const ElfW(Sym) *symbols;
    const char *strings;
    const ElfW(Half) *versions; /* NULL: no DT_VERSYM */
};

/* Symbol `index`, if it is `name` defined here as a function or data object. */
static void consider(const struct tables *t, ElfW(Word) index, const char *name, struct match *m)
{
    const ElfW(Sym) *sym = &t->symbols[index];
    unsigned type = ELF64_ST_TYPE(sym->st_info), bind = ELF64_ST_BIND(sym->st_info); /* as in ELF32 */
    ElfW(Half) version;
    if (m->found != NULL || sym->st_shndx == SHN_UNDEF || sym->st_value == 0 ||
        (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) ||
        (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) || strcmp(t->strings + sym->st_name, name) != 0)
        return;
    version = t->versions != NULL ? t->versions[index] : 0;
    if ((version & 0x7fff) < 3) { /* unversioned, or the base version: what an unversioned reference takes */
        m->found = sym;
    } else if (!(version & 0x8000) && m->versioned_count++ == 0) { /* a visible version: only if it is the one */
        m->versioned = sym;
    }
}

static uint32_t gnu_hash(const char *name)
{
    uint32_t h = 5381;
    for (; *name != '\0'; ++name)
        h = h * 33 + (unsigned char)*name;
    return h;
}

static uint32_t sysv_hash(const char *name)
{
    uint32_t h = 0, g;
    for (; *name != '\0'; ++name) {
        h = (h << 4) + (unsigned char)*name;
        g = h & 0xf0000000u;
        h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

void *cubind__elf_symbol(uintptr_t base, const ElfW(Dyn) *dynamic, const char *name)
{
    cubind__elf_dynamic d;
    struct tables t;
    struct match m = {NULL, NULL, 0};
    if (dynamic == NULL)
        return NULL;
    cubind__elf_dynamic_read(dynamic, SIZE_MAX, &d);
    t.symbols = d.symtab != 0 ? (const ElfW(Sym) *)cubind__elf_in_memory(d.symtab, base) : NULL;
    t.strings = d.strtab != 0 ? (const char *)cubind__elf_in_memory(d.strtab, base) : NULL;
    t.versions = d.versym != 0 ? (const ElfW(Half) *)cubind__elf_in_memory(d.versym, base) : NULL;
    if (t.symbols == NULL || t.strings == NULL)
        return NULL;
    if (d.gnu_hash != 0) {
        /* nbuckets, symoffset, bloom words, bloom shift; the bloom filter; the buckets; the chains */
        const Elf32_Word *table = (const Elf32_Word *)cubind__elf_in_memory(d.gnu_hash, base);
        uint32_t nbuckets = table[0], symoffset = table[1], h = gnu_hash(name);
        const Elf32_Word *buckets = (const Elf32_Word *)((const ElfW(Addr) *)(table + 4) + table[2]);
        const Elf32_Word *chains = buckets + nbuckets;
        uint32_t index = nbuckets != 0 ? buckets[h % nbuckets] : 0;
        for (; index >= symoffset && index != 0; ++index) {
            uint32_t other = chains[index - symoffset];
            if ((other | 1) == (h | 1))
                consider(&t, index, name, &m);
            if (other & 1) /* the end of this bucket's chain */
                break;
        }
    } else if (d.hash != 0) {
        /* nbucket, nchain; the buckets; the chains */
        const Elf32_Word *table = (const Elf32_Word *)cubind__elf_in_memory(d.hash, base);
        uint32_t nbucket = table[0], index;
        const Elf32_Word *chains = table + 2 + nbucket;
        for (index = nbucket != 0 ? table[2 + sysv_hash(name) % nbucket] : STN_UNDEF; index != STN_UNDEF;
             index = chains[index])
            consider(&t, index, name, &m);
    }
    if (m.found == NULL && m.versioned_count == 1)
        m.found = m.versioned;
    return m.found != NULL ? (void *)(base + m.found->st_value) : NULL;
}

void *cubind__object_symbol(const cubind__object *object, const char *symbol)
{
    return cubind__elf_symbol(object->base, object->tables, symbol);
}

/* ---- in a file ---- */

unsigned cubind__elf_host_machine(void)
{
#if defined(__x86_64__)
    return EM_X86_64;
#elif defined(__aarch64__)
    return EM_AARCH64;
#elif defined(__i386__)
    return EM_386;
#elif defined(__arm__)
    return EM_ARM;
#elif defined(__powerpc64__)
    return EM_PPC64;
#elif defined(__riscv)
    return EM_RISCV;
#elif defined(__s390x__)
    return EM_S390;
#else
    return 0;
#endif
}

const char *cubind__elf_machine_name(unsigned machine)
{
    switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "AArch64";
    case EM_386: return "i386";
    case EM_ARM: return "ARM";
    case EM_PPC64: return "PowerPC64";
    case EM_RISCV: return "RISC-V";
    case EM_S390: return "S/390";
    default: return NULL;
    }
}

int cubind__elf_fail(cubind__elf_file *f, const char *format, ...)
{
    va_list args;
    if (f->why != NULL && f->why_size > 0) {
        va_start(args, format);
        vsnprintf(f->why, f->why_size, format, args);
        va_end(args);
    }
    return -1;
}

int cubind__elf_read_at(cubind__elf_file *f, void *into, uint64_t offset, uint64_t length, const char *what)
{
    ssize_t got;
    if (offset > f->size || length > f->size - offset)
        return cubind__elf_fail(f, "truncated or corrupt: its %s (%llu bytes at offset %llu) would end past the file's "
                                "end (%llu bytes)", what, (unsigned long long)length, (unsigned long long)offset,
                                (unsigned long long)f->size);
    got = length == 0 ? 0 : pread(f->fd, into, (size_t)length, (off_t)offset);
    if (got < 0)
        return cubind__elf_fail(f, "cannot read its %s: %s", what, strerror(errno));
    if ((uint64_t)got != length)
        return cubind__elf_fail(f, "truncated: its %s could not be read whole (the file shrank?)", what);
    return 0;
}

int cubind__elf_file_header(cubind__elf_file *f)
{
    ssize_t got = pread(f->fd, f->ident, sizeof f->ident, 0);
    f->ident_read = got > 0 ? (size_t)got : 0;
    if (got < 0) {
        cubind__elf_fail(f, "cannot read its identification: %s", strerror(errno));
        return -2;
    }
    if (f->ident_read < SELFMAG || memcmp(f->ident, ELFMAG, SELFMAG) != 0 || f->ident_read < EI_NIDENT ||
        f->ident[EI_CLASS] != CUBIND__ELF_CLASS || f->ident[EI_DATA] != CUBIND__ELF_DATA)
        return 1;
    return cubind__elf_read_at(f, &f->header, 0, sizeof f->header, "ELF header");
}

/* The file offset of virtual address `vaddr`, from the PT_LOAD headers; -1 when none maps it. */
static long long file_offset(const cubind__elf_file *f, uint64_t vaddr)
{
    size_t i;
    for (i = 0; i < f->phnum; ++i) {
        const ElfW(Phdr) *ph = &f->phdrs[i];
        if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr && vaddr < ph->p_vaddr + ph->p_filesz)
            return (long long)(vaddr - ph->p_vaddr + ph->p_offset);
    }
    return -1;
}

int cubind__elf_file_program(cubind__elf_file *f)
{
    uint64_t end;
    size_t i;
    if (f->header.e_phentsize != sizeof(ElfW(Phdr)))
        return cubind__elf_fail(f, "corrupt: its program headers are %u bytes each, not %zu",
                                (unsigned)f->header.e_phentsize, sizeof(ElfW(Phdr)));
    f->phnum = f->header.e_phnum;
    end = (uint64_t)f->header.e_phoff + (uint64_t)f->phnum * sizeof(ElfW(Phdr));
    if (end > f->size || end < f->header.e_phoff) {
        f->phnum = 0;
        return cubind__elf_fail(f, "truncated ELF file: %lld bytes, but its program headers need %llu",
                                (long long)f->size, (unsigned long long)end);
    }
    if (f->phnum > 0 && ((f->phdrs = malloc(f->phnum * sizeof *f->phdrs)) == NULL ||
                         cubind__elf_read_at(f, f->phdrs, f->header.e_phoff, f->phnum * sizeof *f->phdrs,
                                             "program headers") != 0)) {
        free(f->phdrs);
        f->phdrs = NULL;
        f->phnum = 0;
        return -1;
    }
    f->segments_end = 0;
    for (i = 0; i < f->phnum; ++i)
        if (f->phdrs[i].p_type == PT_LOAD && (uint64_t)f->phdrs[i].p_offset + f->phdrs[i].p_filesz > f->segments_end)
            f->segments_end = (uint64_t)f->phdrs[i].p_offset + f->phdrs[i].p_filesz;
    return 0;
}

int cubind__elf_file_dynamic(cubind__elf_file *f)
{
    const ElfW(Phdr) *dynamic = NULL;
    uint64_t bytes;
    size_t i, count;
    ssize_t got;
    f->strings_at = -1;
    for (i = 0; i < f->phnum && dynamic == NULL; ++i)
        if (f->phdrs[i].p_type == PT_DYNAMIC)
            dynamic = &f->phdrs[i];
    f->has_dynamic = dynamic != NULL;
    if (dynamic == NULL)
        return 0;
    if (dynamic->p_offset >= f->size)
        return cubind__elf_fail(f, "truncated or corrupt: its dynamic section (at offset %llu) lies past the file's "
                                "end (%llu bytes)", (unsigned long long)dynamic->p_offset, (unsigned long long)f->size);
    /* what of it lies in the file, at most DYNAMIC_MAX entries: a short one ends early */
    bytes = dynamic->p_filesz < f->size - dynamic->p_offset ? dynamic->p_filesz : f->size - dynamic->p_offset;
    count = (size_t)(bytes / sizeof(ElfW(Dyn)) < DYNAMIC_MAX ? bytes / sizeof(ElfW(Dyn)) : DYNAMIC_MAX);
    if ((f->dyn = malloc((count ? count : 1) * sizeof *f->dyn)) == NULL)
        return cubind__elf_fail(f, "out of memory");
    got = count == 0 ? 0 : pread(f->fd, f->dyn, count * sizeof *f->dyn, (off_t)dynamic->p_offset);
    if (got < 0)
        return cubind__elf_fail(f, "cannot read its dynamic section: %s", strerror(errno));
    cubind__elf_dynamic_read(f->dyn, (size_t)got / sizeof *f->dyn, &f->dynamic);
    if (f->dynamic.has_strtab)
        f->strings_at = file_offset(f, f->dynamic.strtab);
    return 0;
}

/* The bytes a name at `offset` of the string table may take: to the table's end (DT_STRSZ) and the
 * file's; 0 when it lies outside either. */
static uint64_t string_room(const cubind__elf_file *f, uint64_t offset)
{
    uint64_t at, room;
    if (f->strings_at < 0 || (f->dynamic.has_strsz && offset >= f->dynamic.strsz))
        return 0;
    at = (uint64_t)f->strings_at + offset;
    if (at < (uint64_t)f->strings_at || at >= f->size)
        return 0;
    room = f->size - at;
    if (f->dynamic.has_strsz && f->dynamic.strsz - offset < room)
        room = f->dynamic.strsz - offset;
    return room;
}

char *cubind__elf_file_string(cubind__elf_file *f, uint64_t offset, char *out, size_t size)
{
    uint64_t room = string_room(f, offset);
    size_t want = room < size - 1 ? (size_t)room : size - 1;
    ssize_t got;
    if (room == 0 || (got = pread(f->fd, out, want, (off_t)((uint64_t)f->strings_at + offset))) <= 0)
        return NULL;
    out[got] = '\0';
    if (strlen(out) == (size_t)got)
        return NULL; /* no end inside what was read: longer than `size` - 1 bytes, or past the table */
    return out;
}

char *cubind__elf_file_string_dup(cubind__elf_file *f, uint64_t offset)
{
    uint64_t room = string_room(f, offset);
    size_t size = 256;
    char *out = NULL;
    while (room > 0) {
        char *grown = realloc(out, size);
        if (grown == NULL)
            break;
        out = grown;
        if (cubind__elf_file_string(f, offset, out, size) != NULL)
            return out;
        if (size - 1 >= room)
            break; /* the whole table read: no end in it */
        size *= 2;
    }
    free(out);
    return NULL;
}

void cubind__elf_file_free(cubind__elf_file *f)
{
    free(f->phdrs);
    free(f->dyn);
    f->phdrs = NULL;
    f->dyn = NULL;
    f->phnum = 0;
}

/* ---- the seam's view of a library's file ---- */

static const char *machine_or_unknown(unsigned machine)
{
    const char *name = cubind__elf_machine_name(machine);
    return name != NULL ? name : "an unknown machine";
}

/* Why the file is not an ELF shared object of this process's kind, from its header alone, into
 * out->not_library ("" when it is). */
static void shared_object(const cubind__elf_file *f, int header, long long size, cubind__binary *out)
{
    static const char *const types[] = {"no file type", "a relocatable object", "an executable", "a shared object",
                                        "a core dump"};
    char *why = out->not_library;
    size_t n = sizeof out->not_library;
    const unsigned char *ident = f->ident;
    unsigned host = cubind__elf_host_machine();
    if (header == -2) {
        snprintf(why, n, "cannot be read");
    } else if (f->ident_read < 4 || memcmp(ident, ELFMAG, SELFMAG) != 0) {
        if (f->ident_read >= 2 && ident[0] == '#' && ident[1] == '!')
            snprintf(why, n, "not an ELF file: a script (it starts with #!)");
        else
            snprintf(why, n, "not an ELF file: %lld bytes, %s", size,
                     f->ident_read < 4 ? "too short for an ELF header" : "no ELF magic number");
    } else if (header < 0 || f->size < sizeof(ElfW(Ehdr))) {
        snprintf(why, n, "truncated ELF file: %lld bytes, shorter than its header", size);
    } else if (ident[EI_CLASS] != CUBIND__ELF_CLASS) {
        snprintf(why, n, "an ELF file of another class (%s), not this process's %d-bit",
                 ident[EI_CLASS] == ELFCLASS32 ? "32-bit" : ident[EI_CLASS] == ELFCLASS64 ? "64-bit" : "unknown",
                 (int)sizeof(void *) * 8);
    } else if (ident[EI_DATA] != CUBIND__ELF_DATA) {
        snprintf(why, n, "an ELF file of the other byte order (%s)",
                 ident[EI_DATA] == ELFDATA2MSB ? "big-endian" : ident[EI_DATA] == ELFDATA2LSB ? "little-endian"
                                                                                            : "unknown");
    } else if (host != 0 && f->header.e_machine != host) {
        snprintf(why, n, "built for %s (ELF machine %u), not for this process's %s (%u)",
                 machine_or_unknown(f->header.e_machine), (unsigned)f->header.e_machine, machine_or_unknown(host),
                 host);
    } else if (f->header.e_type != ET_DYN) {
        snprintf(why, n, "not a shared object: an ELF file of type %s (%u)",
                 f->header.e_type < sizeof types / sizeof types[0] ? types[f->header.e_type] : "unknown",
                 (unsigned)f->header.e_type);
    }
}

void cubind__binary_inspect(int fd, long long size, cubind__binary *out)
{
    cubind__elf_file f;
    char ignored[160];
    unsigned host = cubind__elf_host_machine();
    int header;
    memset(out, 0, sizeof *out);
    memset(&f, 0, sizeof f);
    out->has_soname = -1;
    f.fd = fd;
    f.size = size > 0 ? (uint64_t)size : 0;
    f.why = ignored;
    f.why_size = sizeof ignored;
    header = cubind__elf_file_header(&f);
    shared_object(&f, header, size, out);
    if (header != 0)
        return; /* not an ELF file of this process's kind: dlopen says why */
    if (host != 0 && f.header.e_machine != host) {
        snprintf(out->refused, sizeof out->refused, "built for %s (ELF machine %u), not for this process's %s (%u)",
                 machine_or_unknown(f.header.e_machine), (unsigned)f.header.e_machine, machine_or_unknown(host), host);
        return;
    }
    if (f.header.e_phentsize != sizeof(ElfW(Phdr)))
        return;
    if (cubind__elf_file_program(&f) != 0) {
        if (f.phdrs == NULL && (uint64_t)f.header.e_phoff + (uint64_t)f.header.e_phnum * sizeof(ElfW(Phdr)) > f.size)
            snprintf(out->refused, sizeof out->refused, "%s", ignored); /* cut short: dlopen would die of SIGBUS */
        return;
    }
    if (f.segments_end > f.size) {
        snprintf(out->refused, sizeof out->refused, "truncated ELF file: %lld bytes, but its segments need %llu", size,
                 (unsigned long long)f.segments_end);
    } else if (f.phnum > 0 && cubind__elf_file_dynamic(&f) == 0) {
        /* the soname; -1 (cannot tell) unless read to the end */
        if (!f.has_dynamic || !f.dynamic.has_soname)
            out->has_soname = 0;
        else if (cubind__elf_file_string(&f, f.dynamic.soname, out->soname, sizeof out->soname) != NULL)
            out->has_soname = 1;
    }
    cubind__elf_file_free(&f);
}

int cubind__binary_needed(int fd, long long size, void (*each)(const char *name, void *data), void *data)
{
    cubind__elf_file f;
    char ignored[160], name[256];
    size_t i;
    int count = 0;
    memset(&f, 0, sizeof f);
    f.fd = fd;
    f.size = size > 0 ? (uint64_t)size : 0;
    f.why = ignored;
    f.why_size = sizeof ignored;
    if (cubind__elf_file_header(&f) != 0 || f.header.e_phnum == 0 || cubind__elf_file_program(&f) != 0 ||
        cubind__elf_file_dynamic(&f) != 0) {
        cubind__elf_file_free(&f);
        return -1;
    }
    if (!f.has_dynamic) {
        cubind__elf_file_free(&f);
        return 0; /* no dynamic section: nothing needed */
    }
    if (f.strings_at < 0) {
        cubind__elf_file_free(&f);
        return -1;
    }
    for (i = 0; i < f.dynamic.needed_count; ++i)
        if (cubind__elf_file_string(&f, cubind__elf_needed_at(&f.dynamic, i), name, sizeof name) != NULL) {
            each(name, data);
            ++count;
        }
    cubind__elf_file_free(&f);
    return count;
}
