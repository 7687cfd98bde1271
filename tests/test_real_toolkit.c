/*
 * tests/test_real_toolkit.c - the toolkit's compiler and codec libraries on their real files, with no
 * GPU: NVVM from the toolkit ($CUDA_PATH, else /usr/local/cuda) compiles NVVM IR to PTX; nvFatbin
 * (CUBIND_NVFATBIN_PATH: CUDA 12.4's, from the releases cache) packs that PTX into a fat binary, and
 * a cubin (CUBIND_TEST_CUBIN=ARCH=PATH: tests/scale_kernel.cu, compiled by the toolkit's nvcc);
 * nvJPEG (CUBIND_NVJPEG_PATH: 12.4's) answers its version and, without a GPU, refuses a handle with
 * the status a program gets from NVIDIA's library, recorded with why no GPU can be used; cuFile
 * (CUBIND_CUFILE_PATH: 12.4's) answers its version, and its driver open fails without a driver, the
 * status record's err recorded as the status. make test-real-toolkit sets the paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cubind/cubind.h"

#include "nvvm_ir.h"

/* The PTX NVVM made of nvvm_ir (NUL-terminated), for nvFatbin. */
static char *compiled_ptx;

static void test_nvvm_compiles_ir_to_ptx(void **state)
{
    nvvmProgram program;
    const char *options[] = {"-arch=compute_75"};
    struct cubind_library_info info = {.size = sizeof info};
    size_t size = 0;
    int major = -1, minor = -1;
    (void)state;
    assert_int_equal(cubind_nvvm_version(&major, &minor), NVVM_SUCCESS);
    assert_int_equal(cubind_library_info(CUBIND_LIB_NVVM, &info), CUBIND_OK);
    print_message("NVVM %d.%d, %s (%s)\n", major, minor, info.real_path, info.version_source);
    /* the loader asked the same query: NVVM's own version, not CUDA's nor libnvvm.so.4's number */
    assert_true(major >= 2);
    assert_int_equal(info.version_major, major);
    assert_int_equal(info.version_minor, minor);
    assert_int_equal(cubind_nvvm_create_program(&program), NVVM_SUCCESS);
    assert_int_equal(cubind_nvvm_add_module_to_program(program, nvvm_ir, sizeof nvvm_ir - 1, "scale"), NVVM_SUCCESS);
    assert_int_equal(cubind_nvvm_compile_program(program, 1, options), NVVM_SUCCESS);
    assert_int_equal(cubind_nvvm_get_compiled_result_size(program, &size), NVVM_SUCCESS);
    assert_true(size > 1);
    compiled_ptx = malloc(size);
    assert_non_null(compiled_ptx);
    assert_int_equal(cubind_nvvm_get_compiled_result(program, compiled_ptx), NVVM_SUCCESS);
    assert_non_null(strstr(compiled_ptx, ".entry cubind_scale("));
    assert_non_null(strstr(compiled_ptx, ".target sm_75"));
    assert_int_equal(cubind_nvvm_destroy_program(&program), NVVM_SUCCESS);
    assert_int_equal(cubind_last_error()->kind, CUBIND_OK);
}

/* NVVM's failure is the library's status, recorded with its name. */
static void test_nvvm_bad_ir_is_recorded(void **state)
{
    nvvmProgram program;
    static const char bad[] = "this is not NVVM IR";
    nvvmResult status;
    (void)state;
    assert_int_equal(cubind_nvvm_create_program(&program), NVVM_SUCCESS);
    assert_int_equal(cubind_nvvm_add_module_to_program(program, bad, sizeof bad - 1, "bad"), NVVM_SUCCESS);
    status = cubind_nvvm_compile_program(program, 0, NULL);
    print_message("nvvmCompileProgram(bad IR) -> %s\n", cubind_status_name(CUBIND_LIB_NVVM, status));
    assert_int_not_equal(status, NVVM_SUCCESS);
    assert_int_equal(cubind_last_error()->kind, CUBIND_ERROR_STATUS);
    assert_string_equal(cubind_last_error()->function, "nvvmCompileProgram");
    assert_string_equal(cubind_last_error()->status_name, cubind_status_name(CUBIND_LIB_NVVM, status));
    assert_int_equal(cubind_nvvm_destroy_program(&program), NVVM_SUCCESS);
}

static void test_nvfatbin_packs_ptx(void **state)
{
    nvFatbinHandle fatbin;
    unsigned int major = 0, minor = 0;
    size_t size = 0;
    unsigned char *image;
    uint32_t magic;
    (void)state;
    assert_non_null(compiled_ptx);
    assert_int_equal(cubind_nvfatbin_version(&major, &minor), NVFATBIN_SUCCESS);
    print_message("nvFatbin %u.%u\n", major, minor);
    assert_true(major >= 12);
    assert_int_equal(cubind_nvfatbin_create(&fatbin, NULL, 0), NVFATBIN_SUCCESS);
    assert_int_equal(cubind_nvfatbin_add_ptx(fatbin, compiled_ptx, strlen(compiled_ptx) + 1, "75", "scale", NULL),
                     NVFATBIN_SUCCESS);
    assert_int_equal(cubind_nvfatbin_size(fatbin, &size), NVFATBIN_SUCCESS);
    assert_true(size > 16);
    image = malloc(size);
    assert_non_null(image);
    assert_int_equal(cubind_nvfatbin_get(fatbin, image), NVFATBIN_SUCCESS);
    memcpy(&magic, image, sizeof magic);
    /* fatbinary_section.h: FATBIN_MAGIC 0xBA55ED50, the header of a fat binary */
    assert_int_equal(magic, 0xBA55ED50u);
    print_message("fat binary of %zu bytes, magic %#x\n", size, (unsigned)magic);
    free(image);
    assert_int_equal(cubind_nvfatbin_destroy(&fatbin), NVFATBIN_SUCCESS);
    free(compiled_ptx);
    compiled_ptx = NULL;
}

/* A cubin, as nvFatbinAddCubin takes it: its architecture's number and its code; skipped where the
 * toolkit has no nvcc to compile one. */
static void test_nvfatbin_packs_a_cubin(void **state)
{
    static unsigned char code[1 << 20];
    const char *given = getenv("CUBIND_TEST_CUBIN");
    const char *path = given != NULL ? strchr(given, '=') : NULL;
    char arch[16];
    nvFatbinHandle fatbin;
    size_t size = 0, length;
    unsigned char *image;
    uint32_t magic;
    FILE *in;
    (void)state;
    if (path == NULL || (size_t)(path - given) >= sizeof arch) {
        print_message("no cubin (CUBIND_TEST_CUBIN=ARCH=PATH: the toolkit has no nvcc)\n");
        skip();
    }
    memcpy(arch, given, (size_t)(path - given));
    arch[path - given] = '\0';
    in = fopen(path + 1, "rb");
    assert_non_null(in);
    length = fread(code, 1, sizeof code, in);
    fclose(in);
    assert_true(length > 4 && memcmp(code, "\177ELF", 4) == 0);
    assert_int_equal(cubind_nvfatbin_create(&fatbin, NULL, 0), NVFATBIN_SUCCESS);
    assert_int_equal(cubind_nvfatbin_add_cubin(fatbin, code, length, arch, "scale"), NVFATBIN_SUCCESS);
    assert_int_equal(cubind_nvfatbin_size(fatbin, &size), NVFATBIN_SUCCESS);
    image = malloc(size);
    assert_non_null(image);
    assert_int_equal(cubind_nvfatbin_get(fatbin, image), NVFATBIN_SUCCESS);
    memcpy(&magic, image, sizeof magic);
    assert_int_equal(magic, 0xBA55ED50u);
    print_message("sm_%s cubin of %zu bytes: fat binary of %zu bytes\n", arch, length, size);
    free(image);
    assert_int_equal(cubind_nvfatbin_destroy(&fatbin), NVFATBIN_SUCCESS);
}

static void test_nvjpeg_version_and_handle(void **state)
{
    struct cubind_library_info info = {.size = sizeof info};
    nvjpegHandle_t handle = NULL;
    nvjpegStatus_t status;
    int major = -1, minor = -1, gpus = 0;
    (void)state;
    assert_int_equal(cubind_nvjpeg_get_property(MAJOR_VERSION, &major), NVJPEG_STATUS_SUCCESS);
    assert_int_equal(cubind_nvjpeg_get_property(MINOR_VERSION, &minor), NVJPEG_STATUS_SUCCESS);
    assert_int_equal(cubind_library_info(CUBIND_LIB_NVJPEG, &info), CUBIND_OK);
    print_message("nvJPEG %d.%d, %s\n", major, minor, info.real_path);
    assert_int_equal(info.version_major, major);
    assert_int_equal(info.version_minor, minor);
    if (cubind_gpu_count(&gpus) != CUBIND_OK)
        gpus = 0;
    cubind_clear_error();
    status = cubind_nvjpeg_create_simple(&handle);
    print_message("nvjpegCreateSimple -> %s: %s\n", cubind_status_name(CUBIND_LIB_NVJPEG, status),
                  cubind_last_error()->message);
    if (gpus > 0) {
        assert_int_equal(status, NVJPEG_STATUS_SUCCESS);
        assert_int_equal(cubind_nvjpeg_destroy(handle), NVJPEG_STATUS_SUCCESS);
        return;
    }
    /* without a GPU: the real answer (12.3.1 here: NVJPEG_STATUS_EXECUTION_FAILED), recorded, and the
     * message says why no GPU can be used (libraries.toml: nvjpeg's no_gpu) */
    assert_int_equal(status, NVJPEG_STATUS_EXECUTION_FAILED);
    assert_int_equal(cubind_last_error()->kind, CUBIND_ERROR_STATUS);
    assert_string_equal(cubind_last_error()->function, "nvjpegCreateSimple");
    assert_string_equal(cubind_last_error()->status_name, "NVJPEG_STATUS_EXECUTION_FAILED");
    /* "... (6): no CUDA driver: libcuda not found; tried: ..." here; "no GPU ..." beside a driver */
    assert_true(strstr(cubind_last_error()->message, "no CUDA driver") != NULL ||
                strstr(cubind_last_error()->message, "GPU") != NULL);
}

/* cuFile's status is a record (CUfileError_t): the wrapper returns it unchanged and records its err. */
static void test_cufile_version_and_driver_open(void **state)
{
    struct cubind_library_info info = {.size = sizeof info};
    CUfileError_t status;
    int version = -1;
    (void)state;
    cubind_clear_error();
    status = cubind_cufile_get_version(&version);
    print_message("cuFileGetVersion -> err %d, cu_err %d, version %d\n", (int)status.err, (int)status.cu_err, version);
    assert_int_equal(status.err, CU_FILE_SUCCESS);
    assert_int_equal(cubind_last_error()->kind, CUBIND_OK);
    assert_int_equal(cubind_library_info(CUBIND_LIB_CUFILE, &info), CUBIND_OK);
    print_message("cuFile %d.%d, %s (%s)\n", info.version_major, info.version_minor, info.real_path, info.version_source);
    /* the loader asked the same query: 1000 major + 10 minor (1090: cuFile 1.9) */
    assert_int_equal(info.version_major, version / 1000);
    assert_int_equal(info.version_minor, version % 1000 / 10);
    status = cubind_cufile_driver_open();
    print_message("cuFileDriverOpen -> err %s (%d), cu_err %d: %s\n", cubind_status_name(CUBIND_LIB_CUFILE, (int)status.err),
                  (int)status.err, (int)status.cu_err, cubind_last_error()->message);
    if (status.err == CU_FILE_SUCCESS) { /* a machine with a driver and GPUDirect Storage */
        assert_int_equal(cubind_cufile_driver_close_v2().err, CU_FILE_SUCCESS);
        return;
    }
    /* no libcuda.so.1 here: the record's err is the status recorded, with its name */
    assert_int_equal(cubind_last_error()->kind, CUBIND_ERROR_STATUS);
    assert_int_equal(cubind_last_error()->library, CUBIND_LIB_CUFILE);
    assert_int_equal(cubind_last_error()->status, (int)status.err);
    assert_string_equal(cubind_last_error()->function, "cuFileDriverOpen");
    assert_string_equal(cubind_last_error()->status_name, cubind_status_name(CUBIND_LIB_CUFILE, (int)status.err));
    assert_true(strncmp(cubind_last_error()->message, "cuFileDriverOpen returned ", 26) == 0);
    /* cu_err is named when err is CU_FILE_CUDA_DRIVER_ERROR and cu_err says something */
    assert_int_equal(strstr(cubind_last_error()->message, "; its cu_err is ") != NULL,
                     status.err == CU_FILE_CUDA_DRIVER_ERROR && status.cu_err != CUDA_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvvm_compiles_ir_to_ptx),
        cmocka_unit_test(test_nvvm_bad_ir_is_recorded),
        cmocka_unit_test(test_nvfatbin_packs_ptx),
        cmocka_unit_test(test_nvfatbin_packs_a_cubin),
        cmocka_unit_test(test_nvjpeg_version_and_handle),
        cmocka_unit_test(test_cufile_version_and_driver_open),
    };
    return cmocka_run_group_tests_name("real toolkit libraries: NVVM, nvFatbin, nvJPEG", tests, NULL, NULL);
}
