/*
 * cubind-probe - which CUDA libraries this machine really has: for each,
 * found or not, where, its soname and version (asked of the library itself),
 * and the functions cubind binds that it does or does not export.
 *
 *     cubind-probe           text
 *     cubind-probe --json    {"libraries":[{"name",...}]} for machines
 *
 * Exit status 0 whenever it ran, whatever it found; 2 for a bad command line; 1 when
 * the report could not be written (a full disk, a closed pipe), with the reason on stderr.
 *
 * Paths may hold any byte. The text report keeps printable UTF-8 and writes control
 * characters and bytes that are not UTF-8 as \xNN (a path cannot colour the terminal).
 * The JSON is valid UTF-8: strings keep valid UTF-8 as it is, escape '"', '\' and control
 * characters, and replace a byte that is not UTF-8 by U+FFFD; "path_bytes" and
 * "real_path_bytes" then hold the path's exact bytes in hex (null when it is valid UTF-8).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cubind/cubind.h"
#include "machine.h"
#include "output.h"

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

/* cubind_function_state as the probe prints it */
static const char *state_name(cubind_function_state state)
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

static void print_json(const struct cubind_library_info *infos)
{
    int lib;
    size_t i;
    char version[64];
    printf("{\"cubind_version\":");
    json_string(cubind_version());
    json_member("cuda_headers", CUBIND_CUDA_HEADERS_VERSION_STRING);
    printf(",\"libraries\":[");
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        const struct cubind_library_info *info = &infos[lib];
        printf("%s\n {\"name\":", lib ? "," : "");
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
        json_member("version", version_text(info, version, sizeof version));
        json_member("version_source", info->version_source);
        printf(",\"functions\":%zu,\"functions_found\":%zu,\"missing\":[", info->functions, info->functions_found);
        if (info->found)
            for (i = 0; i < info->functions_missing; ++i) {
                if (i)
                    putchar(',');
                json_string(info->missing[i]);
            }
        printf("],\"release\":");
        json_string(info->release);
        json_member("releases", info->releases);
        json_member("release_note", info->release_note);
        printf(",\"not_callable\":[");
        if (info->found)
            for (i = 0; i < info->functions_missing; ++i) {
                struct cubind_function_info f = {.size = sizeof f};
                cubind_function_info(info->missing[i], &f);
                printf("%s{\"name\":", i ? "," : "");
                json_string(info->missing[i]);
                json_member("state", state_name(f.state));
                json_member("symbol", f.symbol);
                json_member("reason", f.reason);
                putchar('}');
            }
        printf("],\"error\":");
        json_string(info->error);
        putchar('}');
    }
    printf("\n]");
    driver_json();
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
            printf("\n%-11s not found (%zu functions unavailable)\n    ", info->name, info->functions);
            text_string(info->error);
            putchar('\n');
            continue;
        }
        printf("\n%-11s ", info->name);
        text_string(info->soname != NULL ? info->soname : "(no soname)");
        printf("  version %s  (", v != NULL ? v : "unknown");
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
            printf("      %s: %s", state_name(f.state), info->missing[i]);
            if (f.reason != NULL) {
                printf(" (");
                text_string(f.reason);
                putchar(')');
            }
            putchar('\n');
        }
    }
}

int main(int argc, char **argv)
{
    struct cubind_library_info infos[CUBIND_LIBRARY_COUNT];
    int json = 0, strict = 0, worst, lib;
    for (; argc > 1 && (strcmp(argv[argc - 1], "--json") == 0 || strcmp(argv[argc - 1], "--strict") == 0); --argc)
        *(argv[argc - 1][2] == 'j' ? &json : &strict) = 1;
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: cubind-probe [--json] [--strict]\n");
        return 0;
    } else if (argc != 1) {
        fprintf(stderr, "usage: cubind-probe [--json] [--strict]\n");
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
    if (!json)
        driver_text();
    worst = json ? checks_json() : checks_text();
    if (json)
        printf("}\n");
    /* what was written must have been written: a full disk or a closed pipe is an error */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        fprintf(stderr, "cubind-probe: cannot write the report to standard output: %s\n",
                errno != 0 ? strerror(errno) : "write error");
        return 1;
    }
    return checks_exit_status(worst, strict);
}
