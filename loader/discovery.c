/*
 * loader/discovery.c - the README's discovery order, first hit wins, absolute
 * paths only:
 *   1. the path or handle given through the API;  2. CUBIND_<LIB>_PATH;
 *   3. a copy already loaded, newest soname first: the loaded objects are walked
 *      (cubind__objects_each; their soname, or the file name they were loaded by), and
 *      only a soname found there is asked of the dynamic loader (cubind__lib_open_loaded), so that a soname
 *      not loaded costs no search of the file system;
 *   3b. beside a library it is used with (`coupled`), already loaded by cubind: its folder;
 *   4. the dynamic loader's search path, by soname, newest first (rpath, LD_LIBRARY_PATH, runpath;
 *      relative and empty entries, which mean the working directory, are skipped);
 *   5. only when asked (CUBIND_SEARCH_PYTHON=1, cubind_set_search_python): Python's site-packages
 *      wheels (nvidia/cu13/lib, ...), then $CONDA_PREFIX: before step 6, because the switch asks
 *      for what a Python program of the environment gets (cuda-pathfinder: wheels, conda, the
 *      system's search, then CUDA_HOME/CUDA_PATH), and images set CUDA_HOME for everyone;
 *   6. $CUDA_PATH, then $CUDA_HOME, set by the user: lib64, lib, targets/<arch>/lib (without the
 *      switch, an installation the user names comes before the system's defaults);
 *   7. the system's defaults, by soname, newest first: the ld.so cache (read once per search;
 *      looked up as ld.so does, by a binary search), the system directories;
 *   8. $CONDA_PREFIX (unless step 5 searched it), /usr/local/cuda.
 * An explicit choice (1 or 2) that fails is final. Every attempt that fails is written
 * to `why`, so a failure lists each path tried and what the system said; the text is
 * written only for what failed (a load that succeeds formats nothing). A path is
 * looked at before dlopen: directories, FIFOs and devices, ELF files cut short or
 * built for another machine are refused with the reason (dlopen would block, die of
 * SIGBUS, or say "No such file or directory"), and so is a file whose DT_SONAME is
 * not of the library's soname family (libcublasLt.so.13 given as libcublas): see
 * candidate.c. Environment variables are read with cubind__getenv (secure_getenv): a
 * set-user-ID or set-group-ID program ignores them.
 * Layer 6: calls search_path (5), candidate (4), library_version (3), handle_check (3),
 * opened (2), loaded_objects (2), places (2), strbuf (1) and the platform seam (0).
 */
#define _GNU_SOURCE
#include "discovery.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "candidate.h"
#include "handle_check.h"
#include "library_version.h"
#include "loaded_objects.h"
#include "places.h"
#include "platform.h"
#include "search_path.h"

/* The roots of steps 6 and 8. Arrays of arrays, not of pointers: nothing here is relocated at start-up. */
static const char user_roots[][16] = {"CUDA_PATH", "CUDA_HOME"};
static const char conda_root[] = "CONDA_PREFIX";
static const char default_root[] = "/usr/local/cuda";

/* The root named by the environment variable `name` (`fixed`, when not NULL: that directory); NULL
 * when absent, or relative (said in `why`). */
static void *try_named_root(const cubind__library_desc *d, const char *name, const char *fixed, cubind__strbuf *why,
                            cubind__found *found)
{
    const char *root = fixed != NULL ? fixed : cubind__getenv(name);
    cubind__strbuf step = {0};
    void *handle;
    if (root == NULL || root[0] == '\0')
        return NULL;
    if (root[0] != '/') {
        cubind__strbuf_printf(why, "; %s=", name);
        cubind__strbuf_escaped(why, root);
        cubind__strbuf_printf(why, ": ignored, a relative path");
        return NULL;
    }
    handle = cubind__try_root(d, root, &step, found);
    /* "; CUDA_HOME: /usr/local/cuda/{lib64,...}/{...}: none present": the step named, as the others are */
    if (step.length > 2)
        cubind__strbuf_printf(why, "; %s: %s", fixed != NULL ? "the default root" : name, cubind__strbuf_str(&step) + 2);
    cubind__strbuf_free(&step);
    return handle;
}

/* Step 3: a copy already loaded, newest soname first; only the sonames the walk found loaded are
 * asked of the dynamic loader (a RTLD_NOLOAD probe of one not loaded searches every directory for nothing).
 * Nothing is written to `why` unless a loaded copy is refused; then the step's text up to it: the
 * sonames before it, the refusal and its soname. *listed is how many sonames that text names. */
static void *already_loaded(const cubind__library_desc *d, const cubind__loaded *loaded, cubind__strbuf *why,
                            cubind__found *found, size_t *listed)
{
    size_t i;
    *listed = 0;
    for (i = 0; i < d->soname_count; ++i) {
        cubind__strbuf reason = {0};
        void *handle;
        if (i < 64 && !(loaded->sonames & (1ull << i)))
            continue;
        handle = cubind__lib_open_loaded(d->sonames[i]);
        if (handle == NULL)
            continue;
        if (!cubind__refused(d, handle, &reason, &found->answer)) {
            const char *by = i < CUBIND__NEEDED_BY ? loaded->needed_by[i] : NULL;
            if (by == NULL)
                snprintf(found->loaded_by, sizeof found->loaded_by,
                         "by a dlopen (no loaded object's DT_NEEDED lists %s), of the program or a library", d->sonames[i]);
            else
                snprintf(found->loaded_by, sizeof found->loaded_by, "as a DT_NEEDED of %s",
                         by[0] != '\0' ? by : "the program");
            return handle;
        }
        for (; *listed < i; ++*listed)
            cubind__strbuf_printf(why, " %s", d->sonames[*listed]);
        cubind__strbuf_printf(why, "%s %s", cubind__strbuf_str(&reason), d->sonames[i]);
        cubind__strbuf_free(&reason);
        *listed = i + 1;
    }
    return NULL;
}

static void *discover(const cubind__library_desc *d, const char *explicit_path, void *explicit_handle,
                      const char *beside, const char **found_by, cubind__strbuf *why, cubind__found *found)
{
    cubind__strbuf loaded = {0}; /* step 3's text: written only when the whole search fails */
    cubind__strbuf later = {0};  /* the later steps', after it */
    cubind__loaded walk;
    const char *env;
    void *handle;
    size_t i, listed;
    int python;

    if (explicit_handle != NULL) {
        *found_by = "cubind_set_library_handle";
        return explicit_handle;
    }
    if (explicit_path != NULL) {
        *found_by = "cubind_set_library_path";
        return cubind__open_candidate(d, explicit_path, "cubind_set_library_path: ", "", why, found);
    }
    env = cubind__getenv(d->env_var);
    if (env != NULL && env[0] != '\0') {
        *found_by = d->env_var;
        if (env[0] != '/') {
            cubind__strbuf_printf(why, "%s=", d->env_var);
            cubind__strbuf_escaped(why, env);
            cubind__strbuf_printf(why, ": refused, a relative path (cubind loads only absolute paths, never "
                                       "relative to the working directory)");
            return NULL;
        }
        return cubind__open_candidate(d, env, d->env_var, "=", why, found);
    }
    cubind__walk_loaded(d, &walk);
    handle = already_loaded(d, &walk, &loaded, found, &listed);
    if (handle != NULL) {
        *found_by = "already loaded";
        goto done;
    }
    if (beside != NULL && (handle = cubind__try_beside(d, beside, &later, found)) != NULL) {
        *found_by = "beside a library it is used with";
        goto done;
    }
    handle = cubind__system_search(d, CUBIND__SEARCH_PATH, &later, found);
    if (handle != NULL) {
        *found_by = "system loader";
        goto done;
    }
    python = cubind__search_python();
    if (python) { /* step 5, before CUDA_PATH / CUDA_HOME */
        if ((handle = cubind__try_wheels(d, &later, found)) != NULL) {
            *found_by = "site-packages";
            goto done;
        }
        if ((handle = try_named_root(d, conda_root, NULL, &later, found)) != NULL) {
            *found_by = conda_root;
            goto done;
        }
    }
    for (i = 0; i < sizeof user_roots / sizeof user_roots[0]; ++i)
        if ((handle = try_named_root(d, user_roots[i], NULL, &later, found)) != NULL) {
            *found_by = user_roots[i];
            goto done;
        }
    handle = cubind__system_search(d, CUBIND__SEARCH_DEFAULTS, &later, found);
    if (handle != NULL) {
        *found_by = "system loader";
        goto done;
    }
    if (!python && (handle = try_named_root(d, conda_root, NULL, &later, found)) != NULL) {
        *found_by = conda_root;
        goto done;
    }
    if ((handle = try_named_root(d, default_root, default_root, &later, found)) != NULL) {
        *found_by = default_root;
        goto done;
    }
    cubind__strbuf_printf(why, "%s unset; already loaded: none of%s", d->env_var, cubind__strbuf_str(&loaded));
    for (i = listed; i < d->soname_count; ++i)
        cubind__strbuf_printf(why, " %s", d->sonames[i]);
    cubind__strbuf_printf(why, "%s", cubind__strbuf_str(&later));
done:
    cubind__strbuf_free(&loaded);
    cubind__strbuf_free(&later);
    return handle;
}

int cubind__open(const cubind__library_desc *d, const char *explicit_path, void *explicit_handle, const char *beside,
                 cubind__opened *out, cubind__strbuf *why)
{
    cubind__lib_facts facts;
    const char *found_by = NULL;
    cubind__strbuf tried = {0};
    char resolved[PATH_MAX];
    cubind__found found;
    void *handle;

    found.answer.handle = NULL;
    found.answer.held_fini = NULL;
    found.real_path[0] = '\0';
    found.loaded_by[0] = '\0';
    handle = discover(d, explicit_path, explicit_handle, beside, &found_by, &tried, &found);
    if (handle == NULL) {
        cubind__strbuf_printf(why, "%s not found; tried: %s", d->file, cubind__strbuf_str(&tried));
        cubind__strbuf_free(&tried);
        return -1;
    }
    cubind__strbuf_free(&tried);
    /* every step's object is checked again once open: a handle, or one already loaded */
    if (!cubind__handle_in_family(d, handle) || cubind__lib_facts_of(handle, &facts) != 0) {
        cubind__strbuf_printf(why, "%s: %s gave ", d->file, found_by);
        cubind__check_handle(d, handle, why);
        cubind__version_answer_drop(&found.answer); /* before its code may be unmapped */
        if (handle != explicit_handle)
            cubind__lib_close(handle);
        return -1;
    }
    cubind__strbuf_free(why);
    memset(out, 0, sizeof *out);
    out->handle = handle;
    cubind__record_segments(out, &facts);
    out->found_by = found_by;
    out->loaded_by = found.loaded_by[0] != '\0' ? strdup(found.loaded_by) : NULL;
    if (found.real_path[0] != '\0' && handle != explicit_handle) /* read from the descriptor of the checks */
        out->real_path = strdup(found.real_path);
    else
        out->real_path = cubind__real_path(facts.name[0] != '\0'      ? facts.name
                                           : explicit_path != NULL ? explicit_path
                                                                   : "/proc/self/exe",
                                           resolved) != NULL
                             ? strdup(resolved)
                             : NULL;
    /* always absolute: an object the program loaded by a relative name is named by its real path */
    out->path = strdup(facts.name[0] == '/'           ? facts.name
                       : out->real_path != NULL  ? out->real_path
                       : explicit_path != NULL   ? explicit_path
                                                 : "(main program)");
    out->path_escaped = cubind__escaped_copy(out->path != NULL ? out->path : "");
    out->soname = facts.soname != NULL ? strdup(facts.soname) : NULL;
    if (out->path == NULL || out->path_escaped == NULL) {
        cubind__strbuf_printf(why, "%s: out of memory", d->file);
        return -1;
    }
    cubind__read_version(d, out, &found.answer);
    return 0;
}
