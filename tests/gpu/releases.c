/*
 * tests/gpu/releases.c - what the runtime of one CUDA release answers on a GPU, printed one
 * `key=value` a line so that tests/gpu/releases.sh can compare the runs field by field.
 *
 * Built twice (tests/tests.mk, gpu-build): through cubind (the runtime chosen by
 * CUBIND_RUNTIME_PATH, or discovery), and with CUBIND_TEST_DIRECT against an older release's own
 * headers and libcudart, as a program built for that release calls it. Both print the device
 * properties both layouts have, the edges of a graph built with cudaGraphAddDependencies, and what
 * cudaStreamGetCaptureInfo says of a capture in progress.
 */
#include <stdio.h>
#include <string.h>

#if defined(CUBIND_TEST_DIRECT)
#include <cuda_runtime_api.h>
#define RT(name, snake) cuda##name
#else
#include "cubind/cubind.h"
#define RT(name, snake) cubind_runtime_##snake
#endif

#define CHECK(call)                                                                                               \
    do {                                                                                                          \
        cudaError_t status_ = (call);                                                                             \
        if (status_ != cudaSuccess) {                                                                             \
            printf("error=%s returned %d\n", #call, (int)status_);                                                \
            return 1;                                                                                             \
        }                                                                                                         \
    } while (0)

static int properties(void)
{
    struct cudaDeviceProp p;
    size_t i;
    memset(&p, 0x5a, sizeof p); /* a field left unwritten shows as 0x5a... */
    CHECK(RT(GetDeviceProperties, get_device_properties)(&p, 0));
    printf("prop.name=%s\n", p.name);
    printf("prop.uuid=");
    for (i = 0; i < sizeof p.uuid.bytes; ++i)
        printf("%02x", (unsigned char)p.uuid.bytes[i]);
    printf("\nprop.totalGlobalMem=%zu\nprop.sharedMemPerBlock=%zu\nprop.regsPerBlock=%d\nprop.warpSize=%d\n",
           p.totalGlobalMem, p.sharedMemPerBlock, p.regsPerBlock, p.warpSize);
    printf("prop.maxThreadsPerBlock=%d\nprop.maxThreadsDim=%d,%d,%d\nprop.maxGridSize=%d,%d,%d\n",
           p.maxThreadsPerBlock, p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2], p.maxGridSize[0],
           p.maxGridSize[1], p.maxGridSize[2]);
    printf("prop.totalConstMem=%zu\nprop.major=%d\nprop.minor=%d\nprop.multiProcessorCount=%d\n", p.totalConstMem,
           p.major, p.minor, p.multiProcessorCount);
    printf("prop.l2CacheSize=%d\nprop.maxThreadsPerMultiProcessor=%d\nprop.pciBusID=%d\nprop.pciDeviceID=%d\n",
           p.l2CacheSize, p.maxThreadsPerMultiProcessor, p.pciBusID, p.pciDeviceID);
    printf("prop.memoryBusWidth=%d\nprop.sharedMemPerMultiprocessor=%zu\nprop.regsPerMultiprocessor=%d\n",
           p.memoryBusWidth, p.sharedMemPerMultiprocessor, p.regsPerMultiprocessor);
    printf("prop.managedMemory=%d\nprop.concurrentManagedAccess=%d\nprop.persistingL2CacheMaxSize=%d\n",
           p.managedMemory, p.concurrentManagedAccess, p.persistingL2CacheMaxSize);
    printf("prop.sharedMemPerBlockOptin=%zu\nprop.maxBlocksPerMultiProcessor=%d\nprop.unifiedAddressing=%d\n",
           p.sharedMemPerBlockOptin, p.maxBlocksPerMultiProcessor, p.unifiedAddressing);
    return 0;
}

static int graph_edges(void)
{
    cudaGraph_t graph;
    cudaGraphNode_t a, b, from[4], to[4];
    size_t edges = 4;
    CHECK(RT(GraphCreate, graph_create)(&graph, 0));
    CHECK(RT(GraphAddEmptyNode, graph_add_empty_node)(&a, graph, NULL, 0));
    CHECK(RT(GraphAddEmptyNode, graph_add_empty_node)(&b, graph, NULL, 0));
#if defined(CUBIND_TEST_DIRECT) && CUDART_VERSION < 13000
    CHECK(cudaGraphAddDependencies_v2(graph, &a, &b, NULL, 1));
    CHECK(cudaGraphGetEdges_v2(graph, from, to, NULL, &edges));
#else
    CHECK(RT(GraphAddDependencies, graph_add_dependencies)(graph, &a, &b, NULL, 1));
    CHECK(RT(GraphGetEdges, graph_get_edges)(graph, from, to, NULL, &edges));
#endif
    printf("graph.edges=%zu\ngraph.edge_is_a_to_b=%d\n", edges, edges == 1 && from[0] == a && to[0] == b);
    CHECK(RT(GraphDestroy, graph_destroy)(graph));
    return 0;
}

static int capture_info(void)
{
    cudaStream_t stream;
    cudaGraph_t graph = NULL, captured = NULL;
    const cudaGraphNode_t *dependencies = NULL;
    const cudaGraphEdgeData *edge_data = NULL;
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    size_t count = 99;
    void *memory;
    CHECK(RT(StreamCreate, stream_create)(&stream));
    CHECK(RT(Malloc, malloc)(&memory, 256));
    CHECK(RT(StreamBeginCapture, stream_begin_capture)(stream, cudaStreamCaptureModeThreadLocal));
    CHECK(RT(MemsetAsync, memset_async)(memory, 0, 256, stream));
#if defined(CUBIND_TEST_DIRECT) && CUDART_VERSION < 13000
    CHECK(cudaStreamGetCaptureInfo_v3(stream, &status, &id, &graph, &dependencies, &edge_data, &count));
#else
    CHECK(RT(StreamGetCaptureInfo, stream_get_capture_info)(stream, &status, &id, &graph, &dependencies, &edge_data, &count));
#endif
    printf("capture.status=%d\ncapture.id_set=%d\ncapture.graph_set=%d\ncapture.dependencies=%zu\n", (int)status,
           id != 0, graph != NULL, count);
    CHECK(RT(StreamEndCapture, stream_end_capture)(stream, &captured));
    CHECK(RT(GraphDestroy, graph_destroy)(captured));
    CHECK(RT(Free, free)(memory));
    CHECK(RT(StreamDestroy, stream_destroy)(stream));
    return 0;
}

int main(void)
{
    int version = 0;
    CHECK(RT(RuntimeGetVersion, runtime_get_version)(&version));
    printf("runtime.version=%d\n", version);
#if !defined(CUBIND_TEST_DIRECT)
    {
        struct cubind_library_info info = {.size = sizeof info};
        struct cubind_function_info f = {.size = sizeof f};
        cubind_library_info(CUBIND_LIB_RUNTIME, &info);
        cubind_function_info("cudaGetDeviceProperties", &f);
        printf("cubind.release=%s\ncubind.path=%s\ncubind.get_device_properties=%s (state %d)\n",
               info.release != NULL ? info.release : "?", info.path != NULL ? info.path : "?",
               f.symbol != NULL ? f.symbol : "?", (int)f.state);
    }
#endif
    return properties() || graph_edges() || capture_info();
}
