"""Compare a unit's functions across the CUDA releases read (docs/releases.md).

Each release's headers give, per function, the symbol its macros select, the canonical signature,
the records it reaches with their layouts and the enums it takes (generator/layout.py, gathered by
parse.build_ir under parse.ABI_KEY). `attach` writes into the newest release's IR, for every
function and every release, that release's facts and how a library of that release must be called
to get the newest release's behaviour:

  identical   the same symbol with the same ABI
  renamed     another symbol with the same ABI: call that one
  layout      the same parameters, but a record reached by pointer or by value is laid out
              otherwise: call the release's symbol through an adapter that converts field by field
  signature   another ABI: call `equivalent` (a symbol of that release with the newest ABI), or,
              when there is none, do not call at all
  absent      not declared by that release
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from . import record_conversion, release_ir
from .parse import ABI_KEY, IRError
from .release_rules import Action

@dataclass(frozen=True)
class ReleaseIR:
    """One release's IR of a unit, as parse.build_ir made it from that release's headers."""
    name: str                  # "12.4"
    cuda_version: int          # CUDA_VERSION of its cuda.h: 12040
    packages: tuple[str, ...]  # "package=version" of the headers read; () for the toolkit's
    ir: dict


def attach(newest: ReleaseIR, older: list[ReleaseIR], first_release: str | None = None) -> dict:
    """newest.ir with the release fields added (docs/ir.md) and its ABI facts removed. `older`:
    the other releases that cover the unit, newest first. `first_release`: the release the unit was
    first bound from (libraries.toml), whose functions stay (keep_first_release)."""
    releases = [newest, *older]
    abi = {r.name: r.ir[ABI_KEY] for r in releases}
    for r in releases:
        _index_symbols(r)
    if first_release is not None:
        keep_first_release(newest, older, first_release)
    used_records: dict[str, set[str]] = {r.name: set() for r in releases}
    for function in newest.ir["functions"]:
        # the newest release that declares it: the newest, or for one it removed the last that had it
        since = next(i for i, r in enumerate(releases) if function["name"] in abi[r.name]["functions"])
        base = releases[since]
        entries = {}
        for r in releases:
            entry = _entry(function, r.name, abi[r.name], base.name, abi[base.name])
            entries[r.name] = entry
            used_records[r.name].update(entry["records"])
            if entry["equivalent"] is not None:
                used_records[r.name].update(abi[r.name]["functions_by_symbol"][entry["equivalent"]]["records"])
        function["releases"] = entries
        function["added_in"] = _added_in(function["name"], releases[since:], abi)
        function["changed_in"] = _changed_in(function["name"], releases, abi)
    ir = newest.ir
    ir["releases"] = [{"name": r.name, "cuda_version": r.cuda_version, "library_version": _version(r.ir),
                       "packages": list(r.packages)} for r in releases]
    ir["release_records"] = {r.name: {name: abi[r.name]["records"][name] for name in sorted(used_records[r.name])}
                             for r in releases}
    ir["release_changes"] = {r.name: _changes(newest.ir, r.ir) for r in older}
    for r in releases:
        r.ir.pop(ABI_KEY, None)
    return release_ir.delta(ir)


def keep_first_release(newest: ReleaseIR, older: list[ReleaseIR], first_release: str) -> None:
    """The functions of a unit that was first bound from an older release stay bound, at their places
    (a library's slots, the inline form's ABI, follow the IR's order): newest.ir's functions become
    those `first_release` declares, in its order, one the newest release removed as the last release
    that has it declares it (`absent` in the releases after), then the newest release's others, in
    its order."""
    first = next((r for r in older if r.name == first_release), None)
    if first is None:
        raise IRError(f"unit {newest.ir['unit']}: first_release {first_release} is not a release read for it")
    by_name = {f["name"]: f for f in newest.ir["functions"]}
    skipped = {s["name"] for s in newest.ir.get("skipped", ())}
    kept = [f["name"] for f in first.ir["functions"]]
    for name in kept:
        if name in by_name:
            continue
        if name in skipped:
            raise IRError(f"unit {newest.ir['unit']}: {name}, bound from CUDA {first_release}'s headers, is skipped "
                          f"by CUDA {newest.name}'s: it cannot stay bound")
        by_name[name] = next(f for r in older for f in r.ir["functions"] if f["name"] == name)
    first_names = set(kept)
    newest.ir["functions"] = [by_name[n] for n in kept] + [f for f in newest.ir["functions"]
                                                          if f["name"] not in first_names]


def _index_symbols(release: ReleaseIR) -> None:
    """Index the release's functions by symbol (functions_by_symbol), checking that no signature
    names an anonymous type (whose spelling would name a place on this machine)."""
    facts = release.ir[ABI_KEY]
    facts["functions_by_symbol"] = {f["symbol"]: f for f in facts["functions"].values()}
    for name, f in facts["functions"].items():
        if "(anonymous" in f["signature"] or "(unnamed" in f["signature"]:
            raise IRError(f"CUDA {release.name}: {name}'s signature names an anonymous type: {f['signature']}")


# -- one function, one release ----------------------------------------------------------------------
def _field_key(field: dict) -> str:
    """A field's identity within its record: its name, or for a C11 anonymous member (no name) the
    record it holds."""
    return field["name"] or field["record"]


def _shape(field: dict) -> tuple:
    """What a field is compared by: offset, size, kind (and a bit field's bits)."""
    bits = field["bits"]
    return (field["offset"], field["size"], field["kind"], None if bits is None else (bits["offset"], bits["width"]))


def _fields(layout: dict) -> dict[str, tuple]:
    """A record's fields as compared: identity -> _shape."""
    return {_field_key(f): _shape(f) for f in layout["fields"]}


def _layout_key(layout: dict) -> tuple:
    """What a layout is compared by: the record's kind, size and alignment, and each field's name,
    offset, size and kind."""
    return (layout["kind"], layout["size"], layout["align"], tuple(_fields(layout).items()))


def is_opaque(layout: dict) -> bool:
    """A record that only holds an array of scalars (`uint64_t data[8]`): the library's state, which
    a caller allocates and never reads; converting it field by field would mean nothing."""
    fields = layout["fields"]
    return (layout["kind"] == "struct" and len(fields) == 1 and fields[0]["kind"] == "array"
            and fields[0]["record"] is None and fields[0]["pointee"] is None)


def compatible(older: dict, newer: dict, older_records: dict, newer_records: dict) -> bool:
    """Whether a record laid out as `newer` is read right by a library built with `older`, and what
    that library writes is read right through `newer`: the same layout; an opaque record at least as
    large (the older library's state fits in it); or an extension, of the same kind, size and
    alignment, in which every field the older release has is unchanged and holds a compatible record,
    and fields only the newer release has take bytes the older one did not name (a union's new
    member comes with a selector value the older library refuses: release_changes lists them)."""
    if _layout_key(older) == _layout_key(newer):
        return True
    if is_opaque(older) and is_opaque(newer):
        return newer["size"] >= older["size"] and newer["align"] >= older["align"]
    if (older["kind"], older["size"], older["align"]) != (newer["kind"], newer["size"], newer["align"]):
        return False
    members = {_field_key(f): f for f in newer["fields"]}
    for field in older["fields"]:
        other = members.get(_field_key(field))
        if other is None or _shape(other) != _shape(field):
            return False
        if field["record"] is not None and field["record"] in older_records and field["record"] in newer_records:
            if not compatible(older_records[field["record"]], newer_records[field["record"]], older_records,
                              newer_records):
                return False
    return True


def _differing(older: dict, older_records: dict, newer: dict, newer_records: dict) -> list[str]:
    """The records both functions reach (by name) that are not compatible. A record that only one
    release has is a field of one that both have, which then differs (or is an extension's new
    member, which an older library never reads)."""
    names = sorted(set(older["records"]) & set(newer["records"]))
    return [n for n in names if n in older_records and n in newer_records
            and not compatible(older_records[n], newer_records[n], older_records, newer_records)]


def same_abi(older: dict, older_abi: dict, newer: dict, newer_abi: dict) -> bool:
    """Whether a function as `newer` declares it is called right by a library built with `older`
    (each with its release's facts): the same signature but for qualifiers, compatible records."""
    return older["abi"] == newer["abi"] and not _differing(older, older_abi["records"], newer, newer_abi["records"])


def _entry(function: dict, release: str, facts: dict, newest: str, newest_facts: dict) -> dict:
    """The release's facts of `function` (the newest release's IR function) and its action there."""
    name, params = function["name"], function["params"]
    mine = facts["functions"].get(name)
    theirs = newest_facts["functions"][name]
    if mine is None:
        return _result(False, None, None, [], [], "absent", None, None,
                       f"not declared by CUDA {release}'s headers", Action.ABSENT)
    compat, equivalent, call, reason, action = "identical", None, mine["symbol"], None, Action.CALL
    conversions: list[dict] = []
    differing = _differing(mine, facts["records"], theirs, newest_facts["records"])
    same_symbol = facts["functions_by_symbol"].get(theirs["symbol"])
    if mine["symbol"] != theirs["symbol"] and same_symbol is not None and same_abi(same_symbol, facts, theirs,
                                                                                  newest_facts):
        # the release's macros pick another symbol, but it declares the newest release's too, alike
        call = theirs["symbol"]
        reason = f"CUDA {release}'s headers call {mine['symbol']}; they declare {theirs['symbol']} too, alike"
    elif mine["abi"] != theirs["abi"]:
        compat, call, action = "signature", None, Action.REFUSE
        equivalent = _equivalent(name, mine["symbol"], theirs, facts, newest_facts)
        reason = _signature_reason(mine, theirs, params, release, newest)
        if equivalent is not None:
            call, action = equivalent, Action.EQUIVALENT
            reason += f"; {equivalent} has the CUDA {newest} form"
        else:
            near = _near_equivalent(name, mine["symbol"], theirs, facts, newest_facts, params, release, newest)
            reason = near if near is not None else f"the CUDA {newest} form does not exist: {reason}"
    elif differing:
        obstacle = _layout_obstacle(differing, mine, facts["records"], theirs, newest_facts["records"], params,
                                    release, newest)
        if isinstance(obstacle, str):
            compat, call, action = "signature", None, Action.REFUSE
            reason = _cannot(mine["symbol"], obstacle, release, newest)
        else:
            compat, action, conversions = "layout", Action.ADAPT, obstacle
            reason = "; ".join(_layout_reason(n, facts["records"], newest_facts["records"], release, newest)
                               for n in differing)
    elif mine["symbol"] != theirs["symbol"]:
        compat = "renamed"
        reason = f"CUDA {release}'s headers call {mine['symbol']}, CUDA {newest}'s {theirs['symbol']}"
    return _result(True, mine["symbol"], mine["signature"], mine["records"], mine["enums"], compat, equivalent,
                   call, reason, action, conversions)


def _result(declared: bool, symbol: str | None, signature: str | None, records: list[str], enums: list[str],
            compat: str, equivalent: str | None, call_symbol: str | None, reason: str | None, action: Action,
            conversions: list[dict] | None = None) -> dict:
    entry = {"declared": declared, "symbol": symbol, "signature": signature, "records": list(records),
             "enums": list(enums), "compat": compat, "equivalent": equivalent, "call_symbol": call_symbol,
             "action": action.value, "reason": reason}
    if action is Action.ADAPT:
        entry["conversions"] = conversions or []
    return entry


def _layout_obstacle(differing: list[str], mine: dict, records: dict, theirs: dict, newest_records: dict,
                     params: list[dict], release: str, newest: str) -> list[dict] | str:
    """The conversions an adapter makes for a function whose signature is the newest's but whose
    records `differing` are not compatible (each `{param, record}`: the record the parameter points
    to, converted field by field, nested records by value included), or what stands in the way,
    naming the parameter and the record's field: the one place that decides whether records can be
    converted (generator/release_calls.py only builds the tables)."""
    obstacle = (_untranslatable(differing, records, newest_records, release, newest)
                or _unreachable(differing, mine, records, theirs, newest_records))
    if obstacle is not None:
        param = _param_reaching(obstacle.split(":", 1)[0].split(" (", 1)[0], theirs, params)
        return f"parameter {param} reaches {obstacle}" if param and not obstacle.startswith("parameter") else obstacle
    conversions, visited = [], set()
    for p in params:
        name = record_conversion.record_name(p["canonical"])
        if name is None or not _holds(name, set(differing), newest_records):
            continue
        made = record_conversion.conversion(p, records, newest_records, visited)
        if isinstance(made, str):
            return made
        conversions.append({"param": p["name"], "record": name})
    unhandled = sorted(r for r in differing if r not in visited and f"struct {r}" not in visited)
    if unhandled:
        param = _param_reaching(unhandled[0], theirs, params)
        if param is not None:  # a typedef of an unnamed record: an adapter converts a struct or union it can name
            return (f"parameter {param} reaches {', '.join(unhandled)}, whose layout differs, which is not a "
                    "struct or union by name")
        return f"{', '.join(unhandled)}, whose layout differs, is reached other than through one pointer parameter"
    return conversions


def _holds(name: str, differing: set[str], records: dict) -> bool:
    """Whether record `name` is one of `differing` or holds one by value (a field's record, recursively)."""
    if name in differing or name.split(" ", 1)[-1] in differing:
        return True
    layout = record_conversion.lookup(records, name)
    return layout is not None and any(f["kind"] == "record" and f["record"] and _holds(f["record"], differing, records)
                                      for f in layout["fields"])


def _param_reaching(record: str, theirs: dict, params: list[dict]) -> str | None:
    """The parameter whose record (by pointer or value) is `record` or holds it as a member."""
    for (reached, _), p in zip(theirs["indirection"], params):
        if reached is not None and (record == reached or record.startswith(reached + ".")):
            return f"{p['name']} ({p['type']})"
    for p in params:  # a handle to a record the caller allocates (caller_storage): not in `indirection`
        held = p["canonical"].strip().removesuffix("*").strip().removeprefix("const ").strip()
        if p["canonical"].strip().endswith("*") and record in (held, held.removeprefix("struct ")):
            return f"{p['name']} ({p['type']})"
    return None


def _near_equivalent(name: str, own_symbol: str, newest: dict, facts: dict, newest_facts: dict, params: list[dict],
                     release: str, newest_release: str) -> str | None:
    """When the release declares a version of the function (as _equivalent names them) with the
    newest release's parameters but records laid out otherwise: that it has it, and the obstacle."""
    for symbol, candidate in sorted(facts["functions_by_symbol"].items(), reverse=True):
        if symbol == own_symbol or candidate["abi"] != newest["abi"]:
            continue
        if _version_suffix(symbol, name) is None and _version_suffix(symbol, newest["symbol"]) is None:
            continue
        differing = _differing(candidate, facts["records"], newest, newest_facts["records"])
        obstacle = _layout_obstacle(differing, candidate, facts["records"], newest, newest_facts["records"], params,
                                    release, newest_release)
        if isinstance(obstacle, str):
            return _cannot(symbol, obstacle, release, newest_release)
    return None


def _cannot(symbol: str, obstacle: str, release: str, newest: str) -> str:
    """A refusal where the release has an entry point with the newest parameters: which, and what
    stands in the way (a parameter, a record's field)."""
    return f"the CUDA {newest} form cannot be called: CUDA {release} has {symbol} with the CUDA {newest} parameters, " \
           f"but {obstacle}"


def _version_suffix(symbol: str, base: str) -> int | None:
    """N when `symbol` is `base` with NVIDIA's `_vN` suffix, 1 when it is `base` itself, else None."""
    if symbol == base:
        return 1
    match = re.fullmatch(re.escape(base) + r"_v(\d+)", symbol)
    return int(match.group(1)) if match else None


def _equivalent(name: str, own_symbol: str, newest: dict, facts: dict, newest_facts: dict) -> str | None:
    """A symbol the release declares, named as a version of the function (`name_vN`, or the newest
    release's own symbol), whose ABI is the newest release's: the highest version wins."""
    best: tuple[int, str] | None = None
    for symbol, candidate in facts["functions_by_symbol"].items():
        if symbol == own_symbol:
            continue
        versions = [v for v in (_version_suffix(symbol, name), _version_suffix(symbol, newest["symbol"]))
                    if v is not None]
        if symbol == newest["symbol"]:
            versions.append(1 << 30)  # the very symbol the newest release calls
        if not versions or not same_abi(candidate, facts, newest, newest_facts):
            continue
        key = (max(versions), symbol)
        if best is None or key > best:
            best = key
    return best[1] if best else None


def _signature_reason(mine: dict, theirs: dict, params: list[dict], release: str, newest: str) -> str:
    """Where two signatures that differ but for qualifiers differ."""
    if len(mine["params"]) != len(theirs["params"]):
        count = len(mine["params"])
        plural = "" if count == 1 else "s"
        return (f"{count} parameter{plural} in CUDA {release}, {len(theirs['params'])} in CUDA {newest}"
                + _parameters_apart(mine, theirs, [p["name"] for p in params], release, newest))
    if mine["abi_result"] != theirs["abi_result"]:
        return f"returns {mine['result']} in CUDA {release}, {theirs['result']} in CUDA {newest}"
    for i, (a, b) in enumerate(zip(mine["abi_params"], theirs["abi_params"])):
        if a != b:
            return (f"parameter {i + 1} ({params[i]['name']}) is {mine['params'][i]} in CUDA {release}, "
                    f"{theirs['params'][i]} in CUDA {newest}")
    raise AssertionError("signatures differ in no part")


def _parameters_apart(mine: dict, theirs: dict, newer: list[str], release: str, newest: str) -> str:
    """The parameters, by name, that one form has and the other lacks (`: edgeData only in CUDA
    13.0's`), found by aligning the two lists of parameter types (a parameter renamed but of the same
    type is the same one), or "" when the older names are not known."""
    older = mine.get("names") or []
    if len(older) != len(mine["abi_params"]):
        return ""
    only_old: list[str] = []
    only_new: list[str] = []
    matcher = difflib.SequenceMatcher(None, mine["abi_params"], theirs["abi_params"], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            only_old += older[i1:i2]
            only_new += newer[j1:j2]
    parts = [f"{', '.join(n or '(unnamed)' for n in names)} only in CUDA {r}'s"
             for names, r in ((only_new, newest), (only_old, release)) if names]
    return ": " + "; ".join(parts) if parts else ""


def _untranslatable(differing: list[str], records: dict, newest_records: dict, release: str, newest: str) -> str | None:
    """Why records whose layouts differ cannot be converted field by field, or None when they can:
    none is opaque state (is_opaque: then the newest release's is too small for the older one's),
    and a union that differs keeps every member both releases have as it is (it is converted as its
    bytes: which member is in use is not in the layout)."""
    for name in differing:
        mine, theirs = records[name], newest_records[name]
        if is_opaque(mine) and is_opaque(theirs):
            return (f"{name} (the library's opaque state, in memory the caller allocates) is "
                    f"{mine['size']} bytes in CUDA {release}, {theirs['size']} in CUDA {newest}: "
                    "too small for that release's state")
        if mine["kind"] == "union" or theirs["kind"] == "union":
            members, newest_members = _fields(mine), _fields(theirs)
            changed = sorted({m for m in members.keys() & newest_members.keys() if members[m] != newest_members[m]}
                             | {_field_key(f) for f in mine["fields"] if f["record"] in differing})
            if mine["kind"] != theirs["kind"] or changed:
                return (f"{name}: union member {', '.join(changed) or 'layout'} differs between CUDA {release} and "
                        f"CUDA {newest}, and which member is in use is not in the layout")
    return None


def _unreachable(differing: list[str], mine: dict, records: dict, theirs: dict, newest_records: dict) -> str | None:
    """Why an adapter could not reach a record whose layout differs, or None: it converts what a
    parameter holds or points to directly (one record), never what a record points to, nor what a
    parameter reaches through a pointer to a pointer."""
    for i, ((record, depth), (_, newest_depth)) in enumerate(zip(mine["indirection"], theirs["indirection"])):
        if record in differing and max(depth, newest_depth) > 1:
            return f"parameter {i + 1} reaches {record}, whose layout differs, through {depth} pointers"
    for name in sorted(set(mine["records"]) | set(theirs["records"])):
        for layout in (records.get(name), newest_records.get(name)):
            for field in layout["fields"] if layout else ():
                if field["pointee"] in differing:
                    return (f"record {name} contains a pointer to a record whose layout differs "
                            f"({field['name']}: {field['pointee']})")
    return None


def _layout_reason(name: str, records: dict, newest_records: dict, release: str, newest: str) -> str:
    mine, theirs = records[name], newest_records[name]
    if mine["size"] != theirs["size"]:
        return f"{name} is {mine['size']} bytes in CUDA {release}, {theirs['size']} in CUDA {newest}"
    fields, newest_fields = _fields(mine), _fields(theirs)
    changed = sorted(n for n in fields.keys() | newest_fields.keys() if fields.get(n) != newest_fields.get(n))
    return f"{name} ({mine['size']} bytes in both) lays out {', '.join(changed) or 'its alignment'} otherwise"


# -- one function, every release ------------------------------------------------------------------
def _added_in(name: str, releases: list[ReleaseIR], abi: dict) -> str:
    """The oldest release of the run, from the newest down, of releases that declare the function."""
    added = releases[0].name
    for r in releases[1:]:
        if name not in abi[r.name]["functions"]:
            break
        added = r.name
    return added


def _changed_in(name: str, releases: list[ReleaseIR], abi: dict) -> list[str]:
    """The releases whose ABI of the function differs from that of the next older release read, oldest first."""
    changed = []
    oldest_first = list(reversed(releases))
    for older, newer in zip(oldest_first, oldest_first[1:]):
        a = abi[older.name]["functions"].get(name)
        b = abi[newer.name]["functions"].get(name)
        if a is not None and b is not None and not same_abi(a, abi[older.name], b, abi[newer.name]):
            changed.append(newer.name)
    return changed


# -- a unit, a release ------------------------------------------------------------------------------
def _version(ir: dict) -> dict:
    parts = [int(p) for p in ir["header_version"].split(".")] + [0, 0]
    return {"major": parts[0], "minor": parts[1], "patch": parts[2]}


def _enumerators(ir: dict) -> dict[str, tuple[str | None, int]]:
    """Every enumerator of the unit's enums: name -> (its enum's name, value)."""
    found = {}
    for entry in ir["types"]:
        if entry["kind"] == "enum":
            for constant in entry["constants"]:
                found[constant["name"]] = (entry["name"] or entry["typedef"], constant["value"])
    return found


def _changes(newest: dict, older: dict) -> dict:
    """The enumerators and integer #defines an older release drops, renumbers or lacks."""
    ours, theirs = _enumerators(older), _enumerators(newest)
    constants = {c["name"]: c["value"] for c in older["constants"]}
    newest_constants = {c["name"]: c["value"] for c in newest["constants"]}

    def enumerator(name: str, table: dict) -> dict:
        return {"name": name, "enum": table[name][0], "value": table[name][1]}

    def by_enum(names: set[str], table: dict) -> list[str]:
        return sorted(names, key=lambda n: (table[n][0] or "", n))

    return {
        "enumerators": {
            "dropped": [enumerator(n, ours) for n in by_enum(ours.keys() - theirs.keys(), ours)],
            "renumbered": [enumerator(n, ours) | {"newest_value": theirs[n][1]}
                           for n in by_enum(ours.keys() & theirs.keys(), ours) if ours[n][1] != theirs[n][1]],
            "missing": [enumerator(n, theirs) for n in by_enum(theirs.keys() - ours.keys(), theirs)],
        },
        "constants": {
            "dropped": [{"name": n, "value": constants[n]} for n in sorted(constants.keys() - newest_constants.keys())],
            "renumbered": [{"name": n, "value": constants[n], "newest_value": newest_constants[n]}
                           for n in sorted(constants.keys() & newest_constants.keys())
                           if constants[n] != newest_constants[n]],
            "missing": [{"name": n, "value": newest_constants[n]}
                        for n in sorted(newest_constants.keys() - constants.keys())],
        },
    }
