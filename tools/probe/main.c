/*
 * cubind-probe - which CUDA libraries this machine really has: for each,
 * found or not, where, its soname and version (asked of the library itself),
 * and the functions cubind binds that it does or does not export; with --check FILE,
 * whether a program or library that uses cubind can run here.
 *
 * This file reads the command line (the `options` table, from which --help is made) and writes
 * the report's sections (the `sections` table) in order; each section is a file of tools/probe/
 * (probe.h says how to add one). Exit statuses: enum probe_exit (probe.h), docs/probe.md.
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

#include "copies.h"
#include "cubind/cubind.h"
#include "output.h"
#include "probe.h"

void probe_status(struct probe *probe, int status)
{
    if (status > probe->status)
        probe->status = status;
}

int probe_covers(const struct probe *probe, cubind_library library)
{
    return probe->only == 0 || (probe->only & (1ULL << (unsigned)library)) != 0;
}

/* A LIBRARY argument ("cufft"): the report is limited to the libraries named. */
static int add_library(struct probe *probe, const char *name)
{
    cubind_library library = cubind_library_from_name(name);
    int i;
    if (library == CUBIND_LIB_NONE) {
        fprintf(stderr, "cubind-probe: unknown option or library ");
        text_escaped(stderr, name);
        fprintf(stderr, " (libraries:");
        for (i = 0; i < CUBIND_LIBRARY_COUNT; ++i)
            fprintf(stderr, " %s", cubind_library_name((cubind_library)i));
        fprintf(stderr, "; cubind-probe --help lists the options)\n");
        return -1;
    }
    probe->only |= 1ULL << (unsigned)library;
    return 0;
}

/* --- the command line ------------------------------------------------------------------------ */

/* What an option does once read; returns 0, or -1 for an argument it refuses (it said why). */
typedef int (*option_set)(struct probe *probe, const char *argument);

static int set_json(struct probe *probe, const char *argument)
{
    (void)argument;
    probe->json = 1;
    return 0;
}

static int set_check(struct probe *probe, const char *argument)
{
    probe->check = argument;
    return 0;
}

static int set_strict(struct probe *probe, const char *argument)
{
    (void)argument;
    probe->strict = 1;
    return 0;
}

static int set_verbose(struct probe *probe, const char *argument)
{
    (void)argument;
    probe->verbose = 1;
    return 0;
}

static int set_all(struct probe *probe, const char *argument)
{
    (void)argument;
    probe->all = 1;
    return 0;
}

static int set_cuda_path(struct probe *probe, const char *argument)
{
    probe->cuda_path = argument;
    return copies_use_cuda_path(argument); /* before any library is loaded */
}

/* Set by --help and --version: they print and exit 0 once the whole command line is read. */
static int want_help, want_version;

static int set_help(struct probe *probe, const char *argument)
{
    (void)probe, (void)argument;
    want_help = 1;
    return 0;
}

static int set_version(struct probe *probe, const char *argument)
{
    (void)probe, (void)argument;
    want_version = 1;
    return 0;
}

/* The options, in the order --help lists them: one line each. */
static const struct option {
    const char *name;     /* "--json" */
    const char *alias;    /* "-h", or NULL */
    const char *argument; /* the name of its argument ("FILE"), or NULL when it takes none */
    const char *help;     /* what it does, for --help */
    option_set set;
} options[] = {
    {"--json", NULL, NULL, "write the report as JSON (its schema: share/cubind/probe.schema.json)", set_json},
    {"--all", NULL, NULL, "also every copy of every CUDA library on the machine, bound or only located, and which is taken",
     set_all},
    {"--cuda-path", NULL, "DIR", "probe the CUDA installation DIR: searched first, its copies listed first", set_cuda_path},
    {"--verbose", "-v", NULL, "the text names every function a library cannot serve, and every check", set_verbose},
    {"--strict", NULL, NULL, "a check whose verdict is a warning makes the exit status 6, as an error does", set_strict},
    {"--check", NULL, "FILE", "can the program or library FILE run here? each cubind function and CUDA library it uses",
     set_check},
    {"--version", NULL, NULL, "print cubind-probe's and libcubind's versions and exit", set_version},
    {"--help", "-h", NULL, "print this help and exit", set_help},
};

/* The exit statuses, for --help (enum probe_exit). */
static const char *const exit_statuses[] = {
    "0  the report was written (whatever it found; with --check: FILE can run here)",
    "1  the report could not be written (a full disk, a closed pipe); the reason on stderr",
    "2  a bad command line",
    "3  --check: FILE starts, but some cubind functions it uses cannot be called here",
    "4  --check: FILE cannot start here (a CUDA library or a cubind symbol or version it needs is missing)",
    "5  --check: FILE cannot be read as a 64-bit little-endian ELF file",
    "6  a check's verdict is an error (with --strict, also a warning)",
};

static void usage(FILE *to)
{
    size_t i;
    fprintf(to, "usage: cubind-probe [OPTION]... [LIBRARY]...\n"
                "Whether this machine can run CUDA work, and why not; then what its CUDA libraries are, as\n"
                "cubind loads them: for each library cubind binds (or each LIBRARY named, \"cufft\"), found or\n"
                "not, its file, soname, version, the CUDA release it is called as and the functions it cannot\n"
                "serve. The loader's environment applies (CUBIND_<LIB>_PATH, CUDA_PATH, ...).\n\n");
    for (i = 0; i < sizeof options / sizeof options[0]; ++i) {
        char left[64];
        snprintf(left, sizeof left, "%s%s%s%s%s", options[i].alias != NULL ? options[i].alias : "",
                 options[i].alias != NULL ? ", " : "", options[i].name, options[i].argument != NULL ? " " : "",
                 options[i].argument != NULL ? options[i].argument : "");
        fprintf(to, "  %-18s %s\n", left, options[i].help);
    }
    fprintf(to, "\nExit status:\n");
    for (i = 0; i < sizeof exit_statuses / sizeof exit_statuses[0]; ++i)
        fprintf(to, "  %s\n", exit_statuses[i]);
}

/* Read argv into `probe`; 0, or -1 after saying what is wrong. `--opt ARG` and `--opt=ARG` both work. */
static int read_options(int argc, char **argv, struct probe *probe)
{
    int a;
    size_t i;
    for (a = 1; a < argc; ++a) {
        const char *arg = argv[a], *value = NULL, *eq = strchr(arg, '=');
        size_t length = eq != NULL && strncmp(arg, "--", 2) == 0 ? (size_t)(eq - arg) : strlen(arg);
        const struct option *o = NULL;
        if (arg[0] != '-' && arg[0] != '\0') {
            if (add_library(probe, arg) != 0)
                return -1;
            continue;
        }
        for (i = 0; i < sizeof options / sizeof options[0] && o == NULL; ++i)
            if ((strlen(options[i].name) == length && strncmp(arg, options[i].name, length) == 0) ||
                (options[i].alias != NULL && strcmp(arg, options[i].alias) == 0))
                o = &options[i];
        if (o == NULL) {
            fprintf(stderr, "cubind-probe: unknown option ");
            text_escaped(stderr, arg);
            fprintf(stderr, " (cubind-probe --help lists them)\n");
            return -1;
        }
        if (o->argument != NULL) {
            if (length < strlen(arg))
                value = arg + length + 1;
            else if (a + 1 < argc)
                value = argv[++a];
            else {
                fprintf(stderr, "cubind-probe: %s needs an argument, %s\n", o->name, o->argument);
                return -1;
            }
        } else if (length < strlen(arg)) {
            fprintf(stderr, "cubind-probe: %s takes no argument\n", o->name);
            return -1;
        }
        if (o->set(probe, value) != 0)
            return -1;
    }
    return 0;
}

/* --- the report ------------------------------------------------------------------------------ */

/* Which report a section belongs to. */
enum { REPORT = 1, CHECK = 2 };

/* The sections, in the order they are written: the JSON key, the reports that have it, the writer,
 * and when it is wanted (NULL: always, in those reports; else only when it answers 1, e.g. after an
 * option: a section left out has no key in the JSON). */
static const struct section {
    const char *key;
    int reports;
    void (*write)(struct probe *probe);
    int (*wanted)(const struct probe *probe);
} sections[] = {
    {"machine", REPORT, machine_section, NULL},
    {"libraries", REPORT, libraries_section, NULL},
    {"driver", REPORT, driver_section, NULL},
    {"gpus", REPORT, gpus_section, NULL},
    {"checks", REPORT, checks_section, NULL},
    {"check", CHECK, check_section, NULL},
    {"copies", REPORT, copies_section, copies_wanted},
};

static void write_report(struct probe *probe)
{
    int which = probe->check != NULL ? CHECK : REPORT;
    size_t i;
    if (probe->json) {
        fprintf(probe_out, "{\"cubind_version\":");
        json_version(CUBIND_VERSION_MAJOR, CUBIND_VERSION_MINOR, CUBIND_VERSION_PATCH);
        json_member("cubind_version_text", cubind_version());
        fprintf(probe_out, ",\"cuda_headers\":");
        json_version_text(CUBIND_CUDA_HEADERS_VERSION_STRING);
        json_member("cuda_headers_text", CUBIND_CUDA_HEADERS_VERSION_STRING);
    } else
        fprintf(probe_out, "cubind %s (bindings generated from the CUDA %s headers)\n", cubind_version(),
               CUBIND_CUDA_HEADERS_VERSION_STRING);
    for (i = 0; i < sizeof sections / sizeof sections[0]; ++i) {
        if (!(sections[i].reports & which) || (sections[i].wanted != NULL && !sections[i].wanted(probe)))
            continue;
        if (probe->json)
            fprintf(probe_out, ",\n\"%s\":", sections[i].key);
        sections[i].write(probe);
    }
    if (probe->json)
        fprintf(probe_out, "}\n");
}

/* What was written must have been written: a full disk or a closed pipe is an error. The exit status. */
static int finish(int status)
{
    errno = 0;
    if (fflush(probe_out) != 0 || ferror(probe_out) || fclose(probe_out) != 0) {
        fprintf(stderr, "cubind-probe: cannot write the report to standard output: %s\n",
                errno != 0 ? strerror(errno) : "write error");
        return PROBE_EXIT_WRITE;
    }
    return status;
}

/* The report, written by the child of probe_survive (screen.c); its exit status. */
static int report(struct probe *probe)
{
    write_report(probe);
    return finish(probe->status);
}

int main(int argc, char **argv)
{
    struct probe probe = {0};
    probe_open_report();
    if (read_options(argc, argv, &probe) != 0)
        return PROBE_EXIT_USAGE;
    if (!want_help && !want_version)
        return probe_survive(&probe, report); /* nothing is loaded here before */
    if (want_help)
        usage(probe_out);
    else
        fprintf(probe_out, "cubind-probe %s (libcubind %s, bindings generated from the CUDA %s headers)\n", CUBIND_RELEASE_STRING,
               cubind_version(), CUBIND_CUDA_HEADERS_VERSION_STRING);
    return finish(PROBE_EXIT_OK);
}
