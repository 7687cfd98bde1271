/*
 * loader/family.c - the soname family of a library (see family.h): what discovery requires of
 * every file before dlopen and of every handle it is given. Layer 2: calls strbuf (1).
 */
#include "family.h"

#include <string.h>

int cubind__soname_in_family(const cubind__library_desc *d, const char *soname)
{
    size_t i;
    for (i = 0; i < d->soname_count; ++i) {
        const char *so = strstr(d->sonames[i], ".so");
        size_t stem = so != NULL ? (size_t)(so - d->sonames[i]) + 3 : strlen(d->sonames[i]);
        if (strcmp(soname, d->sonames[i]) == 0)
            return 1;
        /* the same name with another version: "libcublas.so", "libcublas.so.14" */
        if (strncmp(soname, d->sonames[i], stem) == 0 && (soname[stem] == '\0' || soname[stem] == '.'))
            return 1;
    }
    return 0;
}

int cubind__check_family(const cubind__library_desc *d, const char *soname, cubind__strbuf *why)
{
    size_t i;
    if (soname == NULL) {
        cubind__strbuf_printf(why, ": has no DT_SONAME, so it cannot be told to be %s", d->file);
        return -1;
    }
    if (cubind__soname_in_family(d, soname))
        return 0;
    cubind__strbuf_printf(why, ": is ");
    cubind__strbuf_escaped(why, soname);
    cubind__strbuf_printf(why, ", not %s (its DT_SONAME is none of", d->file);
    for (i = 0; i < d->soname_count; ++i)
        cubind__strbuf_printf(why, "%s %s", i ? "," : "", d->sonames[i]);
    cubind__strbuf_printf(why, " or another version of them)");
    return -1;
}
