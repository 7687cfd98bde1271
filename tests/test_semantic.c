/*
 * tests/test_semantic.c - the semantic adapters (generator/semantic.toml, docs/releases.md
 * "Semantic adapters") against the mocks of the release they serve: the older entry point is
 * called with the arguments the mapping makes from the newest form's (the mock records them),
 * what the newest form writes and the older does not is written, and a call the older entry
 * point cannot make for these arguments is refused, reaching no mock and writing nothing, with
 * a record that says why. Run by make test-semantic with CUBIND_TEST_RELEASE=11.8 and 12.4 (the
 * mocks of that release, tests/tests.mk's release_env); each case is for the release it names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cubind/cubind.h"
#include "cubind/runtime.h"
#include "recorder.h"

#define HANDLE(type, n) ((type)(uintptr_t)(0x1000u + (n) * 0x10u))

static int in_release(const char *release)
{
    const char *r = getenv("CUBIND_TEST_RELEASE");
    return r != NULL && strcmp(r, release) == 0;
}

/* The call reached `symbol` with the arguments expected (cubind_mock_expect_*) and succeeded. */
static void assert_called(const char *symbol, cudaError_t result)
{
    assert_int_equal(result, cudaSuccess);
    assert_true(cubind_mock_matches(symbol));
}

/* The next call succeeds and must reach the mock with a graph, the from and to arrays and a count
 * (the edge functions' older forms): each given as its address and size. */
static void expect_edges(const void *graph, size_t graph_size, const void *from, const void *to, size_t nodes_size,
                         const void *count, size_t count_size)
{
    cubind_mock_set_status(cudaSuccess);
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(graph, graph_size);
    cubind_mock_expect_arg(from, nodes_size);
    cubind_mock_expect_arg(to, nodes_size);
    cubind_mock_expect_arg(count, count_size);
}

/* The call was refused: no mock call since `before`, the missing-symbol status, and a record
 * naming the function, the release, the entry point and `why`. */
static void assert_refused(cudaError_t result, unsigned long before, const char *function, const char *entry,
                           const char *why)
{
    const cubind_error *e = cubind_last_error();
    assert_int_not_equal(result, cudaSuccess);
    assert_int_equal(cubind_mock_calls(), before);
    assert_int_equal(e->kind, CUBIND_ERROR_SYMBOL_NOT_FOUND);
    assert_int_equal(e->library, CUBIND_LIB_RUNTIME);
    assert_string_equal(e->function, function);
    assert_non_null(strstr(e->message, getenv("CUBIND_TEST_RELEASE")));
    assert_non_null(strstr(e->message, entry));
    assert_non_null(strstr(e->message, why));
}

static void test_state(void **state)
{
    struct cubind_function_info info;
    (void)state;
    if (!in_release("11.8"))
        skip();
    info.size = sizeof info;
    assert_int_equal(cubind_function_info("cudaMemPrefetchAsync", &info), CUBIND_OK);
    assert_int_equal(info.state, CUBIND_FUNCTION_ADAPTED);
    assert_string_equal(info.symbol, "cudaMemPrefetchAsync");
    assert_non_null(strstr(info.reason, "refused, writing nothing, when flags is not 0"));
}

static void test_instantiate(void **state)
{
    cudaGraphExec_t exec = NULL, *pexec = &exec;
    cudaGraph_t graph = HANDLE(cudaGraph_t, 1);
    unsigned long long flags = cudaGraphInstantiateFlagAutoFreeOnLaunch;
    (void)state;
    if (!in_release("11.8"))
        skip();
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&pexec, sizeof pexec);
    cubind_mock_expect_arg(&graph, sizeof graph);
    cubind_mock_expect_arg(&flags, sizeof flags);
    cubind_mock_set_status(cudaSuccess);
    assert_called("cudaGraphInstantiateWithFlags", cubind_runtime_graph_instantiate(&exec, graph, flags));
}

static void test_prefetch(void **state)
{
    const void *ptr = HANDLE(const void *, 2);
    size_t count = 4096;
    cudaStream_t stream = HANDLE(cudaStream_t, 3);
    struct cudaMemLocation device = {cudaMemLocationTypeDevice, 3}, host = {cudaMemLocationTypeHost, 7},
                           numa = {cudaMemLocationTypeHostNuma, 0};
    int three = 3, cpu = cudaCpuDeviceId;
    unsigned long before;
    (void)state;
    if (!in_release("11.8"))
        skip();
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&ptr, sizeof ptr);
    cubind_mock_expect_arg(&count, sizeof count);
    cubind_mock_expect_arg(&three, sizeof three);
    cubind_mock_expect_arg(&stream, sizeof stream);
    cubind_mock_set_status(cudaSuccess);
    assert_called("cudaMemPrefetchAsync", cubind_runtime_mem_prefetch_async(ptr, count, device, 0, stream));
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&ptr, sizeof ptr);
    cubind_mock_expect_arg(&count, sizeof count);
    cubind_mock_expect_arg(&cpu, sizeof cpu);
    cubind_mock_expect_arg(&stream, sizeof stream);
    assert_called("cudaMemPrefetchAsync", cubind_runtime_mem_prefetch_async(ptr, count, host, 0, stream));
    before = cubind_mock_calls();
    assert_refused(cubind_runtime_mem_prefetch_async(ptr, count, device, 1, stream), before, "cudaMemPrefetchAsync",
                   "cudaMemPrefetchAsync", "flags is not 0");
    assert_refused(cubind_runtime_mem_prefetch_async(ptr, count, numa, 0, stream), before, "cudaMemPrefetchAsync",
                   "cudaMemPrefetchAsync", "location.type is neither");
}

static void test_advise(void **state)
{
    const void *ptr = HANDLE(const void *, 4);
    size_t count = 64;
    enum cudaMemoryAdvise advice = cudaMemAdviseSetPreferredLocation;
    struct cudaMemLocation device = {cudaMemLocationTypeDevice, 1}, numa = {cudaMemLocationTypeHostNuma, 1};
    int one = 1;
    unsigned long before;
    (void)state;
    if (!in_release("11.8"))
        skip();
    /* refused first: on the wrapper's slow path (the call that resolves it), the refusal's record stays */
    before = cubind_mock_calls();
    assert_refused(cubind_runtime_mem_advise(ptr, count, advice, numa), before, "cudaMemAdvise", "cudaMemAdvise",
                   "location.type is neither");
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&ptr, sizeof ptr);
    cubind_mock_expect_arg(&count, sizeof count);
    cubind_mock_expect_arg(&advice, sizeof advice);
    cubind_mock_expect_arg(&one, sizeof one);
    cubind_mock_set_status(cudaSuccess);
    assert_called("cudaMemAdvise", cubind_runtime_mem_advise(ptr, count, advice, device));
    before = cubind_mock_calls();
    assert_refused(cubind_runtime_mem_advise(ptr, count, advice, numa), before, "cudaMemAdvise", "cudaMemAdvise",
                   "location.type is neither");
}

static void test_add_remove_dependencies(void **state)
{
    cudaGraph_t graph = HANDLE(cudaGraph_t, 5);
    cudaGraphNode_t from_nodes[2] = {HANDLE(cudaGraphNode_t, 6), HANDLE(cudaGraphNode_t, 7)};
    cudaGraphNode_t to_nodes[2] = {HANDLE(cudaGraphNode_t, 8), HANDLE(cudaGraphNode_t, 9)};
    const cudaGraphNode_t *from = from_nodes, *to = to_nodes;
    cudaGraphEdgeData edges[2];
    size_t n = 2;
    unsigned long before;
    (void)state;
    if (!in_release("11.8"))
        skip();
    memset(edges, 0, sizeof edges);
    expect_edges(&graph, sizeof graph, &from, &to, sizeof from, &n, sizeof n);
    assert_called("cudaGraphAddDependencies", cubind_runtime_graph_add_dependencies(graph, from, to, edges, n));
    assert_called("cudaGraphAddDependencies", cubind_runtime_graph_add_dependencies(graph, from, to, NULL, n));
    assert_called("cudaGraphRemoveDependencies", cubind_runtime_graph_remove_dependencies(graph, from, to, edges, n));
    edges[1].type = cudaGraphDependencyTypeProgrammatic;
    before = cubind_mock_calls();
    assert_refused(cubind_runtime_graph_add_dependencies(graph, from, to, edges, n), before,
                   "cudaGraphAddDependencies", "cudaGraphAddDependencies", "not default");
    assert_refused(cubind_runtime_graph_remove_dependencies(graph, from, to, edges, n), before,
                   "cudaGraphRemoveDependencies", "cudaGraphRemoveDependencies", "not default");
}

static void test_update_capture_dependencies(void **state)
{
    cudaStream_t stream = HANDLE(cudaStream_t, 10);
    cudaGraphNode_t nodes[1] = {HANDLE(cudaGraphNode_t, 11)}, *deps = nodes;
    cudaGraphEdgeData edge;
    size_t n = 1;
    unsigned int flags = cudaStreamSetCaptureDependencies;
    unsigned long before;
    (void)state;
    if (!in_release("11.8"))
        skip();
    memset(&edge, 0, sizeof edge);
    cubind_mock_set_status(cudaSuccess);
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&stream, sizeof stream);
    cubind_mock_expect_arg(&deps, sizeof deps);
    cubind_mock_expect_arg(&n, sizeof n);
    cubind_mock_expect_arg(&flags, sizeof flags);
    assert_called("cudaStreamUpdateCaptureDependencies",
                  cubind_runtime_stream_update_capture_dependencies(stream, deps, &edge, n, flags));
    edge.from_port = 1;
    before = cubind_mock_calls();
    assert_refused(cubind_runtime_stream_update_capture_dependencies(stream, deps, &edge, n, flags), before,
                   "cudaStreamUpdateCaptureDependencies", "cudaStreamUpdateCaptureDependencies", "not default");
}

/* The edge queries: the older form's arguments, and the caller's edge data all default after. */
static void test_edge_queries(void **state)
{
    cudaGraph_t graph = HANDLE(cudaGraph_t, 12);
    cudaGraphNode_t node = HANDLE(cudaGraphNode_t, 13);
    cudaGraphNode_t a[3], b[3], *from = a, *to = b;
    cudaGraphEdgeData edges[3], zero[3];
    size_t n = 3, *pn = &n;
    (void)state;
    if (!in_release("11.8"))
        skip();
    memset(zero, 0, sizeof zero);
    expect_edges(&graph, sizeof graph, &from, &to, sizeof from, &pn, sizeof pn);
    memset(edges, 0x5c, sizeof edges);
    assert_called("cudaGraphGetEdges", cubind_runtime_graph_get_edges(graph, from, to, edges, &n));
    assert_memory_equal(edges, zero, sizeof edges);
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&node, sizeof node);
    cubind_mock_expect_arg(&from, sizeof from);
    cubind_mock_expect_arg(&pn, sizeof pn);
    memset(edges, 0x5c, sizeof edges);
    assert_called("cudaGraphNodeGetDependencies", cubind_runtime_graph_node_get_dependencies(node, from, edges, &n));
    assert_memory_equal(edges, zero, sizeof edges);
    memset(edges, 0x5c, sizeof edges);
    assert_called("cudaGraphNodeGetDependentNodes",
                  cubind_runtime_graph_node_get_dependent_nodes(node, from, edges, &n));
    assert_memory_equal(edges, zero, sizeof edges);
    /* a failing call writes no edge data */
    memset(edges, 0x5c, sizeof edges);
    cubind_mock_set_status(cudaErrorInvalidValue);
    assert_int_equal(cubind_runtime_graph_get_edges(graph, from, to, edges, &n), cudaErrorInvalidValue);
    assert_int_equal(edges[0].from_port, 0x5c);
}

static void test_capture_info(void **state)
{
    cudaStream_t stream = HANDLE(cudaStream_t, 14);
    enum cudaStreamCaptureStatus status, *pstatus = &status;
    unsigned long long id, *pid = &id;
    cudaGraph_t graph, *pgraph = &graph;
    const cudaGraphNode_t *deps, **pdeps = &deps;
    const cudaGraphEdgeData *edges = HANDLE(const cudaGraphEdgeData *, 15);
    size_t n, *pn = &n;
    (void)state;
    if (!in_release("11.8"))
        skip();
    cubind_mock_set_status(cudaSuccess);
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&stream, sizeof stream);
    cubind_mock_expect_arg(&pstatus, sizeof pstatus);
    cubind_mock_expect_arg(&pid, sizeof pid);
    cubind_mock_expect_arg(&pgraph, sizeof pgraph);
    cubind_mock_expect_arg(&pdeps, sizeof pdeps);
    cubind_mock_expect_arg(&pn, sizeof pn);
    assert_called("cudaStreamGetCaptureInfo_v2",
                  cubind_runtime_stream_get_capture_info(stream, &status, &id, &graph, &deps, &edges, &n));
    assert_null(edges); /* no edge data before CUDA 12.3: every edge is default */
}

static void test_exec_update(void **state)
{
    cudaGraphExec_t exec = HANDLE(cudaGraphExec_t, 16);
    cudaGraph_t graph = HANDLE(cudaGraph_t, 17);
    cudaGraphExecUpdateResultInfo info;
    (void)state;
    if (!in_release("11.8"))
        skip();
    memset(&info, 0x5c, sizeof info);
    cubind_mock_set_status(cudaSuccess);
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&exec, sizeof exec);
    cubind_mock_expect_arg(&graph, sizeof graph);
    cubind_mock_expect_any(sizeof(cudaGraphNode_t *));
    cubind_mock_expect_any(sizeof(enum cudaGraphExecUpdateResult *));
    assert_called("cudaGraphExecUpdate", cubind_runtime_graph_exec_update(exec, graph, &info));
    /* from the older form's two outputs, which the mock leaves as the adapter set them */
    assert_int_equal(info.result, cudaGraphExecUpdateSuccess);
    assert_null(info.errorNode);
    assert_null(info.errorFromNode);
}

static void test_driver_entry_point(void **state)
{
    const char *symbol = "cuInit";
    void *fn = HANDLE(void *, 18), **pfn = &fn;
    unsigned long long flags = cudaEnableDefault;
    enum cudaDriverEntryPointQueryResult status = (enum cudaDriverEntryPointQueryResult)99;
    (void)state;
    if (!in_release("11.8"))
        skip();
    cubind_mock_set_status(cudaSuccess);
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&symbol, sizeof symbol);
    cubind_mock_expect_arg(&pfn, sizeof pfn);
    cubind_mock_expect_arg(&flags, sizeof flags);
    assert_called("cudaGetDriverEntryPoint", cubind_runtime_get_driver_entry_point(symbol, &fn, flags, &status));
    assert_int_equal(status, cudaDriverEntryPointSuccess); /* the mock left fn set */
    fn = NULL;
    assert_called("cudaGetDriverEntryPoint", cubind_runtime_get_driver_entry_point(symbol, &fn, flags, &status));
    assert_int_equal(status, cudaDriverEntryPointSymbolNotFound);
}

/* cudaGraphAddNode with no dependencies reaches 12.4's cudaGraphAddNode_v2 with the same arguments
 * (`params` as it is) and succeeds. */
static void assert_node_added(cudaGraph_t graph, struct cudaGraphNodeParams *params)
{
    cudaGraphNode_t out, *pout = &out;
    const cudaGraphNode_t *deps = NULL;
    const cudaGraphEdgeData *edges = NULL;
    size_t n = 0;
    cubind_mock_set_status(cudaSuccess);
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&pout, sizeof pout);
    cubind_mock_expect_arg(&graph, sizeof graph);
    cubind_mock_expect_arg(&deps, sizeof deps);
    cubind_mock_expect_arg(&edges, sizeof edges);
    cubind_mock_expect_arg(&n, sizeof n);
    cubind_mock_expect_arg(&params, sizeof params);
    assert_called("cudaGraphAddNode_v2", cubind_runtime_graph_add_node(&out, graph, deps, edges, n, params));
}

/* CUDA 12.4: cudaGraphNodeParams' child-graph member has no ownership there. */
static void test_node_params(void **state)
{
    cudaGraphNode_t node = HANDLE(cudaGraphNode_t, 19), out;
    cudaGraph_t graph = HANDLE(cudaGraph_t, 20);
    cudaGraphExec_t exec = HANDLE(cudaGraphExec_t, 21);
    const cudaGraphNode_t *deps = NULL;
    const cudaGraphEdgeData *edges = NULL;
    size_t n = 0;
    struct cudaGraphNodeParams params, *p = &params, before_refusal;
    unsigned long before;
    (void)state;
    if (!in_release("12.4"))
        skip();
    memset(&params, 0, sizeof params);
    params.type = cudaGraphNodeTypeGraph;
    params.graph.graph = graph;
    params.graph.ownership = cudaGraphChildGraphOwnershipClone;
    cubind_mock_set_status(cudaSuccess);
    assert_node_added(graph, p);
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&node, sizeof node);
    cubind_mock_expect_arg(&p, sizeof p);
    assert_called("cudaGraphNodeSetParams", cubind_runtime_graph_node_set_params(node, p));
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&exec, sizeof exec);
    cubind_mock_expect_arg(&node, sizeof node);
    cubind_mock_expect_arg(&p, sizeof p);
    assert_called("cudaGraphExecNodeSetParams", cubind_runtime_graph_exec_node_set_params(exec, node, p));
    params.graph.ownership = cudaGraphChildGraphOwnershipMove;
    before_refusal = params;
    before = cubind_mock_calls();
    assert_refused(cubind_runtime_graph_add_node(&out, graph, deps, edges, n, p), before, "cudaGraphAddNode",
                   "cudaGraphAddNode_v2", "nodeParams->graph.ownership");
    assert_refused(cubind_runtime_graph_node_set_params(node, p), before, "cudaGraphNodeSetParams",
                   "cudaGraphNodeSetParams", "nodeParams->graph.ownership");
    assert_refused(cubind_runtime_graph_exec_node_set_params(exec, node, p), before, "cudaGraphExecNodeSetParams",
                   "cudaGraphExecNodeSetParams", "nodeParams->graph.ownership");
    assert_memory_equal(&params, &before_refusal, sizeof params);
    /* another node type: the bytes where ownership would be are another member's */
    params.type = cudaGraphNodeTypeKernel;
    cubind_mock_expect_begin();
    cubind_mock_expect_arg(&node, sizeof node);
    cubind_mock_expect_arg(&p, sizeof p);
    assert_called("cudaGraphNodeSetParams", cubind_runtime_graph_node_set_params(node, p));
}

/* No silent drop, one rule on every path (issue 36): 12.4's cudaMemPoolProps has no usage, whether
 * it comes alone (cudaMemPoolCreate), in an allocation node's parameters (cudaGraphAddMemAllocNode)
 * or in the allocation member of cudaGraphNodeParams' union (cudaGraphAddNode); and 12.4's
 * cudaResourceDesc.res is 56 bytes, 13.0's 128. */
static void test_not_carried(void **state)
{
    cudaGraphNode_t out;
    cudaGraph_t graph = HANDLE(cudaGraph_t, 22);
    const cudaGraphNode_t *deps = NULL;
    const cudaGraphEdgeData *edges = NULL;
    size_t n = 0;
    cudaMemPool_t pool;
    cudaTextureObject_t texture;
    struct cudaMemPoolProps props;
    struct cudaMemAllocNodeParams alloc;
    struct cudaGraphNodeParams params, *p = &params, before_refusal;
    struct cudaResourceDesc resource;
    struct cudaTextureDesc texture_desc;
    unsigned long before;
    (void)state;
    if (!in_release("12.4"))
        skip();
    memset(&props, 0, sizeof props);
    memset(&alloc, 0, sizeof alloc);
    memset(&params, 0, sizeof params);
    memset(&resource, 0, sizeof resource);
    memset(&texture_desc, 0, sizeof texture_desc);
    props.usage = 1;
    alloc.poolProps.usage = 1;
    params.type = cudaGraphNodeTypeMemAlloc;
    params.alloc.poolProps.usage = 1;
    resource.res.reserved.reserved[23] = 0x5a5a;
    before_refusal = params;
    cubind_mock_set_status(cudaSuccess);
    before = cubind_mock_calls();
    assert_refused(cubind_runtime_mem_pool_create(&pool, &props), before, "cudaMemPoolCreate", "cudaMemPoolCreate",
                   "poolProps->usage is set, which CUDA 12.4's struct cudaMemPoolProps does not have");
    assert_refused(cubind_runtime_graph_add_mem_alloc_node(&out, graph, NULL, 0, &alloc), before,
                   "cudaGraphAddMemAllocNode", "cudaGraphAddMemAllocNode",
                   "nodeParams->poolProps.usage is set, which CUDA 12.4's struct cudaMemAllocNodeParams does not have");
    assert_refused(cubind_runtime_graph_add_node(&out, graph, deps, edges, n, p), before, "cudaGraphAddNode",
                   "cudaGraphAddNode_v2",
                   "nodeParams->alloc.poolProps.usage is set while nodeParams->type is cudaGraphNodeTypeMemAlloc");
    assert_memory_equal(&params, &before_refusal, sizeof params);
    assert_refused(cubind_runtime_create_texture_object(&texture, &resource, &texture_desc, NULL), before,
                   "cudaCreateTextureObject", "cudaCreateTextureObject",
                   "pResDesc->res beyond byte 56 is set, which CUDA 12.4's struct cudaResourceDesc does not have");
    /* usage 0: the allocation node is added through 12.4's cudaGraphAddNode_v2 */
    params.alloc.poolProps.usage = 0;
    assert_node_added(graph, p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state),
        cmocka_unit_test(test_instantiate),
        cmocka_unit_test(test_prefetch),
        cmocka_unit_test(test_advise),
        cmocka_unit_test(test_add_remove_dependencies),
        cmocka_unit_test(test_update_capture_dependencies),
        cmocka_unit_test(test_edge_queries),
        cmocka_unit_test(test_capture_info),
        cmocka_unit_test(test_exec_update),
        cmocka_unit_test(test_driver_entry_point),
        cmocka_unit_test(test_node_params),
        cmocka_unit_test(test_not_carried),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
