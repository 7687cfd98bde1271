/*
 * loader/machine.c - the GPU driver and the GPUs (include/cubind/machine.h, docs/machine.md):
 * cubind_driver_info, cubind_gpu_info, cubind_gpu_count. Layer 8, beside info.c: it asks
 * library.c (7) to load NVML and the driver and to resolve their functions, which it calls
 * directly (a query that fails here is a fact to report, not an error of the program's), reads
 * the kernel module's version (no_gpu, 1), publishes why no GPU can be used (no_gpu) and records
 * errors (error, 2).
 *
 * The facts are gathered once (cubind__once) and kept: no CUDA context is ever created (cuInit and
 * cuDeviceGet* only), and NVML is initialized once and never shut down: the init its version query
 * made when it was loaded is kept in force (library_version.h), and only when that one failed is it
 * initialized here. Every text a library writes is terminated inside its buffer, and every count it
 * gives is checked against the range cubind can hold (CUBIND__GPU_COUNT_MAX).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/machine.h"

#include "error.h"
#include "internal.h"
#include "library.h"
#include "no_gpu.h"
#include "platform.h"
#include "strbuf.h"

/* NVIDIA's values and layouts that this file relies on (nvml.h of 12.4, cuda.h of 13.0), written
 * here so that a build of a subset of the libraries (without their types) compiles it too. */
enum { NVML_OK = 0, NVML_NOT_SUPPORTED = 3, NVML_NO_GPUS_FLAG = 1, CU_OK = 0 };
enum { CU_ATTRIBUTE_CC_MAJOR = 75, CU_ATTRIBUTE_CC_MINOR = 76 };
/* More GPUs than one machine holds (NVML's own limit is far below): a count above is a fault. */
enum { CUBIND__GPU_COUNT_MAX = 4096 };
struct nvml_memory { unsigned long long total, free, used; };            /* nvmlMemory_t */
struct nvml_pci { char legacy[16]; unsigned domain, bus, device, id, subsystem; char bus_id[32]; }; /* nvmlPciInfo_t */
typedef int (*fn_void)(void);
typedef int (*fn_uint)(unsigned);
typedef int (*fn_int_ptr)(int *);
typedef int (*fn_uint_ptr)(unsigned *);
typedef int (*fn_text)(char *, unsigned);
typedef int (*fn_nvml_index)(unsigned, void **);
typedef int (*fn_nvml_by_pci)(const char *, void **);
typedef int (*fn_nvml_text)(void *, char *, unsigned);
typedef int (*fn_nvml_memory)(void *, struct nvml_memory *);
typedef int (*fn_nvml_two)(void *, unsigned *, unsigned *);
typedef int (*fn_nvml_cc)(void *, int *, int *);
typedef int (*fn_nvml_pci)(void *, struct nvml_pci *);
typedef int (*fn_cu_device)(int *, int);
typedef int (*fn_cu_name)(char *, int, int);
typedef int (*fn_cu_uuid)(unsigned char *, int);
typedef int (*fn_cu_attribute)(int *, int, int);
typedef int (*fn_cu_memory)(size_t *, int);

static struct {
    struct cubind_driver_info driver;
    char release[96];
    const char *driver_function; /* the driver call that failed (cuInit, cuDeviceGetCount), or NULL */
    int driver_status;
    int driver_loaded;
    struct cubind_gpu_info *gpus; /* driver.gpu_count of them */
} facts;
static cubind__once_flag gather_once = CUBIND__ONCE_INIT;

/* The entry point a call of `name` (the C API name) reaches in the loaded `library`, or NULL. */
static cubind__fnptr entry(cubind_library library, const char *name)
{
    const cubind__symbol_table *t = cubind__symbols(library);
    cubind__resolution r;
    size_t i;
    for (i = 0; i < t->count; ++i) {
        if (strcmp(cubind__function_name(t, i), name) == 0) {
            cubind__resolve_in_release(library, t, i, &r);
            return r.fn;
        }
    }
    return NULL;
}

/* A formatted text, kept for the life of the process (NULL when out of memory). */
static char *text(const char *format, ...) CUBIND_PRINTF(1, 2);
static char *text(const char *format, ...)
{
    va_list args;
    char *out;
    int n;
    va_start(args, format);
    n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (n < 0 || (out = malloc((size_t)n + 1)) == NULL)
        return NULL;
    va_start(args, format);
    vsnprintf(out, (size_t)n + 1, format, args);
    va_end(args);
    return out;
}

/* NVML and the driver, found by name among the libraries of this build (CUBIND_LIBRARY_COUNT when
 * the build has none: a subset, a tree of other libraries). */
static cubind_library nvml_lib = CUBIND_LIBRARY_COUNT, driver_lib = CUBIND_LIBRARY_COUNT;

static cubind_library library_named(const char *name)
{
    int i;
    for (i = 0; i < CUBIND_LIBRARY_COUNT; ++i) /* a library a subset leaves out keeps its name, not its sonames */
        if (strcmp(cubind__libraries[i].name, name) == 0 && cubind__libraries[i].soname_count > 0)
            return (cubind_library)i;
    return CUBIND_LIBRARY_COUNT;
}

/* Why no GPU can be used (no_gpu.h), decided now if no failing call has yet. */
static const cubind__no_gpu_reason *no_gpu(void)
{
    const cubind__no_gpu_reason *r = cubind__no_gpu_known();
    return r != NULL ? r : cubind__no_gpu_decide();
}

/* cubind__ensure_loaded, or CUBIND__LOAD_FAILED with `why` when the build has no such library. */
static int load(cubind_library library, const char *name, char **why)
{
    int outcome;
    if (library == CUBIND_LIBRARY_COUNT) {
        *why = text("this build of cubind has no %s library", name);
        return CUBIND__LOAD_FAILED;
    }
    outcome = cubind__ensure_loaded(library);
    if (outcome != CUBIND__LOAD_OK)
        *why = text("%s", cubind__load_error(library, outcome));
    return outcome;
}

static const char *status_text(cubind_library library, int status)
{
    const char *name = cubind_status_name(library, status);
    return name != NULL ? name : "an unknown status";
}

/* A text a library wrote into `buffer` (`size` bytes), terminated inside it whatever it wrote. */
static char *terminated(char *buffer, size_t size)
{
    buffer[size - 1] = '\0';
    return buffer;
}

/* "580.159.04" -> 580, 159, 4 (-1 for an absent part). */
static void release_numbers(const char *release, int out[3])
{
    int i;
    char *end;
    const char *p = release;
    for (i = 0; i < 3; ++i) {
        long value = -1;
        if (p != NULL && *p >= '0' && *p <= '9') {
            value = strtol(p, &end, 10);
            p = *end == '.' ? end + 1 : NULL;
        } else {
            p = NULL;
        }
        out[i] = (int)value;
    }
}

static void init_gpu(struct cubind_gpu_info *g, int index)
{
    memset(g, 0, sizeof *g);
    g->size = sizeof *g;
    g->index = index;
    g->compute_major = g->compute_minor = -1;
    g->mig_current = g->mig_pending = CUBIND_MIG_UNKNOWN;
    g->nvml_index = -1;
}

/* What NVML says of GPU `g` (its handle `device`): it takes precedence over the driver API's. */
static void nvml_gpu(void *device, struct cubind_gpu_info *g)
{
    fn_nvml_text name = (fn_nvml_text)entry(nvml_lib, "nvmlDeviceGetName");
    fn_nvml_text uuid = (fn_nvml_text)entry(nvml_lib, "nvmlDeviceGetUUID");
    fn_nvml_memory memory = (fn_nvml_memory)entry(nvml_lib, "nvmlDeviceGetMemoryInfo");
    fn_nvml_cc cc = (fn_nvml_cc)entry(nvml_lib, "nvmlDeviceGetCudaComputeCapability");
    fn_nvml_two mig = (fn_nvml_two)entry(nvml_lib, "nvmlDeviceGetMigMode");
    fn_nvml_pci pci = (fn_nvml_pci)entry(nvml_lib, "nvmlDeviceGetPciInfo");
    int (*index)(void *, unsigned *) = (int (*)(void *, unsigned *))entry(nvml_lib, "nvmlDeviceGetIndex");
    struct nvml_memory m = {0, 0, 0};
    struct nvml_pci p;
    unsigned current = 0, pending = 0, i = 0;
    int major = -1, minor = -1, status;
    char buf[CUBIND_GPU_NAME_MAX];
    if (name != NULL && name(device, buf, sizeof buf) == NVML_OK) {
        memcpy(g->name, buf, sizeof g->name);
        terminated(g->name, sizeof g->name);
        g->name_source = CUBIND_SOURCE_NVML;
    }
    if (uuid != NULL && uuid(device, buf, sizeof buf) == NVML_OK) {
        memcpy(g->uuid, buf, sizeof g->uuid);
        terminated(g->uuid, sizeof g->uuid);
        g->uuid_source = CUBIND_SOURCE_NVML;
    }
    if (memory != NULL && memory(device, &m) == NVML_OK) {
        g->memory_total = m.total;
        g->memory_source = CUBIND_SOURCE_NVML;
    }
    if (cc != NULL && cc(device, &major, &minor) == NVML_OK) {
        g->compute_major = major;
        g->compute_minor = minor;
        g->compute_source = CUBIND_SOURCE_NVML;
    }
    if (mig != NULL) {
        status = mig(device, &current, &pending);
        if (status == NVML_OK) {
            g->mig_current = current ? CUBIND_MIG_ENABLED : CUBIND_MIG_DISABLED;
            g->mig_pending = pending ? CUBIND_MIG_ENABLED : CUBIND_MIG_DISABLED;
            g->mig_source = CUBIND_SOURCE_NVML;
        } else if (status == NVML_NOT_SUPPORTED) {
            g->mig_current = g->mig_pending = CUBIND_MIG_UNSUPPORTED;
            g->mig_source = CUBIND_SOURCE_NVML;
        }
    }
    memset(&p, 0, sizeof p);
    if (pci != NULL && pci(device, &p) == NVML_OK) {
        memcpy(g->pci_bus_id, p.bus_id, sizeof g->pci_bus_id);
        terminated(g->pci_bus_id, sizeof g->pci_bus_id);
        g->pci_source = CUBIND_SOURCE_NVML;
    }
    if (index != NULL && index(device, &i) == NVML_OK)
        g->nvml_index = (int)i;
}

/* What the driver API says of CUDA device `ordinal`. */
static void driver_gpu(int ordinal, struct cubind_gpu_info *g)
{
    fn_cu_device get = (fn_cu_device)entry(driver_lib, "cuDeviceGet");
    fn_cu_name name = (fn_cu_name)entry(driver_lib, "cuDeviceGetName");
    fn_cu_uuid uuid = (fn_cu_uuid)entry(driver_lib, "cuDeviceGetUuid");
    fn_cu_attribute attribute = (fn_cu_attribute)entry(driver_lib, "cuDeviceGetAttribute");
    fn_cu_memory memory = (fn_cu_memory)entry(driver_lib, "cuDeviceTotalMem");
    fn_cu_name pci = (fn_cu_name)entry(driver_lib, "cuDeviceGetPCIBusId");
    unsigned char bytes[16];
    size_t total = 0;
    int device = 0, major = -1, minor = -1;
    init_gpu(g, ordinal);
    if (get == NULL || get(&device, ordinal) != CU_OK)
        return;
    if (name != NULL && name(g->name, (int)sizeof g->name, device) == CU_OK && terminated(g->name, sizeof g->name))
        g->name_source = CUBIND_SOURCE_DRIVER;
    if (uuid != NULL && uuid(bytes, device) == CU_OK) {
        /* as nvidia-smi writes it: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx */
        const unsigned char *b = bytes;
        snprintf(g->uuid, sizeof g->uuid,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
                 b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
        g->uuid_source = CUBIND_SOURCE_DRIVER;
    }
    if (attribute != NULL && attribute(&major, CU_ATTRIBUTE_CC_MAJOR, device) == CU_OK &&
        attribute(&minor, CU_ATTRIBUTE_CC_MINOR, device) == CU_OK) {
        g->compute_major = major;
        g->compute_minor = minor;
        g->compute_source = CUBIND_SOURCE_DRIVER;
    }
    if (memory != NULL && memory(&total, device) == CU_OK) {
        g->memory_total = total;
        g->memory_source = CUBIND_SOURCE_DRIVER;
    }
    if (pci != NULL && pci(g->pci_bus_id, (int)sizeof g->pci_bus_id, device) == CU_OK &&
        terminated(g->pci_bus_id, sizeof g->pci_bus_id))
        g->pci_source = CUBIND_SOURCE_DRIVER;
}

static int gather_nvml(void)
{
    fn_uint init_flags;
    fn_void init;
    fn_text version;
    fn_int_ptr cuda;
    char *why = NULL;
    int status;
    if (load(nvml_lib, "nvml", &why) != CUBIND__LOAD_OK) {
        facts.driver.nvml_error = why;
        return 0;
    }
    if (cubind__opened_of(nvml_lib)->version_unasked) { /* its query (and init) crashed where it was asked */
        facts.driver.nvml_error = text("NVML is asked nothing: CUBIND_NO_VERSION_QUERY names it");
        return 0;
    }
    init_flags = (fn_uint)entry(nvml_lib, "nvmlInitWithFlags");
    init = (fn_void)entry(nvml_lib, "nvmlInit");
    if (cubind__opened_of(nvml_lib)->held_fini != NULL) /* initialized by its version query, and kept so */
        status = NVML_OK;
    else
        status = init_flags != NULL ? init_flags(NVML_NO_GPUS_FLAG) : init != NULL ? init() : -1;
    if (status != NVML_OK) {
        facts.driver.nvml_error = status == -1 ? text("NVML exports neither nvmlInitWithFlags nor nvmlInit_v2")
                                               : text("%s returned %s (%d)", init_flags != NULL ? "nvmlInitWithFlags"
                                                      : "nvmlInit", status_text(nvml_lib, status), status);
        return 0;
    }
    version = (fn_text)entry(nvml_lib, "nvmlSystemGetDriverVersion");
    if (version != NULL && version(facts.release, sizeof facts.release) == NVML_OK &&
        terminated(facts.release, sizeof facts.release)[0] != '\0') {
        facts.driver.release = facts.release;
        facts.driver.release_source = CUBIND_SOURCE_NVML;
    }
    cuda = (fn_int_ptr)entry(nvml_lib, "nvmlSystemGetCudaDriverVersion_v2");
    if (cuda != NULL && cuda(&status) == NVML_OK) {
        facts.driver.cuda_major = status / 1000;
        facts.driver.cuda_minor = status % 1000 / 10;
        facts.driver.cuda_source = CUBIND_SOURCE_NVML;
    }
    return 1;
}

static void gather_driver(void)
{
    const cubind__opened *loaded;
    fn_uint init;
    fn_int_ptr count;
    char *why = NULL;
    int status, value = 0;
    if (load(driver_lib, "driver", &why) != CUBIND__LOAD_OK) {
        facts.driver.driver_error = why;
        return;
    }
    facts.driver_loaded = 1;
    /* the CUDA level: what its version query, cuDriverGetVersion, answered when it was loaded; not
     * asked again (nor at all when CUBIND_NO_VERSION_QUERY names the driver: it crashed there) */
    loaded = cubind__opened_of(driver_lib);
    if (loaded->version_origin == CUBIND_VERSION_ORIGIN_QUERY && loaded->version[0] >= 0 && loaded->version[1] >= 0) {
        facts.driver.cuda_major = loaded->version[0];
        facts.driver.cuda_minor = loaded->version[1];
        facts.driver.cuda_source = CUBIND_SOURCE_DRIVER;
    }
    init = (fn_uint)entry(driver_lib, "cuInit");
    count = (fn_int_ptr)entry(driver_lib, "cuDeviceGetCount");
    facts.driver_function = "cuInit";
    status = init != NULL ? init(0) : -1;
    if (status == CU_OK) {
        facts.driver_function = "cuDeviceGetCount";
        value = 0;
        status = count != NULL ? count(&value) : -1;
    }
    if (status != CU_OK) {
        facts.driver_status = status;
        facts.driver.driver_error = status == -1 ? text("libcuda exports no %s", facts.driver_function)
                                                 : text("%s returned %s (%d)", facts.driver_function,
                                                        status_text(driver_lib, status), status);
        return;
    }
    facts.driver_function = NULL;
    if (value < 0 || value > CUBIND__GPU_COUNT_MAX) {
        facts.driver.driver_error = text("cuDeviceGetCount answered %d GPUs, out of range (0 to %d)", value,
                                         CUBIND__GPU_COUNT_MAX);
        return;
    }
    facts.driver.gpu_count = value;
    facts.driver.gpu_count_source = CUBIND_SOURCE_DRIVER;
}

/* Why no GPU can be used, for every failing call's message (no_gpu.h); "" when one can. */
static void publish_reason(void)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    char *why;
    if (!facts.driver_loaded)
        why = text("no CUDA driver: %s", facts.driver.driver_error);
    else if (facts.driver.gpu_count > 0)
        why = text("%s", "");
    else
        why = text("driver %s, no GPU visible (%s%s%s%s%s)", facts.driver.release ? facts.driver.release : "of an unknown release",
                   facts.driver.driver_error ? facts.driver.driver_error : "", facts.driver.driver_error ? "; " : "",
                   "CUDA_VISIBLE_DEVICES", visible ? "=" : " unset", visible ? visible : "");
    if (why != NULL && driver_lib != CUBIND_LIBRARY_COUNT) /* a build without the driver: nothing to say */
        cubind__no_gpu_publish(why);
    free(why);
}

static void gather_facts(void)
{
    char module[96];
    int nvml, i, count = 0;
    fn_uint_ptr nvml_count;
    fn_nvml_index nvml_handle;
    fn_nvml_by_pci by_pci;
    facts.driver.size = sizeof facts.driver;
    facts.driver.release_major = facts.driver.release_minor = facts.driver.release_patch = -1;
    facts.driver.cuda_major = facts.driver.cuda_minor = -1;
    facts.driver.gpu_count = -1;
    nvml_lib = library_named("nvml");
    driver_lib = library_named("driver");
    nvml = gather_nvml();
    if (facts.driver.release == NULL && cubind__kernel_driver_release(facts.release, sizeof facts.release)) {
        facts.driver.release = facts.release;
        facts.driver.release_source = CUBIND_SOURCE_KERNEL;
    }
    if (facts.driver.release != NULL) {
        int n[3];
        release_numbers(facts.driver.release, n);
        facts.driver.release_major = n[0];
        facts.driver.release_minor = n[1];
        facts.driver.release_patch = n[2];
    }
    gather_driver();
    /* a build without the driver API: the GPUs the kernel module lists, when nothing says none can be used */
    if (driver_lib == CUBIND_LIBRARY_COUNT && facts.driver.gpu_count < 0 && no_gpu()->length == 0 &&
        cubind__kernel_driver_release(module, sizeof module)) {
        facts.driver.gpu_count = cubind__kernel_gpu_count();
        facts.driver.gpu_count_source = CUBIND_SOURCE_KERNEL;
    }
    nvml_count = nvml ? (fn_uint_ptr)entry(nvml_lib, "nvmlDeviceGetCount") : NULL;
    nvml_handle = nvml ? (fn_nvml_index)entry(nvml_lib, "nvmlDeviceGetHandleByIndex") : NULL;
    by_pci = nvml ? (fn_nvml_by_pci)entry(nvml_lib, "nvmlDeviceGetHandleByPciBusId") : NULL;
    if (facts.driver.gpu_count < 0 && !facts.driver_loaded && nvml_count != NULL) {
        unsigned n = 0;
        if (nvml_count(&n) != NVML_OK) {
            /* no count: unknown */
        } else if (n > CUBIND__GPU_COUNT_MAX) {
            facts.driver.nvml_error = text("nvmlDeviceGetCount_v2 answered %u GPUs, out of range (0 to %d)", n,
                                           CUBIND__GPU_COUNT_MAX);
        } else {
            facts.driver.gpu_count = (int)n;
            facts.driver.gpu_count_source = CUBIND_SOURCE_NVML;
        }
    }
    count = facts.driver.gpu_count > 0 ? facts.driver.gpu_count : 0;
    facts.gpus = count > 0 ? calloc((size_t)count, sizeof *facts.gpus) : NULL;
    if (facts.gpus == NULL)
        count = 0;
    for (i = 0; i < count; ++i) {
        struct cubind_gpu_info *g = &facts.gpus[i];
        void *device = NULL;
        if (facts.driver.gpu_count_source == CUBIND_SOURCE_DRIVER) {
            driver_gpu(i, g);
            if (by_pci != NULL && g->pci_bus_id[0] != '\0' && by_pci(g->pci_bus_id, &device) == NVML_OK)
                nvml_gpu(device, g);
        } else {
            init_gpu(g, i);
            if (nvml_handle != NULL && nvml_handle((unsigned)i, &device) == NVML_OK)
                nvml_gpu(device, g);
        }
    }
    publish_reason();
}

const char *cubind_fact_source_name(cubind_fact_source source)
{
    switch (source) {
    case CUBIND_SOURCE_NONE: return "none";
    case CUBIND_SOURCE_NVML: return "nvml";
    case CUBIND_SOURCE_DRIVER: return "driver";
    case CUBIND_SOURCE_KERNEL: return "kernel module";
    }
    return "unknown";
}

/* Copy `from` (a struct whose first member is its size) into the caller's, no more than its size. */
static cubind_error_kind copy_sized(const char *function, void *out, const void *from, size_t size)
{
    size_t wanted;
    if (out == NULL) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, function, 0, "%s: NULL struct", function);
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    memcpy(&wanted, out, sizeof wanted);
    if (wanted < sizeof(size_t)) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, function, 0,
                             "%s: size %zu is smaller than the struct's first member (set size = sizeof first)",
                             function, wanted);
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    if (wanted > size)
        wanted = size;
    memcpy(out, from, wanted);
    memcpy(out, &wanted, sizeof wanted);
    return CUBIND_OK;
}

cubind_error_kind cubind_driver_info(struct cubind_driver_info *info)
{
    cubind__once(&gather_once, gather_facts); /* NVML and the driver do I/O: uncancelled */
    return copy_sized("cubind_driver_info", info, &facts.driver, sizeof facts.driver);
}

cubind_error_kind cubind_gpu_info(int index, struct cubind_gpu_info *info)
{
    cubind__once(&gather_once, gather_facts); /* NVML and the driver do I/O: uncancelled */
    if (index < 0 || facts.gpus == NULL || index >= facts.driver.gpu_count) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, "cubind_gpu_info", 0,
                             "cubind_gpu_info: no GPU %d (%d visible%s%s)", index,
                             facts.driver.gpu_count < 0 ? 0 : facts.driver.gpu_count,
                             no_gpu()->length != 0 ? ": " : "", no_gpu()->text);
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    return copy_sized("cubind_gpu_info", info, &facts.gpus[index], sizeof facts.gpus[index]);
}

cubind_error_kind cubind_gpu_count(int *count)
{
    if (count == NULL) {
        cubind__error_record(CUBIND_ERROR_INVALID_ARGUMENT, CUBIND_LIB_NONE, "cubind_gpu_count", 0,
                             "cubind_gpu_count: NULL count");
        return CUBIND_ERROR_INVALID_ARGUMENT;
    }
    cubind__once(&gather_once, gather_facts); /* NVML and the driver do I/O: uncancelled */
    *count = facts.driver.gpu_count > 0 ? facts.driver.gpu_count : 0;
    if (*count > 0)
        return CUBIND_OK;
    if (!facts.driver_loaded) {
        cubind__error_record(CUBIND_ERROR_LIBRARY_NOT_FOUND, driver_lib == CUBIND_LIBRARY_COUNT ? CUBIND_LIB_NONE
                             : driver_lib, "cubind_gpu_count", driver_lib == CUBIND_LIBRARY_COUNT ? 0
                             : cubind__libraries[driver_lib].status_missing_library, "cubind_gpu_count: %s",
                             no_gpu()->text);
        return CUBIND_ERROR_LIBRARY_NOT_FOUND;
    }
    cubind__error_record(CUBIND_ERROR_STATUS, driver_lib,
                         facts.driver_function ? facts.driver_function : "cuDeviceGetCount",
                         facts.driver_function ? facts.driver_status : 0, "cubind_gpu_count: %s", no_gpu()->text);
    return CUBIND_ERROR_STATUS;
}
