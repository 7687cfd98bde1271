"""The cdef files an FFI state loads together (cdef/common.h, then any module files) and
constants.json, from the model of the checked-in IR (generated/ir/*.json) and the generated tree.
LuaJIT and cffi themselves load the files in tests/consumers/cdef_check.sh (make test-cdef)."""

import json
from pathlib import Path

import pytest

from generator import cdef_groups, config, model
from generator.model import TypeGroup

ROOT = Path(__file__).resolve().parents[2]
CONFIG = config.load()
_UNITS = [u.name for u in CONFIG.units]
MODEL = model.build(CONFIG, sorted((json.loads(p.read_text()) for p in (ROOT / "generated" / "ir").glob("*.json")),
                                   key=lambda ir: _UNITS.index(ir["unit"])))
SPLIT = cdef_groups.split(MODEL)
MODULES = {m.module.name: m for m in MODEL.modules}
CONSTANTS = json.loads((ROOT / "generated" / "constants.json").read_text())


def types_in(groups: list[TypeGroup]) -> set[str]:
    """Every type name (tag or typedef) the groups declare, incomplete ones included."""
    return {n for g in groups for e in g.entries for n in (e["name"], e["typedef"]) if n}


def uses(groups: list[TypeGroup], functions: list[dict] = ()) -> set[str]:
    return {n for g in groups for e in g.entries for n in e.get("uses", [])} | {n for f in functions for n in f["uses"]}


def test_the_module_list_is_every_module_once() -> None:
    listed = [line for line in (ROOT / "generated" / "cdef" / "modules.txt").read_text().splitlines()
              if line and not line.startswith("#")]
    assert listed == list(MODULES)
    assert set(SPLIT.modules) == set(MODULES)
    assert {p.stem for p in (ROOT / "generated" / "cdef").glob("*.h")} == \
        {*MODULES, cdef_groups.COMMON, cdef_groups.WHOLE}


def test_common_needs_nothing_else() -> None:
    assert uses(SPLIT.common) <= types_in(SPLIT.common)


@pytest.mark.parametrize("name", list(MODULES))
def test_each_module_file_needs_common_only(name: str) -> None:
    needed = uses(SPLIT.modules[name], MODULES[name].functions)
    assert needed <= types_in(SPLIT.common) | types_in(SPLIT.modules[name]), \
        sorted(needed - types_in(SPLIT.common) - types_in(SPLIT.modules[name]))


def test_no_name_is_declared_twice_and_the_check_says_which() -> None:
    files = {cdef_groups.COMMON: cdef_groups.declared_names(SPLIT.common),
             **{n: cdef_groups.declared_names(SPLIT.modules[n], MODULES[n].functions) for n in MODULES}}
    declared = [name for names in files.values() for name in names]
    assert len(declared) == len(set(declared))
    cdef_groups.check_disjoint(files)
    twice = {"common": {"T"}, "a": {"U"}, "b": {"T"}}
    with pytest.raises(ValueError, match="cdef/common.h and cdef/b.h both declare T"):
        cdef_groups.check_disjoint(twice)


def test_common_and_the_modules_hold_what_the_whole_holds() -> None:
    whole = cdef_groups.flat_groups(MODEL, MODEL.modules)
    parts = [SPLIT.common, *SPLIT.modules.values()]
    assert set().union(*(types_in(p) for p in parts)) == types_in(whole)
    assert set().union(*(cdef_groups.declared_names(p) for p in parts)) == cdef_groups.declared_names(whole)
    # the types a module shares are those another module uses: the others stay in their module
    shared_from_modules = types_in(SPLIT.common) - types_in(MODEL.shared_groups)
    used_by_others = {n for name, m in MODULES.items() for n in uses(m.groups, m.functions) - types_in(m.groups)}
    assert used_by_others - types_in(MODEL.shared_groups) <= shared_from_modules
    assert shared_from_modules, "no module type is used by another: the split is not exercised"


def test_constants_hold_every_enum_constant_and_define_with_its_value() -> None:
    values = CONSTANTS["values"]
    for group in cdef_groups.flat_groups(MODEL, MODEL.modules):
        for constant in group.constants:
            assert values[constant["name"]] == constant["value"]
            assert CONSTANTS["defines"][constant["name"]]["header"] == group.header
        for entry in group.entries:
            if entry["kind"] == "enum":
                enum = CONSTANTS["enums"][entry["name"] or entry["typedef"]]
                assert enum["values"] == {c["name"]: c["value"] for c in entry["constants"]}
                assert all(values[c["name"]] == c["value"] for c in entry["constants"])
    files = {cdef_groups.COMMON, *MODULES}
    assert {e["cdef"] for e in CONSTANTS["enums"].values()} <= files
    assert {d["cdef"] for d in CONSTANTS["defines"].values()} <= files


def test_cubind_s_own_constants_and_layouts_are_the_abi_baseline() -> None:
    """constants.json reads include/cubind/cubind.h with libclang; abi/layout.txt is what the
    compiler prints of the same header (make test-abi compares it with the built library)."""
    baseline = (ROOT / "abi" / "layout.txt").read_text().splitlines()
    checked = 0
    for line in baseline:
        words = line.split()
        if words[0] in ("define", "enum") and words[-2] == "=":
            assert CONSTANTS["values"][words[-3]] == int(words[-1]), line
            checked += 1
        elif words[0] == "struct" and words[1] in CONSTANTS["layouts"]:
            layout = CONSTANTS["layouts"][words[1]]
            if words[2] == "extensible":  # grows at its end (abi/layout.py): its alignment and members
                assert layout["align"] == int(words[4]), line
            else:
                assert (layout["size"], layout["align"]) == (int(words[3]), int(words[5])), line
            checked += 1
        elif words[0] == "struct" and "." in words[1] and words[1].split(".")[0] in CONSTANTS["layouts"]:
            tag, field = words[1].split(".")
            assert CONSTANTS["layouts"][tag]["offsets"][field] == int(words[3]), line
            checked += 1
    fields = sum(len(layout["offsets"]) + 1 for layout in CONSTANTS["layouts"].values())
    assert checked >= fields + len(CONSTANTS["enums"]["cubind_error_kind"]["values"])
