"""Which type declarations cubind's headers must repeat, in C, and in what order.

cubind's headers are self-contained: they declare every CUDA type their
functions use. The set is every type declared in a unit's own headers plus the
closure of what those types and the bound functions refer to; the order is the
translation unit's, which is already a valid declaration order.
"""

from __future__ import annotations

import clang.cindex as ci

from . import clang_ext
from .declarators import declare
from .tu import Parsed, top_level

CK = ci.CursorKind
TK = ci.TypeKind

TYPE_DECLS = (CK.TYPEDEF_DECL, CK.ENUM_DECL, CK.STRUCT_DECL, CK.UNION_DECL)
RECORD_DECLS = (CK.STRUCT_DECL, CK.UNION_DECL)

# Types of the C library that cubind's headers take from the standard headers.
STANDARD_TYPES = {
    "size_t": "stddef.h",
    "ptrdiff_t": "stddef.h",
    "FILE": "stdio.h",
    **{name: "stdint.h" for name in ("int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
                                      "uint32_t", "uint64_t", "intptr_t", "uintptr_t")},
}


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
    def __init__(self, c: Parsed, own_headers: set[str]):
        self.c = c
        self.own_headers = own_headers
        self.order: list[ci.Cursor] = []  # one cursor per declaration, TU order
        self.by_usr: dict[str, ci.Cursor] = {}
        self.by_name: dict[str, ci.Cursor] = {}
        self.needed: set[str] = set()
        self.opaque: dict[str, dict] = {}  # C++-only classes, declared opaque in C
        self.standard_headers: set[str] = set()
        for cursor in top_level(c.tu.cursor):
            if cursor.kind not in TYPE_DECLS:
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
        return self.c.relative(cursor.location.file)

    def is_standard(self, cursor: ci.Cursor) -> bool:
        return self.header(cursor) is None

    def seed_own_headers(self) -> None:
        for cursor in self.order:
            if self.header(cursor) in self.own_headers:
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
            return
        self.needed.add(usr)
        if cursor.kind == CK.TYPEDEF_DECL:
            self.visit_type(cursor.underlying_typedef_type)
        elif cursor.kind in RECORD_DECLS:
            definition = cursor.get_definition()
            for field in definition.get_children() if definition else ():
                if field.kind == CK.FIELD_DECL:
                    self.visit_type(field.type)

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
                result.append(self._typedef(cursor))
                continue
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
        natural = 1
        uses: set[str] = set()
        for field in definition.get_children():
            if field.kind in RECORD_DECLS + (CK.ENUM_DECL,):
                raise TypeError_(f"{entry['header']}:{field.location.line}: nested type declarations are not supported")
            if field.kind != CK.FIELD_DECL:
                continue
            width = field.get_bitfield_width() if field.is_bitfield() else None
            entry["fields"].append(
                {
                    "name": field.spelling,
                    "type": field.type.spelling,
                    "canonical": field.type.get_canonical().spelling,
                    "decl": declare(field.type, field.spelling),
                    "offset_bits": field.get_field_offsetof(),
                    "bit_width": width,
                }
            )
            natural = max(natural, field.type.get_align())
            uses |= referenced_names(field.type)
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
