"""cubind-probe, as a user runs it: text, --json, exit status, a library that is not there.

Needs the built probe (build/bin/cubind-probe, or $CUBIND_PROBE) and the CUDA libraries of
this machine; `make test-probe` runs it after the build.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from generator import config  # noqa: E402  (the libraries come from the configuration)

PROBE = Path(os.environ.get("CUBIND_PROBE", ROOT / "build" / "bin" / "cubind-probe"))
LIBRARIES = {lib.name: lib for lib in config.load().libraries}
NAMES = list(LIBRARIES)
KEYS = {"name", "found", "path", "soname", "version", "functions", "functions_found", "missing", "error"}


def probe(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(PROBE), *args], capture_output=True, text=True, env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def report() -> dict:
    result = probe("--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_json_lists_every_library_in_order(report: dict) -> None:
    assert [lib["name"] for lib in report["libraries"]] == NAMES
    for lib in report["libraries"]:
        assert KEYS <= set(lib)


def test_found_libraries_are_described(report: dict) -> None:
    for lib in report["libraries"]:
        if not lib["found"]:
            assert lib["error"] and lib["path"] is None
            continue
        configured = LIBRARIES[lib["name"]]
        assert lib["path"].startswith("/") and lib["error"] is None
        assert lib["soname"] in configured.sonames
        if configured.soname_versioned:
            assert lib["version"].split(".")[0] == lib["soname"].rsplit(".", 1)[1]
        assert lib["functions_found"] + len(lib["missing"]) == lib["functions"] > 0
        assert len(set(lib["missing"])) == len(lib["missing"])


def test_the_text_report_agrees(report: dict) -> None:
    text = probe()
    assert text.returncode == 0
    for lib in report["libraries"]:
        if lib["found"]:
            assert f"{lib['functions_found']} of {lib['functions']} found" in text.stdout
            for name in lib["missing"]:
                assert f"missing: {name}\n" in text.stdout


def test_a_missing_library_is_reported_and_exit_is_zero() -> None:
    result = probe("--json", env={"CUBIND_CUFFT_PATH": "/nonexistent/libcufft.so.12"})
    assert result.returncode == 0
    cufft = next(lib for lib in json.loads(result.stdout)["libraries"] if lib["name"] == "cufft")
    assert cufft["found"] is False and cufft["version"] is None and cufft["missing"] == []
    assert "/nonexistent/libcufft.so.12" in cufft["error"]


def test_odd_bytes_in_a_path_keep_the_json_valid() -> None:
    result = probe("--json", env={"CUBIND_CURAND_PATH": "/nonexistent/\"quoted\"\\dir/libcurand.so.10"})
    curand = next(lib for lib in json.loads(result.stdout)["libraries"] if lib["name"] == "curand")
    assert '"quoted"' in curand["error"]


def test_a_bad_command_line_exits_2() -> None:
    assert probe("--bogus").returncode == 2
