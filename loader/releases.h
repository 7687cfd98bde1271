/*
 * loader/releases.h - which CUDA release's ABI a loaded library is called with, and what each
 * function's call becomes in that release: its own symbol, another entry point with the same
 * ABI, a generated adapter that converts a record's layout, or no call at all.
 *
 * The data is generated from the IR of every release the generator read (generated/src/
 * <library>.c, `cubind__release_table_of`): per library its releases, newest first (release 0
 * is the ABI the bindings were generated for), and per release a sorted list of the functions
 * whose call differs there (for the newest, only the functions it removed: ABSENT). A function
 * absent from that list is called as in the newest release. Offsets, not pointers, as in the symbol table: nothing here is relocated at
 * start-up.
 * Layer 3: calls opened (2), strbuf (1), the platform seam (0) and the generated tables.
 */
#ifndef CUBIND_RELEASES_H
#define CUBIND_RELEASES_H

#include <stddef.h>

#include "internal.h"
#include "opened.h"
#include "strbuf.h"

#define CUBIND__RELEASE_NAME_SIZE 8

/* One release of a library, as the generator read it. */
typedef struct cubind__release {
    char name[CUBIND__RELEASE_NAME_SIZE]; /* the CUDA release, "12.4" */
    int library_version[3];               /* what the library's version query answers in it */
    int cuda_from[3];                     /* the first library version of its CUDA major (libraries.toml
                                             `cuda`: cuSOLVER 11.4.2 for 12.x); -1s: its major says */
} cubind__release;

/* enum cubind__release_action (SYMBOL: another entry point with the newest ABI, `symbol`;
 * ADAPTER: the adapter `adapter`, which calls `symbol` with the release's layouts; REFUSED, ABSENT:
 * never called; SEMANTIC: reserved) and CUBIND__CUDA_NUMBER, from generator/release_rules.py. */
#include "release_rules.h"

typedef struct cubind__release_entry {
    unsigned function;       /* index in the library's symbol table */
    unsigned char action;    /* enum cubind__release_action */
    unsigned short adapter;  /* CUBIND__RELEASE_ADAPTER: which adapter */
    unsigned symbol;         /* SYMBOL, ADAPTER: the release's entry point, an offset in the strings */
    unsigned reason;         /* why, an offset in the strings ("" for SYMBOL) */
} cubind__release_entry;

/* Per function: the oldest release read that declares it, and a bit per release (1 << r) where
 * its ABI differs from the next older release read. */
typedef struct cubind__release_history {
    unsigned char added_in;
    unsigned char changed_in;
} cubind__release_history;

/* The header of a library's release table; what it addresses follows it in the same object. */
typedef struct cubind__release_table {
    size_t release_count; /* releases[0] is the newest: the bindings' own ABI */
    size_t releases_at;   /* cubind__release[release_count] */
    size_t firsts_at;     /* unsigned[release_count + 1]: release r's entries are [firsts[r], firsts[r + 1]) */
    size_t entries_at;    /* cubind__release_entry[], each release's sorted by function */
    size_t history_at;    /* cubind__release_history[], one per function of the symbol table */
    size_t strings_at;    /* the symbols and reasons, each NUL-terminated */
} cubind__release_table;

/* generated/src/<library>.c, through generated/src/libraries.c */
const cubind__release_table *cubind__release_table_of(cubind_library library);
/* Adapter `index` of `library`, and the slot it reads the release's own entry point from. */
cubind__fnptr cubind__adapter(cubind_library library, unsigned index, cubind__slot **target);

const cubind__release *cubind__release_at(const cubind__release_table *table, size_t release);

/* A field both layouts of a record have: its offset in the newest layout, in the older one, its size. */
typedef struct cubind__field_pair {
    unsigned short new_offset, old_offset, size;
} cubind__field_pair;

/* A part of a record's newest layout that an older layout cannot carry (generator/record_conversion.py,
 * not_carried): a field the older one lacks, the bytes of an array or of a union beyond its size there,
 * wherever it is in the record (in a record it holds, in a union member). An adapter whose library reads
 * the record refuses a call that sets it to other than zero, naming it: nothing is dropped silently. A
 * part of a union member counts only while the member is in use: while the record's selector field
 * (`when_size` bytes at `when_offset`, an enum) holds `when_value`; `when_size` 0: always. */
typedef struct cubind__not_carried {
    unsigned short offset, size;          /* in the newest layout */
    unsigned short when_offset, when_size;
    long long when_value;
    unsigned short name;                  /* its path in the record ("alloc.poolProps.usage"): a string */
    unsigned short when_field, when_name; /* the selector's path ("type") and enumerator: strings, or 0 */
} cubind__not_carried;

/* A record's conversion table between the newest layout and an older release's, generated once per
 * library and pair of layouts (generator/release_calls.py) and shared by every adapter converting
 * that record there, in both directions, and by every semantic adapter passing it there as it is.
 * What it addresses follows it in the same object, at offsets from its start, not pointers, so
 * nothing is relocated at start-up: its field pairs (`fields_at`), its parts not carried
 * (`not_carried_at`) and their strings (`strings_at`, which begin with the record's name in the
 * older release). */
typedef struct cubind__record_conversion {
    unsigned short new_size, old_size; /* the record's bytes in the newest layout, in the older one */
    unsigned short count;              /* cubind__field_pair[count] */
    unsigned short fields_at;
    unsigned short not_carried_count;  /* cubind__not_carried[not_carried_count] */
    unsigned short not_carried_at;
    unsigned short strings_at;
} cubind__record_conversion;

/* The first part of `record` (the newest layout) that `table`'s older layout cannot carry and that is
 * set (not all zero, and its union member in use), else NULL (also when `record` is NULL). */
const cubind__not_carried *cubind__record_not_carried(const void *record, const cubind__record_conversion *table);

/* String `offset` of `table`'s strings (0: the record's name in the older release). */
const char *cubind__record_string(const cubind__record_conversion *table, unsigned offset);

/* A buffer for a record in an older layout: `size` bytes (the larger of the two layouts), aligned
 * for any record. */
#define CUBIND__OLD_RECORD(name, size)                                                                     \
    union {                                                                                                \
        unsigned char bytes[size];                                                                         \
        long double align_ld;                                                                              \
        void *align_p;                                                                                     \
        long long align_ll;                                                                                \
    } name

/* The record at `record` (the newest layout) in the older one, in `buffer` (at least the larger of
 * the two sizes): zeroed, then every field both layouts have. Returns `buffer`; NULL, touching
 * nothing, when `record` is NULL (the call then passes NULL, as the caller did). */
void *cubind__record_to_old(void *buffer, const void *record, const cubind__record_conversion *table);

/* Back, after the call wrote `buffer` (the older layout): `record` (the newest) zeroed, then every
 * field both layouts have, so that a field the older release lacks is 0. Nothing when `record` is
 * NULL. */
void cubind__record_to_new(void *record, const void *buffer, const cubind__record_conversion *table);

/* The release whose ABI `library`, answering `version` to its version query, is called with:
 * an index into its release table (0 when the bindings know only one). -1 when none fits, when
 * the program required a newer one (cubind_require_release), or when its major version is newer
 * than every release's (NVIDIA changes ABIs at a major: docs/releases.md) and
 * CUBIND_ALLOW_NEWER_MAJOR is not 1, with the reason appended to `why`. A library whose soname's
 * number is not its version (libcuda.so.1, libnvidia-ml.so.1) serves newer releases too. */
int cubind__release_of(cubind_library library, const int version[3], cubind__strbuf *why);

/* 1 when `library`'s version `version` contradicts its soname `soname` (libcudart.so.12 answering
 * 99.99): its major is not the soname's number, for a library whose soname's number is its major.
 * `by_soname` is then what the soname says, {12, -1, -1}: the version the release is chosen by, the
 * soname being what the dynamic linker and NVIDIA's ABI promise go by. Else 0. */
int cubind__contradicts_soname(cubind_library library, const char *soname, const int version[3], int by_soname[3]);

/* cubind__release_of for a file of soname `soname` answering `version`: by the soname's major where
 * the version contradicts it (cubind__contradicts_soname), else by the version. What the loader
 * calls a library as, and what the copies listing says a copy would be called as. */
int cubind__release_of_file(cubind_library library, const char *soname, const int version[3], cubind__strbuf *why);

/* 1 when CUBIND_ALLOW_NEWER_MAJOR=1 lets a library newer than every release be called as the newest. */
int cubind__newer_major_allowed(void);

/* cubind_require_release's record: `library` is accepted from CUDA major.minor on. */
cubind_error_kind cubind__require_release(cubind_library library, int major, int minor);

/* What a call of function `index` of `library`, loaded as `handle` at release `release`, is:
 * one of the public cubind_function_state values, with the function to call (NULL unless
 * callable or adapted), the entry point looked up and, when it is not callable, why. */
typedef struct cubind__resolution {
    cubind__fnptr fn;
    int state;             /* CUBIND_FUNCTION_CALLABLE, _ADAPTED, _MISSING, _REFUSED */
    const char *symbol;    /* the entry point asked of the library */
    const char *reason;    /* REFUSED, ADAPTED: the generated reason; else NULL */
} cubind__resolution;

void cubind__release_resolve(cubind_library library, int release, const cubind__symbol_table *table, size_t index,
                             const cubind__opened *lib, cubind__resolution *out);

/* "13.0", "12.4", ...: the name of release `release` of `library` (NULL when out of range). */
const char *cubind__release_name(cubind_library library, int release);

#endif /* CUBIND_RELEASES_H */
