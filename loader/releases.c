/*
 * loader/releases.c - a loaded library's release, chosen once from its own version query, and
 * what each function's call becomes there (loader/releases.h). It reads the generated release
 * tables and the symbols the opened library itself exports (opened.c): it opens nothing. The
 * symbols NVIDIA's headers select carry their ABI version in their names (cuMemAlloc_v2), the
 * driver's too: cuGetProcAddress, asked by API name, hands out the newest form a driver has (at
 * 13000, cuCtxSynchronize_v2's for cuCtxSynchronize, seen on driver 580), so it is not used.
 * Layer 3: calls opened (2), strbuf (1), the platform seam (0) and the generated tables; called by
 * library.c (7) and info.c (8).
 */
#include "releases.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

static const char *strings(const cubind__release_table *t)
{
    return (const char *)t + t->strings_at;
}

const cubind__release *cubind__release_at(const cubind__release_table *table, size_t release)
{
    return (const cubind__release *)((const char *)table + table->releases_at) + release;
}

static const unsigned *firsts(const cubind__release_table *t)
{
    return (const unsigned *)((const char *)t + t->firsts_at);
}

static const cubind__release_entry *entries(const cubind__release_table *t)
{
    return (const cubind__release_entry *)((const char *)t + t->entries_at);
}

const char *cubind__release_name(cubind_library library, int release)
{
    const cubind__release_table *t = cubind__release_table_of(library);
    if (t == NULL || release < 0 || (size_t)release >= t->release_count)
        return NULL;
    return cubind__release_at(t, (size_t)release)->name;
}

static const cubind__field_pair *field_pairs(const cubind__record_conversion *table)
{
    return (const cubind__field_pair *)(const void *)((const char *)table + table->fields_at);
}

/* One generic copy, both directions: `to_old` chooses which offset of each pair is written. */
static void convert(void *to, size_t to_size, const void *from, const cubind__record_conversion *table, int to_old)
{
    const cubind__field_pair *f = field_pairs(table);
    size_t i;
    memset(to, 0, to_size);
    for (i = 0; i < table->count; ++i)
        memcpy((char *)to + (to_old ? f[i].old_offset : f[i].new_offset),
               (const char *)from + (to_old ? f[i].new_offset : f[i].old_offset), f[i].size);
}

/* The selector field of `part` read as the integer it holds (an enum: 1, 2, 4 or 8 bytes). */
static long long selector_value(const unsigned char *record, const cubind__not_carried *part)
{
    int8_t v8;
    int16_t v16;
    int32_t v32;
    int64_t v64 = 0;
    switch (part->when_size) {
    case 1:
        memcpy(&v8, record + part->when_offset, 1);
        return v8;
    case 2:
        memcpy(&v16, record + part->when_offset, 2);
        return v16;
    case 4:
        memcpy(&v32, record + part->when_offset, 4);
        return v32;
    default:
        memcpy(&v64, record + part->when_offset, 8);
        return v64;
    }
}

const cubind__not_carried *cubind__record_not_carried(const void *record, const cubind__record_conversion *table)
{
    const cubind__not_carried *parts =
        (const cubind__not_carried *)(const void *)((const char *)table + table->not_carried_at);
    const unsigned char *bytes = record;
    size_t i, k;
    if (record == NULL)
        return NULL;
    for (i = 0; i < table->not_carried_count; ++i) {
        if (parts[i].when_size != 0 && selector_value(bytes, &parts[i]) != parts[i].when_value)
            continue; /* another member of the union is in use: these bytes are its */
        for (k = 0; k < parts[i].size; ++k)
            if (bytes[parts[i].offset + k] != 0)
                return &parts[i];
    }
    return NULL;
}

const char *cubind__record_string(const cubind__record_conversion *table, unsigned offset)
{
    return (const char *)table + table->strings_at + offset;
}

void *cubind__record_to_old(void *buffer, const void *record, const cubind__record_conversion *table)
{
    if (record == NULL)
        return NULL;
    convert(buffer, table->old_size > table->new_size ? table->old_size : table->new_size, record, table, 1);
    return buffer;
}

void cubind__record_to_new(void *record, const void *buffer, const cubind__record_conversion *table)
{
    if (record != NULL)
        convert(record, table->new_size, buffer, table, 0);
}

/* -1, 0, 1 as a release's version is older, the same, newer than a loaded library's. A part the
 * library does not tell (-1: a version read from a file name, libcusolverMg.so.11) and the parts
 * after it match any; a part the release lacks counts as 0. */
static int compare_versions(const int release[3], const int loaded[3])
{
    int i;
    for (i = 0; i < 3 && loaded[i] >= 0; ++i) {
        int x = release[i] < 0 ? 0 : release[i];
        if (x != loaded[i])
            return x < loaded[i] ? -1 : 1;
    }
    return 0;
}

/* The CUDA major of release `r` ("12.4": 12). */
static int cuda_major(const cubind__release_table *t, size_t r)
{
    return atoi(cubind__release_at(t, r)->name);
}

/* The CUDA major `version` belongs to by the library's `cuda` table (a cuSOLVER 11.5 is CUDA 12's,
 * although 11.8's is 11.4): that of the newest release whose CUDA major begins at or before it; -1
 * when the table does not say, and the library's own major stands for CUDA's. */
static int cuda_major_of(const cubind__release_table *t, const int version[3])
{
    size_t r;
    for (r = 0; r < t->release_count; ++r)
        if (cubind__release_at(t, r)->cuda_from[0] >= 0 &&
            compare_versions(cubind__release_at(t, r)->cuda_from, version) <= 0)
            return cuda_major(t, r);
    return -1;
}

/* Whether release `r` is of `version`'s major: its CUDA major by the `cuda` table, else its library major. */
static int same_major_as(const cubind__release_table *t, size_t r, const int version[3], int cuda)
{
    return cuda >= 0 ? cuda_major(t, r) == cuda : cubind__release_at(t, r)->library_version[0] == version[0];
}

/* The release for `version`: the newest of its major (its CUDA major where the `cuda` table says
 * it) that is not newer than it; else the oldest of its major (functions added later are then
 * simply not exported: NVIDIA renames a function whose ABI changes within a major); else, for a
 * major between or above those known, the newest release older than it. -1 when it is older than
 * every one. `strict`: only the newest release not newer than it. */
static int choose(const cubind__release_table *t, const int version[3], int strict)
{
    size_t r;
    int same_major = -1, cuda;
    if (version[0] < 0)
        return 0; /* unknown: the bindings' own, as before releases were known */
    if (strict) { /* the newest release not newer than it, or none */
        for (r = 0; r < t->release_count; ++r)
            if (compare_versions(cubind__release_at(t, r)->library_version, version) <= 0)
                return (int)r;
        return -1;
    }
    cuda = cuda_major_of(t, version);
    for (r = 0; r < t->release_count; ++r) {
        const cubind__release *release = cubind__release_at(t, r);
        if (!same_major_as(t, r, version, cuda))
            continue;
        if (compare_versions(release->library_version, version) <= 0)
            return (int)r;
        same_major = (int)r; /* newest first: the last one seen is the oldest */
    }
    if (same_major >= 0)
        return same_major;
    for (r = 0; r < t->release_count; ++r)
        if (compare_versions(cubind__release_at(t, r)->library_version, version) < 0)
            return (int)r;
    return -1;
}

/* cubind_require_release: the oldest CUDA release (CUBIND__CUDA_NUMBER) accepted per library. */
static atomic_int required[CUBIND_LIBRARY_COUNT];

static int release_number(const char *name)
{
    int major = 0, minor = 0;
    if (sscanf(name, "%d.%d", &major, &minor) < 1)
        return 0;
    return CUBIND__CUDA_NUMBER(major, minor);
}

int cubind__newer_major_allowed(void)
{
    const char *allow = cubind__getenv("CUBIND_ALLOW_NEWER_MAJOR");
    return allow != NULL && strcmp(allow, "1") == 0;
}

int cubind__contradicts_soname(cubind_library library, const char *soname, const int version[3], int by_soname[3])
{
    const char *number = soname != NULL ? strstr(soname, ".so.") : NULL;
    char *end;
    long major;
    if (!cubind__libraries[library].soname_versioned || number == NULL || version[0] < 0 || number[4] < '0' ||
        number[4] > '9')
        return 0;
    major = strtol(number + 4, &end, 10);
    if (major == version[0] || major > 100000)
        return 0;
    by_soname[0] = (int)major;
    by_soname[1] = by_soname[2] = -1;
    return 1;
}

int cubind__release_of_file(cubind_library library, const char *soname, const int version[3], cubind__strbuf *why)
{
    int by_soname[3];
    int contradicts = cubind__contradicts_soname(library, soname, version, by_soname);
    return cubind__release_of(library, contradicts ? by_soname : version, why);
}

int cubind__release_of(cubind_library library, const int version[3], cubind__strbuf *why)
{
    const cubind__release_table *t = cubind__release_table_of(library);
    const cubind__release *newest;
    int release, minimum = atomic_load_explicit(&required[library], memory_order_acquire);
    if (t == NULL || t->release_count == 0)
        return 0;
    newest = cubind__release_at(t, 0);
    if (cubind__libraries[library].soname_versioned && version[0] > newest->library_version[0] &&
        !cubind__newer_major_allowed()) {
        cubind__strbuf_printf(why, "its major version, %d, is newer than every release these bindings know (the "
                              "newest: CUDA %s, version %d): NVIDIA changes a library's ABI at a major version, so it "
                              "is not called with CUDA %s's (CUBIND_ALLOW_NEWER_MAJOR=1 calls it so, at the "
                              "program's risk)", version[0], newest->name, newest->library_version[0], newest->name);
        return -1;
    }
    /* One library for every release (the driver): only a release it is not older than describes
     * what it has. */
    release = t->release_count == 1 ? 0 : choose(t, version, cubind__libraries[library].serves_every_release);
    if (release < 0) {
        const cubind__release *oldest = cubind__release_at(t, t->release_count - 1);
        int part;
        cubind__strbuf_printf(why, "it is older than the oldest release these bindings know (CUDA %s", oldest->name);
        /* the parts of its version that are known: "12.0.4", "12" (never "12.-1") */
        for (part = 0; part < 3 && oldest->library_version[part] >= 0; ++part)
            cubind__strbuf_printf(why, "%s%d", part ? "." : ", version ", oldest->library_version[part]);
        cubind__strbuf_printf(why, ")");
        return -1;
    }
    if (minimum != 0 && release_number(cubind__release_at(t, (size_t)release)->name) < minimum) {
        cubind__strbuf_printf(why, "it is called as CUDA %s; the program requires CUDA %d.%d or newer "
                              "(cubind_require_release)", cubind__release_at(t, (size_t)release)->name,
                              CUBIND__CUDA_MAJOR(minimum), CUBIND__CUDA_MINOR(minimum));
        return -1;
    }
    return release;
}

cubind_error_kind cubind__require_release(cubind_library library, int major, int minor)
{
    atomic_store_explicit(&required[library], CUBIND__CUDA_NUMBER(major, minor), memory_order_release);
    return CUBIND_OK;
}

/* The entry of function `index` in release `release`, or NULL when its call is as in the newest. The
 * newest release (0) has entries too: a function it removed, kept from the release the unit was
 * first bound from, is ABSENT there. */
static const cubind__release_entry *find(const cubind__release_table *t, int release, size_t index)
{
    size_t low, high;
    if (release < 0 || (size_t)release >= t->release_count)
        return NULL;
    low = firsts(t)[release];
    high = firsts(t)[release + 1];
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        const cubind__release_entry *e = &entries(t)[mid];
        if (e->function == index)
            return e;
        if (e->function < index)
            low = mid + 1;
        else
            high = mid;
    }
    return NULL;
}

void cubind__release_resolve(cubind_library library, int release, const cubind__symbol_table *table, size_t index,
                             const cubind__opened *lib, cubind__resolution *out)
{
    const cubind__release_table *t = cubind__release_table_of(library);
    const cubind__release_entry *e = t != NULL ? find(t, release, index) : NULL;
    out->fn = NULL;
    out->reason = NULL;
    if (e == NULL) {
        out->symbol = cubind__symbol_name(table, index);
        out->fn = cubind__own_symbol(lib, out->symbol);
        out->state = out->fn != NULL ? CUBIND_FUNCTION_CALLABLE : CUBIND_FUNCTION_MISSING;
        return;
    }
    out->symbol = e->action == CUBIND__RELEASE_SYMBOL || e->action == CUBIND__RELEASE_ADAPTER
                      ? strings(t) + e->symbol
                      : cubind__symbol_name(table, index);
    out->reason = e->reason != 0 ? strings(t) + e->reason : NULL;
    switch (e->action) {
    case CUBIND__RELEASE_SYMBOL:
        out->fn = cubind__own_symbol(lib, out->symbol);
        out->state = out->fn != NULL ? CUBIND_FUNCTION_CALLABLE : CUBIND_FUNCTION_MISSING;
        return;
    case CUBIND__RELEASE_ADAPTER: {
        cubind__slot *target = NULL;
        cubind__fnptr own = cubind__own_symbol(lib, out->symbol);
        cubind__fnptr adapter = cubind__adapter(library, e->adapter, &target);
        if (own == NULL || adapter == NULL || target == NULL) {
            out->state = CUBIND_FUNCTION_MISSING;
            out->reason = NULL; /* the release's own entry point is not there */
            return;
        }
        atomic_store_explicit(target, own, memory_order_release);
        out->fn = adapter;
        out->state = CUBIND_FUNCTION_ADAPTED;
        return;
    }
    case CUBIND__RELEASE_ABSENT: /* not part of that release, whatever the file exports */
        out->state = CUBIND_FUNCTION_MISSING;
        return;
    default:
        out->state = CUBIND_FUNCTION_REFUSED;
        return;
    }
}
