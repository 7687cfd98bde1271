/*
 * loader/elf_symbol.c - a symbol looked up in a loaded object's own tables (see elf_symbol.h), as
 * the dynamic loader binds an unversioned reference to it (glibc's do_lookup_x and check_match).
 * Layer 1: calls libc only.
 */
#define _GNU_SOURCE
#include "elf_symbol.h"

#include <string.h>

/* What a look-up needs of the object's dynamic section. */
struct tables {
    const ElfW(Sym) *symbols;
    const char *strings;
    const ElfW(Half) *versions; /* NULL: no DT_VERSYM */
    const Elf32_Word *gnu_hash, *hash;
};

/* One name's look-up: the first acceptable match, else the only visible versioned one. */
struct match {
    const ElfW(Sym) *found, *versioned;
    unsigned versioned_count;
};

/* A pointer of the dynamic section: relocated in place by glibc on most ABIs, left as an offset
 * on those whose dynamic section is read-only. */
static uintptr_t dynamic_pointer(const ElfW(Dyn) *entry, uintptr_t base)
{
    uintptr_t p = (uintptr_t)entry->d_un.d_ptr;
    return p < base ? p + base : p;
}

static void read_tables(uintptr_t base, const ElfW(Dyn) *dyn, struct tables *t)
{
    memset(t, 0, sizeof *t);
    for (; dyn->d_tag != DT_NULL; ++dyn) {
        if (dyn->d_tag == DT_SYMTAB)
            t->symbols = (const ElfW(Sym) *)dynamic_pointer(dyn, base);
        else if (dyn->d_tag == DT_STRTAB)
            t->strings = (const char *)dynamic_pointer(dyn, base);
        else if (dyn->d_tag == DT_VERSYM)
            t->versions = (const ElfW(Half) *)dynamic_pointer(dyn, base);
        else if (dyn->d_tag == DT_GNU_HASH)
            t->gnu_hash = (const Elf32_Word *)dynamic_pointer(dyn, base);
        else if (dyn->d_tag == DT_HASH)
            t->hash = (const Elf32_Word *)dynamic_pointer(dyn, base);
    }
}

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
    struct tables t;
    struct match m = {NULL, NULL, 0};
    if (dynamic == NULL)
        return NULL;
    read_tables(base, dynamic, &t);
    if (t.symbols == NULL || t.strings == NULL)
        return NULL;
    if (t.gnu_hash != NULL) {
        /* nbuckets, symoffset, bloom words, bloom shift; the bloom filter; the buckets; the chains */
        uint32_t nbuckets = t.gnu_hash[0], symoffset = t.gnu_hash[1], h = gnu_hash(name);
        const Elf32_Word *buckets = (const Elf32_Word *)((const ElfW(Addr) *)(t.gnu_hash + 4) + t.gnu_hash[2]);
        const Elf32_Word *chains = buckets + nbuckets;
        uint32_t index = nbuckets != 0 ? buckets[h % nbuckets] : 0;
        for (; index >= symoffset && index != 0; ++index) {
            uint32_t other = chains[index - symoffset];
            if ((other | 1) == (h | 1))
                consider(&t, index, name, &m);
            if (other & 1) /* the end of this bucket's chain */
                break;
        }
    } else if (t.hash != NULL) {
        /* nbucket, nchain; the buckets; the chains */
        uint32_t nbucket = t.hash[0], index;
        const Elf32_Word *chains = t.hash + 2 + nbucket;
        for (index = nbucket != 0 ? t.hash[2 + sysv_hash(name) % nbucket] : STN_UNDEF; index != STN_UNDEF;
             index = chains[index])
            consider(&t, index, name, &m);
    }
    if (m.found == NULL && m.versioned_count == 1)
        m.found = m.versioned;
    return m.found != NULL ? (void *)(base + m.found->st_value) : NULL;
}
