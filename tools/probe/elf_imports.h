/*
 * tools/probe/elf_imports.h - what a program or shared library imports, read from its file without
 * loading it: its DT_NEEDED libraries, its run path, and its undefined dynamic symbols with the
 * version node each asks for (cubind_load@CUBIND_0.5). 64-bit little-endian ELF files (x86-64,
 * AArch64) only; every offset and size is checked against the file, so a truncated or hostile
 * file is refused with the reason, never read past.
 */
#ifndef CUBIND_PROBE_ELF_IMPORTS_H
#define CUBIND_PROBE_ELF_IMPORTS_H

#include <stddef.h>

/* One undefined dynamic symbol. */
struct elf_import {
    char *name;    /* "cubind_cublas_create" */
    char *version; /* the version node it asks for ("CUBIND_0.5"), NULL when unversioned */
    char *file;    /* the library that node is asked of (its DT_NEEDED name, "libcubind.so.0"), or NULL */
    int weak;      /* 1 for a weak reference: the program starts without it */
};

struct elf_imports {
    const char *machine;  /* "x86-64", "AArch64" */
    int this_machine;     /* 1 when it is this machine's (the probe's) */
    const char *type;     /* "executable", "position-independent executable", "shared library" */
    int dynamic;          /* 0 for a statically linked executable (no dynamic section) */
    char **needed;        /* DT_NEEDED, in order */
    size_t needed_count;
    char **run_path;      /* the directories of DT_RUNPATH (or DT_RPATH when there is no DT_RUNPATH), $ORIGIN
                             replaced by the file's directory */
    size_t run_path_count;
    const char *run_path_tag; /* "DT_RUNPATH", "DT_RPATH", or NULL when it has neither */
    struct elf_import *imports; /* its undefined symbols whose name starts with the prefix asked for */
    size_t import_count;
    char **embedded;      /* the text of each note of owner "cubind" (type 1) it holds, "0.4.0 cufft cublas": a
                             copy of cubind embedded in it, its version and the libraries it binds */
    size_t embedded_count;
    int defines_cubind;   /* a symbol table of it (.symtab, .dynsym) defines cubind_version or cubind__libraries:
                             it holds cubind's code (an embedding, or libcubind itself); read without a note */
    int exports_cubind;   /* its dynamic symbols define cubind_version: it exports cubind's API (libcubind) */
};

/* Read the imports of the file at `path` into *out (zeroed first), keeping the undefined symbols whose
 * name starts with `prefix` ("" for all). Returns 0, or -1 with why it cannot be read in `why`
 * (`why_size` bytes, plain words: "not an ELF file", "a 32-bit ELF file: ...", "truncated: ...").
 * *out holds nothing to free after -1. */
int elf_read_imports(const char *path, const char *prefix, struct elf_imports *out, char *why, size_t why_size);

/* Free what elf_read_imports allocated in *out. */
void elf_imports_free(struct elf_imports *out);

#endif
