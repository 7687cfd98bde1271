/*
 * tests/embed/embedder.c - a shared library that embeds its own cubind, built twice by
 * tests/embed/embed.mk: embedder_a links a cuFFT-only libcubind.a; embedder_b compiles in the
 * amalgamation of another selection and another cubind version, with the prefix embedb
 * (EMBEDDER_PREFIXED). It exports only EMBEDDER_<name> functions, which tests/embed/two_embedders.c
 * calls to see that each copy keeps its own state. With EMBEDDER_TREE=<prefix> (and
 * EMBEDDER_TREE_UPPER, the same in upper case), the copy is a tree generated with that prefix
 * (make generate API_PREFIX=<prefix>): two such objects, of two prefixes, link into one library.
 */
#include <stddef.h>
#include <string.h>

#define PASTE_(a, b) a##_##b
#define PASTE(a, b) PASTE_(a, b)
#define STRING_(x) #x
#define STRING(x) STRING_(x)

#if defined(EMBEDDER_TREE)
#include STRING(EMBEDDER_TREE/cubind.h)
#define API(name) PASTE(EMBEDDER_TREE, name)
#define API_CONSTANT(name) PASTE(EMBEDDER_TREE_UPPER, name)
typedef struct PASTE(EMBEDDER_TREE, library_info) library_info_t;
typedef PASTE(EMBEDDER_TREE, error) error_t_;
#elif defined(EMBEDDER_PREFIXED)
#include "embedb.h"
#define API(name) embedb_##name
#define API_CONSTANT(name) EMBEDB_##name
typedef struct embedb_library_info library_info_t;
typedef embedb_error error_t_;
#else
#include "cubind/cubind.h"
#define API(name) cubind_##name
#define API_CONSTANT(name) CUBIND_##name
typedef struct cubind_library_info library_info_t;
typedef cubind_error error_t_;
#endif

#define EXPORTED_(prefix, name) prefix##_##name
#define EXPORTED(prefix, name) EXPORTED_(prefix, name)
#define EXPORT(name) EXPORTED(EMBEDDER, name)
#define VISIBLE __attribute__((visibility("default")))

static int handler_calls;

static void handler(const error_t_ *error, void *user)
{
    (void)error;
    (void)user;
    handler_calls++;
}

VISIBLE const char *EXPORT(version)(void)
{
    return API(version)();
}

VISIBLE void EXPORT(install_handler)(void)
{
    API(set_error_handler)(handler, NULL);
}

VISIBLE int EXPORT(handler_calls)(void)
{
    return handler_calls;
}

/* A failing call of this copy: a relative library path, refused with an invalid-argument error. */
VISIBLE int EXPORT(fail)(void)
{
    return (int)API(set_library_path)(API_CONSTANT(LIB_CUFFT), "relative/libcufft.so.12");
}

VISIBLE int EXPORT(last_error_kind)(void)
{
    return (int)API(last_error)()->kind;
}

VISIBLE void EXPORT(clear_error)(void)
{
    API(clear_error)();
}

VISIBLE int EXPORT(set_cufft_path)(const char *path)
{
    return (int)API(set_library_path)(API_CONSTANT(LIB_CUFFT), path);
}

/* Where this copy loaded libcufft from; NULL when it did not. */
VISIBLE const char *EXPORT(cufft_path)(void)
{
    library_info_t info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    return API(library_info)(API_CONSTANT(LIB_CUFFT), &info) == API_CONSTANT(OK) ? info.path : NULL;
}

/* A wrapper's call through this copy: the status it returns. */
VISIBLE int EXPORT(cufft_call)(void)
{
    int version = 0;
    return (int)API(cufft_get_version)(&version);
}
