/*
 * cubind/machine.h - the machine's CUDA: the GPU driver, its GPUs, and whether the libraries
 * loaded fit together (docs/machine.md). Included by cubind/cubind.h.
 *
 * Every fact says where it came from (enum cubind_fact_source): NVML (libnvidia-ml.so.1, which
 * comes with the driver), the driver API (libcuda.so.1: cuInit and cuDeviceGet*, never a context),
 * or the kernel module (/proc/driver/nvidia). Nothing here creates a CUDA context. The facts are
 * gathered once, on the first call of one of these functions, and kept for the life of the process.
 */
#ifndef CUBIND_MACHINE_H
#define CUBIND_MACHINE_H

/* A system header, as every cubind header (cubind/platform.h says why). */
#if (defined(__GNUC__) || defined(__clang__)) && __INCLUDE_LEVEL__ > 0 && !defined(CUBIND_HEADER_WARNINGS)
#pragma GCC system_header
#endif

#include <stddef.h>

#include "cubind/core.h"

CUBIND_EXTERN_C_BEGIN

/* Where a fact came from. */
typedef enum cubind_fact_source {
    CUBIND_SOURCE_NONE = 0,   /* not known: no source answered */
    CUBIND_SOURCE_NVML = 1,   /* NVML (nvmlSystemGetDriverVersion, nvmlDeviceGet*) */
    CUBIND_SOURCE_DRIVER = 2, /* the driver API (cuDriverGetVersion, cuDeviceGet*), without a context */
    CUBIND_SOURCE_KERNEL = 3  /* the kernel module: /proc/driver/nvidia/version */
} cubind_fact_source;

/* The name of a source: "none", "nvml", "driver", "kernel module"; "unknown" for another value. */
CUBIND_API const char *cubind_fact_source_name(cubind_fact_source source);

/* The GPU driver; see cubind_driver_info. Strings stay valid for the life of the process.
 * Extensible as struct cubind_library_info: set `size` first; cubind writes no more than it. */
struct cubind_driver_info {
    size_t size;                 /* in: sizeof(struct cubind_driver_info); out: bytes filled */
    const char *release;         /* the driver release, "580.159.04" (nvmlSystemGetDriverVersion, else the
                                    kernel module's version); NULL when unknown */
    int release_major;           /* 580; -1 when unknown */
    int release_minor;           /* 159; -1 when unknown */
    int release_patch;           /* 4 (from "04"); -1 when unknown or absent ("535.54") */
    cubind_fact_source release_source;
    int cuda_major;              /* the CUDA level the driver supports: 13 for cuDriverGetVersion's 13000 */
    int cuda_minor;              /* 0; cuda_major and cuda_minor are -1 when unknown */
    cubind_fact_source cuda_source; /* DRIVER (cuDriverGetVersion), else NVML (nvmlSystemGetCudaDriverVersion_v2) */
    int gpu_count;               /* GPUs a CUDA program sees (cuDeviceGetCount, which honours
                                    CUDA_VISIBLE_DEVICES), else NVML's count (every GPU); -1 when unknown */
    cubind_fact_source gpu_count_source;
    const char *nvml_error;      /* why NVML gave nothing (not found, nvmlInit failed, ...); NULL when it answered */
    const char *driver_error;    /* why the driver API gave nothing (libcuda.so.1 not found, cuInit failed:
                                    CUDA_ERROR_NO_DEVICE, ...); NULL when it answered */
};

/*
 * cubind_driver_info - the GPU driver: its release, the CUDA level it supports, how many GPUs.
 * @info  filled; info->size set by the caller first.
 * Loads NVML and the driver when not loaded yet, calls nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS)
 * (else nvmlInit_v2) and cuInit(0) once; creates no context. A source that fails is said in
 * nvml_error / driver_error, and the facts come from the others.
 * Returns CUBIND_OK (even when nothing answered: see the sources), CUBIND_ERROR_INVALID_ARGUMENT
 * for a NULL info or a size smaller than the struct's first member.
 */
CUBIND_API cubind_error_kind cubind_driver_info(struct cubind_driver_info *info);

/* Mode of MIG (Multi-Instance GPU), as NVML says it. */
typedef enum cubind_mig_mode {
    CUBIND_MIG_UNKNOWN = -1,  /* not known (no NVML, or the GPU cannot tell) */
    CUBIND_MIG_DISABLED = 0,  /* NVML_DEVICE_MIG_DISABLE */
    CUBIND_MIG_ENABLED = 1,   /* NVML_DEVICE_MIG_ENABLE */
    CUBIND_MIG_UNSUPPORTED = 2 /* nvmlDeviceGetMigMode returned NVML_ERROR_NOT_SUPPORTED (nvidia-smi: N/A) */
} cubind_mig_mode;

#define CUBIND_GPU_NAME_MAX 96 /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define CUBIND_GPU_UUID_MAX 96 /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */
#define CUBIND_GPU_PCI_MAX 32  /* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */

/* One GPU; see cubind_gpu_info. Extensible as struct cubind_library_info (set `size` first). */
struct cubind_gpu_info {
    size_t size;                       /* in: sizeof(struct cubind_gpu_info); out: bytes filled */
    int index;                         /* the CUDA device ordinal (as CUDA_VISIBLE_DEVICES leaves them) */
    char name[CUBIND_GPU_NAME_MAX];    /* "NVIDIA H100 80GB HBM3"; "" when unknown */
    cubind_fact_source name_source;
    char uuid[CUBIND_GPU_UUID_MAX];    /* "GPU-9a3c...", as nvidia-smi writes it; "" when unknown */
    cubind_fact_source uuid_source;
    int compute_major;                 /* compute capability: 9 for 9.0; -1 when unknown */
    int compute_minor;
    cubind_fact_source compute_source;
    unsigned long long memory_total;   /* bytes (nvmlDeviceGetMemoryInfo's total, else cuDeviceTotalMem);
                                          0 when unknown */
    cubind_fact_source memory_source;
    cubind_mig_mode mig_current;       /* nvmlDeviceGetMigMode's current mode */
    cubind_mig_mode mig_pending;       /* and the mode pending for the next GPU reset */
    cubind_fact_source mig_source;
    char pci_bus_id[CUBIND_GPU_PCI_MAX]; /* "00000000:19:00.0"; "" when unknown */
    cubind_fact_source pci_source;
    int nvml_index;                    /* the GPU's NVML index (nvidia-smi's); -1 when NVML does not know it */
};

/*
 * cubind_gpu_info - one GPU, without creating a context.
 * @index  the CUDA device ordinal, 0 .. gpu_count - 1 (cubind_gpu_count); where the driver API does
 *         not answer but NVML does, NVML's index.
 * @info   filled; info->size set by the caller first.
 * The driver API enumerates the GPUs (cuDeviceGet, cuDeviceGetName, cuDeviceGetUuid_v2,
 * cuDeviceGetAttribute, cuDeviceTotalMem_v2, cuDeviceGetPCIBusId); NVML, asked for the same GPU by
 * its PCI bus id (nvmlDeviceGetHandleByPciBusId_v2), gives its name, UUID, memory and MIG mode and
 * takes precedence; each field's *_source says which answered.
 * Returns CUBIND_OK; CUBIND_ERROR_INVALID_ARGUMENT (recorded) for a NULL info, a size too small or
 * an index out of range (no GPU at all included: cubind_gpu_count says why).
 */
CUBIND_API cubind_error_kind cubind_gpu_info(int index, struct cubind_gpu_info *info);

/*
 * cubind_gpu_count - how many GPUs a CUDA program sees here, or why none.
 * @count  receives the count (0 when none).
 * Returns CUBIND_OK with a count > 0. Otherwise *count is 0 and the reason is recorded
 * (cubind_last_error(), the handler called): CUBIND_ERROR_LIBRARY_NOT_FOUND with the driver's
 * load error ("no CUDA driver: libcuda.so.1 not found (tried ...)"), or CUBIND_ERROR_STATUS for
 * the driver's cuInit or cuDeviceGetCount with its status (CUDA_ERROR_NO_DEVICE) and a message
 * that names the driver release and CUDA_VISIBLE_DEVICES ("driver 580.159.04, no GPU visible
 * (CUDA_VISIBLE_DEVICES=...)"). CUBIND_ERROR_INVALID_ARGUMENT for a NULL count.
 */
CUBIND_API cubind_error_kind cubind_gpu_count(int *count);

/* A check's verdict. */
typedef enum cubind_verdict {
    CUBIND_CHECK_OK = 0,      /* fits */
    CUBIND_CHECK_WARNING = 1, /* works, with a limit (minor-version compatibility, mixed releases) */
    CUBIND_CHECK_ERROR = 2    /* will not work as it is (the driver is older than a library's release) */
} cubind_verdict;

/* One check; see cubind_check_get. Strings stay valid for the life of the process. */
struct cubind_check {
    size_t size;              /* in: sizeof(struct cubind_check); out: bytes filled */
    const char *name;         /* what is checked: "driver-supports-release", "coupled-release",
                                 "one-release-loaded", "parts-one-release" */
    cubind_library library;   /* the library it is about; CUBIND_LIB_NONE for the machine */
    cubind_verdict verdict;
    const char *reason;       /* one sentence: what was compared and what it means */
};

/*
 * cubind_check_count - run the checks of what is loaded now, and say how many there are.
 * Each loaded library gets (the driver's facts from cubind_driver_info, which loads NVML and the
 * driver when not loaded yet): whether the driver supports its CUDA release (the minimum driver of
 * each release is data: generator/libraries.toml), whether the libraries it is used with are of its
 * release, whether another release of it is loaded in the process too (the link map), and whether
 * its parts loaded beside it (objects named <its file>_<part>.so.N: cuDNN's libcudnn_ops.so.9, ...)
 * are of its version.
 * The results are kept until the next cubind_check_count (of any thread: take them in one thread).
 * Returns the number of checks (0 when no library is loaded), which cubind_check_get reads.
 */
CUBIND_API size_t cubind_check_count(void);

/*
 * cubind_check_get - one result of the last cubind_check_count.
 * @index  0 .. count - 1.
 * @check  filled; check->size set by the caller first.
 * Returns CUBIND_OK; CUBIND_ERROR_INVALID_ARGUMENT for an index out of range, a NULL check or a
 * size too small.
 */
CUBIND_API cubind_error_kind cubind_check_get(size_t index, struct cubind_check *check);

/* "ok", "warning", "error"; "unknown" for another value. */
CUBIND_API const char *cubind_verdict_name(cubind_verdict verdict);

CUBIND_EXTERN_C_END

#endif /* CUBIND_MACHINE_H */
