/*
 * tools/probe/check.c - the "check" section, `cubind-probe --check FILE`: can the program or shared
 * library FILE run here? Its undefined cubind_* symbols (elf_imports.c), each with the version node it
 * asks for, are looked up in the libcubind this probe uses and described by cubind_function_info; its
 * DT_NEEDED CUDA libraries (those cubind_library_from_soname knows) are looked for in its run path and
 * by the system loader; and whether a GPU can be used here at all. The verdict is the exit status
 * (probe.h): 0 runs, 3 starts but some functions cannot be served or no GPU can be used, 4 cannot
 * start, 5 not readable.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cubind/cubind.h"
#include "check.h"
#include "elf_imports.h"
#include "output.h"
#include "probe.h"

void check_reason(struct verdict *v, int status, const char *format, ...)
{
    va_list args;
    if (status > v->status)
        v->status = status;
    if (v->count < REASONS_MAX - 1) {
        va_start(args, format);
        vsnprintf(v->storage[v->count], sizeof v->storage[v->count], format, args);
        va_end(args);
        v->reasons[v->count] = v->storage[v->count];
        ++v->count;
    } else {
        ++v->more;
        snprintf(v->storage[REASONS_MAX - 1], sizeof v->storage[0], "and %zu more", v->more);
        v->reasons[REASONS_MAX - 1] = v->storage[REASONS_MAX - 1];
        v->count = REASONS_MAX;
    }
}

static const char *verdict_word(int status)
{
    switch (status) {
    case PROBE_EXIT_OK: return "runs";
    case PROBE_EXIT_CHECK_PARTLY: return "runs-partly";
    case PROBE_EXIT_CHECK_CANNOT: return "cannot-start";
    default: return "unreadable";
    }
}

/* The libcubind this probe uses: its handle (to ask for name@node), path, soname and version node. */
struct this_cubind {
    void *handle;
    const char *path;
    char soname[64];
    char node[32];
};

static void find_this_cubind(struct this_cubind *c)
{
    Dl_info info;
    const char *(*function)(void) = cubind_version;
    void *address;
    memcpy(&address, &function, sizeof address); /* a function's address as dladdr takes it */
    memset(c, 0, sizeof *c);
    if (dladdr(address, &info) != 0 && info.dli_fname != NULL) {
        c->path = info.dli_fname;
        c->handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    }
    snprintf(c->soname, sizeof c->soname, "libcubind.so.%d", CUBIND_VERSION_MAJOR);
    check_node("CUBIND_", c->node, sizeof c->node);
}

void check_node(const char *stem, char *node, size_t size)
{
    /* the node every export carries (abi/libcubind.map): <stem><MAJOR>.<MINOR>, <stem><MAJOR> from 1.0 on */
    if (CUBIND_VERSION_MAJOR == 0)
        snprintf(node, size, "%s%d.%d", stem, CUBIND_VERSION_MAJOR, CUBIND_VERSION_MINOR);
    else
        snprintf(node, size, "%s%d", stem, CUBIND_VERSION_MAJOR);
}

/* Whether this libcubind exports `name` (at version node `node`, when not NULL). */
static int exported(const struct this_cubind *c, const char *name, const char *node)
{
    if (c->handle == NULL)
        return 0;
    return (node != NULL ? dlvsym(c->handle, name, node) : dlsym(c->handle, name)) != NULL;
}

void check_locate(const struct elf_imports *imports, const char *soname, struct located *out)
{
    size_t i;
    void *handle;
    memset(out, 0, sizeof *out);
    if (strchr(soname, '/') == NULL)
        for (i = 0; i < imports->run_path_count; ++i) {
            struct stat st;
            snprintf(out->path, sizeof out->path, "%s/%s", imports->run_path[i], soname);
            if (stat(out->path, &st) == 0 && S_ISREG(st.st_mode)) {
                out->found = 1;
                out->where = "run path";
                return;
            }
        }
    out->path[0] = '\0';
    /* the system loader's own search (LD_LIBRARY_PATH, the ld.so cache, the system directories), as the
     * program's start would do it; the library is loaded into the probe, as cubind loads its own */
    handle = check_load(soname, out->error, sizeof out->error);
    if (handle != NULL) {
        struct link_map *map = NULL;
        out->found = 1;
        out->where = "system loader";
        if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name != NULL)
            snprintf(out->path, sizeof out->path, "%s", map->l_name);
        return;
    }
    if (out->error[0] == '\0')
        snprintf(out->error, sizeof out->error, "not found");
}

void *check_load(const char *file, char *error, size_t size)
{
    void *handle = dlopen(file, RTLD_LAZY | RTLD_LOCAL);
    const char *why = handle == NULL ? dlerror() : NULL;
    if (size > 0)
        snprintf(error, size, "%s", why != NULL ? why : "");
    return handle;
}

static void json_strings(char *const *list, size_t count)
{
    size_t i;
    probe_char('[');
    for (i = 0; i < count; ++i) {
        if (i)
            probe_char(',');
        json_string(list[i]);
    }
    probe_char(']');
}

/* The file could not be read: the section says why. */
static void unreadable(struct probe *probe, const char *why)
{
    probe_status(probe, PROBE_EXIT_CHECK_UNREADABLE);
    if (probe->json) {
        fprintf(probe_out, "{\"file\":");
        json_string(probe->check);
        fprintf(probe_out, ",\"file_bytes\":");
        json_bytes(probe->check);
        json_member("verdict", verdict_word(PROBE_EXIT_CHECK_UNREADABLE));
        fprintf(probe_out, ",\"exit_status\":%d", PROBE_EXIT_CHECK_UNREADABLE);
        json_member("error", why);
        fprintf(probe_out, "}");
    } else {
        fprintf(probe_out, "\n");
        text_string(probe->check);
        fprintf(probe_out, ": cannot be checked: ");
        text_string(why);
        fprintf(probe_out, "\nverdict: unreadable (exit status %d)\n", PROBE_EXIT_CHECK_UNREADABLE);
    }
}

/* Whether an undefined symbol of FILE is one of cubind's (by cubind's name). */
static int is_cubind(const struct elf_import *f)
{
    return strncmp(f->name, "cubind_", 7) == 0;
}

/* The cubind functions FILE uses by cubind's names, one line or object each; how many. */
static size_t functions_part(struct probe *probe, const struct elf_imports *im, const struct this_cubind *c,
                             struct verdict *v)
{
    size_t i, count = 0, listed = 0;
    for (i = 0; i < im->import_count; ++i)
        count += is_cubind(&im->imports[i]);
    if (probe->json)
        fprintf(probe_out, ",\"functions\":[");
    else
        fprintf(probe_out, "\ncubind functions it uses by cubind's names: %zu\n", count);
    for (i = 0; i < im->import_count; ++i) {
        const struct elf_import *f = &im->imports[i];
        struct cubind_function_info info;
        if (!is_cubind(f))
            continue;
        int is_exported = exported(c, f->name, f->version), wrapper;
        const char *state;
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        cubind_function_info(f->name, &info);
        wrapper = info.state != CUBIND_FUNCTION_UNKNOWN;
        state = !is_exported ? "not exported" : wrapper ? probe_state_name(info.state) : "api";
        if (!is_exported) {
            if (f->version != NULL && strcmp(f->version, c->node) != 0)
                check_reason(v, f->weak ? PROBE_EXIT_CHECK_PARTLY : PROBE_EXIT_CHECK_CANNOT,
                           "it asks for cubind's version node %s, which this libcubind (%s) does not have: it "
                           "was linked against another minor version of cubind", f->version, c->node);
            else
                check_reason(v, f->weak ? PROBE_EXIT_CHECK_PARTLY : PROBE_EXIT_CHECK_CANNOT,
                           "this libcubind does not export %s%s", f->name,
                           f->weak ? " (a weak reference: it starts, and the symbol is NULL)" : "");
        } else if (wrapper && info.state != CUBIND_FUNCTION_CALLABLE && info.state != CUBIND_FUNCTION_ADAPTED)
            check_reason(v, PROBE_EXIT_CHECK_PARTLY, "%s cannot be called here (%s)", f->name, state);
        if (probe->json) {
            fprintf(probe_out, "%s\n  {\"symbol\":", listed++ ? "," : "");
            json_string(f->name);
            json_member("version_node", f->version);
            json_member("from", f->file);
            fprintf(probe_out, ",\"weak\":%s,\"exported\":%s", f->weak ? "true" : "false", is_exported ? "true" : "false");
            json_member("kind", wrapper ? "wrapper" : "api");
            json_member("name", info.name);
            json_member("library", wrapper ? cubind_library_name(info.library) : NULL);
            json_member("state", state);
            json_member("release", info.release);
            json_member("reason", wrapper ? info.reason : NULL);
            probe_char('}');
        } else {
            fprintf(probe_out, "  %-12s ", state);
            text_string(f->name);
            if (f->version != NULL) {
                probe_char('@');
                text_string(f->version);
            }
            if (wrapper)
                fprintf(probe_out, " (%s, %s)", info.name, cubind_library_name(info.library));
            if (wrapper && info.reason != NULL && is_exported) {
                fprintf(probe_out, ": ");
                text_string(info.reason);
            }
            probe_char('\n');
        }
    }
    if (probe->json)
        fprintf(probe_out, "%s]", count ? "\n " : "");
    return count;
}

/* The CUDA libraries FILE needs (DT_NEEDED of a library cubind binds), and libcubind. */
static void libraries_part(struct probe *probe, const struct elf_imports *im, struct verdict *v)
{
    size_t i, shown = 0;
    if (probe->json)
        fprintf(probe_out, ",\"libraries\":[");
    for (i = 0; i < im->needed_count; ++i) {
        cubind_library lib = cubind_library_from_soname(im->needed[i]);
        struct located where;
        struct cubind_library_info info;
        if (lib == CUBIND_LIB_NONE)
            continue;
        if (!probe->json && shown == 0)
            fprintf(probe_out, "\nCUDA libraries it needs (DT_NEEDED):\n");
        check_locate(im, im->needed[i], &where);
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        cubind_library_info(lib, &info);
        if (!where.found)
            check_reason(v, PROBE_EXIT_CHECK_CANNOT, "%s, which it needs, is not found: %s", im->needed[i], where.error);
        if (probe->json) {
            fprintf(probe_out, "%s\n  {\"soname\":", shown ? "," : "");
            json_string(im->needed[i]);
            json_member("library", cubind_library_name(lib));
            fprintf(probe_out, ",\"found\":%s", where.found ? "true" : "false");
            json_member("path", where.found && where.path[0] ? where.path : NULL);
            json_member("found_in", where.found ? where.where : NULL);
            json_member("error", where.found ? NULL : where.error);
            json_member("cubind_path", info.found ? info.path : NULL);
            probe_char('}');
        } else {
            fprintf(probe_out, "  %-9s ", where.found ? "found" : "not found");
            text_string(im->needed[i]);
            if (where.found) {
                fprintf(probe_out, " (%s): ", where.where);
                text_string(where.path[0] ? where.path : "?");
            } else {
                fprintf(probe_out, ": ");
                text_string(where.error);
            }
            probe_char('\n');
        }
        ++shown;
    }
    if (probe->json)
        fprintf(probe_out, "%s]", shown ? "\n " : "");
    else if (shown == 0)
        fprintf(probe_out, "\nCUDA libraries it needs (DT_NEEDED): none\n");
}

/* A program that uses cubind (by its names, through the drop-in or embedded) or a CUDA library starts,
 * but its CUDA work fails where no GPU can be used (no driver, no GPU visible): the verdict says so. */
static void machine_part(const struct elf_imports *im, int uses_cubind, struct verdict *v)
{
    char why[CUBIND_ERROR_MESSAGE_MAX];
    size_t i;
    int uses_cuda = uses_cubind;
    for (i = 0; i < im->needed_count && !uses_cuda; ++i)
        uses_cuda = cubind_library_from_soname(im->needed[i]) != CUBIND_LIB_NONE;
    if (uses_cuda && v->status < PROBE_EXIT_CHECK_CANNOT && probe_no_gpu(why, sizeof why))
        check_reason(v, PROBE_EXIT_CHECK_PARTLY, "it starts, but no GPU can be used here: %s", why);
}

void check_section(struct probe *probe)
{
    struct elf_imports im;
    struct this_cubind c;
    struct verdict v;
    char why[512];
    size_t i, j, nodes = 0;
    int needs_cubind = 0, same = -1, uses;
    struct located program_cubind;
    memset(&program_cubind, 0, sizeof program_cubind);
    if (elf_read_imports(probe->check, "", &im, why, sizeof why) != 0) {
        unreadable(probe, why);
        return;
    }
    memset(&v, 0, sizeof v);
    find_this_cubind(&c);
    for (i = 0; i < im.needed_count; ++i)
        if (strncmp(im.needed[i], "libcubind.so", 12) == 0 && !needs_cubind) {
            /* the libcubind FILE would load: its run path's, else the system loader's (the probe's own
             * when it is loaded from there) */
            char *mine, *theirs;
            needs_cubind = 1;
            check_locate(&im, im.needed[i], &program_cubind);
            mine = c.path != NULL ? realpath(c.path, NULL) : NULL;
            theirs = program_cubind.found && program_cubind.path[0] ? realpath(program_cubind.path, NULL) : NULL;
            if (mine != NULL && theirs != NULL)
                same = strcmp(mine, theirs) == 0;
            free(mine);
            free(theirs);
        }
    if (!im.this_machine)
        check_reason(&v, PROBE_EXIT_CHECK_CANNOT, "it is built for %s, not for this machine", im.machine);
    if (probe->json) {
        fprintf(probe_out, "{\"file\":");
        json_string(probe->check);
        fprintf(probe_out, ",\"file_bytes\":");
        json_bytes(probe->check);
        json_member("error", NULL);
        json_member("machine", im.machine);
        json_member("type", im.type);
        fprintf(probe_out, ",\"dynamic\":%s,\"needed\":", im.dynamic ? "true" : "false");
        json_strings(im.needed, im.needed_count);
        json_member("run_path_tag", im.run_path_tag);
        fprintf(probe_out, ",\"run_path\":");
        json_strings(im.run_path, im.run_path_count);
        fprintf(probe_out, ",\"cubind\":{\"needed\":%s", needs_cubind ? "true" : "false");
        json_member("soname", c.soname);
        json_member("path", c.path);
        fprintf(probe_out, ",\"version\":");
        json_version(CUBIND_VERSION_MAJOR, CUBIND_VERSION_MINOR, CUBIND_VERSION_PATCH);
        json_member("version_text", cubind_version());
        json_member("version_node", c.node);
        json_member("program_path", program_cubind.found && program_cubind.path[0] ? program_cubind.path : NULL);
        fprintf(probe_out, ",\"same_as_probe\":%s", same < 0 ? "null" : same ? "true" : "false");
        fprintf(probe_out, ",\"version_nodes_asked\":[");
        for (i = 0; i < im.import_count; ++i) {
            const char *node = is_cubind(&im.imports[i]) ? im.imports[i].version : NULL;
            for (j = 0; node != NULL && j < i; ++j)
                if (im.imports[j].version != NULL && strcmp(im.imports[j].version, node) == 0)
                    break;
            if (node != NULL && j == i) {
                fprintf(probe_out, "%s", nodes++ ? "," : "");
                json_string(node);
            }
        }
        fprintf(probe_out, "]}");
    } else {
        fprintf(probe_out, "\n");
        text_string(probe->check);
        fprintf(probe_out, ": %s %s, %s\n", im.machine, im.type, im.dynamic ? "dynamically linked" : "statically linked");
        if (needs_cubind) {
            fprintf(probe_out, "libcubind: %s, %s (%s) from ", c.soname, cubind_version(), c.node);
            text_string(c.path != NULL ? c.path : "?");
            probe_char('\n');
            if (same == 0) {
                fprintf(probe_out, "    but FILE would load ");
                text_string(program_cubind.path);
                fprintf(probe_out, " (%s): this check describes the probe's libcubind\n", program_cubind.where);
            }
        } else
            fprintf(probe_out, "libcubind: not needed\n");
    }
    uses = functions_part(probe, &im, &c, &v) > 0;
    uses |= check_dropin_part(probe, &im, &v);
    uses |= check_embedded_part(probe, &im, &v);
    libraries_part(probe, &im, &v);
    machine_part(&im, needs_cubind || uses, &v);
    if (probe->json) {
        json_member("verdict", verdict_word(v.status));
        fprintf(probe_out, ",\"exit_status\":%d,\"reasons\":[", v.status);
        for (i = 0; i < v.count; ++i) {
            if (i)
                probe_char(',');
            json_string(v.reasons[i]);
        }
        fprintf(probe_out, "]}");
    } else {
        fprintf(probe_out, "\nverdict: %s (exit status %d)\n", verdict_word(v.status), v.status);
        for (i = 0; i < v.count; ++i) {
            fprintf(probe_out, "  ");
            text_string(v.reasons[i]);
            probe_char('\n');
        }
    }
    probe_status(probe, v.status);
    elf_imports_free(&im);
}
