"""The Rust crate cubind-sys (rust/cubind-sys/ of the generated tree), rendered from the same
model as the cdef files:

- src/common.rs: what cdef/common.h declares (the CUDA types no module owns, the module types
  another module uses, cubind's own API), always compiled;
- src/<library>.rs: what the cdef/<module>.h files of the library's modules declare (its
  wrappers and the types only they use), compiled with the cargo feature named after the library;
- the constants the flat C files cannot declare (values beyond int, floating, string and pointer
  constants), from the IR;
- Cargo.toml (one feature a library, every one by default), build.rs (pkg-config), src/lib.rs and
  the safe helper of the error record (templates/rust/).

Types are read with libclang from the cdef files themselves (parsed together, as an FFI state
loads them): every type is translated from its structure, never from its spelling. Names are C's:
`pub const CUFFT_SUCCESS: cufftResult = 0;`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import clang.cindex as ci
import jinja2

from .api import PUBLIC_HEADER
from .cdef_groups import COMMON, split
from .flat_api import HandWritten
from .model import Model, TypeGroup

CK = ci.CursorKind
TK = ci.TypeKind
CRATE = "rust/cubind-sys"
VERSION_HEADER = PUBLIC_HEADER.with_name("version.h")

RAW = {  # C's scalar types: std::os::raw's names (the crate needs Rust 1.63: core::ffi's came in 1.64)
    TK.CHAR_S: "c_char", TK.CHAR_U: "c_char", TK.SCHAR: "c_schar", TK.UCHAR: "c_uchar",
    TK.SHORT: "c_short", TK.USHORT: "c_ushort", TK.INT: "c_int", TK.UINT: "c_uint",
    TK.LONG: "c_long", TK.ULONG: "c_ulong", TK.LONGLONG: "c_longlong", TK.ULONGLONG: "c_ulonglong",
    TK.FLOAT: "c_float", TK.DOUBLE: "c_double", TK.VOID: "c_void",
}
PRIMITIVE = {TK.BOOL: "bool"}
# The C library's typedefs, by name: Rust's own types of the same size and signedness.
STANDARD = {"size_t": "usize", "ptrdiff_t": "isize", "intptr_t": "isize", "uintptr_t": "usize",
            **{f"int{n}_t": f"i{n}" for n in (8, 16, 32, 64)}, **{f"uint{n}_t": f"u{n}" for n in (8, 16, 32, 64)}}
KEYWORDS = frozenset("""as async await break const continue crate dyn else enum extern false fn for if impl in let loop
match mod move mut pub ref return self Self static struct super trait true type unsafe use where while abstract become
box do final macro override priv try typeof unsized virtual yield""".split())
NOT_RAW = frozenset({"crate", "self", "Self", "super"})  # keywords r# cannot escape


class RustError(ValueError):
    """A declaration the crate cannot express."""


def ident(name: str) -> str:
    """A C identifier as a Rust one: a keyword escaped (r#type), or suffixed where r# cannot be used."""
    if name in NOT_RAW:
        return name + "_"
    return f"r#{name}" if name in KEYWORDS else name


@dataclass
class Item:
    kind: str                    # "type", "record", "const", "fn"
    name: str
    docs: list[str] = field(default_factory=list)
    type: str = ""               # type: the aliased type; const: its type; fn: the return type ("" void)
    value: str = ""              # const: the expression
    record: str = ""             # record: "struct" or "union"
    align: int | None = None     # record: an alignment C gives it beyond its fields'
    fields: list[tuple[str, str]] = field(default_factory=list)  # record: (name, type); fn: parameters
    variadic: bool = False
    opaque: bool = False
    deprecated: str | None = None


@dataclass
class Part:
    """One .rs file: the items of a cdef file or of a library's module files."""
    name: str
    items: list[Item] = field(default_factory=list)
    raw: set[str] = field(default_factory=set)   # std::os::raw names used
    types: set[str] = field(default_factory=set)   # what it declares in Rust's type namespace
    values: set[str] = field(default_factory=set)  # and in its value namespace (a struct and a function
    #                                                may share a name, as cubind_library_info's do)

    def add(self, item: Item) -> None:
        names = self.values if item.kind in ("const", "fn") else self.types
        if item.name in names:
            raise RustError(f"{self.name}.rs would declare {item.name} twice")
        names.add(item.name)
        self.items.append(item)

    @property
    def functions(self) -> list[Item]:
        return [i for i in self.items if i.kind == "fn"]


def rust_string(text: str) -> str:
    """A byte string literal of the NUL-terminated C string `text` (b"...\\0")."""
    out = []
    for byte in text.encode():
        char = chr(byte)
        if char in '\\"':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\x{byte:02x}")
    return 'b"' + "".join(out) + '\\0"'


def rust_str(text: str) -> str:
    """A Rust string literal with the same text."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def integer_type(values: list[int]) -> str:
    """The C type of an enum with these values (GCC's and Clang's rule), or of an integer #define."""
    low, high = min(values, default=0), max(values, default=0)
    if low < 0:
        return "c_int" if low >= -(1 << 31) and high < (1 << 31) else "c_longlong"
    return "c_uint" if high < (1 << 32) else "c_ulonglong"


class Translator:
    """C types of one libclang parse as Rust types; anonymous records named after where they are."""

    def __init__(self) -> None:
        self.anonymous: dict[tuple, str] = {}  # an anonymous record or enum's declaration (key()) -> its Rust name
        self.raw: set[str] = set()

    def rust(self, t: ci.Type, parameter: bool = False) -> str:
        kind = t.kind
        if kind in RAW:
            self.raw.add(RAW[kind])
            return RAW[kind]
        if kind in PRIMITIVE:
            return PRIMITIVE[kind]
        if kind == TK.ELABORATED:
            return self.rust(t.get_named_type(), parameter)
        if kind == TK.TYPEDEF:
            decl = t.get_declaration()
            if decl.spelling in STANDARD and not _ours(decl):
                return STANDARD[decl.spelling]
            return decl.spelling
        if kind in (TK.RECORD, TK.ENUM):
            decl = t.get_declaration()
            if key(decl) in self.anonymous:
                return self.anonymous[key(decl)]
            if unnamed(decl):
                raise RustError(f"an anonymous {t.spelling} used where it has no name")
            return decl.spelling
        if kind == TK.POINTER:
            pointee = t.get_pointee()
            if pointee.kind in (TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO):
                return f"Option<{self.function(pointee)}>"
            mutability = "const" if pointee.is_const_qualified() else "mut"
            return f"*{mutability} {self.rust(pointee)}"
        if kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY) and parameter:  # a parameter's array is a pointer
            element = t.element_type
            return f"*{'const' if element.is_const_qualified() else 'mut'} {self.rust(element)}"
        if kind == TK.CONSTANTARRAY:
            return f"[{self.rust(t.element_type)}; {t.element_count}]"
        if kind == TK.INCOMPLETEARRAY:  # a flexible array member
            return f"[{self.rust(t.element_type)}; 0]"
        raise RustError(f"no Rust type for {t.spelling!r} ({kind})")

    def function(self, t: ci.Type) -> str:
        """`unsafe extern "C" fn(...) -> R` of a function type."""
        args = [self.rust(a, parameter=True) for a in t.argument_types()] if t.kind == TK.FUNCTIONPROTO else []
        if t.kind == TK.FUNCTIONPROTO and t.is_function_variadic():
            args.append("...")
        result = t.get_result()
        returns = "" if result.kind == TK.VOID else f" -> {self.rust(result)}"
        return f'unsafe extern "C" fn({", ".join(args)}){returns}'


def unnamed(cursor: ci.Cursor) -> bool:
    """A record or enum declared without a tag (libclang 14 says so of records only)."""
    return cursor.is_anonymous() or not cursor.spelling or "(unnamed" in cursor.spelling or "(anonymous" in cursor.spelling


def key(cursor: ci.Cursor) -> tuple:
    """A declaration's identity (libclang's cursors are not hashable): where it starts."""
    start = cursor.extent.start
    return (start.file.name if start.file else None, start.offset, cursor.kind.value)


def _innermost(t: ci.Type) -> ci.Type:
    """The type an array or pointer type is made of (struct {...} sensors[3]: the struct)."""
    t = t.get_canonical()
    while t.kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.POINTER):
        t = (t.get_pointee() if t.kind == TK.POINTER else t.element_type).get_canonical()
    return t


def _within(inner: ci.Cursor, outer: ci.Cursor) -> bool:
    """Whether `inner` is declared inside `outer`'s braces."""
    a, b = inner.extent, outer.extent
    return (a.start.file is not None and b.start.file is not None and a.start.file.name == b.start.file.name
            and b.start.offset < a.start.offset and a.end.offset <= b.end.offset)


def _ours(cursor: ci.Cursor) -> bool:
    """Declared in a cdef file (not in the C library's headers the parse includes first)."""
    return cursor.location.file is not None and cursor.location.file.name.startswith(_ROOT)


_ROOT = "/cubind-rust/"  # where the cdef files are, for the parse (unsaved files: never on disk)
ROOT_FILE = "crate.c"  # the parse's main file: includes them, then the pointer constants' types


def _comment_lines(raw: str | None) -> list[str]:
    """A C comment's text, one line a line, without its markers."""
    if not raw:
        return []
    lines = []
    for line in raw.splitlines():
        line = line.strip()
        line = re.sub(r"^(/\*+|\*+/|\*(?!/)|//+)", "", line).strip() if line else line
        line = line.removesuffix("*/").rstrip()
        lines.append(line)
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


class Builder:
    """The parts of the crate, from the model, the hand-written API and the rendered cdef files."""

    def __init__(self, model: Model, api: HandWritten) -> None:
        self.model = model
        self.api = api
        self.tr = Translator()
        self.functions = {f["cubind_name"]: f for lib in model.libraries for f in lib.functions}
        self.groups = [*model.shared_groups, *(g for m in model.modules for g in m.groups)]
        self.spelled: dict[str, str] = {}  # a pointer constant's spelled C type -> its Rust type
        self.typedef_of: dict[tuple, str] = {}  # a tagged enum (key()) -> the first typedef naming it
        # the alignment C gives a record beyond its members' (float2's 8: __align__, which the flat
        # C files cannot say), by each of its names
        self.align = {n: e["explicit_align"] for g in self.groups for e in g.entries
                      if e["kind"] in ("struct", "union") and e.get("explicit_align") for n in (e["name"], e["typedef"]) if n}

    def parts(self, out: dict[str, str]) -> list[Part]:
        cdef = split(self.model)
        files = [COMMON, *(m.module.name for m in self.model.modules)]
        # the pointer constants' types (cudaStream_t, void *): a typedef each, after every cdef file
        literal_types = sorted({k["type"] for g in self.groups for k in g.literals if k["kind"] == "pointer"})
        probes = {f"cubind_rust_literal_{i}": t for i, t in enumerate(literal_types)}
        root = ("#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n" + "".join(f'#include "{_ROOT}{n}.h"\n' for n in files)
                + "".join(f"typedef {t} {name};\n" for name, t in probes.items()))
        unsaved = [(f"{_ROOT}{ROOT_FILE}", root), *((f"{_ROOT}{n}.h", out[f"cdef/{n}.h"]) for n in files)]
        tu = ci.Index.create().parse(f"{_ROOT}{ROOT_FILE}", args=["-x", "c", "-std=c11"], unsaved_files=unsaved)
        errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
        if errors:
            raise RustError(f"the cdef files do not parse: {errors[0]}")
        library_of = {m.module.name: m.module.library for m in self.model.modules}
        parts: dict[str, Part] = {COMMON: Part(COMMON)}
        for lib in self.model.libraries:
            parts[lib.library.name] = Part(lib.library.name)
        cursors = [c for c in tu.cursor.get_children() if _ours(c)]
        # a record or enum declared without a tag takes its typedef's name
        for cursor in cursors:
            if cursor.kind == CK.TYPEDEF_DECL:
                target = cursor.underlying_typedef_type.get_canonical().get_declaration()
                if target.kind in (CK.STRUCT_DECL, CK.UNION_DECL, CK.ENUM_DECL) and unnamed(target):
                    self.tr.anonymous.setdefault(key(target), cursor.spelling)
                elif target.kind == CK.ENUM_DECL:
                    self.typedef_of.setdefault(key(target), cursor.spelling)
        for cursor in cursors:
            name = Path(cursor.location.file.name).name
            if name == ROOT_FILE:
                self.tr.raw = parts[COMMON].raw
                self.spelled[probes[cursor.spelling]] = self.tr.rust(cursor.underlying_typedef_type)
                continue
            stem = name.removesuffix(".h")
            part = parts[COMMON if stem == COMMON else library_of[stem]]
            self.tr.raw = part.raw
            self._cursor(cursor, part)
        for name, part in parts.items():
            self.tr.raw = part.raw
            groups = cdef.common if name == COMMON else [g for m in self.model.modules if m.module.library == name
                                                         for g in cdef.modules[m.module.name]]
            self._beyond_c(groups, part, parts[COMMON])
        return list(parts.values())

    # -- what the flat C declares -------------------------------------------------------------------
    def _cursor(self, cursor: ci.Cursor, part: Part) -> None:
        kind = cursor.kind
        if kind == CK.TYPEDEF_DECL:
            underlying = cursor.underlying_typedef_type
            target = underlying.get_canonical().get_declaration()
            if self.tr.anonymous.get(key(target)) == cursor.spelling:
                return  # the record or enum itself took this name
            if underlying.kind == TK.ELABORATED and underlying.get_named_type().get_declaration().spelling == cursor.spelling:
                return  # typedef struct X X: one name in Rust
            part.add(Item("type", cursor.spelling, self._docs(cursor.spelling), type=self.tr.rust(underlying)))
        elif kind in (CK.STRUCT_DECL, CK.UNION_DECL):
            self._record(cursor, part, self.tr.anonymous.get(key(cursor)) or cursor.spelling)
        elif kind == CK.ENUM_DECL:
            self._enum(cursor, part)
        elif kind == CK.FUNCTION_DECL:
            self._function(cursor, part)
        else:
            raise RustError(f"unexpected declaration {cursor.spelling} ({kind}) in the cdef files")

    def _record(self, cursor: ci.Cursor, part: Part, name: str) -> None:
        if not cursor.is_definition():
            definition = cursor.get_definition()
            if definition is not None and definition != cursor:
                return  # declared ahead of its definition
            if name not in part.types:
                part.add(Item("record", name, self._docs(name), record="struct", opaque=True))
            return
        if name in part.types:
            return
        children = list(cursor.get_children())
        typed = {key(d) for f in children if f.kind == CK.FIELD_DECL for d in [_innermost(f.type).get_declaration()]}
        fields = []
        anonymous = 0
        members = [c for c in children if c.kind == CK.FIELD_DECL]
        bitfields = 0  # runs of bit-fields so far: each is one byte array (Rust has no bit-fields)
        for member in children:
            if member.kind == CK.FIELD_DECL and member.is_bitfield():
                position = members.index(member)
                if position > 0 and members[position - 1].is_bitfield():
                    continue  # in the run the first bit-field of it declared
                after = next((m for m in members[position:] if not m.is_bitfield()), None)
                end = after.get_field_offsetof() if after is not None else cursor.type.get_size() * 8
                start = member.get_field_offsetof() // 8
                bitfields += 1
                fields.append((f"_bitfield{bitfields}", f"[u8; {(end + 7) // 8 - start}]"))
                continue
            if member.kind in (CK.STRUCT_DECL, CK.UNION_DECL) and unnamed(member) and key(member) not in typed:
                # a C11 anonymous member (union { a; b; };): libclang shows the record, not its field
                anonymous += 1
                inner = self.tr.anonymous.setdefault(key(member), f"{name}_anon{anonymous}")
                self._record(member, part, inner)
                fields.append((f"anon{anonymous}", inner))
                continue
            if member.kind != CK.FIELD_DECL:
                continue
            declaration = _innermost(member.type).get_declaration()
            if declaration.kind in (CK.STRUCT_DECL, CK.UNION_DECL) and _within(declaration, cursor):
                # a record defined in place: under its tag (C's tags are the file's), or named after the member
                if unnamed(declaration):
                    self.tr.anonymous.setdefault(key(declaration), f"{name}_{member.spelling}")
                self._record(declaration, part, self.tr.anonymous.get(key(declaration)) or declaration.spelling)
            fields.append((ident(member.spelling), self.tr.rust(member.type)))
        record = "union" if cursor.kind == CK.UNION_DECL else "struct"
        # a byte array is aligned to 1 where C's bit-fields are to their type: the record keeps C's alignment
        align = self.align.get(name) or (cursor.type.get_align() if bitfields else None)
        docs = self._docs(name) + (["Its bit-fields are byte arrays (`_bitfield1`, ...), laid out as C lays them out."]
                                   if bitfields else [])
        part.add(Item("record", name, docs, record=record, fields=fields, align=align))

    def _enum(self, cursor: ci.Cursor, part: Part) -> None:
        constants = [c for c in cursor.get_children() if c.kind == CK.ENUM_CONSTANT_DECL]
        if unnamed(cursor) and key(cursor) not in self.tr.anonymous:
            for c in constants:  # enum { NAME = 5 }: an integer #define (or cubind's)
                part.raw.add("c_int")
                part.add(Item("const", c.spelling, self._docs(c.spelling), type="c_int", value=str(c.enum_value)))
            return
        name = self.tr.anonymous.get(key(cursor)) or cursor.spelling
        part.add(Item("type", name, self._docs(name), type=self.tr.rust(cursor.enum_type)))
        typed = self.typedef_of.get(key(cursor), name)  # cufftResult for enum cufftResult_t, as C programs name it
        for c in constants:
            part.add(Item("const", c.spelling, self._docs(c.spelling), type=typed, value=str(c.enum_value)))

    def _function(self, cursor: ci.Cursor, part: Part) -> None:
        params = []
        for index, argument in enumerate(cursor.get_arguments()):
            params.append((ident(argument.spelling or f"arg{index}"), self.tr.rust(argument.type, parameter=True)))
        result = cursor.result_type
        wrapper = self.functions.get(cursor.spelling)
        part.add(Item("fn", cursor.spelling, self._function_docs(wrapper) if wrapper else self._docs(cursor.spelling + "()"),
                      type="" if result.kind == TK.VOID else self.tr.rust(result), fields=params,
                      variadic=cursor.type.is_function_variadic(),
                      deprecated=wrapper["deprecated"] if wrapper else None))

    # -- what only the IR can say ---------------------------------------------------------------------
    def _beyond_c(self, groups: list[TypeGroup], part: Part, common: Part) -> None:
        """The constants the flat C files leave out: integers beyond int, floating, string and pointer
        constants, enumerators beyond int (with their enum's type when C has none)."""
        for group in groups:
            for k in group.constants:
                if k["name"] not in part.values:
                    kind = integer_type([k["value"]])
                    part.raw.add(kind)
                    part.add(Item("const", k["name"], [f"`{k['text']}` ({group.header})"], type=kind,
                                  value=str(k["value"])))
            for k in group.literals:
                if k["name"] not in part.values:
                    part.add(self._literal(k, group.header))
            for entry in group.entries:
                missing = [c for c in entry.get("constants", []) if c["name"] not in part.values]
                if entry["kind"] != "enum" or not missing:
                    continue
                tag = entry["typedef"] or entry["name"]
                kind = integer_type([c["value"] for c in entry["constants"]])
                # the enum's names are of the type its values need (C11 has no such enum: the flat C files
                # say unsigned int): retyped where declared, declared where not
                for name in (n for n in (entry["name"], entry["typedef"]) if n):
                    declared = False
                    for owner in (part, common):
                        for item in owner.items:
                            if item.kind == "type" and item.name == name:
                                item.type = kind
                                owner.raw.add(kind)
                                declared = True
                    if not declared:
                        part.add(Item("type", name, [f"An enum of {entry['header']} with values beyond int."], type=kind))
                        part.raw.add(kind)
                for c in missing:
                    kind = tag or integer_type([c["value"]])
                    if not tag:
                        part.raw.add(kind)
                    part.add(Item("const", c["name"], [], type=kind, value=str(c["value"])))

    def _literal(self, k: dict, header: str) -> Item:
        docs = [f"`{k['text']}` ({header})"]
        if k["kind"] == "string":
            return Item("const", k["name"], docs, type="&[u8]", value=rust_string(k["value"]))
        if k["kind"] == "float":
            kind = "f32" if k["text"].rstrip().lower().endswith("f") else "f64"
            return Item("const", k["name"], docs, type=kind, value=repr(float(k["value"])))
        if k["kind"] == "pointer":
            rust = self.spelled[k["type"]]
            return Item("const", k["name"], docs, type=rust, value=f"{k['value']} as {rust}")
        raise RustError(f"constant {k['name']}: no Rust form for a {k['kind']} constant")

    # -- documentation ----------------------------------------------------------------------------
    def _docs(self, name: str) -> list[str]:
        return _comment_lines(self.api.comments.get(name))

    def _function_docs(self, f: dict) -> list[str]:
        lib = self.model.config.library(f["library"])
        exported = f", exported as `{f['symbol']}`" if f["symbol"] != f["name"] else ""
        lines = [f"Wraps `{f['name']}` ({f['header']}:{f['line']}{exported}); {self._since(f)}."]
        if f.get("comment"):
            lines.append(f["comment"])
        for p in f["params"]:
            doc = self.model.config.param_doc(p["name"], p["type"])
            if doc:
                lines.append(f"`{p['name']}`: {doc}.")
        if f["returns_status"]:
            lines.append(f"`{lib.status_missing_library}` if lib{lib.name} cannot be loaded, `{lib.status_missing_symbol}` "
                         "if it lacks the function.")
        elif f["returns"]["category"] != "void":
            lines.append(f"{'Null' if f['returns']['category'] in ('pointer', 'function_pointer') else '0'} if the call "
                         "cannot be made.")
        if f["deprecated"] is not None:
            lines.append("Deprecated by NVIDIA" + (f": {f['deprecated']}" if f["deprecated"] else "."))
        return lines

    def _since(self, f: dict) -> str:
        """Since when the function exists, in cubind_function_info's words: the oldest release the
        bindings read that declares it, "or older" (it may be older still)."""
        names = [r["name"] for r in self.model.irs[0]["releases"]] if self.model.irs else []
        added = f.get("added_in") or self.model.cuda_version
        text = f"since CUDA {added} or older"
        if added in names and names.index(added) + 1 < len(names):
            text += f", after {names[names.index(added) + 1]}"
        if f.get("changed_in"):
            text += f"; ABI changed in CUDA {', '.join(f['changed_in'])}"
        return text


def crate_version() -> str:
    """cubind's version (include/cubind/version.h), the crate's."""
    tu = ci.Index.create().parse(str(VERSION_HEADER), args=["-x", "c"],
                                 options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    parts = {}
    for cursor in tu.cursor.get_children():
        if cursor.kind == CK.MACRO_DEFINITION and cursor.spelling in ("CUBIND_VERSION_MAJOR", "CUBIND_VERSION_MINOR",
                                                                       "CUBIND_VERSION_PATCH"):
            parts[cursor.spelling] = [t.spelling for t in cursor.get_tokens()][1]
    return ".".join(parts[f"CUBIND_VERSION_{p}"] for p in ("MAJOR", "MINOR", "PATCH"))


def render(env: jinja2.Environment, model: Model, common: dict, out: dict[str, str], api: HandWritten) -> dict[str, str]:
    """The crate's files (paths relative to the generated tree); `out` holds the cdef files."""
    parts = Builder(model, api).parts(out)
    version = crate_version()
    major, minor, _ = version.split(".")
    context = common | {
        "crate_version": version, "version_major": major,
        # the first version whose ABI may differ: the next minor while the major is 0, else the next major
        "next_incompatible": f"0.{int(minor) + 1}.0" if major == "0" else f"{int(major) + 1}.0.0",
        "libraries": [p for p in parts if p.name != COMMON],
    }
    files = {
        f"{CRATE}/Cargo.toml": env.get_template("rust/Cargo.toml.j2").render(context),
        f"{CRATE}/build.rs": env.get_template("rust/build.rs.j2").render(context),
        f"{CRATE}/src/lib.rs": env.get_template("rust/lib.rs.j2").render(context),
        f"{CRATE}/src/error.rs": env.get_template("rust/error.rs.j2").render(context),
    }
    sizes = {n: (e["size"], e["align"]) for g in [*model.shared_groups, *(g for m in model.modules for g in m.groups)]
             for e in g.entries if e["kind"] in ("struct", "union") and e.get("complete", True) and e.get("size")
             for n in (e["name"], e["typedef"]) if n}
    part_template = env.get_template("rust/part.rs.j2")
    for part in parts:
        if part.name == COMMON:
            title = ("common.rs - what several libraries share: the CUDA types no library owns, the types one "
                     "library's functions take from another's, and cubind's own API (cubind/cubind.h).")
        else:
            lib = model.config.library(part.name)
            title = (f"{part.name}.rs - the {len(part.functions)} wrappers of lib{part.name} ({lib.sonames[0]}) and the "
                     f"types only they use (cargo feature \"{part.name}\").")
        records = [i.name for i in part.items if i.kind == "record" and not i.opaque and i.name in sizes]
        files[f"{CRATE}/src/{part.name}.rs"] = part_template.render(
            context | {"part": part, "title": title, "layouts": [(n, *sizes[n]) for n in records]})
    return files
