/* tests/test_elf_symbol.c - loader/platform_elf.c's cubind__elf_symbol, the look-up of a symbol in a loaded object's own
 * tables (what a thread started by a library's constructor uses where dlsym would wait for ever),
 * against the dynamic loader: every function and data object every loaded object defines must be
 * found at the definition an unversioned reference binds to, which dlvsym (dlsym for an object
 * without versions) confirms. Where an object defines a name in several versions (glibc's
 * realpath@GLIBC_2.2.5 and realpath@@GLIBC_2.3) that is the oldest, as glibc binds a reference made
 * before the library had versions (check_match; dlsym would answer the newest). Built with
 * loader/platform_elf.c itself and linked -rdynamic --hash-style=sysv, so that the program's own table
 * is a SysV one (DT_HASH) and libc's a GNU one (DT_GNU_HASH). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "platform_elf.h"

/* Exported by the program (-rdynamic), looked up in its SysV table. */
__attribute__((visibility("default"))) int cubind_test_exported_data = 7;
__attribute__((visibility("default"))) int cubind_test_exported_function(void);
int cubind_test_exported_function(void)
{
    return cubind_test_exported_data;
}

struct tally {
    size_t objects, gnu, sysv, compared, several, wrong;
    int saw_exported; /* the program's own function found */
};

/* The name of version `index` in the object's DT_VERDEF list, or NULL. */
static const char *version_name(const ElfW(Verdef) *def, const char *strings, unsigned index)
{
    while (def != NULL) {
        if (def->vd_ndx == index)
            return strings + ((const ElfW(Verdaux) *)((const char *)def + def->vd_aux))->vda_name;
        def = def->vd_next != 0 ? (const ElfW(Verdef) *)((const char *)def + def->vd_next) : NULL;
    }
    return NULL;
}

static uintptr_t pointer(const ElfW(Dyn) *entry, uintptr_t base)
{
    uintptr_t p = (uintptr_t)entry->d_un.d_ptr;
    return p < base ? p + base : p;
}

/* How many entries the dynamic symbol table has: DT_HASH's nchain, or past the last GNU chain. */
static size_t symbol_count(const Elf32_Word *hash, const Elf32_Word *gnu)
{
    size_t count = 0, i;
    if (hash != NULL)
        return hash[1];
    if (gnu != NULL) {
        uint32_t nbuckets = gnu[0], symoffset = gnu[1];
        const Elf32_Word *buckets = (const Elf32_Word *)((const ElfW(Addr) *)(gnu + 4) + gnu[2]);
        const Elf32_Word *chains = buckets + nbuckets;
        for (i = 0; i < nbuckets; ++i)
            if (buckets[i] >= count)
                count = buckets[i];
        if (count < symoffset)
            return symoffset;
        while (!(chains[count - symoffset] & 1))
            ++count;
        return count + 1;
    }
    return 0;
}

static void compare_object(struct dl_phdr_info *info, const ElfW(Dyn) *dyn, void *handle, struct tally *t)
{
    const ElfW(Dyn) *e;
    const ElfW(Sym) *symbols = NULL;
    const char *strings = NULL;
    const ElfW(Half) *versions = NULL;
    const ElfW(Verdef) *defined = NULL;
    const Elf32_Word *hash = NULL, *gnu = NULL;
    size_t n, i, j;
    for (e = dyn; e->d_tag != DT_NULL; ++e) {
        if (e->d_tag == DT_SYMTAB)
            symbols = (const ElfW(Sym) *)pointer(e, info->dlpi_addr);
        else if (e->d_tag == DT_STRTAB)
            strings = (const char *)pointer(e, info->dlpi_addr);
        else if (e->d_tag == DT_VERSYM)
            versions = (const ElfW(Half) *)pointer(e, info->dlpi_addr);
        else if (e->d_tag == DT_VERDEF)
            defined = (const ElfW(Verdef) *)pointer(e, info->dlpi_addr);
        else if (e->d_tag == DT_HASH)
            hash = (const Elf32_Word *)pointer(e, info->dlpi_addr);
        else if (e->d_tag == DT_GNU_HASH)
            gnu = (const Elf32_Word *)pointer(e, info->dlpi_addr);
    }
    if (symbols == NULL || strings == NULL)
        return;
    t->gnu += gnu != NULL;
    t->sysv += gnu == NULL && hash != NULL;
    n = symbol_count(gnu == NULL ? hash : NULL, gnu);
    for (i = 1; i < n; ++i) {
        const ElfW(Sym) *s = &symbols[i];
        unsigned type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info), version, oldest = 0;
        const char *name = strings + s->st_name, *vname;
        void *expected = NULL, *found;
        if (s->st_shndx == SHN_UNDEF || s->st_value == 0 || (type != STT_FUNC && type != STT_OBJECT) ||
            (bind != STB_GLOBAL && bind != STB_WEAK))
            continue; /* not a definition a reference binds to */
        found = cubind__elf_symbol(info->dlpi_addr, dyn, name);
        /* the definition of this name that glibc binds an unversioned reference to */
        for (j = 1; j < n && versions != NULL; ++j)
            if (j != i && symbols[j].st_shndx != SHN_UNDEF && strcmp(strings + symbols[j].st_name, name) == 0)
                oldest = 1; /* several versions */
        version = versions != NULL ? versions[i] & 0x7fff : 0;
        if (oldest && version >= 3)
            continue; /* not the one bound, when the name has one of the oldest version: checked there */
        if (versions != NULL && (versions[i] & 0x8000) && version >= 3)
            continue; /* hidden: never bound by an unversioned reference */
        vname = version >= 2 ? version_name(defined, strings, version) : NULL;
        expected = vname != NULL ? dlvsym(handle, name, vname) : dlsym(handle, name);
        if ((uintptr_t)expected != info->dlpi_addr + s->st_value)
            continue; /* the handle's scope answers another object's definition */
        t->compared++;
        t->several += oldest;
        if (found != expected) {
            t->wrong++;
            fprintf(stderr, "%s: %s at %p, %s%s%s %p\n", info->dlpi_name, name, found, vname != NULL ? "dlvsym " : "dlsym",
                    vname != NULL ? vname : "", vname != NULL ? ":" : "", expected);
        }
        if (strcmp(name, "cubind_test_exported_function") == 0)
            t->saw_exported = 1;
    }
}

static int each_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct tally *t = data;
    const ElfW(Dyn) *dyn = NULL;
    void *handle;
    size_t i;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == NULL)
        return 0;
    handle = info->dlpi_name[0] == '\0' && t->objects == 0 ? dlopen(NULL, RTLD_LAZY)
                                                           : dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == NULL)
        return 0; /* the vDSO: no handle to compare with */
    t->objects++;
    compare_object(info, dyn, handle, t);
    dlclose(handle);
    return 0;
}

static void test_every_loaded_symbol_as_bound(void **state)
{
    struct tally t = {0, 0, 0, 0, 0, 0, 0};
    (void)state;
    dl_iterate_phdr(each_object, &t);
    printf("elf_symbol: %zu symbols of %zu objects (%zu with a GNU hash table, %zu with a SysV one; %zu names "
           "defined in several versions) as the dynamic loader binds them\n",
           t.compared, t.objects, t.gnu, t.sysv, t.several);
    assert_int_equal(t.wrong, 0);
    assert_true(t.compared > 1000); /* libc's */
    assert_true(t.gnu > 0 && t.sysv > 0);
    assert_true(t.several > 0); /* libc's */
    assert_true(t.saw_exported);
}

/* Absent names, and no table at all. */
static void test_absent(void **state)
{
    void *program = dlopen(NULL, RTLD_LAZY);
    struct link_map *map = NULL;
    (void)state;
    assert_int_equal(dlinfo(program, RTLD_DI_LINKMAP, &map), 0);
    assert_ptr_equal(cubind__elf_symbol(map->l_addr, map->l_ld, "cubind_test_exported_function"),
                     (void *)(uintptr_t)cubind_test_exported_function);
    assert_null(cubind__elf_symbol(map->l_addr, map->l_ld, "cubind_test_no_such_symbol"));
    assert_null(cubind__elf_symbol(map->l_addr, map->l_ld, "dlsym")); /* referenced, not defined, here */
    assert_null(cubind__elf_symbol(map->l_addr, NULL, "cubind_test_exported_function"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_loaded_symbol_as_bound),
        cmocka_unit_test(test_absent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
