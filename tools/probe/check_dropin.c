/*
 * tools/probe/check_dropin.c - `cubind-probe --check FILE` for a program or library that uses cubind
 * through the drop-in (libcubind-dropin, docs/dropin.md): its undefined symbols of NVIDIA's names
 * that ask for the drop-in's version node (cudaMalloc@CUBIND_DROPIN_0.5) are each a cubind function,
 * described as for a program that calls cubind's names (cubind_function_info takes the exported
 * name), and the drop-in it needs is looked for as a CUDA library is.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cubind/cubind.h"
#include "output.h"

/* The stem of the drop-in's version node and of its soname (dropin/dropin.mk). */
#define NODE_STEM "CUBIND_DROPIN_"
#define SONAME_STEM "libcubind-dropin.so."

/* Whether an undefined symbol of FILE asks for the drop-in's version node (any version of it). */
static int through_dropin(const struct elf_import *f)
{
    return f->version != NULL && strncmp(f->version, NODE_STEM, sizeof NODE_STEM - 1) == 0;
}

/* The drop-in FILE needs (DT_NEEDED), or NULL. */
static const char *needed_dropin(const struct elf_imports *im)
{
    size_t i;
    for (i = 0; i < im->needed_count; ++i)
        if (strncmp(im->needed[i], SONAME_STEM, sizeof SONAME_STEM - 1) == 0)
            return im->needed[i];
    return NULL;
}

/* One function FILE calls through the drop-in: its line or object, and the verdict's reasons. */
static void dropin_function(struct probe *probe, const struct elf_import *f, void *dropin, const char *node,
                            int first, struct verdict *v)
{
    struct cubind_function_info info = {.size = sizeof info};
    int is_exported = dropin != NULL && dlvsym(dropin, f->name, f->version) != NULL;
    const char *state;
    cubind_function_info(f->name, &info);
    state = !is_exported ? "not exported" : probe_state_name(info.state);
    if (!is_exported && dropin != NULL && strcmp(f->version, node) != 0)
        check_reason(v, f->weak ? PROBE_EXIT_CHECK_PARTLY : PROBE_EXIT_CHECK_CANNOT,
                     "it asks for the drop-in's version node %s, which this drop-in (%s) does not have: it was "
                     "linked against another minor version of cubind", f->version, node);
    else if (!is_exported && dropin != NULL)
        check_reason(v, f->weak ? PROBE_EXIT_CHECK_PARTLY : PROBE_EXIT_CHECK_CANNOT, "the drop-in (%s) does not "
                     "export %s", node, f->name);
    else if (is_exported && info.state != CUBIND_FUNCTION_CALLABLE && info.state != CUBIND_FUNCTION_ADAPTED)
        check_reason(v, PROBE_EXIT_CHECK_PARTLY, "%s (through the drop-in) cannot be called here (%s)", f->name, state);
    if (probe->json) {
        fprintf(probe_out, "%s\n  {\"symbol\":", first ? "" : ",");
        json_string(f->name);
        json_member("version_node", f->version);
        json_member("from", f->file);
        fprintf(probe_out, ",\"weak\":%s,\"exported\":%s", f->weak ? "true" : "false", is_exported ? "true" : "false");
        json_member("name", info.name);
        json_member("cubind_name", info.cubind_name);
        json_member("library", info.state != CUBIND_FUNCTION_UNKNOWN ? cubind_library_name(info.library) : NULL);
        json_member("state", state);
        json_member("release", info.release);
        json_member("reason", info.reason);
        probe_char('}');
        return;
    }
    fprintf(probe_out, "  %-12s ", state);
    text_string(f->name);
    probe_char('@');
    text_string(f->version);
    if (info.state != CUBIND_FUNCTION_UNKNOWN)
        fprintf(probe_out, " (%s, %s)", info.cubind_name, cubind_library_name(info.library));
    if (info.reason != NULL && is_exported) {
        fprintf(probe_out, ": ");
        text_string(info.reason);
    }
    probe_char('\n');
}

int check_dropin_part(struct probe *probe, const struct elf_imports *im, struct verdict *v)
{
    const char *needed = needed_dropin(im);
    char node[64], soname[64], error[512];
    struct located where = {0};
    void *dropin = NULL;
    size_t i, count = 0, listed = 0;
    for (i = 0; i < im->import_count; ++i)
        count += through_dropin(&im->imports[i]);
    check_node(NODE_STEM, node, sizeof node);
    snprintf(soname, sizeof soname, SONAME_STEM "%d", CUBIND_VERSION_MAJOR);
    if (needed != NULL) {
        check_locate(im, needed, &where);
        if (!where.found)
            check_reason(v, PROBE_EXIT_CHECK_CANNOT, "%s, which it needs, is not found: %s", needed, where.error);
        else if ((dropin = check_load(where.path, error, sizeof error)) == NULL)
            check_reason(v, PROBE_EXIT_CHECK_CANNOT, "%s (%s), which it needs, cannot be loaded: %s", needed,
                         where.path, error);
    }
    if (probe->json) {
        fprintf(probe_out, ",\"dropin\":{\"needed\":%s", needed != NULL ? "true" : "false");
        json_member("soname", soname);
        json_member("version_node", node);
        json_member("program_path", where.found && where.path[0] ? where.path : NULL);
        fprintf(probe_out, "},\"dropin_functions\":[");
    } else if (needed != NULL || count > 0) {
        fprintf(probe_out, "\nlibcubind-dropin: ");
        text_string(needed != NULL ? needed : "not needed");
        fprintf(probe_out, " (this build's: %s, %s)", soname, node);
        if (where.found) {
            fprintf(probe_out, " from ");
            text_string(where.path[0] ? where.path : "?");
        }
        fprintf(probe_out, "\nNVIDIA's functions it uses through the drop-in: %zu\n", count);
    }
    for (i = 0; i < im->import_count; ++i)
        if (through_dropin(&im->imports[i]))
            dropin_function(probe, &im->imports[i], dropin, node, listed++ == 0, v);
    if (probe->json)
        fprintf(probe_out, "%s]", count ? "\n " : "");
    return needed != NULL || count > 0;
}
