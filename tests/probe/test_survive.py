"""cubind-probe survives the libraries it inspects (issue 36): a library whose version query crashes,
hangs or lies is reported as such (`version_error`), and the rest of the report is whole, in text, in
JSON and with --all; names the user gives are printed escaped.

The fixture libraries are made from the configuration: for each library with a version query, a
file of its soname that defines the query (and its init and fini, where it has them) with a body
that dereferences NULL, sleeps, or answers numbers that are no version. Nothing here names a
library, a soname or a function.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from test_probe import LIBRARIES, NAMES, ROOT, mock_soname, probe, validated

SANITIZED = "-fsanitize" in os.environ.get("CUBIND_TEST_CC", "")
QUERIED = [lib for lib in LIBRARIES.values() if lib.version.function]


def takes_no_parameter(function: str) -> bool:
    """Whether the IR declares `function` without parameters (an encoded version it returns)."""
    for unit in (ROOT / "generated" / "ir").glob("*.json"):
        for f in json.loads(unit.read_text())["functions"]:
            if f["name"] == function:
                return not f["params"]
    return False


def parameters(lib) -> str:
    """The parameters of `lib`'s version query, by its kind (its answer is written through them)."""
    if lib.version.kind == "encoded" and takes_no_parameter(lib.version.function):
        return "void"
    return {"property": "int type, int *value", "encoded": "int *value", "major-minor": "int *major, int *minor"}[
        lib.version.kind]


def negative(lib) -> str:
    """A body that answers a version whose major is negative, in the way of the library's kind (an
    encoded one returned is read unsigned: a major of millions, which its soname contradicts)."""
    kind, encoding = lib.version.kind, lib.version.encoding
    if kind == "property":
        return "*value = type == 0 ? -7 : 1; return 0;"
    if kind == "encoded" and parameters(lib) == "void":
        return f"return -7L * {encoding[0]};"
    if kind == "encoded":
        return f"*value = -7 * {encoding[0]}; return 0;"
    return "*major = -7; *minor = 1; return 0;"


BODIES = {
    "crashes": lambda lib: "return *(volatile int *)0;",
    "hangs": lambda lib: "for (;;) sleep(1000);",
    "lies": negative,
}


def fixture_library(directory: Path, lib, how: str) -> Path:
    """A library of `lib`'s soname whose version query `how` (BODIES); its init and fini succeed."""
    declared = parameters(lib) if how == "lies" else "void"
    returns = "long" if declared == "void" and how == "lies" else "int"
    source = directory / f"{lib.name}.c"
    text = "#include <unistd.h>\n"
    for hook in (lib.version.init, lib.version.fini):
        if hook:
            text += f"int {hook}(void) {{ return 0; }}\n"
    text += f"{returns} {lib.version.function}({declared}) {{ {BODIES[how](lib)} }}\n"
    source.write_text(text)
    out = directory / mock_soname(lib)
    subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{out.name}", "-w", str(source), "-o", str(out)], check=True)
    return out


def environment(directory: Path, how: str, libraries) -> dict[str, str]:
    directory.mkdir(exist_ok=True)
    return {lib.env_var: str(fixture_library(directory, lib, how)) for lib in libraries}


def by_name(report: dict) -> dict[str, dict]:
    return {lib["name"]: lib for lib in report["libraries"]}


@pytest.fixture(scope="module")
def crashing(tmp_path_factory) -> dict[str, str]:
    return environment(tmp_path_factory.mktemp("crashing"), "crashes", QUERIED)


@pytest.mark.parametrize("args", [("--json",), ("--json", "--all")])
def test_a_query_that_crashes_is_reported_and_the_report_is_whole(crashing: dict, args: tuple) -> None:
    """Every library's query dereferences NULL: the report (exit 0, valid JSON) lists every library,
    each found, its version read from its file name (unknown for one serving every release), and says why for each."""
    result = probe(*args, env=crashing)
    assert result.returncode == 0, result.stderr
    report = validated(result.stdout)
    assert [lib["name"] for lib in report["libraries"]] == NAMES
    libraries = by_name(report)
    for lib in QUERIED:
        got = libraries[lib.name]
        # a library serving every release (the driver, NVML): its file name tells no version
        # (libcuda.so.1), so its version is unknown and it is called as the newest release
        assert got["found"] or not lib.serves_every_release, got
        if got["found"]:  # else refused: a file name that tells no release it can be called as (libcufile.so.0)
            assert got["path"] == crashing[lib.env_var], got
            source = "none" if lib.serves_every_release else "file-name"
            assert got["version_source"] == source and lib.version.function in got["version_note"], got
        error = got["version_error"]
        assert error and "version query" in error, got
        if not SANITIZED:  # under a sanitizer the child reports the fault itself and exits
            assert "signal 11" in error, error
    assert "driver" in report and "checks" in report
    if "--all" in args:
        assert [entry["name"] for entry in report["copies"]][:len(NAMES)] == NAMES


def test_the_text_report_of_crashing_queries_is_whole(crashing: dict) -> None:
    result = probe(env=crashing)
    assert result.returncode == 0, result.stderr
    for lib in QUERIED:
        block = result.stdout.split(f"\n\n{lib.name:<11} ", 1)[1].split("\n\n", 1)[0]
        assert "\n    version query: loading it and asking its version query " in block, block
    assert "\nchecks " in result.stdout


def test_a_query_that_hangs_is_abandoned(tmp_path: Path) -> None:
    """A query that never returns is given 10 s, then reported; the report is whole."""
    lib = QUERIED[0]
    env = environment(tmp_path, "hangs", [lib])
    result = probe("--json", env=env)
    assert result.returncode == 0, result.stderr
    report = validated(result.stdout)
    got = by_name(report)[lib.name]
    assert got["found"] and got["version_source"] == "file-name"
    assert "did not end within 10 s" in got["version_error"], got
    assert [entry["name"] for entry in report["libraries"]] == NAMES


def test_a_query_that_lies_is_reported(tmp_path: Path) -> None:
    """Every library's query answers a negative major: each found library says so."""
    env = environment(tmp_path, "lies", QUERIED)
    result = probe("--json", env=env)
    assert result.returncode == 0, result.stderr
    libraries = by_name(validated(result.stdout))
    for lib in QUERIED:
        got = libraries[lib.name]
        if got["found"]:
            assert got["version_error"], got
            assert "not a version" in got["version_error"] or "contradicts its soname" in got["version_error"], got


def test_a_major_the_soname_contradicts_is_reported(tmp_path: Path) -> None:
    lib = next(lib for lib in QUERIED if lib.soname_versioned and lib.version.kind == "property")
    source = tmp_path / "liar.c"
    source.write_text(f"int {lib.version.function}(int type, int *value) {{ *value = type == 0 ? 1000 : 0; return 0; }}\n")
    out = tmp_path / mock_soname(lib)
    subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{out.name}", str(source), "-o", str(out)], check=True)
    got = by_name(validated(probe("--json", lib.name, env={lib.env_var: str(out)}).stdout))[lib.name]
    assert "contradicts its soname" in got["version_error"], got


def test_a_good_query_has_no_error() -> None:
    for lib in validated(probe("--json").stdout)["libraries"]:
        if lib["found"] and lib["version_source"] == "query":
            assert lib["version_error"] is None, lib


@pytest.mark.parametrize("argument", ["\x1b[2J", "--\x1b[2J", "--check=\x1b]0;x\x07"])
def test_names_the_user_gives_are_printed_escaped(argument: str) -> None:
    """An unknown library or option, or a file, named with control characters: written as \\xNN."""
    for args in ((argument,), ("--json", argument)):
        result = probe(*args)
        assert "\x1b" not in result.stderr + result.stdout and "\x07" not in result.stderr + result.stdout, result
        assert "\\x1b" in result.stderr + result.stdout or "\\u001b" in result.stdout, result
