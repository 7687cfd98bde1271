/*
 * loader/elf_check.c - an ELF file of this process's class and byte order, checked
 * before dlopen: dlopen maps a truncated file's segments past its end and dies of
 * SIGBUS on touching them, and says "No such file or directory" of another machine's
 * library. Layer 2: calls strbuf (1).
 */
#define _GNU_SOURCE
#include "elf_check.h"

#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#elif defined(__i386__)
#define HOST_MACHINE EM_386
#elif defined(__arm__)
#define HOST_MACHINE EM_ARM
#elif defined(__powerpc64__)
#define HOST_MACHINE EM_PPC64
#elif defined(__riscv)
#define HOST_MACHINE EM_RISCV
#elif defined(__s390x__)
#define HOST_MACHINE EM_S390
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_DATA ELFDATA2MSB
#else
#define HOST_DATA ELFDATA2LSB
#endif

static const char *machine_name(unsigned machine)
{
    switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "AArch64";
    case EM_386: return "i386";
    case EM_ARM: return "ARM";
    case EM_PPC64: return "PowerPC64";
    case EM_RISCV: return "RISC-V";
    case EM_S390: return "S/390";
    default: return "an unknown machine";
    }
}

/* The file offset of virtual address `vaddr`, from the PT_LOAD headers (`count` of them at `phdrs`,
 * not necessarily aligned); -1 when none maps it. */
static long long file_offset(const unsigned char *phdrs, size_t count, unsigned long long vaddr)
{
    ElfW(Phdr) ph;
    size_t i;
    for (i = 0; i < count; ++i) {
        memcpy(&ph, phdrs + i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz)
            return (long long)(vaddr - ph.p_vaddr + ph.p_offset);
    }
    return -1;
}

/*
 * What dlopen handles badly in an ELF file of this process's class and byte order: it
 * maps a truncated file's segments past its end and dies of SIGBUS on touching them, and
 * says "No such file or directory" of another machine's library. Read from the open file
 * `fd` with as few reads as it takes (the header and program headers in one, the dynamic
 * section and the soname in one each).
 */
int cubind__inspect_elf(int fd, off_t size, char *soname, size_t soname_size, int *has_soname, cubind__strbuf *why)
{
    union {
        ElfW(Ehdr) eh;
        unsigned char bytes[4096]; /* the header and, in every usual file, the program headers */
    } head;
    ElfW(Dyn) dyn[512];
    const unsigned char *phdrs;
    unsigned char *heap = NULL;
    unsigned long long end, strtab = 0, offset = 0;
    size_t i, count, ndyn;
    int has_strtab = 0, found_soname = 0, result = 0;
    long long at;
    ssize_t got;
    ElfW(Phdr) ph, dynamic;

    *has_soname = -1;
    if (soname_size < 2)
        soname_size = 1; /* room for nothing: the name cannot be told */
    got = pread(fd, head.bytes, sizeof head.bytes, 0);
    if (got < (ssize_t)sizeof head.eh || memcmp(head.eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        head.eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
        head.eh.e_ident[EI_DATA] != HOST_DATA)
        return 0; /* not an ELF file of this process's kind: dlopen says why */
#ifdef HOST_MACHINE
    if (head.eh.e_machine != HOST_MACHINE) {
        cubind__strbuf_printf(why, ": built for %s (ELF machine %u), not for this process's %s (%u)",
                              machine_name(head.eh.e_machine), (unsigned)head.eh.e_machine,
                              machine_name(HOST_MACHINE), (unsigned)HOST_MACHINE);
        return -1;
    }
#endif
    if (head.eh.e_phentsize != sizeof ph)
        return 0;
    count = head.eh.e_phnum;
    end = (unsigned long long)head.eh.e_phoff + (unsigned long long)count * sizeof ph;
    if (end > (unsigned long long)size) {
        cubind__strbuf_printf(why, ": truncated ELF file: %lld bytes, but its program headers need %llu",
                              (long long)size, end);
        return -1;
    }
    if (end <= (unsigned long long)got) {
        phdrs = head.bytes + head.eh.e_phoff;
    } else {
        if ((heap = malloc(count * sizeof ph)) == NULL ||
            pread(fd, heap, count * sizeof ph, (off_t)head.eh.e_phoff) != (ssize_t)(count * sizeof ph)) {
            free(heap);
            return 0;
        }
        phdrs = heap;
    }
    end = 0;
    memset(&dynamic, 0, sizeof dynamic);
    for (i = 0; i < count; ++i) {
        memcpy(&ph, phdrs + i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_LOAD && (unsigned long long)ph.p_offset + (unsigned long long)ph.p_filesz > end)
            end = (unsigned long long)ph.p_offset + (unsigned long long)ph.p_filesz;
        else if (ph.p_type == PT_DYNAMIC && dynamic.p_type != PT_DYNAMIC)
            dynamic = ph;
    }
    if (end > (unsigned long long)size) {
        cubind__strbuf_printf(why, ": truncated ELF file: %lld bytes, but its segments need %llu", (long long)size,
                              end);
        result = -1;
        goto done;
    }
    /* the soname; -1 (cannot tell) unless read to the end */
    if (count == 0)
        goto done;
    if (dynamic.p_type != PT_DYNAMIC) {
        *has_soname = 0; /* no dynamic section: no soname */
        goto done;
    }
    ndyn = dynamic.p_filesz / sizeof dyn[0];
    if (ndyn > sizeof dyn / sizeof dyn[0])
        ndyn = sizeof dyn / sizeof dyn[0];
    got = pread(fd, dyn, ndyn * sizeof dyn[0], (off_t)dynamic.p_offset);
    if (got < 0)
        goto done;
    ndyn = (size_t)got / sizeof dyn[0];
    for (i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; ++i) {
        if (dyn[i].d_tag == DT_STRTAB) {
            strtab = (unsigned long long)dyn[i].d_un.d_ptr;
            has_strtab = 1;
        } else if (dyn[i].d_tag == DT_SONAME) {
            offset = (unsigned long long)dyn[i].d_un.d_val;
            found_soname = 1;
        }
    }
    if (!found_soname) {
        *has_soname = 0;
        goto done;
    }
    if (!has_strtab || (at = file_offset(phdrs, count, strtab)) < 0)
        goto done;
    got = pread(fd, soname, soname_size - 1, (off_t)(at + (long long)offset));
    if (got <= 0)
        goto done;
    soname[got] = '\0';
    if (strlen(soname) == (size_t)got && (size_t)got == soname_size - 1)
        goto done; /* longer than any soname cubind knows: cannot tell */
    *has_soname = 1;
done:
    free(heap);
    return result;
}

int cubind__elf_shared_object(int fd, off_t size, cubind__strbuf *why)
{
    static const char *const types[] = {"no file type", "a relocatable object", "an executable", "a shared object",
                                        "a core dump"};
    ElfW(Ehdr) eh;
    unsigned char head[4];
    ssize_t got = pread(fd, &eh, sizeof eh, 0);
    if (got < (ssize_t)sizeof head || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        if (got >= 2 && eh.e_ident[0] == '#' && eh.e_ident[1] == '!')
            cubind__strbuf_printf(why, "not an ELF file: a script (it starts with #!)");
        else if (got >= 0)
            cubind__strbuf_printf(why, "not an ELF file: %lld bytes, %s", (long long)size,
                                  got < (ssize_t)sizeof head ? "too short for an ELF header" : "no ELF magic number");
        else
            cubind__strbuf_printf(why, "cannot be read");
        return -1;
    }
    if (got < (ssize_t)sizeof eh) {
        cubind__strbuf_printf(why, "truncated ELF file: %lld bytes, shorter than its header", (long long)size);
        return -1;
    }
    if (eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)) {
        cubind__strbuf_printf(why, "an ELF file of another class (%s), not this process's %d-bit",
                              eh.e_ident[EI_CLASS] == ELFCLASS32 ? "32-bit" :
                              eh.e_ident[EI_CLASS] == ELFCLASS64 ? "64-bit" : "unknown",
                              (int)sizeof(void *) * 8);
        return -1;
    }
    if (eh.e_ident[EI_DATA] != HOST_DATA) {
        cubind__strbuf_printf(why, "an ELF file of the other byte order (%s)",
                              eh.e_ident[EI_DATA] == ELFDATA2MSB ? "big-endian" :
                              eh.e_ident[EI_DATA] == ELFDATA2LSB ? "little-endian" : "unknown");
        return -1;
    }
#ifdef HOST_MACHINE
    if (eh.e_machine != HOST_MACHINE) {
        cubind__strbuf_printf(why, "built for %s (ELF machine %u), not for this process's %s (%u)",
                              machine_name(eh.e_machine), (unsigned)eh.e_machine, machine_name(HOST_MACHINE),
                              (unsigned)HOST_MACHINE);
        return -1;
    }
#endif
    if (eh.e_type != ET_DYN) {
        cubind__strbuf_printf(why, "not a shared object: an ELF file of type %s (%u)",
                              eh.e_type < sizeof types / sizeof types[0] ? types[eh.e_type] : "unknown",
                              (unsigned)eh.e_type);
        return -1;
    }
    return 0;
}

int cubind__elf_needed(int fd, off_t size, cubind__strbuf *out)
{
    ElfW(Ehdr) eh;
    ElfW(Phdr) ph, dynamic;
    ElfW(Dyn) dyn[512];
    unsigned char *phdrs;
    unsigned long long strtab = 0;
    size_t i, ndyn;
    int has_strtab = 0, count = 0;
    long long at;
    ssize_t got;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
        eh.e_ident[EI_DATA] != HOST_DATA || eh.e_phentsize != sizeof ph || eh.e_phnum == 0 ||
        (unsigned long long)eh.e_phoff + (unsigned long long)eh.e_phnum * sizeof ph > (unsigned long long)size)
        return -1;
    if ((phdrs = malloc((size_t)eh.e_phnum * sizeof ph)) == NULL ||
        pread(fd, phdrs, (size_t)eh.e_phnum * sizeof ph, (off_t)eh.e_phoff) != (ssize_t)(eh.e_phnum * sizeof ph)) {
        free(phdrs);
        return -1;
    }
    memset(&dynamic, 0, sizeof dynamic);
    for (i = 0; i < eh.e_phnum && dynamic.p_type != PT_DYNAMIC; ++i) {
        memcpy(&ph, phdrs + i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_DYNAMIC)
            dynamic = ph;
    }
    ndyn = dynamic.p_filesz / sizeof dyn[0];
    if (ndyn > sizeof dyn / sizeof dyn[0])
        ndyn = sizeof dyn / sizeof dyn[0];
    got = dynamic.p_type == PT_DYNAMIC ? pread(fd, dyn, ndyn * sizeof dyn[0], (off_t)dynamic.p_offset) : 0;
    ndyn = got > 0 ? (size_t)got / sizeof dyn[0] : 0;
    for (i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; ++i)
        if (dyn[i].d_tag == DT_STRTAB) {
            strtab = (unsigned long long)dyn[i].d_un.d_ptr;
            has_strtab = 1;
        }
    at = has_strtab ? file_offset(phdrs, eh.e_phnum, strtab) : -1;
    free(phdrs);
    if (at < 0)
        return dynamic.p_type != PT_DYNAMIC ? 0 : -1; /* no dynamic section: nothing needed */
    for (i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; ++i) {
        char name[256];
        if (dyn[i].d_tag != DT_NEEDED)
            continue;
        got = pread(fd, name, sizeof name - 1, (off_t)(at + (long long)dyn[i].d_un.d_val));
        if (got <= 0)
            continue;
        name[got] = '\0';
        if (strlen(name) == (size_t)got && (size_t)got == sizeof name - 1)
            continue; /* longer than any name of a part */
        cubind__strbuf_printf(out, "%s\n", name);
        ++count;
    }
    return count;
}
