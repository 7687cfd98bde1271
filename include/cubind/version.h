/*
 * cubind/version.h - cubind's own version: the one place it is written.
 *
 * The Makefile reads these three numbers: the shared library is
 * libcubind.so.MAJOR.MINOR.PATCH with soname libcubind.so.MAJOR, and
 * cubind_version() returns CUBIND_RELEASE_STRING. MAJOR changes when the
 * exported ABI (abi/symbols.txt, abi/layout.txt) loses or changes anything;
 * MINOR when it only grows; PATCH otherwise. While MAJOR is 0 the ABI may
 * still change between minor versions (the soname says so).
 */
#ifndef CUBIND_VERSION_H
#define CUBIND_VERSION_H

/* A system header, as every cubind header (cubind/platform.h says why). */
#if (defined(__GNUC__) || defined(__clang__)) && __INCLUDE_LEVEL__ > 0 && !defined(CUBIND_HEADER_WARNINGS)
#pragma GCC system_header
#endif

#define CUBIND_VERSION_MAJOR 0
#define CUBIND_VERSION_MINOR 5
#define CUBIND_VERSION_PATCH 0

#define CUBIND_VERSION_STR_(x) #x
#define CUBIND_VERSION_STR(x) CUBIND_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH", what cubind_version() returns for the library that was built with this header. */
#define CUBIND_RELEASE_STRING \
    CUBIND_VERSION_STR(CUBIND_VERSION_MAJOR) "." CUBIND_VERSION_STR(CUBIND_VERSION_MINOR) "." \
    CUBIND_VERSION_STR(CUBIND_VERSION_PATCH)
/* MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons. */
#define CUBIND_VERSION_NUMBER (CUBIND_VERSION_MAJOR * 10000 + CUBIND_VERSION_MINOR * 100 + CUBIND_VERSION_PATCH)

#endif /* CUBIND_VERSION_H */
