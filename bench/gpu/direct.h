/*
 * bench/gpu/direct.h - the direct build of a GPU benchmark (-DCUBIND_BENCH_DIRECT): each cubind_* call
 * the benchmarks make becomes the NVIDIA function it wraps, declared by NVIDIA's headers and linked
 * directly (-lcublasLt -lcudart -lnvrtc -lcuda); CHECK and require_gpu as examples/check.h has them,
 * with the status only (there is no cubind error record here).
 */
#ifndef CUBIND_BENCH_GPU_DIRECT_H
#define CUBIND_BENCH_GPU_DIRECT_H

#include <stdio.h>
#include <stdlib.h>

#include <cublasLt.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

enum { EXIT_PASS = 0, EXIT_ERROR = 1, EXIT_WRONG = 2, EXIT_NO_GPU = 77 }; /* as examples/check.h */

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        int status_ = (int)(call);                                                                           \
        if (status_ != 0) {                                                                                  \
            fprintf(stderr, "FAIL (CUDA error): %s:%d: %s returned %d\n", __FILE__, __LINE__, #call, status_); \
            exit(EXIT_ERROR);                                                                                \
        }                                                                                                    \
    } while (0)

#define cubind_cublasLt_create cublasLtCreate
#define cubind_cublasLt_destroy cublasLtDestroy
#define cubind_cublasLt_get_version cublasLtGetVersion
#define cubind_cublasLt_matmul cublasLtMatmul
#define cubind_cublasLt_matmul_algo_config_get_attribute cublasLtMatmulAlgoConfigGetAttribute
#define cubind_cublasLt_matmul_algo_get_heuristic cublasLtMatmulAlgoGetHeuristic
#define cubind_cublasLt_matmul_desc_create cublasLtMatmulDescCreate
#define cubind_cublasLt_matmul_desc_destroy cublasLtMatmulDescDestroy
#define cubind_cublasLt_matmul_desc_set_attribute cublasLtMatmulDescSetAttribute
#define cubind_cublasLt_matmul_preference_create cublasLtMatmulPreferenceCreate
#define cubind_cublasLt_matmul_preference_destroy cublasLtMatmulPreferenceDestroy
#define cubind_cublasLt_matmul_preference_set_attribute cublasLtMatmulPreferenceSetAttribute
#define cubind_cublasLt_matrix_layout_create cublasLtMatrixLayoutCreate
#define cubind_cublasLt_matrix_layout_destroy cublasLtMatrixLayoutDestroy

#define cubind_runtime_device_synchronize cudaDeviceSynchronize
#define cubind_runtime_event_create cudaEventCreate
#define cubind_runtime_event_destroy cudaEventDestroy
#define cubind_runtime_event_elapsed_time cudaEventElapsedTime
#define cubind_runtime_event_record cudaEventRecord
#define cubind_runtime_event_synchronize cudaEventSynchronize
#define cubind_runtime_free cudaFree
#define cubind_runtime_malloc cudaMalloc
#define cubind_runtime_memcpy cudaMemcpy
#define cubind_runtime_memcpy2_d cudaMemcpy2D
#define cubind_runtime_memset cudaMemset

#define cubind_driver_ctx_set_current cuCtxSetCurrent
#define cubind_driver_device_get cuDeviceGet
#define cubind_driver_device_get_attribute cuDeviceGetAttribute
#define cubind_driver_device_get_count cuDeviceGetCount
#define cubind_driver_device_get_name cuDeviceGetName
#define cubind_driver_device_primary_ctx_release cuDevicePrimaryCtxRelease
#define cubind_driver_device_primary_ctx_retain cuDevicePrimaryCtxRetain
#define cubind_driver_init cuInit
#define cubind_driver_launch_kernel cuLaunchKernel
#define cubind_driver_module_get_function cuModuleGetFunction
#define cubind_driver_module_load_data cuModuleLoadData
#define cubind_driver_module_unload cuModuleUnload

#define cubind_nvrtc_compile_program nvrtcCompileProgram
#define cubind_nvrtc_create_program nvrtcCreateProgram
#define cubind_nvrtc_destroy_program nvrtcDestroyProgram
#define cubind_nvrtc_get_cubin nvrtcGetCUBIN
#define cubind_nvrtc_get_cubin_size nvrtcGetCUBINSize
#define cubind_nvrtc_get_program_log nvrtcGetProgramLog
#define cubind_nvrtc_get_program_log_size nvrtcGetProgramLogSize

static inline void require_gpu(const char *program)
{
    int count = 0;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        printf("%s: SKIP (no GPU/driver)\n", program);
        exit(EXIT_NO_GPU);
    }
}

#endif
