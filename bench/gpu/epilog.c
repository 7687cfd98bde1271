/*
 * bench/gpu/epilog.c - cuBLASLt's fused ReLU epilogues against the plain matmul and against separate
 * kernels, on the GPU (issue 8, "On the GPU"; the nvmath-python blog of seed 002): fp16 inputs and
 * outputs, fp32 compute (CUBLAS_COMPUTE_32F), the blog's A 65536 x 16384 times B 16384 x 8192.
 *
 * Column-major (cuBLAS's convention), M = 65536, N = 8192, K = 16384. A is stored K x M (lda K) and
 * used transposed (TRANSA = T): the blog's row-major M x K weights. B is K x N (ldb K), D is M x N
 * (ldd M). The bias and the bias gradient have M fp16 elements; the ReLU mask one bit per element of
 * D (ld M, as cuBLASLt writes it).
 *
 *   forward   plain    D = A B                                         CUBLASLT_EPILOGUE_DEFAULT
 *             fused    D = relu(A B + bias), mask = A B + bias > 0     CUBLASLT_EPILOGUE_RELU_AUX_BIAS
 *             unfused  plain, then one kernel: bias + ReLU in place, writing the mask
 *   backward  fused    D = (A G) .* mask, db = D summed over its N columns   CUBLASLT_EPILOGUE_DRELU_BGRAD
 *             unfused  A G plain, then a kernel applying the mask in place and one summing D into db
 *             partly   D = (A G) .* mask, then the kernel summing D into db  CUBLASLT_EPILOGUE_DRELU
 *             fused    (not a goal, they are about DRELU_BGRAD: what a user wanting the fastest backward can
 *                      use where DRELU_BGRAD stays well below the plain matmul)
 * The backward is the blog's: the product giving the gradient with respect to the pre-activation
 * (M x N, the shape of the forward's mask, which it reads: the fused forward's), masked by ReLU's
 * derivative, and the bias gradient summed over the N (batch) columns: length M, D's rows, as
 * cuBLASLt's DRELU_BGRAD requires. It multiplies the same A (same layout, op T) by G, the incoming
 * gradient: K x N like B, its values drawn like B's but with another seed, so independent of the
 * mask and of zero mean (multiplying B again would give D = relu(A B) on the mask's ones: all
 * positive, and db ~ 1.4e5, beyond fp16's 65504). The kernels: NVRTC -> CUBIN -> cuModuleLoadData,
 * cuLaunchKernel.
 * Every call goes through cubind; built with -DCUBIND_BENCH_DIRECT (direct.h) the same source calls
 * NVIDIA's functions, linked directly.
 *
 * Algorithms: each variant asks cublasLtMatmulAlgoGetHeuristic for its first CANDIDATES results (64 MiB of
 * workspace allowed) and keeps the fastest: 1 + TUNE_RUNS rounds, each running every candidate once
 * (the whole variant, its kernels included) between two CUDA events, in an order rotated by one
 * candidate each round, the first round not kept; the
 * median of each; a later candidate of the list replaces the best so far only if more than
 * TUNE_MARGIN faster (near-equal candidates: the earlier, so that the two builds end on the same one).
 * Timing: `warmup` rounds, then `runs` rounds; a round runs each variant once between two CUDA
 * events (variants interleaved: each sees the same clocks and temperature). Median per variant;
 * TFLOP/s = 2 M N K / time.
 *
 * Checks, after the timing: each variant runs once more on poisoned outputs (NaN, mask 0x55), then
 * 256 sampled elements of D are compared with a CPU reference in double from the same inputs (a hash
 * of the index: multiples of 1/64 in [-1, 1], the bias in [-8, 8]): |gpu - ref| <= 1e-3 (|AB| + |bias|)
 * + 1e-6 sum |terms|; the mask bits on those samples (skipping any within that tolerance of 0);
 * the bias gradient: all M values finite, and 4 rows against the sum s of the row of D the same run
 * wrote (in double): |db - s| <= 1e-3 sum |D| (D's own rounding to fp16, 2^-11 relative, and fp32
 * summation) + 2^-10 |s| (db's rounding to fp16).
 *
 * Usage: epilog [all | fused | backward | layouts] [runs, default 25, layouts 10] [warm-up rounds, default 5]
 *   all      the six variants: a Markdown table;
 *   fused    the fused forward only, then one line "result median_ms=... tflops=... library=... algo=..."
 *            (bench/gpu/run.sh runs the cubind and the direct build in alternation with it);
 *   backward the same for the fused backward (DRELU_BGRAD) only, on the mask of one run of the fused forward
 *            (the heuristic's first algorithm): is what stays below 90% the library's kernel or cubind?
 *   layouts  the backward on each of the four operand layouts of D = op(A) op(G): A op T (stored K x M,
 *            ld K: the other modes' layout) or op N (stored M x K, ld M); G op N (stored K x N, ld K: the
 *            other modes') or op T (stored N x K, ld N); D M x N, ld M. Per layout the plain matmul,
 *            DRELU_BGRAD and DRELU + the bias-gradient kernel, each tuned as above, all twelve timed in
 *            the same interleaved rounds: a Markdown table. The same buffers a and g, read in another
 *            layout (their values do not matter for timing): nothing is checked ("all" checks the first
 *            layout). The mask: one run of the fused forward (the heuristic's first algorithm). About
 *            20 s of GPU time (tuning: 12 x 48 runs of ~25 ms; timing: 15 rounds of 12).
 * Exit: 0 done, 1 CUDA error, 2 wrong result, 77 no GPU/driver.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gpu.h"

#define M 65536L
#define N 8192L
#define K 16384L
#define WORKSPACE_BYTES ((size_t)64 << 20)
#define MASK_BYTES ((size_t)(M * N / 8))
#define TUNE_MARGIN 0.02
enum { SAMPLES = 256, CHECKED_ROWS = 4, MAX_RUNS = 1000, SEED_A = 1, SEED_B = 2, SEED_BIAS = 3, SEED_G = 4 };
enum { CANDIDATES = 8, TUNE_RUNS = 5 };

/* fp16 is handled as its bits (unsigned short): no cuda_fp16.h needed. One thread per 8 elements of D
 * (16 bytes) and its mask byte: element i + j*M is bit (i + j*M) % 8 of mask byte (i + j*M) / 8. */
static const char kernel_source[] =
    "__device__ float h2f(unsigned short h) { float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h)); return f; }\n"
    "__device__ unsigned short f2h(float f) { unsigned short h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); return h; }\n"
    "__device__ unsigned mix(unsigned x)\n"
    "{ x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; return x; }\n"
    "union group { uint4 v; unsigned short h[8]; };\n"
    "extern \"C\" __global__ void fill(unsigned short *out, unsigned long long n, unsigned seed, unsigned range)\n"
    "{\n"
    "    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;\n"
    "         i += (unsigned long long)gridDim.x * blockDim.x)\n"
    "        out[i] = f2h((float)((int)(mix((unsigned)i + seed * 0x9e3779b9u) % (2 * range + 1)) - (int)range) / 64.0f);\n"
    "}\n"
    "extern \"C\" __global__ void bias_relu_mask(uint4 *d, const uint4 *bias, unsigned char *mask, unsigned m)\n"
    "{\n"
    "    unsigned long long g = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n"
    "    union group x, b;\n"
    "    unsigned bits = 0;\n"
    "    x.v = d[g];\n"
    "    b.v = bias[(g % (m / 8))];\n"
    "    for (int k = 0; k < 8; ++k) {\n"
    "        float z = h2f(x.h[k]) + h2f(b.h[k]);\n"
    "        bits |= (z > 0.0f) << k;\n"
    "        x.h[k] = f2h(z > 0.0f ? z : 0.0f);\n"
    "    }\n"
    "    d[g] = x.v;\n"
    "    mask[g] = (unsigned char)bits;\n"
    "}\n"
    "extern \"C\" __global__ void drelu(uint4 *d, const unsigned char *mask)\n"
    "{\n"
    "    unsigned long long g = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n"
    "    union group x;\n"
    "    unsigned bits = mask[g];\n"
    "    x.v = d[g];\n"
    "    for (int k = 0; k < 8; ++k)\n"
    "        if (!((bits >> k) & 1))\n"
    "            x.h[k] = 0;\n"
    "    d[g] = x.v;\n"
    "}\n"
    "/* Blocks of 32 x 8 threads: 32 rows; thread y sums the columns y, y + 8, ...; then the 8 partial sums. */\n"
    "extern \"C\" __global__ void bias_grad(const unsigned short *d, unsigned short *db, unsigned m, unsigned n)\n"
    "{\n"
    "    __shared__ float part[8][32];\n"
    "    unsigned i = blockIdx.x * 32 + threadIdx.x;\n"
    "    float s = 0.0f;\n"
    "#pragma unroll 8\n"
    "    for (unsigned j = threadIdx.y; j < n; j += 8)\n"
    "        s += h2f(d[i + (unsigned long long)j * m]);\n"
    "    part[threadIdx.y][threadIdx.x] = s;\n"
    "    __syncthreads();\n"
    "    if (threadIdx.y == 0) {\n"
    "        for (int k = 1; k < 8; ++k)\n"
    "            s += part[k][threadIdx.x];\n"
    "        db[i] = f2h(s);\n"
    "    }\n"
    "}\n";

enum after { AFTER_NOTHING, AFTER_BIAS_RELU_MASK, AFTER_DRELU_BGRAD, AFTER_BIAS_GRAD };

/* An operand layout of D = op(A) op(B) (op(G) for the backward): the ops, and A and B as stored. Every
 * mode uses the first; "layouts" reads the same buffers in the others too. */
struct layout {
    int32_t transa, transb;
    cublasLtMatrixLayout_t a, b;
    const char *a_text, *g_text;
};
enum { LAYOUTS = 4 };
static struct layout layouts[LAYOUTS] = {
    {.transa = CUBLAS_OP_T, .transb = CUBLAS_OP_N, .a_text = "op T (K x M, ld K)", .g_text = "op N (K x N, ld K)"},
    {.transa = CUBLAS_OP_N, .transb = CUBLAS_OP_N, .a_text = "op N (M x K, ld M)", .g_text = "op N (K x N, ld K)"},
    {.transa = CUBLAS_OP_T, .transb = CUBLAS_OP_T, .a_text = "op T (K x M, ld K)", .g_text = "op T (N x K, ld N)"},
    {.transa = CUBLAS_OP_N, .transb = CUBLAS_OP_T, .a_text = "op N (M x K, ld M)", .g_text = "op T (N x K, ld N)"},
};

struct variant {
    const char *direction, *name, *what;
    cublasLtEpilogue_t epilogue;
    enum after after;
    const struct layout *layout; /* set by plan() */
    cublasLtMatmulDesc_t desc;
    cublasLtMatmulHeuristicResult_t candidates[CANDIDATES];
    int found, chosen;                       /* candidates given by the heuristic; the one kept */
    double tune_ms[CANDIDATES];              /* each candidate's median while tuning (< 0: it failed) */
    char algo[200];
    double ms[MAX_RUNS], median_ms;
};

#define VARIANT(direction_, name_, what_, epilogue_, after_) \
    {.direction = direction_, .name = name_, .what = what_, .epilogue = epilogue_, .after = after_}
static struct variant variants[] = {
    VARIANT("forward", "plain", "`DEFAULT`", CUBLASLT_EPILOGUE_DEFAULT, AFTER_NOTHING),
    VARIANT("forward", "fused", "`RELU_AUX_BIAS`", CUBLASLT_EPILOGUE_RELU_AUX_BIAS, AFTER_NOTHING),
    VARIANT("forward", "unfused", "`DEFAULT` + bias/ReLU/mask kernel", CUBLASLT_EPILOGUE_DEFAULT,
            AFTER_BIAS_RELU_MASK),
    VARIANT("backward", "fused", "`DRELU_BGRAD`", CUBLASLT_EPILOGUE_DRELU_BGRAD, AFTER_NOTHING),
    VARIANT("backward", "unfused", "`DEFAULT` + dReLU kernel + bias-gradient kernel", CUBLASLT_EPILOGUE_DEFAULT,
            AFTER_DRELU_BGRAD),
    VARIANT("backward", "partly fused", "`DRELU` + bias-gradient kernel", CUBLASLT_EPILOGUE_DRELU, AFTER_BIAS_GRAD),
};
enum { PLAIN, FUSED_FORWARD, UNFUSED_FORWARD, FUSED_BACKWARD, UNFUSED_BACKWARD, PARTLY_FUSED_BACKWARD, VARIANTS };
/* "layouts": per layout these three, in this order (the plain matmul of the backward: it multiplies G) */
static const struct variant backward_plain = VARIANT("backward", "plain", "`DEFAULT`", CUBLASLT_EPILOGUE_DEFAULT,
                                                     AFTER_NOTHING);
enum { CELL_PLAIN, CELL_FUSED, CELL_PARTLY_FUSED, CELLS };

static cublasLtHandle_t lt;
static cublasLtMatrixLayout_t d_layout;
static void *a, *b, *g, *d, *bias, *db, *mask_fused, *mask_unfused, *workspace;
static CUfunction fill_kernel, bias_relu_mask_kernel, drelu_kernel, bias_grad_kernel;
static unsigned m_arg = (unsigned)M, n_arg = (unsigned)N;

/* The inputs, on the host as on the GPU (the fill kernel): an integer in [-range, range] over 64. */
static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
static double value(uint32_t seed, uint32_t index, uint32_t range)
{
    return (double)((int)(mix(index + seed * 0x9e3779b9u) % (2 * range + 1)) - (int)range) / 64.0;
}
static double a_at(long i, long l) { return value(SEED_A, (uint32_t)(l + i * K), 64); } /* (A)(i, l), stored K x M */
static double b_at(long l, long j) { return value(SEED_B, (uint32_t)(l + j * K), 64); }
static double g_at(long l, long j) { return value(SEED_G, (uint32_t)(l + j * K), 64); }
static double bias_at(long i) { return value(SEED_BIAS, (uint32_t)i, 512); }

static double from_half(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    double v = exp == 0 ? ldexp(h & 0x3ff, -24)
               : exp == 31 ? ((h & 0x3ff) ? NAN : INFINITY)
                           : ldexp((h & 0x3ff) + 1024, exp - 25);
    return (h & 0x8000) ? -v : v;
}

/* The file of the libcublasLt this process loaded (/proc/self/maps): both builds must time the same one. */
static void loaded_cublaslt(char *path, size_t size)
{
    char line[4096];
    FILE *maps = fopen("/proc/self/maps", "r");
    snprintf(path, size, "?");
    while (maps && fgets(line, sizeof line, maps)) {
        char *file = strchr(line, '/');
        if (file && strstr(file, "/libcublasLt.so")) {
            file[strcspn(file, "\n")] = '\0';
            snprintf(path, size, "%s", file);
            break;
        }
    }
    if (maps)
        fclose(maps);
}

static void launch(CUfunction f, unsigned blocks, unsigned threads_x, unsigned threads_y, void **args)
{
    CHECK(cubind_driver_launch_kernel(f, blocks, 1, 1, threads_x, threads_y, 1, 0, NULL, args, NULL));
}

/* NVRTC -> CUBIN for this GPU (sm_XY) -> module; the four kernels. */
static void load_kernels(CUdevice device)
{
    int major, minor;
    char arch[64];
    const char *options[] = {arch};
    nvrtcProgram prog;
    nvrtcResult status;
    size_t size;
    char *cubin;
    CUmodule module;

    CHECK(cubind_driver_device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    CHECK(cubind_driver_device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    CHECK(cubind_nvrtc_create_program(&prog, kernel_source, "epilog_kernels.cu", 0, NULL, NULL));
    status = cubind_nvrtc_compile_program(prog, 1, options);
    if (status != NVRTC_SUCCESS) {
        char *log;
        CHECK(cubind_nvrtc_get_program_log_size(prog, &size));
        log = malloc(size + 1);
        if (log && cubind_nvrtc_get_program_log(prog, log) == NVRTC_SUCCESS)
            fprintf(stderr, "NVRTC log:\n%s\n", log);
        free(log);
        CHECK(status);
    }
    CHECK(cubind_nvrtc_get_cubin_size(prog, &size));
    cubin = malloc(size);
    if (!cubin)
        exit(EXIT_ERROR);
    CHECK(cubind_nvrtc_get_cubin(prog, cubin));
    CHECK(cubind_nvrtc_destroy_program(&prog));
    CHECK(cubind_driver_module_load_data(&module, cubin)); /* kept loaded until the process ends */
    free(cubin);
    CHECK(cubind_driver_module_get_function(&fill_kernel, module, "fill"));
    CHECK(cubind_driver_module_get_function(&bias_relu_mask_kernel, module, "bias_relu_mask"));
    CHECK(cubind_driver_module_get_function(&drelu_kernel, module, "drelu"));
    CHECK(cubind_driver_module_get_function(&bias_grad_kernel, module, "bias_grad"));
}

static void fill(void *buffer, unsigned long long count, unsigned seed, unsigned range)
{
    void *args[] = {&buffer, &count, &seed, &range};
    launch(fill_kernel, 1024, 256, 1, args);
}

/* A configuration value of the algorithm (-1 if cuBLASLt does not give it); x86-64 is little-endian. */
static long algo_config(const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoConfigAttributes_t attribute)
{
    uint64_t v = 0;
    size_t size = 0;
    if (cubind_cublasLt_matmul_algo_config_get_attribute(algo, attribute, NULL, 0, &size) != CUBLAS_STATUS_SUCCESS ||
        size > sizeof v ||
        cubind_cublasLt_matmul_algo_config_get_attribute(algo, attribute, &v, size, &size) != CUBLAS_STATUS_SUCCESS)
        return -1;
    return (long)v;
}

/* By the direction: the "layouts" mode's variants are copies, outside variants[]. */
static int is_backward(const struct variant *v) { return strcmp(v->direction, "backward") == 0; }

/* cuBLASLt's layouts of A and B as stored: op T reads the transpose of what is stored. */
static void layout_create(struct layout *l)
{
    const int a_t = l->transa == CUBLAS_OP_T, b_t = l->transb == CUBLAS_OP_T;
    CHECK(cubind_cublasLt_matrix_layout_create(&l->a, CUDA_R_16F, a_t ? K : M, a_t ? M : K, a_t ? K : M));
    CHECK(cubind_cublasLt_matrix_layout_create(&l->b, CUDA_R_16F, b_t ? N : K, b_t ? K : N, b_t ? N : K));
}

static void layout_destroy(struct layout *l)
{
    CHECK(cubind_cublasLt_matrix_layout_destroy(l->a));
    CHECK(cubind_cublasLt_matrix_layout_destroy(l->b));
}

/* The variant's matmul descriptor on the layout and the heuristic's first CANDIDATES algorithms for it; 0 (and
 * a message) if the heuristic gives none, which "layouts" reports in its table rather than stopping. */
static int plan(struct variant *v, const struct layout *layout)
{
    const uint32_t epilogue = v->epilogue;
    const int64_t mask_ld = M;
    const uint64_t workspace_bytes = WORKSPACE_BYTES;
    void *bias_pointer = v->epilogue == CUBLASLT_EPILOGUE_DRELU_BGRAD ? db : bias;
    cublasLtMatmulPreference_t pref;
    cublasStatus_t status;

    v->layout = layout;
    CHECK(cubind_cublasLt_matmul_desc_create(&v->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CHECK(cubind_cublasLt_matmul_desc_set_attribute(v->desc, CUBLASLT_MATMUL_DESC_TRANSA, &layout->transa,
                                                     sizeof layout->transa));
    CHECK(cubind_cublasLt_matmul_desc_set_attribute(v->desc, CUBLASLT_MATMUL_DESC_TRANSB, &layout->transb,
                                                     sizeof layout->transb));
    CHECK(cubind_cublasLt_matmul_desc_set_attribute(v->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                                     sizeof epilogue));
    if (v->epilogue == CUBLASLT_EPILOGUE_RELU_AUX_BIAS || v->epilogue == CUBLASLT_EPILOGUE_DRELU_BGRAD)
        CHECK(cubind_cublasLt_matmul_desc_set_attribute(v->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_pointer,
                                                         sizeof bias_pointer));
    if (v->epilogue != CUBLASLT_EPILOGUE_DEFAULT) { /* the mask: written by the forward, read by the backward */
        CHECK(cubind_cublasLt_matmul_desc_set_attribute(v->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                                                         &mask_fused, sizeof mask_fused));
        CHECK(cubind_cublasLt_matmul_desc_set_attribute(v->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &mask_ld,
                                                         sizeof mask_ld));
    }
    CHECK(cubind_cublasLt_matmul_preference_create(&pref));
    CHECK(cubind_cublasLt_matmul_preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                           &workspace_bytes, sizeof workspace_bytes));
    v->found = 0;
    v->chosen = -1;
    status = cubind_cublasLt_matmul_algo_get_heuristic(lt, v->desc, layout->a, layout->b, d_layout, d_layout, pref,
                                                       CANDIDATES, v->candidates, &v->found);
    if (status != CUBLAS_STATUS_SUCCESS && status != CUBLAS_STATUS_NOT_SUPPORTED) /* NOT_SUPPORTED: none found */
        CHECK(status);
    CHECK(cubind_cublasLt_matmul_preference_destroy(pref));
    if (status != CUBLAS_STATUS_SUCCESS || v->found <= 0) {
        v->found = 0;
        snprintf(v->algo, sizeof v->algo, "none: the heuristic found no algorithm (status %d)", (int)status);
        fprintf(stderr, "epilog: cublasLtMatmulAlgoGetHeuristic found no algorithm for %s %s (%s), A %s, G/B %s "
                "(status %d)\n", v->direction, v->name, v->what, layout->a_text, layout->g_text, (int)status);
        return 0;
    }
    return 1;
}

/* The variant's matmul with the given candidate, queued on the default stream; its status. */
static cublasStatus_t matmul(const struct variant *v, int candidate)
{
    const float alpha = 1.0f, beta = 0.0f; /* beta = 0: C is not read; it is given as D */
    const void *right = is_backward(v) ? g : b; /* the backward multiplies the incoming gradient G */
    return cubind_cublasLt_matmul(lt, v->desc, &alpha, a, v->layout->a, right, v->layout->b, &beta, d, d_layout, d,
                                  d_layout, &v->candidates[candidate].algo, workspace, WORKSPACE_BYTES, NULL);
}

/* One run of the variant with the given candidate (the matmul and its kernels); the matmul's status. */
static cublasStatus_t run_with(const struct variant *v, int candidate)
{
    cublasStatus_t status = matmul(v, candidate);
    if (status != CUBLAS_STATUS_SUCCESS)
        return status;
    if (v->after == AFTER_BIAS_RELU_MASK) {
        void *args[] = {&d, &bias, &mask_unfused, &m_arg};
        launch(bias_relu_mask_kernel, (unsigned)(M * N / 8 / 256), 256, 1, args);
    } else if (v->after == AFTER_DRELU_BGRAD) {
        void *drelu_args[] = {&d, &mask_fused};
        void *bias_grad_args[] = {&d, &db, &m_arg, &n_arg};
        launch(drelu_kernel, (unsigned)(M * N / 8 / 256), 256, 1, drelu_args);
        launch(bias_grad_kernel, (unsigned)(M / 32), 32, 8, bias_grad_args);
    } else if (v->after == AFTER_BIAS_GRAD) { /* the mask already applied by the matmul's DRELU */
        void *bias_grad_args[] = {&d, &db, &m_arg, &n_arg};
        launch(bias_grad_kernel, (unsigned)(M / 32), 32, 8, bias_grad_args);
    }
    return CUBLAS_STATUS_SUCCESS;
}

/* One run of the variant with its chosen algorithm. */
static void run(const struct variant *v) { CHECK(run_with(v, v->chosen)); }

/* Times every candidate (1 + TUNE_RUNS rounds, the first not kept) and keeps the fastest; describes it. 0 (and
 * a message) if none ran or plan() found none. */
static int tune(struct variant *v, cudaEvent_t start, cudaEvent_t stop)
{
    static double ms[CANDIDATES][TUNE_RUNS];
    const cublasLtMatmulAlgo_t *algo;
    int round, k, c;

    v->chosen = -1;
    if (v->found <= 0)
        return 0;

    for (c = 0; c < v->found; ++c)
        v->tune_ms[c] = v->candidates[c].state == CUBLAS_STATUS_SUCCESS ? 0.0 : -1.0;
    for (round = -1; round < TUNE_RUNS; ++round)
        for (k = 0; k < v->found; ++k) { /* each round starting one candidate further: no place is favoured */
            float t;
            c = (k + round + 1) % v->found;
            if (v->tune_ms[c] < 0.0)
                continue;
            CHECK(cubind_runtime_event_record(start, NULL));
            if (run_with(v, c) != CUBLAS_STATUS_SUCCESS) { /* not runnable after all: left out */
                v->tune_ms[c] = -1.0;
                CHECK(cubind_runtime_device_synchronize());
                continue;
            }
            CHECK(cubind_runtime_event_record(stop, NULL));
            CHECK(cubind_runtime_event_synchronize(stop));
            CHECK(cubind_runtime_event_elapsed_time(&t, start, stop));
            if (round >= 0)
                ms[c][round] = t;
        }
    for (c = 0; c < v->found; ++c) {
        if (v->tune_ms[c] < 0.0)
            continue;
        v->tune_ms[c] = median(ms[c], TUNE_RUNS);
        if (v->chosen < 0 || v->tune_ms[c] < (1.0 - TUNE_MARGIN) * v->tune_ms[v->chosen])
            v->chosen = c;
    }
    if (v->chosen < 0) {
        snprintf(v->algo, sizeof v->algo, "none: none of the heuristic's %d algorithms ran", v->found);
        fprintf(stderr, "epilog: none of the heuristic's %d algorithms for %s %s (%s), A %s, G/B %s ran\n", v->found,
                v->direction, v->name, v->what, v->layout->a_text, v->layout->g_text);
        return 0;
    }
    algo = &v->candidates[v->chosen].algo;
    snprintf(v->algo, sizeof v->algo, "heuristic #%d of %d: algo %ld, tile %ld, stages %ld, split-k %ld, "
             "swizzle %ld, cluster %ld; workspace %zu B",
             v->chosen + 1, v->found, algo_config(algo, CUBLASLT_ALGO_CONFIG_ID),
             algo_config(algo, CUBLASLT_ALGO_CONFIG_TILE_ID), algo_config(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID),
             algo_config(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM), algo_config(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING),
             algo_config(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID), v->candidates[v->chosen].workspaceSize);
    return 1;
}

/* `warmup` rounds, then `runs` timed; a round runs each tuned variant of v[0..count) once between two CUDA
 * events (interleaved: each sees the same clocks and temperature). The median of each (-1: not tuned). */
static void time_rounds(struct variant *v, int count, int runs, int warmup, cudaEvent_t start, cudaEvent_t stop)
{
    int round, i;
    for (round = -warmup; round < runs; ++round)
        for (i = 0; i < count; ++i) {
            float ms;
            if (v[i].chosen < 0)
                continue;
            CHECK(cubind_runtime_event_record(start, NULL));
            run(&v[i]);
            CHECK(cubind_runtime_event_record(stop, NULL));
            CHECK(cubind_runtime_event_synchronize(stop));
            CHECK(cubind_runtime_event_elapsed_time(&ms, start, stop));
            if (round >= 0)
                v[i].ms[round] = ms;
        }
    for (i = 0; i < count; ++i)
        v[i].median_ms = v[i].chosen < 0 ? -1.0 : median(v[i].ms, runs);
}

/* One line: each candidate's tuning median and configuration, in the heuristic's order; the kept one in bold. */
static void print_tuning(const char *prefix, const struct variant *v)
{
    int c;
    printf("- %s%s %s:", prefix, v->direction, v->name);
    if (v->found <= 0)
        printf(" %s", v->algo);
    for (c = 0; c < v->found; ++c) {
        const cublasLtMatmulAlgo_t *algo = &v->candidates[c].algo;
        printf("%s #%d ", c ? ";" : "", c + 1);
        if (v->tune_ms[c] < 0.0)
            printf("did not run");
        else
            printf("%s%.3f ms%s", c == v->chosen ? "**" : "", v->tune_ms[c], c == v->chosen ? "**" : "");
        printf(" (algo %ld, tile %ld, stages %ld, split-k %ld, cluster %ld)", algo_config(algo, CUBLASLT_ALGO_CONFIG_ID),
               algo_config(algo, CUBLASLT_ALGO_CONFIG_TILE_ID), algo_config(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID), algo_config(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
               algo_config(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID));
    }
    printf("\n");
}

static uint16_t half_at(const void *buffer, long index)
{
    uint16_t h;
    CHECK(cubind_runtime_memcpy(&h, (const uint16_t *)buffer + index, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

static int bit_at(const void *mask, long i, long j)
{
    unsigned char byte;
    long bit = i + j * M;
    CHECK(cubind_runtime_memcpy(&byte, (const unsigned char *)mask + bit / 8, 1, cudaMemcpyDeviceToHost));
    return (byte >> (bit % 8)) & 1;
}

static struct sample {
    long i, j;
    double ab, magnitude; /* (A B)(i, j) in double (exact: multiples of 1/4096) and the sum of |terms| */
    double ag, ag_magnitude; /* the same of (A G)(i, j), the backward's product */
} samples[SAMPLES];

static void choose_samples(void)
{
    unsigned state = 12345;
    int s;
    long l;
    for (s = 0; s < SAMPLES; ++s) {
        struct sample *p = &samples[s];
        p->i = s == 0 ? 0 : s == 1 ? M - 1 : (long)((state = state * 1103515245u + 12345u) >> 8) % M;
        p->j = s == 0 ? 0 : s == 1 ? N - 1 : (long)((state = state * 1103515245u + 12345u) >> 8) % N;
        p->ab = p->magnitude = p->ag = p->ag_magnitude = 0.0;
        for (l = 0; l < K; ++l) {
            double t = a_at(p->i, l) * b_at(l, p->j), u = a_at(p->i, l) * g_at(l, p->j);
            p->ab += t;
            p->magnitude += fabs(t);
            p->ag += u;
            p->ag_magnitude += fabs(u);
        }
    }
}

/* Compares the sampled elements of D (and mask bits, and for the backward db) with the reference;
 * prints one line and returns the number of wrong values. */
static int check(const struct variant *v)
{
    const int forward = !is_backward(v), with_bias = forward && v != &variants[PLAIN];
    const void *mask = v == &variants[UNFUSED_FORWARD] ? mask_unfused : mask_fused;
    int s, r, bad = 0, bits = 0, skipped = 0, not_finite = 0;
    double worst = 0.0, worst_db = 0.0, largest_db = 0.0;

    for (s = 0; s < SAMPLES; ++s) {
        struct sample *p = &samples[s];
        double product = forward ? p->ab : p->ag, magnitude = forward ? p->magnitude : p->ag_magnitude;
        double b_i = with_bias ? bias_at(p->i) : 0.0, z = product + b_i, ref;
        double tolerance = 1e-3 * (fabs(product) + fabs(b_i)) + 1e-6 * magnitude;
        double got = from_half(half_at(d, p->i + p->j * M));
        if (v == &variants[PLAIN])
            ref = z;
        else if (forward)
            ref = z > 0.0 ? z : 0.0;
        else
            ref = bit_at(mask_fused, p->i, p->j) ? z : 0.0; /* the mask the backward read */
        if (!(fabs(got - ref) <= tolerance)) { /* NaN (unwritten) fails too */
            if (bad++ < 5)
                fprintf(stderr, "%s %s: D(%ld, %ld) = %.6g, expected %.6g\n", v->direction, v->name, p->i, p->j, got,
                        ref);
        }
        worst = fmax(worst, fabs(got - ref) / tolerance);
        if (with_bias) {
            int bit = bit_at(mask, p->i, p->j);
            if (fabs(z) <= tolerance) {
                ++skipped;
            } else if (bit != (z > 0.0)) {
                ++bits;
                if (bad++ < 5)
                    fprintf(stderr, "%s %s: mask bit (%ld, %ld) = %d, expected %d\n", v->direction, v->name, p->i,
                            p->j, bit, z > 0.0);
            }
        }
    }
    if (!forward) { /* every db(i) finite; db(i) of 4 rows against the sum of row i of D as this run wrote it */
        static uint16_t all_db[M], row[N];
        CHECK(cubind_runtime_memcpy(all_db, db, sizeof all_db, cudaMemcpyDeviceToHost));
        for (r = 0; r < M; ++r) {
            double x = from_half(all_db[r]);
            if (!isfinite(x)) {
                if (not_finite++ < 3)
                    fprintf(stderr, "%s %s: db(%d) = %.6g\n", v->direction, v->name, r, x);
            } else {
                largest_db = fmax(largest_db, fabs(x));
            }
        }
        bad += not_finite;
        for (r = 0; r < CHECKED_ROWS; ++r) {
            long i = r == 0 ? 0 : r == 1 ? M - 1 : samples[r].i, j;
            double sum = 0.0, magnitude = 0.0, got = from_half(all_db[i]), tolerance;
            CHECK(cubind_runtime_memcpy2_d(row, sizeof row[0], (const uint16_t *)d + i, M * sizeof row[0],
                                           sizeof row[0], N, cudaMemcpyDeviceToHost));
            for (j = 0; j < N; ++j) {
                sum += from_half(row[j]);
                magnitude += fabs(from_half(row[j]));
            }
            tolerance = 1e-3 * magnitude + ldexp(fabs(sum), -10) + 1e-3;
            if (!(fabs(got - sum) <= tolerance)) {
                if (bad++ < 5)
                    fprintf(stderr, "%s %s: db(%ld) = %.6g, expected %.6g (tolerance %.3g)\n", v->direction, v->name,
                            i, got, sum, tolerance);
            }
            worst_db = fmax(worst_db, fabs(got - sum) / tolerance);
        }
    }
    printf("- %s %s: %d wrong; %d samples of D%s: worst error %.2g of the tolerance", v->direction, v->name, bad,
           SAMPLES, with_bias ? " and of the mask" : "", worst);
    if (with_bias)
        printf("; %d mask bits wrong, %d samples within rounding of 0 skipped", bits, skipped);
    if (!forward)
        printf("; db: %d of %ld not finite, largest |db| %.0f (fp16 max 65504), 4 rows against the sums of D's rows: "
               "worst error %.2g of the tolerance", not_finite, M, largest_db, worst_db);
    printf("\n");
    return bad;
}

/* Poisons what the variant writes, runs it once and checks it. */
static int poison_run_check(const struct variant *v)
{
    CHECK(cubind_runtime_memset(d, 0xff, (size_t)(M * N) * 2)); /* 0xffff: an fp16 NaN */
    CHECK(cubind_runtime_memset(db, 0xff, (size_t)M * 2));
    if (v == &variants[FUSED_FORWARD])
        CHECK(cubind_runtime_memset(mask_fused, 0x55, MASK_BYTES));
    if (v == &variants[UNFUSED_FORWARD])
        CHECK(cubind_runtime_memset(mask_unfused, 0x55, MASK_BYTES));
    run(v);
    CHECK(cubind_runtime_device_synchronize());
    return check(v);
}

static double tflops(double ms) { return 2.0 * M * N * K / (ms * 1e-3) / 1e12; }

/* The mask the backward reads without the forward in the same rounds: the fused forward's, one run on the
 * heuristic's first algorithm. */
static void make_mask(void)
{
    struct variant *forward = &variants[FUSED_FORWARD];

    if (!plan(forward, &layouts[0]))
        exit(EXIT_ERROR);
    CHECK(matmul(forward, 0));
    CHECK(cubind_cublasLt_matmul_desc_destroy(forward->desc));
}

/* "all" (every variant, all = 1) or one variant alone (all = 0: "fused", the fused forward, or "backward",
 * the fused backward): plan, tune, time, report, check; the number of wrong values. */
static int by_variant(int all, int alone, const char *name, const char *library, int runs, int warmup,
                      cudaEvent_t start, cudaEvent_t stop)
{
    const int first = all ? 0 : alone, last = all ? VARIANTS - 1 : alone;
    int round, i, bad = 0;

    choose_samples();
    if (first == FUSED_BACKWARD)
        make_mask();
    for (i = first; i <= last; ++i)
        if (!plan(&variants[i], &layouts[0]))
            exit(EXIT_ERROR);
    for (round = 0; round < 3; ++round) /* the GPU up to its clocks before any candidate is timed */
        CHECK(matmul(&variants[first], 0));
    for (i = first; i <= last; ++i)
        if (!tune(&variants[i], start, stop))
            exit(EXIT_ERROR);
    time_rounds(&variants[first], last - first + 1, runs, warmup, start, stop);

    if (all) {
        const struct variant *plain = &variants[PLAIN], *partly = &variants[PARTLY_FUSED_BACKWARD];
        const struct variant *fused = &variants[FUSED_BACKWARD], *unfused = &variants[UNFUSED_BACKWARD];
        printf("%s; cuBLASLt %zu (%s); fp16 inputs and outputs, fp32 compute; M = %ld, N = %ld, K = %ld, "
               "column-major: A stored K x M and transposed (op T), B K x N (op N), D M x N: both operands "
               "contiguous along K, for both passes; 2MNK = %.2f TFLOP a matmul. The backward multiplies A by G "
               "(K x N like B, another seed: the incoming gradient, independent of the mask and of zero mean), "
               "applies the fused forward's mask (M x N) and sums D's N columns into db (length M, D's rows), "
               "as the blog's backward does. Median of %d timed rounds after %d of warm-up, each variant once a "
               "round between two CUDA events. Algorithm of each variant: the fastest of the first %d that "
               "cublasLtMatmulAlgoGetHeuristic gives (64 MiB of workspace allowed), each run once and timed %d "
               "times, interleaved (the order rotated each round), the median; a later one of the list is kept only if over %.0f%% faster.\n\n",
               name, cubind_cublasLt_get_version(), library, M, N, K, 2.0 * M * N * K / 1e12, runs, warmup,
               CANDIDATES, TUNE_RUNS, 100 * TUNE_MARGIN);
        printf("| pass | variant | what runs | median ms | TFLOP/s | of plain | algorithm (ids of cublasLt.h) |\n");
        printf("|---|---|---|---|---|---|---|\n");
        for (i = 0; i < VARIANTS; ++i)
            printf("| %s | %s | %s | %.3f | %.1f | %.1f%% | %s |\n", variants[i].direction, variants[i].name,
                   variants[i].what, variants[i].median_ms, tflops(variants[i].median_ms),
                   100.0 * plain->median_ms / variants[i].median_ms, variants[i].algo);
        printf("\n");
        for (i = FUSED_FORWARD; i <= FUSED_BACKWARD; i += FUSED_BACKWARD - FUSED_FORWARD) {
            const struct variant *f = &variants[i], *u = &variants[i + 1];
            printf("- %s: fused faster than unfused: %s (%.3f ms against %.3f); fused at least 90%% of the plain "
                   "matmul's throughput: %s (%.1f%%)\n",
                   f->direction, f->median_ms < u->median_ms ? "yes" : "**no**", f->median_ms, u->median_ms,
                   plain->median_ms / f->median_ms >= 0.9 ? "yes" : "**no**", 100.0 * plain->median_ms / f->median_ms);
        }
        /* Not a goal (they are about DRELU_BGRAD): what a user wanting the fastest backward can use instead. */
        printf("- backward, partly fused (`DRELU` in the matmul, the bias gradient in its own kernel; not one of the "
               "goals, which are about `DRELU_BGRAD`, but what a user wanting the fastest backward can use): faster "
               "than unfused: %s (%.3f ms against %.3f); faster than fused: %s (against %.3f); %.1f%% of the plain "
               "matmul's throughput\n",
               partly->median_ms < unfused->median_ms ? "yes" : "no", partly->median_ms, unfused->median_ms,
               partly->median_ms < fused->median_ms ? "yes" : "no", fused->median_ms,
               100.0 * plain->median_ms / partly->median_ms);
        printf("\nThe heuristic's candidates, in its order, the median of %d runs of the whole variant each (the kept "
               "one in bold):\n", TUNE_RUNS);
        for (i = 0; i < VARIANTS; ++i)
            print_tuning("", &variants[i]);
    }
    printf("%sChecks (each variant run once more on poisoned outputs; 1 = the tolerance):\n", all ? "\n" : "");
    for (i = first; i <= last; ++i)
        bad += poison_run_check(&variants[i]);
    if (!all)
        printf("result median_ms=%.4f tflops=%.2f library=%s algo=%s\n", variants[first].median_ms,
               tflops(variants[first].median_ms), library, variants[first].algo);
    for (i = first; i <= last; ++i)
        CHECK(cubind_cublasLt_matmul_desc_destroy(variants[i].desc));
    return bad;
}

/* One table cell: the median (none: not tuned); then, unless the cell is the plain one, its throughput
 * against the plain matmul's. */
static void print_cell(const struct variant *v, const struct variant *plain)
{
    if (v->median_ms < 0.0)
        printf(" none |");
    else
        printf(" %.3f |", v->median_ms);
    if (v == plain)
        return;
    if (v->median_ms < 0.0 || plain->median_ms < 0.0)
        printf(" - |");
    else
        printf(" %.1f%% |", 100.0 * plain->median_ms / v->median_ms);
}

/* "layouts": the backward's plain, fused and partly fused variants on each operand layout; a Markdown table. */
static void by_layout(const char *name, const char *library, int runs, int warmup, cudaEvent_t start,
                      cudaEvent_t stop)
{
    static struct variant cells[LAYOUTS * CELLS]; /* layout l's variant c: cells[l * CELLS + c] */
    char prefix[128];
    int round, l, c;

    make_mask();
    for (l = 0; l < LAYOUTS; ++l) {
        cells[l * CELLS + CELL_PLAIN] = backward_plain;
        cells[l * CELLS + CELL_FUSED] = variants[FUSED_BACKWARD];
        cells[l * CELLS + CELL_PARTLY_FUSED] = variants[PARTLY_FUSED_BACKWARD];
        for (c = 0; c < CELLS; ++c)
            plan(&cells[l * CELLS + c], &layouts[l]); /* none found: "none" in the table */
    }
    for (round = 0; round < 3 && cells[CELL_PLAIN].found > 0; ++round) /* the GPU up to its clocks */
        CHECK(matmul(&cells[CELL_PLAIN], 0));
    for (c = 0; c < LAYOUTS * CELLS; ++c)
        tune(&cells[c], start, stop);
    time_rounds(cells, LAYOUTS * CELLS, runs, warmup, start, stop);

    printf("%s; cuBLASLt %zu (%s); the backward D = op(A) op(G) on each of the four operand layouts: fp16 inputs "
           "and outputs, fp32 compute, M = %ld, N = %ld, K = %ld, column-major; A op T stored K x M (ld K), op N "
           "M x K (ld M); G op N stored K x N (ld K), op T N x K (ld N); D M x N (ld M). The first row is the layout "
           "of `epilog all`. Per layout: plain (`DEFAULT`), fused (`DRELU_BGRAD`: the mask and the bias gradient in "
           "the matmul) and partly fused (`DRELU` in the matmul, then the bias-gradient kernel); each on the fastest "
           "of the first %d algorithms of cublasLtMatmulAlgoGetHeuristic (tuned as `epilog all` does); median of "
           "%d timed rounds after %d of warm-up, each round running all %d once (interleaved), each between two "
           "CUDA events. The mask: one run of the fused forward. **Not checked**: every layout reads the same "
           "buffers a and g (their values do not matter for timing), so only the first computes `epilog all`'s "
           "product; `epilog all` checks that one.\n\n",
           name, cubind_cublasLt_get_version(), library, M, N, K, CANDIDATES, runs, warmup, LAYOUTS * CELLS);
    printf("| A | G | plain ms | `DRELU_BGRAD` ms | of plain | `DRELU` + kernel ms | of plain |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (l = 0; l < LAYOUTS; ++l) {
        printf("| %s | %s |", layouts[l].a_text, layouts[l].g_text);
        for (c = 0; c < CELLS; ++c)
            print_cell(&cells[l * CELLS + c], &cells[l * CELLS + CELL_PLAIN]);
        printf("\n");
    }
    printf("\nThe algorithm kept (ids of cublasLt.h):\n");
    for (c = 0; c < LAYOUTS * CELLS; ++c)
        printf("- A %s, G %s, %s: %s\n", cells[c].layout->a_text, cells[c].layout->g_text, cells[c].what,
               cells[c].algo);
    printf("\nThe heuristic's candidates, in its order, the median of %d runs of the whole variant each (the kept "
           "one in bold):\n", TUNE_RUNS);
    for (c = 0; c < LAYOUTS * CELLS; ++c) {
        snprintf(prefix, sizeof prefix, "A %s, G %s: ", cells[c].layout->a_text, cells[c].layout->g_text);
        print_tuning(prefix, &cells[c]);
    }
    for (c = 0; c < LAYOUTS * CELLS; ++c)
        CHECK(cubind_cublasLt_matmul_desc_destroy(cells[c].desc));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    const int all = strcmp(mode, "all") == 0, layouts_mode = strcmp(mode, "layouts") == 0;
    const int alone = strcmp(mode, "fused") == 0 ? FUSED_FORWARD : strcmp(mode, "backward") == 0 ? FUSED_BACKWARD : -1;
    const int runs = argc > 2 ? atoi(argv[2]) : layouts_mode ? 10 : 25, warmup = argc > 3 ? atoi(argv[3]) : 5;
    const int used_layouts = layouts_mode ? LAYOUTS : 1; /* the others use the first only */
    CUdevice device;
    CUcontext context;
    cudaEvent_t start, stop;
    char name[256], library[1024];
    int l, bad = 0;

    if ((!all && !layouts_mode && alone < 0) || runs < 1 || runs > MAX_RUNS || warmup < 0) {
        fprintf(stderr, "usage: epilog [all | fused | backward | layouts] [runs 1..%d] [warm-up rounds >= 0]\n",
                MAX_RUNS);
        return EXIT_ERROR;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* the report and the diagnostics on stderr stay in order */
    require_gpu("epilog");
    /* The primary context, current on this thread: the runtime, cuBLASLt and the driver calls share it. */
    CHECK(cubind_driver_device_get(&device, 0));
    CHECK(cubind_driver_device_primary_ctx_retain(&context, device));
    CHECK(cubind_driver_ctx_set_current(context));
    CHECK(cubind_driver_device_get_name(name, sizeof name, device));
    load_kernels(device);

    CHECK(cubind_runtime_malloc(&a, (size_t)(K * M) * 2));
    CHECK(cubind_runtime_malloc(&b, (size_t)(K * N) * 2));
    CHECK(cubind_runtime_malloc(&g, (size_t)(K * N) * 2));
    CHECK(cubind_runtime_malloc(&d, (size_t)(M * N) * 2));
    CHECK(cubind_runtime_malloc(&bias, (size_t)M * 2));
    CHECK(cubind_runtime_malloc(&db, (size_t)M * 2));
    CHECK(cubind_runtime_malloc(&mask_fused, MASK_BYTES));
    CHECK(cubind_runtime_malloc(&mask_unfused, MASK_BYTES));
    CHECK(cubind_runtime_malloc(&workspace, WORKSPACE_BYTES));
    fill(a, (unsigned long long)(K * M), SEED_A, 64);
    fill(b, (unsigned long long)(K * N), SEED_B, 64);
    fill(g, (unsigned long long)(K * N), SEED_G, 64);
    fill(bias, (unsigned long long)M, SEED_BIAS, 512);
    CHECK(cubind_runtime_device_synchronize());

    CHECK(cubind_cublasLt_create(&lt));
    for (l = 0; l < used_layouts; ++l)
        layout_create(&layouts[l]);
    CHECK(cubind_cublasLt_matrix_layout_create(&d_layout, CUDA_R_16F, M, N, M));
    loaded_cublaslt(library, sizeof library);
    CHECK(cubind_runtime_event_create(&start));
    CHECK(cubind_runtime_event_create(&stop));

    if (layouts_mode)
        by_layout(name, library, runs, warmup, start, stop);
    else
        bad = by_variant(all, alone, name, library, runs, warmup, start, stop);

    CHECK(cubind_runtime_event_destroy(start));
    CHECK(cubind_runtime_event_destroy(stop));
    for (l = 0; l < used_layouts; ++l)
        layout_destroy(&layouts[l]);
    CHECK(cubind_cublasLt_matrix_layout_destroy(d_layout));
    CHECK(cubind_cublasLt_destroy(lt));
    CHECK(cubind_runtime_free(a));
    CHECK(cubind_runtime_free(b));
    CHECK(cubind_runtime_free(g));
    CHECK(cubind_runtime_free(d));
    CHECK(cubind_runtime_free(bias));
    CHECK(cubind_runtime_free(db));
    CHECK(cubind_runtime_free(mask_fused));
    CHECK(cubind_runtime_free(mask_unfused));
    CHECK(cubind_runtime_free(workspace));
    CHECK(cubind_driver_device_primary_ctx_release(device));
    if (bad) {
        printf("epilog: FAIL (%d wrong values)\n", bad);
        return EXIT_WRONG;
    }
    return EXIT_PASS;
}
