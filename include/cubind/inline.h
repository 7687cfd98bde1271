/*
 * cubind/inline.h - what the inline form of the wrappers needs; every module header includes it.
 *
 * Define CUBIND_INLINE before including cubind's headers (GCC or clang, C or C++) and each call
 * `cubind_cublas_sgemm(...)` compiles, through a function-like macro, into the caller as the
 * wrapper's hot path: one load of the function's slot (libcubind's cache of the resolved
 * symbol), one test, the call, then the status test. Everything else goes to libcubind as
 * before: the first call of a function, a function that cannot be called and every call while
 * tracing go to the out-of-line wrapper (the cached symbol stays NULL while tracing), and a
 * status other than success is recorded by cubind_status_error, as the wrapper records it. The
 * result, the error record and the handler's call are the same in both forms.
 *
 * The out-of-line wrapper stays reachable by its own name: `(cubind_cublas_sgemm)(...)` or its
 * address (the macro expands only when the name is followed by a parenthesis), and each inline
 * function is also callable as `cubind_cublas_sgemm_inline(...)`.
 *
 * The inline form ties a program to the slot layout of the headers it was built with: each
 * library's slots are exported under a name that ends in a digest of that layout
 * (cubind_cublas_slots_<digest>), so a libcubind with another layout fails to load the program
 * (undefined symbol) rather than calling a wrong function. Without CUBIND_INLINE a program
 * depends on the wrappers' names only. FFIs bind the out-of-line wrappers.
 */
#ifndef CUBIND_INLINE_H
#define CUBIND_INLINE_H

/* A system header, as every cubind header (cubind/platform.h says why). */
#if (defined(__GNUC__) || defined(__clang__)) && __INCLUDE_LEVEL__ > 0 && !defined(CUBIND_HEADER_WARNINGS)
#pragma GCC system_header
#endif

#include "cubind/platform.h"
#include "cubind/libraries.h"

CUBIND_EXTERN_C_BEGIN

/* A slot: the resolved address of a function of a CUDA library, NULL while not cached.
 * libcubind writes it (atomically); the inline form only reads it, with acquire order. */
typedef void (*cubind_slot)(void);

/**
 * cubind_status_error - record that the function with slot `index` of `library` returned the
 * non-success `status`, exactly as its out-of-line wrapper does (cubind_last_error, the error
 * handler), for the inline form (CUBIND_INLINE).
 * @param library the library whose function failed
 * @param index the function's index in that library's slots (the generated inline functions pass it)
 * @param status the status it returned
 * @return `status`, unchanged; when `library` or `index` names no function, nothing is recorded
 *         but a CUBIND_ERROR_INVALID_ARGUMENT error. A status the library documents as
 *         informational (cudaErrorNotReady, ...: docs/errors.md) is not recorded either.
 */
CUBIND_API int cubind_status_error(cubind_library library, unsigned index, int status);

/**
 * cubind_status_error_detail - cubind_status_error for a library whose status is a record (cuFile's
 * CUfileError_t { err; cu_err; }): `status` is the record's status member (err), `detail` its
 * second member (cu_err), which the error's message names when the status is the one it tells
 * more of (CU_FILE_CUDA_DRIVER_ERROR: the CUDA driver's CUresult). Since 0.5.
 * @param library the library whose function failed
 * @param index the function's index in that library's slots (the generated inline functions pass it)
 * @param status the status member of the record it returned
 * @param detail the record's second member
 * @return `status`, unchanged; for a library whose status is no record, as cubind_status_error.
 */
CUBIND_API int cubind_status_error_detail(cubind_library library, unsigned index, int status, int detail);

#if defined(CUBIND_INLINE)
/* Whether calls of wrappers NVIDIA deprecates take the inline form too. Not with g++ while their
 * deprecation is reported: g++ does not report a deprecated function called through a macro
 * defined in a system header (cubind's headers are, cubind/platform.h), so such a call stays a
 * call of the out-of-line wrapper, where it is reported. */
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) && !defined(CUBIND_NO_DEPRECATION_WARNINGS)
#define CUBIND_INLINE_DEPRECATED 0
#else
#define CUBIND_INLINE_DEPRECATED 1
#endif
#if defined(__GNUC__) || defined(__clang__)
#define CUBIND_SLOT_LOAD(slots, index) __atomic_load_n(&(slots)[index], __ATOMIC_ACQUIRE)
#define CUBIND_INLINE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#error "CUBIND_INLINE needs GCC or clang (their __atomic builtins); leave it undefined"
#endif
#endif

CUBIND_EXTERN_C_END

#endif /* CUBIND_INLINE_H */
