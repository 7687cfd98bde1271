/*
 * loader/elf_check.c - an ELF file of this process's class and byte order, checked
 * before dlopen: dlopen maps a truncated file's segments past its end and dies of
 * SIGBUS on touching them, and says "No such file or directory" of another machine's
 * library.
 */
#define _GNU_SOURCE
#include "elf_check.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
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

/*
 * What dlopen handles badly in an ELF file of this process's class and byte order: it
 * maps a truncated file's segments past its end and dies of SIGBUS on touching them, and
 * says "No such file or directory" of another machine's library. Returns 0 when dlopen
 * may go ahead (other faults it reports well), -1 with the reason in `why`.
 */
int cubind__check_elf(const char *path, off_t size, cubind__strbuf *why)
{
    ElfW(Ehdr) eh;
    ElfW(Phdr) ph[64];
    unsigned long long end = 0;
    size_t i, count;
    int result = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return 0; /* dlopen says why */
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) || eh.e_ident[EI_DATA] != HOST_DATA)
        goto done;
#ifdef HOST_MACHINE
    if (eh.e_machine != HOST_MACHINE) {
        cubind__strbuf_printf(why, ": built for %s (ELF machine %u), not for this process's %s (%u)",
                              machine_name(eh.e_machine), (unsigned)eh.e_machine, machine_name(HOST_MACHINE),
                              (unsigned)HOST_MACHINE);
        result = -1;
        goto done;
    }
#endif
    if (eh.e_phentsize != sizeof ph[0])
        goto done;
    end = (unsigned long long)eh.e_phoff + (unsigned long long)eh.e_phnum * sizeof ph[0];
    if (end > (unsigned long long)size) {
        cubind__strbuf_printf(why, ": truncated ELF file: %lld bytes, but its program headers need %llu",
                              (long long)size, end);
        result = -1;
        goto done;
    }
    end = 0;
    for (i = 0; i < eh.e_phnum; i += count) {
        size_t j;
        ssize_t want;
        count = eh.e_phnum - i < sizeof ph / sizeof ph[0] ? eh.e_phnum - i : sizeof ph / sizeof ph[0];
        want = (ssize_t)(count * sizeof ph[0]);
        if (pread(fd, ph, (size_t)want, (off_t)(eh.e_phoff + i * sizeof ph[0])) != want)
            goto done;
        for (j = 0; j < count; ++j)
            if (ph[j].p_type == PT_LOAD &&
                (unsigned long long)ph[j].p_offset + (unsigned long long)ph[j].p_filesz > end)
                end = (unsigned long long)ph[j].p_offset + (unsigned long long)ph[j].p_filesz;
    }
    if (end > (unsigned long long)size) {
        cubind__strbuf_printf(why, ": truncated ELF file: %lld bytes, but its segments need %llu", (long long)size,
                              end);
        result = -1;
    }
done:
    close(fd);
    return result;
}

/* The file offset of virtual address `vaddr`, from the PT_LOAD headers; -1 when none maps it. */
static long long file_offset(const ElfW(Phdr) *ph, size_t count, unsigned long long vaddr)
{
    size_t i;
    for (i = 0; i < count; ++i)
        if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr && vaddr < ph[i].p_vaddr + ph[i].p_filesz)
            return (long long)(vaddr - ph[i].p_vaddr + ph[i].p_offset);
    return -1;
}

int cubind__elf_soname(const char *path, char *soname, size_t size)
{
    ElfW(Ehdr) eh;
    ElfW(Phdr) ph[64];
    ElfW(Dyn) dyn[512];
    size_t count, i, ndyn;
    unsigned long long strtab = 0, offset = 0;
    int has_soname = 0, has_strtab = 0, result = -1;
    long long at;
    ssize_t got;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
        eh.e_ident[EI_DATA] != HOST_DATA || eh.e_phentsize != sizeof ph[0] || eh.e_phnum == 0 ||
        eh.e_phnum > sizeof ph / sizeof ph[0])
        goto done;
    count = eh.e_phnum;
    if (pread(fd, ph, count * sizeof ph[0], (off_t)eh.e_phoff) != (ssize_t)(count * sizeof ph[0]))
        goto done;
    for (i = 0; i < count && ph[i].p_type != PT_DYNAMIC; ++i)
        ;
    if (i == count) {
        result = 0; /* no dynamic section: no soname */
        goto done;
    }
    ndyn = ph[i].p_filesz / sizeof dyn[0];
    if (ndyn > sizeof dyn / sizeof dyn[0])
        ndyn = sizeof dyn / sizeof dyn[0];
    got = pread(fd, dyn, ndyn * sizeof dyn[0], (off_t)ph[i].p_offset);
    if (got < 0)
        goto done;
    ndyn = (size_t)got / sizeof dyn[0];
    for (i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; ++i) {
        if (dyn[i].d_tag == DT_STRTAB) {
            strtab = (unsigned long long)dyn[i].d_un.d_ptr;
            has_strtab = 1;
        } else if (dyn[i].d_tag == DT_SONAME) {
            offset = (unsigned long long)dyn[i].d_un.d_val;
            has_soname = 1;
        }
    }
    if (!has_soname) {
        result = 0;
        goto done;
    }
    if (!has_strtab || (at = file_offset(ph, count, strtab)) < 0)
        goto done;
    got = pread(fd, soname, size - 1, (off_t)(at + (long long)offset));
    if (got <= 0)
        goto done;
    soname[got] = '\0';
    if (strlen(soname) == (size_t)got && (size_t)got == size - 1)
        goto done; /* longer than any soname cubind knows: cannot tell */
    result = 1;
done:
    close(fd);
    return result;
}
