// tests/cplusplus/nvidia_style.cpp - a C++ program in NVIDIA's usual style, written for
// cuda_runtime.h with NVIDIA's names replaced by cubind's and nothing else: default stream
// arguments left out, typed allocations without casts, a stream captured into a graph, a channel
// description by type, occupancy and launches through the templates, dim3's constructors,
// vector_functions.h's make_float2, ..., driver_functions.h's make_cudaExtent, ... and cuComplex.h's helpers (make test-cplusplus, against the
// mocks: the recorder says which NVIDIA function each call reached, so a template that bypassed
// cubind would show). With
// CUBIND_TEST_REAL_LIBRARIES set (tests/gpu/cplusplus.sh), on NVIDIA's libraries on a GPU: no
// recorder to ask, the kernel is PTX loaded with cudaLibraryLoadData (a host compiler makes no
// __global__ function) and what it wrote is checked.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cubind/cublas.h"
#include "cubind/runtime.h"
#include "cplusplus/reached.h"

// On the mocks: a host function stands for the kernel (the mock launches nothing).
static void kernel(float *data, int n)
{
    (void)data;
    (void)n;
}

// On the GPU: the same kernel as PTX, data[i] = i for i < n (idempotent: any launch shape below
// leaves the same values).
static const char kernel_ptx[] =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry cubind_iota(.param .u64 cubind_iota_data, .param .u32 cubind_iota_n)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<6>;\n  .reg .f32 %f<2>;\n  .reg .b64 %rd<5>;\n"
    "  ld.param.u64 %rd1, [cubind_iota_data];\n  ld.param.u32 %r1, [cubind_iota_n];\n"
    "  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n  setp.ge.s32 %p1, %r5, %r1;\n  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n  mul.wide.s32 %rd3, %r5, 4;\n  add.s64 %rd4, %rd2, %rd3;\n"
    "  cvt.rn.f32.s32 %f1, %r5;\n  st.global.f32 [%rd4], %f1;\nDONE:\n  ret;\n}\n";

// Occupancy and launches through NVIDIA's templates, whose function type is the kernel's: a host
// function's pointer on the mocks, a cudaKernel_t on the GPU (the runtime takes either as `func`).
template <class Kernel>
static void occupancy_and_launches(Kernel entry, float *device, int n)
{
    int blocks = 0;
    check("occupancy", cubind_runtime_occupancy_max_active_blocks_per_multiprocessor(&blocks, entry, 128, 0));
    reached("occupancy", "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
    if (real && blocks < 1) {
        std::printf("FAIL occupancy: %d blocks of 128 threads a multiprocessor\n", blocks);
        failures++;
    }

    int count = n;
    void *args[] = {&device, &count};
    // vector_types.h's constructors: the dimensions left out are 1, and a uint3 converts both ways.
    const dim3 grid(2);
    const dim3 block(128, 2);
    const dim3 unit;
    const uint3 index = dim3(4, 5, 6);
    const dim3 back(index);
    if (grid.x != 2 || grid.y != 1 || grid.z != 1 || block.y != 2 || block.z != 1 || unit.x != 1 || unit.z != 1 ||
        index.z != 6 || back.y != 5) {
        std::printf("FAIL dim3's constructors: grid %u,%u,%u block %u,%u,%u\n", grid.x, grid.y, grid.z, block.x,
                    block.y, block.z);
        failures++;
    }
    check("launch kernel, default shared memory and stream", cubind_runtime_launch_kernel(entry, grid, block, args));
    reached("launch kernel", "cudaLaunchKernel");
    check("launch kernel, dim3 temporaries", cubind_runtime_launch_kernel(entry, dim3(n / 128), dim3(128), args));
    reached("launch kernel with dim3 temporaries", "cudaLaunchKernel");
}

int main()
{
    real = std::getenv("CUBIND_TEST_REAL_LIBRARIES") != nullptr;
    cudaEvent_t start = nullptr;
    cudaStream_t stream = nullptr;
    check("stream create", cubind_runtime_stream_create(&stream));
    check("event create", cubind_runtime_event_create(&start));
    check("event create with flags (NVIDIA's C++ overload)", cubind_runtime_event_create(&start, 0));
    reached("event create with flags", "cudaEventCreateWithFlags");
    check("event record, default stream", cubind_runtime_event_record(start));
    reached("event record", "cudaEventRecord");
    check("stream wait event, default flags", cubind_runtime_stream_wait_event(stream, start));
    reached("stream wait event", "cudaStreamWaitEvent");

    float *device = nullptr;
    float *host = nullptr;
    int *managed = nullptr;
    const int n = 256;
    check("typed malloc", cubind_runtime_malloc(&device, n * sizeof(float)));
    reached("typed malloc", "cudaMalloc");
    check("typed malloc host", cubind_runtime_malloc_host(&host, n * sizeof(float)));
    reached("typed malloc host", "cudaHostAlloc");
    check("typed host alloc", cubind_runtime_host_alloc(&host, n * sizeof(float), 0));
    reached("typed host alloc", "cudaHostAlloc");
    check("typed malloc managed, default flags", cubind_runtime_malloc_managed(&managed, n * sizeof(int)));
    reached("typed malloc managed", "cudaMallocManaged");
    check("memcpy async, default stream", cubind_runtime_memcpy_async(device, host, n * sizeof(float),
                                                                      cudaMemcpyHostToDevice));
    reached("memcpy async", "cudaMemcpyAsync");

    check("memset async, default stream", cubind_runtime_memset_async(device, 0, n * sizeof(float)));
    reached("memset async", "cudaMemsetAsync");

    // A graph captured from a stream (the default stream cannot be captured): out-parameters left out.
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    check("begin capture", cubind_runtime_stream_begin_capture(stream, cudaStreamCaptureModeGlobal));
    check("memset async, captured", cubind_runtime_memset_async(device, 0, n * sizeof(float), stream));
    check("capture info, default out-parameters", cubind_runtime_stream_get_capture_info(stream, &capture));
    reached("capture info", "cudaStreamGetCaptureInfo");
    check("end capture", cubind_runtime_stream_end_capture(stream, &graph));
    check("graph instantiate, default flags", cubind_runtime_graph_instantiate(&exec, graph));
    reached("graph instantiate", "cudaGraphInstantiate");
    check("graph instantiate (NVIDIA's C++ overload with a log buffer)",
          cubind_runtime_graph_instantiate(&exec, graph, nullptr, nullptr, 0));
    reached("graph instantiate with a log buffer", "cudaGraphInstantiate");
    check("graph launch", cubind_runtime_graph_launch(exec, stream));

    // The mock returns a zeroed description: what matters is that the templates reached it.
    cudaChannelFormatDesc desc = cubind_runtime_create_channel_desc<float>();
    reached("channel desc<float>", "cudaCreateChannelDesc");
    cudaChannelFormatDesc bytes = cubind_runtime_create_channel_desc<char>();
    reached("channel desc<char>", "cudaCreateChannelDesc");
    cudaChannelFormatDesc half = cubind_runtime_create_channel_desc_half();
    reached("channel desc half", "cudaCreateChannelDesc");
    (void)desc;
    (void)bytes;
    (void)half;

    cudaLibrary_t library = nullptr;
    if (real) {
        cudaKernel_t loaded = nullptr;
        check("library load data", cubind_runtime_library_load_data(&library, kernel_ptx, nullptr, nullptr, 0,
                                                                    nullptr, nullptr, 0));
        check("library get kernel", cubind_runtime_library_get_kernel(&loaded, library, "cubind_iota"));
        occupancy_and_launches(loaded, device, n);
        check("memcpy back", cubind_runtime_memcpy(host, device, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; host != nullptr && i < n; i++) {  // (no pinned memory: its failure is told above)
            if (host[i] != static_cast<float>(i)) {
                std::printf("FAIL the kernel's result: element %d is %g\n", i, static_cast<double>(host[i]));
                failures++;
                break;
            }
        }
        check("library unload", cubind_runtime_library_unload(library));
    } else {
        occupancy_and_launches(kernel, device, n);
    }

    // cuComplex.h's helpers (cublas_api.h includes it): the same values as NVIDIA's.
    const cuComplex z = make_cuComplex(3.0f, 4.0f);
    const cuComplex norm = cuCmulf(z, cuConjf(z));
    const cuDoubleComplex d = cuComplexFloatToDouble(cuCaddf(z, make_cuFloatComplex(1.0f, -4.0f)));
    const cuDoubleComplex fma = cuCfma(d, make_cuDoubleComplex(0.0, 1.0), d);
    const cuComplex quotient = cuCdivf(norm, z);
    if (cuCabsf(z) != 5.0f || cuCrealf(norm) != 25.0f || cuCimagf(norm) != 0.0f || cuCreal(d) != 4.0 ||
        cuCreal(fma) != 4.0 || cuCimag(fma) != 4.0 || cuCabs(make_cuDoubleComplex(6.0, 8.0)) != 10.0 ||
        cuCabsf(cuCsubf(quotient, cuConjf(z))) > 1e-5f) {
        std::printf("FAIL cuComplex.h's helpers: |z| %g, z*conj(z) %g%+gi\n", static_cast<double>(cuCabsf(z)),
                    static_cast<double>(cuCrealf(norm)), static_cast<double>(cuCimagf(norm)));
        failures++;
    }

    // vector_functions.h's constructors (cuda_runtime.h includes it).
    const float2 f = make_float2(1.0f, 2.0f);
    const float4 v = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
    const int2 i = make_int2(-1, 1);
    if (f.y != 2.0f || v.w != 4.0f || i.x != -1) {
        std::printf("FAIL vector_functions.h's constructors\n");
        failures++;
    }

    // driver_functions.h's constructors (cuda_runtime.h includes it).
    char buffer[4];
    const cudaExtent e = make_cudaExtent(64, 32, 2);
    const cudaPos p = make_cudaPos(1, 2, 3);
    const cudaPitchedPtr pp = make_cudaPitchedPtr(buffer, 128, 64, 32);
    if (e.width != 64 || e.depth != 2 || p.y != 2 || pp.ptr != buffer || pp.pitch != 128 || pp.ysize != 32) {
        std::printf("FAIL driver_functions.h's constructors\n");
        failures++;
    }

    check("free", cubind_runtime_free(device));
    check("free host", cubind_runtime_free_host(host));
    check("event destroy", cubind_runtime_event_destroy(start));
    check("stream destroy", cubind_runtime_stream_destroy(stream));
    if (failures == 0)
        std::printf("nvidia_style: every call compiled as written for NVIDIA's headers and %s\n",
                    real ? "ran on the GPU, the kernel's result checked" : "reached the mock");
    return failures == 0 ? 0 : 1;
}
