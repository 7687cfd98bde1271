"""What each wrapper's call becomes in every CUDA release the IR describes: per library, its
releases (newest first) and, per older release, the functions whose call differs there -- another
entry point with the same ABI, a generated adapter that converts a record's layout field by field,
or no call (refused, or absent from that release); and the library's conversion tables, one per
record and layout of it, which the adapters share, in both directions. The loader reads this as
data (loader/releases.h); nothing here is specific to one function."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import record_conversion, release_ir, semantic
from .record_conversion import Conversion, FieldPair, NotCarried, NotCarriedError
from .release_rules import Action, Code



@dataclass
class Release:
    name: str
    library_version: tuple[int, int, int]


@dataclass
class Adapter:
    index: int
    function: dict
    release: str
    symbol: str
    conversions: list[Conversion]
    function_index: int = 0
    semantic = False  # generator/semantic.py's adapters say True
    records: tuple = ()  # a semantic adapter's records passed as they are


@dataclass
class Entry:
    function: int
    action: Code
    symbol: str = ""
    reason: str = ""
    adapter: int = 0
    semantic: bool = False  # ADAPTER through a semantic adapter (generator/semantic.py)


@dataclass
class ConversionTable:
    """A record's conversion between the newest layout and an older one: each field both have (its
    offset in the newest layout, in the older one, its size), and what of the newest layout the older
    one cannot carry. Emitted once per library, for every release that lays the record out so, and
    used in both directions by every adapter converting the record there, and by every semantic
    adapter passing it there as it is (loader/releases.h, cubind__record_conversion)."""
    index: int
    name: str               # the C object: conversion_<record>_<the newest release it serves>
    record: str
    releases: list[str]     # newest first
    old_size: int
    new_size: int
    fields: list[FieldPair]
    old_record: str = ""    # the record's name in those releases
    # what of the newest layout those releases cannot carry: an adapter that reads the record refuses
    # a call setting one part (cubind__record_refused)
    not_carried: list[NotCarried] = field(default_factory=list)
    inputs: list[tuple[int, int]] = field(default_factory=list)   # (adapter, conversion) converting an input
    outputs: list[tuple[int, int]] = field(default_factory=list)  # ... an output (to the older layout and back)
    passed: list[tuple[int, int]] = field(default_factory=list)   # (semantic adapter, record) checking one passed as it is


@dataclass
class ReleasePlan:
    releases: list[Release]
    entries: list[list[Entry]]            # per release (index 0, the newest: only functions it removed)
    adapters: list[Adapter]
    history: list[tuple[int, int]]        # per function: added_in release index, changed_in bit mask
    strings: list[str] = field(default_factory=list)
    tables: list[ConversionTable] = field(default_factory=list)

    def offset_of(self, text: str) -> int:
        return self.strings.index(text)

    def calls_in(self, release: str) -> dict[int, Entry]:
        """Function index -> its entry, for the functions whose call differs in `release`."""
        index = [r.name for r in self.releases].index(release)
        return {e.function: e for e in self.entries[index]}

    @property
    def older(self) -> list[Release]:
        return self.releases[1:]

    def adapted_params(self, function: int) -> dict[str, int]:
        """The parameters some release's adapter converts, with the size of their record here."""
        return {c.param: c.new_size for a in self.adapters if a.function_index == function for c in a.conversions}


def _version(v: dict | None) -> tuple[int, int, int]:
    if not v:
        return (-1, -1, -1)
    return tuple(-1 if v.get(k) is None else int(v[k]) for k in ("major", "minor", "patch"))  # type: ignore[return-value]


def _conversions(function: dict, release: str, newest: str, ir: dict) -> list[Conversion]:
    """The tables of the conversions generator/release_compare.py decided for `function` in `release` (the
    IR's `conversions`), built from the layouts the IR holds."""
    old_records, new_records = release_ir.records_in(ir, release), release_ir.records_in(ir, newest)
    params = {p["name"]: p for p in function["params"]}
    made = []
    for c in function["releases"][release]["conversions"]:
        conversion = record_conversion.conversion(params[c["param"]], old_records, new_records, set())
        if isinstance(conversion, str):  # release_compare.py built it from the same layouts
            raise AssertionError(f"{function['name']} in CUDA {release}: {conversion}")
        try:  # what the release cannot carry: a call setting it is refused when the library reads the record
            conversion.not_carried = record_conversion.not_carried(conversion.record, conversion.record, release, ir)
        except NotCarriedError as e:
            raise AssertionError(f"{function['name']} in CUDA {release}: {e}") from None
        made.append(conversion)
    return made


def plan(functions: list[dict], function_irs: list[dict], newest_name: str,
         default_version: tuple[int, int, int]) -> ReleasePlan:
    """The release plan of one library: `functions` in symbol-table order, `function_irs` the IR
    of each one's unit (a library's functions come from one unit's releases)."""
    ir = function_irs[0] if function_irs else {}
    declared = ir.get("releases") or [{"name": newest_name, "library_version": None}]
    releases = [Release(r["name"], _version(r.get("library_version")) if r.get("library_version") else default_version)
                for r in declared]
    names = [r.name for r in releases]
    strings = [""]
    entries: list[list[Entry]] = [[] for _ in releases]
    adapters: list[Adapter] = []
    history: list[tuple[int, int]] = []

    def text(s: str) -> str:
        if s not in strings:
            strings.append(s)
        return s

    for index, (f, f_ir) in enumerate(zip(functions, function_irs)):
        per = f.get("releases") or {}
        added = f.get("added_in") or names[-1]
        changed = 0
        for name in f.get("changed_in") or []:
            if name in names:
                changed |= 1 << names.index(name)
        history.append((names.index(added) if added in names else len(names) - 1, changed))
        # the newest release has an entry only for a function it removed (release_compare.keep_first_release)
        for r, release in enumerate(releases):
            d = per.get(release.name) or {"action": Action.ABSENT.value}
            action = Action(d["action"])
            code = action.code(d.get("call_symbol"), f["symbol"])
            if code is None:
                continue
            if action is Action.ABSENT:
                entries[r].append(Entry(index, code, "", text(_absent_reason(per, names, r, added))))
            elif action in (Action.CALL, Action.EQUIVALENT):
                entries[r].append(Entry(index, code, text(d["call_symbol"])))
            elif action is Action.ADAPT:
                adapter = Adapter(len(adapters), f, release.name, d["call_symbol"],
                                  _conversions(f, release.name, newest_name, f_ir), index)
                adapters.append(adapter)
                entries[r].append(Entry(index, code, text(d["call_symbol"]), text(
                    f"{d['reason']}: called through an adapter that converts it field by field"), adapter.index))
            elif action is Action.SEMANTIC:  # another entry point that does the same (generator/semantic.py)
                mapped = semantic.adapter(f, release.name, newest_name, f_ir, len(adapters), index)
                if mapped is None:
                    raise AssertionError(f"{f['name']} in CUDA {release.name}: the IR says semantic, no mapping")
                adapters.append(mapped)  # type: ignore[arg-type]
                entries[r].append(Entry(index, code, text(mapped.symbol), text(mapped.reason), mapped.index,
                                        semantic=True))
            elif action is Action.REFUSE:
                first_callable = _first_callable(per, names)
                needs = f"; it needs CUDA {first_callable} or newer" if first_callable else ""
                entries[r].append(Entry(index, code, "", text(f"{d['reason']}{needs}")))
    return ReleasePlan(releases, entries, adapters, history, strings, _share_tables(adapters, names))


def _absent_reason(per: dict, names: list[str], release: int, added: str) -> str:
    """Why a function does not exist in release `release` (an index in `names`, newest first): added
    later, or removed after the last release that has it."""
    declared = [i for i, name in enumerate(names) if (per.get(name) or {}).get("declared")]
    read = f"of the releases these bindings read: {', '.join(names)}"
    if declared and release < declared[0]:
        return f"it does not exist (removed after CUDA {names[declared[0]]}, {read})"
    return f"it does not exist (added in CUDA {added}, {read})"


def _identifier(record: str) -> str:
    """"struct cudaDeviceProp" -> "cudaDeviceProp": a C identifier part."""
    name = record.removeprefix("struct ").removeprefix("union ").strip()
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def _share_tables(adapters: list[Adapter], names: list[str]) -> list[ConversionTable]:
    """One table per record and layout pair the adapters convert, or pass as it is to an entry point
    that lays it out otherwise (a semantic adapter, which checks it by the table's parts not carried);
    equal tables of several releases are one, each adapter's conversions pointing to theirs
    (`Conversion.table`)."""
    tables: list[ConversionTable] = []
    by_content: dict[tuple, ConversionTable] = {}
    for a in adapters:
        for k, c in enumerate(a.records if a.semantic else a.conversions):
            key = (c.record, c.old_record, c.old_size, c.new_size, tuple(c.fields), tuple(c.not_carried))
            table = by_content.get(key)
            if table is None:
                table = ConversionTable(len(tables), "", c.record, [], c.old_size, c.new_size, list(c.fields),
                                        c.old_record, list(c.not_carried))
                by_content[key] = table
                tables.append(table)
            if a.release not in table.releases:
                table.releases.append(a.release)
            (table.passed if a.semantic else table.outputs if c.output else table.inputs).append((a.index, k))
            c.table = table.index
    used: set[str] = set()
    for table in tables:
        table.releases.sort(key=names.index)
        table.name = f"conversion_{_identifier(table.record)}_{table.releases[0].replace('.', '_')}"
        if table.name in used:  # another layout of the record in that release (a prefix record's)
            table.name += f"_{table.index}"
        used.add(table.name)
    return tables


def _first_callable(per: dict, names: list[str]) -> str | None:
    """The oldest release read, of the unbroken run from the newest down, where the newest form is
    called as it is (under some name)."""
    oldest = None
    for name in names:
        d = per.get(name)
        if d is None or Action(d["action"]) not in (Action.CALL, Action.EQUIVALENT):
            break
        oldest = name
    return oldest
