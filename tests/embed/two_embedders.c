/*
 * tests/embed/two_embedders.c - two shared libraries that each embed their own cubind
 * (tests/embed/embedder.c: embedder_a and embedder_b), in one process: linked to both
 * (EMBEDDERS_LINKED), or opening both with dlopen.
 *
 *   two_embedders VERSION_A VERSION_B CUFFT_A CUFFT_B [LIBRARY_A LIBRARY_B]
 *
 * Each copy keeps its own version, error record, error handler and library path (CUFFT_A and
 * CUFFT_B: two files of the cuFFT mock, each copy told its own). With dlopen: embedder_a is then
 * closed, the process forks, and the child (and the parent after it) keep calling embedder_b.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cubind/cubind.h" /* its constants only: this program links no cubind */

struct embedder {
    const char *name;
    const char *(*version)(void);
    void (*install_handler)(void);
    int (*handler_calls)(void);
    int (*fail)(void);
    int (*last_error_kind)(void);
    void (*clear_error)(void);
    int (*set_cufft_path)(const char *path);
    const char *(*cufft_path)(void);
    int (*cufft_call)(void);
};

/* cubind_error_kind's values, the same in both copies (a prefixed copy renames, never renumbers) */
enum { KIND_OK = CUBIND_OK, KIND_INVALID_ARGUMENT = CUBIND_ERROR_INVALID_ARGUMENT };

#if defined(EMBEDDERS_LINKED)
#define ARGUMENTS 5
#else
#define ARGUMENTS 7
#endif

static int failures;

#define CHECK(condition)                                                                          \
    do {                                                                                          \
        if (!(condition)) {                                                                       \
            fprintf(stderr, "two_embedders:%d: %s\n", __LINE__, #condition);                      \
            failures++;                                                                           \
        }                                                                                         \
    } while (0)

#if defined(EMBEDDERS_LINKED)
#define DECLARE(prefix)                                                                            \
    const char *prefix##_version(void);                                                           \
    void prefix##_install_handler(void);                                                          \
    int prefix##_handler_calls(void);                                                             \
    int prefix##_fail(void);                                                                      \
    int prefix##_last_error_kind(void);                                                           \
    void prefix##_clear_error(void);                                                              \
    int prefix##_set_cufft_path(const char *path);                                                \
    const char *prefix##_cufft_path(void);                                                        \
    int prefix##_cufft_call(void);
DECLARE(embedder_a)
DECLARE(embedder_b)
#define LINKED(prefix)                                                                             \
    {#prefix, prefix##_version, prefix##_install_handler, prefix##_handler_calls, prefix##_fail,  \
     prefix##_last_error_kind, prefix##_clear_error, prefix##_set_cufft_path, prefix##_cufft_path, \
     prefix##_cufft_call}
#else
/* dlsym's object pointer to a function pointer: POSIX guarantees it; the copy keeps ISO C quiet. */
static void *symbol(void *handle, const char *prefix, const char *name, void *function)
{
    char full[128];
    void *found;
    snprintf(full, sizeof full, "%s_%s", prefix, name);
    found = dlsym(handle, full);
    if (found == NULL) {
        fprintf(stderr, "two_embedders: %s: %s\n", full, dlerror());
        exit(1);
    }
    memcpy(function, &found, sizeof found);
    return found;
}

static void *open_embedder(const char *path, const char *prefix, struct embedder *e)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        fprintf(stderr, "two_embedders: %s\n", dlerror());
        exit(1);
    }
    e->name = prefix;
    symbol(handle, prefix, "version", &e->version);
    symbol(handle, prefix, "install_handler", &e->install_handler);
    symbol(handle, prefix, "handler_calls", &e->handler_calls);
    symbol(handle, prefix, "fail", &e->fail);
    symbol(handle, prefix, "last_error_kind", &e->last_error_kind);
    symbol(handle, prefix, "clear_error", &e->clear_error);
    symbol(handle, prefix, "set_cufft_path", &e->set_cufft_path);
    symbol(handle, prefix, "cufft_path", &e->cufft_path);
    symbol(handle, prefix, "cufft_call", &e->cufft_call);
    return handle;
}
#endif

#if !defined(EMBEDDERS_LINKED)
/* What embedder_b does after embedder_a is gone (in a forked child, and in the parent). */
static void keep_calling(const struct embedder *b, const char *version, const char *cufft, int handler_calls)
{
    CHECK(strcmp(b->version(), version) == 0);
    CHECK(b->fail() == KIND_INVALID_ARGUMENT && b->last_error_kind() == KIND_INVALID_ARGUMENT);
    CHECK(b->handler_calls() == handler_calls + 1);
    CHECK(b->cufft_call() == 0);
    CHECK(b->cufft_path() != NULL && strcmp(b->cufft_path(), cufft) == 0);
}
#endif

int main(int argc, char **argv)
{
    struct embedder a, b;
#if !defined(EMBEDDERS_LINKED)
    void *handle_a;
    pid_t child;
    int status;
#endif
    if (argc != ARGUMENTS) {
        fprintf(stderr, "usage: two_embedders VERSION_A VERSION_B CUFFT_A CUFFT_B [LIBRARY_A LIBRARY_B]\n");
        return 2;
    }
#if defined(EMBEDDERS_LINKED)
    {
        struct embedder linked_a = LINKED(embedder_a), linked_b = LINKED(embedder_b);
        a = linked_a;
        b = linked_b;
    }
#else
    handle_a = open_embedder(argv[5], "embedder_a", &a);
    open_embedder(argv[6], "embedder_b", &b);
#endif
    /* versions */
    CHECK(strcmp(a.version(), argv[1]) == 0);
    CHECK(strcmp(b.version(), argv[2]) == 0);
    /* error records and handlers: one copy's failure is not the other's */
    a.install_handler();
    b.install_handler();
    CHECK(a.fail() == KIND_INVALID_ARGUMENT);
    CHECK(a.last_error_kind() == KIND_INVALID_ARGUMENT && b.last_error_kind() == KIND_OK);
    CHECK(a.handler_calls() == 1 && b.handler_calls() == 0);
    CHECK(b.fail() == KIND_INVALID_ARGUMENT);
    CHECK(a.handler_calls() == 1 && b.handler_calls() == 1);
    a.clear_error();
    CHECK(a.last_error_kind() == KIND_OK && b.last_error_kind() == KIND_INVALID_ARGUMENT);
    /* library paths: each copy loads the file it was told */
    CHECK(a.set_cufft_path(argv[3]) == KIND_OK && b.set_cufft_path(argv[4]) == KIND_OK);
    CHECK(a.cufft_call() == 0 && b.cufft_call() == 0);
    CHECK(a.cufft_path() != NULL && strcmp(a.cufft_path(), argv[3]) == 0);
    CHECK(b.cufft_path() != NULL && strcmp(b.cufft_path(), argv[4]) == 0);
#if !defined(EMBEDDERS_LINKED)
    /* one closed, then fork: the other works on, in the child and in the parent */
    CHECK(dlclose(handle_a) == 0);
    fflush(NULL);
    child = fork();
    if (child == 0) {
        keep_calling(&b, argv[2], argv[4], 1);
        _exit(failures == 0 ? 0 : 1);
    }
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    keep_calling(&b, argv[2], argv[4], 1);
#endif
    if (failures == 0)
        printf("two_embedders (%s): %s %s and %s %s, each with its own error record, handler and libcufft\n",
#if defined(EMBEDDERS_LINKED)
               "linked",
#else
               "dlopen, then dlclose of embedder_a and fork",
#endif
               a.name, argv[1], b.name, argv[2]);
    return failures == 0 ? 0 : 1;
}
