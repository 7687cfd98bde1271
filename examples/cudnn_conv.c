/*
 * examples/cudnn_conv.c - one cuDNN convolution forward with the legacy API: NCHW float input
 * N x C x H x W, K filters C x R x S, padding 1, stride 1, cross-correlation (what deep-learning
 * frameworks call convolution). FMA math (no TF32) with the implicit-GEMM algorithm, which every
 * GPU supports. Checked against a direct convolution on the CPU: |y - ref| <= 1e-5 * (1 + S), S the
 * sum of |w x| over the C*R*S terms of ref.
 *
 * Build: cc -std=c11 cudnn_conv.c -Ibuild/include -Lbuild/lib -lcubind -lm
 * Exit: 0 PASS, 1 CUDA or cuDNN error, 2 wrong result, 77 no GPU/driver (see check.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cubind/cudnn.h"
#include "cubind/runtime.h"

#include "check.h"

enum { N = 2, C = 3, H = 16, W = 16, K = 4, R = 3, S = 3, PAD = 1, STRIDE = 1 };
enum { P = (H + 2 * PAD - R) / STRIDE + 1, Q = (W + 2 * PAD - S) / STRIDE + 1 }; /* output height, width */

int main(void)
{
    static float x[N * C * H * W], w[K * C * R * S], y[N * K * P * Q];
    const float alpha = 1.0f, beta = 0.0f;
    const cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    cudnnHandle_t handle;
    cudnnTensorDescriptor_t x_desc, y_desc;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t conv;
    void *dx, *dw, *dy, *workspace = NULL;
    size_t workspace_size = 0;
    int n, k, p, q, c, r, s, on, oc, oh, ow, bad = 0;
    double worst = 0.0;

    require_gpu("cudnn_conv");
    for (n = 0; n < N * C * H * W; ++n)
        x[n] = (float)((n * 37) % 17 - 8) / 8.0f;
    for (n = 0; n < K * C * R * S; ++n)
        w[n] = (float)((n * 11) % 13 - 6) / 16.0f;

    CHECK(cubind_cudnn_create(&handle));
    CHECK(cubind_cudnn_create_tensor_descriptor(&x_desc));
    CHECK(cubind_cudnn_create_tensor_descriptor(&y_desc));
    CHECK(cubind_cudnn_create_filter_descriptor(&w_desc));
    CHECK(cubind_cudnn_create_convolution_descriptor(&conv));
    CHECK(cubind_cudnn_set_tensor4d_descriptor(x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
    CHECK(cubind_cudnn_set_filter4d_descriptor(w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S));
    CHECK(cubind_cudnn_set_convolution2d_descriptor(conv, PAD, PAD, STRIDE, STRIDE, 1, 1, CUDNN_CROSS_CORRELATION,
                                                    CUDNN_DATA_FLOAT));
    CHECK(cubind_cudnn_set_convolution_math_type(conv, CUDNN_FMA_MATH));
    /* Let cuDNN say the output shape, and check it is the one the CPU reference computes. */
    CHECK(cubind_cudnn_get_convolution2d_forward_output_dim(conv, x_desc, w_desc, &on, &oc, &oh, &ow));
    if (on != N || oc != K || oh != P || ow != Q) {
        fprintf(stderr, "cuDNN output %dx%dx%dx%d, expected %dx%dx%dx%d\n", on, oc, oh, ow, N, K, P, Q);
        return EXIT_WRONG;
    }
    CHECK(cubind_cudnn_set_tensor4d_descriptor(y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, P, Q));

    CHECK(cubind_runtime_malloc(&dx, sizeof x));
    CHECK(cubind_runtime_malloc(&dw, sizeof w));
    CHECK(cubind_runtime_malloc(&dy, sizeof y));
    CHECK(cubind_runtime_memcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
    CHECK(cubind_runtime_memcpy(dw, w, sizeof w, cudaMemcpyHostToDevice));
    CHECK(cubind_cudnn_get_convolution_forward_workspace_size(handle, x_desc, w_desc, conv, y_desc, algo,
                                                              &workspace_size));
    if (workspace_size > 0)
        CHECK(cubind_runtime_malloc(&workspace, workspace_size));
    CHECK(cubind_cudnn_convolution_forward(handle, &alpha, x_desc, dx, w_desc, dw, conv, algo, workspace,
                                           workspace_size, &beta, y_desc, dy));
    CHECK(cubind_runtime_memcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost));

    for (n = 0; n < N; ++n)
        for (k = 0; k < K; ++k)
            for (p = 0; p < P; ++p)
                for (q = 0; q < Q; ++q) {
                    double ref = 0.0, mag = 0.0, err;
                    for (c = 0; c < C; ++c)
                        for (r = 0; r < R; ++r)
                            for (s = 0; s < S; ++s) {
                                int h = p * STRIDE - PAD + r, v = q * STRIDE - PAD + s; /* zero padding */
                                double t;
                                if (h < 0 || h >= H || v < 0 || v >= W)
                                    continue;
                                t = (double)w[((k * C + c) * R + r) * S + s] * x[((n * C + c) * H + h) * W + v];
                                ref += t;
                                mag += fabs(t);
                            }
                    err = fabs(y[((n * K + k) * P + p) * Q + q] - ref) / (1e-5 * (1.0 + mag));
                    if (!(err <= 1.0))
                        ++bad;
                    if (!(err <= worst))
                        worst = err;
                }

    if (workspace)
        CHECK(cubind_runtime_free(workspace));
    CHECK(cubind_runtime_free(dx));
    CHECK(cubind_runtime_free(dw));
    CHECK(cubind_runtime_free(dy));
    CHECK(cubind_cudnn_destroy_convolution_descriptor(conv));
    CHECK(cubind_cudnn_destroy_filter_descriptor(w_desc));
    CHECK(cubind_cudnn_destroy_tensor_descriptor(y_desc));
    CHECK(cubind_cudnn_destroy_tensor_descriptor(x_desc));
    CHECK(cubind_cudnn_destroy(handle));
    printf("cudnn_conv: %dx%dx%dx%d * %dx%dx%dx%d, %d of %d outputs outside the tolerance (worst error / "
           "tolerance = %.3g): %s\n",
           N, C, H, W, K, C, R, S, bad, N * K * P * Q, worst, bad ? "FAIL" : "PASS");
    return bad ? EXIT_WRONG : EXIT_PASS;
}
