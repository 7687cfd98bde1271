/*
 * tests/test_hardening.c - issue 7's classes of loader faults, each case failing
 * before its fix (see docs/reliability.md, "Hardening"):
 *   1. the status a wrapper returns does not depend on what the error handler did;
 *   2. the system-loader step never loads from the working directory (empty or relative
 *      LD_LIBRARY_PATH entries) and checks every file before dlopen (a truncated
 *      library in LD_LIBRARY_PATH is refused, not a SIGBUS);
 *   3. a set-user-ID program ignores CUBIND_<LIB>_PATH, CUDA_PATH, CUDA_HOME, CONDA_PREFIX;
 *   4. a thread cancelled inside a load, or a handler left by longjmp, wedges nothing;
 *   5. pseudo-handles, foreign handles and files of another library are refused;
 *   6. messages hold printable UTF-8 only (dlerror's copy of a raw path included);
 *   7. retries alternating between failures do not grow the heap;
 *   8. records without a status have an empty status_name;
 *  10. struct cubind_library_info is sized by the caller;
 *  11. nothing cubind opens blocks it (issue 18): a trace file or an ld.so cache that is a FIFO
 *      without a writer or reader.
 * Each case runs in a fresh child process (tests/scenario.h) with a watchdog alarm.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cubind/cubind.h"
#include "loader_support.h"
#include "recorder.h"
#include "scenario.h"

#define MOCK_STATUS 3

/* Printable UTF-8 only: no control character (C0, DEL, C1), no invalid byte. */
static int printable_utf8(const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    while (*p != '\0') {
        size_t n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
        size_t i;
        if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f)) || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) ||
            (n == 2 && p[0] < 0xc2)) {
            fprintf(stderr, "byte 0x%02x at offset %d is not printable UTF-8 in: %s\n", *p,
                    (int)(p - (const unsigned char *)text), text);
            return 0;
        }
        for (i = 1; i < n; ++i)
            if ((p[i] & 0xc0) != 0x80) {
                fprintf(stderr, "broken UTF-8 sequence at offset %d\n", (int)(p - (const unsigned char *)text));
                return 0;
            }
        p += n;
    }
    return 1;
}

static const char *must_getenv(const char *name)
{
    const char *value = getenv(name);
    if (value == NULL) {
        fprintf(stderr, "%s is not set\n", name);
        exit(3);
    }
    return value;
}

/* ---- 1. the status does not depend on the handler ------------------------------------------------ */

static int handler_calls;

/* Clears the record, then makes a call of its own fail with a missing symbol of another library. */
static void meddling_handler(const cubind_error *error, void *user)
{
    (void)error;
    (void)user;
    handler_calls++;
    cubind_clear_error();
    (void)cubind_cublas_destroy(NULL); /* a half mock: symbol not found, recorded */
}

/* CUBIND_CURAND_PATH and CUBIND_CUBLAS_PATH are half mocks; CUBIND_CUFFT_PATH is missing. */
static int scenario_status_vs_handler(void)
{
    alarm(20);
    cubind_mock_set_status(MOCK_STATUS);
    cubind_set_error_handler(meddling_handler, NULL);
    /* missing symbol: the handler clears the record; was CURAND_STATUS_INITIALIZATION_FAILED */
    CHECK(cubind_curand_get_version(&(int){0}) == CURAND_STATUS_VERSION_MISMATCH);
    /* missing library: the handler's own call fails with SYMBOL_NOT_FOUND; was CUFFT_NOT_SUPPORTED */
    CHECK(cubind_cufft_create(&(cufftHandle){0}) == CUFFT_SETUP_FAILED);
    CHECK(cubind_cufft_plan1d(&(cufftHandle){0}, 8, CUFFT_C2C, 1) == CUFFT_SETUP_FAILED);
    /* and with the record left alone, the same */
    cubind_set_error_handler(NULL, NULL);
    CHECK(cubind_curand_get_version(&(int){0}) == CURAND_STATUS_VERSION_MISMATCH);
    CHECK(cubind_cufft_create(&(cufftHandle){0}) == CUFFT_SETUP_FAILED);
    CHECK(handler_calls == 3);
    return 0;
}

/* ---- 2. the system-loader step ----------------------------------------------------------------------- */

/* The working directory ($CUBIND_TEST_DIR) holds a mock libcublas.so.13 and LD_LIBRARY_PATH has an
 * empty or "." entry: cubind must not load it, and every path it records is absolute. */
static int scenario_ld_path_cwd(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    const char *dir = must_getenv("CUBIND_TEST_DIR");
    alarm(20);
    CHECK(chdir(dir) == 0);
    CHECK(access("libcublas.so.13", R_OK) == 0);
    (void)cubind_library_info(CUBIND_LIB_CUBLAS, &info);
    CHECK(mapped(dir) == 0); /* the working directory's copy is never mapped */
    if (info.found) {
        CHECK(info.path[0] == '/');
        CHECK(strncmp(info.path, dir, strlen(dir)) != 0);
    } else {
        CHECK(printable_utf8(info.error));
        CHECK(contains(info.error, "skipped (not absolute: the working directory)"));
    }
    return 0;
}

/* LD_LIBRARY_PATH names a directory ($CUBIND_TEST_DIR) with a truncated libcublas.so.13: refused
 * before dlopen, no SIGBUS, the load goes on to the next candidate. */
static int scenario_ld_path_truncated(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    const char *dir = must_getenv("CUBIND_TEST_DIR");
    alarm(20);
    (void)cubind_library_info(CUBIND_LIB_CUBLAS, &info);
    CHECK(opens_of(dir) == 0);
    CHECK(mapped(dir) == 0);
    if (info.found)
        CHECK(info.path[0] == '/' && strncmp(info.path, dir, strlen(dir)) != 0);
    else
        CHECK(contains(info.error, "truncated ELF file"));
    return 0;
}

/* LD_LIBRARY_PATH names a directory ($CUBIND_TEST_DIR) where libcublas.so.13 is a FIFO: never
 * opened (an open for reading would wait for a writer, as a RTLD_NOLOAD probe by soname once did),
 * refused with the reason, and the load goes on to the next candidate. */
static int scenario_ld_path_fifo(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    const char *dir = must_getenv("CUBIND_TEST_DIR");
    alarm(20);
    (void)cubind_library_info(CUBIND_LIB_CUBLAS, &info);
    CHECK(opens_of(dir) == 0);
    if (info.found)
        CHECK(info.path[0] == '/' && strncmp(info.path, dir, strlen(dir)) != 0);
    else
        CHECK(contains(info.error, "not a regular file (a FIFO)"));
    return 0;
}

/* ---- 4. threads leaving early ------------------------------------------------------------------------- */

static int slow_pipe[2];

static void *call_slow_cufft(void *arg)
{
    (void)arg;
    (void)cubind_cufft_create(&(cufftHandle){0});
    pthread_testcancel();
    return NULL;
}

/* CUBIND_CUFFT_PATH is a mock whose constructor or version query sleeps (a cancellation point
 * inside dlopen, or in cubind's own load under its lock); the thread loading it is cancelled
 * meanwhile. Later loads (of cufft and of another library) must not block. */
static int scenario_cancel_in_load(void)
{
    pthread_t thread;
    char byte;
    void *result = NULL;
    char fd_text[16];
    alarm(20);
    CHECK(pipe(slow_pipe) == 0);
    snprintf(fd_text, sizeof fd_text, "%d", slow_pipe[1]);
    setenv("CUBIND_TEST_SLOW_FD", fd_text, 1);
    cubind_mock_set_status(MOCK_STATUS);
    CHECK(pthread_create(&thread, NULL, call_slow_cufft, NULL) == 0);
    CHECK(read(slow_pipe[0], &byte, 1) == 1); /* the constructor is running */
    CHECK(pthread_cancel(thread) == 0);
    CHECK(pthread_join(thread, &result) == 0);
    /* cancelled once the load was done, or not at all (glibc may drop a request made while
     * its dlopen runs a constructor): either way nothing may stay locked */
    CHECK(result == PTHREAD_CANCELED || result == NULL);
    CHECK(cubind_curand_create_generator(&(curandGenerator_t){0}, CURAND_RNG_PSEUDO_DEFAULT) == MOCK_STATUS);
    CHECK(cubind_cufft_create(&(cufftHandle){0}) == MOCK_STATUS); /* loaded by the cancelled thread */
    CHECK(opens_of("libcufft") == 1);
    return 0;
}

static jmp_buf handler_exit;
static int jumping_calls;

static void jumping_handler(const cubind_error *error, void *user)
{
    (void)error;
    (void)user;
    jumping_calls++;
    longjmp(handler_exit, 1);
}

/* A failing call made `depth` frames (of 1 KiB each) deeper than its caller. */
static int __attribute__((noinline)) fail_deeper(int depth)
{
    volatile char pad[1024];
    pad[0] = (char)depth;
    if (depth > 0)
        return fail_deeper(depth - 1) + pad[0] - (char)depth;
    return (int)cubind_cufft_plan1d(&(cufftHandle){0}, 8, CUFFT_C2C, 1);
}

/* A handler that leaves by longjmp is called again for the next error (CUBIND_CUFFT_PATH missing),
 * also for one recorded deeper in the stack than the call it was left from. */
static int scenario_handler_longjmp(void)
{
    volatile int jumps = 0;
    alarm(20);
    cubind_set_error_handler(jumping_handler, NULL);
    if (setjmp(handler_exit) == 0)
        (void)cubind_cufft_create(&(cufftHandle){0});
    else
        jumps++;
    CHECK(jumps == 1 && jumping_calls == 1);
    if (setjmp(handler_exit) == 0)
        (void)cubind_set_library_path(CUBIND_LIB_CUBLAS, "relative.so");
    else
        jumps++;
    CHECK(jumps == 2 && jumping_calls == 2);
    if (setjmp(handler_exit) == 0)
        (void)fail_deeper(32);
    else
        jumps++;
    CHECK(jumps == 3 && jumping_calls == 3);
    cubind_set_error_handler(NULL, NULL);
    CHECK(cubind_cufft_create(&(cufftHandle){0}) == CUFFT_SETUP_FAILED);
    CHECK(jumping_calls == 3);
    return 0;
}

/* ---- 5. handles and identities ------------------------------------------------------------------------ */

static int refused_handle(void *handle, const char *says)
{
    cubind_clear_error();
    CHECK(cubind_set_library_handle(CUBIND_LIB_CUBLAS, handle) == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(cubind_last_error()->kind == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(cubind_last_error()->status_name, "") == 0 && cubind_last_error()->status == 0);
    CHECK(contains(cubind_last_error()->message, says));
    return 0;
}

/* CUBIND_CUBLAS_PATH is the mock libcublas. */
static int scenario_handles(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    int local = 0;
    void *lt = uncounted_dlopen(mock_path("libcublasLt.so.13"), RTLD_NOW | RTLD_LOCAL);
    void *self = dlopen(NULL, RTLD_NOW);
    alarm(20);
    CHECK(lt != NULL && self != NULL);
    CHECK(refused_handle(RTLD_NEXT, "RTLD_NEXT is a pseudo-handle") == 0);
    CHECK(refused_handle(RTLD_DEFAULT, "the handle is NULL") == 0);
    CHECK(refused_handle(&local, "is not the handle of an object loaded in this process") == 0);
    CHECK(refused_handle(lt, "is libcublasLt.so.13, not libcublas") == 0);
    CHECK(refused_handle(self, "has no DT_SONAME") == 0);
    /* nothing was taken: discovery goes on as if never called */
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_OK);
    CHECK(same(info.found_by, "CUBIND_CUBLAS_PATH") && same(info.path, mock_path("libcublas.so.13")));
    return 0;
}

/* CUBIND_<LIB>_PATH of CUBIND_TEST_LIB names another library's file (or one without DT_SONAME):
 * refused before dlopen, with a message saying what the file is. */
static int scenario_wrong_library(void)
{
    cubind_library library = cubind_library_from_name(must_getenv("CUBIND_TEST_LIB"));
    const char *path = must_getenv("CUBIND_TEST_PATH");
    const char *says = must_getenv("CUBIND_TEST_REASON");
    struct cubind_library_info info = {.size = sizeof info};
    alarm(20);
    CHECK(library != CUBIND_LIB_NONE);
    CHECK(cubind_library_info(library, &info) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(info.found == 0 && info.version_major == -1);
    CHECK(contains(info.error, says));
    CHECK(contains(cubind_last_error()->message, says));
    CHECK(opens_of(path) == 0); /* never given to dlopen: its constructors never ran */
    return 0;
}

/* ---- 6. bytes that leak out ----------------------------------------------------------------------------- */

/* CUBIND_CURAND_PATH is a junk file under a directory whose name holds a newline, ESC, an invalid
 * byte and "café": dlopen fails and its message repeats the path. */
static int scenario_raw_bytes(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    const char *message;
    alarm(20);
    CHECK(cubind_curand_create_generator(&(curandGenerator_t){0}, CURAND_RNG_PSEUDO_DEFAULT) ==
          CURAND_STATUS_INITIALIZATION_FAILED);
    message = cubind_last_error()->message;
    CHECK(contains(message, "invalid ELF header"));
    CHECK(printable_utf8(message));
    CHECK(contains(message, "caf\xc3\xa9"));          /* valid UTF-8 kept */
    CHECK(contains(message, "\\x0a") && contains(message, "\\x1b[31m") && contains(message, "\\xff"));
    CHECK(cubind_library_info(CUBIND_LIB_CURAND, &info) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(printable_utf8(info.error));
    CHECK(contains(info.error, "invalid ELF header"));
    return 0;
}

/* ---- 7. growth --------------------------------------------------------------------------------------------- */

/* Retries alternating between two missing files: what stays allocated must not grow with them. */
static int scenario_growth(void)
{
    const char *rounds_text = getenv("CUBIND_TEST_ROUNDS");
    int rounds = rounds_text != NULL && atoi(rounds_text) > 0 ? atoi(rounds_text) * 100 : 20000;
    struct cubind_library_info info = {.size = sizeof info};
    struct mallinfo2 before, after;
    int i;
    alarm(120);
    /* warm up: both texts kept once, every lazy allocation of libc made */
    for (i = 0; i < 4; ++i) {
        CHECK(cubind_set_library_path(CUBIND_LIB_CUBLAS, i % 2 ? "/nonexistent/a/libcublas.so.13"
                                                                : "/nonexistent/b/libcublas.so.13") == CUBIND_OK);
        CHECK(cubind_load(CUBIND_LIB_CUBLAS) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    }
    before = mallinfo2();
    for (i = 0; i < rounds; ++i) {
        CHECK(cubind_set_library_path(CUBIND_LIB_CUBLAS, i % 2 ? "/nonexistent/a/libcublas.so.13"
                                                                : "/nonexistent/b/libcublas.so.13") == CUBIND_OK);
        CHECK(cubind_load(CUBIND_LIB_CUBLAS) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    }
    after = mallinfo2();
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(contains(info.error, "/nonexistent/a/libcublas.so.13"));
    printf("growth: %d retries, heap in use %zu -> %zu bytes\n", rounds, before.uordblks, after.uordblks);
    CHECK(after.uordblks <= before.uordblks + 4096);
    return 0;
}

/* ---- 8. status names ----------------------------------------------------------------------------------------- */

/* CUBIND_CUSPARSE_PATH is the mock. */
static int scenario_status_names(void)
{
    alarm(20);
    CHECK(cubind_set_library_path(CUBIND_LIB_CUBLAS, "relative/libcublas.so.13") == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(cubind_last_error()->status == 0 && same(cubind_last_error()->status_name, ""));
    CHECK(cubind_set_library_handle(CUBIND_LIB_CUBLAS, NULL) == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(cubind_last_error()->status == 0 && same(cubind_last_error()->status_name, ""));
    CHECK(cubind_library_info(CUBIND_LIB_CUFFT, NULL) == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(cubind_last_error()->status == 0 && same(cubind_last_error()->status_name, ""));
    CHECK(cubind_load(CUBIND_LIB_CUSPARSE) == CUBIND_OK);
    CHECK(cubind_set_library_path(CUBIND_LIB_CUSPARSE, "/x/libcusparse.so.12") == CUBIND_ERROR_ALREADY_LOADED);
    CHECK(cubind_last_error()->status == 0 && same(cubind_last_error()->status_name, ""));
    CHECK(cubind_load((cubind_library)99) == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(same(cubind_last_error()->status_name, ""));
    /* kinds with a status keep its name */
    cubind_mock_set_status(MOCK_STATUS);
    CHECK(cubind_cusparse_create(&(cusparseHandle_t){0}) == MOCK_STATUS);
    CHECK(cubind_last_error()->status == MOCK_STATUS &&
          same(cubind_last_error()->status_name, cubind_status_name(CUBIND_LIB_CUSPARSE, MOCK_STATUS)));
    return 0;
}

/* ---- 10. the sized info struct --------------------------------------------------------------------------------- */

/* CUBIND_CUSPARSE_PATH is the mock. */
static int scenario_info_size(void)
{
    union {
        struct cubind_library_info info;
        unsigned char bytes[sizeof(struct cubind_library_info) + 64];
    } u;
    size_t i;
    alarm(20);
    /* size 0 (not set) and too small: refused, nothing written */
    memset(&u, 0xab, sizeof u);
    u.info.size = 0;
    CHECK(cubind_library_info(CUBIND_LIB_CUSPARSE, &u.info) == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(contains(cubind_last_error()->message, "info->size is 0"));
    for (i = sizeof u.info.size; i < sizeof u.bytes; ++i)
        CHECK(u.bytes[i] == 0xab);
    u.info.size = offsetof(struct cubind_library_info, error);
    CHECK(cubind_library_info(CUBIND_LIB_CUSPARSE, &u.info) == CUBIND_ERROR_INVALID_ARGUMENT);
    for (i = sizeof u.info.size; i < sizeof u.bytes; ++i)
        CHECK(u.bytes[i] == 0xab);
    /* a caller whose struct is larger (a newer header): cubind's part only, and says how much */
    u.info.size = sizeof u.bytes;
    CHECK(cubind_library_info(CUBIND_LIB_CUSPARSE, &u.info) == CUBIND_OK);
    CHECK(u.info.size == sizeof(struct cubind_library_info) && u.info.found == 1);
    for (i = sizeof(struct cubind_library_info); i < sizeof u.bytes; ++i)
        CHECK(u.bytes[i] == 0xab);
    return 0;
}

/* ---- 11. nothing cubind opens blocks it ------------------------------------------------------------------------ */

/* The text of file `path` (at most `size` - 1 bytes); "" when it cannot be read. */
static const char *file_text(const char *path, char *out, size_t size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    ssize_t got = fd >= 0 ? read(fd, out, size - 1) : -1;
    out[got > 0 ? got : 0] = '\0';
    if (fd >= 0)
        close(fd);
    return out;
}

/* CUBIND_TRACE=1, CUBIND_TRACE_FILE names a file of some kind, CUBIND_CUSPARSE_PATH the mock. The
 * first traced call must return (a FIFO without a reader once blocked it for ever, under the lock
 * fork() takes). With $CUBIND_TEST_FALLBACK set, its line goes to stderr after a message that says
 * that; else nothing of cubind's reaches stderr, and with $CUBIND_TEST_READER set this process
 * reads the FIFO, where the line must be. */
static int scenario_trace_file(void)
{
    const char *file = must_getenv("CUBIND_TRACE_FILE");
    const char *fallback = getenv("CUBIND_TEST_FALLBACK");
    const char *errors = must_getenv("CUBIND_TEST_STDERR"); /* where stderr goes during the call */
    char text[8192];
    int reader = -1, saved, fd;
    alarm(20);
    if (getenv("CUBIND_TEST_READER") != NULL)
        CHECK((reader = open(file, O_RDONLY | O_NONBLOCK)) >= 0);
    cubind_mock_set_status(MOCK_STATUS);
    /* stderr into a file for the call, then back (CHECK reports there) */
    CHECK((saved = dup(2)) >= 0 && (fd = open(errors, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
    CHECK(dup2(fd, 2) == 2 && close(fd) == 0);
    fd = cubind_cusparse_create(&(cusparseHandle_t){0});
    CHECK(dup2(saved, 2) == 2 && close(saved) == 0);
    CHECK(fd == MOCK_STATUS);
    file_text(errors, text, sizeof text);
    if (fallback != NULL) {
        CHECK(contains(text, "cubind: CUBIND_TRACE_FILE ") && contains(text, fallback) &&
              contains(text, "; tracing to stderr\n"));
        CHECK(contains(text, "cubind-trace: ") && contains(text, " cusparseCreate(handle="));
        return 0;
    }
    if (strstr(text, "cubind") != NULL) {
        fprintf(stderr, "stderr holds: %s\n", text);
        return 1;
    }
    if (reader >= 0) {
        ssize_t got = read(reader, text, sizeof text - 1);
        text[got > 0 ? got : 0] = '\0';
        CHECK(contains(text, "cubind-trace: ") && contains(text, " cusparseCreate(handle="));
    }
    return 0;
}

/* CUBIND_LD_SO_CACHE names a FIFO no process writes to, and no other step finds libcublas before
 * the cache: the search goes on past it (the cache was once opened for reading, which waits for
 * a writer for ever, under the load lock). */
static int scenario_ld_cache_fifo(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    alarm(20);
    (void)cubind_library_info(CUBIND_LIB_CUBLAS, &info);
    if (info.found)
        CHECK(info.path[0] == '/');
    else
        CHECK(contains(info.error, "in the search path, the ld.so cache or the system directories"));
    return 0;
}

static const struct scenario scenarios[] = {
    {"status_vs_handler", scenario_status_vs_handler},
    {"ld_path_cwd", scenario_ld_path_cwd},
    {"ld_path_truncated", scenario_ld_path_truncated},
    {"ld_path_fifo", scenario_ld_path_fifo},
    {"cancel_in_load", scenario_cancel_in_load},
    {"handler_longjmp", scenario_handler_longjmp},
    {"handles", scenario_handles},
    {"wrong_library", scenario_wrong_library},
    {"raw_bytes", scenario_raw_bytes},
    {"growth", scenario_growth},
    {"status_names", scenario_status_names},
    {"info_size", scenario_info_size},
    {"trace_file", scenario_trace_file},
    {"ld_cache_fifo", scenario_ld_cache_fifo},
    {NULL, NULL},
};

/* ---- CMocka tests (parent) ------------------------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    return make_tmp_dir("cubind-hardening");
}

static int teardown(void **state)
{
    (void)state;
    return remove_tmp_dir();
}

static void run(const char *name, const char *const *env)
{
    struct run_options options = {env, 0};
    assert_int_equal(run_scenario(name, &options), 0);
}

static void test_status_does_not_depend_on_handler(void **state)
{
    const char *env[] = {env_of("CUBIND_CURAND_PATH", half_mock("libcurand.so.10")),
                         env_of("CUBIND_CUBLAS_PATH", half_mock("libcublas.so.13")),
                         env_of("CUBIND_CUFFT_PATH", "/nonexistent/libcufft.so.12"), NULL};
    (void)state;
    run("status_vs_handler", env);
}

/* No other copy is to be found (no ld.so cache, no CUDA root but /usr/local/cuda, which may hold
 * the real one: then that one, by its absolute path). */
static void ld_path_case(const char *dir, const char *ld_library_path, const char *scenario)
{
    const char *env[] = {env_of("LD_LIBRARY_PATH", ld_library_path), env_of("CUBIND_TEST_DIR", dir),
                         env_of("CUBIND_LD_SO_CACHE", "/nonexistent/ld.so.cache"), env_of("CUDA_PATH", ""),
                         env_of("CUDA_HOME", ""), env_of("CONDA_PREFIX", ""), env_of("CUBIND_CUBLAS_PATH", ""),
                         NULL};
    run(scenario, env);
}

static void test_system_loader_skips_working_directory(void **state)
{
    const char *dir = tmp_path("cwd");
    char file[4200];
    (void)state;
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(file, sizeof file, "%s/libcublas.so.13", dir);
    assert_int_equal(copy_file(mock_path("libcublas.so.13"), file, 0), 0);
    ld_path_case(dir, ":/nonexistent", "ld_path_cwd");
    ld_path_case(dir, "/nonexistent:", "ld_path_cwd");
    ld_path_case(dir, ".", "ld_path_cwd");
    ld_path_case(dir, "relative/../.", "ld_path_cwd");
}

static void test_system_loader_checks_files(void **state)
{
    const char *dir = tmp_path("cut");
    char file[4200];
    (void)state;
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(file, sizeof file, "%s/libcublas.so.13", dir);
    assert_int_equal(copy_file(mock_path("libcublas.so.13"), file, 1024), 0);
    ld_path_case(dir, dir, "ld_path_truncated");
}

static void test_system_loader_skips_fifo(void **state)
{
    const char *dir = tmp_path("fifo");
    char file[4200];
    (void)state;
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(file, sizeof file, "%s/libcublas.so.13", dir);
    assert_int_equal(mkfifo(file, 0600), 0);
    ld_path_case(dir, dir, "ld_path_fifo");
}

/* Run `argv` with `env` (NAME=VALUE entries replacing the environment), output into `out`. */
static int run_program(char *const argv[], char *const env[], char *out, size_t size)
{
    int pipe_fds[2], status = 0;
    size_t used = 0;
    ssize_t got;
    pid_t pid;
    if (pipe(pipe_fds) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        dup2(pipe_fds[1], 1);
        dup2(pipe_fds[1], 2);
        close(pipe_fds[0]);
        execve(argv[0], argv, env);
        _exit(127);
    }
    close(pipe_fds[1]);
    while (used + 1 < size && (got = read(pipe_fds[0], out + used, size - 1 - used)) > 0)
        used += (size_t)got;
    out[used] = '\0';
    close(pipe_fds[0]);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* 3. A set-user-ID copy of tests/setuid_helper.c, run as nobody through setpriv: the environment
 * names mock libraries everywhere, and none of it may be used. The same helper run plainly uses it. */
static void test_setuid_ignores_environment(void **state)
{
    const char *helper = tmp_path("setuid_helper");
    const char *mock_root = tmp_path("root");
    char lib64[4200], link[4300], cublas_env[4400], root_env[3][4400], out[16384];
    char *plain_argv[] = {(char *)helper, NULL};
    char *setpriv_argv[] = {(char *)"/usr/bin/setpriv", (char *)"--reuid=65534", (char *)"--regid=65534",
                            (char *)"--clear-groups", (char *)helper, NULL};
    char *env[] = {cublas_env, root_env[0], root_env[1], root_env[2],
                   (char *)"CUBIND_LD_SO_CACHE=/nonexistent/ld.so.cache", NULL};
    int rc;
    (void)state;
    if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0)
        skip(); /* needs root (to make a set-user-ID file) and setpriv (to run it as another user) */
    if (test_emulator() != NULL) {
        /* the kernel runs the emulator, not the set-user-ID program: no secure mode to test */
        print_message("skipped under %s: the set-user-ID bit is the emulator's to honour\n", test_emulator());
        skip();
    }
    assert_int_equal(copy_file(beside_binary("setuid_helper"), helper, 0), 0);
    assert_int_equal(chown(helper, 0, 0), 0);
    assert_int_equal(chmod(helper, 04755), 0);
    snprintf(lib64, sizeof lib64, "%s/lib64", mock_root);
    assert_int_equal(mkdir(mock_root, 0755), 0);
    assert_int_equal(mkdir(lib64, 0755), 0);
    snprintf(link, sizeof link, "%s/libcufft.so.12", lib64);
    assert_int_equal(symlink(mock_path("libcufft.so.12"), link), 0);
    snprintf(link, sizeof link, "%s/libcubind_mock_recorder.so", lib64); /* the mock's $ORIGIN run path */
    assert_int_equal(copy_file(mock_path("libcubind_mock_recorder.so"), link, 0), 0);
    snprintf(link, sizeof link, "%s/libcufft.so.12", lib64);
    snprintf(cublas_env, sizeof cublas_env, "CUBIND_CUFFT_PATH=%s", link);
    snprintf(root_env[0], sizeof root_env[0], "CUDA_PATH=%s", mock_root);
    snprintf(root_env[1], sizeof root_env[1], "CUDA_HOME=%s", mock_root);
    snprintf(root_env[2], sizeof root_env[2], "CONDA_PREFIX=%s", mock_root);

    /* plainly: the environment is used (the helper prints where libcufft was found and how) */
    rc = run_program(plain_argv, env, out, sizeof out);
    if (rc != 0 || strstr(out, "secure=0") == NULL || strstr(out, "found_by=CUBIND_CUFFT_PATH") == NULL)
        fail_msg("plain run (rc %d): %s", rc, out);
    /* unset CUBIND_CUFFT_PATH: the next step is a root variable */
    env[0] = (char *)"CUBIND_TEST_NONE=1";
    rc = run_program(plain_argv, env, out, sizeof out);
    if (rc != 0 || strstr(out, "found_by=CUDA_PATH") == NULL)
        fail_msg("plain run without CUBIND_CUFFT_PATH (rc %d): %s", rc, out);
    env[0] = cublas_env;
    /* set-user-ID, run by nobody: none of the variables is used */
    rc = run_program(setpriv_argv, env, out, sizeof out);
    if (rc == 0 && strstr(out, "secure=0") != NULL)
        skip(); /* a file system mounted nosuid: nothing to test */
    if (rc != 0 || strstr(out, "secure=1") == NULL || strstr(out, mock_root) != NULL ||
        strstr(out, "found_by=CUBIND_CUFFT_PATH") != NULL || strstr(out, "found_by=CUDA_PATH") != NULL ||
        strstr(out, "found_by=CUDA_HOME") != NULL || strstr(out, "found_by=CONDA_PREFIX") != NULL)
        fail_msg("set-user-ID run (rc %d) used the environment: %s", rc, out);
}

static void test_cancel_inside_load(void **state)
{
    (void)state;
    { /* inside the library's constructor (dlopen) */
        const char *env[] = {env_of("CUBIND_CUFFT_PATH", beside_binary("mock-slow/libcufft.so.12")),
                             env_of("CUBIND_CURAND_PATH", mock_path("libcurand.so.10")),
                             env_of("CUBIND_TEST_SLOW_MS", "300"), NULL};
        run("cancel_in_load", env);
    }
    { /* inside its version query (cubind's lock held, outside dlopen) */
        const char *env[] = {env_of("CUBIND_CUFFT_PATH", mock_path("libcufft.so.12")),
                             env_of("CUBIND_CURAND_PATH", mock_path("libcurand.so.10")),
                             env_of("CUBIND_MOCK_VERSION_SLEEP_MS", "300"), NULL};
        run("cancel_in_load", env);
    }
}

static void test_handler_left_by_longjmp(void **state)
{
    const char *env[] = {env_of("CUBIND_CUFFT_PATH", "/nonexistent/libcufft.so.12"), NULL};
    (void)state;
    run("handler_longjmp", env);
}

static void test_handles_refused(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", mock_path("libcublas.so.13")), NULL};
    (void)state;
    run("handles", env);
}

static void wrong_library(const char *library, const char *variable, const char *path, const char *reason)
{
    const char *env[] = {env_of(variable, path), env_of("CUBIND_TEST_LIB", library), env_of("CUBIND_TEST_PATH", path),
                         env_of("CUBIND_TEST_REASON", reason), NULL};
    run("wrong_library", env);
}

static void test_wrong_library_refused(void **state)
{
    const char *no_soname = tmp_path("libcusparse.so.12");
    (void)state;
    wrong_library("cublas", "CUBIND_CUBLAS_PATH", mock_path("libcublasLt.so.13"), "is libcublasLt.so.13, not libcublas");
    wrong_library("cusolverMg", "CUBIND_CUSOLVERMG_PATH", mock_path("libcusolver.so.12"),
                  "is libcusolver.so.12, not libcusolverMg");
    wrong_library("cublasLt", "CUBIND_CUBLASLT_PATH", mock_path("libcublas.so.13"), "is libcublas.so.13, not libcublasLt");
    assert_int_equal(copy_file(beside_binary("test_hardening"), no_soname, 0), 0); /* an executable: no DT_SONAME */
    wrong_library("cusparse", "CUBIND_CUSPARSE_PATH", no_soname, "has no DT_SONAME, so it cannot be told to be libcusparse");
}

static void test_raw_bytes_escaped(void **state)
{
    const char *dir = tmp_path("caf\xc3\xa9\nline\x1b[31m\xff");
    char file[4200];
    FILE *junk;
    int i;
    (void)state;
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(file, sizeof file, "%s/libcurand.so.10", dir);
    junk = fopen(file, "wb");
    assert_non_null(junk);
    for (i = 0; i < 4096; ++i)
        fputc('x', junk);
    assert_int_equal(fclose(junk), 0);
    {
        const char *env[] = {env_of("CUBIND_CURAND_PATH", file), NULL};
        run("raw_bytes", env);
    }
}

static void test_retries_do_not_grow(void **state)
{
    const char *env[] = {env_of("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0"), NULL};
    (void)state;
    run("growth", env);
}

static void test_status_name_empty_without_status(void **state)
{
    const char *env[] = {env_of("CUBIND_CUSPARSE_PATH", mock_path("libcusparse.so.12")), NULL};
    (void)state;
    run("status_names", env);
}

static void test_info_size(void **state)
{
    const char *env[] = {env_of("CUBIND_CUSPARSE_PATH", mock_path("libcusparse.so.12")), NULL};
    (void)state;
    run("info_size", env);
}

static void trace_file_case(const char *file, const char *fallback, int reader)
{
    const char *env[] = {env_of("CUBIND_TRACE", "1"), env_of("CUBIND_TRACE_FILE", file),
                         env_of("CUBIND_CUSPARSE_PATH", mock_path("libcusparse.so.12")),
                         env_of("CUBIND_TEST_FALLBACK", fallback != NULL ? fallback : ""),
                         env_of("CUBIND_TEST_READER", reader ? "1" : ""),
                         env_of("CUBIND_TEST_STDERR", tmp_path("trace-stderr")), NULL};
    run("trace_file", env);
}

/* A regular file or a character device is written to; a FIFO is written to while a process reads
 * it; without one, and for anything else, the lines go to stderr, as the README promises for a
 * file that cannot be opened. */
static void test_trace_file_never_blocks(void **state)
{
    const char *fifo = tmp_path("trace-fifo");
    const char *directory = tmp_path("trace-directory");
    (void)state;
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(mkdir(directory, 0755), 0);
    trace_file_case(fifo, "a FIFO no process reads", 0);
    trace_file_case(fifo, NULL, 1);
    trace_file_case("/dev/null", NULL, 0);
    trace_file_case(tmp_path("trace.log"), NULL, 0);
    trace_file_case(directory, "Is a directory", 0);
}

static void test_ld_cache_fifo_never_blocks(void **state)
{
    const char *fifo = tmp_path("ld.so.cache");
    const char *empty = tmp_path("empty");
    const char *env[] = {env_of("CUBIND_LD_SO_CACHE", fifo), env_of("LD_LIBRARY_PATH", empty),
                         env_of("CUBIND_CUBLAS_PATH", ""), env_of("CUDA_PATH", ""), env_of("CUDA_HOME", ""),
                         env_of("CONDA_PREFIX", ""), NULL};
    (void)state;
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(mkdir(empty, 0755), 0);
    run("ld_cache_fifo", env);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_does_not_depend_on_handler),
        cmocka_unit_test(test_system_loader_skips_working_directory),
        cmocka_unit_test(test_system_loader_checks_files),
        cmocka_unit_test(test_system_loader_skips_fifo),
        cmocka_unit_test(test_setuid_ignores_environment),
        cmocka_unit_test(test_cancel_inside_load),
        cmocka_unit_test(test_handler_left_by_longjmp),
        cmocka_unit_test(test_handles_refused),
        cmocka_unit_test(test_wrong_library_refused),
        cmocka_unit_test(test_raw_bytes_escaped),
        cmocka_unit_test(test_retries_do_not_grow),
        cmocka_unit_test(test_status_name_empty_without_status),
        cmocka_unit_test(test_info_size),
        cmocka_unit_test(test_trace_file_never_blocks),
        cmocka_unit_test(test_ld_cache_fifo_never_blocks),
    };
    int scenario = scenario_main(argc, argv, scenarios);
    if (scenario >= 0)
        return scenario;
    return cmocka_run_group_tests_name("hardening", tests, setup, teardown);
}
