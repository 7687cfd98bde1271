/*
 * tests/gpu/releases_driver.c - what the driver answers to the calls cubind makes through its
 * semantic adapters (generator/semantic.toml, the driver's part) on a driver of an older CUDA
 * release, printed one `key=value` a line so that tests/gpu/releases.sh compares the runs field by
 * field.
 *
 * Built twice (tests/tests.mk, gpu-releases): through cubind, with the newest forms (13.0's
 * cuda.h); and with CUBIND_TEST_DIRECT against an older release's own cuda.h, calling that
 * release's forms (the 4-parameter cuGraphAddDependencies, a CUdevice for cuMemPrefetchAsync,
 * 11.8's CUDA_KERNEL_NODE_PARAMS, ...), as a program built for that release calls them. The GPU
 * machine's driver is newer than those releases and still exports their entry points, which is
 * how it serves their programs; cubind is made to call it as an older release by a driver that
 * answers that release's version (tests/gpu/driver_as_release.c). `driver.` lines are compared
 * between the runs, `own.` lines between cubind's run and the release's own program (the release's
 * verdict), `dstatus.` lines (through cubind only: what only the newest forms write, symbolStatus)
 * between cubind's run and the newest driver's; `seen.` lines are printed for the record.
 */
#include <stdio.h>
#include <string.h>

#if defined(CUBIND_TEST_DIRECT)
#include <cuda.h>
#define DRV(name, snake) cu##name
#define INSTANTIATE(exec, graph) cuGraphInstantiateWithFlags(exec, graph, 0)
#else
#include "cubind/cubind.h"
#define DRV(name, snake) cubind_driver_##snake
#define INSTANTIATE(exec, graph) cubind_driver_graph_instantiate(exec, graph, 0)
#endif

#define CHECK(call)                                                                                               \
    do {                                                                                                          \
        CUresult status_ = (call);                                                                                \
        if (status_ != CUDA_SUCCESS) {                                                                            \
            printf("error=%s returned %d\n", #call, (int)status_);                                                \
            return 1;                                                                                             \
        }                                                                                                         \
    } while (0)

/* An empty kernel, as PTX every driver since CUDA 11 compiles. */
static const char ptx[] = ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry empty()\n{\nret;\n}\n";

static int edges(void)
{
    CUgraph graph;
    CUgraphNode a, b, from[4], to[4], deps[4];
    size_t n = 4;
#if !defined(CUBIND_TEST_DIRECT)
    CUgraphEdgeData data[4];
    memset(data, 0x5c, sizeof data);
#endif
    CHECK(DRV(GraphCreate, graph_create)(&graph, 0));
    CHECK(DRV(GraphAddEmptyNode, graph_add_empty_node)(&a, graph, NULL, 0));
    CHECK(DRV(GraphAddEmptyNode, graph_add_empty_node)(&b, graph, NULL, 0));
#if defined(CUBIND_TEST_DIRECT)
    CHECK(cuGraphAddDependencies(graph, &a, &b, 1));
    CHECK(cuGraphGetEdges(graph, from, to, &n));
    printf("driver.edges=%zu\ndriver.edge_ends=%d\n", n, n == 1 && from[0] == a && to[0] == b);
    n = 4;
    CHECK(cuGraphNodeGetDependencies(b, deps, &n));
    printf("driver.dependencies=%zu,%d\n", n, n == 1 && deps[0] == a);
    n = 4;
    CHECK(cuGraphNodeGetDependentNodes(a, deps, &n));
    printf("driver.dependents=%zu,%d\n", n, n == 1 && deps[0] == b);
    CHECK(cuGraphRemoveDependencies(graph, &a, &b, 1));
    n = 4;
    CHECK(cuGraphGetEdges(graph, from, to, &n));
#else
    CHECK(cubind_driver_graph_add_dependencies(graph, &a, &b, NULL, 1));
    CHECK(cubind_driver_graph_get_edges(graph, from, to, data, &n));
    printf("driver.edges=%zu\ndriver.edge_ends=%d\n", n, n == 1 && from[0] == a && to[0] == b);
    printf("seen.edge_data_default=%d\n", data[0].type == 0 && data[0].from_port == 0 && data[0].to_port == 0);
    n = 4;
    CHECK(cubind_driver_graph_node_get_dependencies(b, deps, data, &n));
    printf("driver.dependencies=%zu,%d\n", n, n == 1 && deps[0] == a);
    n = 4;
    CHECK(cubind_driver_graph_node_get_dependent_nodes(a, deps, NULL, &n));
    printf("driver.dependents=%zu,%d\n", n, n == 1 && deps[0] == b);
    CHECK(cubind_driver_graph_remove_dependencies(graph, &a, &b, NULL, 1));
    n = 4;
    CHECK(cubind_driver_graph_get_edges(graph, from, to, NULL, &n));
#endif
    printf("driver.edges_removed=%zu\n", n);
    CHECK(DRV(GraphDestroy, graph_destroy)(graph));
    return 0;
}

static int capture(CUstream stream)
{
    CUstreamCaptureStatus status;
    cuuint64_t id;
    CUgraph graph = NULL, captured;
    const CUgraphNode *deps = NULL;
    size_t n = 99;
    CHECK(DRV(StreamBeginCapture, stream_begin_capture)(stream, CU_STREAM_CAPTURE_MODE_RELAXED));
#if defined(CUBIND_TEST_DIRECT) && CUDA_VERSION < 12000
    CHECK(cuStreamGetCaptureInfo_v2(stream, &status, &id, &graph, &deps, &n));
#elif defined(CUBIND_TEST_DIRECT)
    CHECK(cuStreamGetCaptureInfo(stream, &status, &id, &graph, &deps, &n));
#else
    {
        const CUgraphEdgeData *data = (const CUgraphEdgeData *)ptx; /* not NULL: the adapter's to write */
        CHECK(cubind_driver_stream_get_capture_info(stream, &status, &id, &graph, &deps, &data, &n));
        printf("seen.capture_edge_data_null=%d\n", data == NULL);
    }
#endif
    printf("driver.capture.status=%d\ndriver.capture.graph_set=%d\ndriver.capture.dependencies=%zu\n", (int)status,
           graph != NULL, n);
#if defined(CUBIND_TEST_DIRECT)
    CHECK(cuStreamUpdateCaptureDependencies(stream, NULL, 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
#else
    CHECK(cubind_driver_stream_update_capture_dependencies(stream, NULL, NULL, 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
#endif
    CHECK(DRV(StreamEndCapture, stream_end_capture)(stream, &captured));
    printf("driver.capture.ended=%d\n", captured != NULL);
    CHECK(DRV(GraphDestroy, graph_destroy)(captured));
    return 0;
}

static int kernel_and_update(CUfunction fn, CUstream stream)
{
    CUgraph graph, other;
    CUgraphNode node, other_node;
    CUgraphExec exec;
    CUDA_KERNEL_NODE_PARAMS p, got;
    memset(&p, 0, sizeof p);
    p.func = fn;
    p.gridDimX = p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 32;
    p.blockDimY = p.blockDimZ = 1;
    CHECK(DRV(GraphCreate, graph_create)(&graph, 0));
    CHECK(DRV(GraphAddKernelNode, graph_add_kernel_node)(&node, graph, NULL, 0, &p));
    memset(&got, 0x5c, sizeof got);
    CHECK(DRV(GraphKernelNodeGetParams, graph_kernel_node_get_params)(node, &got));
    printf("driver.kernel.func=%d\ndriver.kernel.grid=%u,%u,%u\ndriver.kernel.block=%u,%u,%u\ndriver.kernel.smem=%u\n",
           got.func == fn, got.gridDimX, got.gridDimY, got.gridDimZ, got.blockDimX, got.blockDimY, got.blockDimZ,
           got.sharedMemBytes);
#if !defined(CUBIND_TEST_DIRECT)
    printf("seen.kernel.kern_ctx_null=%d\n", got.kern == NULL && got.ctx == NULL);
#endif
    p.blockDimX = 64;
    CHECK(DRV(GraphKernelNodeSetParams, graph_kernel_node_set_params)(node, &p));
    CHECK(DRV(GraphKernelNodeGetParams, graph_kernel_node_get_params)(node, &got));
    printf("driver.kernel.block_set=%u\n", got.blockDimX);
    CHECK(INSTANTIATE(&exec, graph));
    CHECK(DRV(GraphExecKernelNodeSetParams, graph_exec_kernel_node_set_params)(exec, node, &p));
    CHECK(DRV(GraphLaunch, graph_launch)(exec, stream));
    CHECK(DRV(StreamSynchronize, stream_synchronize)(stream));
    printf("driver.kernel.launched=1\n");
    /* an update from a graph of the same topology succeeds; from one with another node type, not */
    CHECK(DRV(GraphCreate, graph_create)(&other, 0));
    CHECK(DRV(GraphAddEmptyNode, graph_add_empty_node)(&other_node, other, NULL, 0));
    {
#if defined(CUBIND_TEST_DIRECT) && CUDA_VERSION < 12000
        CUgraphNode error_node = NULL;
        CUgraphExecUpdateResult result;
        CUresult same = cuGraphExecUpdate(exec, graph, &error_node, &result);
        printf("driver.update.same=%d,%d\n", (int)same, (int)result);
        same = cuGraphExecUpdate(exec, other, &error_node, &result);
        printf("driver.update.changed=%d\nown.update.changed_error_node=%d\n", (int)same, error_node != NULL);
#else
        CUgraphExecUpdateResultInfo info;
        CUresult same = DRV(GraphExecUpdate, graph_exec_update)(exec, graph, &info);
        printf("driver.update.same=%d,%d\n", (int)same, (int)info.result);
        same = DRV(GraphExecUpdate, graph_exec_update)(exec, other, &info);
        printf("driver.update.changed=%d\nown.update.changed_error_node=%d\n", (int)same, info.errorNode != NULL);
#endif
    }
    CHECK(DRV(GraphExecDestroy, graph_exec_destroy)(exec));
    CHECK(DRV(GraphDestroy, graph_destroy)(other));
    CHECK(DRV(GraphDestroy, graph_destroy)(graph));
    return 0;
}

static int mem_alloc_node(CUdevice dev)
{
    CUgraph graph;
    CUgraphNode node;
    CUDA_MEM_ALLOC_NODE_PARAMS p, got;
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.poolProps.location.id = dev;
    p.bytesize = 1 << 20;
    CHECK(DRV(GraphCreate, graph_create)(&graph, 0));
    CHECK(DRV(GraphAddMemAllocNode, graph_add_mem_alloc_node)(&node, graph, NULL, 0, &p));
    memset(&got, 0x5c, sizeof got);
    CHECK(DRV(GraphMemAllocNodeGetParams, graph_mem_alloc_node_get_params)(node, &got));
    printf("driver.alloc.dptr_set=%d\ndriver.alloc.bytesize=%zu\ndriver.alloc.same_dptr=%d\ndriver.alloc.type=%d\n",
           p.dptr != 0, got.bytesize, got.dptr == p.dptr, (int)got.poolProps.allocType);
    CHECK(DRV(GraphDestroy, graph_destroy)(graph));
    return 0;
}

static int managed(CUdevice dev, CUstream stream)
{
    CUdeviceptr ptr;
    size_t size = 1 << 21;
    int where = -7;
#if !defined(CUBIND_TEST_DIRECT)
    CUmemLocation device, host;
    memset(&device, 0, sizeof device);
    memset(&host, 0, sizeof host);
    device.type = CU_MEM_LOCATION_TYPE_DEVICE;
    device.id = dev;
    host.type = CU_MEM_LOCATION_TYPE_HOST;
#endif
    CHECK(DRV(MemAllocManaged, mem_alloc_managed)(&ptr, size, CU_MEM_ATTACH_GLOBAL));
#if defined(CUBIND_TEST_DIRECT)
    CHECK(cuMemAdvise(ptr, size, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, dev));
#else
    CHECK(cubind_driver_mem_advise(ptr, size, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, device));
#endif
    CHECK(DRV(MemRangeGetAttribute, mem_range_get_attribute)(&where, sizeof where,
                                                             CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, ptr, size));
    printf("driver.managed.preferred=%d\n", where);
#if defined(CUBIND_TEST_DIRECT)
    CHECK(cuMemPrefetchAsync(ptr, size, dev, stream));
#else
    CHECK(cubind_driver_mem_prefetch_async(ptr, size, device, 0, stream));
#endif
    CHECK(DRV(StreamSynchronize, stream_synchronize)(stream));
    CHECK(DRV(MemRangeGetAttribute, mem_range_get_attribute)(&where, sizeof where,
                                                             CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, ptr, size));
    printf("driver.managed.prefetched_device=%d\n", where);
#if defined(CUBIND_TEST_DIRECT)
    CHECK(cuMemPrefetchAsync(ptr, size, CU_DEVICE_CPU, stream));
#else
    CHECK(cubind_driver_mem_prefetch_async(ptr, size, host, 0, stream));
#endif
    CHECK(DRV(StreamSynchronize, stream_synchronize)(stream));
    CHECK(DRV(MemRangeGetAttribute, mem_range_get_attribute)(&where, sizeof where,
                                                             CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, ptr, size));
    printf("driver.managed.prefetched_host=%d\n", where);
    CHECK(DRV(MemFree, mem_free)(ptr));
    return 0;
}

static int proc_address(void)
{
    void *fn = NULL;
#if defined(CUBIND_TEST_DIRECT) && CUDA_VERSION < 12000
    CHECK(cuGetProcAddress("cuInit", &fn, 11080, CU_GET_PROC_ADDRESS_DEFAULT));
    printf("driver.proc.found=%d\n", fn != NULL);
    fn = &fn;
    printf("driver.proc.missing_is_error_or_null=%d\n",
           cuGetProcAddress("cuNoSuchFunction", &fn, 11080, CU_GET_PROC_ADDRESS_DEFAULT) != CUDA_SUCCESS || fn == NULL);
#else
    CUdriverProcAddressQueryResult status = (CUdriverProcAddressQueryResult)99;
    CHECK(DRV(GetProcAddress, get_proc_address)("cuInit", &fn, 11080, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    printf("driver.proc.found=%d\n", fn != NULL);
#if !defined(CUBIND_TEST_DIRECT)
    printf("dstatus.proc.status=%d\n", (int)status);
#endif
    fn = &fn;
    CHECK(DRV(GetProcAddress, get_proc_address)("cuNoSuchFunction", &fn, 11080, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    printf("driver.proc.missing_is_error_or_null=%d\n", fn == NULL);
#if !defined(CUBIND_TEST_DIRECT)
    printf("dstatus.proc.missing=%d,%d\n", fn == NULL, (int)status);
#endif
#endif
    return 0;
}

/* 12.4 and newer: cuGraphAddNode with a child-graph node (its union member that 13.0 grew). */
static int node_params(void)
{
#if !defined(CUBIND_TEST_DIRECT) || CUDA_VERSION >= 12040
    CUgraph graph, child;
    CUgraphNode node, inner;
    CUgraphNodeType type;
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    CHECK(DRV(GraphCreate, graph_create)(&graph, 0));
    CHECK(DRV(GraphCreate, graph_create)(&child, 0));
    CHECK(DRV(GraphAddEmptyNode, graph_add_empty_node)(&inner, child, NULL, 0));
    p.type = CU_GRAPH_NODE_TYPE_GRAPH;
    p.graph.graph = child;
#if defined(CUBIND_TEST_DIRECT)
    CHECK(cuGraphAddNode_v2(&node, graph, NULL, NULL, 0, &p));
#else
    CHECK(cubind_driver_graph_add_node(&node, graph, NULL, NULL, 0, &p));
#endif
    CHECK(DRV(GraphNodeGetType, graph_node_get_type)(node, &type));
    printf("node.type=%d\n", (int)type);
    printf("node.set_params=%d\n", (int)DRV(GraphNodeSetParams, graph_node_set_params)(node, &p));
    CHECK(DRV(GraphDestroy, graph_destroy)(graph));
    CHECK(DRV(GraphDestroy, graph_destroy)(child));
#endif
    return 0;
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule module;
    CUfunction fn;
    CUstream stream;
    int version = 0;
    CHECK(DRV(Init, init)(0));
    CHECK(DRV(DriverGetVersion, driver_get_version)(&version));
    printf("seen.driver_version=%d\n", version); /* cubind's: the release's, through driver_as_release */
#if !defined(CUBIND_TEST_DIRECT)
    {
        struct cubind_library_info info = {.size = sizeof info};
        cubind_library_info(CUBIND_LIB_DRIVER, &info);
        printf("cubind.release=%s\ncubind.path=%s\n", info.release != NULL ? info.release : "?",
               info.path != NULL ? info.path : "?");
    }
#endif
    CHECK(DRV(DeviceGet, device_get)(&dev, 0));
#if defined(CUBIND_TEST_DIRECT) && CUDA_VERSION < 13000
    CHECK(cuCtxCreate(&ctx, 0, dev));
#else
    CHECK(DRV(CtxCreate, ctx_create)(&ctx, NULL, 0, dev));
#endif
    CHECK(DRV(ModuleLoadData, module_load_data)(&module, ptx));
    CHECK(DRV(ModuleGetFunction, module_get_function)(&fn, module, "empty"));
    CHECK(DRV(StreamCreate, stream_create)(&stream, CU_STREAM_NON_BLOCKING));
    if (edges() || capture(stream) || kernel_and_update(fn, stream) || mem_alloc_node(dev) || managed(dev, stream) ||
        proc_address() || (version >= 12040 && node_params()))
        return 1;
    CHECK(DRV(StreamDestroy, stream_destroy)(stream));
    CHECK(DRV(ModuleUnload, module_unload)(module));
    CHECK(DRV(CtxDestroy, ctx_destroy)(ctx));
    return 0;
}
