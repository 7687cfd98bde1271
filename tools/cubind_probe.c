/*
 * cubind-probe - which CUDA math libraries this machine really has: for each,
 * found or not, where, its soname and version (asked of the library itself),
 * and the functions cubind binds that it does or does not export.
 *
 *     cubind-probe           text
 *     cubind-probe --json    {"libraries":[{"name",...}]} for machines
 *
 * Exit status 0 whenever it ran, whatever it found; 2 for a bad command line.
 */
#include <stdio.h>
#include <string.h>

#include "cubind/cubind.h"

static void json_string(const char *text)
{
    const unsigned char *p;
    if (text == NULL) {
        fputs("null", stdout);
        return;
    }
    putchar('"');
    for (p = (const unsigned char *)text; *p != '\0'; ++p) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            printf("\\u%04x", *p); /* bytes of a non-UTF-8 path stay visible and the JSON stays valid */
        else
            putchar(*p);
    }
    putchar('"');
}

/* "13.1.0", "12" when only the major is known, NULL when unknown. */
static const char *version_text(const struct cubind_library_info *info, char *buf, size_t size)
{
    if (info->version_major < 0)
        return NULL;
    if (info->version_minor < 0)
        snprintf(buf, size, "%d", info->version_major);
    else if (info->version_patch < 0)
        snprintf(buf, size, "%d.%d", info->version_major, info->version_minor);
    else
        snprintf(buf, size, "%d.%d.%d", info->version_major, info->version_minor, info->version_patch);
    return buf;
}

static void print_json(const struct cubind_library_info *infos)
{
    int lib;
    size_t i;
    char version[64];
    printf("{\"cubind_version\":");
    json_string(cubind_version());
    printf(",\"cuda_headers\":");
    json_string(CUBIND_CUDA_HEADERS_VERSION_STRING);
    printf(",\"libraries\":[");
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        const struct cubind_library_info *info = &infos[lib];
        printf("%s\n {\"name\":", lib ? "," : "");
        json_string(info->name);
        printf(",\"found\":%s,\"path\":", info->found ? "true" : "false");
        json_string(info->path);
        printf(",\"real_path\":");
        json_string(info->real_path);
        printf(",\"found_by\":");
        json_string(info->found_by);
        printf(",\"soname\":");
        json_string(info->soname);
        printf(",\"version\":");
        json_string(version_text(info, version, sizeof version));
        printf(",\"version_source\":");
        json_string(info->version_source);
        printf(",\"functions\":%zu,\"functions_found\":%zu,\"missing\":[", info->functions, info->functions_found);
        if (info->found)
            for (i = 0; i < info->functions_missing; ++i) {
                if (i)
                    putchar(',');
                json_string(info->missing[i]);
            }
        printf("],\"error\":");
        json_string(info->error);
        putchar('}');
    }
    printf("\n]}\n");
}

static void print_text(const struct cubind_library_info *infos)
{
    int lib;
    size_t i;
    char version[64];
    printf("cubind %s (bindings generated from the CUDA %s headers)\n", cubind_version(),
           CUBIND_CUDA_HEADERS_VERSION_STRING);
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        const struct cubind_library_info *info = &infos[lib];
        const char *v = version_text(info, version, sizeof version);
        if (!info->found) {
            printf("\n%-11s not found (%zu functions unavailable)\n    %s\n", info->name, info->functions,
                   info->error != NULL ? info->error : "");
            continue;
        }
        printf("\n%-11s %s  version %s  (%s)\n", info->name, info->soname != NULL ? info->soname : "(no soname)",
               v != NULL ? v : "unknown", info->version_source);
        printf("    path: %s", info->path);
        if (info->real_path != NULL && strcmp(info->real_path, info->path) != 0)
            printf(" -> %s", info->real_path);
        printf("\n    found by: %s\n", info->found_by);
        printf("    functions: %zu of %zu found, %zu missing\n", info->functions_found, info->functions,
               info->functions_missing);
        for (i = 0; i < info->functions_missing; ++i)
            printf("      missing: %s\n", info->missing[i]);
    }
}

int main(int argc, char **argv)
{
    struct cubind_library_info infos[CUBIND_LIBRARY_COUNT];
    int json = 0, lib;
    if (argc == 2 && strcmp(argv[1], "--json") == 0)
        json = 1;
    else if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: cubind-probe [--json]\n");
        return 0;
    } else if (argc != 1) {
        fprintf(stderr, "usage: cubind-probe [--json]\n");
        return 2;
    }
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib)
    {
        infos[lib].size = sizeof infos[lib];
        cubind_library_info((cubind_library)lib, &infos[lib]);
    }
    if (json)
        print_json(infos);
    else
        print_text(infos);
    return 0;
}
