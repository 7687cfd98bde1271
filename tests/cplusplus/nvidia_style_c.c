/* tests/cplusplus/nvidia_style_c.c - a C program in NVIDIA's usual style, with NVIDIA's names
 * replaced by cubind's and nothing else: the flags and special values of driver_types.h by their
 * names (cudaStreamNonBlocking, cudaEventDisableTiming, cudaHostAllocMapped, cudaCpuDeviceId, ...),
 * device_types.h's cudaRoundMode, a stream captured into a graph, cuBLASXt, the profiler APIs of the runtime and the driver,
 * cuComplex.h's complex arithmetic, vector_functions.h's make_float2, ... and driver_functions.h's make_cudaExtent, ... (make test-cplusplus, against the mocks: the recorder says which NVIDIA function each call reached). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/cublasXt.h"
#include "cubind/driver.h"
#include "cubind/runtime.h"
#include "mock/recorder.h"

static int failures;
/* CUBIND_TEST_REAL_LIBRARIES set (tests/gpu/cplusplus.sh): NVIDIA's libraries on a GPU, no recorder
 * to ask, and cuBLASXt's product is checked. */
static int real;

/* `status` is success (0 in every library) and the mock's last call is `symbol`. */
static void called(const char *what, int status, const char *symbol)
{
    const char *last = real ? symbol : cubind_mock_last_symbol();
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
    real = getenv("CUBIND_TEST_REAL_LIBRARIES") != NULL;
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
    if (real && (c[0] != 1 || c[1] != 2 || c[2] != 3 || c[3] != 4)) {
        printf("FAIL cuBLASXt's product: %g %g %g %g, not a's 1 2 3 4\n", c[0], c[1], c[2], c[3]);
        failures++;
    }
    {
        /* cuComplex.h's helpers (cublas_api.h includes it): the same values as NVIDIA's. */
        cuComplex z = make_cuComplex(3.0f, 4.0f);
        cuComplex norm = cuCmulf(z, cuConjf(z));
        cuDoubleComplex d = cuComplexFloatToDouble(cuCaddf(z, make_cuFloatComplex(1.0f, -4.0f)));
        cuDoubleComplex fma = cuCfma(d, make_cuDoubleComplex(0.0, 1.0), d);
        cuComplex quotient = cuCdivf(norm, z);
        cuFloatComplex back = cuComplexDoubleToFloat(cuCsub(d, make_cuDoubleComplex(1.0, 0.0)));
        if (cuCabsf(z) != 5.0f || cuCrealf(norm) != 25.0f || cuCimagf(norm) != 0.0f || cuCreal(d) != 4.0 ||
            cuCreal(fma) != 4.0 || cuCimag(fma) != 4.0 || cuCabs(make_cuDoubleComplex(6.0, 8.0)) != 10.0 ||
            cuCrealf(back) != 3.0f || cuCabsf(cuCsubf(quotient, cuConjf(z))) > 1e-5f ||
            cuCabs(cuCdiv(cuCmul(d, d), d)) - 4.0 > 1e-12) {
            printf("FAIL cuComplex.h's helpers: |z| %g, z*conj(z) %g%+gi\n", (double)cuCabsf(z), (double)cuCrealf(norm),
                   (double)cuCimagf(norm));
            failures++;
        }
    }
    {
        /* vector_functions.h's constructors (cuda_runtime.h includes it). */
        float2 f = make_float2(1.0f, 2.0f);
        int4 i = make_int4(1, 2, 3, 4);
        uchar3 u = make_uchar3(7, 8, 9);
        double2 g = make_double2(0.5, -0.5);
        if (f.x != 1.0f || f.y != 2.0f || i.w != 4 || u.z != 9 || g.y != -0.5) {
            printf("FAIL vector_functions.h's constructors\n");
            failures++;
        }
    }
    {
        /* driver_functions.h's constructors (cuda_runtime.h includes it). */
        char buffer[4];
        struct cudaExtent e = make_cudaExtent(64, 32, 2);
        struct cudaPos p = make_cudaPos(1, 2, 3);
        struct cudaPitchedPtr pp = make_cudaPitchedPtr(buffer, 128, 64, 32);
        if (e.width != 64 || e.height != 32 || e.depth != 2 || p.x != 1 || p.z != 3 || pp.ptr != buffer
            || pp.pitch != 128 || pp.xsize != 64 || pp.ysize != 32) {
            printf("FAIL driver_functions.h's constructors\n");
            failures++;
        }
    }
    if (cudaCpuDeviceId != -1 || cudaInvalidDeviceId != -2 || cudaHostAllocMapped != 2 || cudaStreamNonBlocking != 1) {
        printf("FAIL a constant is not NVIDIA's value\n");
        failures++;
    }
    {
        /* device_types.h's rounding modes, which cuda_runtime_api.h reaches through builtin_types.h */
        const enum cudaRoundMode modes[] = {cudaRoundNearest, cudaRoundZero, cudaRoundPosInf, cudaRoundMinInf};
        if (modes[0] != 0 || modes[1] != 1 || modes[2] != 2 || modes[3] != 3) {
            printf("FAIL cudaRoundMode's values are not NVIDIA's\n");
            failures++;
        }
    }
    printf("nvidia_style_c: %d failed\n", failures);
    return failures != 0;
}
