"""Field-by-field conversion of a record between two releases' layouts (docs/releases.md): the
conversion table an adapter applies around a call, one for both directions (each field both
layouts have: its offset in the newest layout, in the older one, and its size), built from the
layouts the IR holds (`release_records`). generator/release_compare.py builds them to decide whether a function can be adapted
(and names the obstacle when it cannot); generator/release_calls.py builds the same tables from the
IR to emit them. Nothing here decides which records differ."""

from __future__ import annotations

from dataclasses import dataclass, field


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


@dataclass
class Conversion:
    """One pointer parameter whose record is converted around the call."""
    param: str
    record: str
    type: str               # the parameter's type as the function takes it (C spelling)
    old_size: int
    new_size: int
    fields: list[FieldPair]  # the table: to the older layout before the call, back after it for an output
    output: bool             # written by the library (a pointer to non-const)
    table: int = -1          # generator/release_calls.py: the library's conversion table it uses
    # an input's fields the release cannot carry: (offset, size, name); a call setting one to other
    # than zero is refused naming it (generator/semantic.py's dropped_fields; issue 28 item 5)
    dropped: list[tuple[int, int, str]] = field(default_factory=list)


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
    """Copies of every field the two layouts share by name, into records by value (the IR's
    `record` names them; `visited` collects those names). A union is copied as its bytes, as many as
    both have (which member is in use is not in the layout). The obstacle (a field of another
    kind or size, named `where.field`) when a shared field cannot be converted, else None."""
    from_fields = {f["name"]: f for f in from_rec["fields"]}
    for t in to_rec["fields"]:
        f = from_fields.get(t["name"])
        if f is None or not t["name"]:
            continue  # only in the layout written to: stays zero
        name = f"{where}.{t['name']}"
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


def conversion(param: dict, old_records: dict, new_records: dict, visited: set[str]) -> Conversion | str:
    """The conversion of the record IR parameter `param` points to, from the newest release's
    layout (`new_records`) to an older one's and back, or the obstacle (naming the parameter and
    the field). `visited` collects the records converted, nested ones included."""
    name = record_name(param["canonical"])
    if name is None:
        return f"parameter {param['name']} ({param['type']}) is not one pointer to a record"
    old, new = lookup(old_records, name), lookup(new_records, name)
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
    return Conversion(param["name"], name, param["type"], old["size"], new["size"], fields, output)
