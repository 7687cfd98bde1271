/*
 * loader/library.c - once-only, thread-safe loading of each library, symbol resolution and introspection.
 *
 * Per library: an atomic state (untried, loaded, failed) read without a lock on every slow-path call. Loading, and
 * what must not run beside it, takes one process-wide lock: glibc serialises dlopen anyway, and one lock cannot be
 * taken in two orders (per-library locks deadlocked when a library constructor loaded another library while a second
 * thread, or fork's handler, took that one first). It is recursive through a thread-local depth, so a constructor may
 * load another library; a thread-local flag per library refuses re-entry into a load in progress on the same thread,
 * which a lock alone could not tell from a second thread. pthread_atfork holds the lock across fork() so a child never
 * inherits a load half done (cubind__at_fork). Cancellation is disabled while the lock is held (a thread cancelled inside a library
 * constructor would otherwise leave it held for ever); a cancel request made meanwhile acts at the thread's next
 * cancellation point after the load. It is a plain mutex because the child must unlock it: glibc refuses to unlock a
 * recursive mutex there (its owner's thread id is not the child's): every later load in the child blocked for ever.
 * While a library is opened or asked (its constructors, its version query and init), a call of its own code into it,
 * from any thread, neither takes the lock nor waits for the load: it reaches its own definition (own_call.h), so
 * that a thread the library waits for does not wait for it in turn, and the loading thread gets no error.
 * Layer 7, the top: calls discovery (6), not_callable (4), handle_check (3), library_version (3), own_call (3),
 * opened (2), error (2), trace (2), strbuf (1), the platform seam (0) and the generated tables; called by the
 * generated wrappers and the public API.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/version.h"

#include "discovery.h"
#include "library.h"
#include "error.h"
#include "handle_check.h"
#include "internal.h"
#include "library_version.h"
#include "not_callable.h"
#include "opened.h"
#include "own_call.h"
#include "platform.h"
#include "releases.h"
#include "strbuf.h"
#include "trace.h"

enum { STATE_UNTRIED = 0, STATE_LOADED = 1, STATE_FAILED = 2 };

/* Why a load failed. Freed only when the copy is unloaded: cubind_library_info hands the text out
 * as valid for as long as the copy is loaded, and another thread may be formatting it when a
 * retry fails anew.
 * Interned: a text equal to one kept before is that one, so what is kept grows with the
 * number of distinct failures, not with the number of retries. */
struct load_failure {
    struct load_failure *earlier; /* every text kept for this library, newest first */
    char text[];
};

struct lib_state {
    atomic_int state;
    cubind__opened lib;   /* valid once loaded */
    int release;          /* once loaded: the release whose ABI it is called with (loader/releases.h) */
    _Atomic(struct load_failure *) failure; /* why the latest load failed (one of `failures`) */
    struct load_failure *failures; /* every distinct text kept, newest first; under the lock */
    char *explicit_path;  /* cubind_set_library_path */
    void *explicit_handle; /* cubind_set_library_handle */
    int census_done;      /* functions found / missing counted */
    size_t found;
    const char **missing;
    size_t missing_count;
    const char **names;   /* every C API name, for the info of a library not found; built once */
};

static struct lib_state states[CUBIND_LIBRARY_COUNT];
static cubind__once_flag init_once = CUBIND__ONCE_INIT;
static cubind__mutex load_lock = CUBIND__MUTEX_INIT;
static CUBIND__THREAD_LOCAL unsigned lock_depth;
static CUBIND__THREAD_LOCAL unsigned char tls_loading[CUBIND_LIBRARY_COUNT];
static atomic_int loading[CUBIND_LIBRARY_COUNT]; /* a thread opens or asks it now: its own calls (own_call.h) */

static void init(void);

static void lock_raw(void)
{
    if (lock_depth++ == 0)
        cubind__mutex_lock(&load_lock);
}

static void unlock_raw(void)
{
    if (--lock_depth == 0)
        cubind__mutex_unlock(&load_lock);
}

/* Take the lock with cancellation disabled until the matching unlock (`*cancel_state` keeps
 * the caller's setting): nothing done under it may be a cancellation point. */
static void lock(int *cancel_state)
{
    *cancel_state = cubind__cancel_off();
    cubind__once(&init_once, init);
    lock_raw();
}

static void unlock(int cancel_state)
{
    unlock_raw();
    cubind__cancel_restore(cancel_state);
}

static void init(void)
{
    cubind__unload_watch(); /* before anything is kept: everything is kept under the lock */
    cubind__at_fork(lock_raw, unlock_raw, unlock_raw);
}

static const char *failure_text(const struct lib_state *s)
{
    const struct load_failure *f = atomic_load_explicit(&s->failure, memory_order_acquire);
    return f != NULL ? f->text : NULL;
}

/* Keep `why` as the latest failure (called under the lock). A text kept before is reused, so
 * retries alternating between failures do not grow the process. */
static void keep_failure(struct lib_state *s, cubind__strbuf *why)
{
    const char *text = cubind__strbuf_str(why);
    struct load_failure *f;
    size_t length = strlen(text);
    for (f = s->failures; f != NULL; f = f->earlier)
        if (strcmp(f->text, text) == 0)
            break;
    if (f == NULL) {
        f = malloc(sizeof *f + length + 1);
        if (f == NULL)
            return; /* the earlier reason, if any, stays */
        f->earlier = s->failures;
        memcpy(f->text, text, length + 1);
        s->failures = f;
    }
    atomic_store_explicit(&s->failure, f, memory_order_release);
}

int cubind__valid_library(cubind_library library)
{
    return (int)library >= 0 && (int)library < CUBIND_LIBRARY_COUNT;
}

/* The release a library just opened is called as; -1, with why, when none fits. */
static int chosen_release(cubind_library library, const cubind__opened *lib, cubind__strbuf *why)
{
    int release = cubind__release_of_file(library, lib->soname, lib->version, why);
    if (release < 0) {
        cubind__strbuf text = {0};
        cubind__strbuf_printf(&text, "%s %s (%s) cannot be used: %s", cubind__libraries[library].file,
                              lib->version_text, lib->path_escaped, cubind__strbuf_str(why));
        cubind__strbuf_free(why);
        *why = text;
    }
    return release;
}

/* The folder of a library `library` is used with that cubind has loaded (cuBLAS's for cuBLASLt),
 * in `buffer`, or NULL: discovery looks there first, so that the two come from one release. */
static const char *coupled_folder(cubind_library library, char *buffer, size_t size)
{
    int other;
    for (other = 0; other < CUBIND_LIBRARY_COUNT; ++other) {
        const char *path = states[other].lib.real_path, *slash;
        if (!(cubind__libraries[library].coupled & (1ULL << other)) ||
            atomic_load_explicit(&states[other].state, memory_order_acquire) != STATE_LOADED || path == NULL ||
            (slash = strrchr(path, '/')) == NULL || (size_t)(slash - path) >= size)
            continue;
        memcpy(buffer, path, (size_t)(slash - path));
        buffer[slash - path] = '\0';
        return buffer;
    }
    return NULL;
}

int cubind__ensure_loaded(cubind_library library)
{
    struct lib_state *s = &states[library];
    int state = atomic_load_explicit(&s->state, memory_order_acquire), cancel_state;
    if (state == STATE_LOADED)
        return CUBIND__LOAD_OK;
    if (state == STATE_FAILED)
        return CUBIND__LOAD_FAILED;
    if (tls_loading[library])
        return CUBIND__LOAD_REENTERED;
    cubind__unwinder_find(); /* before this thread loads: a thread the library starts and waits for cannot (own_call.h) */
    lock(&cancel_state);
    state = atomic_load_explicit(&s->state, memory_order_acquire);
    if (state == STATE_UNTRIED) {
        cubind__strbuf why = {0};
        char beside[PATH_MAX];
        int opened = 0;
        tls_loading[library] = 1;
        atomic_store_explicit(&loading[library], 1, memory_order_release);
        if (cubind__libraries[library].soname_count == 0) { /* left out of a subset (generator --libraries) */
            cubind__strbuf_printf(&why, "not part of this build of cubind, which was generated for a subset "
                                        "of the libraries");
            keep_failure(s, &why);
            state = STATE_FAILED;
        } else if ((opened = cubind__open(&cubind__libraries[library], s->explicit_path, s->explicit_handle,
                                          coupled_folder(library, beside, sizeof beside), &s->lib, &why) == 0) &&
                   (s->release = chosen_release(library, &s->lib, &why)) >= 0) {
            state = STATE_LOADED;
        } else {
            if (opened && s->lib.held_fini != NULL) /* its query's init, let go with it */
                s->lib.held_fini();
            if (opened && s->lib.handle != s->explicit_handle) /* opened, but of no release it can be called as */
                cubind__lib_close(s->lib.handle);
            keep_failure(s, &why);
            state = STATE_FAILED;
        }
        cubind__strbuf_free(&why);
        tls_loading[library] = 0;
        atomic_store_explicit(&loading[library], 0, memory_order_release);
        atomic_store_explicit(&s->state, state, memory_order_release);
    }
    unlock(cancel_state);
    return state == STATE_LOADED ? CUBIND__LOAD_OK : CUBIND__LOAD_FAILED;
}

const char *cubind__load_error(cubind_library library, int outcome)
{
    const char *text;
    if (outcome == CUBIND__LOAD_REENTERED)
        return "it is being loaded by this very thread (a call from inside its dlopen, such as a library "
               "constructor); call again once loading has finished";
    text = failure_text(&states[library]);
    return text != NULL ? text : "unknown error";
}

/* `function`: the C API name of the wrapper that could not be called, or NULL when
 * `api` (cubind_load, cubind_library_info) asked for the load. */
void cubind__record_load_failure(cubind_library library, const char *function, const char *api, int outcome)
{
    const cubind__library_desc *d = &cubind__libraries[library];
    const char *status_name = cubind_status_name(library, d->status_missing_library);
    if (function != NULL)
        cubind__error_record(CUBIND_ERROR_LIBRARY_NOT_FOUND, library, function, d->status_missing_library,
                             "%s: %s could not be loaded, so the call returns %s (%d): %s", function, d->file,
                             status_name != NULL ? status_name : "?", d->status_missing_library,
                             cubind__load_error(library, outcome));
    else
        cubind__error_record(CUBIND_ERROR_LIBRARY_NOT_FOUND, library, api, d->status_missing_library,
                             "%s could not be loaded: %s", d->file, cubind__load_error(library, outcome));
}

/* Where a resolved symbol is kept: the hot path's slot, or, while tracing, a slot the hot path
 * never reads, so that every call keeps taking the traced path. */
static cubind__slot *cache_slot(const cubind__symbol_table *table, size_t index)
{
    return cubind__slots(table->library) + (cubind__trace_enabled() ? table->count : 0) + index;
}

/* Not tracing: the wrapper's hot path calls `fn` from now on, as the distance from its slow path. */
static void set_offset(const cubind__symbol_table *table, size_t index, cubind__fnptr fn, cubind__fnptr slow)
{
    if (!cubind__trace_enabled())
        atomic_store_explicit(cubind__offsets(table->library) + index, (uintptr_t)fn - (uintptr_t)slow,
                              memory_order_release);
}

/* The newest release (0) too: a function it removed is ABSENT there (loader/releases.h). */
void cubind__resolve_in_release(cubind_library library, const cubind__symbol_table *table, size_t index,
                                cubind__resolution *out)
{
    cubind__release_resolve(library, states[library].release, table, index, &states[library].lib, out);
}

cubind__fnptr cubind__resolve(const cubind__symbol_table *table, size_t index, int *unavailable_status,
                              cubind__fnptr slow)
{
    cubind_library library = table->library;
    const cubind__library_desc *d = &cubind__libraries[library];
    cubind__slot *slot = cache_slot(table, index);
    cubind__fnptr fn = atomic_load_explicit(slot, memory_order_acquire);
    cubind__resolution r;
    int outcome;
    if (fn != NULL) { /* resolved before: by the census, or by another thread */
        set_offset(table, index, fn, slow);
        return fn;
    }
    /* while it is opened or asked, from any thread: the library's own call reaches its own definition,
     * uncached (library_version.h, own_call.h); a program's waits for the load */
    if (atomic_load_explicit(&loading[library], memory_order_acquire) &&
        ((fn = cubind__asked_definition(library, table, index)) != NULL ||
         (fn = cubind__own_call(d, cubind__symbol_name(table, index))) != NULL))
        return fn;
    outcome = cubind__ensure_loaded(library);
    if (outcome != CUBIND__LOAD_OK) {
        /* decided here, before the handler runs: nothing it does can change it */
        if (unavailable_status != NULL)
            *unavailable_status = d->status_missing_library;
        cubind__record_load_failure(library, cubind__function_name(table, index), NULL, outcome);
        return NULL;
    }
    cubind__resolve_in_release(library, table, index, &r);
    if (r.fn == NULL) {
        if (unavailable_status != NULL)
            *unavailable_status = d->status_missing_symbol;
        cubind__record_not_callable(library, index, &r, &states[library].lib, states[library].release);
        return NULL;
    }
    fn = r.fn;
    atomic_store_explicit(slot, fn, memory_order_release);
    set_offset(table, index, fn, slow);
    return fn;
}

cubind_error_kind cubind__invalid_library(const char *function, cubind_library library)
{
    cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, function, 0,
                         "%s: %d is not a cubind library (0 to %d)", function, (int)library,
                         CUBIND_LIBRARY_COUNT - 1);
    return CUBIND_ERROR_INVALID_ARGUMENT;
}

cubind_error_kind cubind_load(cubind_library library)
{
    int outcome;
    if (!cubind__valid_library(library))
        return cubind__invalid_library("cubind_load", library);
    outcome = cubind__ensure_loaded(library);
    if (outcome == CUBIND__LOAD_OK)
        return CUBIND_OK;
    cubind__record_load_failure(library, NULL, "cubind_load", outcome);
    return CUBIND_ERROR_LIBRARY_NOT_FOUND;
}

/* Common part of set_library_path/handle: refuse once loaded, reset after a failure. */
static cubind_error_kind set_source(cubind_library library, const char *function, const char *path, void *handle)
{
    struct lib_state *s;
    cubind_error_kind result = CUBIND_OK;
    char *copy = NULL;
    int cancel_state;
    if (!cubind__valid_library(library))
        return cubind__invalid_library(function, library);
    if (path != NULL) {
        copy = strdup(path);
        if (copy == NULL) {
            cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, function, 0, "%s: out of memory", function);
            return CUBIND_ERROR_INVALID_ARGUMENT;
        }
    }
    s = &states[library];
    lock(&cancel_state);
    if (atomic_load_explicit(&s->state, memory_order_acquire) == STATE_LOADED || tls_loading[library]) {
        result = CUBIND_ERROR_ALREADY_LOADED;
    } else {
        free(s->explicit_path);
        s->explicit_path = copy;
        copy = NULL;
        s->explicit_handle = handle;
        atomic_store_explicit(&s->state, STATE_UNTRIED, memory_order_release);
    }
    unlock(cancel_state);
    free(copy);
    if (result == CUBIND_ERROR_ALREADY_LOADED)
        cubind__error_record(result, library, function, 0,
                             "%s: %s is already loaded from %s; a path or handle must be set before its "
                             "first use",
                             function, cubind__libraries[library].file,
                             s->lib.path_escaped != NULL ? s->lib.path_escaped : "(loading)");
    return result;
}

/* `text` escaped into `out` (cut to fit): the handler may leave by longjmp, so nothing cubind
 * allocated may be alive when an error is recorded. */
static void escaped_copy(char *out, size_t size, const char *text)
{
    cubind__strbuf buf = {0};
    cubind__strbuf_escaped(&buf, text);
    snprintf(out, size, "%s", cubind__strbuf_str(&buf));
    cubind__strbuf_free(&buf);
}

cubind_error_kind cubind_set_library_path(cubind_library library, const char *path)
{
    if (cubind__valid_library(library) && path != NULL && path[0] != '/') {
        char text[CUBIND_ERROR_MESSAGE_MAX];
        escaped_copy(text, sizeof text, path);
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_set_library_path", 0,
                             "cubind_set_library_path: refused relative path \"%s\" for %s: cubind loads "
                             "only absolute paths, never relative to the working directory",
                             text, cubind__libraries[library].file);
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    return set_source(library, "cubind_set_library_path", path, NULL);
}

cubind_error_kind cubind_set_library_handle(cubind_library library, void *handle)
{
    if (cubind__valid_library(library) && handle == NULL) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_set_library_handle", 0,
                             "cubind_set_library_handle: the handle is NULL (RTLD_DEFAULT)");
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    if (cubind__valid_library(library)) {
        /* a pseudo-handle, anything that is not an object loaded in this namespace, or another library */
        cubind__strbuf why = {0};
        char text[CUBIND_ERROR_MESSAGE_MAX];
        int refused = cubind__check_handle(&cubind__libraries[library], handle, &why);
        snprintf(text, sizeof text, "%s", cubind__strbuf_str(&why));
        cubind__strbuf_free(&why);
        if (refused) {
            cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_set_library_handle", 0,
                                 "cubind_set_library_handle: refused for %s: %s", cubind__libraries[library].file,
                                 text);
            return CUBIND_ERROR_INVALID_ARGUMENT;
        }
    }
    return set_source(library, "cubind_set_library_handle", NULL, handle);
}

void cubind__census(cubind_library library, size_t *found, const char *const **missing, size_t *missing_count)
{
    struct lib_state *s = &states[library];
    const cubind__symbol_table *t = cubind__symbols(library);
    size_t i;
    int cancel_state;
    lock(&cancel_state);
    if (!s->census_done) {
        s->missing = malloc((t->count ? t->count : 1) * sizeof *s->missing);
        s->found = s->missing_count = 0;
        for (i = 0; i < t->count; ++i) {
            cubind__resolution r;
            cubind__resolve_in_release(library, t, i, &r);
            if (r.fn != NULL) {
                atomic_store_explicit(cache_slot(t, i), r.fn, memory_order_release);
                s->found++;
            } else if (s->missing != NULL) {
                s->missing[s->missing_count++] = cubind__function_name(t, i);
            }
        }
        s->census_done = 1;
    }
    unlock(cancel_state);
    *found = s->found;
    *missing = s->missing;
    *missing_count = s->missing_count;
}

const char *const *cubind__all_names(cubind_library library)
{
    struct lib_state *s = &states[library];
    const cubind__symbol_table *t = cubind__symbols(library);
    size_t i;
    int cancel_state;
    lock(&cancel_state);
    if (s->names == NULL && (s->names = malloc((t->count ? t->count : 1) * sizeof *s->names)) != NULL)
        for (i = 0; i < t->count; ++i)
            s->names[i] = cubind__function_name(t, i);
    unlock(cancel_state);
    return s->names;
}

int cubind__is_loaded(cubind_library library)
{
    return atomic_load_explicit(&states[library].state, memory_order_acquire) == STATE_LOADED;
}

const cubind__opened *cubind__opened_of(cubind_library library)
{
    return &states[library].lib;
}

int cubind__release_in_use(cubind_library library)
{
    return states[library].release;
}

/* Under the lock, so that a load in progress has either read the requirement or published its release. */
int cubind__require_release_in_use(cubind_library library, int major, int minor)
{
    int cancel_state, release;
    lock(&cancel_state);
    cubind__require_release(library, major, minor);
    release = cubind__is_loaded(library) ? states[library].release : -1;
    unlock(cancel_state);
    return release;
}

void cubind__library_unload(void)
{
    int library;
    lock_raw();
    for (library = 0; library < CUBIND_LIBRARY_COUNT; ++library) {
        struct lib_state *s = &states[library];
        struct load_failure *f = s->failures, *earlier;
        for (; f != NULL; f = earlier) {
            earlier = f->earlier;
            free(f);
        }
        atomic_store_explicit(&s->failure, NULL, memory_order_relaxed);
        s->failures = NULL;
        if (s->lib.held_fini != NULL) /* the object stays open: its init is balanced (nvmlShutdown) */
            s->lib.held_fini();
        cubind__opened_free(&s->lib);
        free(s->explicit_path);
        s->explicit_path = NULL;
        free((void *)s->missing);
        s->missing = NULL;
        free((void *)s->names);
        s->names = NULL;
        s->census_done = 0;
        atomic_store_explicit(&s->state, STATE_UNTRIED, memory_order_relaxed);
    }
    unlock_raw();
}
