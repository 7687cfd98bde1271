"""The checked-in IR's release comparison (generated/ir, docs/releases.md) on the cases issue 17
names, with record sizes measured by the C compiler on each release's own headers (the releases
cache, `make fetch-releases`; those checks are skipped without it)."""

from __future__ import annotations

import collections
import json
import subprocess
from pathlib import Path

import pytest

from generator import config, release_headers, release_ir

ROOT = Path(__file__).resolve().parents[2]
IRS = {p.stem: json.loads(p.read_text()) for p in sorted((ROOT / "generated" / "ir").glob("*.json"))}
CONFIG = config.load()
CACHE = release_headers.cache_root()
CUDA = Path("/usr/local/cuda/include")
NEWEST = IRS["runtime"]["releases"][0]["name"]


def _entry(unit: str, name: str, release: str) -> dict:
    return next(f for f in IRS[unit]["functions"] if f["name"] == name)["releases"][release]


def _sizeof(include: Path, header: str, type_name: str) -> int:
    """sizeof(type_name) as gcc lays it out with `include` (a release's headers) searched first:
    gcc names the array type in the warning about a pointer to it."""
    if not (include / header).is_file():
        pytest.skip(f"{include} lacks {header}: run make fetch-releases")
    probe = f"#include <{header}>\nchar cubind_size[sizeof({type_name})];\nint *cubind_probe = &cubind_size;\n"
    result = subprocess.run(["gcc", "-x", "c", "-std=c11", f"-I{include}", "-fsyntax-only", "-"], input=probe,
                            capture_output=True, text=True)
    marker = "char (*)["
    assert marker in result.stderr, result.stderr
    return int(result.stderr[result.stderr.index(marker) + len(marker):].split("]")[0])


def _include(release: str) -> Path:
    return CUDA if release == NEWEST else release_headers.include_dir(CACHE, next(r for r in CONFIG.releases
                                                                         if r.name == release))


def _record_size(unit: str, release: str, record: str) -> int:
    return release_ir.records_in(IRS[unit], release)[record]["size"]


@pytest.mark.parametrize("release", [r.name for r in CONFIG.releases_of("runtime")])
def test_get_device_properties_is_adapted(release: str) -> None:
    entry = _entry("runtime", "cudaGetDeviceProperties", release)
    assert entry["compat"] == "layout" and entry["action"] == "adapt"
    sizes = (_record_size("runtime", release, "struct cudaDeviceProp"), _record_size("runtime", NEWEST, "struct cudaDeviceProp"))
    assert f"struct cudaDeviceProp is {sizes[0]} bytes in CUDA {release}, {sizes[1]} in CUDA {NEWEST}" in entry["reason"]
    assert sizes[0] == _sizeof(_include(release), "cuda_runtime_api.h", "struct cudaDeviceProp")
    assert sizes[1] == _sizeof(CUDA, "cuda_runtime_api.h", "struct cudaDeviceProp")
    assert _entry("runtime", "cudaChooseDevice", release)["compat"] == "layout"


def test_the_issues_cases_in_12_4() -> None:
    # 12.4's headers map cudaGetDeviceProperties to the _v2 entry point, with the 1,032-byte struct
    props = _entry("runtime", "cudaGetDeviceProperties", "12.4")
    assert (props["call_symbol"], _record_size("runtime", "12.4", "struct cudaDeviceProp"),
            _record_size("runtime", NEWEST, "struct cudaDeviceProp")) == ("cudaGetDeviceProperties_v2", 1032, 1008)
    capture = _entry("runtime", "cudaStreamGetCaptureInfo", "12.4")
    assert (capture["compat"], capture["equivalent"], capture["call_symbol"]) == \
        ("signature", "cudaStreamGetCaptureInfo_v3", "cudaStreamGetCaptureInfo_v3")
    edges = _entry("runtime", "cudaGraphAddDependencies", "12.4")
    assert (edges["compat"], edges["call_symbol"]) == ("signature", "cudaGraphAddDependencies_v2")
    create = _entry("nvjitlink", "nvJitLinkCreate", "12.4")
    assert (create["compat"], create["symbol"], create["call_symbol"]) == \
        ("renamed", "__nvJitLinkCreate_12_4", "__nvJitLinkCreate_12_4")


def test_the_functions_cuda_12_5_added_are_called_on_its_libraries() -> None:
    """CUDA 12.5 (Debian experimental's headers, issue 28): what it added, absent from 12.4, is called
    on a 12.5 library (and so on 12.6 to 12.9, called as 12.5); cuCtxCreate, whose 13.0 form 12.4
    lacks, is 12.5's cuCtxCreate_v4 itself."""
    for unit, name in (("runtime", "cudaGetDriverEntryPointByVersion"), ("cublas", "cublasGemmGroupedBatchedEx"),
                       ("driver", "cuCtxRecordEvent"), ("driver", "cuGreenCtxStreamCreate")):
        function = next(f for f in IRS[unit]["functions"] if f["name"] == name)
        assert function["added_in"] == "12.5", name
        assert (_entry(unit, name, "12.5")["compat"], _entry(unit, name, "12.4")["compat"]) == ("identical", "absent")
    create = _entry("driver", "cuCtxCreate", "12.5")
    assert (create["compat"], create["call_symbol"]) == ("identical", "cuCtxCreate_v4")
    # 12.4 lacks it: cuCtxCreate_v2 through a semantic adapter, when ctxCreateParams is NULL
    assert (_entry("driver", "cuCtxCreate", "12.4")["action"], _entry("driver", "cuCtxCreate", "12.4")["call_symbol"]) \
        == ("semantic", "cuCtxCreate_v2")
    assert [p.split("=")[0] for p in next(r for r in IRS["runtime"]["releases"] if r["name"] == "12.5")["packages"]] \
        == ["nvidia-cuda-dev", "libcu++-dev"]


def test_the_issues_cases_in_11_8() -> None:
    instantiate = _entry("runtime", "cudaGraphInstantiate", "11.8")
    # no equivalent: called through the semantic adapter of generator/semantic.toml (issue 28 item 1)
    assert (instantiate["compat"], instantiate["equivalent"], instantiate["action"], instantiate["call_symbol"]) == \
        ("signature", None, "semantic", "cudaGraphInstantiateWithFlags")
    assert instantiate["reason"].startswith(f"the CUDA {NEWEST} form does not exist: 5 parameters in CUDA 11.8, 3 in CUDA")
    init = _entry("cublasLt", "cublasLtMatmulPreferenceInit_internal", "11.8")
    assert (init["compat"], init["call_symbol"]) == ("signature", None)
    record = "cublasLtMatmulPreferenceOpaque_t"
    sizes = (_record_size("cublasLt", "11.8", record), _record_size("cublasLt", NEWEST, record))
    assert sizes == (80, 64)
    assert sizes == (_sizeof(_include("11.8"), "cublasLt.h", record), _sizeof(CUDA, "cublasLt.h", record))
    # the functions that take a preference the library allocated are called as they are
    assert _entry("cublasLt", "cublasLtMatmulPreferenceSetAttribute", "11.8")["compat"] == "identical"


def test_a_refusal_names_the_obstacle_and_the_older_entry_point() -> None:
    """cudaGraphAddNode with 12.4: 12.4 has cudaGraphAddNode_v2 with the newest parameters; what
    stands in the way is nodeParams' record, whose union's members changed."""
    for unit, name, symbol in (("runtime", "cudaGraphAddNode", "cudaGraphAddNode_v2"),
                               ("driver", "cuGraphAddNode", "cuGraphAddNode_v2")):
        entry = _entry(unit, name, "12.4")
        # both called through a semantic adapter (generator/semantic.toml), which keeps the obstacle
        # as the reason; the driver's CUdevResource functions, with no mapping, are refused so
        assert entry["action"] == "semantic"
        assert f"CUDA 12.4 has {symbol} with the CUDA {NEWEST} parameters" in entry["reason"], entry["reason"]
        assert "parameter nodeParams" in entry["reason"] and "union member graph differs" in entry["reason"]
    resource = _entry("driver", "cuDeviceGetDevResource", "12.4")
    assert resource["action"] == "refuse" and "parameter resource" in resource["reason"], resource["reason"]
    # a parameter whose type changed is named
    advise = _entry("runtime", "cudaMemAdvise", "11.8")
    assert "parameter 4 (location) is int in CUDA 11.8" in advise["reason"], advise["reason"]


def test_every_function_has_an_entry_for_each_release_of_its_unit() -> None:
    for unit, ir in IRS.items():
        names = [r["name"] for r in ir["releases"]]
        # every unit is newest in the toolkit's release, those whose headers it may lack too (nvml.h)
        assert names == [NEWEST, *(r.name for r in CONFIG.releases_of(unit))]
        for function in ir["functions"]:
            assert list(function["releases"]) == names
            for release, entry in function["releases"].items():
                callable_ = entry["action"] not in ("refuse", "absent")
                assert (entry["call_symbol"] is not None) == callable_, (unit, function["name"], release)
                # the comparison and the action agree: an action is its class's, or a refusal naming why
                assert entry["action"] in {"identical": ("call",), "renamed": ("call",), "layout": ("adapt",),
                                           "signature": ("equivalent", "refuse", "semantic"),
                                           "absent": ("absent",)}[entry["compat"]], (unit, function["name"])
                assert (entry["reason"] is None) or entry["compat"] != "identical" or entry["call_symbol"] != entry["symbol"]


def test_library_versions_are_the_headers_own() -> None:
    for unit, ir in IRS.items():
        newest = ir["releases"][0]["library_version"]
        assert ".".join(str(newest[k]) for k in ("major", "minor", "patch")).startswith(ir["header_version"])
        versions = [tuple(r["library_version"].values()) for r in ir["releases"]]
        assert versions == sorted(versions, reverse=True), unit  # newest first, each older below


def test_census_counts_every_function() -> None:
    census = release_headers.census(IRS.values())
    for unit, ir in IRS.items():
        for release in ir["releases"][1:]:
            counts = census[unit][release["name"]]
            assert sum(counts.values()) == len(ir["functions"])
            assert counts == collections.Counter(f["releases"][release["name"]]["compat"] for f in ir["functions"])


def test_the_docs_census_is_the_irs() -> None:
    text = (ROOT / "docs" / "releases.md").read_text()
    assert release_headers.census_table(list(IRS.values())) in text, "docs/releases.md: paste python3 -m generator.release_headers census"


def test_a_unit_first_bound_from_an_older_release_keeps_its_functions_first() -> None:
    """first_release (libraries.toml): that release's functions come first (the library's slots keep
    their places), and a function the newest release lacks can only be one of them (it removed it)."""
    units = [u for u in CONFIG.units if u.first_release is not None]
    assert units
    for unit in units:
        ir = IRS[unit.name]
        first = [f["releases"][unit.first_release]["declared"] for f in ir["functions"]]
        assert first == sorted(first, reverse=True), unit.name
        for function in ir["functions"]:
            if not function["releases"][NEWEST]["declared"]:
                assert function["releases"][unit.first_release]["declared"], (unit.name, function["name"])
                assert function["releases"][NEWEST]["action"] == "absent"
