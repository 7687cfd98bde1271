/*
 * loader/library_version.c - a library's version and the answers of its version query that refuse a
 * file (see library_version.h). Layer 3: calls opened (2), strbuf (1), the platform seam (0) and the
 * generated tables (cubind__version_query, cubind_status_name).
 */
#define _GNU_SOURCE
#include "library_version.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

/* The handle each library's version query is being asked of by this thread, else NULL. */
static CUBIND__THREAD_LOCAL void *asking[CUBIND_LIBRARY_COUNT];

cubind__fnptr cubind__asked_definition(cubind_library library, const cubind__symbol_table *table, size_t index)
{
    void *handle = asking[library], *address;
    cubind__fnptr fn;
    if (handle == NULL || (address = cubind__lib_symbol(handle, cubind__symbol_name(table, index))) == NULL ||
        cubind__lib_holding(address) != handle)
        return NULL;
    memcpy(&fn, &address, sizeof fn);
    return fn;
}

/* cubind__version_query, with the handle asked of kept in `asking` meanwhile. */
static int ask(cubind_library library, void *handle, cubind__fnptr query, int version[3], int *status,
               cubind__fnptr *held_fini)
{
    void *previous = asking[library];
    int failed;
    asking[library] = handle;
    failed = cubind__version_query(library, handle, query, version, status, held_fini);
    asking[library] = previous;
    return failed;
}

const char *cubind__version_failed_name(const cubind__library_desc *d, int failed)
{
    return failed == -2 && d->version_init_name[0] != '\0' ? d->version_init_name : d->version_query_name;
}

/* Whether the environment says not to ask this library's version query (nor its init):
 * CUBIND_NO_VERSION_QUERY, library names separated by ',', ' ' or ':' ("cufft,nvml"). cubind-probe
 * sets it for a library whose query crashed or hung in a child; its version then comes from the file
 * name, and a file the query would refuse (the driver's link-time stub) is not told apart. */
static int query_not_asked(const cubind__library_desc *d)
{
    const char *list = cubind__getenv("CUBIND_NO_VERSION_QUERY");
    size_t n = strlen(d->name);
    while (list != NULL && *list != '\0') {
        size_t length = strcspn(list, ", :");
        if (length == n && strncmp(list, d->name, n) == 0)
            return 1;
        list += length;
        list += *list != '\0';
    }
    return 0;
}

int cubind__refused(const cubind__library_desc *d, void *handle, cubind__strbuf *why, cubind__version_answer *answer)
{
    void *address;
    size_t i;
    cubind__fnptr query;
    answer->handle = NULL;
    if (d->refused_count == 0 || d->version_query_name[0] == '\0' || query_not_asked(d))
        return 0;
    address = cubind__lib_symbol(handle, d->version_query_name);
    if (address == NULL)
        return 0;
    memcpy(&query, &address, sizeof query);
    answer->handle = handle;
    answer->address = address;
    answer->status = 0;
    answer->version[0] = answer->version[1] = answer->version[2] = -1;
    answer->failed = ask(d->library, handle, query, answer->version, &answer->status, &answer->held_fini);
    if (!answer->failed)
        return 0;
    for (i = 0; i < d->refused_count; ++i) {
        if (answer->status == d->refused_statuses[i]) {
            const char *name = cubind_status_name(d->library, answer->status);
            cubind__strbuf_printf(why, ": refused, %s answers %s (%d): %s", cubind__version_failed_name(d, answer->failed),
                                  name != NULL ? name : "a status", answer->status, d->refusal_reasons[i]);
            answer->handle = NULL;
            cubind__lib_close(handle);
            return 1;
        }
    }
    return 0;
}

/* "libcusolverMg.so.12.0.4.66" -> 12, 0, 4; absent parts stay -1. Returns how many were read. */
static int version_from_file_name(const char *path, int version[3])
{
    const char *base = strrchr(path, '/');
    const char *p;
    int n = 0;
    base = base != NULL ? base + 1 : path;
    p = strstr(base, ".so.");
    if (p == NULL)
        return 0;
    p += 4;
    while (n < 3 && *p >= '0' && *p <= '9') {
        char *end;
        long value = strtol(p, &end, 10);
        version[n++] = value > INT_MAX ? INT_MAX : (int)value;
        if (*end != '.')
            break;
        p = end + 1;
    }
    return n;
}

/* "13", "13.1" or "13.1.0" into `number` (48 bytes); "unknown" when version[0] is. */
static void version_text(const int version[3], char *number)
{
    size_t at = 0;
    int n;
    if (version[0] < 0) {
        memcpy(number, "unknown", sizeof "unknown");
        return;
    }
    for (n = 0; n < 3 && version[n] >= 0; ++n) {
        char digits[16];
        size_t k = 0;
        unsigned value = (unsigned)version[n];
        if (n > 0)
            number[at++] = '.';
        do
            digits[k++] = (char)('0' + value % 10);
        while ((value /= 10) != 0);
        while (k > 0)
            number[at++] = digits[--k];
    }
    number[at] = '\0';
}

/* The origin of a version read from the file name `base` (`parts` parts of it): the escaped name, or none. */
static void from_file_name(cubind__opened *out, int parts, const char *base)
{
    out->version_origin = parts > 0 ? CUBIND_VERSION_ORIGIN_FILE_NAME : CUBIND_VERSION_ORIGIN_NONE;
    out->version_detail = parts > 0 ? cubind__escaped_copy(base) : NULL;
}

void cubind__version_answer_drop(cubind__version_answer *answer)
{
    if (answer->held_fini != NULL)
        answer->held_fini();
    answer->held_fini = NULL;
}

void cubind__read_version(const cubind__library_desc *d, cubind__opened *out, cubind__version_answer *answer)
{
    cubind__strbuf text = {0};
    char number[48];
    int n;
    out->version[0] = out->version[1] = out->version[2] = -1;
    out->version_origin = CUBIND_VERSION_ORIGIN_NONE;
    out->version_detail = NULL;
    out->held_fini = NULL;
    out->version_unasked = 0;
    if (d->version_query_name[0] != '\0') {
        int status = 0, failed = 0, exported, version[3] = {-1, -1, -1}, asked = !query_not_asked(d);
        if (answer->handle != NULL && answer->handle == out->handle) {
            exported = cubind__owns(out, answer->address);
            failed = answer->failed;
            status = answer->status;
            memcpy(version, answer->version, sizeof version);
            out->held_fini = answer->held_fini;
            answer->held_fini = NULL;
        } else {
            cubind__version_answer_drop(answer);
            cubind__fnptr query = cubind__own_symbol(out, d->version_query_name);
            exported = query != NULL;
            if (exported && asked)
                failed = ask(d->library, out->handle, query, version, &status, &out->held_fini);
        }
        out->version_unasked = exported && !asked;
        if (exported && asked && !failed) {
            memcpy(out->version, version, sizeof version);
            out->version_source = strdup(d->version_query_name);
            out->version_origin = CUBIND_VERSION_ORIGIN_QUERY;
            out->version_detail = strdup(d->version_query_name);
        } else {
            /* the file's own name then (CUDA 11's cudaRuntimeGetVersion fails without a driver): the
             * release a library is called as must not be guessed */
            const char *file = out->real_path != NULL ? out->real_path : out->path;
            const char *base = strrchr(file, '/'), *name = cubind_status_name(d->library, status);
            /* one library for every release (the driver, NVML): its file's number is not a CUDA
             * version (libnvidia-ml.so.1, libcuda.so.580.65.06), so the version stays unknown */
            n = d->serves_every_release ? 0 : version_from_file_name(file, out->version);
            cubind__strbuf_printf(&text, "file name ");
            cubind__strbuf_escaped(&text, base != NULL ? base + 1 : file);
            if (!exported)
                cubind__strbuf_printf(&text, " (%s is not exported)", d->version_query_name);
            else if (!asked)
                cubind__strbuf_printf(&text, " (%s not asked: CUBIND_NO_VERSION_QUERY names %s)",
                                      d->version_query_name, d->name);
            else
                cubind__strbuf_printf(&text, " (%s failed with %s (%d))", cubind__version_failed_name(d, failed),
                                      name != NULL ? name : "an unknown status", status);
            if (n == 0)
                cubind__strbuf_printf(&text, ": version unknown");
            out->version_source = cubind__strbuf_take(&text);
            from_file_name(out, n, base != NULL ? base + 1 : file);
        }
    } else {
        const char *file = out->real_path != NULL ? out->real_path : out->path;
        const char *base = strrchr(file, '/');
        n = version_from_file_name(file, out->version);
        cubind__strbuf_printf(&text, "file name ");
        cubind__strbuf_escaped(&text, base != NULL ? base + 1 : file);
        cubind__strbuf_printf(&text, " (%s has no version query)%s", d->file,
                              n == 0 ? ": version unknown" : "");
        out->version_source = cubind__strbuf_take(&text);
        from_file_name(out, n, base != NULL ? base + 1 : file);
    }
    version_text(out->version, number);
    out->version_text = strdup(number);
}
