/*
 * loader/own_call.c - a library's own call, told by a frame of its code on the calling thread's
 * stack, and the definition it reaches (see own_call.h). The objects of the library's family are
 * listed with dl_iterate_phdr, the stack is walked with the unwinder found before, and the symbol
 * is read from the object's own tables: none of them takes the dynamic loader's lock, which dlsym
 * and dladdr take (a thread started by a constructor would wait in them for ever).
 * Layer 3: calls unwinder (1), elf_symbol (1), family (2) and loaded_objects (2).
 */
#define _GNU_SOURCE
#include "own_call.h"

#include <link.h>
#include <string.h>

#include "elf_symbol.h"
#include "family.h"
#include "loaded_objects.h"
#include "unwinder.h"

#define OBJECTS_MAX 4  /* copies of one library loaded at once: one, two while a file is refused */
#define SEGMENTS_MAX 8 /* executable segments of one object: one or two */

/* A loaded object of the library's family: where its code is, and its dynamic section. */
struct object {
    uintptr_t base;
    const ElfW(Dyn) *dynamic;
    size_t segments;
    struct {
        uintptr_t start, size;
    } segment[SEGMENTS_MAX];
};

struct search {
    const cubind__library_desc *d;
    size_t count;
    struct object object[OBJECTS_MAX];
    const struct object *caller; /* the one holding the innermost frame found */
};

/* dl_iterate_phdr callback: keep each object of d's family (by its DT_SONAME). */
static int family_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct search *search = data;
    const ElfW(Dyn) *dynamic = NULL;
    const char *soname;
    struct object *o;
    size_t i;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    soname = dynamic != NULL ? cubind__dynamic_soname(dynamic, info->dlpi_addr) : NULL;
    if (soname == NULL || !cubind__soname_in_family(search->d, soname))
        return 0;
    o = &search->object[search->count++];
    o->base = info->dlpi_addr;
    o->dynamic = dynamic;
    o->segments = 0;
    for (i = 0; i < info->dlpi_phnum && o->segments < SEGMENTS_MAX; ++i)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
            o->segment[o->segments].start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            o->segment[o->segments].size = info->dlpi_phdr[i].p_memsz;
            o->segments++;
        }
    return search->count == OBJECTS_MAX;
}

/* Stack walk callback: stop at the first frame in one of the objects. `address` is a return
 * address in every frame but the innermost (cubind's own): the call is the byte before it. */
static int in_family(uintptr_t address, void *data)
{
    struct search *search = data;
    size_t i, j;
    for (i = 0; i < search->count; ++i)
        for (j = 0; j < search->object[i].segments; ++j)
            if (address - 1 - search->object[i].segment[j].start < search->object[i].segment[j].size) {
                search->caller = &search->object[i];
                return 1;
            }
    return 0;
}

cubind__fnptr cubind__own_call(const cubind__library_desc *d, const char *symbol)
{
    struct search search;
    void *address;
    cubind__fnptr fn;
    search.d = d;
    search.count = 0;
    search.caller = NULL;
    dl_iterate_phdr(family_object, &search);
    if (search.count == 0 || cubind__stack_walk(in_family, &search) != CUBIND__WALK_STOPPED)
        return NULL;
    address = cubind__elf_symbol(search.caller->base, search.caller->dynamic, symbol);
    if (address == NULL)
        return NULL;
    memcpy(&fn, &address, sizeof fn);
    return fn;
}
