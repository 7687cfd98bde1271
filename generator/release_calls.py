"""What each wrapper's call becomes in every CUDA release the IR describes: per library, its
releases (newest first) and, per older release, the functions whose call differs there -- another
entry point with the same ABI, a generated adapter that converts a record's layout field by field,
or no call (refused, or absent from that release). The loader reads this as data
(loader/releases.h); nothing here is specific to one function."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import semantic

SYMBOL, ADAPTER, REFUSED, ABSENT = 1, 2, 3, 4


@dataclass
class Release:
    name: str
    library_version: tuple[int, int, int]


@dataclass
class FieldCopy:
    to_offset: int
    from_offset: int
    size: int


@dataclass
class Conversion:
    """One pointer parameter whose record is converted around the call."""
    param: str
    record: str
    type: str               # the parameter's record type as the release's function takes it (C spelling)
    old_size: int
    new_size: int
    to_old: list[FieldCopy]  # before the call (not for a pointer to const: that is input only... both ways)
    to_new: list[FieldCopy]  # after a successful call
    output: bool             # written by the library (a pointer to non-const)
    # an input's fields the release cannot carry: (offset, size, name); a call setting one is refused
    dropped: list[tuple[int, int, str]] = field(default_factory=list)


@dataclass
class Adapter:
    index: int
    function: dict
    release: str
    symbol: str
    conversions: list[Conversion]
    function_index: int = 0
    semantic = False  # generator/semantic.py's adapters say True


@dataclass
class Entry:
    function: int
    action: int
    symbol: str = ""
    reason: str = ""
    adapter: int = 0
    semantic: bool = False  # ADAPTER through a semantic adapter (generator/semantic.py)


@dataclass
class ReleasePlan:
    releases: list[Release]
    entries: list[list[Entry]]            # per release (index 0, the newest, has none)
    adapters: list[Adapter]
    history: list[tuple[int, int]]        # per function: added_in release index, changed_in bit mask
    strings: list[str] = field(default_factory=list)

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


def _record_name(canonical: str) -> str | None:
    """The record a one-level pointer parameter points to ("const struct cudaDeviceProp *" ->
    "struct cudaDeviceProp"), else None."""
    text = canonical.strip()
    if not text.endswith("*") or text[:-1].rstrip().endswith("*"):
        return None
    base = text[:-1].strip().removeprefix("const ").strip()
    return base if base.startswith(("struct ", "union ")) else None


def _lookup(records: dict, name: str) -> dict | None:
    return records.get(name) or records.get(name.removeprefix("struct ").removeprefix("union ").strip())


def _copies(to_rec: dict, from_rec: dict, to_base: int, from_base: int, to_records: dict, from_records: dict,
            out: list[FieldCopy], visited: set[str]) -> bool:
    """Copies of every field the two layouts share by name, into records by value (the IR's
    `record` names them; `visited` collects those names). A union is copied as its bytes, as many as
    both have (which member is in use is not in the layout). False when a shared field cannot be
    converted (a scalar or pointer of another size, a field of another kind)."""
    from_fields = {f["name"]: f for f in from_rec["fields"]}
    for t in to_rec["fields"]:
        f = from_fields.get(t["name"])
        if f is None or not t["name"]:
            continue  # only in the layout written to: stays zero
        if t["kind"] != f["kind"]:
            return False
        if t["kind"] == "array":
            out.append(FieldCopy(to_base + t["offset"], from_base + f["offset"], min(t["size"], f["size"])))
            continue
        if t["kind"] != "record" or _same_layout(_lookup(to_records, t.get("record") or ""),
                                                 _lookup(from_records, f.get("record") or "")):
            if t["size"] != f["size"]:
                return False
            out.append(FieldCopy(to_base + t["offset"], from_base + f["offset"], t["size"]))
            continue
        inner_to, inner_from = _lookup(to_records, t.get("record") or ""), _lookup(from_records, f.get("record") or "")
        if inner_to is None or inner_from is None:
            return False
        visited.add(t["record"])
        if "union" in (inner_to.get("kind"), inner_from.get("kind")):
            visited.update(n for n in to_records if n.startswith(t["record"] + "."))
            out.append(FieldCopy(to_base + t["offset"], from_base + f["offset"], min(t["size"], f["size"])))
        elif not _copies(inner_to, inner_from, to_base + t["offset"], from_base + f["offset"], to_records,
                         from_records, out, visited):
            return False
    return True


def _merged(copies: list[FieldCopy]) -> list[FieldCopy]:
    """Adjacent copies that continue each other in both layouts as one."""
    merged: list[FieldCopy] = []
    for c in sorted(copies, key=lambda c: c.to_offset):
        last = merged[-1] if merged else None
        if last and last.to_offset + last.size == c.to_offset and last.from_offset + last.size == c.from_offset:
            last.size += c.size
        else:
            merged.append(FieldCopy(c.to_offset, c.from_offset, c.size))
    return merged


def _same_layout(a: dict | None, b: dict | None) -> bool:
    return a is not None and b is not None and a["size"] == b["size"] and a["fields"] == b["fields"]


def _conversions(function: dict, release: str, newest: str, ir: dict) -> list[Conversion] | str:
    """The conversions an adapter makes for `function` in `release`, or why it cannot adapt."""
    records = ir.get("release_records", {})
    old_records, new_records = records.get(release, {}), records.get(newest, {})
    reached = set(function["releases"][release].get("records", []))

    def same(name: str) -> bool:
        """The same layout, and so has every record it holds by value."""
        old, new = _lookup(old_records, name), _lookup(new_records, name)
        return _same_layout(old, new) and all(same(f["record"]) for f in new["fields"]
                                              if f["kind"] == "record" and f.get("record"))

    differing = {r for r in reached if not same(r)}
    conversions: list[Conversion] = []
    visited: set[str] = set()
    for p in function["params"]:
        name = _record_name(p["canonical"])
        if name is None or name not in differing and name.split(" ", 1)[-1] not in differing:
            continue
        old, new = _lookup(old_records, name), _lookup(new_records, name)
        if old is None or new is None:
            return f"no layout of {name} in CUDA {release}"
        to_old: list[FieldCopy] = []
        to_new: list[FieldCopy] = []
        visited.add(name)
        if not _copies(old, new, 0, 0, old_records, new_records, to_old, visited) or \
                not _copies(new, old, 0, 0, new_records, old_records, to_new, visited):
            return f"{name} has a field of another kind or size in CUDA {release}"
        output = not p["canonical"].strip().startswith("const ")
        conversions.append(Conversion(p["name"], name, p["type"], old["size"], new["size"], _merged(to_old),
                                      _merged(to_new), output,
                                      [] if output else semantic.dropped_fields(name, release, newest, ir, p["name"])))
    unhandled = sorted(r for r in differing if r not in visited and f"struct {r}" not in visited)
    if unhandled:
        return f"{', '.join(unhandled)} is reached other than through one pointer parameter"
    if not conversions:
        return "no record to convert"
    return conversions


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
        for r, release in enumerate(releases[1:], start=1):
            d = per.get(release.name)
            if d is None or not d.get("declared"):
                entries[r].append(Entry(index, ABSENT, "", text(
                    f"it does not exist (added in CUDA {added}, of the releases these bindings read: "
                    f"{', '.join(names)})")))
                continue
            compat = d.get("compat", "identical")
            call = d.get("call_symbol") or (d.get("equivalent") if compat == "signature" else d.get("symbol"))
            if compat == "identical" and call in (None, f["symbol"]):
                continue
            if compat in ("identical", "renamed") or (compat == "signature" and call):
                entries[r].append(Entry(index, SYMBOL, text(call)))
                continue
            if compat == "layout":
                conversions = _conversions(f, release.name, newest_name, f_ir)
                if not isinstance(conversions, str):
                    adapter = Adapter(len(adapters), f, release.name, d["symbol"], conversions, index)
                    adapters.append(adapter)
                    entries[r].append(Entry(index, ADAPTER, text(d["symbol"]), text(
                        f"{d.get('reason') or 'a record has another layout'}: called through an adapter that "
                        f"converts it field by field"), adapter.index))
                    continue
                reason = f"{d.get('reason') or 'a record has another layout'} ({conversions})"
            else:
                reason = d.get("reason") or "its signature differs"
                # hook: an entry point of that release that does the same (generator/semantic.py)
                mapped = semantic.adapter(f, release.name, newest_name, f_ir, len(adapters), index)
                if mapped is not None:
                    adapters.append(mapped)  # type: ignore[arg-type]
                    entries[r].append(Entry(index, ADAPTER, text(mapped.symbol), text(mapped.reason), mapped.index,
                                            semantic=True))
                    continue
            first_callable = _first_callable(per, names)
            needs = f"; it needs CUDA {first_callable} or newer" if first_callable else ""
            entries[r].append(Entry(index, REFUSED, "", text(
                f"the CUDA {newest_name} form does not exist: {reason}{needs}")))
    return ReleasePlan(releases, entries, adapters, history, strings)


def _first_callable(per: dict, names: list[str]) -> str | None:
    """The oldest release read where the newest form can be called (the same ABI under some name)."""
    oldest = None
    for name in names:
        d = per.get(name)
        if d is None or not d.get("declared"):
            break
        compat = d.get("compat", "identical")
        if compat in ("identical", "renamed") or (compat == "signature" and d.get("equivalent")):
            oldest = name
        else:
            break
    return oldest
