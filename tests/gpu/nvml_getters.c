/*
 * tests/gpu/nvml_getters.c - NVML's getters that NVML API 13 (CUDA 13.0's nvml.h) added, through cubind,
 * on a GPU machine's driver: one line per GPU and field, which tests/gpu/compare_nvml.py compares with
 * what nvidia-smi reports of the same field.
 *
 *     called-as <release>                           the release cubind calls libnvidia-ml as
 *     branch <text>|unavailable <status>            nvmlSystemGetDriverBranch
 *     gpu <index> uuid <text>                       nvmlDeviceGetUUID (NVML API 12 has it: the key)
 *     gpu <index> <field> <value>|unavailable <status>
 *         index-by-uuid        nvmlDeviceGetIndex of nvmlDeviceGetHandleByUUIDV's device (ASCII UUID)
 *         temperature          nvmlDeviceGetTemperatureV, sensor NVML_TEMPERATURE_GPU (degrees C)
 *         margin-temperature   nvmlDeviceGetMarginTemperature (degrees C to the slowdown limit)
 *         addressing-mode      nvmlDeviceGetAddressingMode: None, HMM or ATS
 *         clock-freqs          nvmlDeviceGetCurrentClockFreqs (NVML's own text)
 *
 * "unavailable" carries the status's name (NVML_ERROR_NOT_SUPPORTED: the GPU has no such value); the
 * exit status is 1 when NVML cannot be initialized, when the library is not called as a release that
 * has these functions, or when a call fails with a status that is not NOT_SUPPORTED.
 */
#include <stdio.h>
#include <string.h>

#include "cubind/cubind.h"

static int failed;

/* A getter's status: 0 when it answered; else a line saying why not (and a failure but for NOT_SUPPORTED). */
static int answered(unsigned index, const char *field, nvmlReturn_t status)
{
    if (status == NVML_SUCCESS)
        return 1;
    printf("gpu %u %s unavailable %s\n", index, field, cubind_status_name(CUBIND_LIB_NVML, status));
    if (status != NVML_ERROR_NOT_SUPPORTED) {
        fprintf(stderr, "nvml_getters: %s\n", cubind_last_error()->message);
        failed++;
    }
    return 0;
}

static void device_fields(unsigned index)
{
    static const char *const modes[] = {"None", "HMM", "ATS"};
    nvmlDevice_t device, by_uuid;
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    nvmlUUID_t key;
    nvmlTemperature_t temperature;
    nvmlMarginTemperature_t margin;
    nvmlDeviceAddressingMode_t mode;
    nvmlDeviceCurrentClockFreqs_t freqs;
    unsigned found = 0;
    size_t length;
    if (!answered(index, "handle", cubind_nvml_device_get_handle_by_index(index, &device)) ||
        !answered(index, "uuid", cubind_nvml_device_get_uuid(device, uuid, sizeof uuid)))
        return;
    printf("gpu %u uuid %s\n", index, uuid);
    memset(&key, 0, sizeof key);
    key.version = nvmlUUID_v1;
    key.type = NVML_UUID_TYPE_ASCII;
    length = strlen(uuid) < sizeof key.value.str ? strlen(uuid) : sizeof key.value.str - 1; /* "GPU-" + 36 */
    memcpy(key.value.str, uuid, length);
    if (answered(index, "index-by-uuid", cubind_nvml_device_get_handle_by_uuidv(&key, &by_uuid)) &&
        answered(index, "index-by-uuid", cubind_nvml_device_get_index(by_uuid, &found)))
        printf("gpu %u index-by-uuid %u\n", index, found);
    memset(&temperature, 0, sizeof temperature);
    temperature.version = nvmlTemperature_v1;
    temperature.sensorType = NVML_TEMPERATURE_GPU;
    if (answered(index, "temperature", cubind_nvml_device_get_temperature_v(device, &temperature)))
        printf("gpu %u temperature %d\n", index, temperature.temperature);
    memset(&margin, 0, sizeof margin);
    margin.version = nvmlMarginTemperature_v1;
    if (answered(index, "margin-temperature", cubind_nvml_device_get_margin_temperature(device, &margin)))
        printf("gpu %u margin-temperature %d\n", index, margin.marginTemperature);
    memset(&mode, 0, sizeof mode);
    mode.version = nvmlDeviceAddressingMode_v1;
    if (answered(index, "addressing-mode", cubind_nvml_device_get_addressing_mode(device, &mode)))
        printf("gpu %u addressing-mode %s\n", index, mode.value < 3 ? modes[mode.value] : "?");
    memset(&freqs, 0, sizeof freqs);
    freqs.version = nvmlDeviceCurrentClockFreqs_v1;
    if (answered(index, "clock-freqs", cubind_nvml_device_get_current_clock_freqs(device, &freqs)))
        printf("gpu %u clock-freqs %s\n", index, freqs.str);
}

int main(void)
{
    struct cubind_library_info info = {.size = sizeof info};
    nvmlSystemDriverBranchInfo_t branch;
    unsigned count = 0, i;
    if (cubind_nvml_init() != NVML_SUCCESS || cubind_nvml_device_get_count(&count) != NVML_SUCCESS) {
        fprintf(stderr, "nvml_getters: %s\n", cubind_last_error()->message);
        return 1;
    }
    cubind_library_info(CUBIND_LIB_NVML, &info);
    printf("called-as %s\n", info.release != NULL ? info.release : "?");
    memset(&branch, 0, sizeof branch);
    branch.version = nvmlSystemDriverBranchInfo_v1;
    if (cubind_nvml_system_get_driver_branch(&branch, sizeof branch.branch) == NVML_SUCCESS)
        printf("branch %s\n", branch.branch);
    else {
        printf("branch unavailable %s\n", cubind_last_error()->status_name);
        failed++;
    }
    for (i = 0; i < count; ++i)
        device_fields(i);
    cubind_nvml_shutdown();
    return failed != 0;
}
