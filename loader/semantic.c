/*
 * loader/semantic.c - the loader's part of the adapters' refusals (docs/releases.md, "Semantic
 * adapters", "No silent drop"): a generated adapter that cannot make its older entry point do what the
 * newest form asks, for the arguments given (a condition of its mapping, or a record setting what the
 * older layout cannot carry), refuses the call here, before anything is called or written.
 * Layer 4: calls releases (3), error (2) and the generated tables (library descriptions, status names).
 */
#include "semantic.h"
#include "internal.h"

#include <stdio.h>
#include <string.h>

int cubind__semantic_refuse(cubind_library library, const char *function, const char *release, const char *entry,
                            const char *why)
{
    const cubind__library_desc *d = &cubind__libraries[library];
    const char *status_name = cubind_status_name(library, d->status_missing_symbol);
    cubind__error_record(CUBIND_ERROR_SYMBOL_NOT_FOUND, library, function, d->status_missing_symbol,
                         "%s: not called: %s is called as CUDA %s, through %s, which cannot do it for these "
                         "arguments: %s; nothing was written, so the call returns %s (%d)",
                         function, d->file, release, entry, why, status_name != NULL ? status_name : "?",
                         d->status_missing_symbol);
    return cubind__reported(d->status_missing_symbol);
}

int cubind__record_refused(cubind_library library, const char *function, const char *release, const char *entry,
                           const char *param, const void *record, const cubind__record_conversion *table,
                           int *status)
{
    char why[512];
    const cubind__not_carried *part = cubind__record_not_carried(record, table);
    if (part == NULL)
        return 0;
    if (part->when_size != 0) /* a union member's: say which member is in use */
        (void)snprintf(why, sizeof why, "%s->%s is set while %s->%s is %s, which CUDA %s's %s does not have", param,
                       cubind__record_string(table, part->name), param, cubind__record_string(table, part->when_field),
                       cubind__record_string(table, part->when_name), release, cubind__record_string(table, 0));
    else
        (void)snprintf(why, sizeof why, "%s->%s is set, which CUDA %s's %s does not have", param,
                       cubind__record_string(table, part->name), release, cubind__record_string(table, 0));
    *status = cubind__semantic_refuse(library, function, release, entry, why);
    return 1;
}

int cubind__semantic_zero(const void *p, size_t count, size_t size)
{
    const unsigned char *bytes = p;
    size_t i, n = count * size;
    if (size != 0 && n / size != count)
        return 0; /* more than memory holds: not all default */
    for (i = 0; i < n; ++i)
        if (bytes[i] != 0)
            return 0;
    return 1;
}

void cubind__semantic_clear(void *p, size_t count, size_t size)
{
    size_t n = count * size;
    if (size != 0 && n / size == count)
        memset(p, 0, n);
}
