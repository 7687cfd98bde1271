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
 * done. It is a plain mutex because the child must unlock it: glibc refuses to unlock
 * a recursive mutex there (its owner's thread id is not the child's), which left
 * every later load in the child blocked for ever.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/version.h"

#include "discovery.h"
#include "error.h"
#include "internal.h"
#include "strbuf.h"

enum { STATE_UNTRIED = 0, STATE_LOADED = 1, STATE_FAILED = 2 };
enum { LOAD_OK = 0, LOAD_FAILED = -1, LOAD_REENTERED = -2 };

/* Why a load failed. Never freed: cubind_library_info hands the text out as valid for the
 * life of the process, and another thread may be formatting it when a retry fails anew. */
struct load_failure {
    struct load_failure *earlier;
    char text[];
};

struct lib_state {
    atomic_int state;
    cubind__opened lib;   /* valid once loaded */
    _Atomic(struct load_failure *) failure; /* why the latest load failed; earlier ones behind it */
    char *explicit_path;  /* cubind_set_library_path */
    void *explicit_handle; /* cubind_set_library_handle */
    int census_done;      /* functions found / missing counted */
    size_t found;
    const char **missing;
    size_t missing_count;
};

static struct lib_state states[CUBIND_LIBRARY_COUNT];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local unsigned lock_depth;
static _Thread_local unsigned char tls_loading[CUBIND_LIBRARY_COUNT];

static void init(void);

static void lock(void)
{
    pthread_once(&init_once, init);
    if (lock_depth++ == 0)
        pthread_mutex_lock(&load_lock);
}

static void unlock(void)
{
    if (--lock_depth == 0)
        pthread_mutex_unlock(&load_lock);
}

static void init(void)
{
    pthread_atfork(lock, unlock, unlock);
}

static const char *failure_text(const struct lib_state *s)
{
    const struct load_failure *f = atomic_load_explicit(&s->failure, memory_order_acquire);
    return f != NULL ? f->text : NULL;
}

/* Keep `why` as the latest failure; the same text as the last one is not kept twice, so
 * retrying a missing file does not grow the process. */
static void keep_failure(struct lib_state *s, cubind__strbuf *why)
{
    const char *text = cubind__strbuf_str(why);
    struct load_failure *latest = atomic_load_explicit(&s->failure, memory_order_acquire), *f;
    size_t length = strlen(text);
    if (latest != NULL && strcmp(latest->text, text) == 0)
        return;
    f = malloc(sizeof *f + length + 1);
    if (f == NULL)
        return; /* the earlier reason, if any, stays */
    f->earlier = latest;
    memcpy(f->text, text, length + 1);
    atomic_store_explicit(&s->failure, f, memory_order_release);
}

static int valid(cubind_library library)
{
    return (int)library >= 0 && (int)library < CUBIND_LIBRARY_COUNT;
}

static int ensure_loaded(cubind_library library)
{
    struct lib_state *s = &states[library];
    int state = atomic_load_explicit(&s->state, memory_order_acquire);
    if (state == STATE_LOADED)
        return LOAD_OK;
    if (state == STATE_FAILED)
        return LOAD_FAILED;
    if (tls_loading[library])
        return LOAD_REENTERED;
    lock();
    state = atomic_load_explicit(&s->state, memory_order_acquire);
    if (state == STATE_UNTRIED) {
        cubind__strbuf why = {0};
        tls_loading[library] = 1;
        if (cubind__open(&cubind__libraries[library], s->explicit_path, s->explicit_handle, &s->lib, &why) == 0) {
            state = STATE_LOADED;
        } else {
            keep_failure(s, &why);
            state = STATE_FAILED;
        }
        cubind__strbuf_free(&why);
        tls_loading[library] = 0;
        atomic_store_explicit(&s->state, state, memory_order_release);
    }
    unlock();
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
                             "%s: lib%s could not be loaded, so the call returns %s (%d): %s", function, d->name,
                             status_name != NULL ? status_name : "?", d->status_missing_library,
                             load_error(library, outcome));
    else
        cubind__error_record(CUBIND_ERROR_LIBRARY_NOT_FOUND, library, api, d->status_missing_library,
                             "lib%s could not be loaded: %s", d->name, load_error(library, outcome));
}

static void record_symbol_missing(cubind_library library, size_t index)
{
    const cubind__library_desc *d = &cubind__libraries[library];
    const cubind__symbol_table *t = d->symbols;
    const cubind__opened *lib = &states[library].lib;
    const char *status_name = cubind_status_name(library, d->status_missing_symbol);
    cubind__error_record(CUBIND_ERROR_SYMBOL_NOT_FOUND, library, t->names[index], d->status_missing_symbol,
                         "%s: symbol %s not found in %s (lib%s version %s), so the call returns %s (%d)",
                         t->names[index], t->symbols[index], lib->path_escaped, d->name, lib->version_text,
                         status_name != NULL ? status_name : "?", d->status_missing_symbol);
}

cubind__fnptr cubind__resolve(const cubind__symbol_table *table, size_t index)
{
    cubind_library library = table->library;
    cubind__fnptr fn;
    int outcome = ensure_loaded(library);
    if (outcome != LOAD_OK) {
        record_load_failure(library, table->names[index], NULL, outcome);
        return NULL;
    }
    fn = cubind__own_symbol(&states[library].lib, table->symbols[index]);
    if (fn == NULL) {
        record_symbol_missing(library, index);
        return NULL;
    }
    atomic_store_explicit(&table->slots[index], fn, memory_order_release);
    return fn;
}

CUBIND_COLD int cubind__unavailable_status(const cubind__symbol_table *table)
{
    const cubind__library_desc *d = &cubind__libraries[table->library];
    return cubind__error_kind() == CUBIND_ERROR_SYMBOL_NOT_FOUND ? d->status_missing_symbol
                                                                   : d->status_missing_library;
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
    lock();
    if (atomic_load_explicit(&s->state, memory_order_acquire) == STATE_LOADED || tls_loading[library]) {
        result = CUBIND_ERROR_ALREADY_LOADED;
    } else {
        free(s->explicit_path);
        s->explicit_path = copy;
        copy = NULL;
        s->explicit_handle = handle;
        atomic_store_explicit(&s->state, STATE_UNTRIED, memory_order_release);
    }
    unlock();
    free(copy);
    if (result == CUBIND_ERROR_ALREADY_LOADED)
        cubind__error_record(result, library, function, 0,
                             "%s: lib%s is already loaded from %s; a path or handle must be set before its "
                             "first use",
                             function, cubind__libraries[library].name,
                             s->lib.path_escaped != NULL ? s->lib.path_escaped : "(loading)");
    return result;
}

cubind_error_kind cubind_set_library_path(cubind_library library, const char *path)
{
    if (valid(library) && path != NULL && path[0] != '/') {
        cubind__strbuf quoted = {0};
        cubind__strbuf_escaped(&quoted, path);
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_set_library_path", 0,
                             "cubind_set_library_path: refused relative path \"%s\" for lib%s: cubind loads "
                             "only absolute paths, never relative to the working directory",
                             cubind__strbuf_str(&quoted), cubind__libraries[library].name);
        cubind__strbuf_free(&quoted);
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    return set_source(library, "cubind_set_library_path", path, NULL);
}

cubind_error_kind cubind_set_library_handle(cubind_library library, void *handle)
{
    if (valid(library) && handle == NULL) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_set_library_handle", 0,
                             "cubind_set_library_handle: the handle is NULL");
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    return set_source(library, "cubind_set_library_handle", NULL, handle);
}

/* Resolve every symbol of a loaded library once, caching those found. */
static void census(cubind_library library)
{
    struct lib_state *s = &states[library];
    const cubind__symbol_table *t = cubind__libraries[library].symbols;
    size_t i;
    lock();
    if (!s->census_done) {
        s->missing = malloc((t->count ? t->count : 1) * sizeof *s->missing);
        s->found = s->missing_count = 0;
        for (i = 0; i < t->count; ++i) {
            cubind__fnptr fn = cubind__own_symbol(&s->lib, t->symbols[i]);
            if (fn != NULL) {
                atomic_store_explicit(&t->slots[i], fn, memory_order_release);
                s->found++;
            } else if (s->missing != NULL) {
                s->missing[s->missing_count++] = t->names[i];
            }
        }
        s->census_done = 1;
    }
    unlock();
}

cubind_error_kind cubind_library_info(cubind_library library, struct cubind_library_info *info)
{
    const cubind__library_desc *d;
    struct lib_state *s;
    int outcome;
    if (!valid(library))
        return invalid_library("cubind_library_info", library);
    if (info == NULL) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_library_info", 0,
                             "cubind_library_info: info is NULL");
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    d = &cubind__libraries[library];
    s = &states[library];
    memset(info, 0, sizeof *info);
    info->library = library;
    info->name = d->name;
    info->version_major = info->version_minor = info->version_patch = -1;
    info->functions = d->symbols->count;
    outcome = ensure_loaded(library);
    if (outcome != LOAD_OK) {
        info->functions_missing = d->symbols->count;
        info->missing = d->symbols->names;
        info->error = load_error(library, outcome);
        record_load_failure(library, NULL, "cubind_library_info", outcome);
        return CUBIND_ERROR_LIBRARY_NOT_FOUND;
    }
    census(library);
    info->found = 1;
    info->found_by = s->lib.found_by;
    info->path = s->lib.path;
    info->real_path = s->lib.real_path;
    info->soname = s->lib.soname;
    info->version_major = s->lib.version[0];
    info->version_minor = s->lib.version[1];
    info->version_patch = s->lib.version[2];
    info->version_source = s->lib.version_source;
    info->functions_found = s->found;
    info->functions_missing = s->missing_count;
    info->missing = s->missing;
    return CUBIND_OK;
}

int cubind_function_available(const char *name)
{
    int lib;
    size_t i;
    if (name == NULL)
        return 0;
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        const cubind__symbol_table *t = cubind__libraries[lib].symbols;
        for (i = 0; i < t->count; ++i) {
            if (strcmp(name, t->names[i]) != 0 && strcmp(name, t->symbols[i]) != 0 &&
                strcmp(name, t->cubind_names[i]) != 0)
                continue;
            if (ensure_loaded((cubind_library)lib) != LOAD_OK)
                return 0;
            return cubind__own_symbol(&states[lib].lib, t->symbols[i]) != NULL;
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
