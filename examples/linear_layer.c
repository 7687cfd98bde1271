/*
 * examples/linear_layer.c - a linear layer with ReLU, forward and backward, each one cuBLASLt
 * matmul with a fused epilogue (seed 002), in fp16 and in fp32 (both with fp32 compute).
 *
 * Column-major throughout; W1 is M x K, X is K x N (N samples), b1 has M elements.
 *   forward   Y = relu(W1 X + b1)            CUBLASLT_EPILOGUE_RELU_AUX_BIAS
 *             also writes the ReLU bit mask (bit i + j*ld set where W1 X + b1 > 0) to the aux buffer
 *   backward  the next layer (W2, P x M) sends its output gradient G (P x N); then
 *             dZ = (W2^T G) .* mask           CUBLASLT_EPILOGUE_DRELU_BGRAD, with the forward's mask
 *             db = sum over the N columns of dZ (M elements, written to the bias pointer)
 *             dX = W1^T dZ                     plain matmul: the gradient of the layer's input
 * Each result is compared with a CPU reference in double: |gpu - ref| <= rtol * (1 + S), where S is
 * the sum of the absolute values of the terms that make up ref; rtol = 2e-3 in fp16 (outputs
 * round to 11 bits), 1e-5 in fp32. The mask must match exactly: the inputs are small multiples
 * of 1/8 and the biases odd multiples of 1/128, so W1 X + b1 is exact in fp32 and never 0.
 *
 * Build: cc -std=c11 linear_layer.c -Ibuild/include -Lbuild/lib -lcubind -lm
 * Exit: 0 PASS, 1 CUDA error, 2 wrong result, 77 no GPU/driver (see check.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/cublasLt.h"
#include "cubind/runtime.h"

#include "check.h"

/* M is a multiple of 128: the mask's leading dimension (in bits) must be. */
enum { M = 256, N = 64, K = 128, P = 128 };
#define WORKSPACE_BYTES ((size_t)32 << 20)

/* fp16 on the host: C has no __half, so the buffers hold the IEEE binary16 bits. */
static uint16_t to_half(float f)
{
    uint32_t x, mant, rem, h, sign;
    int exp;
    memcpy(&x, &f, sizeof x);
    sign = (x >> 16) & 0x8000u;
    exp = (int)((x >> 23) & 0xffu) - 127 + 15;
    mant = x & 0x7fffffu;
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u); /* NaN */
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00u); /* overflow: infinity */
    if (exp <= 0) {                        /* subnormal or zero */
        uint32_t shift = (uint32_t)(14 - exp);
        if (exp < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        h = mant >> shift;
        rem = mant & ((1u << shift) - 1u);
        if (rem > (1u << (shift - 1)) || (rem == (1u << (shift - 1)) && (h & 1u)))
            ++h;
        return (uint16_t)(sign | h);
    }
    h = ((uint32_t)exp << 10) | (mant >> 13);
    rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) /* round to nearest even; may carry into the exponent */
        ++h;
    return (uint16_t)(sign | h);
}

static float from_half(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    float mant = (float)(h & 0x3ff), v;
    if (exp == 0)
        v = ldexpf(mant, -24);
    else if (exp == 31)
        v = (h & 0x3ff) ? NAN : INFINITY;
    else
        v = ldexpf(mant + 1024.0f, exp - 25);
    return (h & 0x8000) ? -v : v;
}

static size_t element_size(cudaDataType type) { return type == CUDA_R_16F ? 2 : 4; }

/* Device buffer of `count` elements of `type`, filled from `host` when it is not NULL. */
static void *upload(const float *host, size_t count, cudaDataType type)
{
    void *dev, *tmp = malloc(count * 4);
    size_t i;
    if (!tmp)
        exit(EXIT_ERROR);
    CHECK(cubind_runtime_malloc(&dev, count * element_size(type)));
    if (host) {
        for (i = 0; i < count; ++i)
            if (type == CUDA_R_16F)
                ((uint16_t *)tmp)[i] = to_half(host[i]);
            else
                ((float *)tmp)[i] = host[i];
        CHECK(cubind_runtime_memcpy(dev, tmp, count * element_size(type), cudaMemcpyHostToDevice));
    }
    free(tmp);
    return dev;
}

static void download(float *host, const void *dev, size_t count, cudaDataType type)
{
    size_t i;
    CHECK(cubind_runtime_memcpy(host, dev, count * element_size(type), cudaMemcpyDeviceToHost));
    if (type == CUDA_R_16F) /* widen in place, from the end: the halves sit in the first half of `host` */
        for (i = count; i-- > 0;)
            host[i] = from_half(((uint16_t *)host)[i]);
}

/*
 * D (m x n, ld m) = op(A) B with `epilogue`; op(A) is m x k, B is k x n. `bias` is the bias (or,
 * for DRELU_BGRAD, the bias gradient), m elements of `type`; `mask` the ReLU bit mask, ld m bits.
 */
static void matmul(cublasLtHandle_t lt, cudaDataType type, cublasOperation_t opa, int m, int n, int k,
                   const void *A, const void *B, void *D, cublasLtEpilogue_t epilogue, void *bias, void *mask,
                   void *workspace)
{
    const float alpha = 1.0f, beta = 0.0f; /* scale type fp32, as the compute type */
    const int32_t transa = opa;
    const uint32_t epi = epilogue;
    const int64_t mask_ld = m;
    const uint64_t workspace_bytes = WORKSPACE_BYTES;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t a_layout, b_layout, d_layout;
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulHeuristicResult_t heuristic;
    int found = 0;

    CHECK(cubind_cublasLt_matmul_desc_create(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CHECK(cubind_cublasLt_matmul_desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
    CHECK(cubind_cublasLt_matmul_desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    if (bias)
        CHECK(cubind_cublasLt_matmul_desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                                         sizeof bias));
    if (mask) {
        CHECK(cubind_cublasLt_matmul_desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &mask,
                                                         sizeof mask));
        CHECK(cubind_cublasLt_matmul_desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &mask_ld,
                                                         sizeof mask_ld));
    }
    /* Layouts describe the matrices as stored: A is k x m when it is used transposed. */
    if (opa == CUBLAS_OP_N)
        CHECK(cubind_cublasLt_matrix_layout_create(&a_layout, type, (uint64_t)m, (uint64_t)k, m));
    else
        CHECK(cubind_cublasLt_matrix_layout_create(&a_layout, type, (uint64_t)k, (uint64_t)m, k));
    CHECK(cubind_cublasLt_matrix_layout_create(&b_layout, type, (uint64_t)k, (uint64_t)n, k));
    CHECK(cubind_cublasLt_matrix_layout_create(&d_layout, type, (uint64_t)m, (uint64_t)n, m));

    CHECK(cubind_cublasLt_matmul_preference_create(&pref));
    CHECK(cubind_cublasLt_matmul_preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                           &workspace_bytes, sizeof workspace_bytes));
    CHECK(cubind_cublasLt_matmul_algo_get_heuristic(lt, desc, a_layout, b_layout, d_layout, d_layout, pref, 1,
                                                     &heuristic, &found));
    if (found == 0) {
        fprintf(stderr, "cublasLtMatmulAlgoGetHeuristic found no algorithm\n");
        exit(EXIT_ERROR);
    }
    /* beta = 0: C is not read; it is given as D, with D's layout. */
    CHECK(cubind_cublasLt_matmul(lt, desc, &alpha, A, a_layout, B, b_layout, &beta, D, d_layout, D, d_layout,
                                 &heuristic.algo, workspace, WORKSPACE_BYTES, NULL));
    CHECK(cubind_cublasLt_matmul_preference_destroy(pref));
    CHECK(cubind_cublasLt_matrix_layout_destroy(a_layout));
    CHECK(cubind_cublasLt_matrix_layout_destroy(b_layout));
    CHECK(cubind_cublasLt_matrix_layout_destroy(d_layout));
    CHECK(cubind_cublasLt_matmul_desc_destroy(desc));
}

/* Counts the elements outside |gpu - ref| <= rtol * (1 + mag) and prints the worst. */
static int compare(const char *what, const float *gpu, const double *ref, const double *mag, int count,
                   double rtol)
{
    int i, bad = 0;
    double worst = 0.0;
    for (i = 0; i < count; ++i) {
        double ratio = fabs(gpu[i] - ref[i]) / (rtol * (1.0 + mag[i]));
        if (!(ratio <= 1.0))
            ++bad;
        if (!(ratio <= worst))
            worst = ratio;
    }
    printf("    %-4s %5d elements, %d outside the tolerance (worst error / tolerance = %.3g)\n", what, count, bad,
           worst);
    return bad;
}

static double w1[M * K], x[K * N], b1[M], w2[P * M], g[P * N];

/* The layer forward and backward in `type`; returns the number of wrong values (mask bits included). */
static int run(cublasLtHandle_t lt, cudaDataType type, void *workspace)
{
    static float hw1[M * K], hx[K * N], hb1[M], hw2[P * M], hg[P * N], y[M * N], dz[M * N], db[M], dx[K * N];
    static double ref_y[M * N], mag_y[M * N], ref_dz[M * N], mag_dz[M * N], ref_db[M], mag_db[M], ref_dx[K * N],
        mag_dx[K * N];
    static unsigned char mask[M * N / 8];
    const double rtol = type == CUDA_R_16F ? 2e-3 : 1e-5;
    void *dw1, *dx_in, *db1, *dw2, *dg, *dy, *dmask, *ddz, *ddb, *ddx;
    int i, j, l, bad = 0, bad_mask = 0;

    for (i = 0; i < M * K; ++i) hw1[i] = (float)w1[i];
    for (i = 0; i < K * N; ++i) hx[i] = (float)x[i];
    for (i = 0; i < M; ++i) hb1[i] = (float)b1[i];
    for (i = 0; i < P * M; ++i) hw2[i] = (float)w2[i];
    for (i = 0; i < P * N; ++i) hg[i] = (float)g[i];
    dw1 = upload(hw1, M * K, type);
    dx_in = upload(hx, K * N, type);
    db1 = upload(hb1, M, type); /* the bias has D's element type */
    dw2 = upload(hw2, P * M, type);
    dg = upload(hg, P * N, type);
    dy = upload(NULL, M * N, type);
    ddz = upload(NULL, M * N, type);
    ddb = upload(NULL, M, type);
    ddx = upload(NULL, K * N, type);
    CHECK(cubind_runtime_malloc(&dmask, sizeof mask)); /* M * N bits; cudaMalloc aligns to 256 bytes */

    matmul(lt, type, CUBLAS_OP_N, M, N, K, dw1, dx_in, dy, CUBLASLT_EPILOGUE_RELU_AUX_BIAS, db1, dmask, workspace);
    matmul(lt, type, CUBLAS_OP_T, M, N, P, dw2, dg, ddz, CUBLASLT_EPILOGUE_DRELU_BGRAD, ddb, dmask, workspace);
    matmul(lt, type, CUBLAS_OP_T, K, N, M, dw1, ddz, ddx, CUBLASLT_EPILOGUE_DEFAULT, NULL, NULL, workspace);
    CHECK(cubind_runtime_device_synchronize());
    download(y, dy, M * N, type);
    download(dz, ddz, M * N, type);
    download(db, ddb, M, type);
    download(dx, ddx, K * N, type);
    CHECK(cubind_runtime_memcpy(mask, dmask, sizeof mask, cudaMemcpyDeviceToHost));

    /* The CPU reference, in double from the same (exactly representable) inputs. */
    for (i = 0; i < M; ++i) {
        ref_db[i] = mag_db[i] = 0.0;
        for (j = 0; j < N; ++j) {
            double z = b1[i], zmag = fabs(b1[i]), h = 0.0, hmag = 0.0;
            int on, bit = i + j * M;
            for (l = 0; l < K; ++l) {
                z += w1[i + l * M] * x[l + j * K];
                zmag += fabs(w1[i + l * M] * x[l + j * K]);
            }
            for (l = 0; l < P; ++l) { /* (W2^T G)[i, j] */
                h += w2[l + i * P] * g[l + j * P];
                hmag += fabs(w2[l + i * P] * g[l + j * P]);
            }
            on = z > 0.0;
            ref_y[i + j * M] = on ? z : 0.0;
            mag_y[i + j * M] = on ? zmag : 0.0;
            ref_dz[i + j * M] = on ? h : 0.0;
            mag_dz[i + j * M] = on ? hmag : 0.0;
            ref_db[i] += ref_dz[i + j * M];
            mag_db[i] += mag_dz[i + j * M];
            if (((mask[bit / 8] >> (bit % 8)) & 1) != on)
                ++bad_mask;
        }
    }
    for (i = 0; i < K; ++i)
        for (j = 0; j < N; ++j) { /* (W1^T dZ)[i, j] */
            double s = 0.0, smag = 0.0;
            for (l = 0; l < M; ++l) {
                s += w1[l + i * M] * ref_dz[l + j * M];
                smag += fabs(w1[l + i * M]) * mag_dz[l + j * M];
            }
            ref_dx[i + j * K] = s;
            mag_dx[i + j * K] = smag;
        }

    printf("  %s (fp32 compute), rtol %g:\n", type == CUDA_R_16F ? "fp16" : "fp32", rtol);
    bad += compare("Y", y, ref_y, mag_y, M * N, rtol);
    printf("    mask %5d bits, %d wrong\n", M * N, bad_mask);
    bad += bad_mask;
    bad += compare("dZ", dz, ref_dz, mag_dz, M * N, rtol);
    bad += compare("db", db, ref_db, mag_db, M, rtol);
    bad += compare("dX", dx, ref_dx, mag_dx, K * N, rtol);

    CHECK(cubind_runtime_free(dw1));
    CHECK(cubind_runtime_free(dx_in));
    CHECK(cubind_runtime_free(db1));
    CHECK(cubind_runtime_free(dw2));
    CHECK(cubind_runtime_free(dg));
    CHECK(cubind_runtime_free(dy));
    CHECK(cubind_runtime_free(ddz));
    CHECK(cubind_runtime_free(ddb));
    CHECK(cubind_runtime_free(ddx));
    CHECK(cubind_runtime_free(dmask));
    return bad;
}

/* Small multiples of 1/8 in [-3/8, 3/8]: exact in fp16, and products and sums exact in fp32. */
static double eighths(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (double)((int)((*state >> 16) % 7u) - 3) / 8.0;
}

int main(void)
{
    cublasLtHandle_t lt;
    void *workspace;
    unsigned state = 1;
    int i, bad;

    require_gpu("linear_layer");
    for (i = 0; i < M * K; ++i) w1[i] = eighths(&state);
    for (i = 0; i < K * N; ++i) x[i] = eighths(&state);
    for (i = 0; i < M; ++i) b1[i] = (double)(2 * (i % 9) - 9) / 128.0; /* odd / 128: W1 X + b1 is never 0 */
    for (i = 0; i < P * M; ++i) w2[i] = eighths(&state);
    for (i = 0; i < P * N; ++i) g[i] = eighths(&state);

    CHECK(cubind_cublasLt_create(&lt));
    CHECK(cubind_runtime_malloc(&workspace, WORKSPACE_BYTES));
    printf("linear_layer: M=%d N=%d K=%d (next layer P=%d)\n", M, N, K, P);
    bad = run(lt, CUDA_R_16F, workspace);
    bad += run(lt, CUDA_R_32F, workspace);
    CHECK(cubind_runtime_free(workspace));
    CHECK(cubind_cublasLt_destroy(lt));
    printf("linear_layer: %s\n", bad ? "FAIL" : "PASS");
    return bad ? EXIT_WRONG : EXIT_PASS;
}
