/*
 * cubind-probe --all: every copy of every library a program could load here (bound and located
 * only), where, its version and where that came from, its CUDA release, and which copy cubind (or
 * dlopen, for a library cubind does not bind) takes and why. See docs/probe.md.
 */
#define _POSIX_C_SOURCE 200809L
#include "copies.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cubind/cubind.h"
#include "output.h"
#include "probe.h"

int copies_use_cuda_path(const char *dir)
{
    struct stat st;
    if (dir[0] != '/' || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "cubind-probe: --cuda-path ");
        text_escaped(stderr, dir);
        fprintf(stderr, ": not an absolute path to a directory\n");
        return -1;
    }
    return setenv("CUDA_PATH", dir, 1);
}

static cubind_copies *find(const char *cuda_path)
{
    struct cubind_copies_options options = {.size = sizeof options, .flags = CUBIND_COPIES_LOAD, .cuda_path = cuda_path};
    cubind_copies *copies = NULL;
    return cubind_copies_find(&options, &copies) == CUBIND_OK ? copies : NULL;
}

/* A copy's CUDA release, or why it is not known. */
static void release_text(const struct cubind_copy *c)
{
    if (c->release != NULL)
        fprintf(probe_out, "CUDA %s", c->release);
    else if (c->bound && c->version_major < 0)
        fprintf(probe_out, "CUDA release unknown (its version is)");
    else if (c->bound)
        fprintf(probe_out, "CUDA release unknown (its version is of no release these bindings know)");
    else
        fprintf(probe_out, "CUDA release unknown (neither its configuration nor a cu<N> or cuda-<N> directory of its "
                           "path tells it)");
}

static int copies_text(const char *cuda_path)
{
    cubind_copies *copies = find(cuda_path);
    size_t lib, i, n = cubind_copies_count(copies), libraries = 0;
    if (copies == NULL) {
        fprintf(probe_out, "\nevery copy: not listed: ");
        text_string(cubind_last_error()->message);
        probe_char('\n');
        return -1;
    }
    for (lib = 0; lib < cubind_locatable_count(); ++lib)
        for (i = 0; i < n; ++i) {
            struct cubind_copy c = {.size = sizeof c};
            cubind_copies_get(copies, i, &c);
            if (strcmp(c.library, cubind_locatable_name(lib)) == 0) {
                libraries++;
                break;
            }
        }
    fprintf(probe_out, "\nEvery copy: %zu of %zu libraries have one, %zu copies%s", libraries, cubind_locatable_count(), n,
           cuda_path != NULL ? "; searched first: " : "");
    text_string(cuda_path);
    probe_char('\n');
    for (lib = 0; lib < cubind_locatable_count(); ++lib) {
        const char *name = cubind_locatable_name(lib);
        int any = 0, bound = 0, chosen = 0;
        for (i = 0; i < n; ++i) {
            struct cubind_copy c = {.size = sizeof c};
            cubind_copies_get(copies, i, &c);
            if (strcmp(c.library, name) != 0)
                continue;
            if (!any)
                fprintf(probe_out, "\n%s%s\n", name, c.bound ? "" : " (located, not bound)");
            any = 1;
            bound = c.bound;
            chosen |= c.chosen;
            fprintf(probe_out, "  %s ", c.chosen ? "*" : "-");
            text_string(c.path);
            if (strcmp(c.path, c.real_path) != 0) {
                fprintf(probe_out, " -> ");
                text_string(c.real_path);
            }
            fprintf(probe_out, "\n      ");
            if (c.version_major >= 0) {
                fprintf(probe_out, "version %d", c.version_major);
                if (c.version_minor >= 0)
                    fprintf(probe_out, ".%d", c.version_minor);
                if (c.version_patch >= 0)
                    fprintf(probe_out, ".%d", c.version_patch);
            } else
                fprintf(probe_out, "version unknown");
            fprintf(probe_out, " (%s: ", c.version_source);
            text_string(c.version_detail);
            fprintf(probe_out, "), ");
            release_text(&c);
            fprintf(probe_out, "; at ");
            text_string(c.places);
            probe_char('\n');
            if (c.error != NULL) {
                fprintf(probe_out, "      not loadable: ");
                text_string(c.error);
                probe_char('\n');
            }
            if (c.chosen)
                fprintf(probe_out, "      taken: %s\n", c.chosen_by != NULL ? c.chosen_by : "?");
        }
        if (any && !chosen)
            fprintf(probe_out, "  %s\n", bound ? "none taken (cubind found no loadable copy)"
                                   : "none taken by dlopen of its soname (none in LD_LIBRARY_PATH, the ld.so cache "
                                     "or the system directories)");
    }
    fprintf(probe_out, "\nNo copy of:");
    for (lib = 0; lib < cubind_locatable_count(); ++lib) {
        int any = 0;
        for (i = 0; i < n && !any; ++i) {
            struct cubind_copy c = {.size = sizeof c};
            cubind_copies_get(copies, i, &c);
            any = strcmp(c.library, cubind_locatable_name(lib)) == 0;
        }
        if (!any)
            fprintf(probe_out, " %s", cubind_locatable_name(lib));
    }
    probe_char('\n');
    cubind_copies_free(copies);
    return 0;
}

static int copies_json(const char *cuda_path)
{
    cubind_copies *copies = find(cuda_path);
    size_t lib, i, n = cubind_copies_count(copies);
    fprintf(probe_out, "[");
    if (copies == NULL) {
        fprintf(probe_out, "]");
        return -1;
    }
    for (lib = 0; lib < cubind_locatable_count(); ++lib) {
        const char *name = cubind_locatable_name(lib);
        int first = 1;
        fprintf(probe_out, "%s\n {\"name\":", lib ? "," : "");
        json_string(name);
        fprintf(probe_out, ",\"bound\":%s,\"copies\":[", lib < CUBIND_LIBRARY_COUNT ? "true" : "false");
        for (i = 0; i < n; ++i) {
            struct cubind_copy c = {.size = sizeof c};
            cubind_copies_get(copies, i, &c);
            if (strcmp(c.library, name) != 0)
                continue;
            fprintf(probe_out, "%s\n  {\"path\":", first ? "" : ",");
            first = 0;
            json_string(c.path);
            fprintf(probe_out, ",\"path_bytes\":");
            json_bytes(c.path);
            json_member("real_path", c.real_path);
            fprintf(probe_out, ",\"real_path_bytes\":");
            json_bytes(c.real_path);
            json_member("place", c.place);
            json_member("places", c.places);
            json_member("soname", c.soname);
            fprintf(probe_out, ",\"version\":");
            json_version(c.version_major, c.version_minor, c.version_patch);
            json_member("version_source", c.version_source);
            json_member("version_detail", c.version_detail);
            json_member("release", c.release);
            fprintf(probe_out, ",\"chosen\":%s", c.chosen ? "true" : "false");
            json_member("chosen_by", c.chosen_by);
            json_member("error", c.error);
            probe_char('}');
        }
        fprintf(probe_out, "]}");
    }
    fprintf(probe_out, "\n]");
    cubind_copies_free(copies);
    return 0;
}

/* The section after the libraries' (text), or the array of "copies" (JSON). A listing that failed
 * says why in the report. */
void copies_section(struct probe *probe)
{
    if (probe->json)
        copies_json(probe->cuda_path);
    else
        copies_text(probe->cuda_path);
}

int copies_wanted(const struct probe *probe)
{
    return probe->all;
}
