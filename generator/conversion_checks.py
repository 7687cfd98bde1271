"""What the conversion tables' test (generated/tests/conversions.c, templates/conversions.c.j2)
expects of each table, worked out from the IR's layouts apart from generator/record_conversion.py:
every named field of the record, records held by value flattened into their fields, matched by
its path in the two releases. A field both layouts have keeps its bytes (as many as both have:
an array or a union may be shorter in one); every other byte of a field in the layout written to
is 0. A wrong offset or size in a table then fails the test."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import release_ir
from .record_conversion import lookup

if TYPE_CHECKING:  # for the annotation only: the model is built before this runs
    from .model import Model

ABSENT = 0xFFFFFFFF  # `source` of a field the layout read from lacks


@dataclass(frozen=True)
class FieldCheck:
    field: str
    target: int   # offset in the layout written to
    source: int   # offset in the layout read from, ABSENT when it lacks the field
    copied: int   # bytes carried over
    size: int     # the field's bytes in the layout written to; those after `copied` are 0


@dataclass(frozen=True)
class TableChecks:
    to_old: list[FieldCheck]            # an input: the newest layout into the release's
    to_new: list[FieldCheck]            # an output: the release's layout back
    not_carried: list[tuple[int, int]]  # (offset, size) in the newest layout an input must leave 0


def _leaves(record: dict, records: dict, base: int, path: str, out: dict[str, tuple[int, int]]) -> None:
    for f in record["fields"]:
        if not f["name"]:
            continue
        name = path + f["name"]
        inner = lookup(records, f.get("record") or "") if f["kind"] == "record" else None
        if inner is not None and inner.get("kind") == "struct":
            _leaves(inner, records, base + f["offset"], name + ".", out)
        else:
            out[name] = (base + f["offset"], f["size"])


def _checks(to: dict[str, tuple[int, int]], source: dict[str, tuple[int, int]]) -> list[FieldCheck]:
    made = []
    for name, (offset, size) in to.items():
        other = source.get(name)
        made.append(FieldCheck(name, offset, other[0] if other else ABSENT, min(size, other[1]) if other else 0, size))
    return made


def table_checks(record: str, release: str, ir: dict) -> TableChecks:
    """The checks of `record`'s conversion between the newest layout of `ir` and `release`'s."""
    newest = release_ir.newest_name(ir)
    new_records, old_records = release_ir.records_in(ir, newest), release_ir.records_in(ir, release)
    new, old = lookup(new_records, record), lookup(old_records, record)
    if new is None or old is None:
        raise AssertionError(f"{record}: no layout in CUDA {newest} and {release}")
    new_leaves: dict[str, tuple[int, int]] = {}
    old_leaves: dict[str, tuple[int, int]] = {}
    _leaves(new, new_records, 0, "", new_leaves)
    _leaves(old, old_records, 0, "", old_leaves)
    to_new = _checks(new_leaves, old_leaves)
    not_carried = [(c.target + c.copied, c.size - c.copied) for c in to_new if c.copied < c.size]
    return TableChecks(_checks(old_leaves, new_leaves), to_new, not_carried)


def expected(model: Model) -> dict[str, TableChecks]:
    """Per library, table and release ("runtime.3.12.4"), the table's checks."""
    made: dict[str, TableChecks] = {}
    for lib in model.libraries:
        plan = lib.release_plan
        if plan is None:
            continue
        for table in plan.tables:
            if not table.inputs + table.outputs:
                continue  # only passed as it is by semantic adapters: nothing converted to check
            function = plan.adapters[(table.inputs + table.outputs)[0][0]].function
            ir = next(ir for ir in model.irs if any(f["name"] == function["name"] and f["library"] == function["library"]
                                                   for f in ir["functions"]))  # the unit of a function using it
            for release in table.releases:
                made[f"{lib.library.name}.{table.index}.{release}"] = table_checks(table.record, release, ir)
    return made
