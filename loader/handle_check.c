/*
 * loader/handle_check.c - a dlopen handle is its object's link map: it must be one of the main
 * namespace's, and of the library's soname family (see handle_check.h). Layer 3: calls
 * loaded_objects (2), family (2) and strbuf (1).
 */
#define _GNU_SOURCE
#include "handle_check.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "loaded_objects.h"

struct handle_search {
    const void *handle;
    const struct link_map *head; /* cubind__main_map() */
    int found;
    int in_family;  /* its DT_SONAME is of d's family */
    int with_names; /* copy the soname and name out (for a message) */
    const cubind__library_desc *d;
    char *soname;
    char *name;
};

/* Called by dl_iterate_phdr, which holds the loader's lock: the link-map list cannot change
 * while it is walked. Only the first call does the work. */
static int find_handle(struct dl_phdr_info *info, size_t size, void *data)
{
    struct handle_search *search = data;
    const struct link_map *l;
    (void)info;
    (void)size;
    for (l = search->head; l != NULL; l = l->l_next)
        if ((const void *)l == search->handle) {
            const char *soname = cubind__dynamic_soname(l->l_ld, (uintptr_t)l->l_addr);
            search->found = 1;
            search->in_family = soname != NULL && cubind__soname_in_family(search->d, soname);
            if (search->with_names) {
                search->soname = soname != NULL ? strdup(soname) : NULL;
                search->name = strdup(l->l_name != NULL && l->l_name[0] != '\0' ? l->l_name : "the main program");
            }
            break;
        }
    return 1;
}

/* The check; with `why` NULL, the answer alone (nothing formatted). */
static int check_handle(const cubind__library_desc *d, void *handle, cubind__strbuf *why)
{
    struct handle_search search = {NULL, NULL, 0, 0, 0, NULL, NULL, NULL};
    int result;
    cubind__strbuf text = {0};
    if (handle == RTLD_DEFAULT || handle == RTLD_NEXT) {
        if (why != NULL)
            cubind__strbuf_printf(why, "%s is a pseudo-handle, not the handle of a loaded library",
                                  handle == RTLD_DEFAULT ? "RTLD_DEFAULT" : "RTLD_NEXT");
        return -1;
    }
    search.handle = handle;
    search.head = cubind__main_map();
    search.d = d;
    search.with_names = why != NULL;
    dl_iterate_phdr(find_handle, &search);
    if (!search.found) {
        if (why != NULL)
            cubind__strbuf_printf(why, "%p is not the handle of an object loaded in this process (dlopen's main "
                                       "namespace)", handle);
        return -1;
    }
    if (why == NULL)
        return search.in_family ? 0 : -1;
    cubind__strbuf_escaped(&text, search.name != NULL ? search.name : "?");
    result = cubind__check_family(d, search.soname, &text);
    free(search.soname);
    free(search.name);
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
