"""The Julia module Cubind, rendered from the IR alone (Python and Jinja2; libclang is never loaded):

    python3 -m generator.julia --ir generated/ir --constants generated/constants.json \\
        --soname libcubind.so.0 --out build/julia

writes <out>/Cubind/Project.toml and <out>/Cubind/src/: Cubind.jl (the module, how it finds
libcubind), types.jl (every type and constant of the IR's units, under C's names), core.jl (cubind's
own API: the error record as the exception CubindError, check and @check) and one file of wrappers a
library (one Julia function a wrapper, through ccall). templates/julia/ holds the files' text.

Types come from the IR's spellings (generator/ctype_spelling.py) and its layouts: an enum is the
integer C gives it, a handle `Ptr` to an opaque `mutable struct`, a record a Julia `struct` with C's
offsets (checked here against the IR's size; tests/julia checks them against Julia's own layout),
whose unions, bit-fields and records declared in place are held as unsigned integers of their bytes.
cubind's own constants and the layout of its error record come from constants.json (cubind's C
headers, read when generating): its other API is hand-written in templates/julia/core.jl.j2.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from . import VERSION
from . import config as config_module
from .ctype_spelling import CType, SpellingError, parse

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
MODULE = "Cubind"
# The package's identity (Project.toml): a name-based UUID, the same at every rendering.
PACKAGE_UUID = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/cubind/cubind/julia/Cubind")
# Libdl's UUID: the standard library's, fixed by Julia.
LIBDL_UUID = "8f399da3-3557-5675-b5ff-fb832c97cbdb"
POINTER = 8  # bytes: Linux's 64-bit ABIs (LP64), the only ones CUDA has

# C's types as Julia names them: (name, size, alignment).
BUILTIN = {
    "void": ("Cvoid", 0, 1), "char": ("Cchar", 1, 1), "signed char": ("Int8", 1, 1), "unsigned char": ("Cuchar", 1, 1),
    "short": ("Cshort", 2, 2), "unsigned short": ("Cushort", 2, 2), "int": ("Cint", 4, 4), "unsigned int": ("Cuint", 4, 4),
    "long": ("Clong", 8, 8), "unsigned long": ("Culong", 8, 8), "long long": ("Clonglong", 8, 8),
    "unsigned long long": ("Culonglong", 8, 8), "float": ("Cfloat", 4, 4), "double": ("Cdouble", 8, 8),
    "_Bool": ("Bool", 1, 1),
}
# The C library's typedefs NVIDIA's headers use, which the IR does not declare (glibc's, LP64).
STANDARD = {
    "size_t": ("Csize_t", 8, 8), "ssize_t": ("Cssize_t", 8, 8), "ptrdiff_t": ("Cptrdiff_t", 8, 8),
    "intptr_t": ("Int", 8, 8), "uintptr_t": ("UInt", 8, 8), "off_t": ("Int64", 8, 8), "loff_t": ("Int64", 8, 8),
    **{f"int{n}_t": (f"Int{n}", n // 8, n // 8) for n in (8, 16, 32, 64)},
    **{f"uint{n}_t": (f"UInt{n}", n // 8, n // 8) for n in (8, 16, 32, 64)},
}
# The C library's structures NVIDIA's headers take by pointer only: Cvoid behind a pointer.
STANDARD_OPAQUE = frozenset({"FILE", "struct sockaddr", "struct timespec", "struct _IO_FILE"})
# Julia's reserved words: a field or parameter of that name is written var"name" or name_.
KEYWORDS = frozenset("""baremodule begin break catch const continue do else elseif end export false finally for
function global if import let local macro module quote return struct true try using while abstract mutable
primitive type where in isa outer""".split())
# Names a wrapper's body uses besides its types: a parameter of that name is renamed.
BODY_NAMES = frozenset({"ccall", "libcubind", "Ptr", "Cvoid", "NTuple"})


class JuliaError(ValueError):
    """What the IR holds that the Julia module cannot express."""


@dataclass
class JType:
    text: str
    size: int | None  # None: an opaque record (only behind a pointer)
    align: int        # Julia's (below C's where C aligns more than the fields: float2's 8)


@dataclass
class Definition:
    kind: str                  # "struct", "opaque", "const" (a type alias), "enum"
    name: str
    docs: list[str] = field(default_factory=list)
    text: str = ""             # const: the aliased type; enum: its integer type
    fields: list[tuple[str, str]] = field(default_factory=list)  # struct: (Julia field, type)
    constants: list[tuple[str, str]] = field(default_factory=list)  # enum: (name, value expression)
    aliases: list[str] = field(default_factory=list)  # typedef names of the same type


@dataclass
class Entity:
    kind: str   # "record", "enum", "typedef"
    name: str   # its Julia name
    entry: dict
    header: str


def field_name(name: str) -> str:
    """A C field name as a Julia field name (var"end" for a reserved word)."""
    return f'var"{name}"' if name in KEYWORDS else name


def julia_string(text: str) -> str:
    """A Julia string literal with the same text."""
    out = []
    for char in text:
        if char in '\\"$':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def doc_text(line: str) -> str:
    """A line inside a docstring (\"\"\"...\"\"\"), with Julia's escapes."""
    return line.replace("\\", "\\\\").replace("$", "\\$").replace('"', '\\"')


def _round(value: int, align: int) -> int:
    return -(-value // align) * align


def _fillers(start: int, end: int, align: int) -> list[tuple[int, JType]]:
    """Bytes [start, end) of a record as runs of the widest unsigned integers their offsets allow (up
    to C's alignment of the record, which a Julia struct then has too): (offset, type) each."""
    runs = []
    while start < end:
        width = next(w for w in (8, 4, 2, 1) if w <= align and start % w == 0 and start + w <= end)
        wider = [w for w in (2, 4, 8) if width < w <= align]
        limit = min(end, _round(start + 1, wider[0])) if wider else end  # then a wider run
        count = (limit - start) // width
        runs.append((start, JType(f"NTuple{{{count}, UInt{width * 8}}}", count * width, width)))
        start += count * width
    return runs


def integer_type(values: list[int], size: int) -> str:
    """The Julia integer an enum of these values and C size is: Cint while every value fits."""
    low, high = min(values, default=0), max(values, default=0)
    if size == 4 and low >= -(1 << 31) and high < (1 << 31):
        return "Cint"
    if size == 4 and low >= 0 and high < (1 << 32):
        return "Cuint"
    if size == 8:
        return "Clonglong" if low >= -(1 << 63) and high < (1 << 63) else "Culonglong"
    raise JuliaError(f"an enum of {size} bytes with values {low}..{high}")


def define_type(value: int) -> str:
    """The Julia integer an integer #define is: int's while it fits (C's for a decimal constant)."""
    if -(1 << 31) <= value < (1 << 31):
        return "Cint"
    return "Clonglong" if -(1 << 63) <= value < (1 << 63) else "Culonglong"


class Types:
    """Every type of the IR files, deduplicated, emitted in an order Julia accepts (what a definition
    names defined before it), with C's names."""

    def __init__(self, irs: list[dict]) -> None:
        self.entities: dict[str, Entity] = {}   # Julia name -> its entity
        self.tags: dict[str, str] = {}           # "struct X", "enum X" -> Julia name
        self.typedefs: dict[str, str] = {}       # typedef name -> Julia name of what it names
        self.order: list[str] = []
        for ir in irs:
            for entry in ir["types"]:
                self._add(entry)
        self.done: dict[str, JType] = {}
        self.stack: list[str] = []
        self.definitions: list[Definition] = []
        self.held: set[str] = set()   # records some of whose bytes are held as integers
        self.erased = 0               # pointers written Ptr{Cvoid} to break a cycle of definitions

    def _add(self, entry: dict) -> None:
        kind = entry["kind"]
        if kind == "typedef":
            underlying = parse(entry["underlying"])
            if underlying.tag and underlying.tag[1] == entry["name"] and not underlying.pointers and not underlying.arrays:
                self.typedefs[entry["name"]] = entry["name"]  # typedef struct X X: one name
                return
            self._name(Entity("typedef", entry["name"], entry, entry["header"]), None)
            return
        entity_kind = "enum" if kind == "enum" else "record"
        name = entry["name"] or entry["typedef"]
        if name is None:
            return  # an anonymous enum without a typedef: its constants only (constants())
        tag = f"{kind} {entry['name']}" if entry["name"] else None
        self._name(Entity(entity_kind, name, entry, entry["header"]), tag)
        if entry["typedef"]:
            self.typedefs[entry["typedef"]] = name

    def _name(self, entity: Entity, tag: str | None) -> None:
        seen = self.entities.get(entity.name)
        if seen is not None:
            if seen.kind != entity.kind or seen.entry.get("size") != entity.entry.get("size"):
                raise JuliaError(f"{entity.name} names two types ({seen.header}, {entity.header})")
            if entity.kind == "record" and entity.entry.get("complete", True) and not seen.entry.get("complete", True):
                seen.entry = entity.entry  # a definition after a declaration
            return
        self.entities[entity.name] = entity
        self.order.append(entity.name)
        if tag:
            self.tags[tag] = entity.name
        else:
            self.typedefs.setdefault(entity.name, entity.name)

    # -- naming a type --------------------------------------------------------------------------------
    def lookup(self, base: str) -> str | None:
        """The Julia name of a tag or typedef; None for the C library's own."""
        if base in self.tags:
            return self.tags[base]
        if base in self.typedefs:
            return self.typedefs[base]
        if base in STANDARD or base in STANDARD_OPAQUE:
            return None
        raise JuliaError(f"no type named {base!r} in the IR")

    def jtype(self, ctype: CType) -> JType | None:
        """The Julia type of a C type; None where a record's field cannot be one (a flexible array,
        an opaque record by value)."""
        if ctype.arrays:
            bound = ctype.arrays[0]
            element = self.jtype(ctype.element())
            if bound is None or element is None or element.size is None:
                return None
            return JType(f"NTuple{{{bound}, {element.text}}}", bound * element.size, element.align)
        if ctype.pointers:
            return JType(f"Ptr{{{self._pointee(ctype.pointee()) if not (ctype.function and ctype.pointers == 1) else 'Cvoid'}}}",
                         POINTER, POINTER)
        if ctype.function:
            raise JuliaError("a function type by value")
        if ctype.base in BUILTIN:
            name, size, align = BUILTIN[ctype.base]
            if size == 0:
                raise JuliaError("void by value")
            return JType(name, size, align)
        if ctype.base == "long double":
            return None
        if ctype.base in STANDARD:
            return JType(*STANDARD[ctype.base])
        name = self.lookup(ctype.base)
        if name is None:
            return None  # FILE, struct timespec by value: never in a field or a parameter
        if name in self.stack:
            raise JuliaError(f"{name} holds itself")
        if name not in self.done:
            self.emit(name)
        return self.done[name] if self.done[name].size is not None else None

    def _pointee(self, ctype: CType) -> str:
        """What a pointer points to, as Julia writes it in Ptr{...}: a type defined later than the
        one being defined (a cycle) is Cvoid, a record its own type."""
        if ctype.pointers or ctype.function:
            return self.jtype(ctype).text
        if ctype.arrays:
            return self.jtype(ctype).text if self.jtype(ctype) is not None else "Cvoid"
        if ctype.base in BUILTIN:
            return BUILTIN[ctype.base][0]
        if ctype.base == "long double" or ctype.base in STANDARD_OPAQUE:
            return "Cvoid"
        if ctype.base in STANDARD:
            return STANDARD[ctype.base][0]
        name = self.lookup(ctype.base)
        if name is None:
            return "Cvoid"
        if name in self.done:
            return name
        if name in self.stack:
            if self.stack[-1] == name and self.entities[name].kind == "record":
                return name  # struct X { X *next; }: Julia allows a record to point at itself
            self.erased += 1
            return "Cvoid"
        self.emit(name)
        return name

    # -- definitions ------------------------------------------------------------------------------------
    def emit_all(self) -> list[Definition]:
        for name in self.order:
            if name not in self.done:
                self.emit(name)
        return self.definitions

    def emit(self, name: str) -> None:
        entity = self.entities[name]
        self.stack.append(name)
        try:
            if entity.kind == "typedef":
                definition = self._typedef(entity)
            elif entity.kind == "enum":
                definition = self._enum(entity)
            else:
                definition = self._record(entity)
        except (SpellingError, JuliaError) as error:
            raise JuliaError(f"{name} ({entity.header}): {error}") from error
        finally:
            self.stack.pop()
        definition.aliases = sorted(t for t, n in self.typedefs.items() if n == name and t != name)
        self.definitions.append(definition)

    def _typedef(self, entity: Entity) -> Definition:
        ctype = parse(entity.entry["underlying"])
        if ctype.pointers or ctype.arrays or ctype.function:
            target = self.jtype(ctype)
            if target is None:
                raise JuliaError(f"no Julia type for {entity.entry['underlying']!r}")
        elif ctype.base in BUILTIN or ctype.base in STANDARD:
            target = self.jtype(ctype)
        else:
            referenced = self.lookup(ctype.base)
            if referenced is None:
                target = JType("Cvoid", None, 1)
            else:
                if referenced not in self.done:
                    self.emit(referenced)
                target = JType(referenced, self.done[referenced].size, self.done[referenced].align)
        assert target is not None
        self.done[entity.name] = target
        return Definition("const", entity.name, [f"`{entity.entry['decl']}` ({entity.header}:{entity.entry['line']})."],
                          text=target.text)

    def _enum(self, entity: Entity) -> Definition:
        entry = entity.entry
        values = [c["value"] for c in entry["constants"]]
        integer = integer_type(values, entry["size"])
        self.done[entity.name] = JType(entity.name, entry["size"], entry["size"])
        tag = f"enum {entry['name']}" if entry["name"] else "an enum"
        return Definition("enum", entity.name, [f"`{tag}` ({entity.header}:{entry['line']}), as `{integer}`."],
                          text=integer, constants=[(c["name"], f"{entity.name}({c['value']})") for c in entry["constants"]])

    def _record(self, entity: Entity) -> Definition:
        entry = entity.entry
        spelled = f"{entry['kind']} {entry['name']}" if entry["name"] else f"{entry['kind']} {entry['typedef']}"
        where = f"({entity.header}:{entry['line']})"
        if not entry.get("complete", True) or entry.get("cplusplus_class"):
            self.done[entity.name] = JType(entity.name, None, 1)
            what = "declared only" if not entry.get("complete", True) else "a C++ class C sees as opaque"
            return Definition("opaque", entity.name, [f"`{spelled}` {where}, {what}: used behind a pointer."])
        size, c_align = entry["size"], entry["align"]
        placed: list[tuple[int, str, JType]] = []
        held: list[str] = []
        for f in entry["fields"] if entry["kind"] == "struct" else []:
            jt = None
            if f["bit_width"] is None and f["name"] and f["record"] is None and f["offset_bits"] is not None:
                jt = self.jtype(parse(f["type"]))
            offset = (f["offset_bits"] or 0) // 8
            if jt is None or jt.size is None or f["offset_bits"] % 8 or offset % jt.align:
                held.append(_member(f))
                continue
            placed.append((offset, f["name"], jt))
        if entry["kind"] == "union":
            held = [_member(f) for f in entry["fields"]]
        fields: list[tuple[str, str]] = []
        at, align = 0, 1
        for offset, name, jt in placed:
            if offset < at:
                raise JuliaError(f"field {name} at {offset} overlaps the one before (ending at {at})")
            for start, filler in _fillers(at, offset, c_align):
                fields.append((f"_bytes{start}", filler.text))
                align = max(align, filler.align)
            if jt.size:
                fields.append((field_name(name), jt.text))
                align = max(align, jt.align)
            at = offset + (jt.size or 0)
        for start, filler in _fillers(at, size, c_align):
            fields.append((f"_bytes{start}", filler.text))
            align = max(align, filler.align)
        at = max(at, size)
        if _round(at, align) != size:
            raise JuliaError(f"laid out in {_round(at, align)} bytes, C's {size}")
        if {n for n, _ in fields if n.startswith("_bytes")} & {f["name"] for f in entry["fields"]}:
            raise JuliaError("a field's name is one the module gives to bytes")
        self.done[entity.name] = JType(entity.name, size, align)
        docs = [f"`{spelled}` {where}: {size} bytes, C's offsets."]
        if held:
            self.held.add(entity.name)
            docs.append("Held as unsigned integers of their bytes (`_bytesN`, N their offset): " + ", ".join(held) + ".")
        return Definition("struct", entity.name, docs, fields=fields)


def _member(f: dict) -> str:
    """How the documentation names a field kept as bytes."""
    if f["bit_width"] is not None:
        return f"`{f['name']}` (a bit-field)"
    if not f["name"]:
        return "an anonymous member"
    if f["record"] is not None:
        return f"`{f['name']}` (a {f['record']['kind']} declared in place)"
    return f"`{f['name']}` (`{f['type']}`)"


# --- constants ---------------------------------------------------------------------------------------

def constants(irs: list[dict], types: Types) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """The #define constants and the constants of anonymous enums, by header: (name, value
    expression, C text)."""
    by_header: dict[str, list[tuple[str, str, str]]] = {}
    seen: dict[str, str] = {}

    def add(header: str, name: str, value: str, text: str) -> None:
        if name in seen:
            if seen[name] != value:
                raise JuliaError(f"{name} is {seen[name]} and {value}")
            return
        seen[name] = value
        by_header.setdefault(header, []).append((name, value, text))

    for ir in irs:
        for entry in ir["types"]:
            if entry["kind"] == "enum" and not entry["name"] and not entry["typedef"]:
                for c in entry["constants"]:
                    add(entry["header"], c["name"], f"{define_type(c['value'])}({c['value']})", "an enumerator")
        for k in ir["constants"]:
            add(k["header"], k["name"], f"{define_type(k['value'])}({k['value']})", k["text"])
        for k in ir["literal_constants"]:
            add(k["header"], k["name"], _literal(k, types), k["text"])
    return sorted(by_header.items())


def _literal(k: dict, types: Types) -> str:
    if k["kind"] == "string":
        return julia_string(k["value"])
    if k["kind"] == "float":
        number = float(k["value"])
        text = {float("inf"): "Inf", float("-inf"): "-Inf"}.get(number, "NaN" if number != number else repr(number))
        return f"Float32({text})" if k["text"].rstrip().lower().endswith("f") else f"Float64({text})"
    if k["kind"] == "pointer":
        jt = types.jtype(parse(k["type"]))
        if jt is None:
            raise JuliaError(f"{k['name']}: no Julia type for {k['type']!r}")
        return f"{jt.text}(UInt({k['value']}))"
    raise JuliaError(f"{k['name']}: no Julia form for a {k['kind']} constant")


# --- wrappers ----------------------------------------------------------------------------------------

@dataclass
class Wrapper:
    name: str
    params: list[tuple[str, str]]   # (Julia name, Julia type)
    returns: str
    docs: list[str]


def wrapper(f: dict, types: Types, library: config_module.Library) -> Wrapper:
    try:
        params = [(p["name"], types.jtype(parse(p["value_type"]))) for p in f["params"]]
        returns = "Cvoid" if f["returns"]["category"] == "void" else types.jtype(parse(f["returns"]["type"]))
    except (SpellingError, JuliaError) as error:
        raise JuliaError(f"{f['cubind_name']}: {error}") from error
    if returns is None or any(t is None for _, t in params):
        raise JuliaError(f"{f['cubind_name']}: a parameter or result Julia cannot pass")
    for t, p in [*zip((t for _, t in params), f["params"]), (returns, f["returns"])]:
        if p["category"] == "record" and not isinstance(t, str) and t.text in types.held:
            raise JuliaError(f"{f['cubind_name']}: {t.text} by value holds bytes whose class the ABI needs")
    returns_text = returns if isinstance(returns, str) else returns.text
    # the names the call's types are made of (Ptr{dim3}: Ptr, dim3), which a parameter must not shadow
    used = {n for text in [returns_text, *(t.text for _, t in params)] for n in re.findall(r"[A-Za-z_]\w*", text)}
    used |= BODY_NAMES | {f["cubind_name"]}
    names = []
    for name, t in params:
        while name in KEYWORDS or name in used or name in (n for n, _ in names):
            name += "_"
        names.append((name, t.text))
    signature = ", ".join(f"{n}::{t}" for n, t in names)
    exported = f", exported as `{f['symbol']}`" if f["symbol"] != f["name"] else ""
    since = f"since CUDA {f['added_in']} or older" if f.get("added_in") else ""
    if f.get("changed_in"):
        since += f"; changed in CUDA {', '.join(f['changed_in'])}"
    docs = [f"    {f['cubind_name']}({signature}) -> {returns_text}", "",
            f"Wraps `{f['name']}` of lib{library.name} ({f['header']}:{f['line']}{exported}){'; ' + since if since else ''}."]
    if f.get("comment"):
        docs += ["", f"NVIDIA: {f['comment']}"]
    if f["returns_status"]:
        docs += ["", f"Returns `{library.status_missing_library}` if lib{library.name} cannot be loaded, "
                 f"`{library.status_missing_symbol}` if it lacks the function (the error record says why: "
                 f"`{MODULE}.last_error()`); `@check` throws a `CubindError` for any failure."]
    if f["deprecated"] is not None:
        docs += ["", "Deprecated by NVIDIA" + (f": {f['deprecated']}" if f["deprecated"] else ".")]
    return Wrapper(f["cubind_name"], names, returns_text, docs)


# --- the module ----------------------------------------------------------------------------------------

def read_irs(config: config_module.Config, ir_dir: Path) -> list[dict]:
    """The IR files of the configured units in the folder (a subset's tree has some), in the
    configuration's order."""
    paths = [ir_dir / f"{unit.name}.json" for unit in config.units]
    irs = [json.loads(path.read_text()) for path in paths if path.is_file()]
    if not irs:
        raise JuliaError(f"{ir_dir} holds the IR of no configured unit")
    return irs


def environment() -> jinja2.Environment:
    """The templates' environment: the generator's settings, and no filter of its own (the generator
    compiles every template with its environment: render.compile_templates), so the text Julia needs
    escaped is escaped here."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)


def render(config: config_module.Config, irs: list[dict], api: dict, soname: str, command: str) -> dict[str, str]:
    """The package's files, by path relative to the output folder. `api` is constants.json."""
    types = Types(irs)
    definitions = types.emit_all()
    defines = constants(irs, types)
    by_library: dict[str, list[Wrapper]] = {}
    for ir in irs:
        for f in ir["functions"]:
            by_library.setdefault(f["library"], []).append(wrapper(f, types, config.library(f["library"])))
    libraries = [(lib, by_library[lib.name]) for lib in config.libraries if lib.name in by_library]
    own = [e for e in api["enums"].values() if e["header"] == "cubind/cubind.h"]
    own_defines = {n: d["value"] for n, d in api["defines"].items() if d["header"] == "cubind/cubind.h"}
    releases = [r["name"] for r in irs[0]["releases"]] if irs and irs[0].get("releases") else []
    names = [d.name for d in definitions] + [a for d in definitions for a in d.aliases] + \
        [c for d in definitions for c, _ in d.constants] + [n for _, group in defines for n, _, _ in group] + \
        [w.name for _, ws in libraries for w in ws]
    duplicated = sorted({n for n in names if names.count(n) > 1}) if len(set(names)) != len(names) else []
    if duplicated:
        raise JuliaError(f"names declared twice: {', '.join(duplicated[:10])}")
    for d in definitions:
        d.docs = [doc_text(line) for line in d.docs]
    for _, ws in libraries:
        for w in ws:
            w.docs = [doc_text(line) for line in w.docs]
    common = {
        "module": MODULE, "generator_version": VERSION, "command": command, "soname": soname,
        "soname_literal": julia_string(soname),
        "cuda_version": irs[0]["cuda_version"] if irs else "", "releases": releases,
        "oldest_release": releases[-1] if releases else "",
    }
    env = environment()
    files = {
        f"{MODULE}/Project.toml": env.get_template("julia/Project.toml.j2").render(
            common | {"uuid": PACKAGE_UUID, "libdl_uuid": LIBDL_UUID}),
        f"{MODULE}/src/{MODULE}.jl": env.get_template("julia/module.jl.j2").render(
            common | {"libraries": [(lib.name, len(ws)) for lib, ws in libraries]}),
        f"{MODULE}/src/types.jl": env.get_template("julia/types.jl.j2").render(
            common | {"definitions": definitions, "defines": defines, "erased": types.erased}),
        f"{MODULE}/src/core.jl": env.get_template("julia/core.jl.j2").render(
            common | {"enums": own, "defines": own_defines, "error": api["layouts"]["cubind_error"]}),
    }
    library_template = env.get_template("julia/library.jl.j2")
    for lib, ws in libraries:
        files[f"{MODULE}/src/{lib.name}.jl"] = library_template.render(common | {"library": lib, "wrappers": ws})
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m generator.julia", description=__doc__.splitlines()[0])
    parser.add_argument("--ir", default="generated/ir", help="the IR files (generated/ir)")
    parser.add_argument("--constants", default="generated/constants.json", help="cubind's constants (constants.json)")
    parser.add_argument("--config", default=str(config_module.CONFIG_PATH), help="library configuration (TOML)")
    parser.add_argument("--soname", required=True, help="libcubind's soname (libcubind.so.0)")
    parser.add_argument("--out", required=True, help="the folder that receives Cubind/")
    args = parser.parse_args(argv)
    command = f"python3 -m generator.julia --ir {args.ir} --constants {args.constants} --soname {args.soname} --out DIR"
    try:
        config = config_module.load(Path(args.config))
        files = render(config, read_irs(config, Path(args.ir)), json.loads(Path(args.constants).read_text()),
                       args.soname, command)
    except (JuliaError, config_module.ConfigError, OSError, ValueError) as error:
        print(f"cubind generator: error: {error}", file=sys.stderr)
        return 2
    out = Path(args.out)
    for path, text in files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_text() != text:  # unchanged files keep their time
            target.write_text(text)
    print(f"cubind generator: wrote the Julia module {MODULE} ({len(files)} files) to {out / MODULE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
