/*
 * tools/probe/probe.h - what the parts of cubind-probe share: the command line as read, the exit
 * statuses, and the sections of the report (one file in tools/probe each).
 *
 * Adding a section (main.c): a field in struct probe for its option, if it has one; a line in
 * main.c's `options` table (the usage text is made from it) with the function that sets the field;
 * a line in main.c's `sections` table (its JSON key, the reports it belongs to, the function that
 * writes it, and optionally when it is wanted); in docs/probe.schema.json its key, a $defs entry
 * listing every key it writes, and its place in the oneOf (the report's or --check's); the option in
 * docs/probe.md's table (tests/probe checks that --help's options are all there). A section that
 * decides the exit status calls probe_status with a new value of enum probe_exit (documented in
 * main.c's `exit_statuses`, which --help prints, and in docs/probe.md's table).
 */
#ifndef CUBIND_PROBE_PROBE_H
#define CUBIND_PROBE_PROBE_H

#include "cubind/core.h"

/* The exit statuses (docs/probe.md lists them). A section raises probe->status with probe_status;
 * the highest value set is the exit status. */
enum probe_exit {
    PROBE_EXIT_OK = 0,            /* the report was written */
    PROBE_EXIT_WRITE = 1,         /* the report could not be written (a full disk, a closed pipe) */
    PROBE_EXIT_USAGE = 2,         /* a bad command line */
    PROBE_EXIT_CHECK_PARTLY = 3,  /* --check: FILE starts here, but some cubind functions it calls cannot be served */
    PROBE_EXIT_CHECK_CANNOT = 4,  /* --check: FILE cannot start here (a CUDA library it needs is not found, a cubind
                                     symbol or version node it needs is not in this libcubind, another machine) */
    PROBE_EXIT_CHECK_UNREADABLE = 5, /* --check: FILE cannot be read as a 64-bit little-endian ELF file */
    PROBE_EXIT_CHECKS = 6           /* a check's verdict is an error (with --strict, also a warning) */
};

/* The command line as read, and what the sections decide. */
struct probe {
    int json;          /* --json: the report as JSON (docs/probe.schema.json), else text */
    const char *check; /* --check FILE: the program or library to check, else NULL */
    int all;           /* --all: every copy of every library (copies.c) */
    int strict;        /* --strict: a check's warning makes the exit status PROBE_EXIT_CHECKS, as an error does */
    int verbose;       /* --verbose: the text names every function a library cannot serve and every check */
    const char *cuda_path; /* --cuda-path DIR: the CUDA installation probed, else NULL */
    int status;        /* the exit status so far (enum probe_exit) */
    unsigned long long only; /* LIBRARY arguments: the libraries reported, a bit (1 << id) each; 0: all */
};

/* Whether the report covers `library` (every library without LIBRARY arguments). */
int probe_covers(const struct probe *probe, cubind_library library);

/* Whether no GPU can be used here, and why: 1 with the reason in `why` ("no CUDA driver: libcuda
 * not found", the places tried left to the libraries' section), 0 when a GPU is visible
 * (cubind_gpu_count; machine.c). */
int probe_no_gpu(char *why, size_t size);

/* Write the report with `report` in a child process that first loads each library the report will
 * load; a library whose load crashes or hangs there has its version query left unasked by the next
 * child (screen.c). Returns the exit status `report` returned in the child. */
int probe_survive(struct probe *probe, int (*report)(struct probe *));

/* Why `library`'s version query was not asked (it crashed or hung in probe_screen's child), else NULL. */
const char *probe_version_error(cubind_library library);

/* Raise probe->status to `status` (a lower one does not lower it). */
void probe_status(struct probe *probe, int status);

/* The sections. Each writes its text, or its JSON value (main.c writes the key before it). */
void libraries_section(struct probe *probe); /* libraries.c: "libraries" */
void check_section(struct probe *probe);     /* check.c: "check" (--check FILE) */
void driver_section(struct probe *probe);    /* driver.c: "driver" (the driver: release, CUDA level) */
void gpus_section(struct probe *probe);      /* driver.c: "gpus" (each GPU) */
void checks_section(struct probe *probe);    /* checks.c: "checks" (does it fit together?) */
void copies_section(struct probe *probe);    /* copies.c: "copies" (--all) */
void machine_section(struct probe *probe);   /* driver.c: "machine" (first: can this machine run CUDA work?) */
int copies_wanted(const struct probe *probe);

/* cubind_function_state as the report writes it: "callable", "adapted", "missing", "refused", "not loaded". */
const char *probe_state_name(cubind_function_state state);

#endif
