"""generator/record_conversion.py's not_carried on layouts written here: what of a record's newest
layout an older one cannot carry, wherever the record holds it (a field it lacks, in a record held by
value, an array's or a union's bytes beyond its older size, a union member's field while the member
is in use, by the record's selector), and what stops the generator instead of dropping silently."""

from __future__ import annotations

import copy

import pytest

from generator import record_conversion, release_ir
from generator.record_conversion import NotCarriedError, Selected


def _f(name: str, offset: int, size: int, kind: str = "scalar", record: str | None = None) -> dict:
    return {"name": name, "offset": offset, "size": size, "canonical": "int", "kind": kind, "record": record,
            "pointee": None, "bits": None}


def _rec(kind: str, size: int, *fields: dict) -> dict:
    return {"kind": kind, "size": size, "align": 8, "fields": list(fields)}


# struct R in 2.0: {kind; struct In in; char arr[16]; union { struct A a; struct B b; } u (anonymous); union V v}
# in 1.0: In lacks `c`, arr is 8 bytes, B lacks `y`, V is 8 bytes, not 24.
NEWEST = {
    "struct R": _rec("struct", 96, _f("kind", 0, 4), _f("in", 8, 16, "record", "struct In"),
                     _f("arr", 24, 16, "array"), _f("", 40, 16, "record", "struct R.(anonymous 1)"),
                     _f("v", 56, 24, "record", "union V"), _f("tail", 80, 8)),
    "struct In": _rec("struct", 16, _f("a", 0, 4), _f("c", 8, 8)),
    "struct R.(anonymous 1)": _rec("union", 16, _f("a", 0, 4, "record", "struct A"), _f("b", 0, 16, "record", "struct B")),
    "struct A": _rec("struct", 4, _f("x", 0, 4)),
    "struct B": _rec("struct", 16, _f("x", 0, 4), _f("y", 8, 8)),
    "union V": _rec("union", 24, _f("small", 0, 8, "array"), _f("large", 0, 24, "array")),
}
OLDER = {
    "struct R": _rec("struct", 80, _f("kind", 0, 4), _f("in", 8, 16, "record", "struct In"),
                     _f("arr", 24, 8, "array"), _f("", 32, 16, "record", "struct R.(anonymous 1)"),
                     _f("v", 48, 8, "record", "union V"), _f("tail", 56, 8)),
    "struct In": _rec("struct", 16, _f("a", 0, 4)),
    "struct B": _rec("struct", 16, _f("x", 0, 4)),
    "union V": _rec("union", 8, _f("small", 0, 8, "array")),
}
SELECTOR = {"record": "struct R", "field": "kind", "members": {"a": "KIND_A", "b": "KIND_B"}}


def _ir(selectors: list[dict] | None = None) -> dict:
    return {"releases": [{"name": "2.0"}, {"name": "1.0"}], "types": [],
            "release_records": {"2.0": copy.deepcopy(NEWEST), "1.0": copy.deepcopy(OLDER)},
            "selectors": [SELECTOR] if selectors is None else selectors}


def test_every_path_a_record_travels() -> None:
    parts = record_conversion.not_carried("struct R", "struct R", "1.0", _ir())
    assert [(p.offset, p.size, p.name, p.when) for p in parts] == [
        (16, 8, "in.c", None),                                  # nested in a record held by value
        (32, 8, "arr beyond byte 8", None),                     # an array longer than the older one
        (48, 8, "b.y", Selected(0, 4, "kind", "KIND_B")),       # a union member's field, while it is in use
        (64, 16, "v beyond byte 8", None),                      # a union's bytes beyond its older size
    ]


def test_a_union_member_that_differs_needs_a_selector() -> None:
    with pytest.raises(NotCarriedError, match=r"union member b differs in CUDA 1.0.*\[\[selector\]\] for struct R"):
        record_conversion.not_carried("struct R", "struct R", "1.0", _ir(selectors=[]))
    without_b = dict(SELECTOR, members={"a": "KIND_A"})
    with pytest.raises(NotCarriedError, match="union member b differs"):
        record_conversion.not_carried("struct R", "struct R", "1.0", _ir(selectors=[without_b]))


def test_a_field_whose_size_changed_stops_the_generator() -> None:
    ir = _ir()
    ir["release_records"]["1.0"]["struct R"]["fields"][-1]["size"] = 4
    with pytest.raises(NotCarriedError, match="tail is 4 bytes there, 8 here"):
        record_conversion.not_carried("struct R", "struct R", "1.0", ir)


def test_a_record_of_another_name_in_the_older_release() -> None:
    """A semantic adapter's prefix record: compared by field, whatever its name."""
    ir = _ir()
    ir["release_records"]["1.0"]["struct R_v1"] = ir["release_records"]["1.0"].pop("struct R")
    parts = record_conversion.not_carried("struct R", "struct R_v1", "1.0", ir)
    assert [p.name for p in parts] == ["in.c", "arr beyond byte 8", "b.y", "v beyond byte 8"]


def test_an_anonymous_member_is_converted_by_its_place() -> None:
    """The conversion copies the anonymous union's bytes (the older layout has it at 32, the newest at
    40): what not_carried takes as carried is copied."""
    ir = _ir()
    param = {"name": "r", "type": "const struct R *", "canonical": "const struct R *"}
    made = record_conversion.conversion(param, release_ir.records_in(ir, "1.0"), release_ir.records_in(ir, "2.0"),
                                        set())
    assert not isinstance(made, str), made
    # the union's 16 bytes, and v's first 8 right after them in both layouts: one copy
    assert (40, 32, 24) in [(x.new_offset, x.old_offset, x.size) for x in made.fields]
