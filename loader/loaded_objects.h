/*
 * loader/loaded_objects.h - which of a library's sonames the process has loaded, and which loaded
 * object needs each. Layer 2: includes tables.h (0).
 */
#ifndef CUBIND_LOADER_LOADED_OBJECTS_H
#define CUBIND_LOADER_LOADED_OBJECTS_H

#include "tables.h"

#define CUBIND__NEEDED_BY 4

/* What one walk of the loaded objects (cubind__walk_loaded) found for a library. */
typedef struct cubind__loaded {
    unsigned long long sonames; /* bit i: sonames[i] names a loaded object (those past 64: always asked) */
    /* for sonames[i], i < CUBIND__NEEDED_BY: the name of a loaded object whose DT_NEEDED lists it ("" for
     * the program), NULL when none does (it was loaded by a dlopen). The system's own string: valid while
     * that object stays loaded, so copy it before the walk's caller lets other threads dlclose. */
    const char *needed_by[4];
} cubind__loaded;

/* One walk of the loaded objects (cubind__objects_each): which of d's sonames name a loaded object,
 * by its soname or the file name it was loaded by, and which object needs each. */
void cubind__walk_loaded(const cubind__library_desc *d, cubind__loaded *out);

#endif /* CUBIND_LOADER_LOADED_OBJECTS_H */
