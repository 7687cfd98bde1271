"""The nvmath.bindings naming rule (generator/names.py + name_exceptions in libraries.toml).

Expected names for cublas, cublasLt, cufft, curand, cusolver, cusolverDn, cusolverSp
and cusparse are nvmath-python's own (nvmath/bindings/*.pyx, CUDA 13.2 generation);
cusolverRf and cusolverMg, which nvmath does not bind, follow the same rule, as do the
CUDA stack's modules (runtime, driver, nvrtc, nvjitlink: cuda-python's names; nccl, cudnn).
"""

import pytest

from generator import config
from generator.names import cubind_name, snake_name, strip_abi_suffix

CONFIG = config.load()
MODULES = {m.name: m for m in CONFIG.modules}

# (module, C API name, cubind name)
CASES = [
    # the README's table
    ("cublas", "cublasSgemm", "cubind_cublas_sgemm"),
    ("cublas", "cublasSgemmStridedBatched_64", "cubind_cublas_sgemm_strided_batched_64"),
    ("cublas", "cublasGemmEx", "cubind_cublas_gemm_ex"),
    ("cublas", "cublasCgemm3mEx", "cubind_cublas_cgemm3m_ex"),
    ("cublasLt", "cublasLtMatmulDescCreate", "cubind_cublasLt_matmul_desc_create"),
    # cuBLASXt: nvmath has no module for it; its own prefix, as cuBLASLt's
    ("cublasXt", "cublasXtSgemm", "cubind_cublasXt_sgemm"),
    ("cublasXt", "cublasXtSetPinningMemMode", "cubind_cublasXt_set_pinning_mem_mode"),
    ("cublasXt", "cublasXtCherkx", "cubind_cublasXt_cherkx"),
    ("cufft", "cufftPlanMany", "cubind_cufft_plan_many"),
    ("cufft", "cufftMakePlanMany64", "cubind_cufft_make_plan_many64"),
    ("cufft", "cufftXtSetGPUs", "cubind_cufft_xt_set_gpus"),
    ("curand", "curandGenerateNormalDouble", "cubind_curand_generate_normal_double"),
    ("cusolverDn", "cusolverDnSgetrf_bufferSize", "cubind_cusolverDn_sgetrf_buffer_size"),
    ("cusolverDn", "cusolverDnZZgesv", "cubind_cusolverDn_zz_gesv"),
    ("cusolverDn", "cusolverDnIRSXgesv", "cubind_cusolverDn_irs_xgesv"),
    ("cusparse", "cusparseSpMM", "cubind_cusparse_sp_mm"),
    ("cusparse", "cusparseCsr2cscEx2", "cubind_cusparse_csr2csc_ex2"),
    ("cusparse", "cusparseSDDMM", "cubind_cusparse_sddmm"),
    ("cusparse", "cusparseXcoosortByRow", "cubind_cusparse_xcoosort_by_row"),
    ("runtime", "cudaMemcpyAsync", "cubind_runtime_memcpy_async"),
    ("runtime", "cudaStreamCreateWithFlags", "cubind_runtime_stream_create_with_flags"),
    ("runtime", "cudaGetDeviceProperties", "cubind_runtime_get_device_properties"),
    ("runtime", "cudaProfilerStart", "cubind_runtime_profiler_start"),
    ("driver", "cuProfilerInitialize", "cubind_driver_profiler_initialize"),
    ("driver", "cuMemAlloc", "cubind_driver_mem_alloc"),
    ("driver", "cuMemAlloc_v2", "cubind_driver_mem_alloc"),
    ("driver", "cuModuleLoadData", "cubind_driver_module_load_data"),
    ("driver", "cuLaunchKernel", "cubind_driver_launch_kernel"),
    ("nvrtc", "nvrtcCompileProgram", "cubind_nvrtc_compile_program"),
    ("nvrtc", "nvrtcGetCUBINSize", "cubind_nvrtc_get_cubin_size"),
    ("nvjitlink", "nvJitLinkCreate", "cubind_nvjitlink_create"),
    ("nvjitlink", "nvJitLinkGetLinkedCubin", "cubind_nvjitlink_get_linked_cubin"),
    ("nccl", "ncclAllReduce", "cubind_nccl_all_reduce"),
    ("nccl", "ncclCommInitRank", "cubind_nccl_comm_init_rank"),
    ("cudnn", "cudnnCreate", "cubind_cudnn_create"),
    ("cudnn", "cudnnConvolutionForward", "cubind_cudnn_convolution_forward"),
    # cuBLAS: _v2 dropped, _64 kept, digits attached, the one nvmath exception
    ("cublas", "cublasSgemm_v2", "cubind_cublas_sgemm"),
    ("cublas", "cublasSgemm_v2_64", "cubind_cublas_sgemm_64"),
    ("cublas", "cublasNrm2Ex", "cubind_cublas_nrm2_ex"),
    ("cublas", "cublasNrm2Ex_64", "cubind_cublas_nrm2ex_64"),
    ("cublas", "cublasDotcEx_64", "cubind_cublas_dotc_ex_64"),
    ("cublas", "cublasIsamax", "cubind_cublas_isamax"),
    ("cublas", "cublasScnrm2", "cubind_cublas_scnrm2"),
    ("cublas", "cublasUint8gemmBias", "cubind_cublas_uint8gemm_bias"),
    ("cublas", "cublasGetSmCountTarget", "cubind_cublas_get_sm_count_target"),
    ("cublas", "cublasCherk3mEx", "cubind_cublas_cherk3m_ex"),
    ("cublas", "cublasHSHgemvStridedBatched_64", "cubind_cublas_hsh_gemv_strided_batched_64"),
    ("cublas", "cublasTSTgemvBatched", "cubind_cublas_tst_gemv_batched"),
    ("cublas", "cublasHgemm", "cubind_cublas_hgemm"),
    # cuBLASLt
    ("cublasLt", "cublasLtMatmulAlgoGetIds", "cubind_cublasLt_matmul_algo_get_ids"),
    ("cublasLt", "cublasLtMatrixTransformDescSetAttribute", "cubind_cublasLt_matrix_transform_desc_set_attribute"),
    ("cublasLt", "cublasLtGetCudartVersion", "cubind_cublasLt_get_cudart_version"),
    # cuFFT: conversion tokens stay whole
    ("cufft", "cufftExecC2C", "cubind_cufft_exec_c2c"),
    ("cufft", "cufftExecZ2D", "cubind_cufft_exec_z2d"),
    ("cufft", "cufftXtExecDescriptorR2C", "cubind_cufft_xt_exec_descriptor_r2c"),
    ("cufft", "cufftXtSetJITCallback", "cubind_cufft_xt_set_jit_callback"),
    ("cufft", "cufftPlan3d", "cubind_cufft_plan3d"),
    ("cufft", "cufftXtMakePlanMany", "cubind_cufft_xt_make_plan_many"),
    # cuRAND
    ("curand", "curandGetScrambleConstants64", "cubind_curand_get_scramble_constants64"),
    ("curand", "curandSetPseudoRandomGeneratorSeed", "cubind_curand_set_pseudo_random_generator_seed"),
    ("curand", "curandGenerateLogNormalDouble", "cubind_curand_generate_log_normal_double"),
    # cuSOLVER common, Dn, Sp, Rf, Mg
    ("cusolver", "cusolverGetProperty", "cubind_cusolver_get_property"),
    ("cusolverDn", "cusolverDnDXgesv", "cubind_cusolverDn_dx_gesv"),
    ("cusolverDn", "cusolverDnZKgels_bufferSize", "cubind_cusolverDn_zk_gels_buffer_size"),
    ("cusolverDn", "cusolverDnIRSParamsSetSolverMainPrecision", "cubind_cusolverDn_irs_params_set_solver_main_precision"),
    ("cusolverDn", "cusolverDnIRSInfosGetNiters", "cubind_cusolverDn_irs_infos_get_niters"),
    ("cusolverDn", "cusolverDnXsyevjSetTolerance", "cubind_cusolverDn_xsyevj_set_tolerance"),
    ("cusolverDn", "cusolverDnSgesvdjBatched", "cubind_cusolverDn_sgesvdj_batched"),
    ("cusolverDn", "cusolverDnXgetrf_bufferSize", "cubind_cusolverDn_xgetrf_buffer_size"),
    ("cusolverSp", "cusolverSpXcsrperm_bufferSizeHost", "cubind_cusolverSp_xcsrperm_buffer_size_host"),
    ("cusolverSp", "cusolverSpScsrlsvqr", "cubind_cusolverSp_scsrlsvqr"),
    ("cusolverSp", "cusolverSpDcsrcholBufferInfoHost", "cubind_cusolverSp_dcsrchol_buffer_info_host"),
    ("cusolverRf", "cusolverRfSetupHost", "cubind_cusolverRf_setup_host"),
    ("cusolverRf", "cusolverRfAccessBundledFactorsDevice", "cubind_cusolverRf_access_bundled_factors_device"),
    ("cusolverRf", "cusolverRfBatchSolve", "cubind_cusolverRf_batch_solve"),
    ("cusolverMg", "cusolverMgCreateDeviceGrid", "cubind_cusolverMg_create_device_grid"),
    ("cusolverMg", "cusolverMgSyevd_bufferSize", "cubind_cusolverMg_syevd_buffer_size"),
    ("cusolverMg", "cusolverMgDeviceSelect", "cubind_cusolverMg_device_select"),
    # cuSPARSE: acronyms, digits, and nvmath's exceptions
    ("cusparse", "cusparseSpGEMM_createDescr", "cubind_cusparse_sp_gemm_create_descr"),
    ("cusparse", "cusparseSpGEMMreuse_workEstimation", "cubind_cusparse_sp_gemm_reuse_work_estimation"),
    ("cusparse", "cusparseSpSV_bufferSize", "cubind_cusparse_sp_sv_buffer_size"),
    ("cusparse", "cusparseCreateCsric02Info", "cubind_cusparse_create_csric02_info"),
    ("cusparse", "cusparseXcsr2bsrNnz", "cubind_cusparse_xcsr2bsr_nnz"),
    ("cusparse", "cusparseXcsrgeam2Nnz", "cubind_cusparse_xcsrgeam2nnz"),
    ("cusparse", "cusparseSgtsv2StridedBatch_bufferSizeExt", "cubind_cusparse_sgtsv2strided_batch_buffer_size_ext"),
    ("cusparse", "cusparseConstDnMatGet", "cubind_cusparse_const_dn_mat_get"),
    ("cusparse", "cusparseHpruneCsr2csrByPercentage", "cubind_cusparse_hprune_csr2csr_by_percentage"),
    ("cusparse", "cusparseSpMMOp_createPlan", "cubind_cusparse_sp_mm_op_create_plan"),
    ("nvml", "nvmlSystemGetDriverVersion", "cubind_nvml_system_get_driver_version"),
    ("nvml", "nvmlDeviceGetUUID", "cubind_nvml_device_get_uuid"),
    ("nvml", "nvmlDeviceGetCudaComputeCapability", "cubind_nvml_device_get_cuda_compute_capability"),
    # cuda.bindings.nvvm.compile_program, .get_program_log_size; cuda.bindings.nvfatbin.add_ptx, .add_ltoir
    ("nvvm", "nvvmCompileProgram", "cubind_nvvm_compile_program"),
    ("nvvm", "nvvmGetProgramLogSize", "cubind_nvvm_get_program_log_size"),
    ("nvfatbin", "nvFatbinAddPTX", "cubind_nvfatbin_add_ptx"),
    ("nvfatbin", "nvFatbinAddLTOIR", "cubind_nvfatbin_add_ltoir"),
    ("nvjpeg", "nvjpegCreateSimple", "cubind_nvjpeg_create_simple"),
    ("nvjpeg", "nvjpegDecode", "cubind_nvjpeg_decode"),
    # CUPTI: acronyms (PC, HW) and a trailing CRC
    ("cupti", "cuptiActivityGetNextRecord", "cubind_cupti_activity_get_next_record"),
    ("cupti", "cuptiPCSamplingGetData", "cubind_cupti_pc_sampling_get_data"),
    ("cupti", "cuptiActivityEnableHWTrace", "cubind_cupti_activity_enable_hw_trace"),
    ("cupti", "cuptiGetCubinCrc", "cubind_cupti_get_cubin_crc"),
    ("cufile", "cuFileDriverOpen", "cubind_cufile_driver_open"),
    ("cufile", "cuFileBatchIOGetStatus", "cubind_cufile_batch_io_get_status"),
    ("cufile", "cuFileDriverSetMaxDirectIOSize", "cubind_cufile_driver_set_max_direct_io_size"),
]


@pytest.mark.parametrize(("module", "c_name", "expected"), CASES, ids=[c[1] for c in CASES])
def test_cubind_name(module: str, c_name: str, expected: str) -> None:
    if module not in MODULES:
        pytest.skip(f"module {module} is not configured")
    m = MODULES[module]
    assert cubind_name(m.name, c_name, m.prefix, m.exceptions) == expected


def test_cases_cover_every_module() -> None:
    assert set(MODULES) <= {c[0] for c in CASES} and len(MODULES) >= 15
    assert len(CASES) >= 40


def test_v2_stays_when_it_names_a_second_function() -> None:
    m = MODULES["driver"]
    others = frozenset({"cuCtxGetDevice", "cuCtxGetDevice_v2"})
    assert cubind_name(m.name, "cuCtxGetDevice_v2", m.prefix, m.exceptions, others) == "cubind_driver_ctx_get_device_v2"
    assert cubind_name(m.name, "cuCtxGetDevice_v2", m.prefix, m.exceptions) == "cubind_driver_ctx_get_device"


def test_strip_abi_suffix() -> None:
    assert strip_abi_suffix("cublasSgemm_v2") == "cublasSgemm"
    assert strip_abi_suffix("cublasSgemm_v2_64") == "cublasSgemm_64"
    assert strip_abi_suffix("cublasSgemmEx") == "cublasSgemmEx"


def test_wrong_prefix_is_an_error() -> None:
    with pytest.raises(ValueError):
        snake_name("cufftPlan1d", "cublas")
    with pytest.raises(ValueError):
        snake_name("cublas", "cublas")


def test_exceptions_are_real_functions_of_their_module() -> None:
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "generated" / "ir"
    names = {f["name"]: f["module"] for p in root.glob("*.json") for f in json.loads(p.read_text())["functions"]}
    for module in CONFIG.modules:
        for c_name, _ in module.name_exceptions:
            assert names.get(c_name) == module.name, c_name


def _function(name: str, cubind: str) -> dict:
    return {"name": name, "cubind_name": cubind}


def test_colliding_names_are_refused() -> None:
    from generator.names import NameError_, check_names

    check_names([_function("cublasSgemm", "cubind_cublas_sgemm")], {"cubind_load"})
    with pytest.raises(NameError_, match="cublasSgemm and cublasSgemm_v2 both map to cubind_cublas_sgemm"):
        check_names([_function("cublasSgemm", "cubind_cublas_sgemm"),
                     _function("cublasSgemm_v2", "cubind_cublas_sgemm")], set())
    with pytest.raises(NameError_, match="a name of include/cubind/core.h"):
        check_names([_function("cuFoo", "cubind_load")], {"cubind_load"})


@pytest.mark.parametrize("name", ["int", "class", "_Bool", "__half", "_Reserved", "cubind_a__b"])
def test_reserved_identifiers(name: str) -> None:
    from generator.names import reserved_reason

    assert reserved_reason(name) is not None


def test_hand_written_api_names_are_read_from_the_header() -> None:
    from generator.api import hand_written_names

    names = hand_written_names()
    assert {"cubind_load", "cubind_library_info", "cubind_last_error", "cubind_set_library_path"} <= names
    assert {"cubind_status_error", "cubind_slot"} <= names  # cubind/inline.h


def test_generated_names_are_safe() -> None:
    import json
    from pathlib import Path

    from generator.api import hand_written_names
    from generator.names import check_names, reserved_reason

    root = Path(__file__).resolve().parents[2] / "generated" / "ir"
    functions = [f for p in sorted(root.glob("*.json")) for f in json.loads(p.read_text())["functions"]]
    check_names(functions, hand_written_names())
    assert all(reserved_reason(f["cubind_name"]) is None for f in functions)
