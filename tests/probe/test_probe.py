"""cubind-probe, as a user runs it: text, --json (checked against docs/probe.schema.json), exit
status, --help, --version, a library that is not there, the mocks and the half mocks.

Needs the built probe (build/bin/cubind-probe, or $CUBIND_PROBE) and the CUDA libraries of
this machine; `make test-probe` runs it after the build, with the mock trees it names in
$CUBIND_TEST_MOCK_DIR and $CUBIND_TEST_HALF_MOCK_DIR (tests that need them are skipped without).
"""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from probe_schema import SCHEMA, VALIDATOR, validated  # noqa: F401  (test_check imports validated from here)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from generator import config  # noqa: E402  (the libraries come from the configuration)

PROBE = Path(os.environ.get("CUBIND_PROBE", ROOT / "build" / "bin" / "cubind-probe"))
LIBRARIES = {lib.name: lib for lib in config.load().libraries}
NAMES = list(LIBRARIES)
KEYS = {"name", "found", "path", "soname", "version", "version_text", "version_source", "version_detail",
        "version_note", "functions", "functions_found", "missing", "release", "release_text", "releases",
        "releases_text", "not_callable", "error"}
MOCK_DIR = os.environ.get("CUBIND_TEST_MOCK_DIR")
# The compiler of the probe's machine (a cross build's: make test-aarch64), for the libraries a test makes.
CC = shlex.split(os.environ.get("CUBIND_TEST_CC", "cc"))
HALF_MOCK_DIR = os.environ.get("CUBIND_TEST_HALF_MOCK_DIR")


def probe(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the probe; one that hangs fails its test (subprocess.TimeoutExpired) instead of the suite."""
    return subprocess.run([str(PROBE), *args], capture_output=True, text=True, env={**os.environ, **(env or {})},
                          timeout=60)


def mock_soname(library) -> str:
    """The soname a library's mocks carry (generated/build.mk's CUBIND_SONAME_<lib>: the newest of a
    major the bindings read, libnvjpeg.so.12 with 12.4's headers)."""
    build_mk = (Path(__file__).resolve().parents[2] / "generated" / "build.mk").read_text()
    found = re.search(rf"^CUBIND_SONAME_{re.escape(library.name)} := (\S+)$", build_mk, re.MULTILINE)
    return found.group(1) if found else library.sonames[0]


def mock_env(directory: str | None) -> dict[str, str]:
    """CUBIND_<LIB>_PATH of every library to its mock in `directory` (named by its mock soname)."""
    if directory is None:
        pytest.skip("no mock tree: make test-probe builds the mocks and names them")
    env = {lib.env_var: str(Path(directory) / mock_soname(lib)) for lib in LIBRARIES.values()}
    for path in env.values():
        assert Path(path).is_file(), path
    return env


def header_version() -> tuple[int, int, int]:
    """cubind's version, as include/cubind/version.h defines it."""
    text = (ROOT / "include" / "cubind" / "version.h").read_text()
    return tuple(int(re.search(rf"#define CUBIND_VERSION_{part} (\d+)", text).group(1))  # type: ignore[union-attr]
                 for part in ("MAJOR", "MINOR", "PATCH"))


@pytest.fixture(scope="module")
def report() -> dict:
    result = probe("--json")
    assert result.returncode == 0, result.stderr
    return validated(result.stdout)


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


# A GPU, a check and --all's copies as the probe writes them (tests/machine and tests/copies validate the
# probe's own against the schema): what test_the_schema_rejects_a_drifted_report changes one thing of.
GPU = {"index": 0, "nvml_index": 0, "name": "NVIDIA H100 80GB HBM3", "name_source": "nvml",
       "uuid": "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9", "uuid_source": "nvml",
       "compute_capability": {"major": 9, "minor": 0, "patch": None}, "compute_capability_source": "nvml",
       "memory_total_bytes": 85520809984, "memory_total_mib": 81559, "memory_source": "nvml",
       "mig_current": "disabled", "mig_pending": "enabled", "mig_source": "nvml",
       "pci_bus_id": "00000000:19:00.0", "pci_bus_id_source": "driver"}
CHECK = {"name": "coupled-release", "library": "cublasLt", "verdict": "warning",
         "reason": "cublasLt is of CUDA 12.4, cublas of 13.0"}
COPY = {"path": "/usr/lib/x86_64-linux-gnu/libcublas.so.13", "path_bytes": None,
        "real_path": "/usr/lib/x86_64-linux-gnu/libcublas.so.13.1.0.3", "real_path_bytes": None,
        "place": "ld.so cache", "places": "ld.so cache: /usr/lib/x86_64-linux-gnu/libcublas.so.13",
        "soname": "libcublas.so.13", "version": {"major": 13, "minor": 1, "patch": 0}, "version_source": "query",
        "version_detail": "cublasGetProperty", "release": "13.0", "chosen": True, "chosen_by": "system loader",
        "error": None}


UNREADABLE = {"file": "x", "file_bytes": None, "error": "not an ELF file", "verdict": "unreadable", "exit_status": 5}


def rename(section: dict, old: str, new: str) -> None:
    section[new] = section.pop(old)


DRIFTS = {
    "a driver key renamed": lambda r: rename(r["driver"], "release_source", "release_from"),
    "a driver source misspelled": lambda r: r["driver"].update(release_source="kernel"),
    "a GPU key renamed": lambda r: rename(r["gpus"][0], "memory_total_mib", "memory_mib"),
    "a MIG mode misspelled": lambda r: r["gpus"][0].update(mig_current="enable"),
    "a check key renamed": lambda r: rename(r["checks"][0], "verdict", "result"),
    "a verdict misspelled": lambda r: r["checks"][0].update(verdict="warn"),
    "a copy key renamed": lambda r: rename(r["copies"][0]["copies"][0], "chosen_by", "taken_by"),
    "a copy's version source misspelled": lambda r: r["copies"][0]["copies"][0].update(version_source="filename"),
    "a copy's version as text": lambda r: r["copies"][0]["copies"][0].update(version="13.1.0"),
    "two copies chosen": lambda r: r["copies"][0]["copies"].append(dict(COPY, path="/b", real_path="/b")),
    "no driver section": lambda r: r.pop("driver"),
    "no checks section": lambda r: r.pop("checks"),
    "a check section beside the report's": lambda r: r.update(check=UNREADABLE),
}


@pytest.mark.parametrize("drift", DRIFTS, ids=list(DRIFTS))
def test_the_schema_rejects_a_drifted_report(report: dict, drift: str) -> None:
    """A report with a GPU, a check and copies is valid; the same with one key renamed, one fixed word
    misspelled or one section missing or out of place is not."""
    good = json.loads(json.dumps({**report, "gpus": [GPU], "checks": [CHECK],
                                  "copies": [{"name": "cublas", "bound": True, "copies": [COPY]}]}))  # a deep copy
    VALIDATOR.validate(good)
    DRIFTS[drift](good)
    assert not VALIDATOR.is_valid(good), drift


def test_a_check_report_has_no_report_section(report: dict) -> None:
    """--check writes its section alone: libraries, driver, gpus, checks or copies beside it is not valid."""
    check = {"cubind_version": report["cubind_version"], "cubind_version_text": report["cubind_version_text"],
             "cuda_headers": report["cuda_headers"], "cuda_headers_text": report["cuda_headers_text"],
             "check": UNREADABLE}
    VALIDATOR.validate(check)
    for key in ("libraries", "driver", "gpus", "checks", "copies"):
        assert not VALIDATOR.is_valid({**check, key: report.get(key, [])}), key


def test_json_lists_every_library_in_order(report: dict) -> None:
    assert [lib["name"] for lib in report["libraries"]] == NAMES
    for lib in report["libraries"]:
        assert KEYS <= set(lib)


def text_of(version: dict | None) -> str | None:
    """{"major":13,"minor":0,"patch":null} -> "13.0"."""
    if version is None:
        return None
    parts = [version[k] for k in ("major", "minor", "patch")]
    known = parts[:parts.index(None)] if None in parts else parts
    assert all(p is None for p in parts[len(known):]), version  # no part known after an unknown one
    return ".".join(str(p) for p in known)


def test_versions_are_integers_beside_their_text(report: dict) -> None:
    major, minor, patch = header_version()
    assert report["cubind_version"] == {"major": major, "minor": minor, "patch": patch}
    assert report["cubind_version_text"] == f"{major}.{minor}.{patch}"
    assert text_of(report["cuda_headers"]) == report["cuda_headers_text"]
    for lib in report["libraries"]:
        assert text_of(lib["version"]) == lib["version_text"], lib["name"]
        assert text_of(lib["release"]) == lib["release_text"], lib["name"]
        assert ", ".join(text_of(r) for r in lib["releases"]) == lib["releases_text"]
        assert "-1" not in json.dumps(lib["version"])


def test_found_libraries_are_described(report: dict) -> None:
    for lib in report["libraries"]:
        if not lib["found"]:
            # "missing" and the version are told only of a library that was found
            assert lib["error"] and lib["path"] is None
            assert lib["missing"] is None and lib["not_callable"] is None
            assert lib["version"] is None and lib["version_source"] is None
            continue
        configured = LIBRARIES[lib["name"]]
        assert lib["path"].startswith("/") and lib["error"] is None
        assert lib["soname"] in configured.sonames
        if configured.soname_versioned:
            assert lib["version"]["major"] == int(lib["soname"].rsplit(".", 1)[1])
        assert lib["functions_found"] + len(lib["missing"]) == lib["functions"] > 0
        assert len(set(lib["missing"])) == len(lib["missing"])
        check_version_source(lib, configured)


def check_version_source(lib: dict, configured) -> None:
    """version_source is a fixed word; version_detail the function asked or the file name read."""
    if lib["version_source"] == "query":
        assert lib["version_detail"] == configured.version.function == lib["version_note"]
    elif lib["version_source"] == "file-name":
        assert lib["version_detail"] == Path(lib["real_path"]).name
        assert lib["version_detail"] in lib["version_note"]
        assert lib["version_text"] in lib["version_detail"]
    else:
        assert lib["version_source"] == "none" and lib["version"] is None and lib["version_detail"] is None


def block_of(text: str, name: str) -> str:
    """A library's block of the text report: from its name's line to the next blank line."""
    return text.split(f"\n\n{name:<11} ", 1)[1].split("\n\n", 1)[0]


def test_the_text_report_agrees(report: dict) -> None:
    text = probe()
    verbose = probe("--verbose")
    assert text.returncode == 0 and verbose.returncode == 0
    for lib in report["libraries"]:
        if lib["found"]:
            block = block_of(text.stdout, lib["name"])
            assert f"{lib['functions_found']} of {lib['functions']} callable" in block
            assert f"), called as CUDA {lib['release_text']}\n" in block
            assert f"releases these bindings know: {lib['releases_text']}" in block_of(verbose.stdout, lib["name"])
            states = {f["name"]: f for f in lib["not_callable"]}
            assert set(states) == set(lib["missing"])
            for name in lib["missing"]:  # --verbose names each, with why
                line = f"{states[name]['state']}: {name}"
                assert f"{line}\n" in verbose.stdout or f"{line} ({states[name]['reason']})\n" in verbose.stdout


def test_missing_functions_are_summed_up_per_library(tmp_path: Path) -> None:
    """Without --verbose a library's functions that cannot be called are one line per state: how many,
    the reason they share, the first three and how many more (issue 37: 46 lines of them pushed the
    driver section 100 lines down); the JSON lists each, as before."""
    env = mock_env(HALF_MOCK_DIR)
    report = validated(probe("--json", env=env).stdout)
    text = probe(env=env).stdout
    assert "functions: " in text
    for lib in report["libraries"]:
        block = block_of(text, lib["name"])
        by_state: dict[str, list[dict]] = {}
        for f in lib["not_callable"]:
            by_state.setdefault(f["state"], []).append(f)
        # the name, path and functions lines, one per state (and what the half mock's version says)
        lines = [line for line in block.splitlines() if not line.startswith(("    version query: ", "    mixed releases: "))]
        assert len(lines) <= 3 + len(by_state), block
        for state, functions in by_state.items():
            [line] = [line for line in lines if line.startswith(f"      {len(functions)} {state}")]
            first = ", ".join(f["name"] for f in functions[:3])
            assert first in line, (line, first)
            if len(functions) > 3:
                assert line.endswith(f" and {len(functions) - 3} more (--verbose lists each, with why)"), line
            if len({f["reason"] for f in functions}) == 1:
                assert f" {state} ({functions[0]['reason']}): " in line, line
    assert len(text.splitlines()) < len(probe("--verbose", env=env).stdout.splitlines())


def test_a_missing_library_is_reported_and_exit_is_zero() -> None:
    cufft_lib = LIBRARIES["cufft"]
    missing = f"/nonexistent/{cufft_lib.sonames[0]}"
    result = probe("--json", env={cufft_lib.env_var: missing})
    assert result.returncode == 0
    cufft = next(lib for lib in validated(result.stdout)["libraries"] if lib["name"] == "cufft")
    assert cufft["found"] is False and cufft["version"] is None and cufft["missing"] is None
    assert missing in cufft["error"]


def removed_by_the_newest() -> dict[str, list[str]]:
    """Per library, the functions its newest release removed (the IR: absent there), which cubind keeps
    from the release the library was first bound from and never calls on the newest's file."""
    removed: dict[str, list[str]] = {name: [] for name in LIBRARIES}
    for path in sorted((ROOT / "generated" / "ir").glob("*.json")):
        ir = json.loads(path.read_text())
        newest = ir["releases"][0]["name"]
        for f in ir["functions"]:
            if not f["releases"][newest]["declared"]:
                removed[f["library"]].append(f["name"])
    return removed


def test_on_the_mocks_every_function_is_callable() -> None:
    """Every function but those the newest release removed (nvJPEG 13's)."""
    env = mock_env(MOCK_DIR)
    result = probe("--json", env=env)
    assert result.returncode == 0, result.stderr
    removed_by = removed_by_the_newest()
    for lib in validated(result.stdout)["libraries"]:
        removed = removed_by[lib["name"]]
        assert lib["found"] and lib["path"] == env[LIBRARIES[lib["name"]].env_var]
        assert lib["missing"] == removed and lib["functions_found"] == lib["functions"] - len(removed)
        check_version_source(lib, LIBRARIES[lib["name"]])


def test_on_the_half_mocks_the_missing_functions_are_listed() -> None:
    result = probe("--json", env=mock_env(HALF_MOCK_DIR))
    assert result.returncode == 0, result.stderr
    text = probe("--verbose", env=mock_env(HALF_MOCK_DIR)).stdout
    for lib in validated(result.stdout)["libraries"]:
        assert lib["found"]
        if lib["functions"] > 1:  # the half mock exports every other symbol
            assert lib["missing"] and len(lib["missing"]) < lib["functions"], lib["name"]
        assert [f["name"] for f in lib["not_callable"]] == lib["missing"]
        for f in lib["not_callable"]:
            assert f"{f['state']}: {f['name']}" in text


def test_version_prints_both_versions() -> None:
    major, minor, patch = header_version()
    result = probe("--version")
    assert result.returncode == 0 and result.stderr == ""
    version = f"{major}.{minor}.{patch}"
    assert result.stdout.startswith(f"cubind-probe {version} (libcubind {version}, ")
    assert result.stdout.count("\n") == 1


def options_of(usage: str) -> set[str]:
    return set(re.findall(r"^  (?:-\w, )?(--[a-z-]+)", usage, re.MULTILINE))


def test_help_lists_every_option_and_exit_status() -> None:
    result = probe("--help")
    assert result.returncode == 0 and result.stdout.startswith("usage: cubind-probe")
    assert probe("-h").stdout == result.stdout
    options = options_of(result.stdout)
    assert {"--json", "--check", "--version", "--help"} <= options
    documented = (ROOT / "docs" / "probe.md").read_text()
    for option in options:  # docs/probe.md tells every option
        assert f"`{option}" in documented, option
    statuses = re.findall(r"^  (\d+)  ", result.stdout, re.MULTILINE)
    assert statuses == sorted(statuses, key=int) and statuses[:3] == ["0", "1", "2"]
    for status in statuses:  # and every exit status
        assert re.search(rf"^\| {status} \|", documented, re.MULTILINE), status


@pytest.mark.parametrize("args", [("--bogus",), ("--check",), ("--json=yes",), ("-x",), ("--jso",)])
def test_a_bad_command_line_exits_2(args: tuple) -> None:
    result = probe(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("cubind-probe: ")


def test_odd_bytes_in_a_path_keep_the_json_valid() -> None:
    result = probe("--json", env={"CUBIND_CURAND_PATH": "/nonexistent/\"quoted\"\\dir/libcurand.so.10"})
    curand = next(lib for lib in validated(result.stdout)["libraries"] if lib["name"] == "curand")
    assert '"quoted"' in curand["error"]


def test_an_ld_so_cache_that_is_a_fifo_does_not_block(tmp_path: Path) -> None:
    # opened for reading, a FIFO without a writer once blocked the probe for ever
    fifo = tmp_path / "ld.so.cache"
    os.mkfifo(fifo)
    result = probe("--json", env={"CUBIND_LD_SO_CACHE": str(fifo)})
    assert result.returncode == 0, result.stderr
    assert [lib["name"] for lib in validated(result.stdout)["libraries"]] == NAMES


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
    curand = next(lib for lib in validated(result.stdout)["libraries"] if lib["name"] == "curand")
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
    curand = next(lib for lib in validated(result.stdout.decode("utf-8"))["libraries"] if lib["name"] == "curand")
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


CHATTY_LIBRARY = r"""
#include <stdio.h>
/* As NVML's link-time stub does: a library that prints to standard output when it is loaded and asked. */
__attribute__((constructor)) static void loaded(void) { printf("\nWARNING: chatty library loaded\n"); }
int cufftGetProperty(int type, int *value) { printf("{ not json\n"); *value = type == 0 ? 12 : 0; return 0; }
"""


@pytest.mark.parametrize("args", [("--json",), ("--json", "--all")])
def test_a_library_that_prints_to_stdout_does_not_break_the_report(tmp_path: Path, args: tuple) -> None:
    """What a library the probe loads prints to standard output goes to standard error: the report,
    JSON included, stays whole."""
    source = tmp_path / "chatty.c"
    source.write_text(CHATTY_LIBRARY)
    library = tmp_path / LIBRARIES["cufft"].sonames[0]
    subprocess.run([*CC, "-shared", "-fPIC", f"-Wl,-soname,{library.name}", str(source), "-o", str(library)],
                   check=True)
    result = probe(*args, env={LIBRARIES["cufft"].env_var: str(library)})
    report = validated(result.stdout)
    assert "chatty library loaded" not in result.stdout and "not json" not in result.stdout
    assert "chatty library loaded" in result.stderr and "not json" in result.stderr
    cufft = next(lib for lib in report["libraries"] if lib["name"] == "cufft")
    assert cufft["path"] == str(library)


# --- the report leads with its verdict (issue 27) ----------------------------------------------

NO_DRIVER = {"CUBIND_DRIVER_PATH": "/nonexistent/libcuda.so.1", "CUBIND_NVML_PATH": "/nonexistent/libnvidia-ml.so.1"}


def test_the_first_lines_say_whether_cuda_work_can_run_and_why_not() -> None:
    report = validated(probe("--json", env=NO_DRIVER).stdout)
    assert report["machine"] == {"can_run_cuda": False, "gpu_count": 0, "reason": "no CUDA driver: libcuda not found",
                                 "driver_file": None, "driver_in_build": True}
    lines = probe(env=NO_DRIVER).stdout.splitlines()
    assert lines[1] == "this machine cannot run CUDA work: no CUDA driver: libcuda not found (where it was looked for: below)"
    # and on this machine, whatever it has: the headline agrees with the driver section
    report = validated(probe("--json").stdout)
    second = probe().stdout.splitlines()[1]
    if report["machine"]["can_run_cuda"]:
        assert report["driver"]["gpu_count"] and second.startswith("this machine can run CUDA work: ")
    else:
        assert second.startswith(f"this machine cannot run CUDA work: {report['machine']['reason']}")


def test_the_places_tried_for_libcuda_and_nvml_are_listed_once() -> None:
    text = probe(env=NO_DRIVER).stdout
    for lib in ("driver", "nvml"):
        variable = LIBRARIES[lib].env_var
        assert text.count(f"tried: {variable}=") == 1, (lib, text)
    assert "(the places tried: under driver above)" in text and "(the places tried: under nvml above)" in text


def test_a_cuda_root_step_is_labelled(tmp_path: Path) -> None:
    """CUDA_HOME's directories are said as that step's, never as a bare path like the default root's."""
    env = {k: v for k, v in os.environ.items() if k != LIBRARIES["driver"].env_var}
    result = subprocess.run([str(PROBE), "--json", "driver"], capture_output=True, text=True, timeout=60,
                            env={**env, "CUDA_HOME": str(tmp_path)})
    report = validated(result.stdout)
    [driver] = report["libraries"]
    assert f"; CUDA_HOME: {tmp_path}/{{" in driver["error"], driver["error"]


def shared_reason(check: dict, sonames: dict[str, str]) -> str:
    """A check's reason with its library's file name ("libcublas") replaced by "each", as the text does."""
    stem = sonames[check["library"]].split(".so")[0]
    return re.sub(rf"{re.escape(stem)}(?![A-Za-z0-9_.])", "each", check["reason"], count=1)


def test_repeated_findings_are_grouped() -> None:
    """The same check of several libraries with the same reason but for the library's name is one line;
    without --verbose, the checks that are ok are one line (each name once, with how many)."""
    report = validated(probe("--json", env=NO_DRIVER).stdout)
    text = probe("--verbose", env=NO_DRIVER).stdout
    short = probe(env=NO_DRIVER).stdout.splitlines()
    counts = {v: sum(c["verdict"] == v for c in report["checks"]) for v in ("error", "warning", "ok")}
    said = ", ".join(f"{n} {v}{'s' if n != 1 and v != 'ok' else ''}" for v, n in counts.items())
    assert f"checks      {len(report['checks'])} checks: {said}" in short
    [ok] = [line for line in short if line.startswith("    ok       ")]
    for name in dict.fromkeys(c["name"] for c in report["checks"] if c["verdict"] == "ok"):
        assert f" {name} ({sum(c['name'] == name and c['verdict'] == 'ok' for c in report['checks'])})" in ok, ok
    assert len(short) < len(text.splitlines())
    sonames = {lib["name"]: lib["soname"] for lib in report["libraries"] if lib["found"]}
    groups: dict[tuple, list[str]] = {}
    for c in report["checks"]:
        if c["library"] in sonames:
            key = (c["verdict"], c["name"], shared_reason(c, sonames))
            if key[2] != c["reason"]:
                groups.setdefault(key, []).append(c["library"])
    grouped = {k: v for k, v in groups.items() if len(v) > 1}
    assert grouped, "no check repeated: nothing to group here"  # the driver's release is unknown for each
    for (verdict, name, reason), libraries in grouped.items():
        line = f"    {verdict:<8} {name}, {len(libraries)} libraries ({', '.join(libraries)}): {reason}"
        assert line in text.splitlines(), line
        for library in libraries:
            assert f"    {verdict:<8} {library} {name}: " not in text


def test_a_library_argument_limits_the_report() -> None:
    name = next(n for n in NAMES if n not in ("driver", "nvml"))
    report = validated(probe("--json", name).stdout)
    assert [lib["name"] for lib in report["libraries"]] == [name]
    assert {c["library"] for c in report["checks"]} <= {name, None}
    text = probe(name).stdout
    section = r" +(lib\S*\.so\S*  version|not found \()"  # a library's first line in the libraries' section
    assert re.search(rf"^{re.escape(name)}{section}", text, re.MULTILINE)
    assert not [n for n in NAMES if n != name and re.search(rf"^{re.escape(n)}{section}", text, re.MULTILINE)]
    result = probe("no-such-library")
    assert result.returncode == 2 and result.stdout == "" and "no-such-library" in result.stderr


def test_a_cuda_path_under_which_nothing_is_found_says_so(tmp_path: Path) -> None:
    name = next(n for n in NAMES if n not in ("driver", "nvml"))
    text = probe("--cuda-path", str(tmp_path), name).stdout
    assert f"--cuda-path {tmp_path}: none of these libraries is found under it" in text
