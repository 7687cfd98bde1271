/*
 * tests/machine/fake_cuda.c - a stand-in for the driver's libcuda.so.1 (soname libcuda.so.1) for
 * tests/test_machine.c: CUDA 13.0 and FAKE_GPU_COUNT GPUs (default 1); with none, cuInit answers
 * CUDA_ERROR_NO_DEVICE (100) as the real driver does. With FAKE_UNTERMINATED=1 every text is
 * written to the whole buffer with no terminating NUL, as a faulty driver would. Never creates anything.
 */
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
enum { OK = 0, INVALID_VALUE = 1, NO_DEVICE = 100, INVALID_DEVICE = 101 };

static int unterminated(char *out, int length)
{
    const char *on = getenv("FAKE_UNTERMINATED");
    if (on == NULL || strcmp(on, "1") != 0)
        return 0;
    memset(out, 'x', (size_t)length);
    return 1;
}

static int gpus(void)
{
    const char *n = getenv("FAKE_GPU_COUNT");
    return n != NULL ? atoi(n) : 1;
}

EXPORT int cuDriverGetVersion(int *version)
{
    *version = 13000;
    return OK;
}
EXPORT int cuInit(unsigned flags)
{
    (void)flags;
    return gpus() > 0 ? OK : NO_DEVICE;
}
EXPORT int cuDeviceGetCount(int *count)
{
    *count = gpus();
    return OK;
}
EXPORT int cuDeviceGet(int *device, int ordinal)
{
    if (ordinal < 0 || ordinal >= gpus())
        return INVALID_DEVICE;
    *device = ordinal;
    return OK;
}
EXPORT int cuDeviceGetName(char *name, int length, int device)
{
    (void)device;
    if (length < 16)
        return INVALID_VALUE;
    if (!unterminated(name, length))
        strcpy(name, "NVIDIA H100 (driver API)");
    return OK;
}
EXPORT int cuDeviceGetUuid_v2(unsigned char uuid[16], int device)
{
    static const unsigned char bytes[16] = {0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71,
                                            0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9};
    (void)device;
    memcpy(uuid, bytes, 16);
    return OK;
}
EXPORT int cuDeviceGetAttribute(int *value, int attribute, int device)
{
    (void)device;
    *value = attribute == 75 ? 9 : attribute == 76 ? 0 : 0;
    return OK;
}
EXPORT int cuDeviceTotalMem_v2(size_t *bytes, int device)
{
    (void)device;
    *bytes = 85520809984ull;
    return OK;
}
EXPORT int cuDeviceGetPCIBusId(char *bus, int length, int device)
{
    (void)device;
    if (length < 13)
        return INVALID_VALUE;
    if (!unterminated(bus, length))
        strcpy(bus, "0000:19:00.0");
    return OK;
}
