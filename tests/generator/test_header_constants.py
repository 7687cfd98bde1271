"""Every constant of the headers cubind repeats is emitted or skipped with a reason (issue 26, item 1).

Counted here with libclang from NVIDIA's headers, independently of the generator: for each unit,
every NVIDIA header a declaration of the checked-in IR comes from (and the unit's own headers),
every enum's enumerators and every object-like macro those headers define. Each macro must be in
the IR's `constants` or `literal_constants` (emitted) or in its `skipped_macros` (with a reason),
never both; each enumerator must be in the IR's types with NVIDIA's value; every emitted one must
be in constants.json and in the cdef files.
"""

import json
from pathlib import Path

import clang.cindex as ci
import pytest

from generator import config, release_headers
from generator.__main__ import DEFAULT_CUDA, newest_include_dirs

ROOT = Path(__file__).resolve().parents[2]
CONFIG = config.load()
IR = {p.stem: json.loads(p.read_text()) for p in sorted((ROOT / "generated" / "ir").glob("*.json"))}
CONSTANTS = json.loads((ROOT / "generated" / "constants.json").read_text())
CDEF = "\n".join(p.read_text() for p in sorted((ROOT / "generated" / "cdef").glob("*.h")))


def repeated_headers(ir: dict) -> set[str]:
    """The unit's own headers and every header a C declaration of the IR is repeated from."""
    unit = CONFIG.unit(ir["unit"])
    return set(unit.own_headers) | {t["header"] for t in ir["types"] if not t.get("cplusplus_class")}


def nvidia_census(ir: dict) -> tuple[dict[str, int], set[str]]:
    """(enumerator -> value, object-like macro names) of the repeated headers, by libclang."""
    unit = CONFIG.unit(ir["unit"])
    extra = release_headers.extra_include()
    if release_headers.newest_headers(unit, Path(DEFAULT_CUDA), extra) is None:
        pytest.skip("\n".join(release_headers.without_headers_report(CONFIG, Path(DEFAULT_CUDA), extra)))
    include_dirs = newest_include_dirs(unit, Path(DEFAULT_CUDA), extra)
    source = "".join(f"#include <{h}>\n" for h in unit.headers)
    tu = ci.Index.create().parse("census.c", args=[*CONFIG.c_args, *(f"-I{d}" for d in include_dirs)],
                                 unsaved_files=[("census.c", source)],
                                 options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    wanted = repeated_headers(ir)

    def header(cursor: ci.Cursor) -> str | None:
        file = cursor.location.file
        if file is None:
            return None
        path = Path(file.name).resolve()
        for d in include_dirs:
            try:
                return path.relative_to(d.resolve()).as_posix()
            except ValueError:
                continue
        return None

    enumerators: dict[str, int] = {}
    macros: set[str] = set()
    for cursor in tu.cursor.get_children():
        if cursor.kind == ci.CursorKind.LINKAGE_SPEC:
            continue
        if header(cursor) not in wanted:
            continue
        if cursor.kind == ci.CursorKind.ENUM_DECL:
            for c in cursor.get_children():
                if c.kind == ci.CursorKind.ENUM_CONSTANT_DECL:
                    enumerators[c.spelling] = c.enum_value
        elif cursor.kind == ci.CursorKind.MACRO_DEFINITION:
            tokens = list(cursor.get_tokens())
            function_like = len(tokens) > 1 and tokens[1].spelling == "(" and \
                tokens[1].extent.start.offset == tokens[0].extent.end.offset
            if not function_like:
                macros.add(cursor.spelling)
    return enumerators, macros


@pytest.mark.parametrize("unit", sorted(IR))
def test_every_macro_of_a_repeated_header_is_emitted_or_skipped_with_a_reason(unit: str) -> None:
    ir = IR[unit]
    _, macros = nvidia_census(ir)
    emitted = [k["name"] for k in ir["constants"] + ir["literal_constants"]]
    skipped = [s["name"] for s in ir["skipped_macros"]]
    assert len(set(emitted)) == len(emitted) and len(set(skipped)) == len(skipped)
    assert not set(emitted) & set(skipped)
    assert set(emitted) | set(skipped) == macros, (sorted(macros - set(emitted) - set(skipped))[:20],
                                                   sorted(set(emitted) | set(skipped) - macros)[:20])
    assert all(s["reason"] for s in ir["skipped_macros"])


@pytest.mark.parametrize("unit", sorted(IR))
def test_every_enum_of_a_repeated_header_is_emitted_with_its_values(unit: str) -> None:
    ir = IR[unit]
    enumerators, _ = nvidia_census(ir)
    emitted = {c["name"]: c["value"] for t in ir["types"] if t["kind"] == "enum" for c in t["constants"]}
    missing = sorted(enumerators.keys() - emitted.keys())
    assert not missing, f"{len(missing)} enumerators of {unit}'s headers are not emitted: {missing[:20]}"
    assert {n: emitted[n] for n in enumerators} == enumerators


def test_every_emitted_constant_is_in_constants_json_and_the_cdef_files() -> None:
    """Integers as enum constants in cdef; the others as a comment there, with the value in
    constants.json (an FFI without a C parser reads them from it)."""
    for ir in IR.values():
        for k in ir["constants"]:
            assert CONSTANTS["values"][k["name"]] == k["value"], k["name"]
            if -(1 << 31) <= k["value"] < (1 << 31):
                assert f"enum {{ {k['name']} = {k['value']} }};" in CDEF, k["name"]
        for k in ir["literal_constants"]:
            assert CONSTANTS["values"][k["name"]] == k["value"], k["name"]
            assert CONSTANTS["defines"][k["name"]]["kind"] == k["kind"]
            assert f"/* {k['name']} = " in CDEF, k["name"]

