"""Field-by-field conversion of a record between two releases' layouts (docs/releases.md): the
conversion table an adapter applies around a call, one for both directions (each field both
layouts have: its offset in the newest layout, in the older one, and its size), built from the
layouts the IR holds (`release_records`); and what of the newest layout the older one cannot carry
(`not_carried`), which an adapter refuses to drop, wherever the record travels. generator/release_compare.py
builds the tables to decide whether a function can be adapted (and names the obstacle when it cannot);
generator/release_calls.py builds the same tables from the IR to emit them. Nothing here decides which
records differ."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import release_ir


@dataclass
class FieldCopy:
    to_offset: int
    from_offset: int
    size: int


@dataclass(frozen=True)
class FieldPair:
    """A field both layouts have: where it is in the newest layout and in the older one."""
    new_offset: int
    old_offset: int
    size: int


@dataclass(frozen=True)
class Selected:
    """When a part of a record counts: while the union member it is in is in use, which the record's
    selector field says (generator/semantic.toml's [[selector]], the IR's `selectors`)."""
    offset: int       # the selector field's offset in the record passed
    size: int
    field: str        # its path there: "type"
    value: str        # the enumerator that puts the member in use: "cudaGraphNodeTypeMemAlloc"


@dataclass(frozen=True)
class NotCarried:
    """A part of a record's newest layout that an older layout cannot carry: a field the older one
    lacks, the bytes of an array or of a union beyond its size there. An adapter refuses a call that
    sets it to other than zero, naming it (docs/releases.md, "No silent drop")."""
    offset: int
    size: int
    name: str                    # its path in the record: "usage", "res beyond byte 56", "alloc.poolProps.usage"
    when: Selected | None = None  # None: always; else only while its union member is in use


class NotCarriedError(Exception):
    """A record pair whose not-carried parts cannot be stated (a union member that differs, with no
    selector saying when it is in use; a field of another kind or size)."""


@dataclass
class Conversion:
    """One pointer parameter whose record is converted around the call, or (a semantic adapter's)
    passed as it is to an entry point whose layout of it is older."""
    param: str
    record: str
    type: str               # the parameter's type as the function takes it (C spelling)
    old_size: int
    new_size: int
    fields: list[FieldPair]  # the table: to the older layout before the call, back after it for an output
    output: bool             # written by the library (a pointer to non-const)
    table: int = -1          # generator/release_calls.py: the library's conversion table it uses
    old_record: str = ""     # the record's name in the older release ("": `record`)
    # what of the newest layout the older one cannot carry (not_carried); a call setting one part to
    # other than zero is refused naming it, when the library reads the record (`checked`)
    not_carried: list[NotCarried] = field(default_factory=list)
    checked: bool = False    # read by the library: an input, or an output it also reads (the IR's `input`)


_SHAPE = ("name", "offset", "size", "kind", "bits")  # what a field's layout is compared by


def record_name(canonical: str) -> str | None:
    """The record a one-level pointer parameter points to ("const struct cudaDeviceProp *" ->
    "struct cudaDeviceProp"), else None."""
    text = canonical.strip()
    if not text.endswith("*") or text[:-1].rstrip().endswith("*"):
        return None
    base = text[:-1].strip().removeprefix("const ").strip()
    return base if base.startswith(("struct ", "union ")) else None


def lookup(records: dict, name: str) -> dict | None:
    return records.get(name) or records.get(name.removeprefix("struct ").removeprefix("union ").strip())


def _same_layout(a: dict | None, b: dict | None) -> bool:
    return a is not None and b is not None and a["size"] == b["size"] and a["fields"] == b["fields"]


def _copies(to_rec: dict, from_rec: dict, to_base: int, from_base: int, to_records: dict, from_records: dict,
            out: list[FieldCopy], visited: set[str], where: str) -> str | None:
    """Copies of every field the two layouts share by name (an anonymous member by its place among
    the anonymous ones), into records by value (the IR's `record` names them; `visited` collects
    those names). A union is copied as its bytes, as many as both have (which member is in use is
    not in the layout). The obstacle (a field of another kind or size, named `where.field`) when a
    shared field cannot be converted, else None."""
    from_fields = {f["name"]: f for f in from_rec["fields"] if f["name"]}
    anonymous = iter([f for f in from_rec["fields"] if not f["name"]])  # C11 anonymous members, in order
    for t in to_rec["fields"]:
        f = from_fields.get(t["name"]) if t["name"] else next(anonymous, None)
        if f is None:
            continue  # only in the layout written to: stays zero
        name = f"{where}.{t['name'] or '(anonymous)'}"
        if t["kind"] != f["kind"]:
            return f"field {name} is a{'n' if f['kind'][0] in 'aeiou' else ''} {f['kind']} in one release, " \
                   f"a{'n' if t['kind'][0] in 'aeiou' else ''} {t['kind']} in the other"
        if t["kind"] == "array":
            out.append(FieldCopy(to_base + t["offset"], from_base + f["offset"], min(t["size"], f["size"])))
            continue
        if t["kind"] != "record" or _same_layout(lookup(to_records, t.get("record") or ""),
                                                 lookup(from_records, f.get("record") or "")):
            if t["size"] != f["size"]:
                return f"field {name} is {f['size']} bytes in one release, {t['size']} in the other"
            out.append(FieldCopy(to_base + t["offset"], from_base + f["offset"], t["size"]))
            continue
        inner_to, inner_from = lookup(to_records, t.get("record") or ""), lookup(from_records, f.get("record") or "")
        if inner_to is None or inner_from is None:
            return f"field {name}: no layout of {t.get('record')}"
        visited.add(t["record"])
        if "union" in (inner_to.get("kind"), inner_from.get("kind")):
            visited.update(n for n in to_records if n.startswith(t["record"] + "."))
            out.append(FieldCopy(to_base + t["offset"], from_base + f["offset"], min(t["size"], f["size"])))
            continue
        obstacle = _copies(inner_to, inner_from, to_base + t["offset"], from_base + f["offset"], to_records,
                           from_records, out, visited, name)
        if obstacle is not None:
            return obstacle
    return None


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


def conversion(param: dict, old_records: dict, new_records: dict, visited: set[str],
               old_name: str | None = None) -> Conversion | str:
    """The conversion of the record IR parameter `param` points to, from the newest release's
    layout (`new_records`) to an older one's and back, or the obstacle (naming the parameter and
    the field). `visited` collects the records converted, nested ones included. `old_name`: the
    record's name in the older release, when it is another (a semantic adapter's prefix record)."""
    name = record_name(param["canonical"])
    if name is None:
        return f"parameter {param['name']} ({param['type']}) is not one pointer to a record"
    old, new = lookup(old_records, old_name or name), lookup(new_records, name)
    if old is None or new is None:
        return f"parameter {param['name']}: no layout of {name} in both releases"
    to_old: list[FieldCopy] = []
    to_new: list[FieldCopy] = []
    visited.add(name)
    short = name.split(" ", 1)[-1]
    obstacle = (_copies(old, new, 0, 0, old_records, new_records, to_old, visited, short)
                or _copies(new, old, 0, 0, new_records, old_records, to_new, visited, short))
    if obstacle is not None:
        return f"parameter {param['name']} ({name}): {obstacle}"
    fields = [FieldPair(c.from_offset, c.to_offset, c.size) for c in _merged(to_old)]
    back = [FieldPair(c.to_offset, c.from_offset, c.size) for c in _merged(to_new)]
    key = lambda f: (f.new_offset, f.old_offset, f.size)  # noqa: E731
    if sorted(fields, key=key) != sorted(back, key=key):  # one table serves both directions
        raise AssertionError(f"{name}: the copies to the older layout are not those back, swapped")
    output = not param["canonical"].strip().startswith("const ")
    return Conversion(param["name"], name, param["type"], old["size"], new["size"], fields, output,
                      old_record=old_name or name, checked=not output or bool(param.get("input")))


# -- no silent drop: what of the newest layout an older one cannot carry ---------------------------
def not_carried(new_name: str, old_name: str, release: str, ir: dict) -> list[NotCarried]:
    """The parts of record `new_name` (the newest layout of `ir`) that `release`'s `old_name` cannot
    carry, stated once per record pair and followed wherever the record holds another: a field the
    older layout lacks; the bytes of an array, or of a union, beyond its size there; recursively
    through records held by value; and through a union member that differs, while it is in use (the
    record holding the union names the field that says which member is: the IR's `selectors`).
    Raises NotCarriedError when that cannot be said."""
    newest = release_ir.newest_name(ir)
    new_records, old_records = release_ir.records_in(ir, newest), release_ir.records_in(ir, release)
    selectors = {s["record"]: s for s in ir.get("selectors", ())}
    where = f"{new_name} in CUDA {release}"
    out: list[NotCarried] = []

    def alike(a: dict | None, b: dict | None) -> bool:
        """Laid out alike, records held by value included (two names may be one layout)."""
        if a is None or b is None or (a["kind"], a["size"], len(a["fields"])) != (b["kind"], b["size"], len(b["fields"])):
            return False
        for x, y in zip(a["fields"], b["fields"]):
            if [x.get(k) for k in _SHAPE] != [y.get(k) for k in _SHAPE]:
                return False
            if (x.get("record") or y.get("record")) and not alike(lookup(new_records, x.get("record") or ""),
                                                                   lookup(old_records, y.get("record") or "")):
                return False
        return True

    def part(new: dict, old: dict, base: int, name: str, when: Selected | None, holder: str, path: str) -> None:
        """Field `new` of the newest layout against `old`, the older one's of that name; `name` its
        path ("" for an anonymous member), `holder` the record holding it, at `base`, whose fields'
        paths begin with `path`."""
        if new["kind"] != old["kind"]:
            raise NotCarriedError(f"{where}: {name or path} is a {old['kind']} there, a {new['kind']} here")
        if new.get("record") or old.get("record"):
            a, b = lookup(new_records, new.get("record") or ""), lookup(old_records, old.get("record") or "")
            if alike(a, b):
                return
            if a is None or b is None or a["kind"] != b["kind"] or new["kind"] != "record":
                raise NotCarriedError(f"{where}: {name or path} holds {new.get('record')}, laid out otherwise there")
            if a["kind"] == "struct":
                struct(a, b, base + new["offset"], f"{name}." if name else path, when, new["record"])
            else:
                union(a, b, base + new["offset"], name, when, holder, base, path)
        elif new["kind"] == "array":
            if new["size"] > old["size"]:
                out.append(NotCarried(base + new["offset"] + old["size"], new["size"] - old["size"],
                                      f"{name} beyond byte {old['size']}", when))
        elif new["size"] != old["size"]:
            raise NotCarriedError(f"{where}: {name} is {old['size']} bytes there, {new['size']} here")

    def struct(new: dict, old: dict, base: int, path: str, when: Selected | None, record: str) -> None:
        named = {f["name"]: f for f in old["fields"] if f["name"]}
        anonymous = iter([f for f in old["fields"] if not f["name"]])  # C11 anonymous members, in order
        for f in new["fields"]:
            o = named.get(f["name"]) if f["name"] else next(anonymous, None)
            name = path + f["name"] if f["name"] else ""
            if o is None:
                out.append(NotCarried(base + f["offset"], f["size"], name or f"{path}(anonymous member)", when))
            else:
                part(f, o, base, name, when, record, path)

    def union(new: dict, old: dict, base: int, name: str, when: Selected | None, holder: str, holder_base: int,
              holder_path: str) -> None:
        """Union `new` at `base`, field `name` ("": anonymous) of record `holder` (at `holder_base`)."""
        if new["size"] > old["size"]:
            out.append(NotCarried(base + old["size"], new["size"] - old["size"],
                                  f"{name or holder_path + '(anonymous union)'} beyond byte {old['size']}", when))
        members = {m["name"]: m for m in old["fields"]}
        for m in new["fields"]:
            o = members.get(m["name"])
            if o is None:
                continue  # a member only the newest has: carried as bytes, as far as the older union goes
            if m.get("record") or o.get("record"):
                if alike(lookup(new_records, m.get("record") or ""), lookup(old_records, o.get("record") or "")):
                    continue
            elif [m.get(k) for k in _SHAPE] == [o.get(k) for k in _SHAPE]:
                continue
            path = f"{name}.{m['name']}" if name else holder_path + m["name"]
            selector = selectors.get(holder)
            if selector is None or m["name"] not in selector["members"]:
                raise NotCarriedError(
                    f"{where}: union member {path} differs in CUDA {release}, and which member is in use is not in the "
                    f"layout: generator/semantic.toml's [[selector]] for {holder} must name the field that says it")
            if when is not None:
                raise NotCarriedError(f"{where}: union member {path} is inside another union member in use")
            field_ = next((f for f in (lookup(new_records, holder) or {"fields": []})["fields"]
                           if f["name"] == selector["field"]), None)
            if field_ is None:
                raise NotCarriedError(f"{where}: {holder} has no field {selector['field']!r} (its [[selector]])")
            selected = Selected(holder_base + field_["offset"], field_["size"], holder_path + selector["field"],
                                selector["members"][m["name"]])
            part(m, o, base, path, selected, holder, f"{path}.")

    new, old = lookup(new_records, new_name), lookup(old_records, old_name)
    if new is None or old is None or new["kind"] != old["kind"]:
        raise NotCarriedError(f"{where}: no {new['kind'] if new else 'layout'} {old_name} there" if new else
                              f"{where}: no layout of {new_name}")
    if new["kind"] == "union":  # a pointer to a union: its bytes beyond the older size
        union(new, old, 0, "", None, new_name, 0, "")
    else:
        struct(new, old, 0, "", None, new_name)
    return out
