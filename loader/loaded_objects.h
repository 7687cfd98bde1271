/*
 * loader/loaded_objects.h - what the process has loaded: the main namespace's link maps, the
 * DT_SONAME of a loaded object, which of a library's sonames are loaded, and cubind's own link
 * map. Layer 2: includes internal.h (0).
 */
#ifndef CUBIND_LOADER_LOADED_OBJECTS_H
#define CUBIND_LOADER_LOADED_OBJECTS_H

#include <link.h>
#include <stdint.h>

#include "internal.h"

/* The first link map of the main namespace (the program's own), or NULL only if the dynamic
 * loader cannot say. Asked once. Its l_next list may be followed only inside a dl_iterate_phdr
 * callback (which holds the loader's lock), where dlopen must not be called. */
struct link_map *cubind__main_map(void);

/* The DT_SONAME of a loaded object from its dynamic section `dyn` (`base`: its load address),
 * or NULL. */
const char *cubind__dynamic_soname(const ElfW(Dyn) *dyn, uintptr_t base);

#define CUBIND__NEEDED_BY 4

/* What one walk of the loaded objects (cubind__walk_loaded) found for a library. */
typedef struct cubind__loaded {
    unsigned long long sonames; /* bit i: sonames[i] names a loaded object (those past 64: always asked) */
    /* for sonames[i], i < CUBIND__NEEDED_BY: the name of a loaded object whose DT_NEEDED lists it ("" for
     * the program), NULL when none does (it was loaded by a dlopen). The link map's own string: valid while
     * that object stays loaded, so copy it before the walk's caller lets other threads dlclose. */
    const char *needed_by[4];
    struct link_map *self;      /* cubind's own link map, NULL when the walk could not tell */
} cubind__loaded;

/* One walk of the loaded objects (dl_iterate_phdr): which of d's sonames name a loaded object, by
 * its DT_SONAME or the file name it was loaded by; and cubind's own link map in the main
 * namespace (a dlopen from cubind searches cubind's rpath, not the program's runpath). */
void cubind__walk_loaded(const cubind__library_desc *d, cubind__loaded *out);

/* cubind's own link map: the walk's, or, where the walk cannot tell (cubind loaded in another
 * namespace), dladdr1's; NULL when neither can. */
void *cubind__own_map(const cubind__loaded *loaded);

#endif /* CUBIND_LOADER_LOADED_OBJECTS_H */
