/*
 * loader/library.c - once-only, thread-safe loading of each library, symbol
 * resolution and introspection.
 *
 * Per library: an atomic state (untried, loaded, failed) read without a lock on
 * every slow-path call. Loading, and what must not run beside it, takes one
 * process-wide lock: glibc serialises dlopen anyway, and one lock cannot be taken
 * in two orders (per-library locks deadlocked when a library constructor loaded
 * another library while a second thread, or fork's handler, took that one first).
 * It is recursive through a thread-local depth, so a constructor may load another
 * library; a thread-local flag per library refuses re-entry into a load in progress
 * on the same thread, which a lock alone could not tell from a second thread.
 * pthread_atfork holds the lock across fork() so a child never inherits a load half
 * done. Cancellation is disabled while the lock is held (a thread cancelled inside a
 * library constructor would otherwise leave it held for ever); a cancel request made
 * meanwhile acts at the thread's next cancellation point after the load. It is a plain mutex because the child must unlock it: glibc refuses to unlock
 * a recursive mutex there (its owner's thread id is not the child's), which left
 * every later load in the child blocked for ever.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/version.h"

#include "discovery.h"
#include "error.h"
#include "internal.h"
#include "strbuf.h"
#include "trace.h"

enum { STATE_UNTRIED = 0, STATE_LOADED = 1, STATE_FAILED = 2 };
enum { LOAD_OK = 0, LOAD_FAILED = -1, LOAD_REENTERED = -2 };

/* Why a load failed. Never freed: cubind_library_info hands the text out as valid for the
 * life of the process, and another thread may be formatting it when a retry fails anew.
 * Interned: a text equal to one kept before is that one, so what is kept grows with the
 * number of distinct failures, not with the number of retries. */
struct load_failure {
    struct load_failure *earlier; /* every text kept for this library, newest first */
    char text[];
};

struct lib_state {
    atomic_int state;
    cubind__opened lib;   /* valid once loaded */
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
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local unsigned lock_depth;
static _Thread_local unsigned char tls_loading[CUBIND_LIBRARY_COUNT];

static void init(void);

static void lock_raw(void)
{
    if (lock_depth++ == 0)
        pthread_mutex_lock(&load_lock);
}

static void unlock_raw(void)
{
    if (--lock_depth == 0)
        pthread_mutex_unlock(&load_lock);
}

/* Take the lock with cancellation disabled until the matching unlock (`*cancel_state` keeps
 * the caller's setting): nothing done under it may be a cancellation point. */
static void lock(int *cancel_state)
{
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, cancel_state);
    pthread_once(&init_once, init);
    lock_raw();
}

static void unlock(int cancel_state)
{
    unlock_raw();
    pthread_setcancelstate(cancel_state, NULL);
}

static void init(void)
{
    pthread_atfork(lock_raw, unlock_raw, unlock_raw);
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

static int valid(cubind_library library)
{
    return (int)library >= 0 && (int)library < CUBIND_LIBRARY_COUNT;
}

static int ensure_loaded(cubind_library library)
{
    struct lib_state *s = &states[library];
    int state = atomic_load_explicit(&s->state, memory_order_acquire), cancel_state;
    if (state == STATE_LOADED)
        return LOAD_OK;
    if (state == STATE_FAILED)
        return LOAD_FAILED;
    if (tls_loading[library])
        return LOAD_REENTERED;
    lock(&cancel_state);
    state = atomic_load_explicit(&s->state, memory_order_acquire);
    if (state == STATE_UNTRIED) {
        cubind__strbuf why = {0};
        tls_loading[library] = 1;
        if (cubind__libraries[library].soname_count == 0) { /* left out of a subset (generator --libraries) */
            cubind__strbuf_printf(&why, "not part of this build of cubind, which was generated for a subset "
                                        "of the libraries");
            keep_failure(s, &why);
            state = STATE_FAILED;
        } else if (cubind__open(&cubind__libraries[library], s->explicit_path, s->explicit_handle, &s->lib, &why) == 0) {
            state = STATE_LOADED;
        } else {
            keep_failure(s, &why);
            state = STATE_FAILED;
        }
        cubind__strbuf_free(&why);
        tls_loading[library] = 0;
        atomic_store_explicit(&s->state, state, memory_order_release);
    }
    unlock(cancel_state);
    return state == STATE_LOADED ? LOAD_OK : LOAD_FAILED;
}

static const char *load_error(cubind_library library, int outcome)
{
    const char *text;
    if (outcome == LOAD_REENTERED)
        return "it is being loaded by this very thread (a call from inside its dlopen, such as a library "
               "constructor); call again once loading has finished";
    text = failure_text(&states[library]);
    return text != NULL ? text : "unknown error";
}

/* `function`: the C API name of the wrapper that could not be called, or NULL when
 * `api` (cubind_load, cubind_library_info) asked for the load. */
static void record_load_failure(cubind_library library, const char *function, const char *api, int outcome)
{
    const cubind__library_desc *d = &cubind__libraries[library];
    const char *status_name = cubind_status_name(library, d->status_missing_library);
    if (function != NULL)
        cubind__error_record(CUBIND_ERROR_LIBRARY_NOT_FOUND, library, function, d->status_missing_library,
                             "%s: %s could not be loaded, so the call returns %s (%d): %s", function, d->file,
                             status_name != NULL ? status_name : "?", d->status_missing_library,
                             load_error(library, outcome));
    else
        cubind__error_record(CUBIND_ERROR_LIBRARY_NOT_FOUND, library, api, d->status_missing_library,
                             "%s could not be loaded: %s", d->file, load_error(library, outcome));
}

static void record_symbol_missing(cubind_library library, size_t index)
{
    const cubind__library_desc *d = &cubind__libraries[library];
    const cubind__symbol_table *t = cubind__symbols(library);
    const cubind__opened *lib = &states[library].lib;
    const char *status_name = cubind_status_name(library, d->status_missing_symbol);
    cubind__error_record(CUBIND_ERROR_SYMBOL_NOT_FOUND, library, cubind__function_name(t, index),
                         d->status_missing_symbol, "%s: symbol %s not found in %s (%s version %s), so the call returns %s (%d)",
                         cubind__function_name(t, index), cubind__symbol_name(t, index), lib->path_escaped, d->file,
                         lib->version_text,
                         status_name != NULL ? status_name : "?", d->status_missing_symbol);
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

cubind__fnptr cubind__resolve(const cubind__symbol_table *table, size_t index, int *unavailable_status,
                              cubind__fnptr slow)
{
    cubind_library library = table->library;
    const cubind__library_desc *d = &cubind__libraries[library];
    cubind__slot *slot = cache_slot(table, index);
    cubind__fnptr fn = atomic_load_explicit(slot, memory_order_acquire);
    int outcome;
    if (fn != NULL) { /* resolved before: by the census, or by another thread */
        set_offset(table, index, fn, slow);
        return fn;
    }
    outcome = ensure_loaded(library);
    if (outcome != LOAD_OK) {
        /* decided here, before the handler runs: nothing it does can change it */
        if (unavailable_status != NULL)
            *unavailable_status = d->status_missing_library;
        record_load_failure(library, cubind__function_name(table, index), NULL, outcome);
        return NULL;
    }
    fn = cubind__own_symbol(&states[library].lib, cubind__symbol_name(table, index));
    if (fn == NULL) {
        if (unavailable_status != NULL)
            *unavailable_status = d->status_missing_symbol;
        record_symbol_missing(library, index);
        return NULL;
    }
    atomic_store_explicit(slot, fn, memory_order_release);
    set_offset(table, index, fn, slow);
    return fn;
}

static cubind_error_kind invalid_library(const char *function, cubind_library library)
{
    cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, function, 0,
                         "%s: %d is not a cubind library (0 to %d)", function, (int)library,
                         CUBIND_LIBRARY_COUNT - 1);
    return CUBIND_ERROR_INVALID_ARGUMENT;
}

cubind_error_kind cubind_load(cubind_library library)
{
    int outcome;
    if (!valid(library))
        return invalid_library("cubind_load", library);
    outcome = ensure_loaded(library);
    if (outcome == LOAD_OK)
        return CUBIND_OK;
    record_load_failure(library, NULL, "cubind_load", outcome);
    return CUBIND_ERROR_LIBRARY_NOT_FOUND;
}

/* Common part of set_library_path/handle: refuse once loaded, reset after a failure. */
static cubind_error_kind set_source(cubind_library library, const char *function, const char *path, void *handle)
{
    struct lib_state *s;
    cubind_error_kind result = CUBIND_OK;
    char *copy = NULL;
    int cancel_state;
    if (!valid(library))
        return invalid_library(function, library);
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
    if (valid(library) && path != NULL && path[0] != '/') {
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
    if (valid(library) && handle == NULL) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_set_library_handle", 0,
                             "cubind_set_library_handle: the handle is NULL (RTLD_DEFAULT)");
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    if (valid(library)) {
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

/* Resolve every symbol of a loaded library once, caching those found. */
static void census(cubind_library library)
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
            cubind__fnptr fn = cubind__own_symbol(&s->lib, cubind__symbol_name(t, i));
            if (fn != NULL) {
                atomic_store_explicit(cache_slot(t, i), fn, memory_order_release);
                s->found++;
            } else if (s->missing != NULL) {
                s->missing[s->missing_count++] = cubind__function_name(t, i);
            }
        }
        s->census_done = 1;
    }
    unlock(cancel_state);
}

/* Every C API name of `library` (what a library not found lacks), built on first use and kept. */
static const char *const *all_names(cubind_library library)
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

/* The first layout of struct cubind_library_info (up to `error`): the least a caller may pass. */
#define INFO_MIN_SIZE (offsetof(struct cubind_library_info, error) + sizeof(const char *))

cubind_error_kind cubind_library_info(cubind_library library, struct cubind_library_info *info)
{
    const cubind__library_desc *d;
    struct lib_state *s;
    struct cubind_library_info out;
    cubind_error_kind result = CUBIND_OK;
    size_t size;
    int outcome;
    if (!valid(library))
        return invalid_library("cubind_library_info", library);
    if (info == NULL) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_library_info", 0,
                             "cubind_library_info: info is NULL");
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    size = info->size;
    if (size < INFO_MIN_SIZE) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_library_info", 0,
                             "cubind_library_info: info->size is %zu; set it to sizeof(struct cubind_library_info) "
                             "(at least %zu) before the call",
                             size, (size_t)INFO_MIN_SIZE);
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    d = &cubind__libraries[library];
    s = &states[library];
    memset(&out, 0, sizeof out);
    out.library = library;
    out.name = d->name;
    out.version_major = out.version_minor = out.version_patch = -1;
    out.functions = cubind__symbols(library)->count;
    outcome = ensure_loaded(library);
    if (outcome != LOAD_OK) {
        out.missing = all_names(library);
        out.functions_missing = out.missing != NULL ? out.functions : 0; /* 0: out of memory */
        out.error = load_error(library, outcome);
        result = CUBIND_ERROR_LIBRARY_NOT_FOUND;
    } else {
        census(library);
        out.found = 1;
        out.found_by = s->lib.found_by;
        out.path = s->lib.path;
        out.real_path = s->lib.real_path;
        out.soname = s->lib.soname;
        out.version_major = s->lib.version[0];
        out.version_minor = s->lib.version[1];
        out.version_patch = s->lib.version[2];
        out.version_source = s->lib.version_source;
        out.functions_found = s->found;
        out.functions_missing = s->missing_count;
        out.missing = s->missing;
    }
    /* a caller built against an older header gets its part only; a newer one learns how much */
    out.size = size < sizeof out ? size : sizeof out;
    memcpy(info, &out, out.size);
    if (result != CUBIND_OK)
        record_load_failure(library, NULL, "cubind_library_info", outcome);
    return result;
}

int cubind_function_available(const char *name)
{
    int lib;
    size_t i;
    if (name == NULL)
        return 0;
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        const cubind__symbol_table *t = cubind__symbols(lib);
        for (i = 0; i < t->count; ++i) {
            if (strcmp(name, cubind__function_name(t, i)) != 0 && strcmp(name, cubind__symbol_name(t, i)) != 0 &&
                strcmp(name, cubind__cubind_name(t, i)) != 0)
                continue;
            if (ensure_loaded((cubind_library)lib) != LOAD_OK)
                return 0;
            return cubind__own_symbol(&states[lib].lib, cubind__symbol_name(t, i)) != NULL;
        }
    }
    return 0;
}

const char *cubind_library_name(cubind_library library)
{
    return valid(library) ? cubind__libraries[library].name : NULL;
}

cubind_library cubind_library_from_name(const char *name)
{
    int lib;
    for (lib = 0; name != NULL && lib < CUBIND_LIBRARY_COUNT; ++lib)
        if (strcmp(name, cubind__libraries[lib].name) == 0)
            return (cubind_library)lib;
    return CUBIND_LIB_NONE;
}

const char *cubind_version(void)
{
    return CUBIND_RELEASE_STRING; /* cubind/version.h */
}
