/*
 * tools/probe/check_embedded.c - `cubind-probe --check FILE` for a program or library that embeds
 * cubind (libcubind.a, the amalgamation, the CMake subdirectory): it calls its own copy directly, so
 * it has no cubind_* import to read. Its ELF note (owner "cubind", written by generated/src/
 * libraries.c in an embedding) says which version and which libraries it binds; each is described
 * as this probe's cubind finds it. Which of their functions FILE calls cannot be told from the
 * file: the verdict is "runs" only when every function of every library it binds can be called
 * here. A file that holds cubind's code without such a note (an older embedding) cannot be told
 * about at all, and the verdict says so rather than "runs".
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cubind/cubind.h"
#include "output.h"

/* What one note says: its version and, after it, the libraries ("0.5.0 cufft cublas"). */
struct note {
    char version[32];
    const char *libraries; /* space-separated, inside the note's text */
};

static void read_note(const char *text, struct note *n)
{
    size_t length = strcspn(text, " ");
    snprintf(n->version, sizeof n->version, "%.*s", (int)length, text);
    n->libraries = text + length + (text[length] == ' ');
}

/* The verdict's reasons for the libraries a note binds: those not found here, and those whose
 * functions are not all callable; the libraries found, in *found, and listed, in *all. */
static void judge(const struct note *n, struct verdict *v, size_t *found, size_t *all)
{
    char absent[512] = "", partial[512] = "", unknown[512] = "", one[64];
    const char *p = n->libraries;
    *found = *all = 0;
    while (*p != '\0') {
        size_t length = strcspn(p, " ");
        struct cubind_library_info info = {.size = sizeof info};
        cubind_library library;
        snprintf(one, sizeof one, "%.*s", (int)length, p);
        p += length + (p[length] == ' ');
        if (one[0] == '\0')
            continue;
        ++*all;
        library = cubind_library_from_name(one);
        if (library == CUBIND_LIB_NONE) {
            snprintf(unknown + strlen(unknown), sizeof unknown - strlen(unknown), "%s%s", unknown[0] ? ", " : "", one);
            continue;
        }
        if (cubind_library_info(library, &info) != CUBIND_OK || !info.found) {
            snprintf(absent + strlen(absent), sizeof absent - strlen(absent), "%s%s", absent[0] ? ", " : "", one);
            continue;
        }
        ++*found;
        if (info.functions_missing > 0)
            snprintf(partial + strlen(partial), sizeof partial - strlen(partial), "%s%s %zu of %zu",
                     partial[0] ? ", " : "", one, info.functions_missing, info.functions);
    }
    if (absent[0])
        check_reason(v, PROBE_EXIT_CHECK_PARTLY, "it embeds cubind %s, which binds libraries not found here: %s (its "
                     "calls of them return their missing-library status)", n->version, absent);
    if (partial[0])
        check_reason(v, PROBE_EXIT_CHECK_PARTLY, "it embeds cubind %s, which binds functions that cannot be called "
                     "here (%s); which of them it calls cannot be told from the file", n->version, partial);
    if (unknown[0])
        check_reason(v, PROBE_EXIT_CHECK_PARTLY, "it embeds cubind %s, which binds libraries this cubind does not "
                     "know (%s): whether their calls can be served here cannot be told", n->version, unknown);
}

int check_embedded_part(struct probe *probe, const struct elf_imports *im, struct verdict *v)
{
    int cannot_tell = im->embedded_count == 0 && im->defines_cubind && !im->exports_cubind;
    size_t i;
    if (probe->json)
        fprintf(probe_out, ",\"embedded\":[");
    for (i = 0; i < im->embedded_count && !im->exports_cubind; ++i) { /* libcubind itself: not an embedding */
        struct note n;
        size_t found, all;
        read_note(im->embedded[i], &n);
        judge(&n, v, &found, &all);
        if (probe->json) {
            fprintf(probe_out, "%s{\"version_text\":", i ? "," : "");
            json_string(n.version);
            json_member("libraries", n.libraries);
            fprintf(probe_out, ",\"found\":%zu}", found);
            continue;
        }
        fprintf(probe_out, "\ncubind embedded in it: ");
        text_string(n.version);
        fprintf(probe_out, ", binding %zu librar%s (%zu found here): ", all, all == 1 ? "y" : "ies", found);
        text_string(n.libraries);
        probe_char('\n');
    }
    if (probe->json)
        fprintf(probe_out, "],\"embedded_cannot_tell\":%s", cannot_tell ? "true" : "false");
    else if (cannot_tell)
        fprintf(probe_out, "\ncubind embedded in it: its symbols say so, but no note of what it binds\n");
    if (cannot_tell)
        check_reason(v, PROBE_EXIT_CHECK_PARTLY, "it holds cubind's code (its symbols say so) but no note of the "
                     "libraries it binds (an embedding of a cubind that wrote none): whether its CUDA calls can be "
                     "served here cannot be told");
    return (im->embedded_count > 0 && !im->exports_cubind) || cannot_tell;
}
