/*
 * loader/own_call.c - a library's own call, told by a frame of its code on the calling thread's
 * stack, and the definition it reaches (see own_call.h). The objects of the library's family are
 * listed (cubind__objects_each), the stack is walked with the unwinder found before, and the symbol
 * is read from the object's own tables (cubind__object_symbol): none of them takes the dynamic
 * loader's lock, which dlsym and dladdr take (a thread started by a constructor would wait in them
 * for ever). Layer 3: calls family (2) and the platform seam (0).
 */
#include "own_call.h"

#include <string.h>

#include "family.h"
#include "platform.h"

#define OBJECTS_MAX 4  /* copies of one library loaded at once: one, two while a file is refused */

struct search {
    const cubind__library_desc *d;
    size_t count;
    cubind__object object[OBJECTS_MAX];
    const cubind__object *caller; /* the one holding the innermost frame found */
};

/* Keep each object of d's family (by its soname). */
static int family_object(const cubind__object *object, void *data)
{
    struct search *search = data;
    if (object->soname == NULL || !cubind__soname_in_family(search->d, object->soname))
        return 0;
    search->object[search->count++] = *object;
    return search->count == OBJECTS_MAX;
}

/* Stack walk callback: stop at the first frame in one of the objects' code. `address` is a return
 * address in every frame but the innermost (cubind's own): the call is the byte before it. */
static int in_family(uintptr_t address, void *data)
{
    struct search *search = data;
    size_t i, j;
    for (i = 0; i < search->count; ++i)
        for (j = 0; j < search->object[i].segment_count; ++j)
            if (search->object[i].segment[j].executable &&
                address - 1 - search->object[i].segment[j].start < search->object[i].segment[j].size) {
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
    cubind__objects_each(family_object, &search);
    if (search.count == 0 || cubind__stack_walk(in_family, &search) != CUBIND__WALK_STOPPED)
        return NULL;
    address = cubind__object_symbol(search.caller, symbol);
    if (address == NULL)
        return NULL;
    memcpy(&fn, &address, sizeof fn);
    return fn;
}
