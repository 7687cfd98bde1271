"""Semantic adapters (docs/releases.md, "Semantic adapters"): a function an older release refuses
(its newest form does not exist there) is called through another entry point of that release that
does what the newest form asks, for the arguments it can take; for the others the call is refused,
saying why, before anything is called or written.

Each mapping is data (generator/semantic.toml, named by libraries.toml's [generator] semantic).
`entry_facts` reads the older entry point's parameters from that release's own headers (the
parse's ABI facts, before compat.attach drops them); `attach` checks each mapping against the
function and writes it into the IR (a release entry's `semantic`); `adapter` turns it into what
templates/_semantic.j2 emits (an adapter of the loader's table, action ADAPTER). Nothing here is
specific to one function.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import release_ir
from .parse import ABI_KEY, IRError
from .release_actions import Action

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
            # the IR states the action once (release_actions): called, through m["entry"]
            d["action"], d["call_symbol"] = Action.SEMANTIC.value, m["entry"]


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
    semantic: bool = True
    expected: list[str | None] = field(default_factory=list)  # per entry point parameter, the value it
    # is given (C over the newest form's parameters), None for a local (any value)
    satisfy: list[str] = field(default_factory=list)  # statements meeting `require`'s equalities


def _pointee(c_type: str) -> str:
    text = c_type.strip()
    if not text.endswith("*"):
        raise IRError(f"semantic local of a non-pointer parameter type {c_type!r}")
    return text[:-1].strip()


def _lookup(records: dict, name: str) -> dict | None:
    return records.get(name) or records.get(name.removeprefix("struct ").removeprefix("union ").strip())


def _newer_only(newest: dict, older: dict) -> list[dict]:
    names = {f["name"] for f in older["fields"]}
    return [f for f in newest["fields"] if f["name"] and f["name"] not in names]


def _union_checks(f: dict, r: dict, release: str, newest: str, ir: dict) -> list[Check]:
    """The checks of a union member the older release lays out otherwise: the member's fields the
    older release lacks are zero while the record's selector says the member is in use. Every other
    member of the union must be alike in both releases (else the mapping is incomplete)."""
    new_records, old_records = release_ir.records_in(ir, newest), release_ir.records_in(ir, release)
    p = next(p for p in f["params"] if p["name"] == r["param"])
    record_name = p["canonical"].strip().removesuffix("*").strip().removeprefix("const ").strip()
    new_rec, old_rec = _lookup(new_records, record_name), _lookup(old_records, record_name)
    if new_rec is None or old_rec is None:
        raise IRError(f"{f['name']}: no layout of {record_name} in CUDA {release} and {newest}")
    if not any(x["name"] == r["when"]["field"] for x in new_rec["fields"]):
        raise IRError(f"{f['name']}: {record_name} has no field {r['when']['field']!r}")
    for holder in new_rec["fields"]:
        union = _lookup(new_records, holder.get("record") or "")
        old_union = _lookup(old_records, holder.get("record") or "")
        if union is None or old_union is None or union["kind"] != "union":
            continue
        members = {m["name"]: m for m in union["fields"]}
        old_members = {m["name"]: m for m in old_union["fields"]}
        if r["member"] not in members:
            continue
        for name, m in members.items():
            o = old_members.get(name)
            alike = o is not None and o["offset"] == m["offset"] and (
                o["size"] == m["size"] and _lookup(new_records, m.get("record") or "") ==
                _lookup(old_records, o.get("record") or ""))
            if not alike and name != r["member"]:
                raise IRError(f"{f['name']}: union member {name} of {record_name} differs in CUDA {release} too; "
                              "the mapping must say when it is in use")
        member = members[r["member"]]
        new_member = _lookup(new_records, member["record"])
        old_member = _lookup(old_records, old_members[r["member"]]["record"])
        checks = []
        for extra in _newer_only(new_member, old_member):
            offset = holder["offset"] + member["offset"] + extra["offset"]
            path = f"{r['param']}->{r['member']}.{extra['name']}"
            checks.append(Check(
                f"{r['param']} != NULL && {r['param']}->{r['when']['field']} == {r['when']['equals']} && "
                f"!cubind__semantic_zero((const unsigned char *)(const void *){r['param']} + {offset}, {extra['size']}, 1)",
                f"{path} is set, which {member['record']} of CUDA {release} does not have",
                [f"{r['param']}->{r['when']['field']} = {r['when']['equals']};", _set_byte(r["param"], offset)]))
        return checks
    raise IRError(f"{f['name']}: {record_name} holds no union with a member {r['member']!r}")


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
    entry_params = list(s["params"])
    for i, (a, c_type) in enumerate(zip(s["args"], s["params"])):
        if isinstance(a, str):
            args.append(f"({c_type}){a}")
            expected.append(args[-1])
        elif "local" in a:
            locals_.append((f"cubind_local_{a['local']}", _pointee(c_type)))
            args.append(f"&cubind_local_{a['local']}")
            expected.append(None)
        elif "record" in a:
            name = a["record"]
            # a pointer to a record of another tag, which cubind's headers do not declare: a pointer alike
            entry_params[i] = "const void *" if c_type.strip().startswith("const ") else "void *"
            args.append(f"({entry_params[i]}){name}")
            for offset, size, path, old_record in _prefix_fields(f, name, c_type, release, newest, ir):
                where = f"(unsigned char *)(void *){name} + {offset}"
                if a.get("out"):  # what the older release does not write reads as default
                    after.append(After(f"{name} != NULL", [f"cubind__semantic_clear({where}, {size}, 1);"],
                                       prepare=[f"memset({where}, 0x5c, {size});"],
                                       expect=[f"cubind_test_zero({where}, {size})"]))
                else:
                    checks.append(Check(f"{name} != NULL && !cubind__semantic_zero((const unsigned char *)(const void *)"
                                        f"{name} + {offset}, {size}, 1)",
                                        f"{path} is set, which {old_record} of CUDA {release} does not have",
                                        [_set_byte(name, offset)]))
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
        elif "member" in r:
            checks.extend(_union_checks(f, r, release, newest, ir))
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
    conditions = [c.reason for c in checks] + [sc.reason for sc in scalars]
    unless = f"; refused, writing nothing, when {'; or when '.join(conditions)}" if conditions else ""
    reason = (f"{d.get('reason') or f'the CUDA {newest} form does not exist'}: called through "
              f"{s['entry']}, which does the same for the arguments it can take{unless}")
    status_map = [(m["from"], m["to"], m.get("clear", "")) for m in s.get("status_map", [])]
    if status_map:
        reason += "; " + "; ".join(f"its {a} is the newest form's {b}" + (f" (with *{c} NULL)" if c else "")
                                   for a, b, c in status_map)
    return SemanticAdapter(index, f, release, s["entry"], function_index, s["result"], entry_params, args, locals_,
                           captures, checks, scalars, after, reason, status_map, expected=expected, satisfy=satisfy)


def _record_of(c_type: str) -> str:
    """The record a pointer type points to: `const struct X *` -> `struct X`."""
    return c_type.strip().removesuffix("*").strip().removeprefix("const ").strip()


def _prefix_fields(f: dict, param: str, old_type: str, release: str, newest: str,
                   ir: dict) -> list[tuple[int, int, str, str]]:
    """(offset, size, name, older record) of each field of the record `param` points to that the
    entry point's record (`old_type`, another name) lacks, after checking that the older record is
    the newer one's prefix: each of its fields is the newer one's of that name, at the same offset
    and size (a reserved array may give its first bytes to new fields), nested records alike or a
    prefix in turn. A field it lacks must be zero going in, and is cleared coming out."""
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
                a, b = _lookup(new_records, n.get("record") or ""), _lookup(old_records, o.get("record") or "")
                if a != b:
                    check(a, b, f"{path}{o['name']}.")

    check(_lookup(new_records, new_name), _lookup(old_records, old_name), "")
    return [(offset, size, name, old_name)
            for offset, size, name in dropped_fields(new_name, release, newest, ir, param, old_name)]


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


# -- no silent drop: an input record's fields the older release lacks --------------------------------
def dropped_fields(record: str, release: str, newest: str, ir: dict, param: str,
                   older_record: str | None = None) -> list[tuple[int, int, str]]:
    """(offset, size, name) of each field of `record` (the newest layout) that an adapter converting
    it to `release`'s layout cannot carry: a field that release does not have, the part of an array
    beyond its length there, recursively through records held by value. An input adapter refuses a
    call that sets one to other than zero (docs/releases.md), naming it `param->field`.
    `older_record`: the record's name in `release` when it is another (a semantic adapter's)."""
    new_records, old_records = release_ir.records_in(ir, newest), release_ir.records_in(ir, release)
    out: list[tuple[int, int, str]] = []

    def walk(new: dict, old: dict, base: int, path: str) -> None:
        old_fields = {f["name"]: f for f in old["fields"]}
        for f in new["fields"]:
            if not f["name"]:
                continue
            o = old_fields.get(f["name"])
            name = path + f["name"]
            if o is None:
                out.append((base + f["offset"], f["size"], name))
            elif f["kind"] == "record" and o["kind"] == "record":
                a, b = _lookup(new_records, f.get("record") or ""), _lookup(old_records, o.get("record") or "")
                if a is not None and b is not None and a["kind"] == b["kind"] == "struct" and a != b:
                    walk(a, b, base + f["offset"], name + ".")
            elif f["kind"] == "array" and o["kind"] == "array" and f["size"] > o["size"]:
                out.append((base + f["offset"] + o["size"], f["size"] - o["size"], f"{name} beyond byte {o['size']}"))

    new, old = _lookup(new_records, record), _lookup(old_records, older_record or record)
    if new is not None and old is not None:
        walk(new, old, 0, f"{param}->")
    return out
