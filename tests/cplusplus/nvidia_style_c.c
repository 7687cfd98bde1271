/* tests/cplusplus/nvidia_style_c.c - a C program in NVIDIA's usual style, with NVIDIA's names
 * replaced by cubind's and nothing else: the flags and special values of driver_types.h by their
 * names (cudaStreamNonBlocking, cudaEventDisableTiming, cudaHostAllocMapped, cudaCpuDeviceId, ...),
 * a stream captured into a graph, cuBLASXt, and the profiler APIs of the runtime and the driver
 * (make test-cplusplus, against the mocks: the recorder says which NVIDIA function each call reached). */
#include <stdio.h>
#include <string.h>

#include "cubind/cublasXt.h"
#include "cubind/driver.h"
#include "cubind/runtime.h"
#include "mock/recorder.h"

static int failures;

/* `status` is success (0 in every library) and the mock's last call is `symbol`. */
static void called(const char *what, int status, const char *symbol)
{
    const char *last = cubind_mock_last_symbol();
    if (status != 0 || last == NULL || strcmp(last, symbol) != 0) {
        printf("FAIL %s: status %d, the mock's last call %s, not %s\n", what, status, last ? last : "(none)", symbol);
        failures++;
    }
}

int main(void)
{
    cudaStream_t stream = NULL;
    cudaEvent_t event = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cublasXtHandle_t xt = NULL;
    void *pinned = NULL;
    int devices[1] = {0};
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {0}, one = 1, zero = 0;
    called("set device flags", cubind_runtime_set_device_flags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost),
           "cudaSetDeviceFlags");
    called("stream create with flags", cubind_runtime_stream_create_with_flags(&stream, cudaStreamNonBlocking),
           "cudaStreamCreateWithFlags");
    called("event create with flags",
           cubind_runtime_event_create_with_flags(&event, cudaEventDisableTiming | cudaEventBlockingSync),
           "cudaEventCreateWithFlags");
    called("host alloc", cubind_runtime_host_alloc(&pinned, 64, cudaHostAllocMapped | cudaHostAllocPortable),
           "cudaHostAlloc");
    called("begin capture", cubind_runtime_stream_begin_capture(stream, cudaStreamCaptureModeGlobal),
           "cudaStreamBeginCapture");
    called("end capture", cubind_runtime_stream_end_capture(stream, &graph), "cudaStreamEndCapture");
    called("graph instantiate", cubind_runtime_graph_instantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch),
           "cudaGraphInstantiate");
    called("profiler start", cubind_runtime_profiler_start(), "cudaProfilerStart");
    called("profiler stop", cubind_runtime_profiler_stop(), "cudaProfilerStop");
    called("driver profiler start", cubind_driver_profiler_start(), "cuProfilerStart");
    called("cuBLASXt create", cubind_cublasXt_create(&xt), "cublasXtCreate");
    called("cuBLASXt device select", cubind_cublasXt_device_select(xt, 1, devices), "cublasXtDeviceSelect");
    called("cuBLASXt sgemm",
           cubind_cublasXt_sgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a, 2, b, 2, &zero, c, 2), "cublasXtSgemm");
    called("cuBLASXt destroy", cubind_cublasXt_destroy(xt), "cublasXtDestroy");
    if (cudaCpuDeviceId != -1 || cudaInvalidDeviceId != -2 || cudaHostAllocMapped != 2 || cudaStreamNonBlocking != 1) {
        printf("FAIL a constant is not NVIDIA's value\n");
        failures++;
    }
    printf("nvidia_style_c: %d failed\n", failures);
    return failures != 0;
}
