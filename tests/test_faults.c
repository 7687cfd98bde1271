/*
 * tests/test_faults.c - the loader against bad input and hostile conditions, and
 * 64 threads racing the first calls.
 *
 * Faults: files that are missing, truncated, of the wrong ELF class or machine,
 * empty, a directory, a FIFO, a symbolic-link loop; relative, 5000-byte and
 * non-UTF-8 paths; libraries lacking half their symbols or failing their version
 * query; a path set after loading; an error handler and a library constructor that
 * call back into cubind; fork() after loading and while another thread loads; and
 * that failing loads do not leak. Each case checks both the status returned and the
 * error record (kind, function, status, message naming the path and the reason).
 *
 * Stress: 64 threads x CUBIND_TEST_ROUNDS (default 200) rounds race the first call of
 * 64 different wrappers over all 7 libraries; each round is a fresh process, and
 * every other round one library is a corrupt file.
 *
 * Every case runs in a fresh child process (tests/scenario.h), with an alarm as
 * watchdog where a deadlock is possible. The binary counts dlopen calls through
 * tests/loader_support.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <link.h>
#include <malloc.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cubind/cubind.h"
#include "loader_support.h"
#include "recorder.h"
#include "reentrant_constructor.h"
#include "scenario.h"

/* ---- what the scenarios share ------------------------------------------------------------------- */

/* The status the mocks return in the scenarios that set it: no library's fixed code. */
#define MOCK_STATUS 3

/* Each library's facts, from the configuration (generated/tests/library_cases.c). */
#define env_names(lib) (cubind_test_libraries[(lib)].env_var)
#define missing_library_status(lib) (cubind_test_libraries[(lib)].status_missing_library)
#define missing_library_status_name(lib) (cubind_test_libraries[(lib)].status_missing_library_name)
/* One status-returning wrapper of each library, and the C API name it records. */
#define first_function_of(lib) (cubind_test_libraries[(lib)].first_call_function)

static int first_call(cubind_library library)
{
    if (library < 0 || (size_t)library >= cubind_test_library_count)
        return -1;
    return cubind_test_libraries[library].first_call();
}

/* Does the calling thread's record say exactly this? Prints both when not. */
static int record_is(cubind_error_kind kind, cubind_library library, const char *function, int status,
                     const char *status_name)
{
    const cubind_error *e = cubind_last_error();
    const char *library_name = library == CUBIND_LIB_NONE ? "" : cubind_library_name(library);
    int ok = e->kind == kind && e->library == library && e->status == status && strcmp(e->function, function) == 0 &&
             strcmp(e->library_name, library_name) == 0 &&
             (status_name == NULL || strcmp(e->status_name, status_name) == 0);
    if (!ok)
        fprintf(stderr,
                "record: kind %d library %d (%s) function \"%s\" status %d (%s)\n"
                "  expected kind %d library %d (%s) function \"%s\" status %d (%s)\n  message: %s\n",
                (int)e->kind, (int)e->library, e->library_name, e->function, e->status, e->status_name, (int)kind,
                (int)library, library_name, function, status, status_name != NULL ? status_name : "any",
                e->message);
    return ok;
}

/* `path` as the loader shows it: bytes outside printable ASCII (and '\') as \xNN. */
static const char *escaped(const char *path)
{
    static char out[4][32768];
    static int next;
    char *o = out[next++ % 4];
    size_t n = 0;
    const unsigned char *p;
    for (p = (const unsigned char *)path; *p != '\0' && n + 5 < sizeof out[0]; ++p) {
        if (*p >= 0x20 && *p < 0x7f && *p != '\\')
            o[n++] = (char)*p;
        else
            n += (size_t)snprintf(o + n, 5, "\\x%02x", *p);
    }
    o[n] = '\0';
    return o;
}

/* Printable ASCII only: no raw byte of a path leaks into a message. */
static int printable(const char *text)
{
    const unsigned char *p;
    for (p = (const unsigned char *)text; *p != '\0'; ++p)
        if (*p < 0x20 || *p >= 0x7f) {
            fprintf(stderr, "byte 0x%02x at offset %d of: %s\n", *p, (int)(p - (const unsigned char *)text),
                    escaped(text));
            return 0;
        }
    return 1;
}

static cubind_library library_named(const char *name)
{
    cubind_library library = cubind_library_from_name(name);
    if (library == CUBIND_LIB_NONE) {
        fprintf(stderr, "no library \"%s\"\n", name != NULL ? name : "(null)");
        exit(3);
    }
    return library;
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

/* ---- one faulty file (run in a child) ------------------------------------------------------------ */

/* CUBIND_TEST_LIB's CUBIND_<LIB>_PATH is the faulty CUBIND_TEST_PATH; the load must fail with
 * CUBIND_TEST_REASON, after CUBIND_TEST_OPENS real dlopen calls, through a wrapper, cubind_load
 * and cubind_library_info alike, without falling back and without trying twice. */
static int scenario_fault(void)
{
    cubind_library library = library_named(getenv("CUBIND_TEST_LIB"));
    const char *path = must_getenv("CUBIND_TEST_PATH");
    const char *reason = must_getenv("CUBIND_TEST_REASON");
    int opens = atoi(must_getenv("CUBIND_TEST_OPENS"));
    const char *function = first_function_of(library);
    const char *name = cubind_library_name(library);
    struct cubind_library_info info = {.size = sizeof info};
    char expect[8192];

    alarm(20); /* a FIFO, say, must not block the load */
    /* a wrapper: the fixed status, and a record naming the function, the path and the reason */
    CHECK(first_call(library) == missing_library_status(library));
    CHECK(record_is(CUBIND_ERROR_LIBRARY_NOT_FOUND, library, function, missing_library_status(library),
                    missing_library_status_name(library)));
    snprintf(expect, sizeof expect, "%s: lib%s could not be loaded, so the call returns %s (%d): lib%s not found; "
             "tried: %s=%s: ", function, name, missing_library_status_name(library), missing_library_status(library),
             name, env_names(library), escaped(path));
    CHECK(contains(cubind_last_error()->message, expect));
    CHECK(contains(cubind_last_error()->message, reason));
    CHECK(printable(cubind_last_error()->message));
    /* cubind_load: the first outcome, the same record */
    cubind_clear_error();
    CHECK(cubind_load(library) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(record_is(CUBIND_ERROR_LIBRARY_NOT_FOUND, library, "cubind_load", missing_library_status(library),
                    missing_library_status_name(library)));
    snprintf(expect, sizeof expect, "lib%s could not be loaded: lib%s not found; tried: %s=%s: ", name, name,
             env_names(library), escaped(path));
    CHECK(contains(cubind_last_error()->message, expect));
    CHECK(contains(cubind_last_error()->message, reason));
    /* cubind_library_info */
    CHECK(cubind_library_info(library, &info) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(record_is(CUBIND_ERROR_LIBRARY_NOT_FOUND, library, "cubind_library_info", missing_library_status(library),
                    missing_library_status_name(library)));
    CHECK(info.found == 0 && info.path == NULL && info.soname == NULL);
    CHECK(info.functions > 0 && info.functions_missing == info.functions && info.functions_found == 0);
    CHECK(contains(info.error, escaped(path)) && contains(info.error, reason));
    /* tried once, and never anything else */
    CHECK(first_call(library) == missing_library_status(library));
    CHECK(opens_of(path) == opens);
    CHECK(opens_of(name) == opens);
    CHECK(mapped(path) == 0);
    return 0;
}

/* ---- relative paths ----------------------------------------------------------------------------------- */

/* CUBIND_CUSOLVERMG_PATH is relative, and names a real mock from the working directory. */
static int scenario_relative(void)
{
    const char *mg = mock_path("libcusolverMg.so.12");
    const cubind_error *e;
    CHECK(chdir(must_getenv("CUBIND_TEST_CHDIR")) == 0);
    CHECK(access("lib/libcusolverMg.so.12", R_OK) == 0);
    CHECK(cubind_cusolverMg_create(&(cusolverMgHandle_t){0}) == CUSOLVER_STATUS_NOT_INITIALIZED);
    CHECK(record_is(CUBIND_ERROR_LIBRARY_NOT_FOUND, CUBIND_LIB_CUSOLVERMG, "cusolverMgCreate",
                    CUSOLVER_STATUS_NOT_INITIALIZED, "CUSOLVER_STATUS_NOT_INITIALIZED"));
    e = cubind_last_error();
    CHECK(contains(e->message, "CUBIND_CUSOLVERMG_PATH=lib/libcusolverMg.so.12: refused, a relative path (cubind "
                               "loads only absolute paths, never relative to the working directory)"));
    CHECK(cubind_load(CUBIND_LIB_CUSOLVERMG) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(contains(cubind_last_error()->message, "only absolute paths"));
    CHECK(mapped("libcusolverMg") == 0 && opens_of("libcusolverMg") == 0);
    /* the API refuses one as well, for another library, before anything is tried */
    CHECK(cubind_set_library_path(CUBIND_LIB_CUSPARSE, "./libcusparse.so.12") == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(record_is(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_CUSPARSE, "cubind_set_library_path", 0, NULL));
    CHECK(contains(cubind_last_error()->message, "refused relative path \"./libcusparse.so.12\" for libcusparse: "
                                                 "cubind loads only absolute paths"));
    CHECK(cubind_set_library_path(CUBIND_LIB_CUSPARSE, "") == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(opens_of("libcusparse") == 0);
    /* after the refusal an absolute path is taken and works */
    CHECK(cubind_set_library_path(CUBIND_LIB_CUSOLVERMG, mg) == CUBIND_OK);
    cubind_mock_set_status(MOCK_STATUS);
    CHECK(cubind_cusolverMg_create(&(cusolverMgHandle_t){0}) == MOCK_STATUS);
    CHECK(record_is(CUBIND_ERROR_STATUS, CUBIND_LIB_CUSOLVERMG, "cusolverMgCreate", MOCK_STATUS, NULL));
    CHECK(opens_of(mg) == 1);
    return 0;
}

/* ---- a 5000-byte path ------------------------------------------------------------------------------- */

struct copied_record {
    int calls;
    size_t length;
    char message[CUBIND_ERROR_MESSAGE_MAX + 16];
};

static void copy_record(const cubind_error *error, void *user)
{
    struct copied_record *copy = user;
    copy->calls++;
    copy->length = strnlen(error->message, sizeof error->message);
    memcpy(copy->message, error->message, sizeof error->message);
}

static int scenario_long_path(void)
{
    const char *path = must_getenv("CUBIND_CUBLAS_PATH");
    struct copied_record seen = {0};
    struct cubind_library_info info = {.size = sizeof info};
    const cubind_error *e;
    char start[256];

    CHECK(strlen(path) == 5000);
    cubind_set_error_handler(copy_record, &seen);
    CHECK(cubind_cublas_create(&(cublasHandle_t){0}) == CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(record_is(CUBIND_ERROR_LIBRARY_NOT_FOUND, CUBIND_LIB_CUBLAS, "cublasCreate", CUBLAS_STATUS_NOT_INITIALIZED,
                    "CUBLAS_STATUS_NOT_INITIALIZED"));
    e = cubind_last_error();
    /* cut at the record's size, NUL-terminated, beginning as every such message does */
    CHECK(strnlen(e->message, sizeof e->message) == CUBIND_ERROR_MESSAGE_MAX - 1);
    CHECK(e->message[CUBIND_ERROR_MESSAGE_MAX - 1] == '\0');
    snprintf(start, sizeof start, "cublasCreate: libcublas could not be loaded, so the call returns "
             "CUBLAS_STATUS_NOT_INITIALIZED (1): libcublas not found; tried: CUBIND_CUBLAS_PATH=%.40s", path);
    CHECK(strncmp(e->message, start, strlen(start)) == 0);
    /* the handler saw the same cut record */
    CHECK(seen.calls == 1 && seen.length == CUBIND_ERROR_MESSAGE_MAX - 1);
    CHECK(strcmp(seen.message, e->message) == 0);
    /* the whole story is in cubind_library_info: the full path and the system's reason */
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(strlen(info.error) > 5000);
    CHECK(contains(info.error, path));
    CHECK(contains(info.error, "File name too long"));
    /* the same through the API, for another library */
    CHECK(cubind_set_library_path(CUBIND_LIB_CUFFT, path) == CUBIND_OK);
    CHECK(cubind_load(CUBIND_LIB_CUFFT) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(record_is(CUBIND_ERROR_LIBRARY_NOT_FOUND, CUBIND_LIB_CUFFT, "cubind_load", CUFFT_SETUP_FAILED,
                    "CUFFT_SETUP_FAILED"));
    CHECK(strnlen(cubind_last_error()->message, CUBIND_ERROR_MESSAGE_MAX) == CUBIND_ERROR_MESSAGE_MAX - 1);
    CHECK(contains(cubind_last_error()->message, "cubind_set_library_path: /"));
    CHECK(cubind_library_info(CUBIND_LIB_CUFFT, &info) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(contains(info.error, path) && contains(info.error, "File name too long"));
    CHECK(seen.calls == 4);
    CHECK(opens_of("libcu") == 0);
    return 0;
}

/* ---- non-UTF-8 bytes in a path ---------------------------------------------------------------------- */

/* CUBIND_CURAND_PATH: a half mock in a directory named "\xff\xfe"; CUBIND_CUFFT_PATH: absent there. */
static int scenario_non_utf8(void)
{
    const char *curand = must_getenv("CUBIND_CURAND_PATH");
    const char *cufft = must_getenv("CUBIND_CUFFT_PATH");
    struct cubind_library_info info = {.size = sizeof info};
    char expect[8192];

    CHECK(strstr(curand, "/\xff\xfe/") != NULL && strstr(cufft, "/\xff\xfe/") != NULL);
    /* not found: the path escaped, never raw */
    CHECK(cubind_cufft_create(&(cufftHandle){0}) == CUFFT_SETUP_FAILED);
    CHECK(record_is(CUBIND_ERROR_LIBRARY_NOT_FOUND, CUBIND_LIB_CUFFT, "cufftCreate", CUFFT_SETUP_FAILED,
                    "CUFFT_SETUP_FAILED"));
    CHECK(contains(cubind_last_error()->message, "/\\xff\\xfe/absent/libcufft.so.12: No such file or directory"));
    CHECK(contains(cubind_last_error()->message, escaped(cufft)));
    CHECK(printable(cubind_last_error()->message));
    CHECK(cubind_library_info(CUBIND_LIB_CUFFT, &info) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(contains(info.error, "\\xff\\xfe") && printable(info.error));
    /* found: loaded from the raw path, which info gives back unchanged */
    cubind_mock_set_status(MOCK_STATUS);
    CHECK(cubind_curand_create_generator(&(curandGenerator_t){0}, CURAND_RNG_PSEUDO_DEFAULT) == MOCK_STATUS);
    CHECK(cubind_library_info(CUBIND_LIB_CURAND, &info) == CUBIND_OK);
    CHECK(same(info.path, curand));
    CHECK(same(info.found_by, "CUBIND_CURAND_PATH"));
    /* a symbol the half mock lacks: the library's path escaped in the message */
    CHECK(cubind_curand_create_generator_host(&(curandGenerator_t){0}, CURAND_RNG_PSEUDO_DEFAULT) ==
          CURAND_STATUS_VERSION_MISMATCH);
    CHECK(record_is(CUBIND_ERROR_SYMBOL_NOT_FOUND, CUBIND_LIB_CURAND, "curandCreateGeneratorHost",
                    CURAND_STATUS_VERSION_MISMATCH, "CURAND_STATUS_VERSION_MISMATCH"));
    snprintf(expect, sizeof expect, "symbol curandCreateGeneratorHost not found in %s (libcurand version 77.1.2)",
             escaped(curand));
    CHECK(contains(cubind_last_error()->message, expect));
    CHECK(contains(cubind_last_error()->message, "\\xff\\xfe"));
    CHECK(printable(cubind_last_error()->message));
    /* a path set too late: the loaded path escaped */
    CHECK(cubind_set_library_path(CUBIND_LIB_CURAND, "/tmp/\xc3\x28") == CUBIND_ERROR_ALREADY_LOADED);
    CHECK(record_is(CUBIND_ERROR_ALREADY_LOADED, CUBIND_LIB_CURAND, "cubind_set_library_path", 0, NULL));
    CHECK(contains(cubind_last_error()->message, escaped(curand)));
    CHECK(printable(cubind_last_error()->message));
    /* a relative path with such bytes: quoted escaped */
    CHECK(cubind_set_library_path(CUBIND_LIB_CUSPARSE, "\xff/lib") == CUBIND_ERROR_INVALID_ARGUMENT);
    CHECK(contains(cubind_last_error()->message, "\"\\xff/lib\""));
    CHECK(printable(cubind_last_error()->message));
    return 0;
}

/* ---- half the symbols ----------------------------------------------------------------------------- */

struct name_list {
    char **names;
    size_t count;
};

static void free_names(struct name_list *list)
{
    size_t i;
    for (i = 0; i < list->count; ++i)
        free(list->names[i]);
    free(list->names);
    list->names = NULL;
    list->count = 0;
}

/* The functions an ELF file itself defines and exports (its .dynsym), read from the file:
 * nothing of cubind's tables. Only names starting with "cu" (sanitizer builds add others). */
static int exported_functions(const char *path, struct name_list *out)
{
    FILE *file = fopen(path, "rb");
    unsigned char *data = NULL;
    long size;
    const ElfW(Ehdr) *eh;
    const ElfW(Shdr) *sh;
    int i, result = -1;

    out->names = NULL;
    out->count = 0;
    if (file == NULL || fseek(file, 0, SEEK_END) != 0 || (size = ftell(file)) <= 0 || fseek(file, 0, SEEK_SET) != 0)
        goto done;
    data = malloc((size_t)size);
    if (data == NULL || fread(data, 1, (size_t)size, file) != (size_t)size)
        goto done;
    eh = (const ElfW(Ehdr) *)data;
    if ((size_t)size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof *sh > (size_t)size)
        goto done;
    sh = (const ElfW(Shdr) *)(data + eh->e_shoff);
    for (i = 0; i < eh->e_shnum; ++i) {
        const ElfW(Sym) *sym;
        const char *strtab;
        size_t n, j;
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
            continue;
        sym = (const ElfW(Sym) *)(data + sh[i].sh_offset);
        strtab = (const char *)data + sh[sh[i].sh_link].sh_offset;
        n = sh[i].sh_size / sizeof *sym;
        out->names = calloc(n, sizeof *out->names);
        if (out->names == NULL)
            goto done;
        for (j = 0; j < n; ++j) {
            const char *name = strtab + sym[j].st_name;
            if ((sym[j].st_info & 0xf) == STT_FUNC && sym[j].st_shndx != SHN_UNDEF &&
                (sym[j].st_info >> 4) != STB_LOCAL && strcmp(name, "_init") != 0 && strcmp(name, "_fini") != 0)
                out->names[out->count++] = strdup(name);
        }
        result = 0;
        break;
    }
done:
    free(data);
    if (file != NULL)
        fclose(file);
    return result;
}

/* Checks of one library on its half mock: cubind_library_info's missing list is exactly
 * what the full mock exports and the half mock does not (asked with dlsym). */
static int check_half(cubind_library library, const char *soname)
{
    struct cubind_library_info info = {.size = sizeof info};
    struct name_list all;
    char *lacking;
    void *half;
    size_t i, j, expected_missing = 0;

    CHECK(cubind_library_info(library, &info) == CUBIND_OK);
    CHECK(same(info.path, half_mock(soname)));
    CHECK(exported_functions(mock_path(soname), &all) == 0);
    half = uncounted_dlopen(half_mock(soname), RTLD_NOW | RTLD_NOLOAD); /* the very object cubind loaded */
    CHECK(half != NULL);
    lacking = calloc(all.count + 1, 1);
    CHECK(lacking != NULL);
    for (i = 0; i < all.count; ++i) {
        lacking[i] = dlsym(half, all.names[i]) == NULL;
        expected_missing += (size_t)lacking[i];
        /* cubind agrees, symbol by symbol */
        if (cubind_function_available(all.names[i]) != !lacking[i]) {
            fprintf(stderr, "%s: cubind_function_available says %d\n", all.names[i], !lacking[i]);
            return 1;
        }
    }
    if (!(expected_missing > 0 && expected_missing < all.count))
        fprintf(stderr, "%s: %zu of %zu symbols missing\n", soname, expected_missing, all.count);
    CHECK(expected_missing > 0 && expected_missing < all.count);
    CHECK(info.functions == all.count);
    CHECK(info.functions_missing == expected_missing);
    CHECK(info.functions_found == all.count - expected_missing);
    /* each missing C API name is unavailable and listed once (their count is that of the lacking
     * symbols, checked above; the symbol of a name is the header's choice: NAME_v2, NAME_v4, ...) */
    for (i = 0; i < info.functions_missing; ++i) {
        if (cubind_function_available(info.missing[i]) != 0) {
            fprintf(stderr, "%s: listed missing from %s but available\n", info.missing[i], soname);
            return 1;
        }
        for (j = 0; j < i; ++j)
            CHECK(strcmp(info.missing[i], info.missing[j]) != 0);
    }
    free(lacking);
    free_names(&all);
    return 0;
}

/* A wrapper whose symbol is there returns the mock's status; one whose symbol is not returns the
 * library's fixed code with a record naming symbol, path and version. */
static int check_missing_call(int result, cubind_library library, const char *function, const char *symbol,
                              int status, const char *status_name, const char *soname, const char *version)
{
    char expect[4096];
    CHECK(result == status);
    CHECK(record_is(CUBIND_ERROR_SYMBOL_NOT_FOUND, library, function, status, status_name));
    snprintf(expect, sizeof expect, "%s: symbol %s not found in %s (lib%s version %s), so the call returns %s (%d)",
             function, symbol, half_mock(soname), cubind_library_name(library), version, status_name, status);
    CHECK(contains(cubind_last_error()->message, expect));
    return 0;
}

#define CHECK_PRESENT(call, library, function)                                                               \
    do {                                                                                                       \
        CHECK((int)(call) == MOCK_STATUS);                                                                     \
        CHECK(record_is(CUBIND_ERROR_STATUS, library, function, MOCK_STATUS, NULL));                          \
    } while (0)

#define CHECK_MISSING(call, library, function, symbol, status, soname, version)                              \
    CHECK(check_missing_call((int)(call), library, function, symbol, status, #status, soname, version) == 0)

static int scenario_half(void)
{
    int lib;
    cubind_mock_set_status(MOCK_STATUS);
    CHECK_PRESENT(cubind_cublas_create(&(cublasHandle_t){0}), CUBIND_LIB_CUBLAS, "cublasCreate");
    CHECK_MISSING(cubind_cublas_destroy(NULL), CUBIND_LIB_CUBLAS, "cublasDestroy", "cublasDestroy_v2",
                  CUBLAS_STATUS_NOT_SUPPORTED, "libcublas.so.13", "77.1.2");
    CHECK_PRESENT(cubind_cublas_set_stream(NULL, NULL), CUBIND_LIB_CUBLAS, "cublasSetStream");
    CHECK_MISSING(cubind_cublas_get_stream(NULL, NULL), CUBIND_LIB_CUBLAS, "cublasGetStream", "cublasGetStream_v2",
                  CUBLAS_STATUS_NOT_SUPPORTED, "libcublas.so.13", "77.1.2");
    CHECK_PRESENT(cubind_cublasLt_create(&(cublasLtHandle_t){0}), CUBIND_LIB_CUBLASLT, "cublasLtCreate");
    CHECK_MISSING(cubind_cublasLt_destroy(NULL), CUBIND_LIB_CUBLASLT, "cublasLtDestroy", "cublasLtDestroy",
                  CUBLAS_STATUS_NOT_SUPPORTED, "libcublasLt.so.13", "77.1.2");
    CHECK_PRESENT(cubind_cufft_plan1d(&(cufftHandle){0}, 8, CUFFT_C2C, 1), CUBIND_LIB_CUFFT, "cufftPlan1d");
    CHECK_MISSING(cubind_cufft_plan2d(&(cufftHandle){0}, 8, 8, CUFFT_C2C), CUBIND_LIB_CUFFT, "cufftPlan2d",
                  "cufftPlan2d", CUFFT_NOT_SUPPORTED, "libcufft.so.12", "77.1.2");
    CHECK_PRESENT(cubind_curand_create_generator(&(curandGenerator_t){0}, CURAND_RNG_PSEUDO_DEFAULT),
                  CUBIND_LIB_CURAND, "curandCreateGenerator");
    CHECK_MISSING(cubind_curand_get_version(&(int){0}), CUBIND_LIB_CURAND, "curandGetVersion", "curandGetVersion",
                  CURAND_STATUS_VERSION_MISMATCH, "libcurand.so.10", "77.1.2");
    CHECK_PRESENT(cubind_cusolverDn_create(&(cusolverDnHandle_t){0}), CUBIND_LIB_CUSOLVER, "cusolverDnCreate");
    CHECK_MISSING(cubind_cusolverDn_destroy(NULL), CUBIND_LIB_CUSOLVER, "cusolverDnDestroy", "cusolverDnDestroy",
                  CUSOLVER_STATUS_NOT_SUPPORTED, "libcusolver.so.12", "77.1.2");
    CHECK_MISSING(cubind_cusolver_get_version(&(int){0}), CUBIND_LIB_CUSOLVER, "cusolverGetVersion",
                  "cusolverGetVersion", CUSOLVER_STATUS_NOT_SUPPORTED, "libcusolver.so.12", "77.1.2");
    CHECK_PRESENT(cubind_cusolverMg_create(&(cusolverMgHandle_t){0}), CUBIND_LIB_CUSOLVERMG, "cusolverMgCreate");
    CHECK_MISSING(cubind_cusolverMg_destroy(NULL), CUBIND_LIB_CUSOLVERMG, "cusolverMgDestroy", "cusolverMgDestroy",
                  CUSOLVER_STATUS_NOT_SUPPORTED, "libcusolverMg.so.12", "12");
    CHECK_PRESENT(cubind_cusparse_create(&(cusparseHandle_t){0}), CUBIND_LIB_CUSPARSE, "cusparseCreate");
    CHECK_MISSING(cubind_cusparse_destroy(NULL), CUBIND_LIB_CUSPARSE, "cusparseDestroy", "cusparseDestroy",
                  CUSPARSE_STATUS_NOT_SUPPORTED, "libcusparse.so.12", "77.1.2");
    /* a wrapper returning a string: the text libraries.toml's no_status decides (never NULL), and the
     * same kind of record */
    cubind_clear_error();
    CHECK(contains(cubind_cusparse_get_error_string(CUSPARSE_STATUS_SUCCESS), "cubind_last_error() says why"));
    CHECK(record_is(CUBIND_ERROR_SYMBOL_NOT_FOUND, CUBIND_LIB_CUSPARSE, "cusparseGetErrorString",
                    CUSPARSE_STATUS_NOT_SUPPORTED, "CUSPARSE_STATUS_NOT_SUPPORTED"));
    /* a missing symbol is not cached as found, a present one stays found */
    CHECK_MISSING(cubind_cublas_destroy(NULL), CUBIND_LIB_CUBLAS, "cublasDestroy", "cublasDestroy_v2",
                  CUBLAS_STATUS_NOT_SUPPORTED, "libcublas.so.13", "77.1.2");
    CHECK_PRESENT(cubind_cublas_create(&(cublasHandle_t){0}), CUBIND_LIB_CUBLAS, "cublasCreate");
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib)
        CHECK(check_half((cubind_library)lib, mock_sonames_of(lib)) == 0);
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib)
        CHECK(opens_of(half_mock(mock_sonames_of(lib))) == 1);
    return 0;
}

/* ---- version queries that fail ------------------------------------------------------------------------ */

/* CUBIND_MOCK_VERSION_STATUS=7 for every library; libcufft is a half mock. */
static int scenario_version_fails(void)
{
    static const struct {
        cubind_library library;
        const char *source;
    } expected[] = {
        {CUBIND_LIB_CUBLAS, "cublasGetProperty failed with CUBLAS_STATUS_INVALID_VALUE (7)"},
        {CUBIND_LIB_CUBLASLT, "cublasLtGetProperty failed with CUBLAS_STATUS_INVALID_VALUE (7)"},
        {CUBIND_LIB_CUFFT, "cufftGetProperty failed with CUFFT_SETUP_FAILED (7)"},
        {CUBIND_LIB_CURAND, "curandGetProperty failed with an unknown status (7)"},
        {CUBIND_LIB_CUSOLVER, "cusolverGetProperty failed with CUSOLVER_STATUS_INTERNAL_ERROR (7)"},
        {CUBIND_LIB_CUSPARSE, "cusparseGetProperty failed with CUSPARSE_STATUS_INTERNAL_ERROR (7)"},
    };
    struct cubind_library_info info = {.size = sizeof info};
    size_t i;
    for (i = 0; i < sizeof expected / sizeof expected[0]; ++i) {
        /* loading succeeds and records nothing; the version is the file name's (the major), and
         * its source says why the query did not give it */
        cubind_clear_error();
        CHECK(cubind_load(expected[i].library) == CUBIND_OK);
        CHECK(cubind_last_error()->kind == CUBIND_OK);
        CHECK(cubind_library_info(expected[i].library, &info) == CUBIND_OK);
        CHECK(info.found == 1 && info.error == NULL);
        CHECK(info.version_major == atoi(strstr(strrchr(info.real_path, '/'), ".so.") + 4));
        CHECK(info.version_minor == -1 && info.version_patch == -1);
        CHECK(contains(info.version_source, expected[i].source));
        CHECK(contains(info.version_source, "file name "));
    }
    /* libcusolverMg has no query: its file name still gives the major version */
    CHECK(cubind_library_info(CUBIND_LIB_CUSOLVERMG, &info) == CUBIND_OK);
    CHECK(info.version_major == 12 && info.version_minor == -1);
    /* the wrappers work; a missing symbol's message gives the version the file name told */
    cubind_mock_set_status(MOCK_STATUS);
    CHECK_PRESENT(cubind_cusparse_create(&(cusparseHandle_t){0}), CUBIND_LIB_CUSPARSE, "cusparseCreate");
    CHECK_PRESENT(cubind_cufft_plan1d(&(cufftHandle){0}, 8, CUFFT_C2C, 1), CUBIND_LIB_CUFFT, "cufftPlan1d");
    CHECK_MISSING(cubind_cufft_plan2d(&(cufftHandle){0}, 8, 8, CUFFT_C2C), CUBIND_LIB_CUFFT, "cufftPlan2d",
                  "cufftPlan2d", CUFFT_NOT_SUPPORTED, "libcufft.so.12", "12");
    return 0;
}

/* ---- a path set after loading ---------------------------------------------------------------------- */

static int scenario_set_after_load(void)
{
    const char *path = mock_path("libcusparse.so.12");
    struct cubind_library_info info = {.size = sizeof info};
    char expect[8192];
    void *other = uncounted_dlopen(half_mock("libcusparse.so.12"), RTLD_NOW | RTLD_LOCAL); /* a valid handle */

    CHECK(other != NULL);
    cubind_mock_set_status(CUSPARSE_STATUS_SUCCESS);
    CHECK(cubind_cusparse_create(&(cusparseHandle_t){0}) == CUSPARSE_STATUS_SUCCESS); /* loaded by a first call */
    snprintf(expect, sizeof expect, "cubind_set_library_path: libcusparse is already loaded from %s; a path or "
             "handle must be set before its first use", path);
    CHECK(cubind_set_library_path(CUBIND_LIB_CUSPARSE, half_mock("libcusparse.so.12")) == CUBIND_ERROR_ALREADY_LOADED);
    CHECK(record_is(CUBIND_ERROR_ALREADY_LOADED, CUBIND_LIB_CUSPARSE, "cubind_set_library_path", 0, NULL));
    CHECK(contains(cubind_last_error()->message, expect));
    CHECK(cubind_set_library_path(CUBIND_LIB_CUSPARSE, NULL) == CUBIND_ERROR_ALREADY_LOADED);
    CHECK(contains(cubind_last_error()->message, expect));
    CHECK(cubind_set_library_handle(CUBIND_LIB_CUSPARSE, other) == CUBIND_ERROR_ALREADY_LOADED);
    CHECK(record_is(CUBIND_ERROR_ALREADY_LOADED, CUBIND_LIB_CUSPARSE, "cubind_set_library_handle", 0, NULL));
    CHECK(contains(cubind_last_error()->message, "libcusparse is already loaded from"));
    /* the library keeps working, from where it was */
    cubind_mock_set_status(MOCK_STATUS);
    CHECK_PRESENT(cubind_cusparse_destroy(NULL), CUBIND_LIB_CUSPARSE, "cusparseDestroy");
    CHECK(cubind_library_info(CUBIND_LIB_CUSPARSE, &info) == CUBIND_OK);
    CHECK(same(info.path, path) && same(info.found_by, "CUBIND_CUSPARSE_PATH") && info.functions_missing == 0);
    CHECK(opens_of("libcusparse") == 1);
    /* the same after cubind_load */
    CHECK(cubind_load(CUBIND_LIB_CUFFT) == CUBIND_OK);
    CHECK(cubind_set_library_path(CUBIND_LIB_CUFFT, "/nonexistent/libcufft.so.12") == CUBIND_ERROR_ALREADY_LOADED);
    CHECK(record_is(CUBIND_ERROR_ALREADY_LOADED, CUBIND_LIB_CUFFT, "cubind_set_library_path", 0, NULL));
    CHECK_PRESENT(cubind_cufft_create(&(cufftHandle){0}), CUBIND_LIB_CUFFT, "cufftCreate");
    return 0;
}

/* ---- an error handler calling back into cubind ------------------------------------------------------ */

struct reentry_log {
    atomic_int calls;
    atomic_int nested;    /* calls while already in the handler on this thread: must stay 0 */
    atomic_int failures;  /* inner calls that did not return what they should */
    cubind_error_kind first_kind;
    int first_status;
    char first_function[64];
    char first_message[512];
};

static _Thread_local int in_reentry_handler;

#define EXPECT_INNER(cond)                                                                                    \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fprintf(stderr, "%s:%d: in the handler: %s\n", __FILE__, __LINE__, #cond);                        \
            atomic_fetch_add(&log->failures, 1);                                                               \
        }                                                                                                      \
    } while (0)

static void reentry_handler(const cubind_error *error, void *user)
{
    struct reentry_log *log = user;
    struct cubind_library_info info = {.size = sizeof info};
    cubind_error_kind set, kind = error->kind;
    char function[128], message[512];
    if (in_reentry_handler) {
        atomic_fetch_add(&log->nested, 1);
        return;
    }
    in_reentry_handler = 1;
    snprintf(function, sizeof function, "%s", error->function);
    snprintf(message, sizeof message, "%.*s", (int)sizeof message - 1, error->message);
    if (atomic_fetch_add(&log->calls, 1) == 0) {
        log->first_kind = error->kind;
        log->first_status = error->status;
        snprintf(log->first_function, sizeof log->first_function, "%s", error->function);
        snprintf(log->first_message, sizeof log->first_message, "%.*s", (int)sizeof log->first_message - 1,
                 error->message);
    }
    /* load another library, describe both, call both, change the handler: no deadlock */
    EXPECT_INNER(cubind_load(CUBIND_LIB_CUFFT) == CUBIND_OK);
    EXPECT_INNER(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    EXPECT_INNER(info.error != NULL && strstr(info.error, "/nonexistent/libcublas.so.13") != NULL);
    EXPECT_INNER(cubind_last_error()->kind == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    EXPECT_INNER(cubind_library_info(CUBIND_LIB_CUFFT, &info) == CUBIND_OK && info.found == 1);
    EXPECT_INNER(cubind_cufft_create(&(cufftHandle){0}) == MOCK_STATUS);
    EXPECT_INNER(strcmp(cubind_last_error()->function, "cufftCreate") == 0);
    EXPECT_INNER(cubind_cublas_create(&(cublasHandle_t){0}) == CUBLAS_STATUS_NOT_INITIALIZED);
    EXPECT_INNER(cubind_load(CUBIND_LIB_CUBLAS) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    EXPECT_INNER(cubind_function_available("cufftCreate") == 1);
    EXPECT_INNER(cubind_function_available("cublasCreate") == 0);
    set = cubind_set_library_path(CUBIND_LIB_CUSPARSE, mock_path("libcusparse.so.12"));
    EXPECT_INNER(set == CUBIND_OK || set == CUBIND_ERROR_ALREADY_LOADED);
    EXPECT_INNER(cubind_cusparse_create(&(cusparseHandle_t){0}) == MOCK_STATUS);
    EXPECT_INNER(cubind_last_error()->kind == CUBIND_ERROR_STATUS && cubind_last_error() != error);
    /* the errors it caused went elsewhere: the handler's record is as it was given */
    EXPECT_INNER(error->kind == kind && strcmp(error->function, function) == 0 &&
                 strncmp(error->message, message, sizeof message - 1) == 0);
    cubind_set_error_handler(reentry_handler, user);
    cubind_clear_error();
    in_reentry_handler = 0;
}

static void *call_missing_cublas(void *arg)
{
    int *result = arg;
    *result = cubind_cublas_create(&(cublasHandle_t){0});
    return NULL;
}

static int scenario_handler_reentry(void)
{
    struct reentry_log log = {0};
    pthread_t threads[8];
    int results[8], i;

    alarm(20);
    cubind_mock_set_status(MOCK_STATUS);
    cubind_set_error_handler(reentry_handler, &log);
    CHECK(cubind_cublas_create(&(cublasHandle_t){0}) == CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(atomic_load(&log.calls) == 1 && atomic_load(&log.nested) == 0 && atomic_load(&log.failures) == 0);
    CHECK(log.first_kind == CUBIND_ERROR_LIBRARY_NOT_FOUND && log.first_status == CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(same(log.first_function, "cublasCreate"));
    CHECK(contains(log.first_message, "CUBIND_CUBLAS_PATH=/nonexistent/libcublas.so.13: No such file or directory"));
    /* the handler cleared the record last */
    CHECK(cubind_last_error()->kind == CUBIND_OK);
    /* a status error reaches it too */
    CHECK(cubind_cufft_plan1d(&(cufftHandle){0}, 8, CUFFT_C2C, 1) == MOCK_STATUS);
    CHECK(atomic_load(&log.calls) == 2 && atomic_load(&log.failures) == 0);
    /* eight threads at once, each in the handler calling back */
    for (i = 0; i < 8; ++i)
        CHECK(pthread_create(&threads[i], NULL, call_missing_cublas, &results[i]) == 0);
    for (i = 0; i < 8; ++i) {
        pthread_join(threads[i], NULL);
        CHECK(results[i] == CUBLAS_STATUS_NOT_INITIALIZED);
    }
    CHECK(atomic_load(&log.calls) == 10 && atomic_load(&log.nested) == 0 && atomic_load(&log.failures) == 0);
    CHECK(opens_of("libcufft") == 1 && opens_of("libcusparse") == 1 && opens_of("libcublas") == 0);
    return 0;
}

/* ---- a library constructor calling cubind ------------------------------------------------------------- */

static int reentrant_call_is(const struct reentrant_call *call, int result, int kind, int status, const char *function,
                             const char *fragment)
{
    int ok = call->result == result && call->kind == kind && call->status == status &&
             strcmp(call->function, function) == 0 && (fragment == NULL || strstr(call->message, fragment) != NULL);
    if (!ok)
        fprintf(stderr, "in the constructor: result %d kind %d status %d function \"%s\": %s\n"
                        "  expected result %d kind %d status %d function \"%s\" and \"%s\"\n",
                call->result, call->kind, call->status, call->function, call->message, result, kind, status, function,
                fragment != NULL ? fragment : "");
    return ok;
}

static int scenario_reentrant_constructor(void)
{
    const char *path = must_getenv("CUBIND_CUBLAS_PATH");
    const char *reentry = "it is being loaded by this very thread (a call from inside its dlopen, such as a library "
                          "constructor); call again once loading has finished";
    struct cubind_library_info info = {.size = sizeof info};
    const struct reentrant_report *r;
    void *handle, *symbol;

    alarm(20);
    cubind_mock_set_status(MOCK_STATUS);
    /* the first call loads the mock; its constructor calls cubind meanwhile */
    CHECK(cubind_cublas_get_version(NULL, &(int){0}) == MOCK_STATUS);
    CHECK(record_is(CUBIND_ERROR_STATUS, CUBIND_LIB_CUBLAS, "cublasGetVersion", MOCK_STATUS, NULL));
    handle = uncounted_dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    CHECK(handle != NULL);
    symbol = dlsym(handle, "cubind_test_reentrant");
    CHECK(symbol != NULL);
    r = symbol;
    CHECK(r->ran == 1 && r->done == 1);
    /* the library's own call into itself while it is being loaded (from its constructor): its own
     * definition, the mock's, at once; what cubind itself is asked about the library is refused */
    CHECK(reentrant_call_is(&r->cublas_create, MOCK_STATUS, CUBIND_ERROR_STATUS, MOCK_STATUS, "cublasCreate", NULL));
    CHECK(contains(r->cublas_create.message, "cublasCreate returned CUBLAS_STATUS_ALLOC_FAILED (3)"));
    CHECK(r->cublas_seconds < 1.0);
    CHECK(reentrant_call_is(&r->cublas_load, CUBIND_ERROR_LIBRARY_NOT_FOUND, CUBIND_ERROR_LIBRARY_NOT_FOUND,
                            CUBLAS_STATUS_NOT_INITIALIZED, "cubind_load", reentry));
    CHECK(reentrant_call_is(&r->cublas_info, CUBIND_ERROR_LIBRARY_NOT_FOUND, CUBIND_ERROR_LIBRARY_NOT_FOUND,
                            CUBLAS_STATUS_NOT_INITIALIZED, "cubind_library_info", reentry));
    CHECK(r->cublas_info_found == 0);
    CHECK(reentrant_call_is(&r->cublas_set_path, CUBIND_ERROR_ALREADY_LOADED, CUBIND_ERROR_ALREADY_LOADED, 0,
                            "cubind_set_library_path", "libcublas is already loaded from (loading)"));
    CHECK(r->cublas_available == 0);
    /* another library loads fine from inside the constructor */
    CHECK(reentrant_call_is(&r->cufft_create, MOCK_STATUS, CUBIND_ERROR_STATUS, MOCK_STATUS, "cufftCreate", NULL));
    CHECK(reentrant_call_is(&r->cufft_info, CUBIND_OK, CUBIND_OK, 0, "", NULL));
    CHECK(r->cufft_info_found == 1);
    /* neither the definition nor the refusal was cached: cuBLAS works now, loaded once */
    CHECK_PRESENT(cubind_cublas_create(&(cublasHandle_t){0}), CUBIND_LIB_CUBLAS, "cublasCreate");
    CHECK(cubind_function_available("cublasCreate") == 1);
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &info) == CUBIND_OK);
    CHECK(same(info.path, path) && same(info.found_by, "CUBIND_CUBLAS_PATH"));
    CHECK(info.version_major == 77);
    CHECK(opens_of(path) == 1);
    CHECK(opens_of("libcufft") == 1);
    CHECK_PRESENT(cubind_cufft_plan1d(&(cufftHandle){0}, 8, CUFFT_C2C, 1), CUBIND_LIB_CUFFT, "cufftPlan1d");
    return 0;
}

/* ---- fork ---------------------------------------------------------------------------------------------- */

/* What a forked child checks: the libraries loaded before still work (first calls of new
 * functions included), a library not loaded before loads, and introspection answers. */
static int forked_child_checks(cubind_library loaded, cubind_library fresh)
{
    struct cubind_library_info info = {.size = sizeof info};
    alarm(20);
    CHECK(first_call(loaded) == MOCK_STATUS);
    CHECK(cubind_library_info(loaded, &info) == CUBIND_OK && info.found == 1);
    CHECK(opens_of(mock_sonames_of(loaded)) == 1);
    CHECK(cubind_load(fresh) == CUBIND_OK);
    CHECK(first_call(fresh) == MOCK_STATUS);
    CHECK(record_is(CUBIND_ERROR_STATUS, fresh, first_function_of(fresh), MOCK_STATUS, NULL));
    CHECK(cubind_library_info(fresh, &info) == CUBIND_OK && info.found == 1);
    CHECK(cubind_set_library_path(fresh, "/elsewhere/lib.so") == CUBIND_ERROR_ALREADY_LOADED);
    return 0;
}

static int wait_child(pid_t pid)
{
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    if (WIFSIGNALED(status))
        fprintf(stderr, "forked child killed by signal %d%s\n", WTERMSIG(status),
                WTERMSIG(status) == SIGALRM ? " (the watchdog: a deadlock)" : "");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int scenario_fork_after_load(void)
{
    pid_t pid;
    alarm(30);
    cubind_mock_set_status(MOCK_STATUS);
    CHECK(first_call(CUBIND_LIB_CUBLAS) == MOCK_STATUS);
    CHECK(cubind_library_info(CUBIND_LIB_CUBLAS, &(struct cubind_library_info){.size = sizeof(struct cubind_library_info)}) == CUBIND_OK);
    CHECK(cubind_load(CUBIND_LIB_CURAND) == CUBIND_OK);
    fflush(NULL);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int rc = forked_child_checks(CUBIND_LIB_CUBLAS, CUBIND_LIB_CUFFT);
        if (rc == 0)
            rc = cubind_cublas_get_stream(NULL, NULL) == MOCK_STATUS ? 0 : 1; /* a first call after fork */
        fflush(NULL);
        _exit(rc);
    }
    CHECK(wait_child(pid) == 0);
    /* the parent after the child: as before, and libcufft still to be loaded here */
    CHECK(first_call(CUBIND_LIB_CUBLAS) == MOCK_STATUS);
    CHECK(first_call(CUBIND_LIB_CURAND) == MOCK_STATUS);
    CHECK(opens_of("libcufft") == 0);
    CHECK(first_call(CUBIND_LIB_CUFFT) == MOCK_STATUS);
    CHECK(cubind_load(CUBIND_LIB_CUSPARSE) == CUBIND_OK);
    CHECK(opens_of("libcufft") == 1 && opens_of("libcublas") == 1);
    return 0;
}

struct fork_race {
    int pipe[2];
    int loader_result;
    int child_status;
    double fork_seconds;
};

static void *load_slow_cufft(void *arg)
{
    struct fork_race *race = arg;
    race->loader_result = first_call(CUBIND_LIB_CUFFT);
    return NULL;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *fork_while_loading(void *arg)
{
    struct fork_race *race = arg;
    char byte;
    double start;
    pid_t pid;
    if (read(race->pipe[0], &byte, 1) != 1) /* the slow constructor has started */
        return NULL;
    start = seconds_now();
    pid = fork();
    if (pid == 0) {
        int rc = forked_child_checks(CUBIND_LIB_CUFFT, CUBIND_LIB_CUBLAS);
        fflush(NULL);
        _exit(rc);
    }
    race->fork_seconds = seconds_now() - start;
    race->child_status = pid < 0 ? -1 : wait_child(pid);
    return NULL;
}

/* CUBIND_CUFFT_PATH is a mock whose constructor sleeps; fork() from a second thread meanwhile. */
static int scenario_fork_while_loading(void)
{
    struct fork_race race = {{-1, -1}, -1, -1, 0};
    pthread_t loader, forker;
    char fd[16];

    alarm(30);
    CHECK(pipe(race.pipe) == 0);
    snprintf(fd, sizeof fd, "%d", race.pipe[1]);
    CHECK(setenv("CUBIND_TEST_SLOW_FD", fd, 1) == 0); /* before any thread */
    cubind_mock_set_status(MOCK_STATUS);
    CHECK(first_call(CUBIND_LIB_CURAND) == MOCK_STATUS); /* the loader's fork handlers are in place */
    CHECK(pthread_create(&forker, NULL, fork_while_loading, &race) == 0);
    CHECK(pthread_create(&loader, NULL, load_slow_cufft, &race) == 0);
    pthread_join(loader, NULL);
    pthread_join(forker, NULL);
    CHECK(race.loader_result == MOCK_STATUS);
    CHECK(race.child_status == 0);
    /* fork() waited for the load in flight: the child found libcufft loaded (checked there) */
    CHECK(race.fork_seconds > 0.05);
    CHECK(opens_of("libcufft") == 1);
    CHECK(first_call(CUBIND_LIB_CUBLAS) == MOCK_STATUS);
    return 0;
}

/* ---- failing loads do not grow the process ------------------------------------------------------------- */

static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    if (statm == NULL)
        return -1;
    if (fscanf(statm, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    fclose(statm);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void fail_loads(int rounds, const char *missing)
{
    struct cubind_library_info info = {.size = sizeof info};
    int i;
    for (i = 0; i < rounds; ++i) {
        (void)cubind_load(CUBIND_LIB_CUBLAS); /* the first outcome, cached */
        (void)cubind_cublas_create(&(cublasHandle_t){0});
        (void)cubind_library_info(CUBIND_LIB_CUBLAS, &info);
        (void)cubind_function_available("cublasSgemm");
        (void)cubind_set_library_path(CUBIND_LIB_CUFFT, "relative/libcufft.so.12"); /* refused */
        (void)cubind_set_library_path(CUBIND_LIB_CURAND, missing); /* accepted: tried again */
        (void)cubind_load(CUBIND_LIB_CURAND);
        (void)cubind_curand_create_generator(&(curandGenerator_t){0}, CURAND_RNG_PSEUDO_DEFAULT);
    }
}

/* Run with glibc's tcache off, so that mallinfo2 counts exactly the bytes in use. */
static int scenario_no_leak(void)
{
    struct mallinfo2 before, after;
    long rss_before, rss_after;
    const char *missing = "/nonexistent/libcurand.so.10";

    CHECK(cubind_load(CUBIND_LIB_CUBLAS) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    fail_loads(100, missing); /* warm up: the lasting allocations (path, reasons) are made */
    CHECK(record_is(CUBIND_ERROR_LIBRARY_NOT_FOUND, CUBIND_LIB_CURAND, "curandCreateGenerator",
                    CURAND_STATUS_INITIALIZATION_FAILED, "CURAND_STATUS_INITIALIZATION_FAILED"));
    CHECK(contains(cubind_last_error()->message, missing));
    before = mallinfo2();
    rss_before = rss_kib();
    fail_loads(1000, missing);
    after = mallinfo2();
    rss_after = rss_kib();
    CHECK(opens_of("libcu") == 0);
    if (before.uordblks == 0) { /* a sanitizer's or valgrind's allocator: their leak checks see instead */
        printf("no_leak: heap not measurable here, left to LeakSanitizer / valgrind\n");
        return 0;
    }
    printf("no_leak: 1000 rounds of failing loads: heap in use %zu -> %zu bytes, RSS %ld -> %ld KiB\n",
           before.uordblks, after.uordblks, rss_before, rss_after);
    CHECK(after.uordblks == before.uordblks);
    CHECK(rss_after - rss_before < 1024); /* the kernel updates RSS in steps of up to 64 pages */
    return 0;
}

/* ---- what cubind_library_info gave stays valid ---------------------------------------------------------- */

static int scenario_info_lifetime(void)
{
    struct cubind_library_info first = {.size = sizeof first}, second = {.size = sizeof second};
    char *copy;
    CHECK(cubind_set_library_path(CUBIND_LIB_CURAND, "/nonexistent/a/libcurand.so.10") == CUBIND_OK);
    CHECK(cubind_library_info(CUBIND_LIB_CURAND, &first) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(contains(first.error, "/nonexistent/a/libcurand.so.10"));
    copy = strdup(first.error);
    /* tried again elsewhere: the earlier strings must still be readable ("valid for the life
     * of the process", cubind.h), as must those of the new failure */
    CHECK(cubind_set_library_path(CUBIND_LIB_CURAND, "/nonexistent/b/libcurand.so.10") == CUBIND_OK);
    CHECK(cubind_library_info(CUBIND_LIB_CURAND, &second) == CUBIND_ERROR_LIBRARY_NOT_FOUND);
    CHECK(contains(second.error, "/nonexistent/b/libcurand.so.10"));
    CHECK(same(first.error, copy));
    CHECK(cubind_set_library_path(CUBIND_LIB_CURAND, mock_path("libcurand.so.10")) == CUBIND_OK);
    CHECK(cubind_library_info(CUBIND_LIB_CURAND, &second) == CUBIND_OK);
    CHECK(same(first.error, copy));
    free(copy);
    return 0;
}

/* ---- 64 threads racing first calls ------------------------------------------------------------------- */

/* 64 wrappers over all 7 libraries: (library, C API name, call). */
#define STRESS_CALLS(X)                                                                                        \
    X(CUBLAS, cublasCreate, (cubind_cublas_create(&(cublasHandle_t){0})))                                      \
    X(CUBLAS, cublasDestroy, (cubind_cublas_destroy(NULL)))                                                    \
    X(CUBLAS, cublasGetVersion, (cubind_cublas_get_version(NULL, &(int){0})))                                  \
    X(CUBLAS, cublasSetStream, (cubind_cublas_set_stream(NULL, NULL)))                                         \
    X(CUBLAS, cublasGetStream, (cubind_cublas_get_stream(NULL, &(cudaStream_t){0})))                           \
    X(CUBLAS, cublasGetPointerMode, (cubind_cublas_get_pointer_mode(NULL, &(cublasPointerMode_t){0})))         \
    X(CUBLAS, cublasSetPointerMode, (cubind_cublas_set_pointer_mode(NULL, CUBLAS_POINTER_MODE_HOST)))          \
    X(CUBLAS, cublasGetAtomicsMode, (cubind_cublas_get_atomics_mode(NULL, &(cublasAtomicsMode_t){0})))         \
    X(CUBLAS, cublasSetAtomicsMode, (cubind_cublas_set_atomics_mode(NULL, CUBLAS_ATOMICS_NOT_ALLOWED)))         \
    X(CUBLAS, cublasGetMathMode, (cubind_cublas_get_math_mode(NULL, &(cublasMath_t){0})))                      \
    X(CUBLAS, cublasSetMathMode, (cubind_cublas_set_math_mode(NULL, CUBLAS_DEFAULT_MATH)))                     \
    X(CUBLAS, cublasSetSmCountTarget, (cubind_cublas_set_sm_count_target(NULL, 4)))                            \
    X(CUBLASLT, cublasLtCreate, (cubind_cublasLt_create(&(cublasLtHandle_t){0})))                              \
    X(CUBLASLT, cublasLtDestroy, (cubind_cublasLt_destroy(NULL)))                                              \
    X(CUBLASLT, cublasLtHeuristicsCacheGetCapacity, (cubind_cublasLt_heuristics_cache_get_capacity(&(size_t){0}))) \
    X(CUBLASLT, cublasLtHeuristicsCacheSetCapacity, (cubind_cublasLt_heuristics_cache_set_capacity(16)))       \
    X(CUBLASLT, cublasLtMatrixLayoutDestroy, (cubind_cublasLt_matrix_layout_destroy(NULL)))                    \
    X(CUBLASLT, cublasLtMatmulDescDestroy, (cubind_cublasLt_matmul_desc_destroy(NULL)))                        \
    X(CUBLASLT, cublasLtMatmulPreferenceCreate,                                                                \
      (cubind_cublasLt_matmul_preference_create(&(cublasLtMatmulPreference_t){0})))                            \
    X(CUBLASLT, cublasLtMatmulPreferenceDestroy, (cubind_cublasLt_matmul_preference_destroy(NULL)))            \
    X(CUFFT, cufftPlan1d, (cubind_cufft_plan1d(&(cufftHandle){0}, 8, CUFFT_C2C, 1)))                           \
    X(CUFFT, cufftPlan2d, (cubind_cufft_plan2d(&(cufftHandle){0}, 8, 8, CUFFT_C2C)))                           \
    X(CUFFT, cufftPlan3d, (cubind_cufft_plan3d(&(cufftHandle){0}, 8, 8, 8, CUFFT_C2C)))                        \
    X(CUFFT, cufftEstimate1d, (cubind_cufft_estimate1d(8, CUFFT_C2C, 1, &(size_t){0})))                        \
    X(CUFFT, cufftCreate, (cubind_cufft_create(&(cufftHandle){0})))                                            \
    X(CUFFT, cufftGetSize, (cubind_cufft_get_size(0, &(size_t){0})))                                           \
    X(CUFFT, cufftSetWorkArea, (cubind_cufft_set_work_area(0, NULL)))                                          \
    X(CUFFT, cufftSetAutoAllocation, (cubind_cufft_set_auto_allocation(0, 1)))                                 \
    X(CUFFT, cufftSetStream, (cubind_cufft_set_stream(0, NULL)))                                               \
    X(CUFFT, cufftDestroy, (cubind_cufft_destroy(0)))                                                          \
    X(CURAND, curandCreateGenerator, (cubind_curand_create_generator(&(curandGenerator_t){0}, CURAND_RNG_PSEUDO_DEFAULT))) \
    X(CURAND, curandDestroyGenerator, (cubind_curand_destroy_generator(NULL)))                                 \
    X(CURAND, curandGetVersion, (cubind_curand_get_version(&(int){0})))                                        \
    X(CURAND, curandSetStream, (cubind_curand_set_stream(NULL, NULL)))                                         \
    X(CURAND, curandSetPseudoRandomGeneratorSeed, (cubind_curand_set_pseudo_random_generator_seed(NULL, 42)))  \
    X(CURAND, curandSetGeneratorOffset, (cubind_curand_set_generator_offset(NULL, 0)))                         \
    X(CURAND, curandGenerate, (cubind_curand_generate(NULL, NULL, 0)))                                         \
    X(CURAND, curandGenerateUniform, (cubind_curand_generate_uniform(NULL, NULL, 0)))                          \
    X(CURAND, curandGenerateSeeds, (cubind_curand_generate_seeds(NULL)))                                       \
    X(CUSOLVER, cusolverDnCreate, (cubind_cusolverDn_create(&(cusolverDnHandle_t){0})))                        \
    X(CUSOLVER, cusolverDnDestroy, (cubind_cusolverDn_destroy(NULL)))                                          \
    X(CUSOLVER, cusolverDnSetStream, (cubind_cusolverDn_set_stream(NULL, NULL)))                               \
    X(CUSOLVER, cusolverDnGetStream, (cubind_cusolverDn_get_stream(NULL, &(cudaStream_t){0})))                 \
    X(CUSOLVER, cusolverDnIRSParamsCreate, (cubind_cusolverDn_irs_params_create(&(cusolverDnIRSParams_t){0}))) \
    X(CUSOLVER, cusolverSpCreate, (cubind_cusolverSp_create(&(cusolverSpHandle_t){0})))                        \
    X(CUSOLVER, cusolverSpDestroy, (cubind_cusolverSp_destroy(NULL)))                                          \
    X(CUSOLVER, cusolverSpCreateCsrqrInfo, (cubind_cusolverSp_create_csrqr_info(&(csrqrInfo_t){0})))           \
    X(CUSOLVER, cusolverRfCreate, (cubind_cusolverRf_create(&(cusolverRfHandle_t){0})))                        \
    X(CUSOLVER, cusolverRfAnalyze, (cubind_cusolverRf_analyze(NULL)))                                          \
    X(CUSOLVERMG, cusolverMgCreate, (cubind_cusolverMg_create(&(cusolverMgHandle_t){0})))                      \
    X(CUSOLVERMG, cusolverMgDestroy, (cubind_cusolverMg_destroy(NULL)))                                        \
    X(CUSOLVERMG, cusolverMgDeviceSelect, (cubind_cusolverMg_device_select(NULL, 1, (int[1]){0})))             \
    X(CUSOLVERMG, cusolverMgDestroyGrid, (cubind_cusolverMg_destroy_grid(NULL)))                               \
    X(CUSOLVERMG, cusolverMgDestroyMatrixDesc, (cubind_cusolverMg_destroy_matrix_desc(NULL)))                  \
    X(CUSPARSE, cusparseCreate, (cubind_cusparse_create(&(cusparseHandle_t){0})))                              \
    X(CUSPARSE, cusparseDestroy, (cubind_cusparse_destroy(NULL)))                                              \
    X(CUSPARSE, cusparseGetVersion, (cubind_cusparse_get_version(NULL, &(int){0})))                            \
    X(CUSPARSE, cusparseSetStream, (cubind_cusparse_set_stream(NULL, NULL)))                                   \
    X(CUSPARSE, cusparseGetStream, (cubind_cusparse_get_stream(NULL, &(cudaStream_t){0})))                     \
    X(CUSPARSE, cusparseLoggerSetLevel, (cubind_cusparse_logger_set_level(0)))                                 \
    X(CUSPARSE, cusparseLoggerSetMask, (cubind_cusparse_logger_set_mask(0)))                                   \
    X(CUSPARSE, cusparseLoggerForceDisable, (cubind_cusparse_logger_force_disable()))                          \
    X(CUSPARSE, cusparseCreateMatDescr, (cubind_cusparse_create_mat_descr(&(cusparseMatDescr_t){0})))       \
    X(CUSPARSE, cusparseDestroyMatDescr, (cubind_cusparse_destroy_mat_descr(NULL)))

#define DEFINE_STRESS_CALL(lib, api, expr) static int stress_##api(void) { return (int)expr; }
STRESS_CALLS(DEFINE_STRESS_CALL)

struct stress_call {
    cubind_library library;
    const char *function;
    int (*call)(void);
};

#define STRESS_ENTRY(lib, api, expr) {CUBIND_LIB_##lib, #api, stress_##api},
static const struct stress_call stress_calls[] = {STRESS_CALLS(STRESS_ENTRY)};
#define STRESS_THREADS 64

struct stress_outcome {
    int result;
    cubind_error_kind kind;
    int status;
    char function[64];
    char message[CUBIND_ERROR_MESSAGE_MAX];
};

static struct {
    pthread_barrier_t start;
    int offset;
    struct stress_outcome outcome[STRESS_THREADS];
} stress;

static const struct stress_call *stress_call_of(int thread)
{
    return &stress_calls[(thread + stress.offset) % STRESS_THREADS];
}

static void *stress_thread(void *arg)
{
    int id = (int)(intptr_t)arg;
    const struct stress_call *call = stress_call_of(id);
    struct stress_outcome *out = &stress.outcome[id];
    const cubind_error *e;
    pthread_barrier_wait(&stress.start);
    out->result = call->call();
    e = cubind_last_error();
    out->kind = e->kind;
    out->status = e->status;
    snprintf(out->function, sizeof out->function, "%s", e->function);
    memcpy(out->message, e->message, sizeof out->message);
    return NULL;
}

/* One round: CUBIND_TEST_ROUND picks which thread calls what; CUBIND_TEST_BAD_LIB, when set, is a
 * corrupt file (CUBIND_TEST_PATH) that fails with CUBIND_TEST_REASON after CUBIND_TEST_OPENS dlopens. */
static int scenario_stress(void)
{
    const char *bad_name = getenv("CUBIND_TEST_BAD_LIB");
    cubind_library bad = bad_name != NULL ? library_named(bad_name) : CUBIND_LIB_NONE;
    pthread_t threads[STRESS_THREADS];
    const char *suffix[CUBIND_LIBRARY_COUNT] = {0};
    int i, lib, good_calls = 0, queries = 0;

    alarm(60);
    CHECK(sizeof stress_calls / sizeof stress_calls[0] == STRESS_THREADS);
    stress.offset = atoi(must_getenv("CUBIND_TEST_ROUND")) % STRESS_THREADS;
    cubind_mock_set_status(MOCK_STATUS);
    CHECK(pthread_barrier_init(&stress.start, NULL, STRESS_THREADS) == 0);
    for (i = 0; i < STRESS_THREADS; ++i)
        CHECK(pthread_create(&threads[i], NULL, stress_thread, (void *)(intptr_t)i) == 0);
    for (i = 0; i < STRESS_THREADS; ++i)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&stress.start);

    for (i = 0; i < STRESS_THREADS; ++i) {
        const struct stress_call *call = stress_call_of(i);
        const struct stress_outcome *out = &stress.outcome[i];
        cubind_library library = call->library;
        size_t prefix = strlen(call->function);
        if (library == bad) {
            /* the library's fixed status, and the same message (after the function's name) */
            if (out->result != missing_library_status(library) || out->kind != CUBIND_ERROR_LIBRARY_NOT_FOUND ||
                out->status != missing_library_status(library) || strcmp(out->function, call->function) != 0 ||
                strncmp(out->message, call->function, prefix) != 0 || strncmp(out->message + prefix, ": ", 2) != 0) {
                fprintf(stderr, "thread %d, %s: result %d kind %d status %d function %s: %s\n", i, call->function,
                        out->result, (int)out->kind, out->status, out->function, out->message);
                return 1;
            }
            if (suffix[library] == NULL)
                suffix[library] = out->message + prefix;
            CHECK(same(out->message + prefix, suffix[library]));
        } else {
            /* the mock's own status: the pointer resolved and was called */
            if (out->result != MOCK_STATUS || out->kind != CUBIND_ERROR_STATUS || out->status != MOCK_STATUS ||
                strcmp(out->function, call->function) != 0) {
                fprintf(stderr, "thread %d, %s: result %d kind %d status %d function %s: %s\n", i, call->function,
                        out->result, (int)out->kind, out->status, out->function, out->message);
                return 1;
            }
            CHECK(cubind_function_available(call->function) == 1);
            good_calls++;
        }
    }
    for (lib = 0; lib < CUBIND_LIBRARY_COUNT; ++lib) {
        int called = 0;
        for (i = 0; i < STRESS_THREADS; ++i)
            called |= stress_calls[i].library == (cubind_library)lib;
        if (!called) {
            CHECK(opens_of(mock_path(mock_sonames_of(lib))) == 0); /* lazy: never called, never opened */
        } else if (lib == (int)bad) {
            CHECK(suffix[lib] != NULL);
            CHECK(contains(suffix[lib], escaped(must_getenv("CUBIND_TEST_PATH"))));
            CHECK(contains(suffix[lib], must_getenv("CUBIND_TEST_REASON")));
            CHECK(opens_of(must_getenv("CUBIND_TEST_PATH")) == atoi(must_getenv("CUBIND_TEST_OPENS")));
        } else {
            CHECK(opens_of(mock_path(mock_sonames_of(lib))) == 1); /* exactly one real dlopen */
            queries += cubind_test_libraries[lib].version_calls; /* the version: 3 GetProperty calls, ... */
        }
    }
    CHECK(cubind_mock_calls() == (unsigned long)(good_calls + queries));
    return 0;
}

static const struct scenario scenarios[] = {
    {"fault", scenario_fault},
    {"relative", scenario_relative},
    {"long_path", scenario_long_path},
    {"non_utf8", scenario_non_utf8},
    {"half", scenario_half},
    {"version_fails", scenario_version_fails},
    {"set_after_load", scenario_set_after_load},
    {"handler_reentry", scenario_handler_reentry},
    {"reentrant_constructor", scenario_reentrant_constructor},
    {"fork_after_load", scenario_fork_after_load},
    {"fork_while_loading", scenario_fork_while_loading},
    {"no_leak", scenario_no_leak},
    {"info_lifetime", scenario_info_lifetime},
    {"stress", scenario_stress},
    {NULL, NULL},
};

/* ---- CMocka tests (parent): make the faulty files, run the scenario ------------------------------------ */

static int setup(void **state)
{
    (void)state;
    return make_tmp_dir("cubind-faults");
}

static int teardown(void **state)
{
    (void)state;
    return remove_tmp_dir();
}

/* Overwrite `size` bytes of a file at `offset`. */
static void patch_file(const char *path, long offset, const void *bytes, size_t size)
{
    FILE *file = fopen(path, "r+b");
    assert_non_null(file);
    assert_int_equal(fseek(file, offset, SEEK_SET), 0);
    assert_int_equal(fwrite(bytes, 1, size, file), size);
    assert_int_equal(fclose(file), 0);
}

static void run(const char *name, const char *const *env)
{
    struct run_options options = {env, 0};
    assert_int_equal(run_scenario(name, &options), 0);
}

static void run_fault(cubind_library library, const char *path, const char *reason, int opens)
{
    char opens_text[8];
    const char *env[] = {env_of(env_names(library), path), env_of("CUBIND_TEST_LIB", cubind_library_name(library)),
                         env_of("CUBIND_TEST_PATH", path), env_of("CUBIND_TEST_REASON", reason),
                         (snprintf(opens_text, sizeof opens_text, "%d", opens), env_of("CUBIND_TEST_OPENS", opens_text)),
                         NULL};
    run("fault", env);
}

static void test_missing_file(void **state)
{
    (void)state;
    run_fault(CUBIND_LIB_CURAND, tmp_path("absent/libcurand.so.10"), "No such file or directory", 0);
}

/* dlopen of a cut copy maps segments past the end of the file: a SIGBUS, unless refused first. */
static void test_truncated_elf(void **state)
{
    const char *path = tmp_path("libcufft.so.12");
    (void)state;
    assert_int_equal(copy_file(mock_path("libcufft.so.12"), path, 1024), 0);
    run_fault(CUBIND_LIB_CUFFT, path, "truncated ELF file: 1024 bytes, but its segments need ", 0);
}

static void test_wrong_class(void **state)
{
    const char *path = tmp_path("libcusparse.so.12");
    const unsigned char class32 = ELFCLASS32;
    (void)state;
    assert_int_equal(copy_file(mock_path("libcusparse.so.12"), path, 0), 0);
    patch_file(path, EI_CLASS, &class32, 1);
    run_fault(CUBIND_LIB_CUSPARSE, path, "wrong ELF class: ELFCLASS32", 1);
}

#if defined(__aarch64__)
#define OTHER_MACHINE EM_X86_64
#define OTHER_MACHINE_TEXT "built for x86-64 (ELF machine 62), not for this process's AArch64 (183)"
#else
#define OTHER_MACHINE EM_AARCH64
#define OTHER_MACHINE_TEXT "built for AArch64 (ELF machine 183), not for this process's"
#endif

/* glibc says only "No such file or directory" for another machine's library. */
static void test_wrong_machine(void **state)
{
    const char *path = tmp_path("libcublasLt.so.13");
    const unsigned char machine[2] = {OTHER_MACHINE & 0xff, OTHER_MACHINE >> 8}; /* little-endian ELF */
    (void)state;
    assert_int_equal(copy_file(mock_path("libcublasLt.so.13"), path, 0), 0);
    patch_file(path, offsetof(ElfW(Ehdr), e_machine), machine, 2);
    run_fault(CUBIND_LIB_CUBLASLT, path, OTHER_MACHINE_TEXT, 0);
}

static void test_empty_file(void **state)
{
    const char *path = tmp_path("libcusolver.so.12");
    FILE *file = fopen(path, "wb");
    (void)state;
    assert_non_null(file);
    fclose(file);
    run_fault(CUBIND_LIB_CUSOLVER, path, "file too short", 1);
}

static void test_directory(void **state)
{
    const char *path = tmp_path("libcusolverMg.so.12");
    (void)state;
    assert_int_equal(mkdir(path, 0755), 0);
    run_fault(CUBIND_LIB_CUSOLVERMG, path, ": is a directory", 0);
}

static void test_symlink_loop(void **state)
{
    const char *a = tmp_path("loop-a"), *b = tmp_path("loop-b");
    (void)state;
    assert_int_equal(symlink(b, a), 0);
    assert_int_equal(symlink(a, b), 0);
    run_fault(CUBIND_LIB_CUBLAS, a, "Too many levels of symbolic links", 0);
}

/* dlopen of a FIFO would block until a writer comes. */
static void test_fifo(void **state)
{
    const char *path = tmp_path("fifo-libcurand.so.10");
    (void)state;
    assert_int_equal(mkfifo(path, 0600), 0);
    run_fault(CUBIND_LIB_CURAND, path, ": not a regular file (a FIFO)", 0);
}

/* A directory named $ORIGIN: dlopen would replace the token (with libcubind's directory) and load
 * another file than the one checked, so the path is refused, never given to dlopen (issue 25). */
static void test_dynamic_string_token(void **state)
{
    const char *path = tmp_path("$ORIGIN/libcurand.so.10");
    (void)state;
    assert_int_equal(mkdir(tmp_path("$ORIGIN"), 0755), 0);
    assert_int_equal(copy_file(mock_path("libcurand.so.10"), path, 0), 0);
    run_fault(CUBIND_LIB_CURAND, path, ": refused, the path holds $ORIGIN, which dlopen replaces", 0);
}

static void test_relative_path(void **state)
{
    const char *env[] = {env_of("CUBIND_CUSOLVERMG_PATH", "lib/libcusolverMg.so.12"),
                         env_of("CUBIND_TEST_CHDIR", tmp_path("cwd")), NULL};
    char dir[8192];
    (void)state;
    snprintf(dir, sizeof dir, "%s", tmp_path("cwd/lib"));
    assert_int_equal(mkdir(tmp_path("cwd"), 0755), 0);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(symlink(mock_path("libcusolverMg.so.12"), tmp_path("cwd/lib/libcusolverMg.so.12")), 0);
    run("relative", env);
}

static void test_long_path(void **state)
{
    static char path[5001], entry[5100];
    const char *env[] = {entry, NULL};
    size_t n;
    const char tail[] = "/libcublas.so.13";
    (void)state;
    n = (size_t)snprintf(path, sizeof path, "%s", tmp_dir);
    while (n < 5000 - (sizeof tail - 1)) { /* parts of 200 bytes at most: only the whole is too long */
        size_t part = 5000 - (sizeof tail - 1) - n < 200 ? 5000 - (sizeof tail - 1) - n : 200;
        path[n++] = '/';
        memset(path + n, 'd', part - 1);
        n += part - 1;
    }
    memcpy(path + n, tail, sizeof tail);
    assert_int_equal(strlen(path), 5000);
    snprintf(entry, sizeof entry, "CUBIND_CUBLAS_PATH=%s", path);
    run("long_path", env);
}

static void test_non_utf8_path(void **state)
{
    char dir[8192], link[8300], curand[8300], cufft[8300], e1[8400], e2[8400];
    const char *env[] = {e1, e2, NULL};
    (void)state;
    snprintf(dir, sizeof dir, "%s/\xff\xfe", tmp_dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(link, sizeof link, "%s/libcurand.so.10", dir);
    assert_int_equal(symlink(half_mock("libcurand.so.10"), link), 0);
    snprintf(curand, sizeof curand, "%s", link);
    snprintf(cufft, sizeof cufft, "%s/absent/libcufft.so.12", dir);
    snprintf(e1, sizeof e1, "CUBIND_CURAND_PATH=%s", curand);
    snprintf(e2, sizeof e2, "CUBIND_CUFFT_PATH=%s", cufft);
    run("non_utf8", env);
}

static void test_half_symbols(void **state)
{
    (void)state;
    run("half", library_env(half_mock, NULL));
}

static void test_version_query_fails(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", mock_path("libcublas.so.13")),
                         env_of("CUBIND_CUBLASLT_PATH", mock_path("libcublasLt.so.13")),
                         env_of("CUBIND_CUFFT_PATH", half_mock("libcufft.so.12")),
                         env_of("CUBIND_CURAND_PATH", mock_path("libcurand.so.10")),
                         env_of("CUBIND_CUSOLVER_PATH", mock_path("libcusolver.so.12")),
                         env_of("CUBIND_CUSOLVERMG_PATH", mock_path("libcusolverMg.so.12")),
                         env_of("CUBIND_CUSPARSE_PATH", mock_path("libcusparse.so.12")),
                         env_of("CUBIND_MOCK_VERSION_STATUS", "7"),
                         NULL};
    (void)state;
    run("version_fails", env);
}

static void test_set_path_after_load(void **state)
{
    (void)state;
    run("set_after_load", library_env(mock_path, NULL));
}

static void test_handler_calls_back(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", "/nonexistent/libcublas.so.13"),
                         env_of("CUBIND_CUFFT_PATH", mock_path("libcufft.so.12")), NULL};
    (void)state;
    run("handler_reentry", env);
}

static void test_reentrant_constructor(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", beside_binary("mock-reentrant/libcublas.so.13")),
                         env_of("CUBIND_CUFFT_PATH", mock_path("libcufft.so.12")), env_of("CUBIND_TEST_REENTRANT", "1"),
                         NULL};
    (void)state;
    run("reentrant_constructor", env);
}

static void test_fork_after_load(void **state)
{
    (void)state;
    run("fork_after_load", library_env(mock_path, NULL));
}

static void test_fork_while_loading(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", mock_path("libcublas.so.13")),
                         env_of("CUBIND_CURAND_PATH", mock_path("libcurand.so.10")),
                         env_of("CUBIND_CUFFT_PATH", beside_binary("mock-slow/libcufft.so.12")),
                         env_of("CUBIND_TEST_SLOW_MS", "200"), NULL};
    (void)state;
    run("fork_while_loading", env);
}

static void test_failed_loads_do_not_leak(void **state)
{
    const char *env[] = {env_of("CUBIND_CUBLAS_PATH", "/nonexistent/libcublas.so.13"),
                         env_of("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0"), NULL};
    (void)state;
    run("no_leak", env);
}

static void test_info_strings_outlive_retries(void **state)
{
    (void)state;
    run("info_lifetime", NULL);
}

/* 64 threads x CUBIND_TEST_ROUNDS rounds, each a fresh process. Rounds 1, 3, 5, ... make one library
 * (in turn) a corrupt file: junk (dlopen says "invalid ELF header") or a truncated copy (refused
 * before dlopen). */
static void test_stress_first_calls(void **state)
{
    const char *rounds_text = getenv("CUBIND_TEST_ROUNDS");
    int rounds = rounds_text != NULL && atoi(rounds_text) > 0 ? atoi(rounds_text) : 200;
    const char *junk = tmp_path("junk.so"), *cut = tmp_path("cut.so");
    char junk_path[8192], cut_path[8192], round_text[16], bad_env[8300];
    double start = seconds_now(), elapsed;
    FILE *file;
    int round;
    (void)state;

    snprintf(junk_path, sizeof junk_path, "%s", junk);
    snprintf(cut_path, sizeof cut_path, "%s", cut);
    file = fopen(junk_path, "wb");
    assert_non_null(file);
    for (round = 0; round < 4096; ++round)
        fputc('x', file);
    fclose(file);
    assert_int_equal(copy_file(mock_path("libcusparse.so.12"), cut_path, 4096), 0);

    for (round = 0; round < rounds; ++round) {
        const char *const *env;
        int bad = round % 2 == 1 ? (round / 2) % CUBIND_LIBRARY_COUNT : -1;
        int truncated = round % 4 == 3;
        snprintf(round_text, sizeof round_text, "%d", round);
        if (bad < 0) {
            env = library_env(mock_path, env_of("CUBIND_TEST_ROUND", round_text), NULL);
        } else {
            /* every library's mock, then the corrupt file for one (the later entry wins) */
            const char *path = truncated ? cut_path : junk_path;
            snprintf(bad_env, sizeof bad_env, "%s=%s", env_names(bad), path);
            env = library_env(mock_path, env_of("CUBIND_TEST_ROUND", round_text), bad_env,
                              env_of("CUBIND_TEST_BAD_LIB", cubind_library_name((cubind_library)bad)),
                              env_of("CUBIND_TEST_PATH", path),
                              env_of("CUBIND_TEST_REASON", truncated ? "truncated ELF file" : "invalid ELF header"),
                              env_of("CUBIND_TEST_OPENS", truncated ? "0" : "1"), NULL);
        }
        if (run_scenario("stress", &(struct run_options){env, 0}) != 0)
            fail_msg("stress round %d (%s corrupt) failed", round,
                     bad >= 0 ? cubind_library_name((cubind_library)bad) : "none");
    }
    elapsed = seconds_now() - start;
    printf("stress: %d rounds of %d threads racing first calls in %.2f s (%.1f ms a round)\n", rounds,
           STRESS_THREADS, elapsed, 1000.0 * elapsed / rounds);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_truncated_elf),
        cmocka_unit_test(test_wrong_class),
        cmocka_unit_test(test_wrong_machine),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_directory),
        cmocka_unit_test(test_symlink_loop),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_dynamic_string_token),
        cmocka_unit_test(test_relative_path),
        cmocka_unit_test(test_long_path),
        cmocka_unit_test(test_non_utf8_path),
        cmocka_unit_test(test_half_symbols),
        cmocka_unit_test(test_version_query_fails),
        cmocka_unit_test(test_set_path_after_load),
        cmocka_unit_test(test_handler_calls_back),
        cmocka_unit_test(test_reentrant_constructor),
        cmocka_unit_test(test_fork_after_load),
        cmocka_unit_test(test_fork_while_loading),
        cmocka_unit_test(test_failed_loads_do_not_leak),
        cmocka_unit_test(test_info_strings_outlive_retries),
        cmocka_unit_test(test_stress_first_calls),
    };
    int scenario = scenario_main(argc, argv, scenarios);
    if (scenario >= 0)
        return scenario;
    return cmocka_run_group_tests_name("faults", tests, setup, teardown);
}
