/*
 * loader/not_callable.c - why a function of a loaded library is not called (see not_callable.h):
 * the messages, recorded. Layer 4: calls error (2), releases (3) and the generated tables (library
 * descriptions, symbol tables, status names).
 */
#include "not_callable.h"

#include "error.h"
#include "internal.h"

static void record_symbol_missing(cubind_library library, size_t index, const char *symbol, const cubind__opened *lib)
{
    const cubind__library_desc *d = &cubind__libraries[library];
    const cubind__symbol_table *t = cubind__symbols(library);
    const char *status_name = cubind_status_name(library, d->status_missing_symbol);
    cubind__error_record(CUBIND_ERROR_SYMBOL_NOT_FOUND, library, cubind__function_name(t, index),
                         d->status_missing_symbol, "%s: symbol %s not found in %s (%s version %s), so the call returns %s (%d)",
                         cubind__function_name(t, index), symbol, lib->path_escaped, d->file,
                         lib->version_text,
                         status_name != NULL ? status_name : "?", d->status_missing_symbol);
}

void cubind__record_not_callable(cubind_library library, size_t index, const cubind__resolution *r,
                                 const cubind__opened *lib, int release_in_use)
{
    const cubind__library_desc *d = &cubind__libraries[library];
    const cubind__symbol_table *t = cubind__symbols(library);
    const char *status_name = cubind_status_name(library, d->status_missing_symbol);
    const char *release = cubind__release_name(library, release_in_use);
    if (r->reason == NULL && d->serves_every_release && lib->version[0] >= 0 &&
        CUBIND__CUDA_NUMBER(lib->version[0], lib->version[1] > 0 ? lib->version[1] : 0) < d->abi_version) {
        /* one library for every release, older than the bindings: the function needs a newer one */
        cubind__error_record(CUBIND_ERROR_SYMBOL_NOT_FOUND, library, cubind__function_name(t, index),
                             d->status_missing_symbol,
                             "%s: not called: it needs %s for CUDA %d.%d (the version these bindings were "
                             "generated for); %s (%s) supports CUDA %s, so the call returns %s (%d)",
                             cubind__function_name(t, index), d->file, CUBIND__CUDA_MAJOR(d->abi_version),
                             CUBIND__CUDA_MINOR(d->abi_version), d->file, lib->path_escaped, lib->version_text,
                             status_name != NULL ? status_name : "?", d->status_missing_symbol);
        return;
    }
    if (r->reason == NULL) {
        record_symbol_missing(library, index, r->symbol != NULL ? r->symbol : cubind__symbol_name(t, index), lib);
        return;
    }
    cubind__error_record(CUBIND_ERROR_SYMBOL_NOT_FOUND, library, cubind__function_name(t, index),
                         d->status_missing_symbol,
                         "%s: not called: %s %s (%s) is called as CUDA %s, where %s, so the call returns %s (%d)",
                         cubind__function_name(t, index), d->file, lib->version_text, lib->path_escaped,
                         release != NULL ? release : "?", r->reason, status_name != NULL ? status_name : "?",
                         d->status_missing_symbol);
}
