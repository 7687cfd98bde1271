/*
 * tests/gpu/cufile.c LIBCUFILE... - what cuFile (GPUDirect Storage) answers on the GPU machine: for each
 * file named (a path, or a soname the dynamic loader searches), cuFileGetVersion, cuFileDriverOpen,
 * cuFileUseCount and, when the driver opened, cuFileDriverClose_v2 (cufile.h's cuFileDriverClose).
 * A measurement for the record, not a test: the file is opened with dlopen and called as NVIDIA's
 * cufile.h (CUDA 12.4's, cuFile 1.9.1) declares it, with the status named by that header's own
 * cufileop_status_error: what cubind's wrappers answer (tests/gpu/cufile_cubind.c) is compared with it. cuFileDriverOpen may answer that GPUDirect Storage is unavailable (no
 * nvidia-fs kernel module, no supported file system): printed with its name and code.
 * Exit status: the number of files that could not be opened or lack cuFileGetVersion/cuFileDriverOpen.
 */
#define _GNU_SOURCE /* dlinfo: the path of the file a soname found */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include <cufile.h>

typedef CUfileError_t (*version_fn)(int *);
typedef CUfileError_t (*status_fn)(void);
typedef long (*count_fn)(void);

/* "CU_FILE_NVFS_SETUP_ERROR (5033): NVFS driver initialization error", with the driver's CUresult when
 * err is CU_FILE_CUDA_DRIVER_ERROR (cufile.h's IS_CUDA_ERR and CU_FILE_CUDA_ERR). */
static void print_status(const char *function, CUfileError_t status)
{
    printf("  %s: err %d (%s)", function, (int)status.err, CUFILE_ERRSTR((int)status.err));
    if (IS_CUDA_ERR(status))
        printf(", cu_err %d", (int)CU_FILE_CUDA_ERR(status));
    printf("%s\n", status.err == CU_FILE_SUCCESS ? ": ok" : "");
}

static int ask(const char *file)
{
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    struct link_map *map = NULL;
    version_fn get_version;
    status_fn open_driver, close_driver;
    count_fn use_count;
    CUfileError_t status;
    int version = -1;
    printf("%s\n", file);
    if (handle == NULL) {
        printf("  not loaded: %s\n", dlerror());
        return 1;
    }
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL)
        printf("  loaded from %s\n", map->l_name);
    *(void **)&get_version = dlsym(handle, "cuFileGetVersion");
    *(void **)&open_driver = dlsym(handle, "cuFileDriverOpen");
    *(void **)&close_driver = dlsym(handle, "cuFileDriverClose_v2");
    *(void **)&use_count = dlsym(handle, "cuFileUseCount");
    if (get_version == NULL || open_driver == NULL) {
        printf("  lacks cuFileGetVersion or cuFileDriverOpen\n");
        return 1;
    }
    status = get_version(&version);
    print_status("cuFileGetVersion", status);
    printf("  version %d (1000 major + 10 minor: %d.%d)\n", version, version / 1000, version % 1000 / 10);
    status = open_driver();
    print_status("cuFileDriverOpen", status);
    if (use_count != NULL)
        printf("  cuFileUseCount: %ld\n", use_count());
    if (status.err == CU_FILE_SUCCESS && close_driver != NULL)
        print_status("cuFileDriverClose_v2", close_driver());
    dlclose(handle); /* the next file named is then loaded afresh, not found already loaded by its soname */
    return 0;
}

int main(int argc, char **argv)
{
    int i, failed = 0;
    for (i = 1; i < argc; ++i)
        failed += ask(argv[i]);
    return failed;
}
