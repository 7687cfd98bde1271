/*
 * cubind/core.h - cubind's core API: libraries, errors, the loader, versions. Every module
 * header (cubind/cufft.h, ...) includes it, so a program may include one module header alone;
 * cubind/cubind.h adds every module header to it.
 *
 * Nothing is loaded at start-up. A library is opened on the first call into it
 * (or by cubind_load), once, thread-safely; each symbol is resolved on its
 * first call and cached. Discovery order, first hit wins, absolute paths only:
 *   1. a path or dlopen handle given by cubind_set_library_path/handle;
 *   2. the environment variable CUBIND_<LIB>_PATH (full path of the .so);
 *   3. a copy already loaded in the process (newest soname first; the loaded objects are
 *      walked, so a soname not loaded costs no search of the file system); then the folder of
 *      a library it is used with that cubind loaded (cuBLAS's for cuBLASLt: one release);
 *   4. the system loader's search by soname, newest major first, done by cubind so that
 *      each file is checked before dlopen: the dynamic loader's search path (LD_LIBRARY_PATH,
 *      rpath; empty and relative entries, the working directory, are skipped), the ld.so
 *      cache (/etc/ld.so.cache, or the file $CUBIND_LD_SO_CACHE names; empty: none), the
 *      system directories;
 *   5. $CUDA_PATH, $CUDA_HOME, $CONDA_PREFIX, /usr/local/cuda, each with
 *      lib64, lib and targets/<arch>/lib.
 * A failed explicit choice (1 or 2) is an error, never a reason to fall back.
 * Every file is checked before dlopen (a regular file; an ELF file of this process's class
 * and machine, not cut short; a DT_SONAME of the library's soname family, so libcublasLt.so.13
 * is refused as libcublas and a file without DT_SONAME is refused) and recorded by an absolute path.
 * In a set-user-ID or set-group-ID program (AT_SECURE) the environment variables
 * (CUBIND_<LIB>_PATH, CUDA_PATH, CUDA_HOME, CONDA_PREFIX, CUBIND_LD_SO_CACHE) are ignored
 * (secure_getenv), and so is LD_LIBRARY_PATH (by the dynamic loader).
 *
 * Tracing: CUBIND_TRACE=1 logs every wrapper call, one line each (thread id, library, C API
 * function, arguments, status name or returned value, duration in microseconds);
 * CUBIND_TRACE=cublas,cufft only the calls into those libraries (cubind_library_name's names);
 * CUBIND_TRACE=errors only failing calls (combinable: cublas,errors). Lines go to stderr, or to
 * the file CUBIND_TRACE_FILE names (opened once, appending); each is one write(), so threads'
 * lines never interleave. Both are read once, at the first wrapper call (secure_getenv too).
 * Off, tracing costs a wrapper nothing: while it is on, cubind never caches the symbols a
 * wrapper's hot path reads, so every call takes the wrapper's slow path, which traces.
 */
#ifndef CUBIND_CORE_H
#define CUBIND_CORE_H

/* A system header, as every cubind header (cubind/platform.h says why). */
#if (defined(__GNUC__) || defined(__clang__)) && __INCLUDE_LEVEL__ > 0 && !defined(CUBIND_HEADER_WARNINGS)
#pragma GCC system_header
#endif

/* size_t, and none of <stddef.h>'s other names: a module header brings in no more of the C library
 * than NVIDIA's does (nvml.h includes no C header at all). C11 and C++ allow the same typedef twice. */
#if defined(__SIZE_TYPE__)
typedef __SIZE_TYPE__ size_t;
#else
#include <stddef.h>
#endif

#include "cubind/platform.h"
#include "cubind/version.h"
#include "cubind/libraries.h"

CUBIND_EXTERN_C_BEGIN

/* What went wrong in the last failed cubind call of this thread. */
typedef enum cubind_error_kind {
    CUBIND_OK = 0,                      /* no error */
    CUBIND_ERROR_STATUS = 1,            /* the CUDA library returned a failure: neither success nor
                                           an informational status (docs/errors.md) */
    CUBIND_ERROR_LIBRARY_NOT_FOUND = 2, /* the shared library could not be found or opened */
    CUBIND_ERROR_SYMBOL_NOT_FOUND = 3,  /* the loaded library does not export the function */
    CUBIND_ERROR_INVALID_ARGUMENT = 4,  /* a cubind function was given an unusable argument */
    CUBIND_ERROR_ALREADY_LOADED = 5     /* the library is already loaded; its source can no longer change */
} cubind_error_kind;

/* Size of cubind_error.message, terminating NUL included; longer messages are cut. */
#define CUBIND_ERROR_MESSAGE_MAX 4096

/* The thread-local error record. Strings are never NULL (empty when not applicable). `message`
 * holds printable UTF-8 only: control characters and bytes that are not valid UTF-8 (of a path,
 * say) are written as \xNN. */
typedef struct cubind_error {
    cubind_error_kind kind;
    cubind_library library;  /* CUBIND_LIB_NONE when no library is involved */
    int status;              /* the native status (CUBIND_ERROR_STATUS) or the status the wrapper returned
                                (LIBRARY_NOT_FOUND, SYMBOL_NOT_FOUND); 0 for the other kinds */
    const char *library_name; /* "cublas", ... */
    const char *function;     /* the C API name the caller used, e.g. "cublasSgemm" */
    const char *status_name;  /* e.g. "CUBLAS_STATUS_NOT_INITIALIZED"; "" when `status` is 0 for the kind */
    char message[CUBIND_ERROR_MESSAGE_MAX]; /* one human-readable sentence with every detail */
} cubind_error;

/*
 * Called, on the failing thread, after every error is recorded (statuses other than
 * success included, but not the statuses a library documents as informational, such as
 * cudaErrorNotReady: those are returned and neither recorded nor handled; docs/errors.md).
 * `error` is the thread's record, valid during the call; errors the handler
 * causes do not change it (they go to a spare record, which cubind_last_error returns until the
 * handler returns and which then becomes the thread's record). No cubind lock is held:
 * the handler may
 *   - call back into cubind (any function; errors it causes are recorded but do not call
 *     the handler again while it runs);
 *   - leave by longjmp/siglongjmp to a point outside the cubind call, or, from C++, by
 *     throwing (the exception crosses cubind's C frames: they have unwind tables). cubind
 *     holds no lock and no memory of its own while the handler runs, so nothing leaks or
 *     stays locked, and the next error calls the handler again (whether a handler call is
 *     still running is told by walking the stack, not by a flag a longjmp would leave set).
 *     What the failing wrapper would have returned is lost.
 * A handler called from inside a library's constructor (a library that calls cubind while
 * cubind loads it) must return normally: leaving it would leave dlopen half done.
 */
typedef void (*cubind_error_handler)(const cubind_error *error, void *user);

/* Where the version of a loaded library (struct cubind_library_info) comes from. */
typedef enum cubind_version_origin {
    CUBIND_VERSION_ORIGIN_NONE = 0,      /* no version: the library is not loaded, or neither its version
                                            query nor its file name tells one */
    CUBIND_VERSION_ORIGIN_QUERY = 1,     /* asked of the library itself: version_detail names the function
                                            ("cublasGetProperty") */
    CUBIND_VERSION_ORIGIN_FILE_NAME = 2  /* read from its file name ("libcusolverMg.so.12.0.4.66", with symbolic
                                            links resolved; version_detail): the library has no version query,
                                            does not export it, or the query failed (version_source says which) */
} cubind_version_origin;

/* What cubind knows of one library; see cubind_library_info. Strings stay valid while this copy
 * of cubind is loaded: for libcubind.so, the life of the process (libraries are never unloaded);
 * for a copy embedded in a library that is closed (dlclose), until then.
 * Extensible: set `size` to sizeof(struct cubind_library_info) before the call. cubind
 * writes no more than `size` bytes (so a program built against this header keeps working
 * with a later libcubind whose struct has more members at the end) and sets `size` to the
 * number of bytes it filled (less than yours when libcubind is older than your header). */
struct cubind_library_info {
    size_t size;               /* in: sizeof(struct cubind_library_info); out: bytes filled */
    cubind_library library;
    const char *name;          /* "cublas", "cublasLt", ... */
    int found;                 /* 1 when the library is loaded */
    const char *found_by;      /* the discovery step that found it: "cubind_set_library_path",
                                  "cubind_set_library_handle", "CUBIND_<LIB>_PATH", "already loaded",
                                  "beside a library it is used with", "system loader", or the directory variable ("CUDA_PATH", ...,
                                  "/usr/local/cuda") */
    const char *path;          /* the path it was loaded from (NULL if not found) */
    const char *real_path;     /* that path with symbolic links resolved */
    const char *soname;        /* its DT_SONAME, e.g. "libcublas.so.13" */
    int version_major;         /* -1 when unknown */
    int version_minor;         /* -1 when unknown */
    int version_patch;         /* -1 when unknown */
    const char *version_source; /* how the version was obtained, in words: "cublasGetProperty", or "file name
                                   libcudart.so.11.8.89 (cudaRuntimeGetVersion failed with ...)"; NULL when not
                                   loaded. A program tells the ways apart by version_origin (since 0.4) */
    size_t functions;          /* wrappers cubind has for this library */
    size_t functions_found;    /* of those, symbols the loaded library exports */
    size_t functions_missing;  /* functions - functions_found (all of them when not found) */
    const char *const *missing; /* C API names of the missing functions (functions_missing of them) */
    const char *error;         /* why the library was not found (NULL if found); printable UTF-8.
                                  Each distinct text is kept once: retries do not grow memory */
    /* Since 0.3: */
    const char *release;       /* the CUDA release whose ABI the loaded library is called with ("12.4":
                                  the newest release the bindings read that is not newer than it);
                                  NULL when not loaded */
    const char *releases;      /* every release the bindings know for it, newest first ("13.0, 12.4, 11.8") */
    const char *release_note;  /* when libraries it is used with (cuBLAS and cuBLASLt; cuSOLVER and the
                                  cuBLAS, cuSPARSE, nvJitLink it needs; NVRTC and nvJitLink) are loaded
                                  from another release: which and why it matters; else NULL */
    /* Since 0.4: */
    cubind_version_origin version_origin; /* where the version comes from: a fixed value */
    const char *version_detail; /* the query function asked ("cublasGetProperty") or the file name the version was
                                   read from ("libcublas.so.13.1.0.3"); NULL for CUBIND_VERSION_ORIGIN_NONE */
    const char *version_text;   /* the known parts of the version: "13.1.0", "13.0" or "12"; NULL when no part is
                                   known (print this rather than the three numbers, of which -1 means unknown) */
    /* Since 0.5: */
    const char *loaded_by;      /* when found_by is "already loaded": who loaded it, "as a DT_NEEDED of <path>"
                                   (or "of the program"), or "by a dlopen (...)" when no loaded object's DT_NEEDED
                                   lists it (a library's own dlopen: 11.8's libcublasLt opens "libnvrtc.so",
                                   whichever NVRTC that finds); NULL otherwise */
};

/*
 * cubind_load - open a library now rather than on its first call.
 * @library  CUBIND_LIB_CUBLAS, ...
 * Returns CUBIND_OK, or CUBIND_ERROR_LIBRARY_NOT_FOUND / CUBIND_ERROR_INVALID_ARGUMENT
 * with the error recorded (message lists every path tried). Repeated calls return the
 * first outcome without trying again.
 */
CUBIND_API cubind_error_kind cubind_load(cubind_library library);

/*
 * cubind_set_library_path - load `library` from this file (discovery step 1).
 * @path  absolute path of the shared object; NULL forgets an earlier choice. The file must be
 *        the library (its DT_SONAME of the library's soname family), checked when it is loaded.
 * Returns CUBIND_OK; CUBIND_ERROR_INVALID_ARGUMENT for a relative path;
 * CUBIND_ERROR_ALREADY_LOADED once the library is loaded (the choice must come first).
 * After a failed load it is accepted and the next call tries again with it.
 */
CUBIND_API cubind_error_kind cubind_set_library_path(cubind_library library, const char *path);

/*
 * cubind_set_library_handle - use a handle the caller got from dlopen (discovery step 1).
 * @handle  a dlopen handle of the library, kept open by the caller; never closed by cubind.
 * Returns as cubind_set_library_path; CUBIND_ERROR_INVALID_ARGUMENT for NULL (RTLD_DEFAULT),
 * RTLD_NEXT, anything that is not the handle of an object loaded in this process's main
 * namespace (dlmopen's other namespaces included), and the handle of another library (its
 * DT_SONAME is not of the library's soname family, or it has none).
 */
CUBIND_API cubind_error_kind cubind_set_library_handle(cubind_library library, void *handle);

/*
 * cubind_library_info - load `library` if needed and describe it in `*info`: path,
 * soname, version asked of the library itself, and which functions resolve.
 * Returns CUBIND_OK when found; otherwise the load error (info->error says why).
 * CUBIND_ERROR_INVALID_ARGUMENT for an unknown library, a NULL `info`, or an info->size
 * smaller than this first layout (0: not set); nothing is written then.
 *     struct cubind_library_info info = {.size = sizeof info};
 *     cubind_library_info(CUBIND_LIB_CUBLAS, &info);
 */
/* The function and the struct share a name, as POSIX's stat() and struct stat do; in C++ the
 * function hides the struct's implicit constructor, which g++ -Wshadow reports at every include. */
#if defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#endif
CUBIND_API cubind_error_kind cubind_library_info(cubind_library library, struct cubind_library_info *info);
#if defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC diagnostic pop
#endif

/*
 * cubind_function_available - whether a function can be called in this process.
 * @name  the C API name ("cublasSgemm"), the exported symbol ("cublasSgemm_v2") or the cubind name
 *        ("cubind_cublas_sgemm").
 * Returns CUBIND_FUNCTION_AVAILABLE (1) when it can be called (its library loads and has it in the
 * release it is called as), else CUBIND_FUNCTION_NOT_AVAILABLE (0): cubind binds it but it cannot be
 * called here (its library is not found, or lacks or refuses it), or cubind binds no function of that
 * name (a misspelling, a function of another library or of a newer CUDA), NULL included. The result is
 * true only when the function can be called, in C and in every FFI (ctypes, cffi, LuaJIT, Julia), so
 * `if (cubind_function_available("cublasSgemmEx_64"))` with a typo takes the "not available" branch.
 * cubind_function_info tells the two cases apart (state CUBIND_FUNCTION_UNKNOWN for a name cubind does
 * not bind) and says why a bound function cannot be called. Records no error.
 * Changed after 0.4.0, which returned CUBIND_FUNCTION_NAME_UNKNOWN (-1, true in every language) for an
 * unknown name: the constant stays, for source and ABI compatibility, and is no longer returned.
 */
typedef enum cubind_availability {
    CUBIND_FUNCTION_NAME_UNKNOWN = -1, /* returned by 0.4.0 alone for an unknown name; never since */
    CUBIND_FUNCTION_NOT_AVAILABLE = 0, /* cannot be called here, or cubind binds no function of that name */
    CUBIND_FUNCTION_AVAILABLE = 1      /* it can be called */
} cubind_availability;
CUBIND_API int cubind_function_available(const char *name);

/* What cubind_function_info says of a function in this process. */
typedef enum cubind_function_state {
    CUBIND_FUNCTION_UNKNOWN = 0,    /* cubind binds no function of that name */
    CUBIND_FUNCTION_CALLABLE = 1,   /* called with its own symbol, or another entry point of the same ABI */
    CUBIND_FUNCTION_ADAPTED = 2,    /* called through a generated adapter that converts a record's layout */
    CUBIND_FUNCTION_MISSING = 3,    /* the loaded library does not have it (not exported, or not in its release) */
    CUBIND_FUNCTION_REFUSED = 4,    /* its release has it with another ABI and no equivalent: never called */
    CUBIND_FUNCTION_NOT_LOADED = 5  /* its library could not be loaded */
} cubind_function_state;

/* See cubind_function_info. Extensible like struct cubind_library_info: set `size` first. */
struct cubind_function_info {
    size_t size;                /* in: sizeof(struct cubind_function_info); out: bytes filled */
    cubind_library library;     /* CUBIND_LIB_NONE for an unknown name */
    const char *name;           /* the C API name, "cudaGraphInstantiate" */
    const char *cubind_name;    /* "cubind_runtime_graph_instantiate" */
    const char *added_in;       /* the oldest CUDA release the bindings read that declares it ("11.8": that
                                   release or an older one; the releases read are in docs/releases.md) */
    const char *changed_in;     /* the releases read where its ABI changed, oldest first ("12.4"); "" none */
    cubind_function_state state; /* in this process; loads its library when needed */
    const char *release;        /* the release its loaded library is called as; NULL when not loaded */
    const char *symbol;         /* the entry point asked of the library ("cudaGetDeviceProperties_v2") */
    const char *reason;         /* why it is adapted, missing, refused or not loaded; NULL when callable */
};

/*
 * cubind_function_info - what cubind knows of a function: the release that added it, those that
 * changed its ABI, and whether it can be called in this process (loading its library if needed).
 * @name  the C API name, the exported symbol or the cubind name.
 * @info  info->size set to sizeof(struct cubind_function_info).
 * Returns CUBIND_OK (info->state says the rest), CUBIND_ERROR_INVALID_ARGUMENT for a NULL info or
 * a size below the first layout (nothing written, error recorded) and for a name cubind does not
 * bind (info->state is CUBIND_FUNCTION_UNKNOWN; no error recorded).
 */
#if defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#endif
CUBIND_API cubind_error_kind cubind_function_info(const char *name, struct cubind_function_info *info);
#if defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC diagnostic pop
#endif

/*
 * cubind_require_release - accept `library` only when it is called as CUDA release major.minor or
 * a newer one (a library is called as the newest release the bindings read that is not newer than
 * it: a 12.6 runtime as 12.5). Every release the bindings know is accepted by default.
 * Returns CUBIND_OK (checked when the library loads: an older one then fails to load, with the
 * reason); CUBIND_ERROR_ALREADY_LOADED when it is loaded already from an older release. A load in
 * progress on another thread finishes first and is judged so: after CUBIND_OK the library is never
 * loaded from an older release;
 * CUBIND_ERROR_INVALID_ARGUMENT for an unknown library or a release the bindings do not know for it
 * (cubind_library_info's `releases` lists them).
 */
CUBIND_API cubind_error_kind cubind_require_release(cubind_library library, int major, int minor);

/* The calling thread's last error record (kind CUBIND_OK when there was none). Never NULL. */
CUBIND_API const cubind_error *cubind_last_error(void);

/* Forget the calling thread's last error. Successful calls do not clear it. */
CUBIND_API void cubind_clear_error(void);

/* Install a process-wide error handler (NULL removes it). */
CUBIND_API void cubind_set_error_handler(cubind_error_handler handler, void *user);

/* The name of a status value ("CUBLAS_STATUS_NOT_INITIALIZED"), from tables generated from
 * the headers: no library call. NULL when the value is not in the library's status enum. */
CUBIND_API const char *cubind_status_name(cubind_library library, int status);

/* "cublas", "cublasLt", ...; NULL for a value that is not a library. */
CUBIND_API const char *cubind_library_name(cubind_library library);

/* The library of that name, or CUBIND_LIB_NONE. */
CUBIND_API cubind_library cubind_library_from_name(const char *name);

/*
 * cubind_library_from_soname - the library a soname is of ("libcublas.so.13", or another version of
 * it: "libcublas.so.12", "libcublas.so"), as read from a program's DT_NEEDED; CUBIND_LIB_NONE for a
 * soname of no library cubind binds ("libcublasLt.so.13" is cuBLASLt's, not cuBLAS's), and for NULL.
 * Loads nothing. Since 0.4.
 */
CUBIND_API cubind_library cubind_library_from_soname(const char *soname);

/* cubind's own version, "MAJOR.MINOR.PATCH". */
CUBIND_API const char *cubind_version(void);

CUBIND_EXTERN_C_END

#endif /* CUBIND_CORE_H */
