"""Which type declarations cubind's headers must repeat, in C, and in what order.

cubind's headers are self-contained: they declare every CUDA type their
functions use. The set is every type declared in a unit's own headers plus the
closure of what those types and the bound functions refer to; the order is the
translation unit's, which is already a valid declaration order.
"""

from __future__ import annotations

import clang.cindex as ci

from . import clang_ext
from .declarators import PRIVATE_TYPEDEFS, declare
from .tu import Parsed

CK = ci.CursorKind
TK = ci.TypeKind

TYPE_DECLS = (CK.TYPEDEF_DECL, CK.ENUM_DECL, CK.STRUCT_DECL, CK.UNION_DECL)
RECORD_DECLS = (CK.STRUCT_DECL, CK.UNION_DECL)

# Types of the C library that cubind's headers take from the standard headers.
STANDARD_TYPES = {
    "size_t": "stddef.h",
    "ptrdiff_t": "stddef.h",
    "FILE": "stdio.h",
    # POSIX's, for cuFile's reads and writes at an offset and its RDMA hooks (cufile.h includes
    # <sys/socket.h>, which brings <sys/types.h>)
    "off_t": "sys/types.h",
    "ssize_t": "sys/types.h",
    "sockaddr": "sys/socket.h",
    # C11's, cuFileBatchIOGetStatus's timeout
    "timespec": "time.h",
    # declared by cubind under a private name (declarators.PRIVATE_TYPEDEFS) whose type is stdint.h's
    **{name: "stdint.h" for name in PRIVATE_TYPEDEFS},
    **{name: "stdint.h" for name in ("int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
                                      "uint32_t", "uint64_t", "intptr_t", "uintptr_t")},
}


# The C library's structures NVIDIA's headers take by pointer, by the standard header that declares
# them: where the headers a cubind header includes (those its NVIDIA counterpart includes) do not
# declare one under strict C11 (struct timespec of cufile.h, which glibc's <sys/types.h> declares only
# under _DEFAULT_SOURCE), the header declares its tag, incomplete: a pointer to it is then the same
# type as a program's, and the program is given no other name.
STANDARD_STRUCTS = {"time.h": "timespec", "sys/socket.h": "sockaddr"}


class TypeError_(Exception):
    """A type cubind cannot declare in C."""


def referenced_names(t: ci.Type) -> set[str]:
    """Names of the typedefs, enums and records a type spelling depends on."""
    kind = t.kind
    if kind == TK.POINTER:
        return referenced_names(t.get_pointee())
    if kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
        return referenced_names(t.element_type)
    if kind == TK.FUNCTIONPROTO:
        names = referenced_names(t.get_result())
        for arg in t.argument_types():
            names |= referenced_names(arg)
        return names
    if kind == TK.ELABORATED:
        return referenced_names(t.get_named_type())
    if kind in (TK.TYPEDEF, TK.ENUM, TK.RECORD):
        name = t.get_declaration().spelling
        return {name} if name and name not in STANDARD_TYPES else set()
    return set()


class TypeSelector:
    def __init__(self, c: Parsed, own_headers: set[str], define_guards=None):
        self.c = c
        self.own_headers = own_headers
        # header -> its `#ifndef M / #define M` blocks (macros.define_guards): a block is repeated whole
        self.define_guards = define_guards or (lambda header: [])
        self.order: list[ci.Cursor] = []  # one cursor per declaration, TU order
        self.by_usr: dict[str, ci.Cursor] = {}
        self.by_name: dict[str, ci.Cursor] = {}
        self.needed: set[str] = set()
        self.opaque: dict[str, dict] = {}  # C++-only classes, declared opaque in C
        self.standard_headers: set[str] = set()
        # a private typedef (PRIVATE_TYPEDEFS) -> (the usr of the first declaration using it, which its
        # typedef precedes; the C library type's size and alignment); `visiting` is the declaration
        # whose types are being visited
        self.private_users: dict[str, tuple[str, int, int]] = {}
        self.visiting: list[str] = []
        for kind, cursor in c.top_level():
            if kind not in TYPE_DECLS:
                continue
            usr = cursor.get_usr()
            known = self.by_usr.get(usr)
            if known is None:
                self.by_usr[usr] = cursor
                self.order.append(cursor)
            elif cursor.is_definition() and not known.is_definition():
                self.order[self.order.index(known)] = cursor
                self.by_usr[usr] = cursor
            if cursor.spelling:
                self.by_name.setdefault(cursor.spelling, cursor)

    # -- closure ---------------------------------------------------------------------------------
    def header(self, cursor: ci.Cursor) -> str | None:
        return self.c.header_of(cursor)

    def is_standard(self, cursor: ci.Cursor) -> bool:
        return self.header(cursor) is None

    def seed_own_headers(self) -> None:
        for cursor in self.order:
            if self.header(cursor) in self.own_headers:
                self.visit_decl(cursor)

    def headers(self) -> set[str]:
        """The headers of the declarations chosen so far (C++ classes declared opaque aside)."""
        return {h for usr in self.needed if usr in self.by_usr and (h := self.header(self.by_usr[usr])) is not None}

    def seed_enums(self, headers: set[str]) -> None:
        """Every enum of `headers` and every typedef naming one, reached by a function or not:
        a header cubind repeats declarations of is repeated with all of its constants."""
        for cursor in self.order:
            if self.header(cursor) not in headers:
                continue
            if cursor.kind == CK.ENUM_DECL or (cursor.kind == CK.TYPEDEF_DECL and
                                               cursor.underlying_typedef_type.get_canonical().kind == TK.ENUM):
                self.visit_decl(cursor)

    def visit_type(self, t: ci.Type) -> None:
        kind = t.kind
        if kind == TK.POINTER:
            self.visit_type(t.get_pointee())
        elif kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
            self.visit_type(t.element_type)
        elif kind == TK.FUNCTIONPROTO:
            self.visit_type(t.get_result())
            for arg in t.argument_types():
                self.visit_type(arg)
        elif kind == TK.ELABORATED:
            self.visit_type(t.get_named_type())
        elif kind in (TK.TYPEDEF, TK.ENUM, TK.RECORD):
            self.visit_decl(t.get_declaration())

    def visit_decl(self, cursor: ci.Cursor) -> None:
        usr = cursor.get_usr()
        if usr in self.needed:
            return
        if self.is_standard(cursor):
            if cursor.spelling not in STANDARD_TYPES:
                raise TypeError_(f"{cursor.spelling} comes from a system header cubind does not include")
            self.standard_headers.add(STANDARD_TYPES[cursor.spelling])
            if cursor.spelling in PRIVATE_TYPEDEFS and cursor.spelling not in self.private_users:
                if not self.visiting:
                    raise TypeError_(f"{cursor.spelling} is used outside a declaration cubind repeats: "
                                     "its private typedef would have no place")
                self.private_users[cursor.spelling] = (self.visiting[-1], cursor.type.get_size(),
                                                       cursor.type.get_align())
            return
        self.needed.add(usr)
        self.visiting.append(usr)
        try:
            self._visit_parts(cursor)
        finally:
            self.visiting.pop()

    def _visit_parts(self, cursor: ci.Cursor) -> None:
        header, line = self.header(cursor), cursor.location.line
        for _, first, last in self.define_guards(header):
            if first < line < last:
                for other in self.order:
                    if self.header(other) == header and first < other.location.line < last:
                        self.visit_decl(other)
        if cursor.kind == CK.TYPEDEF_DECL:
            self.visit_type(cursor.underlying_typedef_type)
        elif cursor.kind in RECORD_DECLS:
            self.visit_fields(cursor.get_definition())

    def visit_fields(self, definition: ci.Cursor | None) -> None:
        """The field types of a record, through the records nested in it."""
        for field in definition.get_children() if definition else ():
            if field.kind == CK.FIELD_DECL:
                self.visit_type(field.type)
            elif field.kind in RECORD_DECLS:
                self.visit_fields(field)

    def visit_cxx_type(self, t: ci.Type, cxx: Parsed) -> None:
        """A type of a C++-only function: use the C declaration of the same name, or declare
        the C++ class opaque."""
        kind = t.kind
        if kind == TK.POINTER:
            return self.visit_cxx_type(t.get_pointee(), cxx)
        if kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
            return self.visit_cxx_type(t.element_type, cxx)
        if kind == TK.ELABORATED:
            return self.visit_cxx_type(t.get_named_type(), cxx)
        if kind not in (TK.TYPEDEF, TK.ENUM, TK.RECORD):
            return None
        decl = t.get_declaration()
        name = decl.spelling
        if name in self.by_name:
            return self.visit_decl(self.by_name[name])
        if name in STANDARD_TYPES:
            self.standard_headers.add(STANDARD_TYPES[name])
            return None
        if kind != TK.RECORD:
            raise TypeError_(f"{name} exists only in C++ and is not a class cubind can declare opaque")
        header = cxx.relative(decl.location.file)
        self.opaque.setdefault(
            name,
            {
                "kind": "struct",
                "name": name,
                "typedef": name,
                "header": header,
                "line": decl.location.line,
                "deprecated": None,
                "complete": False,
                "opaque_reason": f"C++ class in {header}; declared opaque in C (used through pointers only)",
                "size": t.get_size(),
                "align": t.get_align(),
                "fields": [],
                "uses": [],
                "cplusplus_class": True,
            },
        )
        return None

    # -- emission ---------------------------------------------------------------------------------
    def entries(self) -> list[dict]:
        """The declarations to repeat, as IR entries, in a valid order (opaque C++ classes first)."""
        result: list[dict] = list(self.opaque.values())
        pending_anonymous: dict | None = None
        for cursor in self.order:
            if cursor.get_usr() not in self.needed:
                continue
            if cursor.kind == CK.TYPEDEF_DECL:
                underlying = cursor.underlying_typedef_type.get_declaration()
                if pending_anonymous is not None and underlying.get_usr() == pending_anonymous["usr"]:
                    pending_anonymous["typedef"] = cursor.spelling
                    pending_anonymous = None
                    continue
                result.extend(self._private_typedefs(cursor))
                result.append(self._typedef(cursor))
                continue
            result.extend(self._private_typedefs(cursor))
            entry = self._enum(cursor) if cursor.kind == CK.ENUM_DECL else self._record(cursor)
            result.append(entry)
            pending_anonymous = entry if entry["name"] is None else None
        for entry in result:
            # A bare `enum { A = 1 };` declares constants only; an anonymous struct or union
            # with no typedef name declares nothing anyone can use.
            if entry.get("name") is None and entry.get("typedef") is None and entry["kind"] != "enum":
                raise TypeError_(f"anonymous {entry['kind']} at {entry['header']}:{entry['line']} has no typedef name")
            entry.pop("usr", None)
        return result

    def _private_typedefs(self, cursor: ci.Cursor) -> list[dict]:
        """The private typedefs (PRIVATE_TYPEDEFS) that `cursor`'s declaration is the first to use,
        declared in its header just before it."""
        result = []
        for name, (usr, size, align) in sorted(self.private_users.items()):
            if usr == cursor.get_usr():
                private, target = PRIVATE_TYPEDEFS[name]
                entry = self._base(cursor, "typedef")
                entry.update(name=private, deprecated=None, usr=None, decl=f"{target} {private}", underlying=target,
                             canonical=target, uses=[], size=size, align=align)
                result.append(entry)
        return result

    def _base(self, cursor: ci.Cursor, kind: str) -> dict:
        return {
            "kind": kind,
            "name": cursor.spelling or None,
            "typedef": None,
            "header": self.header(cursor),
            "line": cursor.location.line,
            "deprecated": clang_ext.deprecation(cursor),
            "usr": cursor.get_usr(),
        }

    def _enum(self, cursor: ci.Cursor) -> dict:
        entry = self._base(cursor, "enum")
        entry["constants"] = [
            {"name": c.spelling, "value": c.enum_value} for c in cursor.get_children() if c.kind == CK.ENUM_CONSTANT_DECL
        ]
        entry["size"] = cursor.type.get_size()
        entry["align"] = cursor.type.get_align()
        return entry

    def _record(self, cursor: ci.Cursor) -> dict:
        entry = self._base(cursor, "struct" if cursor.kind == CK.STRUCT_DECL else "union")
        definition = cursor.get_definition()
        entry["complete"] = definition is not None
        entry["opaque_reason"] = None if definition is not None else "incomplete in NVIDIA's headers (a handle's target)"
        entry["fields"] = []
        entry["uses"] = []
        entry["size"] = cursor.type.get_size()
        entry["align"] = cursor.type.get_align()
        entry["explicit_align"] = None
        if definition is None:
            return entry
        entry["fields"], uses, natural = _fields(definition, entry["header"])
        if entry["align"] > natural:
            entry["explicit_align"] = entry["align"]
        entry["uses"] = sorted(uses - {entry["name"]})
        return entry

    def _typedef(self, cursor: ci.Cursor) -> dict:
        entry = self._base(cursor, "typedef")
        underlying = cursor.underlying_typedef_type
        entry["decl"] = declare(underlying, cursor.spelling)
        entry["underlying"] = underlying.spelling
        entry["canonical"] = underlying.get_canonical().spelling
        entry["uses"] = sorted(referenced_names(underlying) - {cursor.spelling})
        entry["size"] = cursor.type.get_size()
        entry["align"] = cursor.type.get_align()
        return entry


def _record_of(t: ci.Type) -> ci.Cursor | None:
    """The record declaration of a (possibly array) type, or None."""
    while t.kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
        t = t.element_type
    if t.kind == TK.ELABORATED:
        t = t.get_named_type()
    return t.get_declaration() if t.kind == TK.RECORD else None


def _fields(definition: ci.Cursor, header: str | None) -> tuple[list[dict], set[str], int]:
    """A record's fields, the names they use and their largest alignment. A record declared
    inside it is declared in place, in the field that uses it (as NVIDIA's header does); one
    without a name and without a field is a C11 anonymous member."""
    fields: list[dict] = []
    uses: set[str] = set()
    natural = 1
    children = list(definition.get_children())
    inner_records = {c.get_usr() for c in children if c.kind in RECORD_DECLS}
    used_by_field = set()
    for child in children:
        record = _record_of(child.type) if child.kind == CK.FIELD_DECL else None
        if record is not None and record.get_usr() in inner_records:
            used_by_field.add(record.get_usr())
    for child in children:
        if child.kind == CK.ENUM_DECL:
            raise TypeError_(f"{header}:{child.location.line}: enums declared inside a record are not supported")
        if child.kind in RECORD_DECLS:
            if child.get_usr() in used_by_field:
                continue
            if child.spelling:
                raise TypeError_(f"{header}:{child.location.line}: a named record declared inside a record "
                                 "without a field is not supported")
            inner, inner_uses, _ = _fields(child, header)
            fields.append(_nested_field("", _record_kind(child), None, inner, child))
            uses |= inner_uses
            natural = max(natural, child.type.get_align())
            continue
        if child.kind != CK.FIELD_DECL:
            continue
        width = child.get_bitfield_width() if child.is_bitfield() else None
        record = _record_of(child.type)
        if record is not None and record.get_usr() in inner_records:
            inner, inner_uses, _ = _fields(record, header)
            field = _nested_field(child.spelling, _record_kind(record), record.spelling or None, inner, child)
            field["decl"] = declare(child.type, child.spelling, base=_inline_record(field["record"]))
            uses |= inner_uses
        else:
            field = {
                "name": child.spelling,
                "type": child.type.spelling,
                "canonical": child.type.get_canonical().spelling,
                "decl": declare(child.type, child.spelling),
                "offset_bits": child.get_field_offsetof(),
                "bit_width": width,
                "record": None,
            }
            uses |= referenced_names(child.type)
        natural = max(natural, child.type.get_align())
        fields.append(field)
    return fields, uses, natural


def _record_kind(cursor: ci.Cursor) -> str:
    return "struct" if cursor.kind == CK.STRUCT_DECL else "union"


def _inline_record(record: dict) -> str:
    """`struct [name] { <fields> }`: a record declared in place, in the field that uses it."""
    body = " ".join(f"{f['decl']}{'' if f['bit_width'] is None else ' : %d' % f['bit_width']};"
                    for f in record["fields"])
    name = f" {record['name']}" if record["name"] else ""
    return f"{record['kind']}{name} {{ {body} }}"


def _nested_field(name: str, kind: str, record_name: str | None, fields: list[dict], cursor: ci.Cursor) -> dict:
    record = {"kind": kind, "name": record_name, "fields": fields}
    inline = _inline_record(record)
    # An anonymous member holding a record of an anonymous type (CUPTI's CUpti_StateData: union {
    # struct { ... } notification; }) is an extension in C++ (-Wnested-anon-types): marked as one, as
    # GCC and Clang read it in C and C++
    extension = not name and any(f["record"] is not None and not f["record"]["name"] for f in fields)
    return {
        "name": name,
        "type": inline,
        "canonical": inline,
        "decl": ("__extension__ " if extension else "") + f"{inline} {name}".strip(),
        "offset_bits": cursor.get_field_offsetof() if name else None,
        "bit_width": None,
        "record": record,
    }
