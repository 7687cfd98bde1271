/*
 * loader/loaded_objects.c - the walks of the objects the process has loaded (see
 * loaded_objects.h): dl_iterate_phdr and the main namespace's link-map list, read, never
 * changed. Layer 2: calls libc and the dynamic loader only.
 */
#define _GNU_SOURCE
#include "loaded_objects.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

/* An object of cubind's own: its address tells which loaded object is cubind. */
static const char own_object[] = "cubind";

const char *cubind__dynamic_soname(const ElfW(Dyn) *dyn, uintptr_t base)
{
    uintptr_t strtab = 0;
    size_t offset = 0;
    int has_soname = 0;
    for (; dyn != NULL && dyn->d_tag != DT_NULL; ++dyn) {
        if (dyn->d_tag == DT_STRTAB)
            strtab = (uintptr_t)dyn->d_un.d_ptr;
        else if (dyn->d_tag == DT_SONAME) {
            offset = (size_t)dyn->d_un.d_val;
            has_soname = 1;
        }
    }
    if (!has_soname || strtab == 0)
        return NULL;
    if (strtab < base) /* ABIs that leave the dynamic section unrelocated */
        strtab += base;
    return (const char *)strtab + offset;
}

/* dl_iterate_phdr reports the program first: the r_debug the dynamic loader publishes through
 * the program's DT_DEBUG entry (what debuggers read) starts the main namespace's list. */
static int program_link_map(struct dl_phdr_info *info, size_t size, void *data)
{
    size_t i;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            const ElfW(Dyn) *dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
            for (; dyn->d_tag != DT_NULL; ++dyn)
                if (dyn->d_tag == DT_DEBUG && dyn->d_un.d_ptr != 0)
                    *(struct link_map **)data = ((const struct r_debug *)dyn->d_un.d_ptr)->r_map;
        }
    return 1; /* the program only */
}

/* From DT_DEBUG; in a program without one, dlinfo of what dlopen(NULL) returns. The program is
 * never unloaded, so this is asked once, and that handle is not closed. */
struct link_map *cubind__main_map(void)
{
    static _Atomic(struct link_map *) cached;
    struct link_map *map = atomic_load_explicit(&cached, memory_order_acquire);
    if (map == NULL) {
        dl_iterate_phdr(program_link_map, &map);
        if (map == NULL) {
            void *program = dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD);
            if (program == NULL || dlinfo(program, RTLD_DI_LINKMAP, &map) != 0)
                return NULL;
        }
        atomic_store_explicit(&cached, map, memory_order_release);
    }
    return map;
}

/* One walk's state: cubind's own link map is the main namespace's link map with the load address
 * and name dl_iterate_phdr reports for the object holding `self_address` (it hands out the link
 * map's own l_name). */
struct walk {
    const cubind__library_desc *d;
    uintptr_t self_address;
    struct link_map *head; /* cubind__main_map(): where the main namespace's link-map list starts */
    cubind__loaded *out;
};

/* Which of the library's sonames the object's DT_NEEDED entries name: the first object found that
 * needs one is kept (the program is reported first, then in load order). */
static void needed(struct walk *walk, const ElfW(Dyn) *dyn, const struct dl_phdr_info *info)
{
    const ElfW(Dyn) *entry;
    uintptr_t strtab = 0;
    size_t i;
    for (entry = dyn; entry->d_tag != DT_NULL; ++entry)
        if (entry->d_tag == DT_STRTAB)
            strtab = (uintptr_t)entry->d_un.d_ptr;
    if (strtab == 0)
        return;
    if (strtab < info->dlpi_addr) /* ABIs that leave the dynamic section unrelocated */
        strtab += info->dlpi_addr;
    for (entry = dyn; entry->d_tag != DT_NULL; ++entry)
        if (entry->d_tag == DT_NEEDED)
            for (i = 0; i < walk->d->soname_count && i < CUBIND__NEEDED_BY; ++i)
                if (walk->out->needed_by[i] == NULL &&
                    strcmp((const char *)strtab + entry->d_un.d_val, walk->d->sonames[i]) == 0)
                    walk->out->needed_by[i] = info->dlpi_name != NULL ? info->dlpi_name : "";
}

static int walk_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct walk *walk = data;
    const char *name = info->dlpi_name != NULL ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    const char *soname = NULL;
    size_t i;
    (void)size;
    base = base != NULL ? base + 1 : name;
    for (i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC && soname == NULL) {
            soname = cubind__dynamic_soname((const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr), info->dlpi_addr);
        } else if (ph->p_type == PT_LOAD && walk->out->self == NULL &&
                   walk->self_address - (info->dlpi_addr + ph->p_vaddr) < ph->p_memsz) {
            struct link_map *l;
            for (l = walk->head; l != NULL && walk->out->self == NULL; l = l->l_next)
                if (l->l_addr == info->dlpi_addr && l->l_name == info->dlpi_name)
                    walk->out->self = l;
        }
    }
    for (i = 0; i < walk->d->soname_count && i < 64; ++i)
        if ((soname != NULL && strcmp(soname, walk->d->sonames[i]) == 0) || strcmp(base, walk->d->sonames[i]) == 0)
            walk->out->sonames |= 1ull << i;
    for (i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            needed(walk, (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr), info);
    return 0;
}

void cubind__walk_loaded(const cubind__library_desc *d, cubind__loaded *out)
{
    struct walk walk;
    size_t i;
    out->sonames = 0;
    out->self = NULL;
    for (i = 0; i < CUBIND__NEEDED_BY; ++i)
        out->needed_by[i] = NULL;
    walk.d = d;
    walk.self_address = (uintptr_t)(const void *)own_object;
    walk.head = cubind__main_map();
    walk.out = out;
    dl_iterate_phdr(walk_object, &walk);
}

void *cubind__own_map(const cubind__loaded *loaded)
{
    Dl_info where;
    void *self = NULL;
    if (loaded->self != NULL)
        return loaded->self;
    if (dladdr1(own_object, &where, &self, RTLD_DL_LINKMAP) == 0)
        self = NULL;
    return self;
}
