"""The real shared libraries of each older CUDA release (generator/libraries.toml [[release]], fetched
by `make fetch-release-libs` into the releases cache) loaded through libcubind: the release cubind
chooses, every function's state against what the IR and the file itself say, and real calls that
need no GPU. Each scenario runs in a fresh process (tests/releases/real_release.py): a library is
loaded once per process."""

from __future__ import annotations

import ctypes as C
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generator import config as config_module  # noqa: E402
from generator.release_headers import cache_root, library_dir  # noqa: E402
from generator.release_rules import Action  # noqa: E402
from generator import release_ir  # noqa: E402
from cubind_ctypes import functions_of, ir_of  # noqa: E402

LIBCUBIND = Path(os.environ.get("CUBIND_TEST_LIBCUBIND", ROOT / "build" / "lib" / "libcubind.so"))
CONFIG = config_module.load()
RELEASES = [r for r in CONFIG.releases]


def release_files(release) -> dict[str, Path]:
    """Each configured library whose soname is in the release's cached lib folder, by library name."""
    folder = library_dir(cache_root(), release)
    found = {}
    for library in CONFIG.libraries:
        for soname in library.sonames:
            if (folder / soname).is_file():
                found[library.name] = folder / soname
                break
    return found


def run(scenario: str, env: dict[str, str]) -> dict:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CUBIND_")} | env
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("real_release.py")), str(LIBCUBIND), scenario],
                          env=environ, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def paths_env(files: dict[str, Path]) -> dict[str, str]:
    return {CONFIG.library(name).env_var: str(path) for name, path in files.items()}


def expected_state(function: dict, release: str, exported: set[str]) -> str:
    """What cubind must make of `function` there: the IR's action (generator/release_rules.py),
    and whether the file exports the symbol the action calls."""
    d = (function.get("releases") or {}).get(release)
    action = Action(d["action"]) if d is not None else Action.ABSENT
    if not action.calls:
        return "missing" if action is Action.ABSENT else "refused"
    if d["call_symbol"] not in exported:
        return "missing"
    return "callable" if action in (Action.CALL, Action.EQUIVALENT) else "adapted"


@pytest.fixture(scope="module", params=[r.name for r in RELEASES])
def release(request):
    r = next(r for r in RELEASES if r.name == request.param)
    files = release_files(r)
    if not files:
        pytest.fail(f"no library of CUDA {r.name} in {library_dir(cache_root(), r)}: run make fetch-release-libs")
    return r, files, run("census", paths_env(files))


def test_release_chosen_from_the_version_query(release):
    r, files, seen = release
    assert set(seen) == set(files)
    for name, got in seen.items():
        info = got["info"]
        assert info["found"] == 1 and info["found_by"] == CONFIG.library(name).env_var, info
        assert info["release"] == r.name, (name, info)
        assert info["releases"].split(", ")[0] == ir_of(name)["releases"][0]["name"]


def test_every_function_as_the_ir_and_the_file_say(release):
    r, files, seen = release
    census = {}
    for name, got in seen.items():
        exported = set()
        handle = C.CDLL(str(files[name]))
        for f in functions_of(name):
            d = (f.get("releases") or {}).get(r.name) or {}
            for symbol in {d.get("symbol"), d.get("call_symbol"), f["symbol"], (d.get("semantic") or {}).get("entry")} - {None}:
                if hasattr(handle, symbol):
                    exported.add(symbol)
        counts: dict[str, int] = {}
        for f in functions_of(name):
            state = got["functions"][f["name"]]
            counts[state["state"]] = counts.get(state["state"], 0) + 1
            assert state["state"] == expected_state(f, r.name, exported), (f["name"], state)
            if state["state"] in ("refused", "adapted"):
                assert state["reason"], f["name"]
        census[name] = counts
        # what the library info counts as found is what can be called
        assert got["info"]["functions_found"] == counts.get("callable", 0) + counts.get("adapted", 0)
    print(f"CUDA {r.name}: {json.dumps(census, sort_keys=True)}")


def test_runtime_calls_device_properties_through_its_release(release):
    r, files, seen = release
    if "runtime" not in seen:
        pytest.skip("no runtime in this release's packages")
    f = next(f for f in functions_of("runtime") if f["name"] == "cudaGetDeviceProperties")
    state = seen["runtime"]["functions"]["cudaGetDeviceProperties"]
    assert state["symbol"] == f["releases"][r.name]["symbol"]
    assert state["state"] == "adapted"


@pytest.mark.parametrize("release_name", [r.name for r in RELEASES])
def test_nvrtc_compiles_to_ptx(release_name):
    r = next(r for r in RELEASES if r.name == release_name)
    files = release_files(r)
    # NVRTC opens its builtins library (libnvrtc-builtins) by soname, which the release's folder holds
    got = run("nvrtc", paths_env({"nvrtc": files["nvrtc"]}) | {"LD_LIBRARY_PATH": str(files["nvrtc"].parent)})
    assert got["create"] == 0 and got["compile"] == 0 and got["ptx_status"] == 0, got
    assert got["ptx_has_entry"]


@pytest.mark.parametrize("release_name", [r.name for r in RELEASES])
def test_curand_host_generator(release_name):
    r = next(r for r in RELEASES if r.name == release_name)
    got = run("curand", paths_env({"curand": release_files(r)["curand"]}))
    assert got["create"] == 0 and got["seed"] == 0 and got["generate"] == 0, got
    assert got["in_range"] and got["distinct"] > 900


@pytest.mark.parametrize("release_name", [r.name for r in RELEASES])
def test_matmul_preference_state_fits_or_is_refused(release_name):
    """cublasLtMatmulPreferenceInit passes the size of the bindings' opaque state. An older cuBLASLt
    whose state is the same size writes it; one whose state is larger than the bindings' record is
    never called (it would need more memory than the caller's record has), and the record is untouched."""
    r = next(r for r in RELEASES if r.name == release_name)
    ir = ir_of("cublasLt")
    new = ir["release_records"][ir["releases"][0]["name"]]
    record = next(name for name in new if "PreferenceOpaque" in name)
    size, old_size = new[record]["size"], release_ir.records_in(ir, r.name)[record]["size"]
    got = run("preference", paths_env({"cublasLt": release_files(r)["cublasLt"]}) |
              {"CUBIND_TEST_PREFERENCE_SIZE": str(size)})
    if old_size <= size:
        assert got["status"] == 0 and got["state"] == "callable", got
        assert any(b != 0xAA for b in got["bytes"][:old_size])  # the library wrote its state
    else:
        assert got["state"] == "refused" and got["status"] != 0, got
        assert got["bytes"] == [0xAA] * size  # nothing written
        assert f"{old_size} bytes in CUDA {r.name}" in got["error"]


def test_a_runtime_already_loaded_is_called_with_its_release():
    r = next(r for r in RELEASES if "runtime" in release_files(r))
    path = release_files(r)["runtime"]
    got = run("preloaded", {"CUBIND_TEST_PRELOAD": str(path)})
    assert got["info"]["found_by"] == "already loaded" and got["info"]["release"] == r.name, got
    assert got["status"] == 0 and got["version"] // 1000 == int(r.name.split(".")[0])
    assert got["get_device_properties"]["state"] == "adapted"


def test_coupled_libraries_from_two_releases_are_reported():
    """cuBLAS of the toolkit (the newest release) with cuBLASLt of an older one: both load, and the
    library info of each names the other and both releases."""
    r = next(r for r in RELEASES if "cublasLt" in release_files(r))
    newest = Path(os.environ.get("CUDA_PATH", "/usr/local/cuda")) / "lib64" / CONFIG.library("cublas").sonames[0]
    got = run("checks", paths_env({"cublas": newest, "cublasLt": release_files(r)["cublasLt"]}))
    note = got["cublas"]["info"]["release_note"]
    assert got["cublasLt"]["info"]["release"] == r.name and note is not None
    assert f"of CUDA {r.name}" in note and f"of CUDA {got['cublas']['info']['release']}" in note
    assert got["cublasLt"]["info"]["release_note"] is not None
    # and the checks say so, with a verdict (cubind_check_count): a warning for each, naming the release
    coupled = {c["library"]: c for c in got["checks"] if c["name"] == "coupled-release"}
    assert coupled["cublas"]["verdict"] == "warning" and f"of CUDA {r.name}" in coupled["cublas"]["reason"]
    assert coupled["cublasLt"]["verdict"] == "warning"
    driver = {c["library"]: c for c in got["checks"] if c["name"] == "driver-supports-release"}
    assert f"is called as CUDA {r.name}" in driver["cublasLt"]["reason"]


@pytest.mark.parametrize("release_name", [r.name for r in RELEASES])
def test_a_required_release_refuses_older_runtimes(release_name):
    """cubind_require_release(runtime, 12, 4): a 12.4 runtime loads, an 11.8 one does not, saying why;
    12.6, which the bindings do not know, cannot be required."""
    r = next(r for r in RELEASES if r.name == release_name)
    got = run("require", paths_env({"runtime": release_files(r)["runtime"]}))
    assert got["unknown"] == 4 and "12.6 is not a release these bindings know" in got["unknown_error"], got
    assert got["known"] == 0
    if [int(p) for p in r.name.split(".")] >= [12, 4]:
        assert got["info"]["found"] == 1 and got["info"]["release"] == r.name, got
    else:
        assert got["info"]["found"] == 0 and "requires CUDA 12.4 or newer" in got["info"]["error"], got
