/*
 * loader/copy_version.c - a copy's version without loading it into this process (see
 * copy_version.h). The child (cubind__in_child: forked) loads the file, checks that the version
 * query is the file's own symbol (cudnnGetVersion of libcudnn_ops is libcudnn_graph's), asks it and
 * leaves one fixed-size answer, which the parent waits for, bounded; a child that does not answer in
 * time is killed, and every child is reaped.
 * Before the copy, the child loads the copy's own parts: the files beside it named
 * <stem>_<part>.so.<major> (cuDNN's libcudnn_graph.so.9, libcudnn_ops.so.9, ...), each by its path
 * and after the parts it needs (DT_NEEDED). A library that loads its parts with dlopen by soname
 * (libcudnn.so.9's cudnnGetVersion answers through libcudnn_graph.so.9) then gets those: ld.so
 * matches a soname against the objects already loaded before it searches, where it would find
 * another copy's parts (through the ld.so cache, LD_LIBRARY_PATH), and the copy would answer with
 * their version. Setting LD_LIBRARY_PATH in the child would not do: ld.so reads it once, at start.
 * The child loads everything in a namespace of its own (cubind__lib_open_apart: dlmopen): a fork inherits
 * what the parent has loaded (the probe loads every library it binds), and in the parent's
 * namespace a part of the same soname already there would answer instead of the copy's own (the
 * system's cuDNN 9.14 for the wheel's 9.19, seen on a GPU machine). Objects a library loads with
 * dlopen go to the namespace of the library that asks, so its parts are found in the child's.
 * Layer 3: calls file_open (1), strbuf (1), the platform seam (0), the generated tables
 * (cubind__version_query, cubind_status_name) and libc.
 */
#define _GNU_SOURCE
#include "copy_version.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_open.h"
#include "platform.h"

/* The child's answer: one write of this size. */
struct answer {
    int outcome; /* 0 answered; 1 dlopen failed; 2 not exported; 3 another object's symbol; 4 the query failed;
                  * 5 the init before it failed (a bound library's version.init) */
    int version[3];
    int status;
    char text[200];
    int parts;        /* how many of its parts were loaded from beside it */
    char names[400];  /* their names, ", "-separated (cut short: "...") */
    char trouble[400]; /* parts not loaded, or answered for by another copy's part already loaded */
};

int cubind__version_of_name(const char *file, int version[3])
{
    const char *base = strrchr(file, '/'), *p;
    int n = 0;
    base = base != NULL ? base + 1 : file;
    p = strstr(base, ".so.");
    version[0] = version[1] = version[2] = -1;
    if (p == NULL)
        return 0;
    p += 4;
    while (n < 3 && *p >= '0' && *p <= '9') {
        long value = strtol(p, (char **)&p, 10);
        version[n++] = value > INT_MAX ? INT_MAX : (int)value;
        if (*p != '.')
            break;
        ++p;
    }
    return n;
}

static void copy_text(struct answer *a, const char *text)
{
    size_t n = text != NULL ? strlen(text) : 0;
    if (n >= sizeof a->text)
        n = sizeof a->text - 1;
    if (n > 0)
        memcpy(a->text, text, n);
    a->text[n] = '\0';
}

/* Append `text` to the fixed buffer `buf` (`size` bytes), after ", " unless it is empty; "..." when full. */
static void append(char *buf, size_t size, const char *text)
{
    size_t used = strlen(buf), n = strlen(text) + (used ? 2 : 0);
    if (used + n + 4 > size) {
        if (used + 4 <= size && (used < 3 || strcmp(buf + used - 3, "...") != 0))
            memcpy(buf + used, "...", 4);
        return;
    }
    snprintf(buf + used, size - used, "%s%s", used ? ", " : "", text);
}

/* Whether `name` is a part of `stem`'s of major `major` (-1: any): <stem>_<part>.so.<digits>. */
static int is_part(const char *name, const char *stem, int major)
{
    size_t n = strlen(stem);
    const char *so, *p;
    if (strncmp(name, stem, n) != 0 || name[n] != '_' || (so = strstr(name + n + 1, ".so.")) == NULL ||
        so == name + n + 1 || so[4] == '\0')
        return 0;
    for (p = so + 4; *p != '\0'; ++p)
        if (*p < '0' || *p > '9')
            return 0;
    return major < 0 || atoi(so + 4) == major;
}

struct part {
    char name[256];
    cubind__strbuf needed; /* its DT_NEEDED, each followed by '\n' */
    void *handle;
    int tried;
};

/* Whether part `p` needs another part of `parts` not yet tried. */
static int waits(const struct part *p, const struct part *parts, size_t count)
{
    const char *needed = cubind__strbuf_str(&p->needed);
    size_t i, n;
    for (i = 0; i < count; ++i) {
        const char *at = needed;
        if (parts[i].tried || &parts[i] == p)
            continue;
        n = strlen(parts[i].name);
        while ((at = strstr(at, parts[i].name)) != NULL) {
            if ((at == needed || at[-1] == '\n') && at[n] == '\n')
                return 1;
            at += n;
        }
    }
    return 0;
}

/* cubind__binary_needed's callback: a part's DT_NEEDED names, each followed by '\n'. */
static void note_needed(const char *name, void *data)
{
    cubind__strbuf_printf(data, "%s\n", name);
}

/* In the child, before the copy at `real`: its parts from its directory (the file comment says why). */
static void load_parts(const cubind__locatable *l, const char *real, struct answer *a)
{
    char dir[PATH_MAX], file[PATH_MAX + 256];
    const char *slash = strrchr(real, '/');
    struct part *parts = NULL;
    size_t count = 0, capacity = 0, i, left;
    int version[3], major;
    struct dirent *e;
    DIR *d;
    if (slash == NULL || (size_t)(slash - real) >= sizeof dir)
        return;
    memcpy(dir, real, (size_t)(slash - real));
    dir[slash - real] = '\0';
    major = cubind__version_of_name(real, version) > 0 ? version[0] : -1;
    if ((d = opendir(dir[0] != '\0' ? dir : "/")) == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        int fd;
        if (!is_part(e->d_name, l->stem, major) || strlen(e->d_name) >= sizeof parts[0].name)
            continue;
        if (count == capacity) {
            struct part *more = realloc(parts, (capacity = capacity ? capacity * 2 : 8) * sizeof *parts);
            if (more == NULL)
                break;
            parts = more;
        }
        memset(&parts[count], 0, sizeof parts[count]);
        snprintf(parts[count].name, sizeof parts[count].name, "%s", e->d_name);
        snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
        fd = cubind__open_file(file, O_RDONLY, 0, CUBIND__FILE_REGULAR, &st);
        if (fd < 0)
            continue; /* not a regular file (a dangling link): not a part */
        cubind__binary_needed(fd, (long long)st.st_size, note_needed, &parts[count].needed);
        close(fd);
        ++count;
    }
    closedir(d);
    /* each after the parts it needs; what a circle leaves, in the order found */
    for (left = count; left > 0;) {
        size_t before = left;
        for (i = 0; i < count; ++i)
            if (!parts[i].tried && !waits(&parts[i], parts, count)) {
                parts[i].tried = 1;
                --left;
                snprintf(file, sizeof file, "%s/%s", dir, parts[i].name);
                if ((parts[i].handle = cubind__lib_open_apart(file, 0)) != NULL) {
                    ++a->parts;
                    append(a->names, sizeof a->names, parts[i].name);
                } else {
                    snprintf(file, sizeof file, "%s not loaded", parts[i].name);
                    append(a->trouble, sizeof a->trouble, file);
                }
            }
        if (left == before) /* a circle: the first left, whatever it needs */
            for (i = 0; i < count; ++i)
                if (!parts[i].tried) {
                    cubind__strbuf_free(&parts[i].needed);
                    break;
                }
    }
    /* a part of the same soname already loaded before (inherited from the parent) is found first */
    for (i = 0; i < count; ++i) {
        void *first = parts[i].handle != NULL ? cubind__lib_loaded_apart(parts[i].name) : NULL;
        cubind__lib_facts facts;
        if (first != NULL && first != parts[i].handle && cubind__lib_facts_of(first, &facts) == 0) {
            snprintf(file, sizeof file, "%s already loaded from %s answers for it", parts[i].name,
                     facts.name[0] != '\0' ? facts.name : "?");
            append(a->trouble, sizeof a->trouble, file);
        }
        cubind__strbuf_free(&parts[i].needed);
    }
    free(parts);
}

/* What the child is asked: the copy. */
struct question {
    const cubind__locatable *l;
    const char *path, *real;
};

/* In the child: load (its parts first), check, ask. Only the answer leaves it. */
static void ask(void *context, void *answer)
{
    static const int properties[3] = {0, 1, 2}; /* MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL */
    const struct question *q = context;
    const cubind__locatable *l = q->l;
    struct answer *a = answer;
    cubind__lib_facts facts;
    const char *holder;
    void *handle, *symbol;
    int i;
    a->version[0] = a->version[1] = a->version[2] = -1;
    load_parts(l, q->real, a);
    handle = cubind__lib_open_apart(q->path, 1);
    if (handle == NULL) {
        a->outcome = 1;
        copy_text(a, cubind__lib_error());
        return;
    }
    symbol = cubind__lib_symbol(handle, l->version_function);
    if (symbol == NULL) {
        a->outcome = 2;
        return;
    }
    if (cubind__lib_facts_of(handle, &facts) == 0 && (holder = cubind__file_holding(symbol)) != NULL &&
        strcmp(holder, facts.name) != 0) {
        a->outcome = 3;
        copy_text(a, holder);
        return;
    }
    if (l->library >= 0) { /* a bound library: its generated query, with the header's own types */
        int failed = cubind__version_query((cubind_library)l->library, handle, (cubind__fnptr)(uintptr_t)symbol,
                                           a->version, &a->status, NULL);
        if (failed != 0)
            a->outcome = failed == -2 ? 5 : 4;
        return;
    }
    switch (l->version_kind) {
    case CUBIND__VERSION_PROPERTY: {
        int (*query)(int, int *) = (int (*)(int, int *))(uintptr_t)symbol;
        for (i = 0; i < 3 && a->outcome == 0; ++i)
            if ((a->status = query(properties[i], &a->version[i])) != 0)
                a->outcome = 4;
        break;
    }
    case CUBIND__VERSION_ENCODED: {
        long long value;
        if (l->returns_value) {
            value = (long long)((size_t(*)(void))(uintptr_t)symbol)();
        } else {
            unsigned raw = 0;
            if ((a->status = ((int (*)(unsigned *))(uintptr_t)symbol)(&raw)) != 0) {
                a->outcome = 4;
                break;
            }
            value = raw;
        }
        for (i = 0; i < l->encoding_count && i < 3; ++i)
            a->version[i] = (int)((i > 0 ? value % l->encoding[i - 1] : value) / l->encoding[i]);
        break;
    }
    case CUBIND__VERSION_MAJOR_MINOR:
        if ((a->status = ((int (*)(int *, int *))(uintptr_t)symbol)(&a->version[0], &a->version[1])) != 0)
            a->outcome = 4;
        break;
    default:
        a->outcome = 2;
    }
}

/* Ask in a child, waiting for its answer at most CUBIND__COPY_QUERY_MS. 0 with *a filled, else -1
 * with why in `detail`. */
static int ask_in_child(const cubind__locatable *l, const char *path, const char *real, struct answer *a,
                        cubind__strbuf *detail)
{
    struct question q;
    cubind__child_outcome child;
    q.l = l;
    q.path = path;
    q.real = real;
    cubind__in_child(ask, &q, a, sizeof *a, CUBIND__COPY_QUERY_MS, &child);
    switch (child.outcome) {
    case CUBIND__CHILD_ANSWERED:
        return 0;
    case CUBIND__CHILD_NO_PIPE:
        cubind__strbuf_printf(detail, "no pipe for the query: %s", child.reason);
        return -1;
    case CUBIND__CHILD_NO_CHILD:
        cubind__strbuf_printf(detail, "no child for the query: %s", child.reason);
        return -1;
    case CUBIND__CHILD_TIMED_OUT:
        cubind__strbuf_printf(detail, "the query did not answer within %d s", CUBIND__COPY_QUERY_MS / 1000);
        break;
    default:
        cubind__strbuf_printf(detail, "the child asking it ended without an answer");
    }
    if (child.signal != 0)
        cubind__strbuf_printf(detail, " (signal %d)", child.signal);
    return -1;
}

/* What the answer says of the parts loaded before the copy, when any: appended to `detail`. */
static void said_of_parts(const struct answer *a, cubind__strbuf *detail)
{
    if (a->parts > 0) {
        cubind__strbuf_printf(detail, ", asked with %d part%s loaded from beside it: ", a->parts,
                              a->parts > 1 ? "s" : "");
        cubind__strbuf_escaped(detail, a->names);
    }
    if (a->trouble[0] != '\0') {
        cubind__strbuf_printf(detail, " (but ");
        cubind__strbuf_escaped(detail, a->trouble);
        cubind__strbuf_printf(detail, ")");
    }
}

const char *cubind__copy_version(const cubind__locatable *l, const char *path, const char *real,
                                 const char *not_asked, int version[3], cubind__strbuf *detail)
{
    const char *base = strrchr(real, '/');
    int n;
    base = base != NULL ? base + 1 : real;
    version[0] = version[1] = version[2] = -1;
    if (not_asked == NULL && l->version_kind != CUBIND__VERSION_FILE_NAME) {
        struct answer a;
        if (ask_in_child(l, path, real, &a, detail) == 0) {
            const char *name;
            switch (a.outcome) {
            case 0:
                memcpy(version, a.version, sizeof a.version);
                cubind__strbuf_printf(detail, "%s", l->version_function);
                said_of_parts(&a, detail);
                return "query";
            case 1:
                cubind__strbuf_printf(detail, "dlopen failed: ");
                cubind__strbuf_escaped(detail, a.text);
                break;
            case 2:
                cubind__strbuf_printf(detail, "%s is not exported", l->version_function);
                break;
            case 3:
                cubind__strbuf_printf(detail, "%s is not its own but ", l->version_function);
                cubind__strbuf_escaped(detail, a.text);
                cubind__strbuf_printf(detail, "'s");
                break;
            default:
                name = l->library >= 0 ? cubind_status_name((cubind_library)l->library, a.status) : NULL;
                cubind__strbuf_printf(detail, "%s failed with %s (%d)",
                                      a.outcome == 5 ? cubind__libraries[l->library].version_init_name
                                                     : l->version_function,
                                      name != NULL ? name : "status", a.status);
            }
            said_of_parts(&a, detail);
        }
        cubind__strbuf_printf(detail, "; ");
    } else if (l->version_kind != CUBIND__VERSION_FILE_NAME) {
        cubind__strbuf_printf(detail, "not asked: ");
        cubind__strbuf_escaped(detail, not_asked);
        cubind__strbuf_printf(detail, "; ");
    } else {
        cubind__strbuf_printf(detail, "no version query; ");
    }
    n = cubind__version_of_name(real, version);
    cubind__strbuf_printf(detail, "file name ");
    cubind__strbuf_escaped(detail, base);
    if (n == 0)
        return "none";
    if (n == 1)
        cubind__strbuf_printf(detail, " (the soname's number only)");
    return "file-name";
}
