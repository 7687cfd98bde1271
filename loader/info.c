/*
 * loader/info.c - what cubind tells of its libraries and functions: cubind_library_info,
 * cubind_function_info, cubind_function_available, cubind_require_release, names, sonames and version.
 * Layer 8, above library.c (7), which it asks to load and resolve; it reads the generated tables
 * and the releases' (releases, 2), tells sonames by family (family, 2) and records errors (error, 2).
 * Its destructor frees what the copy keeps when the copy is unloaded (the platform seam's unload watch, 0).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/version.h"

#include "error.h"
#include "family.h"
#include "info.h"
#include "internal.h"
#include "library.h"
#include "opened.h"
#include "platform.h"
#include "releases.h"
#include "strbuf.h"

/* The texts of release_names, kept for as long as the copy is loaded: the releases known of each
 * library, and those that changed a function, by the mask of them. */
static _Atomic(char *) known_texts[CUBIND_LIBRARY_COUNT];
static _Atomic(char *) changed_texts[CUBIND_LIBRARY_COUNT][256];

/* The names of the releases of `t` whose bit (1 << index) is in `mask`, ", "-separated, newest
 * first or oldest first; built once into `*slot` and kept. */
static const char *release_names(_Atomic(char *) *slot, const cubind__release_table *t, unsigned mask,
                                 int oldest_first)
{
    char *text = atomic_load_explicit(slot, memory_order_acquire), *expected = NULL;
    cubind__strbuf buf = {0};
    size_t i;
    if (text != NULL)
        return text;
    cubind__unload_watch(); /* before it is kept */
    cubind__strbuf_printf(&buf, "%s", "");
    for (i = 0; i < t->release_count; ++i) {
        size_t r = oldest_first ? t->release_count - 1 - i : i;
        if (mask & (1u << r))
            cubind__strbuf_printf(&buf, "%s%s", buf.length ? ", " : "", cubind__release_at(t, r)->name);
    }
    text = cubind__strbuf_take(&buf);
    if (text == NULL)
        return "";
    if (atomic_compare_exchange_strong(slot, &expected, text))
        return text;
    free(text);
    return expected;
}

/* "13.0, 12.4, 11.8": the releases the bindings know for `library`, newest first. */
static const char *releases_known(cubind_library library)
{
    const cubind__release_table *t = cubind__release_table_of(library);
    return t == NULL ? NULL : release_names(&known_texts[library], t, ~0u, 0);
}

int cubind__coupled_mix(cubind_library library, cubind__strbuf *text)
{
    const cubind__library_desc *d = &cubind__libraries[library];
    const char *mine = cubind__release_name(library, cubind__release_in_use(library));
    int other, mixed = 0;
    for (other = 0; other < CUBIND_LIBRARY_COUNT; ++other) {
        const char *theirs;
        if (!(d->coupled & (1ULL << other)) || !cubind__is_loaded((cubind_library)other))
            continue;
        theirs = cubind__release_name((cubind_library)other, cubind__release_in_use((cubind_library)other));
        if (mine == NULL || theirs == NULL || strcmp(mine, theirs) == 0)
            continue;
        cubind__strbuf_printf(text, "%s%s is of CUDA %s but %s (%s) of CUDA %s", mixed++ ? "; " : "", d->file, mine,
                              cubind__libraries[other].file, cubind__opened_of((cubind_library)other)->path_escaped, theirs);
    }
    return mixed;
}

int cubind__version_note(cubind_library library, cubind__strbuf *text)
{
    const cubind__opened *lib = cubind__opened_of(library);
    const cubind__release_table *t = cubind__release_table_of(library);
    const char *release = cubind__release_name(library, cubind__release_in_use(library));
    int by_soname[3];
    if (cubind__contradicts_soname(library, lib->soname, lib->version, by_soname)) {
        cubind__strbuf_printf(text, "%s answers version %s, which contradicts its soname %s (major %d): it is called as "
                              "CUDA %s, of the major its soname names", cubind__libraries[library].version_query_name,
                              lib->version_text, lib->soname, by_soname[0], release != NULL ? release : "?");
        return 1;
    }
    if (t != NULL && t->release_count > 0 && cubind__libraries[library].soname_versioned &&
        lib->version[0] > cubind__release_at(t, 0)->library_version[0]) {
        cubind__strbuf_printf(text, "%s %s is of a major newer than every release these bindings know: it is called "
                              "as CUDA %s because CUBIND_ALLOW_NEWER_MAJOR=1", cubind__libraries[library].file,
                              lib->version_text, release != NULL ? release : "?");
        return 1;
    }
    return 0;
}

/* Every distinct release note given out, per library (interned: handed out for as long as the copy is loaded). */
struct note {
    struct note *earlier;
    char text[];
};
static struct note *notes[CUBIND_LIBRARY_COUNT];
static cubind__mutex notes_lock = CUBIND__MUTEX_INIT;

/* Why `library` is called as a release its version does not say, and how it and the coupled
 * libraries loaded beside it mix releases; NULL when neither. */
static const char *release_note(cubind_library library)
{
    const char *kept = NULL;
    cubind__strbuf text = {0}, mix = {0};
    struct note *n;
    cubind__version_note(library, &text);
    if (cubind__coupled_mix(library, &mix))
        cubind__strbuf_printf(&text, "%s%s: libraries used together should come from one release",
                              text.length ? "; " : "", cubind__strbuf_str(&mix));
    cubind__strbuf_free(&mix);
    if (text.length == 0) {
        cubind__strbuf_free(&text);
        return NULL;
    }
    cubind__unload_watch(); /* before it is kept */
    cubind__mutex_lock(&notes_lock);
    for (n = notes[library]; n != NULL && kept == NULL; n = n->earlier)
        if (strcmp(n->text, cubind__strbuf_str(&text)) == 0)
            kept = n->text;
    if (kept == NULL && (n = malloc(sizeof *n + text.length + 1)) != NULL) {
        memcpy(n->text, cubind__strbuf_str(&text), text.length + 1);
        n->earlier = notes[library];
        notes[library] = n;
        kept = n->text;
    }
    cubind__mutex_unlock(&notes_lock);
    cubind__strbuf_free(&text);
    return kept;
}

/* The first layout of struct cubind_library_info (up to `error`): the least a caller may pass. */
#define INFO_MIN_SIZE (offsetof(struct cubind_library_info, error) + sizeof(const char *))

cubind_error_kind cubind_library_info(cubind_library library, struct cubind_library_info *info)
{
    const cubind__library_desc *d;
    const cubind__opened *lib;
    struct cubind_library_info out;
    cubind_error_kind result = CUBIND_OK;
    size_t size;
    int outcome;
    if (!cubind__valid_library(library))
        return cubind__invalid_library("cubind_library_info", library);
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
    lib = cubind__opened_of(library);
    memset(&out, 0, sizeof out);
    out.library = library;
    out.name = d->name;
    out.version_major = out.version_minor = out.version_patch = -1;
    out.functions = cubind__symbols(library)->count;
    out.releases = releases_known(library);
    outcome = cubind__ensure_loaded(library);
    if (outcome != CUBIND__LOAD_OK) {
        out.missing = cubind__all_names(library);
        out.functions_missing = out.missing != NULL ? out.functions : 0; /* 0: out of memory */
        out.error = cubind__load_error(library, outcome);
        result = CUBIND_ERROR_LIBRARY_NOT_FOUND;
    } else {
        cubind__census(library, &out.functions_found, &out.missing, &out.functions_missing);
        out.found = 1;
        out.found_by = lib->found_by;
        out.loaded_by = lib->loaded_by;
        out.path = lib->path;
        out.real_path = lib->real_path;
        out.soname = lib->soname;
        out.version_major = lib->version[0];
        out.version_minor = lib->version[1];
        out.version_patch = lib->version[2];
        out.version_source = lib->version_source;
        out.version_origin = (cubind_version_origin)lib->version_origin;
        out.version_detail = lib->version_detail;
        out.version_text = lib->version[0] >= 0 ? lib->version_text : NULL;
        out.release = cubind__release_name(library, cubind__release_in_use(library));
        out.release_note = release_note(library);
    }
    /* a caller built against an older header gets its part only; a newer one learns how much */
    out.size = size < sizeof out ? size : sizeof out;
    memcpy(info, &out, out.size);
    if (result != CUBIND_OK)
        cubind__record_load_failure(library, NULL, "cubind_library_info", outcome);
    return result;
}

/* The library and index of the function `name` names (C API name, exported symbol or cubind
 * name); 0 when cubind binds none of that name. */
static int find_function(const char *name, cubind_library *library, size_t *index)
{
    int lib;
    size_t i;
    for (lib = 0; name != NULL && lib < CUBIND_LIBRARY_COUNT; ++lib) {
        const cubind__symbol_table *t = cubind__symbols(lib);
        for (i = 0; i < t->count; ++i) {
            if (strcmp(name, cubind__function_name(t, i)) == 0 || strcmp(name, cubind__symbol_name(t, i)) == 0 ||
                strcmp(name, cubind__cubind_name(t, i)) == 0) {
                *library = (cubind_library)lib;
                *index = i;
                return 1;
            }
        }
    }
    return 0;
}

int cubind_function_available(const char *name)
{
    cubind_library library;
    size_t index;
    cubind__resolution r;
    /* An unknown name is 0, as a bound function that cannot be called: an availability test is
     * true only for what can be called, in every language (-1, as 0.4.0 returned, is true). */
    if (!find_function(name, &library, &index))
        return CUBIND_FUNCTION_NOT_AVAILABLE;
    if (cubind__ensure_loaded(library) != CUBIND__LOAD_OK)
        return CUBIND_FUNCTION_NOT_AVAILABLE;
    cubind__resolve_in_release(library, cubind__symbols(library), index, &r);
    return r.fn != NULL ? CUBIND_FUNCTION_AVAILABLE : CUBIND_FUNCTION_NOT_AVAILABLE;
}

/* "12.4, 13.0": the releases where a function of `library` changed its ABI (the bits of `mask`),
 * oldest first. */
static const char *changed_text(cubind_library library, const cubind__release_table *t, unsigned mask)
{
    return release_names(&changed_texts[library][mask & 255u], t, mask, 1);
}

/* The first layout of struct cubind_function_info (up to `reason`): the least a caller may pass. */
#define FUNCTION_INFO_MIN_SIZE (offsetof(struct cubind_function_info, reason) + sizeof(const char *))

cubind_error_kind cubind_function_info(const char *name, struct cubind_function_info *info)
{
    struct cubind_function_info out;
    const cubind__release_table *t;
    const cubind__symbol_table *symbols;
    cubind_library library;
    size_t index, size;
    if (info == NULL || info->size < FUNCTION_INFO_MIN_SIZE) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, "cubind_function_info", 0,
                             "cubind_function_info: %s; set info->size to sizeof(struct cubind_function_info) "
                             "(at least %zu) before the call",
                             info == NULL ? "info is NULL" : "info->size is too small", (size_t)FUNCTION_INFO_MIN_SIZE);
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    size = info->size;
    memset(&out, 0, sizeof out);
    out.library = CUBIND_LIB_NONE;
    if (!find_function(name, &library, &index)) {
        out.state = CUBIND_FUNCTION_UNKNOWN;
        out.reason = "cubind binds no function of that name";
        out.size = size < sizeof out ? size : sizeof out;
        memcpy(info, &out, out.size);
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    symbols = cubind__symbols(library);
    t = cubind__release_table_of(library);
    out.library = library;
    out.name = cubind__function_name(symbols, index);
    out.cubind_name = cubind__cubind_name(symbols, index);
    if (t != NULL && t->release_count > 0) {
        const cubind__release_history *h = (const cubind__release_history *)((const char *)t + t->history_at) + index;
        out.added_in = cubind__release_at(t, h->added_in < t->release_count ? h->added_in : t->release_count - 1)->name;
        out.changed_in = changed_text(library, t, h->changed_in);
    }
    if (cubind__ensure_loaded(library) != CUBIND__LOAD_OK) {
        out.state = CUBIND_FUNCTION_NOT_LOADED;
        out.reason = cubind__load_error(library, CUBIND__LOAD_FAILED);
    } else {
        cubind__resolution r;
        cubind__resolve_in_release(library, symbols, index, &r);
        out.state = r.state;
        out.release = cubind__release_name(library, cubind__release_in_use(library));
        out.symbol = r.symbol;
        out.reason = r.reason != NULL ? r.reason
                     : r.state == CUBIND_FUNCTION_MISSING ? "the loaded library does not export it"
                                                          : NULL;
    }
    out.size = size < sizeof out ? size : sizeof out;
    memcpy(info, &out, out.size);
    return CUBIND_OK;
}

/* Whether major.minor is the name of one of `library`'s releases ("12.4"). */
static int known_release(cubind_library library, int major, int minor)
{
    const cubind__release_table *t = cubind__release_table_of(library);
    size_t r;
    int m, n;
    for (r = 0; t != NULL && r < t->release_count; ++r)
        if (sscanf(cubind__release_at(t, r)->name, "%d.%d", &m, &n) == 2 && m == major && n == minor)
            return 1;
    return 0;
}

cubind_error_kind cubind_require_release(cubind_library library, int major, int minor)
{
    const char *name;
    int have_major = 0, have_minor = 0, release;
    if (!cubind__valid_library(library))
        return cubind__invalid_library("cubind_require_release", library);
    if (major < 0 || minor < 0 || minor > 99) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_require_release", 0,
                             "cubind_require_release: %d.%d is not a CUDA release", major, minor);
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    if (!known_release(library, major, minor)) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, library, "cubind_require_release", 0,
                             "cubind_require_release: %d.%d is not a release these bindings know for %s (%s): "
                             "a library is called as one of those, so only they can be required", major, minor,
                             cubind__libraries[library].file, releases_known(library));
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    if ((release = cubind__require_release_in_use(library, major, minor)) < 0)
        return CUBIND_OK; /* checked when it loads */
    name = cubind__release_name(library, release);
    if (name != NULL && sscanf(name, "%d.%d", &have_major, &have_minor) == 2 &&
        (have_major > major || (have_major == major && have_minor >= minor)))
        return CUBIND_OK;
    cubind__error_record(CUBIND_ERROR_ALREADY_LOADED, library, "cubind_require_release", 0,
                         "cubind_require_release: %s is already loaded from %s, of CUDA %s, older than the %d.%d "
                         "required",
                         cubind__libraries[library].file, cubind__opened_of(library)->path_escaped, name != NULL ? name : "?", major, minor);
    return CUBIND_ERROR_ALREADY_LOADED;
}

const char *cubind_library_name(cubind_library library)
{
    return cubind__valid_library(library) ? cubind__libraries[library].name : NULL;
}

cubind_library cubind_library_from_name(const char *name)
{
    int lib;
    for (lib = 0; name != NULL && lib < CUBIND_LIBRARY_COUNT; ++lib)
        if (strcmp(name, cubind__libraries[lib].name) == 0)
            return (cubind_library)lib;
    return CUBIND_LIB_NONE;
}

cubind_library cubind_library_from_soname(const char *soname)
{
    int lib;
    for (lib = 0; soname != NULL && lib < CUBIND_LIBRARY_COUNT; ++lib)
        if (cubind__soname_in_family(&cubind__libraries[lib], soname))
            return (cubind_library)lib;
    return CUBIND_LIB_NONE;
}

const char *cubind_version(void)
{
    return CUBIND_RELEASE_STRING; /* cubind/version.h */
}

/* The copy is unloaded (dlclose of the object it is part of) while the process goes on: what it
 * keeps is freed, or it would be left behind, unreachable, once its memory is unmapped. Not at
 * exit, when another thread may still be calling cubind (cubind__unloading, platform.h). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((destructor)) static void unloaded(void)
{
    int library, mask;
    if (!cubind__unloading())
        return;
    cubind__mutex_lock(&notes_lock);
    for (library = 0; library < CUBIND_LIBRARY_COUNT; ++library) {
        struct note *n = notes[library], *earlier;
        for (; n != NULL; n = earlier) {
            earlier = n->earlier;
            free(n);
        }
        notes[library] = NULL;
        free(atomic_exchange(&known_texts[library], NULL));
        for (mask = 0; mask < 256; ++mask)
            free(atomic_exchange(&changed_texts[library][mask], NULL));
    }
    cubind__mutex_unlock(&notes_lock);
    cubind__library_unload();
    cubind__error_unload();
}
#endif
