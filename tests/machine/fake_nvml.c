/*
 * tests/machine/fake_nvml.c - a stand-in for the driver's libnvidia-ml.so.1 (soname
 * libnvidia-ml.so.1) for tests/test_machine.c: a driver release and one GPU, as NVML would answer
 * them; FAKE_DRIVER_RELEASE (default 580.159.04) and FAKE_GPU_COUNT (default 1) change them. As the
 * real one (driver 580.159.04), nvmlSystemGetCudaDriverVersion answers NVML_ERROR_UNINITIALIZED
 * until nvmlInit_v2 (or nvmlInitWithFlags) was called; nvmlShutdown undoes one init, and
 * fake_nvml_init_calls / fake_nvml_init_count tell the tests how many inits were made and how many
 * are still in force. With FAKE_NVML_INIT_FD set, each init writes a byte to that file
 * descriptor, then sleeps FAKE_NVML_INIT_SLEEP_MS (a cancellation point, as the real one's I/O).
 * FAKE_GPU_COUNT is read as NVML's unsigned count (4294967295 is a count out of range). With
 * FAKE_UNTERMINATED=1 every text is written to the whole buffer with no terminating NUL, as a
 * faulty library would.
 * Built with -DFAKE_STUB it is the toolkit's link-time stub instead, as the real one behaves
 * (lib64/stubs/libnvidia-ml.so, seen on driver 580.159.04): nvmlInit_v2 answers
 * NVML_ERROR_DRIVER_NOT_LOADED (9), every other call NVML_ERROR_UNINITIALIZED (1), and each call
 * prints a warning to standard output. cubind must refuse it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
enum { OK = 0, UNINITIALIZED = 1, NOT_FOUND = 12, INVALID = 2, DRIVER_NOT_LOADED = 9 };

#ifdef FAKE_STUB
static void warn(void)
{
    printf("\nWARNING:\n\nYou should always run with libnvidia-ml.so that is installed with your\n"
           "NVIDIA Display Driver. (a stand-in of the toolkit's stub)\n");
}
EXPORT int nvmlSystemGetCudaDriverVersion(int *version)
{
    (void)version;
    warn();
    return UNINITIALIZED;
}
EXPORT int nvmlInit_v2(void)
{
    warn();
    return DRIVER_NOT_LOADED;
}
#else
static int device_token;

static int gpus(void)
{
    const char *n = getenv("FAKE_GPU_COUNT");
    return n != NULL ? atoi(n) : 1;
}

static int copy(char *out, unsigned length, const char *text)
{
    const char *unterminated = getenv("FAKE_UNTERMINATED");
    if (unterminated != NULL && strcmp(unterminated, "1") == 0) {
        memset(out, 'x', length);
        return OK;
    }
    if (strlen(text) >= length)
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    strcpy(out, text);
    return OK;
}

static int inits, init_calls;

EXPORT int fake_nvml_init_calls(void)
{
    return init_calls;
}
EXPORT int fake_nvml_init_count(void)
{
    return inits;
}
EXPORT int nvmlSystemGetCudaDriverVersion(int *version)
{
    if (inits == 0)
        return UNINITIALIZED;
    *version = 13000;
    return OK;
}
EXPORT int nvmlSystemGetCudaDriverVersion_v2(int *version)
{
    if (inits == 0)
        return UNINITIALIZED;
    *version = 13000;
    return OK;
}
static int init(void)
{
    const char *fd = getenv("FAKE_NVML_INIT_FD"), *ms = getenv("FAKE_NVML_INIT_SLEEP_MS");
    ++init_calls;
    if (fd != NULL && write(atoi(fd), "i", 1) == 1 && ms != NULL) {
        long n = atol(ms);
        nanosleep(&(struct timespec){n / 1000, n % 1000 * 1000000L}, NULL);
    }
    ++inits;
    return OK;
}
EXPORT int nvmlInit_v2(void)
{
    return init();
}
EXPORT int nvmlInitWithFlags(unsigned flags)
{
    (void)flags;
    return init();
}
EXPORT int nvmlShutdown(void)
{
    if (inits == 0)
        return UNINITIALIZED;
    --inits;
    return OK;
}
EXPORT int nvmlSystemGetDriverVersion(char *out, unsigned length)
{
    const char *release = getenv("FAKE_DRIVER_RELEASE");
    return copy(out, length, release != NULL ? release : "580.159.04");
}
EXPORT int nvmlDeviceGetCount_v2(unsigned *count)
{
    const char *n = getenv("FAKE_GPU_COUNT");
    *count = n != NULL ? (unsigned)strtoul(n, NULL, 10) : 1u;
    return OK;
}
EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned index, void **device)
{
    if ((int)index >= gpus())
        return INVALID;
    *device = &device_token;
    return OK;
}
EXPORT int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **device)
{
    if (strcmp(bus, "0000:19:00.0") != 0 && strcmp(bus, "00000000:19:00.0") != 0)
        return 6; /* NVML_ERROR_NOT_FOUND */
    *device = &device_token;
    return OK;
}
EXPORT int nvmlDeviceGetName(void *device, char *out, unsigned length)
{
    (void)device;
    return copy(out, length, "NVIDIA H100 80GB HBM3");
}
EXPORT int nvmlDeviceGetUUID(void *device, char *out, unsigned length)
{
    (void)device;
    return copy(out, length, "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9");
}
EXPORT int nvmlDeviceGetMemoryInfo(void *device, unsigned long long memory[3])
{
    (void)device;
    memory[0] = 85520809984ull; /* 81559 MiB */
    memory[1] = memory[0];
    memory[2] = 0;
    return OK;
}
EXPORT int nvmlDeviceGetCudaComputeCapability(void *device, int *major, int *minor)
{
    (void)device;
    *major = 9;
    *minor = 0;
    return OK;
}
EXPORT int nvmlDeviceGetMigMode(void *device, unsigned *current, unsigned *pending)
{
    (void)device;
    *current = 0;
    *pending = 1;
    return OK;
}
EXPORT int nvmlDeviceGetPciInfo_v3(void *device, char *info)
{
    (void)device;
    const char *unterminated = getenv("FAKE_UNTERMINATED");
    memset(info, 0, 16 + 5 * 4 + 32);
    if (unterminated != NULL && strcmp(unterminated, "1") == 0)
        memset(info + 16 + 5 * 4, 'x', 32);
    else
        strcpy(info + 16 + 5 * 4, "00000000:19:00.0");
    return OK;
}
EXPORT int nvmlDeviceGetIndex(void *device, unsigned *index)
{
    (void)device;
    *index = 0;
    return OK;
}
#endif
