/*
 * loader/semantic.h - what the generated adapters (generator/semantic.py, templates/_semantic.j2,
 * templates/_releases.j2) share: a refusal for the arguments given, the refusal of a record that sets
 * what the older release cannot carry, and the tests and writes of their conditions. Layer 4:
 * includes error.h (2) and releases.h (3).
 */
#ifndef CUBIND_LOADER_SEMANTIC_H
#define CUBIND_LOADER_SEMANTIC_H

#include <stddef.h>

#include "error.h"
#include "releases.h"

/* Record that `function` is not called with these arguments: lib is called as CUDA `release`
 * through `entry`, which cannot do what the newest form asks for them (`why`); nothing was
 * called or written. Returns the library's missing-symbol status, marked as reported (so the
 * wrapper does not record the status over it). */
int cubind__semantic_refuse(cubind_library library, const char *function, const char *release, const char *entry,
                            const char *why);

/* No silent drop: 0 when no part of `record` (the newest layout, NULL: none) that `table`'s older
 * layout cannot carry is set (cubind__record_not_carried); else the call of `function` is refused as
 * cubind__semantic_refuse does, naming the part ("poolProps->usage is set, which CUDA 12.4's struct
 * cudaMemPoolProps does not have"), `*status` is the status it returns, and 1 is returned. `param`:
 * the parameter pointing to `record`. */
int cubind__record_refused(cubind_library library, const char *function, const char *release, const char *entry,
                           const char *param, const void *record, const cubind__record_conversion *table,
                           int *status);

/* 1 when `count` elements of `size` bytes at `p` are all zero bytes (an edge's default data). */
int cubind__semantic_zero(const void *p, size_t count, size_t size);

/* Sets `count` elements of `size` bytes at `p` to zero. */
void cubind__semantic_clear(void *p, size_t count, size_t size);

#endif /* CUBIND_LOADER_SEMANTIC_H */
