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


def test_one_ir_per_unit() -> None:
    assert set(IR) == {u.name for u in CONFIG.units} == {"cublas", "cublasLt", "cufft", "curand", "cusolver", "cusparse"}


def test_every_extern_c_function_is_bound() -> None:
    counts = {name: len(ir["functions"]) for name, ir in IR.items()}
    assert counts == {"cublas": 539, "cublasLt": 50, "cufft": 56, "curand": 29, "cusolver": 596, "cusparse": 460}
    assert sum(counts.values()) == 1730 == len(FUNCTIONS)


def test_v2_symbols_come_from_the_header_macros() -> None:
    assert FUNCTIONS["cublasSgemm"]["symbol"] == "cublasSgemm_v2"
    assert FUNCTIONS["cublasSgemm_64"]["symbol"] == "cublasSgemm_v2_64"
    assert FUNCTIONS["cublasCreate"]["symbol"] == "cublasCreate_v2"
    assert FUNCTIONS["cublasGemmEx"]["symbol"] == "cublasGemmEx"
    v2 = [f for f in FUNCTIONS.values() if f["symbol"] != f["name"]]
    assert len(v2) == 314 and all(f["library"] == "cublas" for f in v2)


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
    for f in FUNCTIONS.values():
        m = modules[f["module"]]
        assert f["cubind_name"] == cubind_name(m.name, f["name"], m.prefix, m.exceptions)
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
    assert sum(f["deprecated"] is not None for f in FUNCTIONS.values()) == 405


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
    assert {u: ir["header_version"] for u, ir in IR.items()} == {
        "cublas": "13.1.0", "cublasLt": "13.1.0", "cufft": "12.0.0", "curand": "10.4.0",
        "cusolver": "12.0.4", "cusparse": "12.6.3"}
    assert {ir["cuda_version"] for ir in IR.values()} == {"13.0"}


def test_integer_constants_keep_their_text() -> None:
    constants = {c["name"]: c for ir in IR.values() for c in ir["constants"]}
    assert constants["CUFFT_FORWARD"]["value"] == -1
    assert constants["CUBLASLT_NUMERICAL_IMPL_FLAGS_GAUSSIAN"]["text"] == "( 0x01ull << 32 )"
    assert constants["CUBLASLT_NUMERICAL_IMPL_FLAGS_GAUSSIAN"]["value"] == 1 << 32
