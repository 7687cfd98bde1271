/*
 * tests/gpu/cufile_cubind.c - cuFile (GPUDirect Storage) through cubind's wrappers on the GPU machine
 * (tests/gpu/toolkit.sh), beside tests/gpu/cufile.c, which asks the same of the file directly:
 * cubind_cufile_get_version, cubind_cufile_driver_open and, when it opened, cubind_cufile_driver_close_v2,
 * each status record printed (err, cu_err) with cubind's error record for a failure (its message names
 * cu_err when err is CU_FILE_CUDA_DRIVER_ERROR). The file is the one cubind finds (CUBIND_CUFILE_PATH
 * names one). Strict C11: cubind's cufile.h needs no feature-test macro, where NVIDIA's needs
 * _DEFAULT_SOURCE.
 * Exit status: 1 when cubind cannot load libcufile or cubind_cufile_get_version fails, else 0
 * (cuFileDriverOpen may answer that GPUDirect Storage is unavailable: printed, not failed).
 */
#include <stdio.h>

#include "cubind/cubind.h"

/* "err CU_FILE_NVFS_SETUP_ERROR (5033), cu_err 0", then cubind's record of the failure. */
static void print_status(const char *function, CUfileError_t status)
{
    printf("  %s: err %s (%d), cu_err %d\n", function, cubind_status_name(CUBIND_LIB_CUFILE, (int)status.err),
           (int)status.err, (int)status.cu_err);
    if (status.err != CU_FILE_SUCCESS)
        printf("    cubind_last_error: status %d, \"%s\"\n", cubind_last_error()->status, cubind_last_error()->message);
}

int main(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    CUfileError_t status;
    int version = -1;
    status = cubind_cufile_get_version(&version);
    print_status("cubind_cufile_get_version", status);
    if (cubind_library_info(CUBIND_LIB_CUFILE, &info) == CUBIND_OK && info.found)
        printf("  loaded %s (soname %s), version %d.%d (%s)\n", info.path, info.soname, info.version_major,
               info.version_minor, info.version_source);
    if (status.err != CU_FILE_SUCCESS)
        return 1;
    printf("  version %d (1000 major + 10 minor: %d.%d)\n", version, version / 1000, version % 1000 / 10);
    status = cubind_cufile_driver_open();
    print_status("cubind_cufile_driver_open", status);
    printf("  cubind_cufile_use_count: %ld\n", cubind_cufile_use_count());
    if (status.err == CU_FILE_SUCCESS)
        print_status("cubind_cufile_driver_close_v2", cubind_cufile_driver_close_v2());
    return 0;
}
