// tests/cplusplus/nvidia_style.cpp - a C++ program in NVIDIA's usual style, written for
// cuda_runtime.h with NVIDIA's names replaced by cubind's and nothing else: default stream
// arguments left out, typed allocations without casts, a stream captured into a graph, a channel
// description by type, occupancy and launches through the templates (make test-cplusplus, against the mocks: the recorder says
// which NVIDIA function each call reached, so a template that bypassed cubind would show).
#include <cstdio>
#include <cstring>

#include "cubind/runtime.h"
extern "C" {
#include "mock/recorder.h"
}

static int failures = 0;

// The last call the mock libcudart received was `symbol`.
static void reached(const char *what, const char *symbol)
{
    const char *last = cubind_mock_last_symbol();
    if (last == nullptr || std::strcmp(last, symbol) != 0) {
        std::printf("FAIL %s: the mock's last call is %s, not %s\n", what, last ? last : "(none)", symbol);
        failures++;
    }
}

static void check(const char *what, cudaError_t status)
{
    if (status != cudaSuccess) {
        std::printf("FAIL %s: status %d\n", what, static_cast<int>(status));
        failures++;
    }
}

static void kernel(float *data, int n)
{
    (void)data;
    (void)n;
}

int main()
{
    cudaEvent_t start = nullptr;
    cudaStream_t stream = nullptr;
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

    // A graph captured from a stream: default streams and out-parameters left out.
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    check("begin capture", cubind_runtime_stream_begin_capture(stream, cudaStreamCaptureModeGlobal));
    check("memset async, default stream", cubind_runtime_memset_async(device, 0, n * sizeof(float)));
    reached("memset async", "cudaMemsetAsync");
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

    int blocks = 0;
    check("occupancy", cubind_runtime_occupancy_max_active_blocks_per_multiprocessor(&blocks, kernel, 128, 0));
    reached("occupancy", "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");

    int count = n;
    void *args[] = {&device, &count};
    // Braces, not dim3(2): cubind's dim3 has no constructors yet (docs/nvidia-headers.md).
    const dim3 grid = {2, 1, 1};
    const dim3 block = {128, 1, 1};
    check("launch kernel, default shared memory and stream", cubind_runtime_launch_kernel(kernel, grid, block, args));
    reached("launch kernel", "cudaLaunchKernel");

    check("free", cubind_runtime_free(device));
    check("free host", cubind_runtime_free_host(host));
    check("event destroy", cubind_runtime_event_destroy(start));
    if (failures == 0)
        std::printf("nvidia_style: every call compiled as written for NVIDIA's headers and reached the mock\n");
    return failures == 0 ? 0 : 1;
}
