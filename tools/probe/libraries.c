/*
 * tools/probe/libraries.c - the report's "libraries" section: every library cubind binds, in the
 * order of cubind_library, as cubind_library_info and cubind_function_info describe it.
 */
#include <stdio.h>
#include <string.h>

#include "cubind/cubind.h"
#include "output.h"
#include "probe.h"

/* cubind_function_state as the probe prints it */
const char *probe_state_name(cubind_function_state state)
{
    switch (state) {
    case CUBIND_FUNCTION_CALLABLE: return "callable";
    case CUBIND_FUNCTION_ADAPTED: return "adapted";
    case CUBIND_FUNCTION_MISSING: return "missing";
    case CUBIND_FUNCTION_REFUSED: return "refused";
    case CUBIND_FUNCTION_NOT_LOADED: return "not loaded";
    default: return "unknown";
    }
}

/* cubind_version_origin as the JSON writes it (a fixed word); NULL when the library is not loaded */
static const char *origin_name(const struct cubind_library_info *info)
{
    if (!info->found)
        return NULL;
    switch (info->version_origin) {
    case CUBIND_VERSION_ORIGIN_QUERY: return "query";
    case CUBIND_VERSION_ORIGIN_FILE_NAME: return "file-name";
    default: return "none";
    }
}

/* Why the version the library gives of itself is not its query's answer, or not to be trusted: the
 * query crashed or hung in the probe's child (screen.c, then not asked), answered numbers that are
 * no version (a negative part, a part after one not known), or a major its soname contradicts
 * (the check version-matches-soname); else NULL. */
static const char *version_error(const struct cubind_library_info *info, char *text, size_t size)
{
    const char *screened = probe_version_error(info->library);
    size_t i, n = cubind_check_count();
    if (screened != NULL || !info->found || info->version_origin != CUBIND_VERSION_ORIGIN_QUERY)
        return screened;
    if (info->version_major < 0 || info->version_minor < -1 || info->version_patch < -1 ||
        (info->version_minor < 0 && info->version_patch >= 0)) {
        snprintf(text, size, "%s answered %d.%d.%d, which is not a version", info->version_detail,
                 info->version_major, info->version_minor, info->version_patch);
        return text;
    }
    for (i = 0; i < n; ++i) {
        struct cubind_check c = {.size = sizeof c};
        if (cubind_check_get(i, &c) == CUBIND_OK && c.library == info->library && c.verdict != CUBIND_CHECK_OK &&
            strcmp(c.name, "version-matches-soname") == 0) {
            snprintf(text, size, "%s", c.reason);
            return text;
        }
    }
    return NULL;
}

/* "13.0, 12.4, 11.8" as [{"major":13,...},...] */
static void json_release_list(const char *list)
{
    const char *p = list;
    probe_char('[');
    while (p != NULL && *p != '\0') {
        char one[32];
        size_t n = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one - 1 ? n : sizeof one - 1), p);
        if (p != list)
            probe_char(',');
        json_version_text(one);
        p += n;
        while (*p == ',' || *p == ' ')
            ++p;
    }
    probe_char(']');
}

static void json_library(const struct cubind_library_info *info)
{
    char error[CUBIND_ERROR_MESSAGE_MAX];
    size_t i;
    fprintf(probe_out, "{\"name\":");
    json_string(info->name);
    fprintf(probe_out, ",\"found\":%s,\"path\":", info->found ? "true" : "false");
    json_string(info->path);
    fprintf(probe_out, ",\"path_bytes\":");
    json_bytes(info->path);
    json_member("real_path", info->real_path);
    fprintf(probe_out, ",\"real_path_bytes\":");
    json_bytes(info->real_path);
    json_member("found_by", info->found_by);
    json_member("loaded_by", info->loaded_by);
    json_member("soname", info->soname);
    fprintf(probe_out, ",\"version\":");
    if (info->version_text != NULL)
        json_version(info->version_major, info->version_minor, info->version_patch);
    else
        fprintf(probe_out, "null");
    json_member("version_text", info->version_text);
    json_member("version_source", origin_name(info));
    json_member("version_detail", info->version_detail);
    json_member("version_note", info->version_source);
    json_member("version_error", version_error(info, error, sizeof error));
    fprintf(probe_out, ",\"functions\":%zu,\"functions_found\":%zu,\"missing\":", info->functions, info->functions_found);
    if (info->found) {
        probe_char('[');
        for (i = 0; i < info->functions_missing; ++i) {
            if (i)
                probe_char(',');
            json_string(info->missing[i]);
        }
        probe_char(']');
    } else
        fprintf(probe_out, "null");
    fprintf(probe_out, ",\"release\":");
    json_version_text(info->release);
    json_member("release_text", info->release);
    fprintf(probe_out, ",\"releases\":");
    json_release_list(info->releases);
    json_member("releases_text", info->releases);
    json_member("release_note", info->release_note);
    fprintf(probe_out, ",\"not_callable\":");
    if (info->found) {
        probe_char('[');
        for (i = 0; i < info->functions_missing; ++i) {
            struct cubind_function_info f = {.size = sizeof f};
            cubind_function_info(info->missing[i], &f);
            fprintf(probe_out, "%s{\"name\":", i ? "," : "");
            json_string(info->missing[i]);
            json_member("state", probe_state_name(f.state));
            json_member("symbol", f.symbol);
            json_member("reason", f.reason);
            probe_char('}');
        }
        probe_char(']');
    } else
        fprintf(probe_out, "null");
    fprintf(probe_out, ",\"error\":");
    json_string(info->error);
    probe_char('}');
}

/* The functions the text names of a state before "and N more" (--verbose names each, with why). */
#define FIRST_FEW 3

/* The functions `info` cannot serve: each with its state and why (--verbose), else per state a count,
 * the reason when they share one, and the first few names. */
static void text_not_callable(const struct cubind_library_info *info, int verbose)
{
    static const cubind_function_state states[] = {CUBIND_FUNCTION_MISSING, CUBIND_FUNCTION_REFUSED,
                                                   CUBIND_FUNCTION_NOT_LOADED, CUBIND_FUNCTION_ADAPTED,
                                                   CUBIND_FUNCTION_CALLABLE, CUBIND_FUNCTION_UNKNOWN};
    size_t s, i;
    for (s = 0; s < sizeof states / sizeof states[0]; ++s) {
        const char *reason = NULL;
        size_t count = 0, named = 0;
        int one_reason = 1;
        for (i = 0; i < info->functions_missing; ++i) {
            struct cubind_function_info f = {.size = sizeof f};
            cubind_function_info(info->missing[i], &f);
            if (f.state != states[s])
                continue;
            if (verbose) {
                fprintf(probe_out, "      %s: %s", probe_state_name(f.state), info->missing[i]);
                if (f.reason != NULL) {
                    fprintf(probe_out, " (");
                    text_string(f.reason);
                    probe_char(')');
                }
                probe_char('\n');
                continue;
            }
            if (count++ == 0)
                reason = f.reason;
            else if (reason == NULL || f.reason == NULL || strcmp(reason, f.reason) != 0)
                one_reason = 0;
        }
        if (verbose || count == 0)
            continue;
        fprintf(probe_out, "      %zu %s", count, probe_state_name(states[s]));
        if (one_reason && reason != NULL) {
            fprintf(probe_out, " (");
            text_string(reason);
            probe_char(')');
        }
        fprintf(probe_out, ": ");
        for (i = 0; i < info->functions_missing && named < FIRST_FEW; ++i) {
            struct cubind_function_info f = {.size = sizeof f};
            cubind_function_info(info->missing[i], &f);
            if (f.state == states[s])
                fprintf(probe_out, "%s%s", named++ ? ", " : "", info->missing[i]);
        }
        if (count > named)
            fprintf(probe_out, " and %zu more (--verbose lists each, with why)", count - named);
        probe_char('\n');
    }
}

/* "    label: text" on a line of its own, when there is a text. */
static void said(const char *label, const char *text)
{
    if (text == NULL)
        return;
    fprintf(probe_out, "    %s: ", label);
    text_string(text);
    probe_char('\n');
}

static void text_library(const struct cubind_library_info *info, int verbose)
{
    char error[CUBIND_ERROR_MESSAGE_MAX];
    const char *wrong = version_error(info, error, sizeof error);
    if (!info->found) {
        fprintf(probe_out, "\n%-11s not found (%zu functions unavailable)\n    ", info->name, info->functions);
        text_string(info->error);
        probe_char('\n');
        said("version query", wrong);
        return;
    }
    fprintf(probe_out, "\n%-11s ", info->name);
    text_string(info->soname != NULL ? info->soname : "(no soname)");
    fprintf(probe_out, "  version %s (", info->version_text != NULL ? info->version_text : "unknown");
    text_string(info->version_source);
    fprintf(probe_out, "), called as CUDA %s\n", info->release != NULL ? info->release : "?");
    said("version query", wrong);
    fprintf(probe_out, "    path: ");
    text_string(info->path);
    if (info->real_path != NULL && strcmp(info->real_path, info->path) != 0) {
        fprintf(probe_out, " -> ");
        text_string(info->real_path);
    }
    fprintf(probe_out, " (found by: %s", info->found_by);
    if (info->loaded_by != NULL) {
        fprintf(probe_out, ", ");
        text_string(info->loaded_by);
    }
    fprintf(probe_out, ")\n");
    if (verbose)
        said("releases these bindings know", info->releases);
    said("mixed releases", info->release_note);
    fprintf(probe_out, "    functions: %zu of %zu callable", info->functions_found, info->functions);
    if (info->functions_missing > 0)
        fprintf(probe_out, ", %zu not:", info->functions_missing);
    probe_char('\n');
    text_not_callable(info, verbose);
}

/* The libraries a subset leaves out (cubind binds none of their functions), one line for all of them
 * after the others, with why (the loader's words, the same for each). */
static void text_left_out(const struct probe *probe)
{
    const char *why = NULL;
    int lib, listed = 0;
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        struct cubind_library_info info = {.size = sizeof info};
        if (!probe_covers(probe, (cubind_library)lib) || cubind_library_info((cubind_library)lib, &info) == CUBIND_OK ||
            info.functions > 0)
            continue;
        fprintf(probe_out, "%s%s", listed++ ? ", " : "\nleft out    ", info.name);
        why = info.error;
    }
    if (why != NULL) {
        fprintf(probe_out, ": ");
        text_string(why);
        probe_char('\n');
    }
}

void libraries_section(struct probe *probe)
{
    int lib, listed = 0, under_root = 0;
    if (probe->json)
        probe_char('[');
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        struct cubind_library_info info;
        if (!probe_covers(probe, (cubind_library)lib))
            continue; /* not named by a LIBRARY argument: not loaded either */
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        cubind_library_info((cubind_library)lib, &info);
        under_root += info.found_by != NULL && strcmp(info.found_by, "CUDA_PATH") == 0;
        if (probe->json) {
            fprintf(probe_out, "%s\n ", listed++ ? "," : "");
            json_library(&info);
        } else if (info.found || info.functions > 0) /* those left out of a subset: below, in one line */
            text_library(&info, probe->verbose);
    }
    if (probe->json)
        fprintf(probe_out, "\n]");
    else
        text_left_out(probe);
    if (!probe->json && probe->cuda_path != NULL && under_root == 0) {
        /* --cuda-path DIR that holds none of them: said, not left to be guessed from "found by" */
        fprintf(probe_out, "\n--cuda-path ");
        text_string(probe->cuda_path);
        fprintf(probe_out, ": none of these libraries is found under it (its lib64, lib, targets/<arch>/lib and "
                           "lib/<triplet> were searched)\n");
    }
}
