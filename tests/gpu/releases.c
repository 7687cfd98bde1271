/*
 * tests/gpu/releases.c - what the runtime of one CUDA release answers on a GPU, printed one
 * `key=value` a line so that tests/gpu/releases.sh can compare the runs field by field.
 *
 * Built twice (tests/tests.mk, gpu-build): through cubind (the runtime chosen by
 * CUBIND_RUNTIME_PATH, or discovery), and with CUBIND_TEST_DIRECT against an older release's own
 * headers and libcudart, as a program built for that release calls it. Both print the device
 * properties both layouts have, the edges of a graph built with cudaGraphAddDependencies, what
 * cudaStreamGetCaptureInfo says of a capture in progress, and what the functions cubind calls
 * through semantic adapters on older releases (generator/semantic.toml) give: `adapted.` lines
 * (every release; a direct build calls that release's own forms), `node.` lines (12.4 and newer:
 * cudaGraphAddNode and the node parameters) and `status.` lines (through cubind only: what the
 * newest form writes besides, which an older release's own program has no way to ask).
 */
#include <stdio.h>
#include <string.h>

#if defined(CUBIND_TEST_DIRECT)
#include <cuda_runtime_api.h>
#define RT(name, snake) cuda##name
#else
#define CUBIND_NO_DEPRECATION_WARNINGS /* cudaGetDriverEntryPoint, which NVIDIA deprecates, is compared too */
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
#if defined(CUBIND_TEST_DIRECT) && CUDART_VERSION < 12030
    CHECK(cudaGraphAddDependencies(graph, &a, &b, 1));
    CHECK(cudaGraphGetEdges(graph, from, to, &edges));
#elif defined(CUBIND_TEST_DIRECT) && CUDART_VERSION < 13000
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
#if !(defined(CUBIND_TEST_DIRECT) && CUDART_VERSION < 12030)
    const cudaGraphEdgeData *edge_data = NULL;
#endif
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    size_t count = 99;
    void *memory;
    CHECK(RT(StreamCreate, stream_create)(&stream));
    CHECK(RT(Malloc, malloc)(&memory, 256));
    CHECK(RT(StreamBeginCapture, stream_begin_capture)(stream, cudaStreamCaptureModeThreadLocal));
    CHECK(RT(MemsetAsync, memset_async)(memory, 0, 256, stream));
#if defined(CUBIND_TEST_DIRECT) && CUDART_VERSION < 12030
    CHECK(cudaStreamGetCaptureInfo_v2(stream, &status, &id, &graph, &dependencies, &count));
#elif defined(CUBIND_TEST_DIRECT) && CUDART_VERSION < 13000
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

/* The functions an older release is called through a semantic adapter for, each in the form the
 * program's headers have: the newest's through cubind, the release's own in a direct build. */
#if defined(CUBIND_TEST_DIRECT) && CUDART_VERSION < 12000
#define OLD_FORMS 1 /* 11.x: no edge data, an int device, the 3-parameter entry point query */
#endif
#if defined(CUBIND_TEST_DIRECT) && CUDART_VERSION >= 12030 && CUDART_VERSION < 13000
#define V2_FORMS 1 /* 12.3 to 12.9: the newest forms under _v2 names */
#endif

static int dependencies_of(cudaGraphNode_t node, cudaGraphNode_t *out, size_t *n, int dependents)
{
#if defined(OLD_FORMS)
    CHECK(dependents ? cudaGraphNodeGetDependentNodes(node, out, n) : cudaGraphNodeGetDependencies(node, out, n));
#elif defined(V2_FORMS)
    CHECK(dependents ? cudaGraphNodeGetDependentNodes_v2(node, out, NULL, n)
                     : cudaGraphNodeGetDependencies_v2(node, out, NULL, n));
#else
    cudaGraphEdgeData edges[4];
    size_t i;
    memset(edges, 0x5a, sizeof edges);
    CHECK(dependents ? RT(GraphNodeGetDependentNodes, graph_node_get_dependent_nodes)(node, out, edges, n)
                     : RT(GraphNodeGetDependencies, graph_node_get_dependencies)(node, out, edges, n));
    for (i = 0; i < *n && i < 4; ++i) /* every edge default: written as zero */
        if (edges[i].from_port != 0 || edges[i].to_port != 0 || edges[i].type != 0)
            printf("error=edge data of dependency %zu not default\n", i);
#endif
    return 0;
}

static int graph_forms(cudaStream_t stream)
{
    cudaGraph_t graph, other;
    cudaGraphNode_t a, b, c[3], found[4];
    cudaGraphExec_t exec;
    cudaError_t status;
    size_t n, i;
    int result, error_node_null;
    CHECK(RT(GraphCreate, graph_create)(&graph, 0));
    CHECK(RT(GraphAddEmptyNode, graph_add_empty_node)(&a, graph, NULL, 0));
    CHECK(RT(GraphAddEmptyNode, graph_add_empty_node)(&b, graph, &a, 1));
    n = 4;
    if (dependencies_of(b, found, &n, 0))
        return 1;
    printf("adapted.dependencies=%zu\nadapted.dependency_is_a=%d\n", n, n == 1 && found[0] == a);
    n = 4;
    if (dependencies_of(a, found, &n, 1))
        return 1;
    printf("adapted.dependents=%zu\nadapted.dependent_is_b=%d\n", n, n == 1 && found[0] == b);
#if defined(OLD_FORMS)
    CHECK(cudaGraphInstantiateWithFlags(&exec, graph, 0));
#else
    CHECK(RT(GraphInstantiate, graph_instantiate)(&exec, graph, 0));
#endif
    CHECK(RT(GraphLaunch, graph_launch)(exec, stream));
    CHECK(RT(StreamSynchronize, stream_synchronize)(stream));
    CHECK(RT(GraphCreate, graph_create)(&other, 0));
    for (i = 0; i < 3; ++i)
        CHECK(RT(GraphAddEmptyNode, graph_add_empty_node)(&c[i], other, NULL, 0));
    for (i = 0; i < 2; ++i) { /* the same graph, then one of another topology */
#if defined(OLD_FORMS)
        cudaGraphNode_t error_node = NULL;
        enum cudaGraphExecUpdateResult update = cudaGraphExecUpdateSuccess;
        status = cudaGraphExecUpdate(exec, i == 0 ? graph : other, &error_node, &update);
        result = (int)update;
        error_node_null = error_node == NULL;
#else
        cudaGraphExecUpdateResultInfo info;
        memset(&info, 0x5a, sizeof info);
        status = RT(GraphExecUpdate, graph_exec_update)(exec, i == 0 ? graph : other, &info);
        result = (int)info.result;
        error_node_null = info.errorNode == NULL;
#endif
        printf("adapted.update%zu.status=%d\nadapted.update%zu.result=%d\nadapted.update%zu.error_node_null=%d\n", i,
               (int)status, i, result, i, error_node_null);
    }
#if defined(OLD_FORMS)
    CHECK(cudaGraphRemoveDependencies(graph, &a, &b, 1));
    n = 0;
    CHECK(cudaGraphGetEdges(graph, NULL, NULL, &n));
#elif defined(V2_FORMS)
    CHECK(cudaGraphRemoveDependencies_v2(graph, &a, &b, NULL, 1));
    n = 0;
    CHECK(cudaGraphGetEdges_v2(graph, NULL, NULL, NULL, &n));
#else
    CHECK(RT(GraphRemoveDependencies, graph_remove_dependencies)(graph, &a, &b, NULL, 1));
    n = 0;
    CHECK(RT(GraphGetEdges, graph_get_edges)(graph, NULL, NULL, NULL, &n));
#endif
    printf("adapted.edges_after_remove=%zu\n", n);
    CHECK(RT(GraphExecDestroy, graph_exec_destroy)(exec));
    CHECK(RT(GraphDestroy, graph_destroy)(other));
    CHECK(RT(GraphDestroy, graph_destroy)(graph));
    return 0;
}

static int capture_dependencies(cudaStream_t stream)
{
    cudaGraph_t captured = NULL;
    const cudaGraphNode_t *dependencies = NULL;
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    size_t count = 99;
    void *memory;
    CHECK(RT(Malloc, malloc)(&memory, 256));
    CHECK(RT(StreamBeginCapture, stream_begin_capture)(stream, cudaStreamCaptureModeThreadLocal));
    CHECK(RT(MemsetAsync, memset_async)(memory, 0, 256, stream));
#if defined(OLD_FORMS)
    CHECK(cudaStreamUpdateCaptureDependencies(stream, NULL, 0, cudaStreamSetCaptureDependencies));
    CHECK(cudaStreamGetCaptureInfo_v2(stream, &status, NULL, NULL, &dependencies, &count));
#elif defined(V2_FORMS)
    CHECK(cudaStreamUpdateCaptureDependencies_v2(stream, NULL, NULL, 0, cudaStreamSetCaptureDependencies));
    CHECK(cudaStreamGetCaptureInfo_v3(stream, &status, NULL, NULL, &dependencies, NULL, &count));
#else
    CHECK(RT(StreamUpdateCaptureDependencies, stream_update_capture_dependencies)(stream, NULL, NULL, 0,
                                                                                   cudaStreamSetCaptureDependencies));
    CHECK(RT(StreamGetCaptureInfo, stream_get_capture_info)(stream, &status, NULL, NULL, &dependencies, NULL, &count));
#endif
    printf("adapted.capture_dependencies_after_update=%zu\n", count);
    CHECK(RT(StreamEndCapture, stream_end_capture)(stream, &captured));
    CHECK(RT(GraphDestroy, graph_destroy)(captured));
    CHECK(RT(Free, free)(memory));
    return 0;
}

/* Advise and prefetch managed memory to device 0, then to the host; the range's attributes after. */
static int managed(cudaStream_t stream)
{
    const size_t size = (size_t)1 << 20;
    char *memory;
    int where, i;
    CHECK(RT(MallocManaged, malloc_managed)((void **)&memory, size, cudaMemAttachGlobal));
    for (i = 0; i < 2; ++i) {
#if defined(OLD_FORMS)
        int device = i == 0 ? 0 : cudaCpuDeviceId;
        CHECK(cudaMemAdvise(memory, size, cudaMemAdviseSetPreferredLocation, device));
        CHECK(cudaMemPrefetchAsync(memory, size, device, stream));
#else
        struct cudaMemLocation location;
        location.type = i == 0 ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
        location.id = 0;
#if defined(V2_FORMS)
        CHECK(cudaMemAdvise_v2(memory, size, cudaMemAdviseSetPreferredLocation, location));
        CHECK(cudaMemPrefetchAsync_v2(memory, size, location, 0, stream));
#else
        CHECK(RT(MemAdvise, mem_advise)(memory, size, cudaMemAdviseSetPreferredLocation, location));
        CHECK(RT(MemPrefetchAsync, mem_prefetch_async)(memory, size, location, 0, stream));
#endif
#endif
        CHECK(RT(StreamSynchronize, stream_synchronize)(stream));
        CHECK(RT(MemRangeGetAttribute, mem_range_get_attribute)(&where, sizeof where,
                                                                 cudaMemRangeAttributePreferredLocation, memory, size));
        printf("adapted.managed%d.preferred=%d\n", i, where);
        CHECK(RT(MemRangeGetAttribute, mem_range_get_attribute)(&where, sizeof where,
                                                                 cudaMemRangeAttributeLastPrefetchLocation, memory, size));
        printf("adapted.managed%d.last_prefetch=%d\n", i, where);
    }
    CHECK(RT(Free, free)(memory));
    return 0;
}

static int entry_point(void)
{
    void *fn = NULL;
#if defined(OLD_FORMS)
    CHECK(cudaGetDriverEntryPoint("cuInit", &fn, cudaEnableDefault));
#elif defined(CUBIND_TEST_DIRECT)
    CHECK(cudaGetDriverEntryPoint("cuInit", &fn, cudaEnableDefault, NULL));
#else
    enum cudaDriverEntryPointQueryResult status = (enum cudaDriverEntryPointQueryResult)99;
    CHECK(RT(GetDriverEntryPoint, get_driver_entry_point)("cuInit", &fn, cudaEnableDefault, &status));
    printf("status.entry_point=%d\n", (int)status);
    fn = NULL;
    status = (enum cudaDriverEntryPointQueryResult)99;
    printf("status.entry_point_missing_result=%d\n",
           (int)RT(GetDriverEntryPoint, get_driver_entry_point)("cuNoSuchFunction", &fn, cudaEnableDefault, &status));
    printf("status.entry_point_missing=%d\nstatus.entry_point_missing_null=%d\n", (int)status, fn == NULL);
    fn = NULL;
    CHECK(RT(GetDriverEntryPoint, get_driver_entry_point)("cuInit", &fn, cudaEnableDefault, &status));
#endif
    printf("adapted.entry_point_found=%d\n", fn != NULL);
    return 0;
}

/* 12.4 and newer: a child-graph node added with cudaGraphAddNode and its parameters set again. */
static int node_params(int version)
{
#if !defined(OLD_FORMS)
    cudaGraph_t graph, child;
    cudaGraphNode_t node, inner;
    cudaGraphExec_t exec;
    struct cudaGraphNodeParams params;
    enum cudaGraphNodeType type;
    if (version < 12040)
        return 0; /* cudaGraphAddNode is not in 11.8 */
    CHECK(RT(GraphCreate, graph_create)(&graph, 0));
    CHECK(RT(GraphCreate, graph_create)(&child, 0));
    CHECK(RT(GraphAddEmptyNode, graph_add_empty_node)(&inner, child, NULL, 0));
    memset(&params, 0, sizeof params);
    params.type = cudaGraphNodeTypeGraph;
    params.graph.graph = child;
#if defined(V2_FORMS)
    CHECK(cudaGraphAddNode_v2(&node, graph, NULL, NULL, 0, &params));
#else
    CHECK(RT(GraphAddNode, graph_add_node)(&node, graph, NULL, NULL, 0, &params));
#endif
    CHECK(RT(GraphNodeGetType, graph_node_get_type)(node, &type));
    printf("node.type=%d\n", (int)type);
    CHECK(RT(GraphInstantiate, graph_instantiate)(&exec, graph, 0));
    printf("node.set_params=%d\n", (int)RT(GraphNodeSetParams, graph_node_set_params)(node, &params));
    printf("node.exec_set_params=%d\n", (int)RT(GraphExecNodeSetParams, graph_exec_node_set_params)(exec, node, &params));
    CHECK(RT(GraphExecDestroy, graph_exec_destroy)(exec));
    CHECK(RT(GraphDestroy, graph_destroy)(graph));
    CHECK(RT(GraphDestroy, graph_destroy)(child));
#else
    (void)version;
#endif
    return 0;
}

static int adapted(int version)
{
    cudaStream_t stream;
    int failed;
    CHECK(RT(StreamCreate, stream_create)(&stream));
    failed = graph_forms(stream) || capture_dependencies(stream) || managed(stream) || entry_point() ||
             node_params(version);
    CHECK(RT(StreamDestroy, stream_destroy)(stream));
    return failed;
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
    return properties() || graph_edges() || capture_info() || adapted(version);
}
