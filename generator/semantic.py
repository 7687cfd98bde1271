"""Semantic adapters (docs/releases.md, "Semantic adapters"): a function an older release refuses
(its newest form does not exist there) is called through another entry point of that release that
does what the newest form asks, for the arguments it can take; for the others the call is refused,
saying why, before anything is called or written.

Each mapping is data (generator/semantic.toml, named by libraries.toml's [generator] semantic).
`entry_facts` reads the older entry point's parameters from that release's own headers (the
parse's ABI facts, before compat.attach drops them); `attach` checks each mapping against the
function and writes it into the IR (a release entry's `semantic`); `attach_records` does the same
for what the adapters need of records beyond their layouts (the same file's [[selector]] and
[[read_written]]); `adapter` turns a mapping into what templates/_semantic.j2 emits (an adapter of
the loader's table, action ADAPTER). Nothing here is specific to one function.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import record_conversion, release_ir
from .parse import ABI_KEY, IRError
from .record_conversion import Conversion, NotCarried, NotCarriedError, lookup
from .release_rules import Action

_CONSTANT = re.compile(r"^(NULL|-?[0-9]+|[A-Za-z_][A-Za-z0-9_]*)$")


def entry_facts(mappings: tuple[dict, ...], older: list) -> dict[tuple[str, str], dict]:
    """(function, release) -> the entry point's facts in that release's headers: its symbol,
    result and parameters (canonical C types). `older`: compat.ReleaseIR of one unit, whose ABI
    facts are still there."""
    found: dict[tuple[str, str], dict] = {}
    for release in older:
        facts = release.ir.get(ABI_KEY) or {}
        by_symbol = {f["symbol"]: f for f in facts.get("functions", {}).values()}
        for m in mappings:
            if release.name not in m["releases"]:
                continue
            entry = by_symbol.get(m["entry"]) or facts.get("functions", {}).get(m["entry"])
            if entry is not None:
                found[(m["function"], release.name)] = {"entry": m["entry"], "result": entry["result"],
                                                        "params": list(entry["params"])}
    return found


def attach(ir: dict, mappings: tuple[dict, ...], facts: dict[tuple[str, str], dict]) -> None:
    """Each mapping of one of `ir`'s functions, checked, into `function.releases[release].semantic`."""
    functions = {f["name"]: f for f in ir["functions"]}
    for m in mappings:
        f = functions.get(m["function"])
        if f is None:
            continue
        for release in m["releases"]:
            d = (f.get("releases") or {}).get(release)
            if d is None:
                continue
            where = f"semantic mapping of {f['name']} in CUDA {release}"
            entry = facts.get((f["name"], release))
            if entry is None:
                raise IRError(f"{where}: CUDA {release}'s headers declare no {m['entry']}")
            if d.get("action") not in (Action.REFUSE.value, Action.SEMANTIC.value):
                raise IRError(f"{where}: the function is callable there ({d.get('action')}); no mapping is needed")
            if len(m["args"]) != len(entry["params"]):
                raise IRError(f"{where}: {m['entry']} takes {len(entry['params'])} parameters in CUDA {release}, "
                              f"the mapping gives {len(m['args'])}")
            _check_names(m, f, where)
            d["semantic"] = {**entry, "args": m["args"], "require": m.get("require", []), "after": m.get("after", []),
                             "status_map": m.get("status_map", [])}
            # the IR states the action once (release_rules): called, through m["entry"]
            d["action"], d["call_symbol"] = Action.SEMANTIC.value, m["entry"]


def attach_records(ir: dict, selectors: tuple[dict, ...], read_written: tuple[dict, ...]) -> None:
    """What the release adapters need of `ir`'s records beyond their layouts, checked and written into
    the IR: each [[selector]] of a record the IR lays out (its `selectors`: the field of the record
    whose enumerator says which member of its union is in use, per member), and each [[read_written]]
    parameter of its functions (`input`: a record through a pointer to non-const that the function
    reads as well as writes, whose fields an older release cannot carry are then checked going in)."""
    if not ir.get("releases"):
        return
    records = release_ir.records_in(ir, release_ir.newest_name(ir))
    enums = {t["name"]: {c["name"] for c in t["constants"]} for t in ir["types"] if t["kind"] == "enum" and t["name"]}
    made = []
    for s in selectors:
        layout = records.get(s["record"])
        if layout is None:
            continue
        where = f"[[selector]] of {s['record']}"
        field_ = next((f for f in layout["fields"] if f["name"] == s["field"]), None)
        if field_ is None or not field_["canonical"].startswith("enum "):
            raise IRError(f"{where}: it has no enum field {s['field']!r}")
        values = enums.get(field_["canonical"].removeprefix("enum ").strip(), set())
        unions = [records[f["record"]] for f in layout["fields"]
                  if f["kind"] == "record" and (records.get(f["record"] or "") or {}).get("kind") == "union"]
        if len(unions) != 1:
            raise IRError(f"{where}: it holds {len(unions)} unions, not one")
        members = {m["name"] for m in unions[0]["fields"]}
        for member, value in s["members"].items():
            if member not in members:
                raise IRError(f"{where}: its union has no member {member!r}")
            if value not in values:
                raise IRError(f"{where}: {value} is not an enumerator of {field_['canonical']}")
        made.append({"record": s["record"], "field": s["field"], "members": dict(s["members"])})
    if made:
        ir["selectors"] = made
    functions = {f["name"]: f for f in ir["functions"]}
    for r in read_written:
        f = functions.get(r["function"])
        if f is None:
            continue
        p = next((p for p in f["params"] if p["name"] == r["param"]), None)
        if p is None or not p.get("output"):
            raise IRError(f"[[read_written]] {r['function']}.{r['param']}: not a parameter {r['function']} writes through")
        p["input"] = True


def _check_names(m: dict, f: dict, where: str) -> None:
    """Every parameter a mapping names is one of the newest form's, every constant an identifier."""
    names = {p["name"] for p in f["params"]}

    def param(name: str) -> None:
        if name not in names:
            raise IRError(f"{where}: {f['name']} has no parameter {name!r}")

    def constant(text: str) -> None:
        if not _CONSTANT.match(text):
            raise IRError(f"{where}: {text!r} is not a constant")

    for a in m["args"]:
        if isinstance(a, str):
            param(a)
        elif "scalar" in a:
            param(a["scalar"])
            for c in a["cases"]:
                constant(c["equals"])
                if "value" in c:
                    constant(c["value"])
        elif "record" in a:
            param(a["record"])
        elif "value" in a:
            constant(a["value"])
    for r in m.get("require", []):
        param(r["param"])
        if "member" in r:  # the record's own fact, for every path it travels: generator/record_conversion.py
            raise IRError(f"{where}: a union member's fields are checked through its record's [[selector]], "
                          "not a mapping's require")
        if "default_elements" in r:
            param(r["default_elements"])
        if "equals" in r:
            constant(r["equals"])
    for a in m.get("after", []):
        param(a.get("store") or a.get("zero_elements"))
        for key in ("count", "if_set"):
            if key in a:
                param(a[key])


# -- what the template emits ----------------------------------------------------------------------
# Each piece below also says how generated/tests/semantic_calls.c (templates/semantic_calls.c.j2)
# exercises it, in C statements over the newest form's parameters: there every pointer parameter
# points to a zeroed buffer, every other parameter is zero, and `satisfy` makes the call one the
# older entry point can make.
@dataclass
class Check:
    condition: str      # C: true when the call cannot be made
    reason: str
    violate: list[str] = field(default_factory=list)  # statements that make `condition` true


@dataclass
class Scalar:
    name: str           # the local passed
    type: str
    cases: list[tuple[str, str]]  # (C condition, C value)
    reason: str         # none of them
    satisfy: str = ""   # a statement selecting the first case
    violate: str = ""   # one selecting none


@dataclass
class After:
    condition: str      # C: when to write (besides the call's success unless `always`)
    statements: list[str]
    always: bool = False
    prepare: list[str] = field(default_factory=list)  # statements giving the target a value to overwrite
    expect: list[str] = field(default_factory=list)   # C: true when it was written, after a mock call


@dataclass
class SemanticAdapter:
    index: int
    function: dict
    release: str
    symbol: str
    function_index: int
    result: str                        # the entry point's result type (C)
    params: list[str]                  # the entry point's parameter types (C), in order
    args: list[str]                    # C expressions passed, in order
    locals: list[tuple[str, str]]      # (name, type), zeroed
    captures: list[tuple[str, str, str]]  # (name, type, C expression) read before the call
    checks: list[Check]
    scalars: list[Scalar]
    after: list[After]
    reason: str
    # (status, status, pointer or ""): an answer of the entry point that the newest form gives otherwise,
    # taken as the second, with the pointer's target set to NULL (11.8's cudaGetDriverEntryPoint
    # answers cudaErrorSymbolNotFound where the newest form answers cudaSuccess and says so in
    # driverStatus); applied before `after`
    status_map: list[tuple[str, str, str]] = field(default_factory=list)
    conversions: list = field(default_factory=list)  # none: release_calls' record adapters have them
    # the records passed as they are (or as the older entry point's prefix record) that the release lays
    # out otherwise and the entry point reads: each checked by its conversion table's parts not carried
    records: list[Conversion] = field(default_factory=list)
    semantic: bool = True
    expected: list[str | None] = field(default_factory=list)  # per entry point parameter, the value it
    # is given (C over the newest form's parameters), None for a local (any value)
    satisfy: list[str] = field(default_factory=list)  # statements meeting `require`'s equalities


def _pointee(c_type: str) -> str:
    text = c_type.strip()
    if not text.endswith("*"):
        raise IRError(f"semantic local of a non-pointer parameter type {c_type!r}")
    return text[:-1].strip()


def adapter(f: dict, release: str, newest: str, ir: dict, index: int, function_index: int) -> SemanticAdapter | None:
    """The semantic adapter of `f` in `release`, when the IR has a mapping, else None."""
    d = (f.get("releases") or {}).get(release) or {}
    s = d.get("semantic")
    if not s:
        return None
    params = {p["name"]: p for p in f["params"]}
    args: list[str] = []
    locals_: list[tuple[str, str]] = []
    captures: list[tuple[str, str, str]] = []
    scalars: list[Scalar] = []
    checks: list[Check] = []
    after: list[After] = []
    expected: list[str | None] = []
    satisfy: list[str] = []
    records: list[Conversion] = []
    entry_params = list(s["params"])
    for i, (a, c_type) in enumerate(zip(s["args"], s["params"])):
        if isinstance(a, str):
            args.append(f"({c_type}){a}")
            expected.append(args[-1])
            records.extend(_checked_record(f, params[a], None, release, newest, ir))
        elif "local" in a:
            locals_.append((f"cubind_local_{a['local']}", _pointee(c_type)))
            args.append(f"&cubind_local_{a['local']}")
            expected.append(None)
        elif "record" in a:
            name = a["record"]
            # a pointer to a record of another tag, which cubind's headers do not declare: a pointer alike
            entry_params[i] = "const void *" if c_type.strip().startswith("const ") else "void *"
            args.append(f"({entry_params[i]}){name}")
            old_record = _prefix(f, name, c_type, release, newest, ir)
            if a.get("out"):  # what the older release does not write reads as default
                for part in _cleared_parts(f, params[name], old_record, release, newest, ir):
                    where = f"(unsigned char *)(void *){name} + {part.offset}"
                    after.append(After(f"{name} != NULL", [f"cubind__semantic_clear({where}, {part.size}, 1);"],
                                       prepare=[f"memset({where}, 0x5c, {part.size});"],
                                       expect=[f"cubind_test_zero({where}, {part.size})"]))
            else:
                records.extend(_checked_record(f, params[name], old_record, release, newest, ir))
            expected.append(args[-1])
        elif "scalar" in a:
            name, source = f"cubind_arg_{i}", a["scalar"]
            access = "->" if params[source]["category"] == "pointer" else "."
            cases = [(f"{source}{access}{c['field']} == {c['equals']}",
                      c["value"] if "value" in c else f"{source}{access}{c['from']}") for c in a["cases"]]
            first = a["cases"][0]
            scalars.append(Scalar(name, c_type, cases, a["otherwise"],
                                  f"{source}{access}{first['field']} = {first['equals']};",
                                  f"{source}{access}{first['field']} = 0x7ffe;"))
            args.append(name)
            expected.append(f"({c_type})({cases[0][1]})")
        else:
            args.append(f"({c_type}){a['value']}")
            expected.append(args[-1])
    for r in s["require"]:
        p = r["param"]
        if "default_elements" in r:
            n = r["default_elements"]
            count = f"*{n} = 1;" if params[n]["category"] == "pointer" else f"{n} = 1;"
            checks.append(Check(f"{p} != NULL && !cubind__semantic_zero({p}, {n}, sizeof *{p})",
                                r["otherwise"], [count, _set_byte(p, 0)]))
        else:
            checks.append(Check(f"{p} != {r['equals']}", r["otherwise"], [_unequal(params[p], r["equals"])]))
            satisfy.append(f"{p} = ({params[p]['type']}){r['equals']};")
    for k, a in enumerate(s["after"]):
        if "zero_elements" in a:
            p, n = a["zero_elements"], a["count"]
            count = f"cubind_count_{k}"
            captures.append((count, "size_t", f"{n} != NULL ? (size_t)*{n} : 0"))
            after.append(After(f"{p} != NULL && {a['if_set']} != NULL",
                               [f"cubind__semantic_clear({p}, {count}, sizeof *{p});"], a.get("always", False),
                               [f"*{n} = 1;", f"memset({p}, 0x5c, sizeof *{p});"],
                               [f"cubind_test_zero({p}, sizeof *{p})"]))
            continue
        p = a["store"]
        if "fields" in a:
            statements = [f"{p}->{name} = {_value(v)};" for name, v in a["fields"].items()]
            expect = [f"{p}->{name} == {_written(v)}" for name, v in a["fields"].items()]
        else:
            statements = [f"*{p} = {_value(a['value'])};"]
            expect = [f"*{p} == {_written(a['value'])}"]
        after.append(After(f"{p} != NULL", statements, a.get("always", False), [f"memset({p}, 0x5c, sizeof *{p});"],
                           expect))
    conditions = [f"{c.param}->{p.name} is set{_while(c.param, p)}, which CUDA {release}'s {c.old_record} does not have"
                  for c in records for p in c.not_carried] + [c.reason for c in checks] + [sc.reason for sc in scalars]
    unless = f"; refused, writing nothing, when {'; or when '.join(conditions)}" if conditions else ""
    reason = (f"{d.get('reason') or f'the CUDA {newest} form does not exist'}: called through "
              f"{s['entry']}, which does the same for the arguments it can take{unless}")
    status_map = [(m["from"], m["to"], m.get("clear", "")) for m in s.get("status_map", [])]
    if status_map:
        reason += "; " + "; ".join(f"its {a} is the newest form's {b}" + (f" (with *{c} NULL)" if c else "")
                                   for a, b, c in status_map)
    return SemanticAdapter(index, f, release, s["entry"], function_index, s["result"], entry_params, args, locals_,
                           captures, checks, scalars, after, reason, status_map, records=records, expected=expected,
                           satisfy=satisfy)


def _while(param: str, part: NotCarried) -> str:
    """" while nodeParams->type is cudaGraphNodeTypeGraph" for a part of a union member, else ""."""
    return f" while {param}->{part.when.field} is {part.when.value}" if part.when else ""


def _parts(f: dict, p: dict, old_record: str | None, release: str, newest: str, ir: dict) -> list[NotCarried]:
    """What `release` cannot carry of the record parameter `p` points to, passed to the older entry
    point as it is (`old_record` None) or as that release's `old_record`: its record pair's parts not
    carried (generator/record_conversion.py). None for another parameter or a record it lacks."""
    name = record_conversion.record_name(p["canonical"])
    new_records, old_records = release_ir.records_in(ir, newest), release_ir.records_in(ir, release)
    if name is None or lookup(new_records, name) is None or lookup(old_records, old_record or name) is None:
        return []
    try:
        return record_conversion.not_carried(name, old_record or name, release, ir)
    except NotCarriedError as e:
        raise IRError(f"{f['name']} in CUDA {release}: {p['name']} ({name}): {e}") from None


def _checked_record(f: dict, p: dict, old_record: str | None, release: str, newest: str, ir: dict) -> list[Conversion]:
    """The record `p` points to, going in, when `release` cannot carry all of it: its conversion,
    whose table's parts not carried the adapter checks before the call. A record through a pointer to
    non-const, passed as it is, must say whether the function reads it."""
    parts = _parts(f, p, old_record, release, newest, ir)
    if not parts:
        return []
    name = record_conversion.record_name(p["canonical"])
    where = f"{f['name']} in CUDA {release}: {p['name']} ({name})"
    if old_record is None and not p["canonical"].strip().startswith("const ") and not p.get("input"):
        raise IRError(f"{where}: passed as it is, and CUDA {release} cannot carry "
                      f"{', '.join(part.name for part in parts)}: generator/semantic.toml must say whether "
                      f"{f['name']} reads it ([[read_written]])")
    made = record_conversion.conversion(p, release_ir.records_in(ir, release), release_ir.records_in(ir, newest), set(),
                                        old_record)
    if isinstance(made, str):
        raise IRError(f"{where}: {made}")
    made.not_carried, made.checked = parts, True
    return [made]


def _cleared_parts(f: dict, p: dict, old_record: str, release: str, newest: str, ir: dict) -> list[NotCarried]:
    """The parts of the record `p` points to that `release`'s `old_record`, written by the older entry
    point, does not have: the adapter clears them after the call."""
    parts = _parts(f, p, old_record, release, newest, ir)
    if any(part.when for part in parts):
        raise IRError(f"{f['name']} in CUDA {release}: {p['name']}: a union member's part cannot be cleared coming "
                      "out (which member is in use is the library's to say)")
    return parts


def _record_of(c_type: str) -> str:
    """The record a pointer type points to: `const struct X *` -> `struct X`."""
    return c_type.strip().removesuffix("*").strip().removeprefix("const ").strip()


def _prefix(f: dict, param: str, old_type: str, release: str, newest: str, ir: dict) -> str:
    """The entry point's record (`old_type`, another name than the record `param` points to), after
    checking that it is the newer one's prefix: each of its fields is the newer one's of that name,
    at the same offset and size (a reserved array may give its first bytes to new fields), nested
    records alike or a prefix in turn. What it lacks must be zero going in (checked by the pair's
    conversion table), and is cleared coming out."""
    new_records, old_records = release_ir.records_in(ir, newest), release_ir.records_in(ir, release)
    p = next(p for p in f["params"] if p["name"] == param)
    new_name, old_name = _record_of(p["canonical"]), _record_of(old_type)
    where = f"{f['name']}: {param} ({new_name}) passed as {old_name} of CUDA {release}"

    def check(new: dict | None, old: dict | None, path: str) -> None:
        if new is None or old is None:
            raise IRError(f"{where}: no layout of {path or new_name} in both releases")
        if new["kind"] != old["kind"] or old["size"] > new["size"]:
            raise IRError(f"{where}: {path or old_name} is not a prefix of the CUDA {newest} record")
        newer = {x["name"]: x for x in new["fields"] if x["name"]}
        for o in old["fields"]:
            n = newer.get(o["name"])
            if n is None or n["kind"] != o["kind"]:
                raise IRError(f"{where}: field {path}{o['name'] or '(anonymous)'} is not in the CUDA {newest} record")
            end = (o["offset"] + o["size"], n["offset"] + n["size"])
            shrunk = o["kind"] == "array" and n["offset"] >= o["offset"] and end[0] == end[1]
            if (n["offset"], n["size"]) != (o["offset"], o["size"]) and not shrunk:
                raise IRError(f"{where}: field {path}{o['name']} moved between CUDA {release} and {newest}")
            if o["kind"] == "record":
                a, b = lookup(new_records, n.get("record") or ""), lookup(old_records, o.get("record") or "")
                if a != b:
                    check(a, b, f"{path}{o['name']}.")

    check(lookup(new_records, new_name), lookup(old_records, old_name), "")
    return old_name


def _set_byte(param: str, offset: int) -> str:
    """A test's statement making byte `offset` of what `param` points to non-zero."""
    return f"((unsigned char *)(void *){param})[{offset}] = 1;"


def _unequal(param: dict, constant: str) -> str:
    """A test's statement giving `param` a value other than `constant`."""
    if param["category"] in ("pointer", "function_pointer"):
        return f"{param['name']} = ({param['type']})(void *)cubind_other.bytes;"
    return f"{param['name']} = ({param['type']})({constant} + 1);"


def _written(v: str | dict) -> str:
    """What a test expects `after` wrote, when the mock wrote nothing: a local stays zero, a
    pointer tested by if_set stays NULL (the buffer it points to is zeroed)."""
    if isinstance(v, str):
        return v
    if "local" in v:
        return "0"
    return v["else"]


def _value(v: str | dict) -> str:
    if isinstance(v, str):
        return v
    if "local" in v:
        return f"cubind_local_{v['local']}"
    if "if_set" in v:
        q = v["if_set"]
        return f"({q} != NULL && *{q} != NULL) ? {v['then']} : {v['else']}"
    raise IRError(f"semantic value {v!r}: a constant, a local or an if_set")
