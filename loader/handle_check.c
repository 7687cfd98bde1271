/*
 * loader/handle_check.c - a handle must be that of an object loaded in the main namespace, and of
 * the library's soname family (see handle_check.h). Layer 3: calls family (2), strbuf (1) and the
 * platform seam (0).
 */
#include "handle_check.h"

#include <stdlib.h>

#include "family.h"
#include "platform.h"

/* The check; with `why` NULL, the answer alone (nothing formatted). */
static int check_handle(const cubind__library_desc *d, void *handle, cubind__strbuf *why)
{
    const char *pseudo = cubind__lib_pseudo_name(handle);
    char *soname = NULL, *name = NULL;
    int result;
    cubind__strbuf text = {0};
    if (pseudo != NULL) {
        if (why != NULL)
            cubind__strbuf_printf(why, "%s is a pseudo-handle, not the handle of a loaded library", pseudo);
        return -1;
    }
    if (!cubind__lib_in_main_namespace(handle, &soname, why != NULL ? &name : NULL)) {
        if (why != NULL)
            cubind__strbuf_printf(why, "%p is not the handle of an object loaded in this process (dlopen's main "
                                       "namespace)", handle);
        return -1;
    }
    if (why == NULL) {
        result = soname != NULL && cubind__soname_in_family(d, soname) ? 0 : -1;
        free(soname);
        return result;
    }
    cubind__strbuf_escaped(&text, name != NULL ? name : "?");
    result = cubind__check_family(d, soname, &text);
    free(soname);
    free(name);
    if (result != 0)
        cubind__strbuf_printf(why, "%s", cubind__strbuf_str(&text));
    cubind__strbuf_free(&text);
    return result;
}

int cubind__handle_in_family(const cubind__library_desc *d, void *handle)
{
    return check_handle(d, handle, NULL) == 0;
}

int cubind__check_handle(const cubind__library_desc *d, void *handle, cubind__strbuf *why)
{
    cubind__strbuf ignored = {0};
    int result;
    if (check_handle(d, handle, NULL) == 0)
        return 0;
    result = check_handle(d, handle, why != NULL ? why : &ignored); /* again, to say why */
    cubind__strbuf_free(&ignored);
    return result;
}
