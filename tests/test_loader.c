/*
 * tests/test_loader.c - the loader on mock libraries: lazy loading, the README's
 * discovery order, environment override, explicit choices that must not fall
 * back, missing libraries and symbols, the error record and handler, versions,
 * and 32 threads racing the first call.
 *
 * Each case runs in a fresh process (tests/scenario.h). The binary defines
 * dlopen itself (tests/loader_support.c), forwarding to the C library's, to
 * count how often cubind really opens a library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cubind/cubind.h"
#include "library_dirs.h"
#include "loader_support.h"
#include "recorder.h"
#include "scenario.h"

/* ---- scenarios (run in a child process) -------------------------------------------------------- */

/* Nothing is loaded before the first call; a cuFFT call maps libcufft only. */
static int scenario_lazy(void)
{
    cufftHandle plan;
    CHECK(mocks_mapped() == 0);
    CHECK(cubind_status_name(CUBIND_LIB_CUBLAS, 0) != NULL);
    CHECK(cubind_version() != NULL);
    CHECK(cubind_last_error()->kind == CUBIND_OK);
    CHECK(mocks_mapped() == 0);
    CHECK(opens_of("lib") == 0);
    cubind_mock_set_status(CUFFT_SUCCESS);
    CHECK(cubind_cufft_create(&plan) == CUFFT_SUCCESS);
    CHECK(mapped(mock_path("libcufft.so.12")) == 1);
    CHECK(mocks_mapped() == 1);
    CHECK(mapped("libcublas") == 0);
    CHECK(opens_of("libcufft") == 1);
    return 0;
}

static int scenario_env_override(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    CHECK(cubind_load(CUBIND_LIB_CUBLAS) == CUBIND_OK);
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_OK);
    CHECK(info.found == 1);
    CHECK(same(info.found_by, "CUBIND_CUBLAS_PATH"));
    CHECK(same(info.path, getenv("CUBIND_CUBLAS_PATH")));
    CHECK(same(info.soname, "libcublas.so.13"));
    CHECK(info.version_major == 77 && info.version_minor == 1 && info.version_patch == 2);
    CHECK(same(info.version_source, "cublasGetProperty"));
    CHECK(info.functions > 500 && info.functions_found == info.functions && info.functions_missing == 0);
    CHECK(info.error == NULL);
    return 0;
}

static int scenario_env_relative(void)
{
    cublasHandle_t handle;
    const cubind_error *error;
    CHECK(cubind_load(CUBIND_LIB_CUBLAS) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(contains(cubind_last_error()->message, "relative"));
    CHECK(contains(cubind_last_error()->message, "lib/libcublas.so.13"));
    CHECK(cubind_cublas_create(&handle) == CUBLAS_STATUS_NOT_INITIALIZED);
    error = cubind_last_error();
    CHECK(error->kind == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(error->library == CUBIND_LIB_CUBLAS);
    CHECK(same(error->library_name, "cublas"));
    CHECK(same(error->function, "cublasCreate"));
    CHECK(error->status == CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(same(error->status_name, "CUBLAS_STATUS_NOT_INITIALIZED"));
    CHECK(contains(error->message, "relative"));
    CHECK(mapped("libcublas") == 0); /* no fallback to the system's library */
    return 0;
}

static int scenario_env_missing(void)
{
    CHECK(cubind_load(CUBIND_LIB_CUBLAS) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(contains(cubind_last_error()->message, "/nonexistent/libcublas.so.13"));
    CHECK(contains(cubind_last_error()->message, "No such file or directory"));
    CHECK(mapped("libcublas") == 0);
    CHECK(opens_of("libcublas") == 0);
    return 0;
}

static int scenario_api_path(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    CHECK(cubind_set_library_path(CUBIND_LIB_CUBLAS, mock_path("libcublas.so.13")) == CUBIND_OK);
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_OK);
    CHECK(same(info.found_by, "cubind_set_library_path"));
    CHECK(same(info.path, mock_path("libcublas.so.13")));
    /* refused: a relative path, and any path once loaded */
    CHECK(cubind_set_library_path(CUBIND_LIB_CUFFT, "libcufft.so.12") == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(contains(cubind_last_error()->message, "relative"));
    CHECK(cubind_set_library_path(CUBIND_LIB_CUBLAS, mock_path("libcublas.so.13")) == CUBIND_ERROR_ALREADY_LOADED);
    CHECK(cubind_last_error()->kind == CUBIND_ERROR_ALREADY_LOADED);
    CHECK(contains(cubind_last_error()->message, mock_path("libcublas.so.13")));
    /* after a failed load a new path is accepted and used */
    CHECK(cubind_set_library_path(CUBIND_LIB_CURAND, "/nonexistent/libcurand.so.10") == CUBIND_OK);
    CHECK(cubind_load(CUBIND_LIB_CURAND) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(cubind_set_library_path(CUBIND_LIB_CURAND, mock_path("libcurand.so.10")) == CUBIND_OK);
    CHECK(cubind_load(CUBIND_LIB_CURAND) == CUBIND_OK);
    CHECK(cubind_library_info(CUBIND_LIB_CURAND, &info) == CUBIND_OK);
    CHECK(same(info.path, mock_path("libcurand.so.10")));
    return 0;
}

static int scenario_api_handle(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    void *handle = dlopen(mock_path("libcusparse.so.12"), RTLD_NOW | RTLD_LOCAL);
    CHECK(handle != NULL);
    CHECK(cubind_set_library_handle(CUBIND_LIB_CUSPARSE, NULL) == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(cubind_set_library_handle(CUBIND_LIB_CUSPARSE, handle) == CUBIND_OK);
    CHECK(cubind_library_info(CUBIND_LIB_CUSPARSE, &info) == CUBIND_OK);
    CHECK(same(info.found_by, "cubind_set_library_handle"));
    CHECK(same(info.path, mock_path("libcusparse.so.12")));
    CHECK(opens_of("libcusparse") == 1); /* ours only */
    return 0;
}

static int scenario_already_loaded(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    CHECK(dlopen(mock_path("libcublas.so.13"), RTLD_NOW | RTLD_GLOBAL) != NULL);
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_OK);
    CHECK(same(info.found_by, "already loaded"));
    /* by whom: this program's dlopen, not a DT_NEEDED of any loaded object */
    CHECK(info.loaded_by != NULL && contains(info.loaded_by, "by a dlopen (no loaded object's DT_NEEDED lists libcublas.so.13)"));
    CHECK(same(info.path, mock_path("libcublas.so.13")));
    CHECK(opens_of("libcublas") == 1);
    return 0;
}

static int scenario_system_loader(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    char real[PATH_MAX];
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_OK);
    CHECK(same(info.found_by, "system loader"));
    CHECK(info.loaded_by == NULL); /* only a library found already loaded was loaded by someone else */
    CHECK(same(info.path, mock_path("libcublas.so.13")));
    CHECK(realpath(info.path, real) != NULL && same(info.real_path, real)); /* read from the checks' descriptor */
    return 0;
}

/* Found under a CUDA root: CUBIND_TEST_EXPECT_BY and CUBIND_TEST_EXPECT_PATH say where. */
static int scenario_cuda_root(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_OK);
    CHECK(same(info.found_by, getenv("CUBIND_TEST_EXPECT_BY")));
    CHECK(same(info.path, getenv("CUBIND_TEST_EXPECT_PATH")));
    return 0;
}

/* A library the toolkit keeps outside lib64 (root_dirs: NVVM in nvvm/lib64) is found there. */
static int scenario_nvvm_root(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    CHECK(cubind_library_info(CUBIND_LIB_NVVM, &info) == CUBIND_OK);
    CHECK(same(info.found_by, "CUDA_PATH"));
    CHECK(same(info.path, getenv("CUBIND_TEST_EXPECT_PATH")));
    return 0;
}

static int scenario_missing_symbol(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    const cubind_error *error;
    size_t i;
    int listed = 0;
    CHECK(cubind_function_available("cublasCreate") == 1);
    CHECK(cubind_function_available("cublasCreate_v2") == 1);
    CHECK(cubind_function_available("cubind_cublas_create") == 1);
    CHECK(cubind_function_available("cublasDestroy") == CUBIND_FUNCTION_NOT_AVAILABLE);
    /* an availability test is true only for what can be called: a name cubind does not bind (a
     * typo) is false as a truth value, in C as in every FFI, and never CUBIND_FUNCTION_NAME_UNKNOWN */
    CHECK(!cubind_function_available("noSuchFunction"));
    CHECK(!cubind_function_available("cublasCreateX"));
    CHECK(!cubind_function_available("cubind_cublas_no_such_function"));
    CHECK(!cubind_function_available(""));
    CHECK(!cubind_function_available(NULL));
    CHECK(cubind_function_available("noSuchFunction") == CUBIND_FUNCTION_NOT_AVAILABLE);
    CHECK(cubind_function_available("cublasCreate") == CUBIND_FUNCTION_AVAILABLE);
    {
        /* cubind_function_info tells the unknown name from the function bound but missing here */
        struct cubind_function_info fi = {.size = sizeof fi};
        CHECK(cubind_function_info("cublasCreateX", &fi) == CUBIND_ERROR_INVALID_ARGUMENT);
        CHECK(fi.state == CUBIND_FUNCTION_UNKNOWN);
        fi.size = sizeof fi;
        CHECK(cubind_function_info("cublasDestroy", &fi) == CUBIND_OK);
        CHECK(fi.state == CUBIND_FUNCTION_MISSING);
    }
    CHECK(cubind_last_error()->kind == CUBIND_OK); /* records no error */
    CHECK(cubind_cublas_destroy(NULL) == CUBLAS_STATUS_NOT_SUPPORTED);
    error = cubind_last_error();
    CHECK(error->kind == CUBIND_ERROR_SYMBOL_NOT_FOUND);
    CHECK(same(error->function, "cublasDestroy"));
    CHECK(error->status == CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK(same(error->status_name, "CUBLAS_STATUS_NOT_SUPPORTED"));
    CHECK(contains(error->message, "cublasDestroy_v2"));
    CHECK(contains(error->message, half_mock("libcublas.so.13")));
    CHECK(contains(error->message, "77.1.2"));
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_OK);
    /* the half mock drops every other symbol (never the version query) */
    CHECK(info.functions_missing + 1 >= info.functions / 2 && info.functions_missing <= info.functions / 2);
    CHECK(info.functions_found + info.functions_missing == info.functions);
    for (i = 0; i < info.functions_missing; ++i)
        listed += strcmp(info.missing[i], "cublasDestroy") == 0;
    CHECK(listed == 1);
    return 0;
}

static int scenario_missing_library(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    curandGenerator_t generator;
    const cubind_error *error;
    CHECK(cubind_curand_create_generator(&generator, CURAND_RNG_PSEUDO_DEFAULT) ==
          CURAND_STATUS_INITIALIZATION_FAILED);
    error = cubind_last_error();
    CHECK(error->kind == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(same(error->function, "curandCreateGenerator"));
    CHECK(error->status == CURAND_STATUS_INITIALIZATION_FAILED);
    CHECK(contains(error->message, "/nonexistent/libcurand.so.10"));
    /* a wrapper that returns a string, not a status: the text libraries.toml's no_status decides (never
     * NULL), and the same record */
    cubind_clear_error();
    CHECK(contains(cubind_cusparse_get_error_name(CUSPARSE_STATUS_SUCCESS), "cubind_last_error() says why"));
    CHECK(cubind_last_error()->kind == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(same(cubind_last_error()->function, "cusparseGetErrorName"));
    CHECK(cubind_library_info(CUBIND_LIB_CURAND, &info) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(info.found == 0 && info.path == NULL && info.error != NULL);
    CHECK(info.functions_missing == info.functions && info.functions_found == 0);
    CHECK(contains(info.error, "/nonexistent/libcurand.so.10"));
    return 0;
}

struct handler_log {
    int calls;
    cubind_error_kind kind;
    int status;
    char function[64];
    int inner_result;
};

static void handler(const cubind_error *error, void *user)
{
    struct handler_log *log = user;
    int version = 0;
    log->calls++;
    log->kind = error->kind;
    log->status = error->status;
    snprintf(log->function, sizeof log->function, "%s", error->function);
    /* call back into cubind: another failing call, a handler change and a query */
    log->inner_result = cubind_cublas_get_version(NULL, &version);
    cubind_set_error_handler(handler, user);
    (void)cubind_last_error();
}

static int scenario_error_handler(void)
{
    struct handler_log log = {0};
    cublasHandle_t handle;
    cubind_set_error_handler(handler, &log);
    cubind_mock_set_status(CUBLAS_STATUS_ALLOC_FAILED);
    CHECK(cubind_cublas_create(&handle) == CUBLAS_STATUS_ALLOC_FAILED);
    CHECK(log.calls == 1);
    CHECK(log.kind == CUBIND_ERROR_STATUS);
    CHECK(log.status == CUBLAS_STATUS_ALLOC_FAILED);
    CHECK(same(log.function, "cublasCreate"));
    CHECK(log.inner_result == CUBLAS_STATUS_ALLOC_FAILED);
    /* the record now holds the handler's own inner error */
    CHECK(same(cubind_last_error()->function, "cublasGetVersion"));
    /* success leaves the record alone; clearing empties it */
    cubind_mock_set_status(CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_cublas_create(&handle) == CUBLAS_STATUS_SUCCESS);
    CHECK(cubind_last_error()->kind == CUBIND_ERROR_STATUS);
    cubind_clear_error();
    CHECK(cubind_last_error()->kind == CUBIND_OK);
    CHECK(same(cubind_last_error()->function, "") && same(cubind_last_error()->message, ""));
    /* no handler, no call */
    cubind_set_error_handler(NULL, NULL);
    cubind_mock_set_status(CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cubind_cublas_create(&handle) == CUBLAS_STATUS_INVALID_VALUE);
    CHECK(log.calls == 1);
    CHECK(contains(cubind_last_error()->message, "CUBLAS_STATUS_INVALID_VALUE"));
    return 0;
}

static int scenario_versions(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_OK);
    CHECK(info.version_major == 99 && info.version_minor == 8 && info.version_patch == 7);
    CHECK(info.version_origin == CUBIND_VERSION_ORIGIN_QUERY);
    CHECK(same(info.version_detail, "cublasGetProperty") && same(info.version_text, "99.8.7"));
    CHECK(cubind_library_info(CUBIND_LIB_CUSOLVERMG, &info) == CUBIND_OK);
    CHECK(info.version_major == 12 && info.version_minor == -1 && info.version_patch == -1);
    CHECK(contains(info.version_source, "file name libcusolverMg.so.12"));
    /* an unknown part is not printed: "12", never "12.-1.-1" */
    CHECK(info.version_origin == CUBIND_VERSION_ORIGIN_FILE_NAME);
    CHECK(same(info.version_detail, "libcusolverMg.so.12") && same(info.version_text, "12"));
    return 0;
}

/* The version query fails: the version is read from the file's name, which says so and why. */
static int scenario_version_fails(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    const char *name;
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_OK);
    CHECK(info.found == 1);
    name = strrchr(info.real_path, '/') + 1;
    CHECK(info.version_major == atoi(strstr(name, ".so.") + 4) && info.version_minor == -1);
    CHECK(contains(info.version_source, "file name "));
    CHECK(contains(info.version_source, name));
    CHECK(contains(info.version_source, "cublasGetProperty failed with CUBLAS_STATUS_EXECUTION_FAILED (13)"));
    CHECK(info.version_origin == CUBIND_VERSION_ORIGIN_FILE_NAME && same(info.version_detail, name));
    CHECK(info.version_text != NULL && strchr(info.version_text, '-') == NULL);
    return 0;
}

/* cuBLASLt, used with cuBLAS, is looked for beside the cuBLAS cubind loaded before the system's
 * places: the two then come from one release. */
static int scenario_coupled_beside(void)
{
    struct cubind_library_info blas = {.size = sizeof blas}, lt = {.size = sizeof lt};
    size_t folder;
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &blas) == CUBIND_OK);
    CHECK(cubind_library_info(CUBIND_LIB_CUBLASLT, &lt) == CUBIND_OK);
    CHECK(same(lt.found_by, "beside a library it is used with"));
    folder = (size_t)(strrchr(blas.real_path, '/') - blas.real_path);
    CHECK(strncmp(lt.real_path, blas.real_path, folder + 1) == 0 && strchr(lt.real_path + folder + 1, '/') == NULL);
    /* (the mocks' 77.1.2 contradicts their sonames: that note, never one of mixed releases) */
    CHECK(lt.release_note == NULL || !contains(lt.release_note, "should come from one release"));
    CHECK(blas.release_note == NULL || !contains(blas.release_note, "should come from one release"));
    return 0;
}

/* A library older than every release the bindings know is not loaded: its ABI is unknown. */
/* (the driver: a version of a versioned soname that is older than it says would contradict it, and
 * its soname then decides; libcuda.so.1's number is no version) */
static int scenario_version_too_old(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    CHECK(cubind_library_info(CUBIND_LIB_DRIVER, &info) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(info.found == 0);
    CHECK(contains(info.error, "older than the oldest release these bindings know"));
    CHECK(contains(info.error, "1.2 ("));
    CHECK(!contains(info.error, ".-1")); /* only the known parts of a version are written */
    return 0;
}

#define RACERS 32

struct race {
    pthread_barrier_t start;
    int results[RACERS];
    char messages[RACERS][CUBIND_ERROR_MESSAGE_MAX];
};

static struct race race;

static void *race_cublas(void *arg)
{
    int id = (int)(intptr_t)arg, version = 0;
    cublasHandle_t handle;
    cublasPointerMode_t mode;
    pthread_barrier_wait(&race.start);
    switch (id % 3) {
    case 0:
        race.results[id] = cubind_cublas_create(&handle);
        break;
    case 1:
        race.results[id] = cubind_cublas_get_version(NULL, &version);
        break;
    default:
        race.results[id] = cubind_cublas_get_pointer_mode(NULL, &mode);
        break;
    }
    return NULL;
}

static void *race_cufft(void *arg)
{
    int id = (int)(intptr_t)arg;
    cufftHandle plan;
    pthread_barrier_wait(&race.start);
    race.results[id] = cubind_cufft_create(&plan);
    snprintf(race.messages[id], sizeof race.messages[id], "%s", cubind_last_error()->message);
    return NULL;
}

static int run_race(void *(*body)(void *))
{
    pthread_t threads[RACERS];
    int i;
    pthread_barrier_init(&race.start, NULL, RACERS);
    for (i = 0; i < RACERS; ++i)
        if (pthread_create(&threads[i], NULL, body, (void *)(intptr_t)i) != 0)
            return -1;
    for (i = 0; i < RACERS; ++i)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&race.start);
    return 0;
}

static int scenario_race(void)
{
    int i;
    cubind_mock_set_status(CUBLAS_STATUS_MAPPING_ERROR);
    CHECK(run_race(race_cublas) == 0);
    for (i = 0; i < RACERS; ++i)
        CHECK(race.results[i] == CUBLAS_STATUS_MAPPING_ERROR);
    CHECK(opens_of("libcublas.so.13") == 1);
    CHECK(cubind_mock_calls() == RACERS + 3); /* + cublasGetProperty x3: the version, asked once at load */
    return 0;
}

static int scenario_race_failure(void)
{
    int i;
    CHECK(run_race(race_cufft) == 0);
    for (i = 0; i < RACERS; ++i) {
        CHECK(race.results[i] == CUFFT_SETUP_FAILED);
        CHECK(same(race.messages[i], race.messages[0]));
    }
    CHECK(contains(race.messages[0], getenv("CUBIND_CUFFT_PATH")));
    CHECK(contains(race.messages[0], "invalid ELF header"));
    CHECK(opens_of(getenv("CUBIND_CUFFT_PATH")) == 1);
    return 0;
}

static const struct scenario scenarios[] = {
    {"lazy", scenario_lazy},
    {"env_override", scenario_env_override},
    {"env_relative", scenario_env_relative},
    {"env_missing", scenario_env_missing},
    {"api_path", scenario_api_path},
    {"api_handle", scenario_api_handle},
    {"already_loaded", scenario_already_loaded},
    {"system_loader", scenario_system_loader},
    {"cuda_root", scenario_cuda_root},
    {"nvvm_root", scenario_nvvm_root},
    {"missing_symbol", scenario_missing_symbol},
    {"missing_library", scenario_missing_library},
    {"error_handler", scenario_error_handler},
    {"versions", scenario_versions},
    {"version_fails", scenario_version_fails},
    {"version_too_old", scenario_version_too_old},
    {"coupled_beside", scenario_coupled_beside},
    {"race", scenario_race},
    {"race_failure", scenario_race_failure},
    {NULL, NULL},
};

/* ---- CMocka tests (parent) ---------------------------------------------------------------------- */

/* Environment entries that point every library at its mock. */
static void run(const char *name, const char *const *env, int inhibit_cache)
{
    struct run_options options = {env, inhibit_cache};
    assert_int_equal(run_scenario(name, &options), 0);
}

static void test_lazy(void **state)
{
    const char *const *env = library_env(mock_path, NULL);
    (void)state;
    run("lazy", env, 0);
}

static void test_env_override(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", mock_path("libcublas.so.13")), NULL};
    (void)state;
    run("env_override", env, 0);
}

static void test_coupled_beside(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", mock_path("libcublas.so.13")), NULL};
    (void)state;
    run("coupled_beside", env, 0);
}

static void test_env_relative_refused(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", "lib/libcublas.so.13"), NULL};
    (void)state;
    run("env_relative", env, 0);
}

static void test_env_missing_no_fallback(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", "/nonexistent/libcublas.so.13"), NULL};
    (void)state;
    run("env_missing", env, 0);
}

static void test_api_path_first(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", "/nonexistent/libcublas.so.13"), NULL};
    (void)state;
    run("api_path", env, 0);
}

static void test_api_handle(void **state)
{
    (void)state;
    run("api_handle", NULL, 0);
}

static void test_already_loaded(void **state)
{
    (void)state;
    run("already_loaded", NULL, 0);
}

static void test_system_loader(void **state)
{
    const char *env[] = {env_of("LD_LIBRARY_PATH", mock_dir()), NULL};
    (void)state;
    run("system_loader", env, 0);
}

/* A CUDA root's library folders on the target built for, in the order searched: generated/src/library_dirs.h
 * ([[platform]] in generator/libraries.toml): lib64 and lib, then the toolkit's targets/<target>/lib and
 * Debian's multiarch lib/<triplet> (the last) where the target has them. */
static const char *const root_dirs[] = {CUBIND__PLATFORM_ROOT_DIRS};
#define ROOT_DIR_COUNT (sizeof root_dirs / sizeof root_dirs[0])
#define TARGET_DIR root_dirs[ROOT_DIR_COUNT > 2 ? 2 : 1]
#define MULTIARCH_DIR root_dirs[ROOT_DIR_COUNT - 1]

static void make_dirs(const char *path)
{
    char buf[1024];
    char *p;
    snprintf(buf, sizeof buf, "%s", path);
    for (p = buf + 1; *p != '\0'; ++p)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

static void place_mock(const char *root, const char *subdir, const char *name)
{
    char dir[1024], link[1100];
    snprintf(dir, sizeof dir, "%s/%s", root, subdir);
    make_dirs(dir);
    snprintf(link, sizeof link, "%s/%s", dir, name);
    unlink(link);
    assert_int_equal(symlink(mock_path("libcublas.so.13"), link), 0);
}

/* Steps 6 and 8 of the discovery order (docs/loader.md), without the system loader's cache (which
 * knows the real libraries): CUDA_PATH, then CUDA_HOME, then CONDA_PREFIX, newest soname first. */
static void test_cuda_roots(void **state)
{
    char tmp[] = "/tmp/cubind-roots-XXXXXX", a[64], b[64], c[64], d[64], expect[1200];
    (void)state;
    assert_non_null(mkdtemp(tmp));
    snprintf(a, sizeof a, "%s/a", tmp);
    snprintf(b, sizeof b, "%s/b", tmp);
    snprintf(c, sizeof c, "%s/c", tmp);
    place_mock(a, "lib64", "libcublas.so.12");
    place_mock(a, "lib64", "libcublas.so.13");
    place_mock(b, "lib", "libcublas.so.12");
    place_mock(c, TARGET_DIR, "libcublas.so.13");
    snprintf(d, sizeof d, "%s/d", tmp);
    place_mock(d, MULTIARCH_DIR, "libcublas.so.12"); /* Debian's layout: a root's multiarch folder */
    {
        const char *env[] = {env_of("CUDA_PATH", a), env_of("CUDA_HOME", b), env_of("CONDA_PREFIX", c),
                             env_of("CUBIND_TEST_EXPECT_BY", "CUDA_PATH"),
                             env_of("CUBIND_TEST_EXPECT_PATH", (snprintf(expect, sizeof expect, "%s/lib64/libcublas.so.13", a), expect)),
                             NULL};
        run("cuda_root", env, 1);
    }
    {
        const char *env[] = {env_of("CUDA_PATH", ""), env_of("CUDA_HOME", b), env_of("CONDA_PREFIX", c),
                             env_of("CUBIND_TEST_EXPECT_BY", "CUDA_HOME"),
                             env_of("CUBIND_TEST_EXPECT_PATH", (snprintf(expect, sizeof expect, "%s/lib/libcublas.so.12", b), expect)),
                             NULL};
        run("cuda_root", env, 1);
    }
    {
        const char *env[] = {env_of("CUDA_PATH", "relative/dir"), env_of("CUDA_HOME", ""), env_of("CONDA_PREFIX", c),
                             env_of("CUBIND_TEST_EXPECT_BY", "CONDA_PREFIX"),
                             env_of("CUBIND_TEST_EXPECT_PATH", (snprintf(expect, sizeof expect, "%s/%s/libcublas.so.13", c, TARGET_DIR), expect)),
                             NULL};
        run("cuda_root", env, 1);
    }
    {
        const char *env[] = {env_of("CUDA_PATH", d), env_of("CUDA_HOME", ""), env_of("CONDA_PREFIX", ""),
                             env_of("CUBIND_TEST_EXPECT_BY", "CUDA_PATH"),
                             env_of("CUBIND_TEST_EXPECT_PATH", (snprintf(expect, sizeof expect, "%s/%s/libcublas.so.12", d, MULTIARCH_DIR), expect)),
                             NULL};
        run("cuda_root", env, 1);
    }
}

/* Each library folder of a CUDA root on this target, alone in a root, is searched (targets/sbsa-linux/lib
 * and Jetson's targets/aarch64-linux/lib on aarch64): CUDA_PATH finds the library there. */
static void test_every_root_dir(void **state)
{
    char tmp[] = "/tmp/cubind-root-dirs-XXXXXX", root[64], expect[1200];
    size_t i;
    (void)state;
    assert_non_null(mkdtemp(tmp));
    for (i = 0; i < ROOT_DIR_COUNT; ++i) {
        snprintf(root, sizeof root, "%s/%zu", tmp, i);
        snprintf(expect, sizeof expect, "%s/%s/libcublas.so.13", root, root_dirs[i]);
        place_mock(root, root_dirs[i], "libcublas.so.13");
        print_message("%s\n", expect);
        {
            const char *env[] = {env_of("CUDA_PATH", root), env_of("CUDA_HOME", ""), env_of("CONDA_PREFIX", ""),
                                 env_of("CUBIND_TEST_EXPECT_BY", "CUDA_PATH"),
                                 env_of("CUBIND_TEST_EXPECT_PATH", expect), NULL};
            run("cuda_root", env, 1);
        }
    }
}

/* NVVM in a CUDA root's nvvm/lib64 (libraries.toml: root_dirs), where the toolkit keeps it. */
static void test_library_root_dirs(void **state)
{
    char tmp[] = "/tmp/cubind-nvvm-XXXXXX", dir[64], link[128];
    (void)state;
    assert_non_null(mkdtemp(tmp));
    snprintf(dir, sizeof dir, "%s/nvvm/lib64", tmp);
    make_dirs(dir);
    snprintf(link, sizeof link, "%s/libnvvm.so.4", dir);
    assert_int_equal(symlink(mock_path("libnvvm.so.4"), link), 0);
    {
        const char *env[] = {env_of("CUDA_PATH", tmp), env_of("CUDA_HOME", ""), env_of("CONDA_PREFIX", ""),
                             env_of("CUBIND_TEST_EXPECT_PATH", link), NULL};
        run("nvvm_root", env, 1);
    }
}

static void test_missing_symbol(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", half_mock("libcublas.so.13")), NULL};
    (void)state;
    run("missing_symbol", env, 0);
}

static void test_missing_library(void **state)
{
    const char *env[] = {env_of("CUBIND_CURAND_PATH", "/nonexistent/libcurand.so.10"),
                         env_of("CUBIND_CUSPARSE_PATH", "/nonexistent/libcusparse.so.12"), NULL};
    (void)state;
    run("missing_library", env, 0);
}

static void test_error_handler(void **state)
{
    const char *const *env = library_env(mock_path, NULL);
    (void)state;
    run("error_handler", env, 0);
}

static void test_versions(void **state)
{
    const char *const *env = library_env(mock_path, env_of("CUBIND_MOCK_VERSION", "99.8.7"), NULL);
    (void)state;
    run("versions", env, 0);
}

static void test_version_too_old(void **state)
{
    const char *const *env = library_env(mock_path, env_of("CUBIND_MOCK_VERSION", "1.2.3"), NULL);
    (void)state;
    run("version_too_old", env, 0);
}

static void test_version_query_fails(void **state)
{
    const char *const *env = library_env(mock_path, env_of("CUBIND_MOCK_VERSION_STATUS", "13"), NULL);
    (void)state;
    run("version_fails", env, 0);
}

static void test_race_first_call(void **state)
{
    const char *const *env = library_env(mock_path, NULL);
    (void)state;
    run("race", env, 0);
}

static void test_race_failing_library(void **state)
{
    char path[] = "/tmp/cubind-corrupt-XXXXXX";
    int fd = mkstemp(path);
    const char *env[] = {env_of("CUBIND_CUFFT_PATH", path), NULL};
    (void)state;
    assert_true(fd >= 0);
    char junk[256];
    memset(junk, 'x', sizeof junk);
    assert_int_equal(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
    close(fd);
    run("race_failure", env, 0);
    unlink(path);
}

static void test_status_names(void **state)
{
    (void)state;
    assert_string_equal(cubind_status_name(CUBIND_LIB_CUBLAS, CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED");
    assert_string_equal(cubind_status_name(CUBIND_LIB_CUFFT, CUFFT_SETUP_FAILED), "CUFFT_SETUP_FAILED");
    assert_string_equal(cubind_status_name(CUBIND_LIB_CURAND, CURAND_STATUS_VERSION_MISMATCH),
                        "CURAND_STATUS_VERSION_MISMATCH");
    assert_string_equal(cubind_status_name(CUBIND_LIB_CUSOLVERMG, CUSOLVER_STATUS_NOT_SUPPORTED),
                        "CUSOLVER_STATUS_NOT_SUPPORTED");
    assert_string_equal(cubind_status_name(CUBIND_LIB_CUSPARSE, CUSPARSE_STATUS_INSUFFICIENT_RESOURCES),
                        "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES");
    assert_null(cubind_status_name(CUBIND_LIB_CUFFT, 0xA)); /* a hole in cufftResult */
    assert_null(cubind_status_name(CUBIND_LIB_NONE, 0));
}

static void test_library_names(void **state)
{
    int lib;
    size_t i, j;
    (void)state;
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib)
        assert_int_equal(cubind_library_from_name(cubind_library_name((cubind_library)lib)), lib);
    assert_null(cubind_library_name(CUBIND_LIBRARY_COUNT));
    assert_int_equal(cubind_library_from_name("no-such-library"), CUBIND_LIB_NONE);
    /* a DT_NEEDED name: each configured soname, another version of it, its file's full version */
    for (i = 0; i < cubind_test_library_count; ++i) {
        const struct cubind_test_library *c = &cubind_test_libraries[i];
        char other[256];
        for (j = 0; j < c->soname_count; ++j) {
            assert_int_equal(cubind_library_from_soname(c->sonames[j]), c->library);
            snprintf(other, sizeof other, "%.*s.so.99", (int)(strstr(c->sonames[j], ".so") - c->sonames[j]),
                     c->sonames[j]);
            assert_int_equal(cubind_library_from_soname(other), c->library);
            snprintf(other, sizeof other, "%s.4.5", c->sonames[j]);
            assert_int_equal(cubind_library_from_soname(other), c->library);
            /* a longer name with the same start is another library's (libcublasLt is not libcublas) */
            snprintf(other, sizeof other, "%.*sX.so.1", (int)(strstr(c->sonames[j], ".so") - c->sonames[j]),
                     c->sonames[j]);
            assert_int_equal(cubind_library_from_soname(other), CUBIND_LIB_NONE);
        }
    }
    assert_int_equal(cubind_library_from_soname("libc.so.6"), CUBIND_LIB_NONE);
    assert_int_equal(cubind_library_from_soname(""), CUBIND_LIB_NONE);
    assert_int_equal(cubind_library_from_soname(NULL), CUBIND_LIB_NONE);
    assert_int_equal(cubind_load((cubind_library)42), CUBIND_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cubind_last_error()->kind, CUBIND_ERROR_INVALID_ARGUMENT);
}

/* The inline form's failure branch: a function's status recorded as its wrapper records it (the
 * passthrough-inline test checks every function); a library or index from the wrong headers refused. */
static void test_status_error(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < cubind_test_library_count; ++i) {
        const struct cubind_test_library *c = &cubind_test_libraries[i];
        cubind_clear_error();
        assert_int_equal(cubind_status_error(c->library, 0, c->status_missing_symbol), c->status_missing_symbol);
        assert_int_equal(cubind_last_error()->kind, CUBIND_ERROR_STATUS);
        assert_int_equal(cubind_last_error()->library, c->library);
        assert_int_equal(cubind_last_error()->status, c->status_missing_symbol);
        assert_string_equal(cubind_last_error()->status_name, c->status_missing_symbol_name);
        cubind_clear_error();
        assert_int_equal(cubind_status_error(c->library, 1u << 20, 7), 7);
        assert_int_equal(cubind_last_error()->kind, CUBIND_ERROR_INVALID_ARGUMENT);
        assert_non_null(strstr(cubind_last_error()->message, "has no function 1048576"));
    }
    cubind_clear_error();
    assert_int_equal(cubind_status_error((cubind_library)CUBIND_LIBRARY_COUNT, 0, 7), 7);
    assert_int_equal(cubind_last_error()->kind, CUBIND_ERROR_INVALID_ARGUMENT);
    cubind_clear_error();
    assert_int_equal(cubind_status_error(CUBIND_LIB_NONE, 0, 7), 7);
    assert_int_equal(cubind_last_error()->kind, CUBIND_ERROR_INVALID_ARGUMENT);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lazy),
        cmocka_unit_test(test_env_override),
        cmocka_unit_test(test_env_relative_refused),
        cmocka_unit_test(test_env_missing_no_fallback),
        cmocka_unit_test(test_api_path_first),
        cmocka_unit_test(test_api_handle),
        cmocka_unit_test(test_already_loaded),
        cmocka_unit_test(test_system_loader),
        cmocka_unit_test(test_cuda_roots),
        cmocka_unit_test(test_every_root_dir),
        cmocka_unit_test(test_library_root_dirs),
        cmocka_unit_test(test_missing_symbol),
        cmocka_unit_test(test_missing_library),
        cmocka_unit_test(test_error_handler),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_version_query_fails),
        cmocka_unit_test(test_version_too_old),
        cmocka_unit_test(test_coupled_beside),
        cmocka_unit_test(test_race_first_call),
        cmocka_unit_test(test_race_failing_library),
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_library_names),
        cmocka_unit_test(test_status_error),
    };
    int scenario = scenario_main(argc, argv, scenarios);
    if (scenario >= 0)
        return scenario;
    return cmocka_run_group_tests_name("loader", tests, NULL, NULL);
}
