/*
 * tools/probe/check.h - what the parts of `cubind-probe --check FILE` share (check.c, the
 * drop-in's part check_dropin.c, an embedding's part check_embedded.c): the verdict as its
 * reasons are found, where FILE would get a library it needs, and the version node this build's
 * exports carry.
 */
#ifndef CUBIND_PROBE_CHECK_H
#define CUBIND_PROBE_CHECK_H

#include <stddef.h>

#include "elf_imports.h"
#include "probe.h"

/* The reasons the verdict is not "runs", kept to be written after the parts that found them. */
#define REASONS_MAX 16

struct verdict {
    int status; /* enum probe_exit */
    const char *reasons[REASONS_MAX];
    char storage[REASONS_MAX][512];
    size_t count, more;
};

/* Raise the verdict to `status` with a reason (printf's format). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
void check_reason(struct verdict *v, int status, const char *format, ...);

/* Where FILE would get the library of soname `soname`: its run path, else the system loader's search
 * (the library is then loaded into the probe, as cubind loads its own). */
struct located {
    int found;
    char path[4096];
    const char *where; /* "run path" or "system loader" */
    char error[512];
};
void check_locate(const struct elf_imports *imports, const char *soname, struct located *out);

/* Load `file` (a path, or a soname the system loader searches for) into the probe, its symbols bound
 * as called and kept to itself: its handle, or NULL with the system's reason in `error`. The probe's
 * one place that loads a library. */
void *check_load(const char *file, char *error, size_t size);

/* The version node every export of this build carries with `stem` before it ("CUBIND_" -> CUBIND_0.5,
 * "CUBIND_DROPIN_" -> CUBIND_DROPIN_0.5: abi/libcubind.map, dropin/dropin.mk), into `node`. */
void check_node(const char *stem, char *node, size_t size);

/* The parts of the check that a program using cubind through the drop-in, and one embedding cubind,
 * add; each says whether FILE uses CUDA through it (for the verdict on the machine's GPUs). */
int check_dropin_part(struct probe *probe, const struct elf_imports *im, struct verdict *v);
int check_embedded_part(struct probe *probe, const struct elf_imports *im, struct verdict *v);

#endif
