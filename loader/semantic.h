/*
 * loader/semantic.h - what the generated semantic adapters (generator/semantic.py,
 * templates/_semantic.j2) share: a refusal for the arguments given, and the tests and writes of
 * their conditions. Layer 3: includes error.h (2).
 */
#ifndef CUBIND_LOADER_SEMANTIC_H
#define CUBIND_LOADER_SEMANTIC_H

#include <stddef.h>

#include "error.h"

/* Record that `function` is not called with these arguments: lib is called as CUDA `release`
 * through `entry`, which cannot do what the newest form asks for them (`why`); nothing was
 * called or written. Returns the library's missing-symbol status, marked as reported (so the
 * wrapper does not record the status over it). */
int cubind__semantic_refuse(cubind_library library, const char *function, const char *release, const char *entry,
                            const char *why);

/* 1 when `count` elements of `size` bytes at `p` are all zero bytes (an edge's default data). */
int cubind__semantic_zero(const void *p, size_t count, size_t size);

/* Sets `count` elements of `size` bytes at `p` to zero. */
void cubind__semantic_clear(void *p, size_t count, size_t size);

#endif /* CUBIND_LOADER_SEMANTIC_H */
