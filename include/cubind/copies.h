/*
 * cubind/copies.h - every copy of every CUDA library a program could load on this machine, and
 * which one it gets (docs/probe.md, "Every copy"). Included by cubind/cubind.h.
 *
 * Libraries: the ones cubind binds (cublas, ..., cudnn) and those it only locates, from
 * generator/libraries.toml's [[locate]] (cupti, nvvm, nvfatbin, cufile, the NPP libraries,
 * nvjpeg, cufftw, nvblas, cuDNN's sub-libraries, cusparseLt, nvshmem_host, cutensor, cudss, ...):
 * cubind_locatable_name lists them all.
 *
 * A directory taken from the environment ($VIRTUAL_ENV, $HOME, ...) is the directory it names,
 * never a pattern: only the layouts cubind appends to it (lib/python3.N/site-packages, any N) are
 * matched, so VIRTUAL_ENV=/x/venv[1] is /x/venv[1], never /x/venv1.
 *
 * Places, searched in this order (a file found at several is one copy, by its real path):
 * a root given in the options ("--cuda-path"), LD_LIBRARY_PATH, $CUDA_PATH and $CUDA_HOME (each
 * with lib64, lib, targets/<arch>/lib and a library's own directories: nvvm/lib64, ...), conda
 * ($CONDA_PREFIX/lib), Python's site-packages with NVIDIA's wheel layouts (nvidia/cu13/lib,
 * nvidia/<name>/lib, ...; found without running Python: $VIRTUAL_ENV, $CONDA_PREFIX, $PYTHONPATH,
 * the python3 on $PATH, ~/.local, pyenv's versions, /usr/local/lib/python3.*, /usr/lib/python3*),
 * every entry of the ld.so cache of the library's soname family, the system directories, then
 * /usr/local/cuda and /usr/local/cuda-*. In each, every file named <stem>.so.<numbers> is a copy
 * (<stem>.so alone is the link-time name, not one a program loads).
 *
 * A copy's version is asked of the library itself in a child process (fork; the child loads the
 * file, asks its version query, and exits; killed after 10 seconds), so nothing is loaded into the
 * calling process; where the library has no query, or the query failed, it is read from the file
 * name. `version_source` says which. The work is bounded: a file that is not an ELF shared object of
 * this process's class, byte order and machine (a script, random bytes, an executable) is refused
 * from its header, with the reason in `error`, and never asked (no child); of the copies of one
 * library in one directory (by real path), at most 4 are asked in a child, the later ones' versions
 * read from their file names (`version_detail` says why). The calling process must not hold
 * cubind's load lock (it is never held outside cubind) and should not have SIGCHLD ignored (the
 * child's status is then lost: the version is still read).
 */
#ifndef CUBIND_COPIES_H
#define CUBIND_COPIES_H

#if (defined(__GNUC__) || defined(__clang__)) && __INCLUDE_LEVEL__ > 0 && !defined(CUBIND_HEADER_WARNINGS)
#pragma GCC system_header
#endif

#include <stddef.h>

#include "cubind/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An opaque list of copies (cubind_copies_find); freed with cubind_copies_free. */
typedef struct cubind_copies cubind_copies;

/* cubind_copies_options.flags */
#define CUBIND_COPIES_LOAD 1      /* load each bound library (as its first call would) to tell which copy
                                     cubind takes; without it, only a library already loaded is told */
#define CUBIND_COPIES_NO_QUERY 2  /* no child process: versions from file names only */

struct cubind_copies_options {
    size_t size;           /* sizeof(struct cubind_copies_options): later versions may grow it */
    unsigned flags;        /* CUBIND_COPIES_* */
    const char *library;   /* one library's name ("cublas", "cupti"), or NULL for every library */
    const char *cuda_path; /* a CUDA installation searched first, its copies' place "--cuda-path"; or NULL */
};

struct cubind_copy {
    size_t size;               /* set by the caller: sizeof(struct cubind_copy) */
    const char *library;       /* its library's name: "cublas", "cupti" */
    int bound;                 /* 1: a library cubind binds (cubind_library_from_name names it) */
    const char *path;          /* where it was first found, absolute */
    const char *real_path;     /* the same, symbolic links resolved: what identifies the copy */
    const char *place;         /* where path is: "--cuda-path", "LD_LIBRARY_PATH", "CUDA_PATH",
                                  "CUDA_HOME", "conda", "site-packages", "ld.so cache", "system directory",
                                  "/usr/local/cuda" */
    const char *places;        /* every place and path it was found at, "place: path" joined by "; " */
    const char *soname;        /* its DT_SONAME, read from the file; NULL when it has none */
    int version_major;         /* -1 when not known */
    int version_minor;         /* -1 when not known */
    int version_patch;         /* -1 when not known */
    const char *version_source; /* "query" (asked of the library, in a child process), "file-name" (the
                                   numbers of its real file name, or of its soname: major only), or
                                   "none" */
    const char *version_detail; /* the function asked, or the name read; and why a query was not used */
    const char *release;       /* the CUDA release it belongs to: for a bound library the release its
                                  version is called as ("13.0", "12.4"); for another, the CUDA major
                                  ("13") its configuration, or a cu<N> (a wheel's) or cuda-<N>.<M> (a
                                  toolkit's) directory of its path says; NULL when not known */
    int chosen;                /* 1: the copy cubind takes (a bound library), or that dlopen of its
                                  soname by a program takes (another library) */
    const char *chosen_by;     /* for the chosen copy: the discovery step (cubind's found_by: "system
                                  loader", "CUDA_PATH", ...; "dlopen(libcupti.so.13): ld.so cache") */
    const char *error;         /* why it cannot be loaded here (not an ELF file, not a shared object,
                                  another class's or machine's ELF file, one cut short, the soname of
                                  another library, not a regular file), else NULL; such a copy's
                                  version is never asked (no child) */
};

/*
 * cubind_copies_find - find every copy of one library or of every library.
 * @options  may be NULL (every library, versions asked, nothing loaded); options->size must be set.
 * @out      receives the list (NULL on failure), which the caller frees with cubind_copies_free.
 * Returns CUBIND_OK (a library with no copy simply has none in the list);
 * CUBIND_ERROR_INVALID_ARGUMENT for a NULL out, an options->size of 0, an unknown library name or
 * a relative cuda_path (recorded in cubind_last_error()).
 */
CUBIND_API cubind_error_kind cubind_copies_find(const struct cubind_copies_options *options, cubind_copies **out);

/* The number of copies in `copies` (0 for NULL). */
CUBIND_API size_t cubind_copies_count(const cubind_copies *copies);

/*
 * cubind_copies_get - describe copy `index` in `*copy`, grouped by library in
 * cubind_locatable_name's order, then by place. The strings belong to `copies`.
 * Returns CUBIND_OK; CUBIND_ERROR_INVALID_ARGUMENT for an index out of range, a NULL argument or a
 * copy->size of 0 (nothing written). cubind writes no more than copy->size bytes.
 */
CUBIND_API cubind_error_kind cubind_copies_get(const cubind_copies *copies, size_t index, struct cubind_copy *copy);

/* Free a list of cubind_copies_find (NULL: nothing). */
CUBIND_API void cubind_copies_free(cubind_copies *copies);

/* The number of libraries cubind locates: those it binds, then those it only locates. */
CUBIND_API size_t cubind_locatable_count(void);

/* The name of locatable library `index` ("cublas", ..., "cupti", ...), NULL past the end. */
CUBIND_API const char *cubind_locatable_name(size_t index);

/*
 * cubind_set_search_python - whether discovery also searches Python's site-packages wheels
 * (NVIDIA's layouts, as above), then $CONDA_PREFIX, before $CUDA_PATH / $CUDA_HOME and the ld.so
 * cache, as a Python program of the environment would find them (docs/loader.md; only a copy already
 * loaded, one beside a library used with it and the search path come first). 1: yes; 0: no; -1: as
 * the environment says
 * (CUBIND_SEARCH_PYTHON=1: yes; the default). Takes effect for the libraries loaded after it.
 */
CUBIND_API void cubind_set_search_python(int on);

#ifdef __cplusplus
}
#endif

#endif /* CUBIND_COPIES_H */
