/*
 * loader/not_callable.h - the record of a call that cannot be made in the library loaded: its
 * symbol is missing, or the release it is called as cannot make it. Layer 4: includes tables.h
 * (0), opened.h (2) and releases.h (3).
 */
#ifndef CUBIND_LOADER_NOT_CALLABLE_H
#define CUBIND_LOADER_NOT_CALLABLE_H

#include <stddef.h>

#include "opened.h"
#include "releases.h"
#include "tables.h"

/* Record why function `index` of `library` (`lib`, called as release `release`) is not called: what
 * cubind__resolve_in_release answered in `r` (no reason: its symbol is missing). */
void cubind__record_not_callable(cubind_library library, size_t index, const cubind__resolution *r,
                                 const cubind__opened *lib, int release);

#endif /* CUBIND_LOADER_NOT_CALLABLE_H */
