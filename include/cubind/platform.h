/*
 * cubind/platform.h - compiler glue shared by every cubind header.
 *
 * Visibility of the API, deprecation attributes and explicit alignment, spelled
 * for C11 and C++11 alike so the headers compile in both.
 */
#ifndef CUBIND_PLATFORM_H
#define CUBIND_PLATFORM_H

/* A system header, as every cubind header: no warning of it, nor of the NVIDIA headers it
 * includes, reaches the program, whatever the program's flags and however the header was found
 * (-I, -isystem); the program's own misuse (a call of a deprecated wrapper, a wrong argument)
 * still warns where it is. Define CUBIND_HEADER_WARNINGS to have the compiler check cubind's
 * headers as the program's own code (cubind's `make test-headers` does). */
#if (defined(__GNUC__) || defined(__clang__)) && __INCLUDE_LEVEL__ > 0 && !defined(CUBIND_HEADER_WARNINGS)
#pragma GCC system_header
#endif

/* CUBIND_API marks every function and object of cubind's API. Define it before the first
 * include to choose yourself; otherwise:
 *   - compiled into an embedding (CUBIND_EMBEDDED defined: libcubind.a, the amalgamation, the
 *     CMake subdirectory define it for cubind's own sources), hidden: a shared library that
 *     links cubind in exports none of its symbols, with no flag of its own, and two libraries
 *     that each embed a copy never bind to each other's;
 *   - anything else (libcubind.so, a program or library that calls cubind), default: the
 *     shared library exports the API (abi/libcubind.map), and a caller's declarations refer to
 *     whichever definition it is linked with (an embedded one stays hidden). */
#if !defined(CUBIND_API)
#if (defined(__GNUC__) || defined(__clang__)) && defined(CUBIND_EMBEDDED)
#define CUBIND_API __attribute__((visibility("hidden")))
#elif defined(__GNUC__) || defined(__clang__)
#define CUBIND_API __attribute__((visibility("default")))
#else
#define CUBIND_API
#endif
#endif

/* Wrappers of functions NVIDIA marks deprecated carry the same mark and message;
 * define CUBIND_NO_DEPRECATION_WARNINGS to drop it. */
#if defined(CUBIND_NO_DEPRECATION_WARNINGS)
#define CUBIND_DEPRECATED(message)
#elif defined(__GNUC__) || defined(__clang__)
#define CUBIND_DEPRECATED(message) __attribute__((deprecated(message)))
#else
#define CUBIND_DEPRECATED(message)
#endif

#if defined(__cplusplus)
#define CUBIND_ALIGNAS(bytes) alignas(bytes)
#else
#define CUBIND_ALIGNAS(bytes) _Alignas(bytes)
#endif

/* Whether an NVIDIA header is on the include path. cubind's headers include NVIDIA's header instead
 * of repeating its declarations when it and every NVIDIA header it includes are there (and none of
 * their modules' CUBIND_SELF_CONTAINED_<MODULE> is defined), so cubind's headers and NVIDIA's
 * compile together in either order, and with a toolkit that lacks some headers; otherwise they use
 * their own copies. Define CUBIND_SELF_CONTAINED to use cubind's copies always (they are the same:
 * `make test-abi` checks it). Where the compiler cannot tell (no __has_include), cubind's copies,
 * unless CUBIND_USE_CUDA_HEADERS asks for NVIDIA's headers: they are then taken to be there, but for
 * the modules whose CUBIND_SELF_CONTAINED_<MODULE> is defined. A program may define
 * CUBIND_HAS_INCLUDE(header) itself, before the first include, to answer instead (docs/headers.md). */
#if !defined(CUBIND_HAS_INCLUDE)
#if defined(__has_include) && !defined(CUBIND_SELF_CONTAINED)
#define CUBIND_HAS_INCLUDE(header) __has_include(header)
#elif defined(CUBIND_USE_CUDA_HEADERS) && !defined(CUBIND_SELF_CONTAINED)
#define CUBIND_HAS_INCLUDE(header) 1
#else
#define CUBIND_HAS_INCLUDE(header) 0
#endif
#endif

#if defined(__cplusplus)
#define CUBIND_EXTERN_C_BEGIN extern "C" {
#define CUBIND_EXTERN_C_END }
#else
#define CUBIND_EXTERN_C_BEGIN
#define CUBIND_EXTERN_C_END
#endif

#endif /* CUBIND_PLATFORM_H */
