/*
 * loader/loaded_objects.c - the walk of the objects the process has loaded for one library's
 * sonames (see loaded_objects.h), read through the platform seam, never changed. Layer 2: calls the
 * platform seam (0) and libc only.
 */
#include "loaded_objects.h"

#include <string.h>

#include "platform.h"

struct walk {
    const cubind__library_desc *d;
    cubind__loaded *out;
};

static int walk_object(const cubind__object *object, void *data)
{
    struct walk *walk = data;
    const char *base = strrchr(object->name, '/');
    size_t i;
    base = base != NULL ? base + 1 : object->name;
    for (i = 0; i < walk->d->soname_count && i < 64; ++i)
        if ((object->soname != NULL && strcmp(object->soname, walk->d->sonames[i]) == 0) ||
            strcmp(base, walk->d->sonames[i]) == 0)
            walk->out->sonames |= 1ull << i;
    /* the first object found that needs one is kept (the program is shown first, then in load order) */
    for (i = 0; i < walk->d->soname_count && i < CUBIND__NEEDED_BY; ++i)
        if (walk->out->needed_by[i] == NULL && cubind__object_needs(object, walk->d->sonames[i]))
            walk->out->needed_by[i] = object->name;
    return 0;
}

void cubind__walk_loaded(const cubind__library_desc *d, cubind__loaded *out)
{
    struct walk walk;
    size_t i;
    out->sonames = 0;
    for (i = 0; i < CUBIND__NEEDED_BY; ++i)
        out->needed_by[i] = NULL;
    walk.d = d;
    walk.out = out;
    cubind__objects_each(walk_object, &walk);
}
