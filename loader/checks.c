/*
 * loader/checks.c - whether what is loaded fits together, with a verdict (include/cubind/machine.h:
 * cubind_check_count, cubind_check_get; docs/machine.md). Layer 9: it asks machine.c (8) for the
 * driver, info.c (8) the releases a library mixes and a version that contradicts its soname,
 * library.c (7) what is loaded, releases (3) that contradiction, loaded_objects (2) and the platform seam (0) what
 * else the process has loaded, and reads the generated table of the minimum driver of each release.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/machine.h"

#include "error.h"
#include "info.h"
#include "release_rules.h"
#include "tables.h"
#include "library.h"
#include "loaded_objects.h"
#include "opened.h"
#include "platform.h"

#define CHECKS_MAX (CUBIND_LIBRARY_COUNT * 4)

static cubind__mutex lock = CUBIND__MUTEX_INIT;
static struct cubind_check results[CHECKS_MAX];
static size_t result_count;

/* Every distinct reason given out, kept for the life of the process (interned: checks run again
 * do not grow memory). Under `lock`. */
struct reason {
    struct reason *earlier;
    char text[];
};
static struct reason *reasons;

static const char *intern(const char *text)
{
    struct reason *r;
    size_t n = strlen(text) + 1;
    for (r = reasons; r != NULL; r = r->earlier)
        if (strcmp(r->text, text) == 0)
            return r->text;
    r = malloc(sizeof *r + n);
    if (r == NULL)
        return "out of memory";
    memcpy(r->text, text, n);
    r->earlier = reasons;
    reasons = r;
    return r->text;
}

static void add(const char *name, cubind_library library, cubind_verdict verdict, const char *format, ...)
    CUBIND_PRINTF(4, 5);
static void add(const char *name, cubind_library library, cubind_verdict verdict, const char *format, ...)
{
    char text[2048];
    va_list args;
    struct cubind_check *c;
    if (result_count >= CHECKS_MAX)
        return;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    c = &results[result_count++];
    c->size = sizeof *c;
    c->name = name;
    c->library = library;
    c->verdict = verdict;
    c->reason = intern(text);
}

static int newer_or_same(const int have[3], const int need[3])
{
    int i;
    for (i = 0; i < 3; ++i) {
        int h = have[i] < 0 ? 0 : have[i];
        if (h != need[i])
            return h > need[i];
    }
    return 1;
}

/* Whether the driver runs CUDA `release` (a library's): the minimum drivers are data. */
static void check_driver(cubind_library library, const char *release, const struct cubind_driver_info *driver)
{
    const char *file = cubind__libraries[library].file;
    const cubind__driver_minimum *m = NULL;
    int have[3], major = 0, minor = 0;
    size_t i;
    for (i = 0; i < cubind__driver_minimum_count; ++i)
        if (strcmp(cubind__driver_minimums[i].release, release) == 0)
            m = &cubind__driver_minimums[i];
    sscanf(release, "%d.%d", &major, &minor);
    if (driver->release != NULL && driver->release_major >= 0 && m != NULL) {
        have[0] = driver->release_major;
        have[1] = driver->release_minor;
        have[2] = driver->release_patch;
        if (newer_or_same(have, m->full))
            add("driver-supports-release", library, CUBIND_CHECK_OK,
                "%s is called as CUDA %s; driver %s is not older than %s, the minimum of CUDA %s", file, release,
                driver->release, m->full_text, release);
        else if (newer_or_same(have, m->minor_compat))
            add("driver-supports-release", library, CUBIND_CHECK_WARNING,
                "%s is called as CUDA %s; driver %s is older than %s, its minimum, and runs it through minor-version "
                "compatibility (from %s): PTX newer than the driver's cannot be JIT-compiled and features that need a "
                "newer driver fail", file, release, driver->release, m->full_text, m->minor_compat_text);
        else
            add("driver-supports-release", library, CUBIND_CHECK_ERROR,
                "%s is called as CUDA %s; driver %s is older than %s, the oldest that runs CUDA %d.x (minor-version "
                "compatibility), and %s with all of CUDA %s's features", file, release, driver->release,
                m->minor_compat_text, major, m->full_text, release);
        return;
    }
    if (driver->cuda_major >= 0) {
        int level = CUBIND__CUDA_NUMBER(driver->cuda_major, driver->cuda_minor), need = CUBIND__CUDA_NUMBER(major, minor);
        if (level >= need)
            add("driver-supports-release", library, CUBIND_CHECK_OK,
                "%s is called as CUDA %s; the driver supports CUDA %d.%d (%s; its release is unknown)", file, release,
                driver->cuda_major, driver->cuda_minor, cubind_fact_source_name(driver->cuda_source));
        else if (driver->cuda_major == major)
            add("driver-supports-release", library, CUBIND_CHECK_WARNING,
                "%s is called as CUDA %s; the driver supports CUDA %d.%d, so it runs through minor-version "
                "compatibility: PTX newer than the driver's cannot be JIT-compiled and features that need a newer "
                "driver fail", file, release, driver->cuda_major, driver->cuda_minor);
        else
            add("driver-supports-release", library, CUBIND_CHECK_ERROR,
                "%s is called as CUDA %s; the driver supports CUDA %d.%d only, an older major release", file, release,
                driver->cuda_major, driver->cuda_minor);
        return;
    }
    add("driver-supports-release", library, CUBIND_CHECK_WARNING,
        "%s is called as CUDA %s (it needs driver %s or newer, %s through minor-version compatibility); the "
        "driver's release is unknown (%s)", file, release, m != NULL ? m->full_text : "?",
        m != NULL ? m->minor_compat_text : "?",
        driver->driver_error != NULL ? "no NVML, no kernel module, and the driver API failed: cubind_driver_info "
                                       "says why" : "neither NVML nor the kernel module answered");
}

/* The numbers after ".so." in a file name ("libcudnn_ops.so.9.14.0" -> "9.14.0"), or "". */
static const char *file_version(const char *path)
{
    const char *so = path != NULL ? strstr(path, ".so.") : NULL;
    return so != NULL ? so + 4 : "";
}

struct sub_walk {
    const char *prefix;      /* "libcudnn_" */
    const char *version;     /* the library's own file version, "9.19.0" */
    char found[1024];        /* the sub-libraries of another version, "; "-separated */
    int count, other;
};

static int visit(const cubind__object *object, void *data)
{
    struct sub_walk *w = data;
    const char *soname = object->soname, *real;
    char resolved[PATH_MAX];
    if (soname == NULL || strncmp(soname, w->prefix, strlen(w->prefix)) != 0 || object->name[0] != '/')
        return 0;
    real = cubind__real_path(object->name, resolved) != NULL ? resolved : object->name;
    ++w->count;
    if (strcmp(file_version(real), w->version) != 0) {
        size_t used = strlen(w->found);
        ++w->other;
        snprintf(w->found + used, sizeof w->found - used, "%s%s (%s)", used ? "; " : "", soname,
                 file_version(real)[0] ? file_version(real) : "no version in its name");
    }
    return 0;
}

/* The library's sub-libraries (loaded objects named <its file>_<part>.so.N: cuDNN's libcudnn_ops,
 * libcudnn_cnn, ...) must be of its version. */
static void check_parts(cubind_library library, const cubind__opened *lib)
{
    char prefix[64];
    struct sub_walk w;
    memset(&w, 0, sizeof w);
    snprintf(prefix, sizeof prefix, "%s_", cubind__libraries[library].file);
    w.prefix = prefix;
    w.version = file_version(lib->real_path);
    if (w.version[0] == '\0')
        return;
    cubind__objects_each(visit, &w);
    if (w.count == 0)
        return;
    if (w.other == 0)
        add("parts-one-release", library, CUBIND_CHECK_OK, "the %d loaded %s*.so of %s are of its version, %s",
            w.count, prefix, cubind__libraries[library].file, w.version);
    else
        add("parts-one-release", library, CUBIND_CHECK_WARNING,
            "%s is %s (%s), but %d of its loaded parts are not: %s; the parts of one library should come from one "
            "release", cubind__libraries[library].file, w.version, lib->real_path, w.other, w.found);
}

static void run(void)
{
    struct cubind_driver_info driver = {.size = sizeof driver};
    int library, driver_asked = 0;
    result_count = 0;
    for (library = 0; library < CUBIND_LIBRARY_COUNT; ++library) {
        const cubind__library_desc *d = &cubind__libraries[library];
        const cubind__release_table *t = cubind__release_table_of((cubind_library)library);
        const cubind__opened *lib;
        cubind__loaded loaded;
        const char *release;
        int bits = 0, i;
        if (!cubind__is_loaded((cubind_library)library))
            continue;
        lib = cubind__opened_of((cubind_library)library);
        release = cubind__release_name((cubind_library)library, cubind__release_in_use((cubind_library)library));
        /* the driver's release: only for libraries of a CUDA release (not the driver, NVML, NCCL, cuDNN) */
        if (!d->serves_every_release && t != NULL && t->release_count > 1 && release != NULL) {
            if (!driver_asked)
                cubind_driver_info(&driver);
            driver_asked = 1;
            check_driver((cubind_library)library, release, &driver);
        }
        if (d->coupled != 0) {
            cubind__strbuf mix = {0};
            if (cubind__coupled_mix((cubind_library)library, &mix))
                add("coupled-release", (cubind_library)library, CUBIND_CHECK_WARNING,
                    "%s: libraries used together should come from one release", cubind__strbuf_str(&mix));
            else
                add("coupled-release", (cubind_library)library, CUBIND_CHECK_OK,
                    "%s: the libraries it is used with that are loaded are of its release", d->file);
            cubind__strbuf_free(&mix);
        }
        if (d->soname_versioned && lib->version[0] >= 0) {
            cubind__strbuf note = {0};
            int by_soname[3];
            if (cubind__contradicts_soname((cubind_library)library, lib->soname, lib->version, by_soname) &&
                cubind__version_note((cubind_library)library, &note))
                add("version-matches-soname", (cubind_library)library, CUBIND_CHECK_WARNING, "%s (%s)",
                    cubind__strbuf_str(&note), lib->path_escaped);
            else
                add("version-matches-soname", (cubind_library)library, CUBIND_CHECK_OK,
                    "%s %s is of its soname's major (%s)", d->file, lib->version_text,
                    lib->soname != NULL ? lib->soname : "no soname");
            cubind__strbuf_free(&note);
        }
        cubind__walk_loaded(d, &loaded);
        for (i = 0; i < (int)d->soname_count && i < 64; ++i)
            bits += (loaded.sonames >> i) & 1;
        if (bits > 1) {
            char names[512] = "";
            size_t at = 0;
            /* every soname loaded, not only the one cubind calls ("libcublas.so.13, libcublas.so.11") */
            for (i = 0; i < (int)d->soname_count && i < 64 && at < sizeof names; ++i)
                if ((loaded.sonames >> i) & 1)
                    at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "", d->sonames[i]);
            add("one-release-loaded", (cubind_library)library, CUBIND_CHECK_WARNING,
                "%d sonames of %s are loaded in the process (%s; cubind calls %s, %s): two releases of one library "
                "in one process may each get the other's symbols", bits, d->file, names,
                lib->soname ? lib->soname : "?", lib->path_escaped);
        } else
            add("one-release-loaded", (cubind_library)library, CUBIND_CHECK_OK, "one release of %s is loaded (%s)",
                d->file, lib->soname ? lib->soname : lib->path_escaped);
        check_parts((cubind_library)library, lib);
    }
}

size_t cubind_check_count(void)
{
    size_t n;
    int cancel_state;
    /* the checks ask NVML and the driver (I/O): a thread cancelled there would keep the lock */
    cancel_state = cubind__cancel_off();
    cubind__mutex_lock(&lock);
    run();
    n = result_count;
    cubind__mutex_unlock(&lock);
    cubind__cancel_restore(cancel_state);
    return n;
}

cubind_error_kind cubind_check_get(size_t index, struct cubind_check *check)
{
    size_t wanted;
    if (check == NULL || check->size < sizeof(size_t)) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, "cubind_check_get", 0,
                             "cubind_check_get: a NULL check or a size smaller than its first member");
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    cubind__mutex_lock(&lock);
    if (index >= result_count) {
        size_t count = result_count;
        cubind__mutex_unlock(&lock);
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, "cubind_check_get", 0,
                             "cubind_check_get: no check %zu (the last cubind_check_count gave %zu)", index, count);
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    wanted = check->size < sizeof results[index] ? check->size : sizeof results[index];
    memcpy(check, &results[index], wanted);
    check->size = wanted;
    cubind__mutex_unlock(&lock);
    return CUBIND_OK;
}

const char *cubind_verdict_name(cubind_verdict verdict)
{
    switch (verdict) {
    case CUBIND_CHECK_OK: return "ok";
    case CUBIND_CHECK_WARNING: return "warning";
    case CUBIND_CHECK_ERROR: return "error";
    }
    return "unknown";
}
