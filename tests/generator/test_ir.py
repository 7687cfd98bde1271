"""What stage 1 extracted from the CUDA 13.0 headers (the checked-in IR, generated/ir/*.json)."""

import json
from pathlib import Path

import pytest

from generator import config
from generator.names import cubind_name

ROOT = Path(__file__).resolve().parents[2]
CONFIG = config.load()
IR = {p.stem: json.loads(p.read_text()) for p in sorted((ROOT / "generated" / "ir").glob("*.json"))}
FUNCTIONS = {f["name"]: f for ir in IR.values() for f in ir["functions"]}


# extern "C" functions of the CUDA 13.0 headers, per unit (a unit added later is checked by ratio only)
# cublas: cublas_v2.h's 539 and cublasXt.h's 51; runtime: cuda_runtime_api.h's 310 and
# cuda_profiler_api.h's 2; driver: cuda.h's 449 and cudaProfiler.h's 3 (issue 26, item 2)
CUDA_13_0_COUNTS = {"cublas": 590, "cublasLt": 50, "cufft": 56, "curand": 29, "cusolver": 596, "cusparse": 460,
                    "runtime": 312, "driver": 452, "nvrtc": 24, "nvjitlink": 14, "nccl": 41}


def test_one_ir_per_unit() -> None:
    assert set(IR) == {u.name for u in CONFIG.units}
    assert set(CUDA_13_0_COUNTS) <= set(IR)


def test_every_extern_c_function_is_bound() -> None:
    counts = {name: len(IR[name]["functions"]) for name in CUDA_13_0_COUNTS}
    assert counts == CUDA_13_0_COUNTS
    assert sum(len(ir["functions"]) for ir in IR.values()) == len(FUNCTIONS)


def test_at_least_99_percent_of_each_header_is_bound() -> None:
    """What is not bound is excluded by configuration or skipped for a reason the IR states."""
    for unit, ir in IR.items():
        excluded = [s for s in ir["skipped"] if s["reason"].startswith("excluded by configuration")]
        other = [s for s in ir["skipped"] if s not in excluded]
        declared = len(ir["functions"]) + len(other)
        assert len(ir["functions"]) >= 0.99 * declared or len(other) <= 6, (unit, [s["name"] for s in other])
        assert all(s["reason"] for s in ir["skipped"])


def test_exclusions_are_listed_with_their_reason() -> None:
    nccl = IR["nccl"]
    excluded = [s for s in nccl["skipped"] if s["reason"].startswith("excluded by configuration (pnccl*)")]
    assert len(excluded) == len(nccl["functions"]) == 41
    assert {s["name"] for s in excluded} == {"p" + f["name"] for f in nccl["functions"]}
    assert not any(f["name"].startswith("pnccl") for f in FUNCTIONS.values())


def test_v2_symbols_come_from_the_header_macros() -> None:
    assert FUNCTIONS["cublasSgemm"]["symbol"] == "cublasSgemm_v2"
    assert FUNCTIONS["cublasSgemm_64"]["symbol"] == "cublasSgemm_v2_64"
    assert FUNCTIONS["cublasCreate"]["symbol"] == "cublasCreate_v2"
    assert FUNCTIONS["cublasGemmEx"]["symbol"] == "cublasGemmEx"
    assert FUNCTIONS["cuMemAlloc"]["symbol"] == "cuMemAlloc_v2"
    assert FUNCTIONS["cuMemAlloc"]["cubind_name"] == "cubind_driver_mem_alloc"
    v2 = [f for f in FUNCTIONS.values() if f["symbol"] != f["name"]]
    assert sum(f["library"] == "cublas" for f in v2) == 314
    assert sum(f["library"] == "driver" for f in v2) == 83


def test_default_stream_entry_points_are_bound() -> None:
    """The default-stream symbols, not the per-thread ones (_ptds / _ptsz)."""
    assert not [f["symbol"] for f in FUNCTIONS.values() if f["symbol"].endswith(("_ptds", "_ptsz"))]
    assert FUNCTIONS["cudaMemcpyAsync"]["symbol"] == "cudaMemcpyAsync"
    assert FUNCTIONS["cuMemcpyHtoDAsync"]["symbol"] == "cuMemcpyHtoDAsync_v2"


def test_a_second_function_named_v2_keeps_its_suffix() -> None:
    """cuCtxGetDevice and cuCtxGetDevice_v2 are two functions, not a macro map."""
    assert FUNCTIONS["cuCtxGetDevice"]["cubind_name"] == "cubind_driver_ctx_get_device"
    assert FUNCTIONS["cuCtxGetDevice_v2"]["cubind_name"] == "cubind_driver_ctx_get_device_v2"


def test_forwarding_inline_functions_bind_their_versioned_symbol() -> None:
    """nvJitLink's header defines nvJitLinkCreate as a static inline call of __nvJitLinkCreate_13_0."""
    create = FUNCTIONS["nvJitLinkCreate"]
    assert create["symbol"] == "__nvJitLinkCreate_13_0" and create["cubind_name"] == "cubind_nvjitlink_create"
    forwarded = [f for f in IR["nvjitlink"]["functions"] if f["symbol"] != f["name"]]
    assert len(forwarded) == 13 and all(f["symbol"] == f"__{f['name']}_13_0" for f in forwarded)
    assert not IR["nvjitlink"]["skipped"]


def test_records_nested_in_records_are_declared_in_place() -> None:
    params = next(t for t in IR["driver"]["types"] if t["name"] == "CUstreamBatchMemOpParams_union")
    wait = next(f for f in params["fields"] if f["name"] == "waitValue")
    assert wait["record"]["name"] == "CUstreamMemOpWaitValueParams_st"
    anonymous = [f for f in wait["record"]["fields"] if f["name"] == ""]
    assert len(anonymous) == 1 and anonymous[0]["record"]["kind"] == "union"
    assert "/" not in json.dumps(IR["driver"]["types"]), "a type spelled with a file path"


def test_types_under_a_define_guard_carry_it() -> None:
    """CUuuid_st is declared in cuda.h and driver_types.h under CU_UUID_HAS_BEEN_DEFINED."""
    guarded = [t for ir in IR.values() for t in ir["types"] if t.get("define_guard") == "CU_UUID_HAS_BEEN_DEFINED"]
    assert {t["header"] for t in guarded} == {"cuda.h", "driver_types.h"}


def test_cplusplus_only_half_functions_are_bound() -> None:
    cxx = sorted(f["name"] for f in FUNCTIONS.values() if f["cplusplus_only"])
    assert len(cxx) == 34
    assert {"cublasHgemm", "cublasHSHgemvBatched", "cusparseHpruneCsr2csr"} <= set(cxx)
    assert all("__half" in " ".join(p["type"] for p in FUNCTIONS[n]["params"]) or "__nv_bfloat16" in
               " ".join(p["type"] for p in FUNCTIONS[n]["params"]) for n in cxx)


def test_non_abi_declarations_are_skipped_with_a_reason() -> None:
    skipped = {(s["name"], s["reason"].split(":")[0]) for ir in IR.values() for s in ir["skipped"]}
    assert ("cublasGemmEx", 'C++ overload of an extern "C" function, defined inline in the header') in skipped
    assert ("cublasMigrateComputeType", "static inline helper defined in the header") in skipped
    assert ("cublasLtMatmulDescInit", "static inline helper defined in the header") in skipped
    assert all(s["reason"] and s["signature"] for ir in IR.values() for s in ir["skipped"])
    assert not {name for name, _ in skipped} & {n for n, f in FUNCTIONS.items() if f["name"] != "cublasGemmEx"
                                                 and n in ("cublasMigrateComputeType", "cublasLtMatmulDescInit")}


def test_functions_carry_types_as_written_and_canonical() -> None:
    sgemm = FUNCTIONS["cublasSgemm"]
    assert [p["name"] for p in sgemm["params"]][:4] == ["handle", "transa", "transb", "m"]
    handle = sgemm["params"][0]
    assert handle["type"] == "cublasHandle_t" and handle["canonical"] == "struct cublasContext *"
    assert sgemm["returns"] == {"type": "cublasStatus_t", "canonical": "cublasStatus_t", "category": "enum"}
    batched = FUNCTIONS["cublasSgemvBatched"]
    aarray = next(p for p in batched["params"] if p["name"] == "Aarray")
    assert aarray["decl"] == "const float *const Aarray[]" and aarray["value_type"] == "const float *const *"


def test_every_function_is_named_by_the_rule() -> None:
    modules = {m.name: m for m in CONFIG.modules}
    publics = {ir["unit"]: frozenset(f["name"] for f in ir["functions"]) for ir in IR.values()}
    for unit, ir in IR.items():
        for f in ir["functions"]:
            m = modules[f["module"]]
            assert f["cubind_name"] == cubind_name(m.name, f["name"], m.prefix, m.exceptions, publics[unit])
        assert f["name"].startswith(m.prefix)
    names = [f["cubind_name"] for f in FUNCTIONS.values()]
    assert len(set(names)) == len(names)


def test_modules_and_libraries() -> None:
    by_module: dict[str, int] = {}
    for f in FUNCTIONS.values():
        by_module[f["module"]] = by_module.get(f["module"], 0) + 1
        assert f["library"] == CONFIG.unit(next(u for u, ir in IR.items() if f in ir["functions"])).module_for_function(f["name"]).library
    assert set(by_module) == {m.name for m in CONFIG.modules}
    assert FUNCTIONS["cusolverMgCreate"]["library"] == "cusolverMg"
    assert FUNCTIONS["cusolverDnCreate"]["library"] == "cusolver"


def test_status_returning_and_value_returning_functions() -> None:
    assert FUNCTIONS["cublasSgemm"]["returns_status"] is True
    assert FUNCTIONS["cublasLtGetVersion"]["returns_status"] is False
    assert FUNCTIONS["cusparseGetErrorName"]["returns"]["category"] == "pointer"
    assert FUNCTIONS["cublasXerbla"]["returns"]["category"] == "void"


def test_deprecation_is_recorded() -> None:
    assert FUNCTIONS["cusolverSpCreate"]["deprecated"] == "please use cuDSS instead"
    assert FUNCTIONS["cusolverMgCreate"]["deprecated"] == ""  # deprecated, no message
    assert FUNCTIONS["cublasSgemm"]["deprecated"] is None
    deprecated = {u: sum(f["deprecated"] is not None for f in IR[u]["functions"]) for u in CUDA_13_0_COUNTS}
    assert deprecated == {"cublas": 0, "cublasLt": 0, "cufft": 0, "curand": 0, "cusolver": 169, "cusparse": 236,
                          "runtime": 9, "driver": 50, "nvrtc": 0, "nvjitlink": 0, "nccl": 1}


@pytest.mark.parametrize(
    ("unit", "name", "constant", "value"),
    [
        ("cublas", "cublasOperation_t", "CUBLAS_OP_N", 0),
        ("cublas", "cublasStatus_t", "CUBLAS_STATUS_NOT_SUPPORTED", 15),
        ("cufft", "cufftType_t", "CUFFT_Z2Z", 0x69),
        ("cufft", "cufftResult_t", "CUFFT_NOT_SUPPORTED", 0x10),
        ("curand", "curandStatus", "CURAND_STATUS_VERSION_MISMATCH", 100),
        ("cusparse", "cusparseStatus_t", "CUSPARSE_STATUS_NOT_SUPPORTED", 10),
        ("cublasLt", "cublasLtEpilogue_t", "CUBLASLT_EPILOGUE_RELU_AUX_BIAS", 134),
        ("cublasLt", "cublasLtEpilogue_t", "CUBLASLT_EPILOGUE_DRELU_BGRAD", 152),
    ],
)
def test_enum_values(unit: str, name: str, constant: str, value: int) -> None:
    enums = [t for t in IR[unit]["types"] if t["kind"] == "enum" and name in (t["name"], t["typedef"])]
    assert len(enums) == 1
    assert {c["name"]: c["value"] for c in enums[0]["constants"]}[constant] == value


def test_struct_layout_is_recorded() -> None:
    heuristic = next(t for t in IR["cublasLt"]["types"] if t["typedef"] == "cublasLtMatmulHeuristicResult_t")
    assert heuristic["complete"] and heuristic["size"] == 96 and heuristic["align"] == 8
    assert [f["name"] for f in heuristic["fields"]] == ["algo", "workspaceSize", "state", "wavesCount", "reserved"]
    float2 = next(t for t in IR["cufft"]["types"] if t["name"] == "float2" and t["kind"] == "struct")
    assert float2["explicit_align"] == 8


def test_guards_and_versions() -> None:
    assert IR["cublas"]["guards"]["cublas_api.h"] == "CUBLAS_API_H_"
    assert IR["cublasLt"]["guards"]["cublasLt.h"] == "CUBLASLT_NUMERICAL_IMPL_FLAGS_FMA"  # a #pragma once header
    assert {u: IR[u]["header_version"] for u in CUDA_13_0_COUNTS} == {
        "cublas": "13.1.0", "cublasLt": "13.1.0", "cufft": "12.0.0", "curand": "10.4.0",
        "cusolver": "12.0.4", "cusparse": "12.6.3", "runtime": "13.0", "driver": "13.0", "nvrtc": "13.0",
        "nvjitlink": "13.0", "nccl": "2.28.9"}
    assert {ir["cuda_version"] for ir in IR.values()} == {"13.0"}


def test_integer_constants_keep_their_text() -> None:
    constants = {c["name"]: c for ir in IR.values() for c in ir["constants"]}
    assert constants["CUFFT_FORWARD"]["value"] == -1
    assert constants["CUBLASLT_NUMERICAL_IMPL_FLAGS_GAUSSIAN"]["text"] == "( 0x01ull << 32 )"
    assert constants["CUBLASLT_NUMERICAL_IMPL_FLAGS_GAUSSIAN"]["value"] == 1 << 32


@pytest.mark.parametrize(
    ("function", "param", "output"),
    [
        ("cudaGetDeviceCount", "count", True),            # int *
        ("cudaMalloc", "devPtr", True),                   # void **
        ("cudaStreamCreate", "pStream", True),            # a pointer to a handle
        ("cudaGetDeviceProperties", "prop", True),        # a complete record
        ("cublasCreate", "handle", True),                 # cublasHandle_t *
        ("cublasSgemm", "C", True),                       # float *: an array, its first element
        ("cublasSgemm", "A", False),                      # const float *
        ("cublasSgemm", "handle", False),                 # a handle: its record is incomplete
        ("cublasSgemm", "m", False),                      # not a pointer
        ("cudaMemcpy", "dst", False),                     # void *: no size
        ("cublasSgemvBatched", "Aarray", False),          # const float *const []: a const pointee
        ("cublasHgemm", "C", False),                      # __half *: opaque in cubind's C headers
        ("cudaLaunchHostFunc", "fn", False),              # a function pointer
    ],
)
def test_outputs(function: str, param: str, output: bool) -> None:
    """The parameters the mocks zero (docs/mocks.md, "Outputs"): `output` is present only when true."""
    p = next(p for p in FUNCTIONS[function]["params"] if p["name"] == param)
    assert p.get("output", False) is output
    assert "output" not in p or p["output"] is True
