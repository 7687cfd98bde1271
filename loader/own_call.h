/*
 * loader/own_call.h - a library's own call: one its own code makes, found on the calling thread's
 * stack. Layer 3: includes tables.h (0).
 *
 * A library not linked -Bsymbolic (NVML, NCCL) calls its own exports through the global scope,
 * where the drop-in's forwarders come first (docs/dropin.md): such a call comes back to cubind,
 * also while cubind is still loading that library, from its constructors (inside dlopen) or its
 * version query and init, on the loading thread or on a thread the library started and waits for.
 * Waiting for the load there never ends, and failing the call is not what the library would get
 * without the drop-in. What tells such a call from a program's call that arrives during the load
 * (which must wait: the library is not ready for it) is the caller: a frame of the library's own
 * code on the stack.
 */
#ifndef CUBIND_LOADER_OWN_CALL_H
#define CUBIND_LOADER_OWN_CALL_H

#include "tables.h"

/* When a frame of the calling thread's stack is in an object of d's soname family (the innermost
 * such frame), the definition of `symbol` in that object, as the dynamic loader would have bound
 * the object's own reference without the drop-in; else NULL (no such frame, the object does not
 * define it, or no unwinder was found: cubind__unwinder_find). Never waits for a lock: neither
 * cubind's nor the dynamic loader's, which a thread inside dlopen holds. */
cubind__fnptr cubind__own_call(const cubind__library_desc *desc, const char *symbol);

#endif /* CUBIND_LOADER_OWN_CALL_H */
