"""generator/release_calls.py on IR written here (no headers, no GPU): the loader's release table a
library's IR gives (entries per release, history, strings, reasons) and the conversion tables its
adapters share (one per record and pair of layouts, both directions)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from generator import release_calls
from generator.release_rules import Code

RELEASES = [{"name": "3.0", "library_version": {"major": 3, "minor": 0, "patch": 1}},
            {"name": "2.0", "library_version": {"major": 2, "minor": 0, "patch": 0}},
            {"name": "1.0", "library_version": None}]


def _field(name: str, offset: int, size: int) -> dict:
    return {"name": name, "offset": offset, "size": size, "canonical": "int", "kind": "scalar", "record": None,
            "pointee": None, "bits": None}


# struct P: {a, b} (8 bytes) in 1.0 and 2.0, {a, c, b} (24 bytes) in 3.0; struct Q: {x} in 1.0, {x, y} after
RECORDS = {
    "3.0": {"struct P": {"kind": "struct", "size": 24, "align": 8,
                         "fields": [_field("a", 0, 4), _field("c", 8, 8), _field("b", 16, 4)]},
            "struct Q": {"kind": "struct", "size": 8, "align": 4, "fields": [_field("x", 0, 4), _field("y", 4, 4)]}},
    "2.0": {"struct P": {"kind": "struct", "size": 8, "align": 4, "fields": [_field("a", 0, 4), _field("b", 4, 4)]}},
    "1.0": {"struct P": {"kind": "struct", "size": 8, "align": 4, "fields": [_field("a", 0, 4), _field("b", 4, 4)]},
            "struct Q": {"kind": "struct", "size": 4, "align": 4, "fields": [_field("x", 0, 4)]}},
}


def _param(name: str, canonical: str) -> dict:
    return {"name": name, "type": canonical, "canonical": canonical}


def _function(name: str, params: list[dict], per: dict, added: str = "1.0", changed: list[str] | None = None) -> dict:
    releases = {"3.0": {"action": "call", "call_symbol": name, "declared": True}} | per
    return {"name": name, "symbol": name, "library": "lib", "params": params, "releases": releases,
            "added_in": added, "changed_in": changed or [], "returns": {"category": "status"}}


def _adapt(params: list[str]) -> dict:
    return {"action": "adapt", "call_symbol": None, "reason": "struct P is laid out otherwise",
            "conversions": [{"param": p, "record": "struct P"} for p in params]}


def _ir() -> dict:
    get = _function("libGet", [_param("out", "struct P *")],
                    {"2.0": _adapt(["out"]) | {"call_symbol": "libGet_v2"}, "1.0": _adapt(["out"]) | {"call_symbol": "libGet"}})
    put = _function("libPut", [_param("in", "const struct P *")],
                    {"2.0": _adapt(["in"]) | {"call_symbol": "libPut"}, "1.0": _adapt(["in"]) | {"call_symbol": "libPut"}})
    q = _function("libQ", [_param("q", "struct Q *")],
                  {"2.0": {"action": "call", "call_symbol": "libQ"},
                   "1.0": {"action": "adapt", "call_symbol": "libQ", "reason": "struct Q is laid out otherwise",
                           "conversions": [{"param": "q", "record": "struct Q"}]}})
    renamed = _function("libRenamed", [], {"2.0": {"action": "call", "call_symbol": "libRenamed_2"},
                                           "1.0": {"action": "equivalent", "call_symbol": "libRenamed_v1"}})
    refused = _function("libRefused", [], {"2.0": {"action": "call", "call_symbol": "libRefused"},
                                           "1.0": {"action": "refuse", "reason": "1 parameter in 1.0, 2 in 3.0"}},
                        changed=["2.0"])
    new = _function("libNew", [], {"2.0": {"action": "absent"}}, added="3.0")
    return {"releases": RELEASES, "release_records": copy.deepcopy(RECORDS),
            "functions": [get, put, q, renamed, refused, new]}


@pytest.fixture()
def made() -> release_calls.ReleasePlan:
    ir = _ir()
    return release_calls.plan(ir["functions"], [ir] * len(ir["functions"]), "3.0", (3, 0, 0))


def test_releases_newest_first_with_their_versions(made: release_calls.ReleasePlan) -> None:
    assert [(r.name, r.library_version) for r in made.releases] == [("3.0", (3, 0, 1)), ("2.0", (2, 0, 0)),
                                                                     ("1.0", (3, 0, 0))]  # no version: the default
    assert made.entries[0] == []  # the newest is called as it is


def test_each_release_lists_only_the_calls_that_differ(made: release_calls.ReleasePlan) -> None:
    codes = {r: {e.function: e.action for e in made.entries[i]} for i, r in enumerate(["3.0", "2.0", "1.0"])}
    assert codes["2.0"] == {0: Code.ADAPTER, 1: Code.ADAPTER, 3: Code.SYMBOL, 5: Code.ABSENT}
    assert codes["1.0"] == {0: Code.ADAPTER, 1: Code.ADAPTER, 2: Code.ADAPTER, 3: Code.SYMBOL, 4: Code.REFUSED,
                            5: Code.ABSENT}  # libNew: not in the IR's releases of 1.0 either
    for per in made.entries:  # the loader searches each release's entries by function
        assert [e.function for e in per] == sorted(e.function for e in per)


def test_symbols_and_reasons_are_offsets_into_one_string_list(made: release_calls.ReleasePlan) -> None:
    calls = made.calls_in("1.0")
    assert calls[3].symbol == "libRenamed_v1" and made.strings[made.offset_of("libRenamed_v1")] == "libRenamed_v1"
    assert calls[4].reason == "1 parameter in 1.0, 2 in 3.0; it needs CUDA 2.0 or newer"
    assert calls[5].reason.startswith("it does not exist (added in CUDA 3.0, of the releases these bindings read: "
                                      "3.0, 2.0, 1.0)")
    assert made.strings[0] == "" and len(made.strings) == len(set(made.strings))


def test_history_is_added_in_and_a_changed_in_mask(made: release_calls.ReleasePlan) -> None:
    assert made.history[4] == (2, 1 << 1)  # added in 1.0 (index 2), changed in 2.0 (bit 1)
    assert made.history[5] == (0, 0)


def test_one_conversion_table_per_record_and_layout_pair(made: release_calls.ReleasePlan) -> None:
    """libGet (an output) and libPut (an input) convert struct P, laid out alike in 2.0 and 1.0: four
    adapters, one table, used in both directions; struct Q's 1.0 layout is another table."""
    assert len([a for a in made.adapters if not a.semantic]) == 5
    assert [(t.name, t.record, t.releases) for t in made.tables] == [
        ("conversion_P_2_0", "struct P", ["2.0", "1.0"]), ("conversion_Q_1_0", "struct Q", ["1.0"])]
    p, q = made.tables
    assert [(f.new_offset, f.old_offset, f.size) for f in p.fields] == [(0, 0, 4), (16, 4, 4)]  # c: only in 3.0
    assert (p.old_size, p.new_size) == (8, 24)
    assert [(f.new_offset, f.old_offset, f.size) for f in q.fields] == [(0, 0, 4)]
    assert len(p.outputs) == 2 and len(p.inputs) == 2
    for a in made.adapters:
        for c in a.conversions:
            assert made.tables[c.table].record == c.record
    assert [c.output for a in made.adapters for c in a.conversions] == [True, True, False, False, True]


def test_a_table_lists_what_its_release_cannot_carry_and_an_input_checks_it(made: release_calls.ReleasePlan) -> None:
    """struct P's table holds c (3.0 only) as not carried; libPut (an input) checks it, libGet (an
    output the library only writes) does not."""
    p = made.tables[0]
    assert [(x.offset, x.size, x.name, x.when) for x in p.not_carried] == [(8, 8, "c", None)]
    assert p.old_record == "struct P"
    checked = {(a.function["name"], a.release): [c.checked for c in a.conversions] for a in made.adapters}
    assert checked[("libPut", "2.0")] == checked[("libPut", "1.0")] == [True]
    assert checked[("libGet", "2.0")] == checked[("libGet", "1.0")] == [False]


def test_an_output_the_function_reads_too_is_checked() -> None:
    """The IR's `input` on an output parameter (generator/semantic.toml's [[read_written]])."""
    ir = _ir()
    ir["functions"][0]["params"][0]["input"] = True
    made = release_calls.plan(ir["functions"], [ir] * len(ir["functions"]), "3.0", (3, 0, 0))
    get = [c for a in made.adapters if a.function["name"] == "libGet" for c in a.conversions]
    assert [(c.output, c.checked) for c in get] == [(True, True), (True, True)]


def test_an_adapter_whose_record_cannot_be_converted_is_an_error() -> None:
    """The IR says adapt, but a field shared by name has another size: an error naming it, never half a
    table (generator/release_compare.py decides from the same layouts)."""
    ir = _ir()
    ir["release_records"]["2.0"]["struct P"]["fields"][1]["size"] = 2
    with pytest.raises(AssertionError, match="libGet in CUDA 2.0: parameter out .struct P.: field P.b is 4 bytes in one release, 2 in the other"):
        release_calls.plan(ir["functions"], [ir] * len(ir["functions"]), "3.0", (3, 0, 0))


def test_semantic_without_a_mapping_is_an_error() -> None:
    ir = _ir()
    ir["functions"][3]["releases"]["1.0"] = {"action": "semantic", "call_symbol": "libRenamed_v1"}
    with pytest.raises(AssertionError, match="libRenamed in CUDA 1.0: the IR says semantic, no mapping"):
        release_calls.plan(ir["functions"], [ir] * len(ir["functions"]), "3.0", (3, 0, 0))


def test_a_library_of_one_release_has_no_entries() -> None:
    ir = _ir()
    ir["releases"] = RELEASES[:1]
    for f in ir["functions"]:
        f["releases"] = {"3.0": f["releases"]["3.0"]}
    made = release_calls.plan(ir["functions"], [ir] * len(ir["functions"]), "3.0", (3, 0, 0))
    assert made.entries == [[]] and made.adapters == [] and made.tables == []


def test_the_docs_count_the_generated_adapters_and_tables() -> None:
    """docs/releases.md's counts are those of generated/: the layout adapters, the conversion tables
    they share, the tests of generated/tests/conversions.c and those of generated/tests/input_fields.c."""
    root = Path(__file__).resolve().parents[2]
    sources = "".join(p.read_text() for p in sorted((root / "generated" / "src").glob("*.c")))
    adapters = len(re.findall(r"^/\* CUDA [\d.]+: \w+ is called as \w+, converting ", sources, re.M))
    tables = len(re.findall(r"^static const struct conversion_\w+ \{$", sources, re.M))
    tests = (root / "generated" / "tests" / "conversions.c").read_text().count("cmocka_unit_test(")
    text = " ".join((root / "docs" / "releases.md").read_text().split())
    assert adapters and tables and tests
    assert f"There are {adapters} adapters, one per function and release" in text
    assert f"over {tables} conversion tables" in text
    assert f"generated from the IR: {tests} tests" in text
    fields = (root / "generated" / "tests" / "input_fields.c").read_text()
    refused, other, zero = (fields.count(f"{end} */\nstatic void") for end in
                            ("refused, naming it", "another member's, called", "zero: called"))
    assert refused and other and zero
    assert f"refused, reaching no mock, writing nothing, naming it ({refused} with the releases read" in text
    assert f"one with another member in use, called ({other})" in text
    assert f"one with every such part zero, called ({zero})" in text
