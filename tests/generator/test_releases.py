"""How the generator compares CUDA releases (docs/releases.md), on fixture headers written for it.

tests/fixtures/releases holds a fake library "rel" in three releases: 3.0, the newest (cuda/, given
as --cuda-path), and 2.0 and 1.0 (cache/, as the releases cache holds them). Each function of
rel.h differs from the newest in one way a real release does; each is checked in the IR the
generator writes. A second unit, "solo", is covered by no older release.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from generator import config, release_compare, release_headers, release_ir

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "releases"
CONFIG_PATH = ROOT / "tests" / "fixtures" / "releases.toml"
CACHE = FIXTURES / "cache"
SCHEMA = json.loads((ROOT / "ir.schema.json").read_text())


def _generate(out: Path, cache: Path = CACHE) -> subprocess.CompletedProcess:
    # extra/: the headers of the unit the fixture toolkit lacks (ext, tests/generator/test_extra_include.py)
    return subprocess.run([sys.executable, "-m", "generator", "generate", "--cuda-path", str(FIXTURES / "cuda"),
                           "--config", str(CONFIG_PATH), "--releases-cache", str(cache), "--out", str(out),
                           "--extra-include", str(FIXTURES / "extra")],
                          cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("releases") / "generated"
    result = _generate(out)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def ir(generated: Path) -> dict:
    return json.loads((generated / "ir" / "rel.json").read_text())


def _function(ir: dict, name: str) -> dict:
    return next(f for f in ir["functions"] if f["name"] == name)


# name -> (compat in 2.0, action in 2.0, call_symbol in 2.0, equivalent in 2.0, what the reason must say)
CASES = {
    "relIdentical": ("identical", "call", "relIdentical", None, None),
    "relRenamed": ("renamed", "call", "relRenamed_2_0", None, "relRenamed_2_0"),
    "relGetProps": ("layout", "adapt", "relGetProps", None, "struct relProps is 8 bytes in CUDA 2.0, 24 in CUDA 3.0"),
    "relCapture": ("signature", "equivalent", "relCapture_v2", "relCapture_v2", "2 parameters in CUDA 2.0, 3 in CUDA 3.0"),
    # the parameter the older form lacks, by name (the lists aligned by type)
    "relLaunch": ("signature", "refuse", None, None, "1 parameter in CUDA 2.0, 2 in CUDA 3.0: b only in CUDA 3.0's"),
    "relNew": ("absent", "absent", None, None, "not declared"),
    "relSetValue": ("identical", "call", "relSetValue", None, None),
    "relConfigure": ("signature", "refuse", None, None, "contains a pointer to a record whose layout differs"),
    # the parameter, a handle to the state the caller allocates, named
    "relStateInit_internal": ("signature", "refuse", None, None,
                              "parameter state (relState_t) reaches relStateOpaque_t (the library's opaque state"),
    "relStateUse": ("identical", "call", "relStateUse", None, None),
    "relConstness": ("identical", "call", "relConstness", None, None),
    # the reason names the entry point the older release has, the parameter and the union's member
    "relAddNode": ("signature", "refuse", None, None,
                   "the CUDA 3.0 form cannot be called: CUDA 2.0 has relAddNode_v2 with the CUDA 3.0 parameters, but "
                   "parameter params (struct "
                   "relNodeParams *) reaches struct relNodeParams.u: union member kernel differs"),
    # the one place that decides whether a record converts names the field it cannot
    "relGetInfo": ("signature", "refuse", None, None,
                   "the CUDA 3.0 form cannot be called: CUDA 2.0 has relGetInfo with the CUDA 3.0 parameters, but "
                   "parameter info (struct relInfo): "
                   "field relInfo.flags is 8 bytes in one release, 4 in the other"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_function_is_classified_against_the_newest(ir: dict, name: str) -> None:
    expected_compat, expected_action, expected_call, expected_equivalent, reason = CASES[name]
    entry = _function(ir, name)["releases"]["2.0"]
    assert entry["compat"] == expected_compat
    assert entry["action"] == expected_action
    assert entry["call_symbol"] == expected_call
    assert entry["equivalent"] == expected_equivalent
    assert "adapter" not in entry  # the action says it
    assert ("conversions" in entry) == (expected_action == "adapt")
    assert entry["declared"] == (expected_compat != "absent")
    if reason is None:
        assert entry["reason"] is None
    else:
        assert reason in entry["reason"], entry["reason"]


def test_an_adapted_function_lists_its_conversions(ir: dict) -> None:
    entry = _function(ir, "relGetProps")["releases"]["2.0"]
    assert entry["conversions"] == [{"param": "props", "record": "struct relProps"}]


def test_the_newest_release_is_identical_to_itself(ir: dict) -> None:
    for function in ir["functions"]:
        newest = function["releases"]["3.0"]
        assert (newest["compat"], newest["action"], newest["call_symbol"], newest["symbol"]) == \
            ("identical", "call", function["symbol"], function["symbol"])


def test_symbols_and_signatures_are_each_releases_own(ir: dict) -> None:
    renamed = _function(ir, "relRenamed")["releases"]
    assert [renamed[r]["symbol"] for r in ("3.0", "2.0", "1.0")] == ["relRenamed_3_0", "relRenamed_2_0", None]
    capture = _function(ir, "relCapture")["releases"]
    assert capture["2.0"]["signature"] == "relStatus_t (int, int *)"
    assert capture["3.0"]["signature"] == "relStatus_t (int, int *, int *)"
    # an equivalent must exist in that release: 1.0 has no relCapture_v2, so the call is refused
    assert (capture["1.0"]["compat"], capture["1.0"]["equivalent"], capture["1.0"]["call_symbol"]) == \
        ("signature", None, None)
    # the signature keeps its qualifiers; the comparison ignores them
    constness = _function(ir, "relConstness")["releases"]
    assert constness["2.0"]["signature"] != constness["3.0"]["signature"]


def test_added_in_and_changed_in(ir: dict) -> None:
    history = {f["name"]: (f["added_in"], f["changed_in"]) for f in ir["functions"]}
    assert history["relIdentical"] == ("1.0", [])
    assert history["relGetProps"] == ("1.0", ["3.0"])
    assert history["relCapture"] == ("1.0", ["3.0"])
    assert history["relRenamed"] == ("2.0", [])
    assert history["relNew"] == ("3.0", [])


def test_records_are_laid_out_per_release(ir: dict) -> None:
    records = ir["release_records"]
    assert [records[r]["struct relProps"]["size"] for r in ("3.0", "2.0", "1.0")] == [24, 8, 8]
    assert [(f["name"], f["offset"]) for f in records["3.0"]["struct relProps"]["fields"]] == \
        [("a", 0), ("c", 8), ("b", 16)]
    assert [(f["name"], f["offset"]) for f in records["2.0"]["struct relProps"]["fields"]] == [("a", 0), ("b", 4)]
    # a release stores only the layouts that differ from the newest's: relConfig is 3.0's in 2.0
    assert "struct relConfig" not in records["2.0"] and "struct relProps" in records["2.0"]
    config_fields = release_ir.records_in(ir, "2.0")["struct relConfig"]["fields"]
    assert config_fields[0]["kind"] == "pointer" and config_fields[0]["pointee"] == "struct relProps"
    # a member declared in place is named after the record and the field that hold it
    assert "union relValue.pair" in records["3.0"] and "union relValue.pair" not in records["2.0"]
    # every record a function lists is laid out in that release
    for function in ir["functions"]:
        for release in function["releases"]:
            entry = release_ir.function_in(function, release, "3.0")
            assert set(entry["records"]) <= set(release_ir.records_in(ir, release))


def test_a_release_stores_only_what_differs_from_the_newest(ir: dict) -> None:
    identical = _function(ir, "relIdentical")["releases"]["2.0"]
    assert "signature" not in identical and "records" not in identical and "enums" not in identical
    capture = _function(ir, "relCapture")["releases"]["2.0"]
    assert capture["signature"] == "relStatus_t (int, int *)"  # differs: stored
    assert release_ir.function_in(_function(ir, "relIdentical"), "2.0", "3.0")["signature"] == \
        _function(ir, "relIdentical")["releases"]["3.0"]["signature"]


def test_handles_are_not_followed_except_for_caller_storage(ir: dict) -> None:
    assert release_ir.function_in(_function(ir, "relStateUse"), "2.0", "3.0")["records"] == []
    assert release_ir.function_in(_function(ir, "relStateInit_internal"), "2.0", "3.0")["records"] == ["relStateOpaque_t"]


def test_release_changes_list_dropped_renumbered_and_missing_values(ir: dict) -> None:
    changes = ir["release_changes"]["2.0"]
    assert changes["enumerators"] == {
        "dropped": [{"name": "REL_MODE_OLD", "enum": "relMode", "value": 5}],
        "renumbered": [{"name": "REL_MODE_C", "enum": "relMode", "value": 1, "newest_value": 2}],
        "missing": [{"name": "REL_MODE_B", "enum": "relMode", "value": 1}],
    }
    constants = changes["constants"]
    assert {c["name"] for c in constants["dropped"]} == {"REL_OLD_FLAG"}
    assert {c["name"]: (c["value"], c["newest_value"]) for c in constants["renumbered"]}["REL_MAX_ITEMS"] == (4, 8)
    assert {c["name"] for c in constants["missing"]} == {"REL_NEW_FLAG"}
    assert set(ir["release_changes"]) == {"2.0", "1.0"}


def test_unit_releases_carry_versions_and_packages(ir: dict) -> None:
    fixture = config.load(CONFIG_PATH)
    listed = ir["releases"]
    assert [r["name"] for r in listed] == ["3.0", *(r.name for r in fixture.releases)]
    assert [r["cuda_version"] for r in listed] == [3000, 2000, 1000]
    assert [tuple(r["library_version"].values()) for r in listed] == [(3, 1, 2), (2, 5, 0), (1, 0, 7)]
    assert listed[0]["packages"] == []
    assert listed[1]["packages"] == [p.pinned for p in fixture.releases[0].headers]


def test_a_unit_no_release_covers_is_single_release(generated: Path) -> None:
    solo = json.loads((generated / "ir" / "solo.json").read_text())
    assert [r["name"] for r in solo["releases"]] == ["3.0"]
    assert all(list(f["releases"]) == ["3.0"] and f["added_in"] == "3.0" for f in solo["functions"])
    assert solo["release_changes"] == {}


def test_the_ir_validates_and_names_no_path(generated: Path) -> None:
    validator = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
    for path in sorted((generated / "ir").glob("*.json")):
        text = path.read_text()
        errors = list(validator.iter_errors(json.loads(text)))
        assert not errors, errors[0].message
        assert str(CACHE) not in text and str(FIXTURES) not in text and "(anonymous at" not in text


def test_generating_again_gives_the_same_bytes(generated: Path, tmp_path: Path) -> None:
    result = _generate(tmp_path / "again")
    assert result.returncode == 0, result.stderr
    for path in sorted((generated / "ir").glob("*.json")):
        assert (tmp_path / "again" / "ir" / path.name).read_bytes() == path.read_bytes()


def test_a_missing_release_names_the_fetch(tmp_path: Path) -> None:
    result = _generate(tmp_path / "out", cache=tmp_path / "empty")
    assert result.returncode == 2
    assert "make fetch-releases" in result.stderr
    assert not (tmp_path / "out").exists()


def test_the_cache_is_where_the_environment_says() -> None:
    assert release_headers.cache_root({"CUBIND_RELEASES_CACHE": "/x/y"}) == Path("/x/y")
    assert release_headers.cache_root({"XDG_CACHE_HOME": "/c", "HOME": "/h"}) == Path("/c/cubind/releases")
    assert release_headers.cache_root({"HOME": "/h"}) == Path("/h/.cache/cubind/releases")


def test_the_fetch_plan_lists_every_configured_package() -> None:
    fixture = config.load(CONFIG_PATH)
    lines = release_headers.plan(fixture, "headers")
    assert len(lines) == sum(len(r.headers) for r in fixture.releases)
    assert all(len(line.split("\t")) == 7 for line in lines)
    assert release_headers.plan(fixture, "libraries") == []


def test_the_sources_allow_an_expired_release_file_only_where_configured(tmp_path: Path) -> None:
    """A release with extra_suites and check_valid_until = false (CUDA 12.5 from Debian's experimental,
    its CCCL from sid): one source line per suite, each with check-valid-until=no; the other release's
    lines as apt has them. Each line is signed by the release's keyring."""
    text = CONFIG_PATH.read_text()
    marker = 'name = "2.0"\nsuite = "fixture"\n'
    assert marker in text
    configured = tmp_path / "releases.toml"
    configured.write_text(text.replace(marker, marker + 'extra_suites = ["fixture-base"]\ncheck_valid_until = false\n', 1))
    fixture = config.load(configured)
    newer, older = fixture.release("2.0"), fixture.release("1.0")
    keyring = "signed-by=/usr/share/keyrings/debian-archive-keyring.gpg"
    assert release_headers.sources(newer) == [
        f"deb [{keyring} check-valid-until=no] http://deb.debian.org/debian fixture non-free",
        f"deb [{keyring} check-valid-until=no] http://deb.debian.org/debian fixture-base non-free"]
    assert release_headers.sources(older) == [f"deb [{keyring}] http://deb.debian.org/debian fixture non-free"]
    # what tools/fetch-cuda-releases.sh writes into the release's sources.list
    done = subprocess.run([sys.executable, "-m", "generator.release_headers", "sources", "1.0"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2 and "no release named '1.0'" in done.stderr  # not a release of the real configuration
    for release in config.load().releases:
        done = subprocess.run([sys.executable, "-m", "generator.release_headers", "sources", release.name], cwd=ROOT,
                              capture_output=True, text=True, check=True)
        lines = done.stdout.splitlines()
        assert [line.split()[-1 - len(release.components)] for line in lines] == list(release.suites)
        assert all(("check-valid-until=no" in line) == (not release.check_valid_until) for line in lines)


def test_compatible_layouts() -> None:
    def record(kind: str, size: int, *fields: tuple[str, int, int, str]) -> dict:
        return {"kind": kind, "size": size, "align": 4,
                "fields": [{"name": n, "offset": o, "size": s, "kind": k, "record": None, "pointee": None, "bits": None}
                           for n, o, s, k in fields]}
    older = record("union", 8, ("i", 0, 4, "scalar"))
    assert release_compare.compatible(older, record("union", 8, ("i", 0, 4, "scalar"), ("j", 0, 8, "scalar")), {}, {})
    assert not release_compare.compatible(older, record("union", 8, ("i", 0, 8, "scalar")), {}, {})
    assert not release_compare.compatible(older, record("union", 16, ("i", 0, 4, "scalar")), {}, {})
    opaque = record("struct", 64, ("data", 0, 64, "array"))
    assert release_compare.compatible(opaque, record("struct", 80, ("data", 0, 80, "array")), {}, {})
    assert not release_compare.compatible(record("struct", 80, ("data", 0, 80, "array")), opaque, {}, {})


@pytest.mark.parametrize("change, message", [
    (("name = \"2.0\"", "name = \"2.x\""), "major.minor"),
    (("units = [\"rel\", \"ext\"]", "units = [\"nope\"]"), "unknown units nope"),
    (("headers = [{ package = \"rel-dev\", version = \"2.0.0-1\" }]", "headers = []"), "names no header package"),
    (("suite = \"fixture\"", "suite = \"fixture\"\nextra_suites = [\"fixture\"]"), "names suite fixture twice"),
    (("suite = \"fixture\"", "suite = \"fixture\"\ncheck_valid_until = \"no\""), "check_valid_until is true or false"),
])
def test_a_release_entry_is_checked(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    text = CONFIG_PATH.read_text()
    assert change[0] in text
    broken = tmp_path / "broken.toml"
    broken.write_text(text.replace(change[0], change[1], 1))
    with pytest.raises(config.ConfigError, match=message):
        config.load(broken)


def test_release_plan_reads_the_actions_and_builds_the_tables(ir: dict) -> None:
    """generator/release_calls.py without a GPU: the loader's entries follow the IR's actions, and
    relGetProps' adapter copies relProps' shared fields by name both ways (2.0: a at 0, b at 4;
    3.0: a at 0, c at 8, b at 16), the new field c left zero."""
    from generator import release_calls
    from generator.release_rules import Code
    functions = ir["functions"]
    made = release_calls.plan(functions, [ir] * len(functions), "3.0", (3, 1, 2))
    index = {f["name"]: i for i, f in enumerate(functions)}
    calls = made.calls_in("2.0")
    for f in functions:
        action = f["releases"]["2.0"]["action"]
        entry = calls.get(index[f["name"]])
        expected = {"adapt": Code.ADAPTER, "equivalent": Code.SYMBOL, "refuse": Code.REFUSED,
                    "absent": Code.ABSENT}.get(action)
        if action == "call":
            expected = None if f["releases"]["2.0"]["call_symbol"] == f["symbol"] else Code.SYMBOL
        assert (entry.action if entry else None) == expected, f["name"]
    adapter = made.adapters[calls[index["relGetProps"]].adapter]
    (conversion,) = adapter.conversions
    assert (conversion.param, conversion.old_size, conversion.new_size, conversion.output) == ("props", 8, 24, True)
    # one table, both directions: {offset in 3.0, offset in 2.0, size} of each field both have
    (table,) = made.tables
    assert made.tables[conversion.table] is table
    assert [(f.new_offset, f.old_offset, f.size) for f in table.fields] == [(0, 0, 4), (16, 4, 4)]
    assert (table.record, table.releases, table.old_size, table.new_size) == ("struct relProps", ["2.0", "1.0"], 8, 24)
    refused = calls[index["relAddNode"]]
    assert "relAddNode_v2" in made.strings[made.strings.index(refused.reason)]


def test_a_release_fetches_its_libraries_for_another_architecture(tmp_path: Path) -> None:
    """[release.architecture.<arch>] libraries: planned only when that architecture is asked for, each
    release that has the set, into lib-<arch>; a release without it has none for the architecture."""
    text = CONFIG_PATH.read_text()
    marker = 'name = "2.0"\nsuite = "fixture"\n'
    start = text.index(marker)
    end = text.find("[[", start + len(marker))
    block = ('[release.architecture.arm64]\n'
             'libraries = [{ package = "librel2", version = "2.0.0-1" }, { package = "librel2-extra", version = "2.0.0-1" }]\n\n')
    configured = tmp_path / "releases.toml"
    configured.write_text(text[:end] + block + text[end:] if end >= 0 else text + "\n" + block)
    fixture = config.load(configured)
    lines = release_headers.plan(fixture, "libraries", "arm64")
    assert [line.split("\t")[0] for line in lines] == ["2.0", "2.0"]
    assert [line.split("\t")[5:] for line in lines] == [["librel2", "2.0.0-1"], ["librel2-extra", "2.0.0-1"]]
    assert release_headers.plan(fixture, "libraries") == release_headers.plan(config.load(CONFIG_PATH), "libraries")
    assert release_headers.plan(fixture, "libraries", "riscv64") == []
    assert release_headers.library_dir(Path("/c"), fixture.release("2.0"), "arm64") == Path("/c/2.0/lib-arm64")
    with pytest.raises(ValueError, match="libraries only"):
        release_headers.plan(fixture, "headers", "arm64")
    broken = tmp_path / "broken.toml"
    broken.write_text(configured.read_text().replace("[release.architecture.arm64]", "[release.architecture.Arm64]"))
    with pytest.raises(config.ConfigError, match="is a Debian architecture"):
        config.load(broken)
