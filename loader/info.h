/*
 * loader/info.h - what info.c tells of a loaded library besides the public cubind_library_info:
 * why it is called as a release its version does not say, and how it mixes releases with the
 * libraries it is used with; checks.c (9) gives them verdicts. Layer 8: includes library.h (7)
 * and strbuf.h (1).
 */
#ifndef CUBIND_LOADER_INFO_H
#define CUBIND_LOADER_INFO_H

#include "library.h"
#include "strbuf.h"

/* Appends to `text` how the loaded `library` and the coupled libraries loaded beside it mix CUDA
 * releases ("libcublas is of CUDA 13.0 but libcublasLt (...) of CUDA 12.4"); returns how many do. */
int cubind__coupled_mix(cubind_library library, cubind__strbuf *text);

/* Appends to `text` why the loaded `library` is called as a release its version query does not
 * say: a version that contradicts its soname, or a major newer than every release let in by
 * CUBIND_ALLOW_NEWER_MAJOR; returns 1 when it did. */
int cubind__version_note(cubind_library library, cubind__strbuf *text);

#endif /* CUBIND_LOADER_INFO_H */
