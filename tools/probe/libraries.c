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

/* "13.0, 12.4, 11.8" as [{"major":13,...},...] */
static void json_release_list(const char *list)
{
    const char *p = list;
    putchar('[');
    while (p != NULL && *p != '\0') {
        char one[32];
        size_t n = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one - 1 ? n : sizeof one - 1), p);
        if (p != list)
            putchar(',');
        json_version_text(one);
        p += n;
        while (*p == ',' || *p == ' ')
            ++p;
    }
    putchar(']');
}

static void json_library(const struct cubind_library_info *info)
{
    size_t i;
    printf("{\"name\":");
    json_string(info->name);
    printf(",\"found\":%s,\"path\":", info->found ? "true" : "false");
    json_string(info->path);
    printf(",\"path_bytes\":");
    json_bytes(info->path);
    json_member("real_path", info->real_path);
    printf(",\"real_path_bytes\":");
    json_bytes(info->real_path);
    json_member("found_by", info->found_by);
    json_member("soname", info->soname);
    printf(",\"version\":");
    if (info->version_text != NULL)
        json_version(info->version_major, info->version_minor, info->version_patch);
    else
        printf("null");
    json_member("version_text", info->version_text);
    json_member("version_source", origin_name(info));
    json_member("version_detail", info->version_detail);
    json_member("version_note", info->version_source);
    printf(",\"functions\":%zu,\"functions_found\":%zu,\"missing\":", info->functions, info->functions_found);
    if (info->found) {
        putchar('[');
        for (i = 0; i < info->functions_missing; ++i) {
            if (i)
                putchar(',');
            json_string(info->missing[i]);
        }
        putchar(']');
    } else
        printf("null");
    printf(",\"release\":");
    json_version_text(info->release);
    json_member("release_text", info->release);
    printf(",\"releases\":");
    json_release_list(info->releases);
    json_member("releases_text", info->releases);
    json_member("release_note", info->release_note);
    printf(",\"not_callable\":");
    if (info->found) {
        putchar('[');
        for (i = 0; i < info->functions_missing; ++i) {
            struct cubind_function_info f = {.size = sizeof f};
            cubind_function_info(info->missing[i], &f);
            printf("%s{\"name\":", i ? "," : "");
            json_string(info->missing[i]);
            json_member("state", probe_state_name(f.state));
            json_member("symbol", f.symbol);
            json_member("reason", f.reason);
            putchar('}');
        }
        putchar(']');
    } else
        printf("null");
    printf(",\"error\":");
    json_string(info->error);
    putchar('}');
}

static void text_library(const struct cubind_library_info *info)
{
    size_t i;
    if (!info->found) {
        printf("\n%-11s not found (%zu functions unavailable)\n    ", info->name, info->functions);
        text_string(info->error);
        putchar('\n');
        return;
    }
    printf("\n%-11s ", info->name);
    text_string(info->soname != NULL ? info->soname : "(no soname)");
    printf("  version %s  (", info->version_text != NULL ? info->version_text : "unknown");
    text_string(info->version_source);
    printf(")\n    path: ");
    text_string(info->path);
    if (info->real_path != NULL && strcmp(info->real_path, info->path) != 0) {
        printf(" -> ");
        text_string(info->real_path);
    }
    printf("\n    found by: %s\n", info->found_by);
    printf("    called as: CUDA %s (these bindings know %s)\n", info->release != NULL ? info->release : "?",
           info->releases != NULL ? info->releases : "?");
    if (info->release_note != NULL) {
        printf("    mixed releases: ");
        text_string(info->release_note);
        putchar('\n');
    }
    printf("    functions: %zu of %zu callable, %zu not\n", info->functions_found, info->functions,
           info->functions_missing);
    for (i = 0; i < info->functions_missing; ++i) {
        struct cubind_function_info f = {.size = sizeof f};
        cubind_function_info(info->missing[i], &f);
        printf("      %s: %s", probe_state_name(f.state), info->missing[i]);
        if (f.reason != NULL) {
            printf(" (");
            text_string(f.reason);
            putchar(')');
        }
        putchar('\n');
    }
}

void libraries_section(struct probe *probe)
{
    int lib;
    if (probe->json)
        putchar('[');
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        struct cubind_library_info info;
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        cubind_library_info((cubind_library)lib, &info);
        if (probe->json) {
            printf("%s\n ", lib ? "," : "");
            json_library(&info);
        } else
            text_library(&info);
    }
    if (probe->json)
        printf("\n]");
}
