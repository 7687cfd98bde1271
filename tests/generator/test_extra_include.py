"""A unit whose headers a toolkit may lack (toolkit_may_lack: nvJPEG, nvFatbin, NVML and cuFile, which
the CPU machines' partial CUDA 13.0 lacks), on the release fixtures (tests/fixtures/releases).

The fixture toolkit (cuda/) has no ext.h: its newest release, 3.0, is in extra/, given with
--extra-include; 2.0 and 1.0 are in the releases cache, and 1.0 is the release the unit was first
bound from (first_release). Read from extra/, the unit is newest in 3.0 and the older releases'
differences are data: a function 3.0 removed stays bound, `absent` in 3.0, at its place; one added
later is `absent` before. Without extra/, the unit is taken from an IR (--fallback-ir) and the
generator says so; the tests that compile NVIDIA's headers are told to leave it out.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator import config, model, release_calls, release_headers
from generator.release_rules import Code

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "releases"
CONFIG_PATH = ROOT / "tests" / "fixtures" / "releases.toml"
EXTRA = FIXTURES / "extra"


def _run(action: str, out: Path, *more: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "generator", action, "--cuda-path", str(FIXTURES / "cuda"),
                           "--config", str(CONFIG_PATH), "--releases-cache", str(FIXTURES / "cache"),
                           "--out", str(out), *more], cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("extra") / "generated"
    result = _run("generate", out, "--extra-include", str(EXTRA))
    assert result.returncode == 0, result.stderr
    assert f"ext: read from CUDA 3.0's headers ({EXTRA})" in result.stdout
    return out


@pytest.fixture(scope="module")
def ir(generated: Path) -> dict:
    return json.loads((generated / "ir" / "ext.json").read_text())


def _function(ir: dict, name: str) -> dict:
    return next(f for f in ir["functions"] if f["name"] == name)


def test_the_unit_is_read_from_the_newest_headers_that_exist(ir: dict) -> None:
    """The releases read, newest first, each with the unit's own version (library_versions: ext.h has
    no version macro) and where it came from (the packages; none for the newest)."""
    assert [r["name"] for r in ir["releases"]] == ["3.0", "2.0", "1.0"]
    assert [tuple(r["library_version"].values()) for r in ir["releases"]] == [(7, 3, 0), (7, 2, 1), (7, 1, 0)]
    assert ir["releases"][0]["packages"] == [] and ir["releases"][2]["packages"] == ["rel-dev=1.0.7-1"]
    assert ir["header_version"] == "7.3.0"


def test_the_first_releases_functions_keep_their_places(ir: dict) -> None:
    """1.0's functions in 1.0's order (the library's slots), then what it lacks in 3.0's order."""
    assert [f["name"] for f in ir["functions"]] == ["extGetVersion", "extAlpha", "extRemoved", "extBeta", "extNew",
                                                   "extMiddle"]


def test_a_removed_function_is_absent_in_the_newest_and_an_added_one_before(ir: dict) -> None:
    removed = _function(ir, "extRemoved")
    assert {r: (e["compat"], e["action"], e["call_symbol"]) for r, e in removed["releases"].items()} == {
        "3.0": ("absent", "absent", None), "2.0": ("identical", "call", "extRemoved"),
        "1.0": ("identical", "call", "extRemoved")}
    assert not removed["releases"]["3.0"]["declared"] and removed["added_in"] == "1.0"
    assert removed["releases"]["2.0"]["signature"] == "extStatus_t (int)"  # the last release that has it
    assert [(r, e["action"]) for r, e in _function(ir, "extNew")["releases"].items()] == [
        ("3.0", "call"), ("2.0", "absent"), ("1.0", "absent")]
    assert _function(ir, "extNew")["added_in"] == "3.0" and _function(ir, "extMiddle")["added_in"] == "2.0"


def test_the_newest_release_table_refuses_what_it_removed(ir: dict) -> None:
    """The loader's table (generator/release_calls.py): the newest release has one entry, the removed
    function ABSENT, saying after which release it was removed; 2.0 and 1.0 lack what came later."""
    functions = ir["functions"]
    plan = release_calls.plan(functions, [ir] * len(functions), "3.0", (7, 3, 0))
    index = {f["name"]: i for i, f in enumerate(functions)}
    newest = plan.calls_in("3.0")
    assert list(newest) == [index["extRemoved"]]
    assert newest[index["extRemoved"]].action is Code.ABSENT
    assert "removed after CUDA 2.0" in plan.strings[plan.strings.index(newest[index["extRemoved"]].reason)]
    assert {i: e.action for i, e in plan.calls_in("1.0").items()} == {index["extNew"]: Code.ABSENT,
                                                                      index["extMiddle"]: Code.ABSENT}
    assert "added in CUDA 3.0" in plan.calls_in("2.0")[index["extNew"]].reason


def test_the_passthrough_test_expects_no_call_of_a_removed_function(generated: Path) -> None:
    """The newest's entry reaches the generated test (NULL: CUBIND_TEST_RELEASE unset) and its count of
    what the library cannot call."""
    text = (generated / "tests" / "passthrough_ext.c").read_text()
    assert "{NULL /* CUDA 3.0, the newest */, CUBIND__RELEASE_ABSENT" in text
    assert "return 1; /* the newest: what it removed */" in text


def test_without_its_headers_the_unit_comes_from_the_ir_saying_so(generated: Path, tmp_path: Path) -> None:
    """No --extra-include: the same files, the unit taken from the IR; `check` says the same."""
    result = _run("generate", tmp_path / "out", "--fallback-ir", str(generated / "ir"))
    assert result.returncode == 0, result.stderr
    assert (f"ext: taken from {generated / 'ir' / 'ext.json'} (read from CUDA 3.0's headers): ext.h not in "
            f"{FIXTURES / 'cuda' / 'include'} and no CUDA_EXTRA_INCLUDE") in result.stdout
    files = sorted(p.relative_to(generated) for p in generated.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "out") for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert all((generated / f).read_bytes() == (tmp_path / "out" / f).read_bytes() for f in files)
    checked = _run("check", generated, "--fallback-ir", str(generated / "ir"))
    assert checked.returncode == 0 and "ext: taken from" in checked.stdout and "is up to date" in checked.stdout


def test_without_its_headers_nor_an_ir_of_its_release_the_generator_fails(generated: Path, tmp_path: Path) -> None:
    missing = _run("generate", tmp_path / "out", "--fallback-ir", str(tmp_path / "none"))
    assert missing.returncode == 2 and "ext.json is missing" in missing.stderr
    older = tmp_path / "older"
    shutil.copytree(generated / "ir", older)
    ir = json.loads((older / "ext.json").read_text())
    ir["releases"][0]["name"] = "2.9"
    (older / "ext.json").write_text(json.dumps(ir))
    stale = _run("generate", tmp_path / "out", "--fallback-ir", str(older))
    assert stale.returncode == 2 and "was read from CUDA 2.9's, not the toolkit's 3.0" in stale.stderr
    assert not (tmp_path / "out").exists()


def test_tests_that_compile_nvidias_headers_leave_out_a_unit_without_them() -> None:
    fixture = config.load(CONFIG_PATH)
    cuda = FIXTURES / "cuda"
    assert [u.name for u in release_headers.without_headers(fixture, cuda, None)] == ["ext"]
    assert release_headers.unit_includes(fixture, cuda, None) == ["-DCUBIND_TEST_WITHOUT_ext"]
    assert release_headers.without_headers(fixture, cuda, EXTRA) == []
    assert release_headers.unit_includes(fixture, cuda, EXTRA) == [f"-idirafter {EXTRA}"]
    # where the toolkit has them, it is its own that count
    toolkit = FIXTURES / "cache" / "2.0"  # a "toolkit" that has ext.h
    assert release_headers.newest_headers(fixture.unit("ext"), toolkit, EXTRA) == toolkit / "include"
    assert release_headers.extra_include({"CUDA_EXTRA_INCLUDE": "/x"}) == Path("/x")
    assert release_headers.extra_include({"CUDA_EXTRA_INCLUDE": ""}) is None


def test_slots_of_the_first_release_name_its_symbols() -> None:
    """A function the first release calls under another symbol with the same ABI (renamed) is named so
    in the slots layout a program built then reads (model._as_first_bound)."""
    fixture = config.load(CONFIG_PATH)
    f = {"name": "extAlpha", "symbol": "extAlpha_v2",
         "releases": {"3.0": {"compat": "identical", "symbol": "extAlpha_v2"},
                      "1.0": {"compat": "renamed", "symbol": "extAlpha"}}}
    refused = f | {"releases": {"1.0": {"compat": "signature", "symbol": "extAlpha"}}}
    as_bound = model._as_first_bound(fixture, [f, refused], [{"unit": "ext"}] * 2)
    assert [g["symbol"] for g in as_bound] == ["extAlpha", "extAlpha_v2"]


@pytest.mark.parametrize("change, message", [
    (('first_release = "1.0"', 'first_release = "0.5"'), "first_release '0.5' is not a configured release"),
    (("version_macros = []\ntoolkit_may_lack", 'version_macros = ["EXT_MAJOR"]\ntoolkit_may_lack'),
     "library_versions are for headers without version macros"),
    (('"1.0" = "7.1.0"', '"1.0" = "7.x"'), "is not major.minor.patch"),
])
def test_a_units_releases_are_checked(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    text = CONFIG_PATH.read_text()
    assert change[0] in text
    broken = tmp_path / "broken.toml"
    broken.write_text(text.replace(change[0], change[1], 1))
    with pytest.raises(config.ConfigError, match=message):
        config.load(broken)
