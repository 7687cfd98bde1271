/*
 * tools/probe/elf_imports.c - the imports of an ELF file (elf_imports.h), read with the loader's ELF
 * reader (loader/platform_elf.h): its header, and its dynamic section through its program headers,
 * as the loader reads a library's; its symbols, their versions and its notes through its section
 * headers. Each part read is checked to lie in the file first, every name to end inside its string
 * table, every count bounded by the bytes that hold it. Nothing is mapped, so a file cut short while
 * it is read gives a short read (refused), never SIGBUS.
 */
#define _GNU_SOURCE
#include "elf_imports.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform_elf.h"

/* No section this reader needs is larger in any real file: a larger size is refused, not allocated. */
#define SECTION_MAX ((uint64_t)512 << 20)
/* Section headers read at most (e_shnum is 16 bits; extended numbering may say more). */
#define SECTIONS_MAX 65536u
/* Version indexes kept from the version needs (the index is 15 bits). */
#define VERSIONS_MAX 32768u
/* The sections read and kept until the end (their names are copied out then). */
#define HELD 5

/* The loader's reader of this file (loader/platform_elf.h): its bounded reads and its refusals. */
typedef cubind__elf_file reader;
#define fail cubind__elf_fail
#define read_at cubind__elf_read_at

/* A section's bytes (malloc'd, with a NUL after them), or NULL (said why). */
static unsigned char *read_section(reader *r, const Elf64_Shdr *sh, const char *what)
{
    unsigned char *bytes;
    if (sh->sh_type == SHT_NOBITS) {
        fail(r, "corrupt: its %s has no bytes in the file (SHT_NOBITS)", what);
        return NULL;
    }
    if (sh->sh_size > SECTION_MAX) {
        fail(r, "corrupt: its %s would be %llu bytes long", what, (unsigned long long)sh->sh_size);
        return NULL;
    }
    if ((bytes = malloc((size_t)sh->sh_size + 1)) == NULL) {
        fail(r, "out of memory reading its %s", what);
        return NULL;
    }
    if (read_at(r, bytes, sh->sh_offset, sh->sh_size, what) != 0) {
        free(bytes);
        return NULL;
    }
    bytes[sh->sh_size] = '\0';
    return bytes;
}

/* The NUL-terminated name at `offset` of a string table of `size` bytes, or NULL when it does not end in it. */
static const char *string_at(const unsigned char *table, uint64_t size, uint64_t offset)
{
    if (table == NULL || offset >= size || memchr(table + offset, '\0', (size_t)(size - offset)) == NULL)
        return NULL;
    return (const char *)table + offset;
}

/* The machines --check reads files of: the reader's name for them, else NULL. */
static const char *machine_name(unsigned machine)
{
    return machine == EM_X86_64 || machine == EM_AARCH64 ? cubind__elf_machine_name(machine) : NULL;
}

/* Append a copy of `text` to the array `*list` of `*count`; -1 when out of memory. */
static int push(char ***list, size_t *count, const char *text)
{
    char **grown = realloc(*list, (*count + 1) * sizeof **list);
    if (grown == NULL)
        return -1;
    *list = grown;
    if ((grown[*count] = strdup(text)) == NULL)
        return -1;
    ++*count;
    return 0;
}

/* The directories of a DT_RUNPATH / DT_RPATH value, $ORIGIN and ${ORIGIN} as the file's directory. */
static int split_run_path(struct elf_imports *out, const char *value, const char *origin)
{
    const char *p = value;
    while (*p != '\0') {
        size_t n = strcspn(p, ":");
        char *entry = malloc(n + 1), *expanded;
        size_t at = 0, need;
        const char *q;
        if (entry == NULL)
            return -1;
        memcpy(entry, p, n);
        entry[n] = '\0';
        need = n + 1;
        for (q = entry; (q = strstr(q, "ORIGIN")) != NULL; ++q)
            need += strlen(origin);
        if ((expanded = malloc(need)) == NULL) {
            free(entry);
            return -1;
        }
        for (q = entry; *q != '\0';) {
            size_t skip = strncmp(q, "$ORIGIN", 7) == 0 ? 7 : strncmp(q, "${ORIGIN}", 9) == 0 ? 9 : 0;
            if (skip) {
                memcpy(expanded + at, origin, strlen(origin));
                at += strlen(origin);
                q += skip;
            } else
                expanded[at++] = *q++;
        }
        expanded[at] = '\0';
        free(entry);
        if (at > 0 && push(&out->run_path, &out->run_path_count, expanded) != 0) {
            free(expanded);
            return -1;
        }
        free(expanded);
        p += n;
        if (*p == ':')
            ++p;
    }
    return 0;
}

/* What a version index of the version needs names: the node and the library it is asked of. */
struct need {
    const char *node, *file;
};

/* Fill needs[index] from the SHT_GNU_verneed section `bytes` (`size`), its names in `strings`. */
static int read_version_needs(reader *r, const unsigned char *bytes, uint64_t size, const unsigned char *strings,
                              uint64_t strings_size, struct need *needs)
{
    uint64_t at = 0;
    size_t entries = 0;
    for (;;) {
        Elf64_Verneed vn;
        uint64_t aux;
        if (at > size || size - at < sizeof vn)
            return fail(r, "corrupt: a version need (SHT_GNU_verneed) lies outside its section");
        memcpy(&vn, bytes + at, sizeof vn);
        aux = at + vn.vn_aux;
        for (unsigned i = 0; i < vn.vn_cnt; ++i) {
            Elf64_Vernaux va;
            if (aux < at || aux > size || size - aux < sizeof va || ++entries > VERSIONS_MAX)
                return fail(r, "corrupt: a version need's entry lies outside its section");
            memcpy(&va, bytes + aux, sizeof va);
            if ((va.vna_other & 0x7fff) < VERSIONS_MAX) {
                needs[va.vna_other & 0x7fff].node = string_at(strings, strings_size, va.vna_name);
                needs[va.vna_other & 0x7fff].file = string_at(strings, strings_size, vn.vn_file);
            }
            if (va.vna_next == 0)
                break;
            aux += va.vna_next;
        }
        if (vn.vn_next == 0)
            return 0;
        at += vn.vn_next; /* strictly forward: the walk ends */
    }
}

/* The notes of owner "cubind" and type 1 in the SHT_NOTE section `sh`: each one's text into out->embedded. */
static int read_cubind_notes(reader *r, const Elf64_Shdr *sh, struct elf_imports *out)
{
    static const char owner[] = "cubind";
    unsigned char *bytes = read_section(r, sh, "note section");
    uint64_t at = 0;
    int result = 0;
    if (bytes == NULL)
        return -1;
    while (result == 0 && sh->sh_size - at >= 12) {
        uint32_t n[3]; /* namesz, descsz, type */
        uint64_t name, desc, end;
        memcpy(n, bytes + at, sizeof n);
        name = at + 12;
        desc = name + (((uint64_t)n[0] + 3) & ~(uint64_t)3);
        end = desc + (((uint64_t)n[1] + 3) & ~(uint64_t)3);
        if (desc > sh->sh_size || end > sh->sh_size) {
            result = fail(r, "corrupt: a note lies outside its section");
            break;
        }
        if (n[0] == sizeof owner && memcmp(bytes + name, owner, sizeof owner) == 0 && n[2] == 1 && n[1] > 0 &&
            memchr(bytes + desc, '\0', n[1]) != NULL && push(&out->embedded, &out->embedded_count, (char *)bytes + desc) != 0)
            result = fail(r, "out of memory");
        at = end;
    }
    free(bytes);
    return result;
}

/* Whether the symbol table `sh` (its names in section `strings`) defines cubind_version or the
 * loader's table of libraries, cubind__libraries, which every wrapper reaches (kept by --gc-sections):
 * every copy of cubind does; a program that only shares cubind's helpers (the probe: strbuf.c) not. */
static int defines_cubind(reader *r, const Elf64_Shdr *sh, const Elf64_Shdr *strings)
{
    unsigned char *symbols, *names;
    uint64_t i, n;
    int found = 0;
    if (sh->sh_entsize != sizeof(Elf64_Sym))
        return fail(r, "corrupt: its symbols are %llu bytes each, not %zu", (unsigned long long)sh->sh_entsize,
                    sizeof(Elf64_Sym));
    if ((symbols = read_section(r, sh, "symbol table")) == NULL)
        return -1;
    if ((names = read_section(r, strings, "symbols' string table")) == NULL) {
        free(symbols);
        return -1;
    }
    n = sh->sh_size / sizeof(Elf64_Sym);
    for (i = 1; i < n && !found; ++i) {
        Elf64_Sym sym;
        const char *name;
        memcpy(&sym, symbols + i * sizeof sym, sizeof sym);
        found = sym.st_shndx != SHN_UNDEF && (name = string_at(names, strings->sh_size, sym.st_name)) != NULL &&
                (strcmp(name, "cubind_version") == 0 || strcmp(name, "cubind__libraries") == 0);
    }
    free(symbols);
    free(names);
    return found;
}

/* What tells that FILE holds cubind's code: its cubind notes; without one, its symbol tables. */
static int read_embedding(reader *r, const Elf64_Shdr *sections, uint64_t count, struct elf_imports *out)
{
    uint64_t i;
    int found;
    for (i = 0; i < count; ++i)
        if (sections[i].sh_type == SHT_NOTE && read_cubind_notes(r, &sections[i], out) != 0)
            return -1;
    for (i = 0; i < count && out->embedded_count == 0; ++i) {
        if (sections[i].sh_type != SHT_SYMTAB && sections[i].sh_type != SHT_DYNSYM)
            continue;
        if (sections[i].sh_link >= count)
            return fail(r, "corrupt: a section header links to a section it does not have");
        if ((found = defines_cubind(r, &sections[i], &sections[sections[i].sh_link])) < 0)
            return -1;
        out->defines_cubind |= found;
        out->exports_cubind |= found && sections[i].sh_type == SHT_DYNSYM;
    }
    return 0;
}

/* The dynamic section, through the program headers as the loader reads it: DT_NEEDED, the run path,
 * whether a shared object is a PIE. */
static int read_dynamic(reader *r, const char *path, struct elf_imports *out)
{
    char *runpath = NULL, *rpath = NULL, *origin_copy;
    size_t i;
    int result = -1;
    for (i = 0; i < r->dynamic.needed_count; ++i) {
        char *name = cubind__elf_file_string_dup(r, cubind__elf_needed_at(&r->dynamic, i));
        int pushed = name != NULL ? push(&out->needed, &out->needed_count, name) : 0;
        free(name);
        if (name == NULL)
            return fail(r, "corrupt: a name of its dynamic section lies outside its string table");
        if (pushed != 0)
            return fail(r, "out of memory");
    }
    if ((r->dynamic.has_runpath && (runpath = cubind__elf_file_string_dup(r, r->dynamic.runpath)) == NULL) ||
        (r->dynamic.has_rpath && (rpath = cubind__elf_file_string_dup(r, r->dynamic.rpath)) == NULL)) {
        free(runpath);
        return fail(r, "corrupt: a name of its dynamic section lies outside its string table");
    }
    if ((r->dynamic.flags_1 & DF_1_PIE) && r->header.e_type == ET_DYN)
        out->type = "position-independent executable";
    /* $ORIGIN: the file's directory, symbolic links resolved as the dynamic loader does for a program */
    if ((origin_copy = realpath(path, NULL)) == NULL && (origin_copy = strdup(path)) == NULL) {
        fail(r, "out of memory");
        goto done;
    }
    out->run_path_tag = runpath != NULL ? "DT_RUNPATH" : rpath != NULL ? "DT_RPATH" : NULL;
    if (out->run_path_tag != NULL && split_run_path(out, runpath != NULL ? runpath : rpath, dirname(origin_copy)) != 0)
        fail(r, "out of memory");
    else
        result = 0;
    free(origin_copy);
done:
    free(runpath);
    free(rpath);
    return result;
}

/* The body of elf_read_imports, on the open file; the sections read are freed by the caller. */
static int read_imports(reader *r, const char *path, const char *prefix, struct elf_imports *out,
                        unsigned char *held[HELD])
{
    const ElfW(Ehdr) *eh = &r->header;
    const unsigned char *ident = r->ident;
    Elf64_Shdr *sections = NULL;
    const Elf64_Shdr *dynsym = NULL, *versym = NULL, *verneed = NULL;
    uint64_t count, i;
    struct need *needs = NULL;
    int result = -1, header;
    const uint16_t probe = 1;

    header = cubind__elf_file_header(r);
    if (header == -2 || r->ident_read < EI_NIDENT || memcmp(ident, ELFMAG, SELFMAG) != 0)
        return fail(r, "not an ELF file");
    if (ident[EI_CLASS] != ELFCLASS64)
        return fail(r, "a %s ELF file: cubind-probe --check reads 64-bit little-endian ELF files (x86-64, AArch64) only",
                    ident[EI_CLASS] == ELFCLASS32 ? "32-bit" : "corrupt (unknown class)");
    if (ident[EI_DATA] != ELFDATA2LSB)
        return fail(r, "a %s ELF file: cubind-probe --check reads 64-bit little-endian ELF files (x86-64, AArch64) only",
                    ident[EI_DATA] == ELFDATA2MSB ? "big-endian" : "corrupt (unknown byte order)");
    if (*(const unsigned char *)&probe != 1 || header == 1)
        return fail(r, "cubind-probe --check reads little-endian ELF files on a 64-bit little-endian machine only");
    if (header != 0)
        return -1; /* its header cut short: the reader said so */
    if ((out->machine = machine_name(eh->e_machine)) == NULL)
        return fail(r, "built for ELF machine %u: cubind-probe --check reads x86-64 and AArch64 files only",
                    (unsigned)eh->e_machine);
    out->this_machine = eh->e_machine == cubind__elf_host_machine();
    if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
        return fail(r, "not a program or a shared library (ELF type %u%s)", (unsigned)eh->e_type,
                    eh->e_type == ET_REL ? ": an object file, not linked" : eh->e_type == ET_CORE ? ": a core dump" : "");
    out->type = eh->e_type == ET_EXEC ? "executable" : "shared library";
    if (eh->e_shoff == 0)
        return fail(r, "it has no section headers (stripped of them): its symbols cannot be told");
    if (eh->e_shentsize != sizeof(Elf64_Shdr))
        return fail(r, "corrupt: its section headers are %u bytes each, not %zu", (unsigned)eh->e_shentsize,
                    sizeof(Elf64_Shdr));
    count = eh->e_shnum;
    if (count == 0) { /* extended numbering: the count is in the first header */
        Elf64_Shdr first;
        if (read_at(r, &first, eh->e_shoff, sizeof first, "first section header") != 0)
            return -1;
        count = first.sh_size;
    }
    if (count == 0 || count > SECTIONS_MAX)
        return fail(r, "corrupt: it says it has %llu sections", (unsigned long long)count);
    if ((sections = malloc((size_t)count * sizeof *sections)) == NULL)
        return fail(r, "out of memory");
    if (read_at(r, sections, eh->e_shoff, count * sizeof *sections, "section headers") != 0)
        goto done;
    for (i = 0; i < count; ++i) {
        const Elf64_Shdr *sh = &sections[i];
        if (sh->sh_type == SHT_DYNSYM && dynsym == NULL)
            dynsym = sh;
        else if (sh->sh_type == SHT_GNU_versym && versym == NULL)
            versym = sh;
        else if (sh->sh_type == SHT_GNU_verneed && verneed == NULL)
            verneed = sh;
    }
    if (read_embedding(r, sections, count, out) != 0)
        goto done;
    if (cubind__elf_file_program(r) != 0 || cubind__elf_file_dynamic(r) != 0)
        goto done;
    if (!r->has_dynamic) {
        out->dynamic = 0; /* statically linked: it imports nothing */
        result = 0;
        goto done;
    }
    out->dynamic = 1;
    if ((dynsym != NULL && dynsym->sh_link >= count) || (verneed != NULL && verneed->sh_link >= count))
        goto corrupt_link;
    if (read_dynamic(r, path, out) != 0)
        goto done;

    /* the undefined dynamic symbols, with the version each asks for */
    if (dynsym != NULL) {
        const Elf64_Shdr *strings_sh = &sections[dynsym->sh_link];
        uint64_t n;
        if (dynsym->sh_entsize != sizeof(Elf64_Sym)) {
            fail(r, "corrupt: its dynamic symbols are %llu bytes each, not %zu",
                 (unsigned long long)dynsym->sh_entsize, sizeof(Elf64_Sym));
            goto done;
        }
        if ((held[0] = read_section(r, dynsym, "dynamic symbol table")) == NULL ||
            (held[1] = read_section(r, strings_sh, "dynamic symbols' string table")) == NULL)
            goto done;
        n = dynsym->sh_size / sizeof(Elf64_Sym);
        if (versym != NULL && verneed != NULL) {
            const Elf64_Shdr *need_strings = &sections[verneed->sh_link];
            if (versym->sh_size < n * 2) {
                fail(r, "corrupt: its symbol versions (SHT_GNU_versym) are fewer than its symbols");
                goto done;
            }
            if ((needs = calloc(VERSIONS_MAX, sizeof *needs)) == NULL)
                goto oom;
            if ((held[2] = read_section(r, versym, "symbol versions")) == NULL)
                goto done;
            if ((held[3] = read_section(r, verneed, "version needs")) == NULL)
                goto done;
            if (need_strings != strings_sh && (held[4] = read_section(r, need_strings, "version names")) == NULL)
                goto done;
            if (read_version_needs(r, held[3], verneed->sh_size, held[4] != NULL ? held[4] : held[1],
                                   need_strings->sh_size, needs) != 0)
                goto done;
        }
        for (i = 1; i < n; ++i) {
            Elf64_Sym sym;
            const char *name;
            struct elf_import *grown, *import;
            memcpy(&sym, held[0] + i * sizeof sym, sizeof sym);
            if (sym.st_shndx != SHN_UNDEF || sym.st_name == 0)
                continue;
            if ((name = string_at(held[1], strings_sh->sh_size, sym.st_name)) == NULL) {
                fail(r, "corrupt: a symbol's name lies outside its string table");
                goto done;
            }
            if (strncmp(name, prefix, strlen(prefix)) != 0)
                continue;
            if ((grown = realloc(out->imports, (out->import_count + 1) * sizeof *grown)) == NULL)
                goto oom;
            out->imports = grown;
            import = &grown[out->import_count++];
            memset(import, 0, sizeof *import);
            import->weak = ELF64_ST_BIND(sym.st_info) == STB_WEAK;
            if ((import->name = strdup(name)) == NULL)
                goto oom;
            if (needs != NULL) {
                uint16_t index;
                memcpy(&index, held[2] + i * 2, 2);
                index &= 0x7fff;
                if (index >= 2 && index < VERSIONS_MAX && needs[index].node != NULL) {
                    if ((import->version = strdup(needs[index].node)) == NULL ||
                        (needs[index].file != NULL && (import->file = strdup(needs[index].file)) == NULL))
                        goto oom;
                }
            }
        }
    }
    result = 0;
    goto done;
corrupt_link:
    fail(r, "corrupt: a section header links to a section it does not have");
    goto done;
oom:
    fail(r, "out of memory");
done:
    free(needs);
    free(sections);
    return result;
}

int elf_read_imports(const char *path, const char *prefix, struct elf_imports *out, char *why, size_t why_size)
{
    reader r;
    unsigned char *held[HELD] = {NULL};
    struct stat st;
    int result;
    size_t i;
    memset(&r, 0, sizeof r);
    r.why = why;
    r.why_size = why_size;
    memset(out, 0, sizeof *out);
    if (why_size > 0)
        why[0] = '\0';
    r.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (r.fd < 0)
        return fail(&r, "cannot open it: %s", strerror(errno));
    if (fstat(r.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(r.fd);
        return fail(&r, "not a regular file");
    }
    r.size = (uint64_t)st.st_size;
    result = read_imports(&r, path, prefix, out, held);
    cubind__elf_file_free(&r);
    close(r.fd);
    for (i = 0; i < HELD; ++i)
        free(held[i]);
    if (result != 0)
        elf_imports_free(out);
    return result;
}

void elf_imports_free(struct elf_imports *out)
{
    size_t i;
    for (i = 0; i < out->needed_count; ++i)
        free(out->needed[i]);
    for (i = 0; i < out->run_path_count; ++i)
        free(out->run_path[i]);
    for (i = 0; i < out->import_count; ++i) {
        free(out->imports[i].name);
        free(out->imports[i].version);
        free(out->imports[i].file);
    }
    for (i = 0; i < out->embedded_count; ++i)
        free(out->embedded[i]);
    free(out->embedded);
    free(out->needed);
    free(out->run_path);
    free(out->imports);
    memset(out, 0, sizeof *out);
}
