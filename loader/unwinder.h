/*
 * loader/unwinder.h - the walk of the calling thread's stack, with libgcc_s's unwinder, looked up
 * at run time (a program that never needs it does not load libgcc_s at start-up). Layer 1:
 * includes uncancelled.h (0).
 */
#ifndef CUBIND_LOADER_UNWINDER_H
#define CUBIND_LOADER_UNWINDER_H

#include <stdint.h>

/* How a walk ended. */
enum {
    CUBIND__WALK_NO_UNWINDER = -1, /* none found: nothing walked */
    CUBIND__WALK_STOPPED = 0,      /* `visit` stopped it */
    CUBIND__WALK_END = 1,          /* the whole stack walked */
    CUBIND__WALK_CUT = 2           /* the unwinder could go no further (a frame without unwind tables) */
};

/* Find the unwinder, once: among the objects loaded (the global scope), else by loading
 * libgcc_s.so.1. It may wait for the dynamic loader's lock (dlsym, dlopen): call it only where no
 * thread can hold that lock while waiting for this one, before the walks that need it. 1 when
 * there is one. */
int cubind__unwinder_find(void);

/* Walk the calling thread's stack, innermost frame first: `visit` gets each frame's instruction
 * address (in a caller's frame, its return address, just past the call) and stops the walk by
 * returning nonzero. Only the unwinder found before is used, so a walk never waits for a lock of
 * the dynamic loader (libgcc's unwinder finds its tables with _dl_find_object or dl_iterate_phdr,
 * which a dlopen in progress does not hold). */
int cubind__stack_walk(int (*visit)(uintptr_t address, void *data), void *data);

/* The start of the function holding `address` (the unwinder's tables), or 0. */
uintptr_t cubind__enclosing_function(uintptr_t address);

#endif /* CUBIND_LOADER_UNWINDER_H */
