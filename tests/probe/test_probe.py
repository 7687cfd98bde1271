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
    """Run the probe; one that hangs fails its test (subprocess.TimeoutExpired) instead of the suite."""
    return subprocess.run([str(PROBE), *args], capture_output=True, text=True, env={**os.environ, **(env or {})},
                          timeout=60)


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
            assert f"{lib['functions_found']} of {lib['functions']} callable" in text.stdout
            assert f"called as: CUDA {lib['release']} (these bindings know {lib['releases']})" in text.stdout
            states = {f["name"]: f for f in lib["not_callable"]}
            assert set(states) == set(lib["missing"])
            for name in lib["missing"]:
                line = f"{states[name]['state']}: {name}"
                assert f"{line}\n" in text.stdout or f"{line} ({states[name]['reason']})\n" in text.stdout


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


def test_an_ld_so_cache_that_is_a_fifo_does_not_block(tmp_path: Path) -> None:
    # opened for reading, a FIFO without a writer once blocked the probe for ever
    fifo = tmp_path / "ld.so.cache"
    os.mkfifo(fifo)
    result = probe("--json", env={"CUBIND_LD_SO_CACHE": str(fifo)})
    assert result.returncode == 0, result.stderr
    assert [lib["name"] for lib in json.loads(result.stdout)["libraries"]] == NAMES


def test_a_bad_command_line_exits_2() -> None:
    assert probe("--bogus").returncode == 2


def _real_path(report: dict, name: str) -> str:
    lib = next(lib for lib in report["libraries"] if lib["name"] == name)
    if not lib["found"]:
        pytest.skip(f"{name} is not installed")
    return lib["real_path"]


def _probe_bytes(*args: str, env: dict[bytes, bytes]) -> subprocess.CompletedProcess:
    return subprocess.run([str(PROBE), *args], capture_output=True, env={**os.environb, **env})


def test_a_utf8_path_is_kept_as_utf8_in_json(report: dict, tmp_path: Path) -> None:
    directory = tmp_path / "café"
    directory.mkdir()
    (directory / "libcurand.so.10").symlink_to(_real_path(report, "curand"))
    result = _probe_bytes("--json", env={b"CUBIND_CURAND_PATH": bytes(directory / "libcurand.so.10")})
    assert result.returncode == 0
    assert "café".encode() in result.stdout  # as UTF-8, not \u00c3\u00a9
    curand = next(lib for lib in json.loads(result.stdout)["libraries"] if lib["name"] == "curand")
    assert curand["found"] is True
    assert curand["path"] == str(directory / "libcurand.so.10")  # a path that exists
    assert curand["path_bytes"] is None


def test_bytes_that_are_not_utf8_are_replaced_and_given_in_hex(report: dict, tmp_path: Path) -> None:
    directory = bytes(tmp_path) + b"/bad\xff\xfe"
    os.mkdir(directory)
    path = directory + b"/libcurand.so.10"
    os.symlink(_real_path(report, "curand"), path)
    result = _probe_bytes("--json", env={b"CUBIND_CURAND_PATH": path})
    assert result.returncode == 0
    curand = next(lib for lib in json.loads(result.stdout.decode("utf-8"))["libraries"] if lib["name"] == "curand")
    assert curand["path"] == path.decode("utf-8", errors="replace")
    assert bytes.fromhex(curand["path_bytes"]) == path


def test_the_text_report_escapes_control_characters(report: dict, tmp_path: Path) -> None:
    directory = tmp_path / "red\x1b[31m\x07"
    directory.mkdir()
    (directory / "libcurand.so.10").symlink_to(_real_path(report, "curand"))
    missing = str(tmp_path / "line\nbreak\x1b[2J" / "libcufft.so.12")
    result = probe(env={"CUBIND_CURAND_PATH": str(directory / "libcurand.so.10"), "CUBIND_CUFFT_PATH": missing})
    assert result.returncode == 0
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "red\\x1b[31m\\x07/libcurand.so.10" in result.stdout
    assert "line\\x0abreak\\x1b[2J" in result.stdout


@pytest.mark.parametrize("args", [(), ("--json",)])
def test_a_report_that_cannot_be_written_is_an_error(args: tuple) -> None:
    with open("/dev/full", "w") as full:
        result = subprocess.run([str(PROBE), *args], stdout=full, stderr=subprocess.PIPE, text=True)
    assert result.returncode == 1
    assert "cubind-probe: cannot write the report" in result.stderr
