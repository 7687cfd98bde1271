"""The ABI of a function as one release's headers declare it: its canonical signature, the records
it reaches and their layouts, the enums it takes. The releases' ABIs are compared from these
(generator/release_compare.py); nothing here depends on another release.

A record is named by its canonical C spelling (`struct cudaDeviceProp`, or the typedef name of an
anonymous one: `cublasLtMatmulPreferenceOpaque_t`); a record declared in place inside another, with
no name, is named after the field that holds it (`struct cudaResourceDesc.res`), a C11 anonymous
member by its place (`struct cudaGraphNodeParams.(anonymous 1)`, held by a field with no name).
Incomplete records (a handle's target) have no layout and are not listed: only what a caller lays
out in memory can differ between releases. For the same reason the record behind a handle type (a
typedef of a pointer to a complete record: cublasLt's `cublasLtMatmulDesc_t`) is not followed: the
library allocates it (its Create function), except for the functions a unit's `caller_storage`
configuration names, which lay it out in memory the caller allocated
(`cublasLtMatmulDescInit_internal`).
"""

from __future__ import annotations

import clang.cindex as ci

from . import clang_ext
from .typesel import TypeError_

CK = ci.CursorKind
TK = ci.TypeKind

_ARRAYS = (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY)
_FUNCTIONS = (TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO)
_RECORD_DECLS = (CK.STRUCT_DECL, CK.UNION_DECL)


def abi_spelling(t: ci.Type) -> str:
    """A canonical type's structure without qualifiers."""
    t = t.get_canonical()
    kind = t.kind
    if kind == TK.POINTER:
        return abi_spelling(t.get_pointee()) + " *"
    if kind == TK.CONSTANTARRAY:
        return f"{abi_spelling(t.element_type)}[{t.element_count}]"
    if kind == TK.INCOMPLETEARRAY:
        return f"{abi_spelling(t.element_type)}[]"
    if kind in _FUNCTIONS:
        params = [abi_spelling(a) for a in t.argument_types()] if kind == TK.FUNCTIONPROTO else []
        return f"{abi_spelling(t.get_result())} ({', '.join(params)})"
    if kind in (TK.RECORD, TK.ENUM):
        return _unqualified(t).spelling
    return kind.spelling.lower()  # a builtin type: Int, ULong, Float... by kind, qualifiers gone


def is_handle(t: ci.Type) -> bool:
    """Whether a type as written is a handle type: a typedef (possibly qualified) of a pointer to
    a complete record, which the library allocates."""
    while t.kind == TK.ELABORATED:
        t = t.get_named_type()
    if t.kind != TK.TYPEDEF:
        return False
    target = t.get_canonical()
    if target.kind != TK.POINTER:
        return False
    pointee = target.get_pointee().get_canonical()
    return pointee.kind == TK.RECORD and pointee.get_declaration().get_definition() is not None


class Layouts:
    """The records and enums the functions of one translation unit reach, computed once each."""

    def __init__(self) -> None:
        self.records: dict[str, dict] = {}   # record name -> {kind, size, align, fields}
        self._reach: dict[str, tuple[frozenset[str], frozenset[str]]] = {}  # record -> (records, enums)
        # (translation unit, type spelling, follow handles) -> _type_facts
        self._types: dict[tuple[int, str, bool], tuple] = {}

    def function(self, cursor: ci.Cursor, caller_storage: bool = False) -> dict:
        """A function's ABI facts: `signature` (canonical types), `abi` (the same without qualifiers:
        what is compared), `result` / `params` (canonical), `abi_result` / `abi_params`, `records`
        (the records it reaches through its result and parameters, by value or through pointers
        and, recursively, through their fields), `enums` (those it takes there) and `indirection`
        (per parameter, the record it names and through how many pointers), `names` (the
        parameters' names, for reasons only: never compared). `caller_storage`:
        follow its handle parameters to their records too."""
        arguments = list(clang_ext.arguments(cursor))
        types = [cursor.result_type, *(a.type for a in arguments)]
        facts = [self._type_facts(t, caller_storage) for t in types]
        records = set().union(*(f[3] for f in facts))
        enums = set().union(*(f[4] for f in facts))
        result, params = facts[0], facts[1:]
        return {
            "signature": f"{result[0]} ({', '.join(p[0] for p in params) or 'void'})",
            "abi": f"{result[1]} ({', '.join(p[1] for p in params) or 'void'})",
            "result": result[0],
            "params": [p[0] for p in params],
            "abi_result": result[1],
            "abi_params": [p[1] for p in params],
            "records": sorted(records),
            "enums": sorted(enums),
            "indirection": [p[2] for p in params],
            "names": [a.spelling for a in arguments],  # what a reason names (release_compare)
        }

    def _type_facts(self, t: ci.Type, follow_handles: bool) -> tuple:
        """(canonical spelling, abi_spelling, indirection, records, enums) of a type, once per type
        spelling (which names one type within a translation unit) and handle policy."""
        key = (id(t._tu), t.spelling, follow_handles)
        facts = self._types.get(key)
        if facts is None:
            records, enums = self._type(t, follow_handles)
            facts = self._types[key] = (t.get_canonical().spelling, abi_spelling(t), indirection(t), records, enums)
        return facts

    def _type(self, t: ci.Type, follow_handles: bool) -> tuple[frozenset[str], frozenset[str]]:
        target = _target(t, follow_handles)
        if target is None:
            return frozenset(), frozenset()
        if target.kind == TK.ENUM:
            return frozenset(), frozenset({enum_name(target)})
        if target.kind != TK.RECORD:
            return frozenset(), frozenset()  # scalars; function pointers' own parameters are the callee's
        definition = target.get_declaration().get_definition()
        if definition is None:
            return frozenset(), frozenset()
        return self._record(record_name(target), definition)

    def _record(self, name: str, definition: ci.Cursor) -> tuple[frozenset[str], frozenset[str]]:
        known = self._reach.get(name)
        if known is not None:
            return known
        self._reach[name] = (frozenset({name}), frozenset())  # a record that points to itself
        fields: list[dict] = []
        records: set[str] = {name}
        enums: set[str] = set()
        children = clang_ext.children(definition)
        # the records fields are declared with, arrays' elements included (nvml.h's `struct {...} sensor[3];`
        # declares an unnamed record for a named field: not a C11 anonymous member)
        in_fields = {_element(c.type).get_declaration().get_usr() for c in children if c.kind == CK.FIELD_DECL}
        anonymous = 0
        for child in children:
            if child.kind in _RECORD_DECLS and child.get_usr() not in in_fields and not child.spelling:
                # a C11 anonymous member: a field with no name whose record's fields C names directly
                anonymous += 1
                member = f"{name}.(anonymous {anonymous})"
                found_records, found_enums = self._record(member, child)
                records |= found_records
                enums |= found_enums
                fields.append({"name": "", "offset": _anonymous_offset(definition, child) // 8,
                               "size": child.type.get_size(), "canonical": member, "kind": "record",
                               "record": member, "pointee": None, "bits": None})
            elif child.kind == CK.FIELD_DECL:
                fields.append(self._field(name, child, records, enums))
        self.records[name] = {
            "kind": "union" if definition.kind == CK.UNION_DECL else "struct",
            "size": definition.type.get_size(),
            "align": definition.type.get_align(),
            "fields": fields,
        }
        self._reach[name] = (frozenset(records), frozenset(enums))
        return self._reach[name]

    def _field(self, name: str, child: ci.Cursor, records: set[str], enums: set[str]) -> dict:
        """A field's layout entry; the records and enums it reaches go into `records` and `enums`."""
        t = child.type.get_canonical()
        by_value = t  # what the field holds in place: itself, or an array's element
        while by_value.kind in _ARRAYS:
            by_value = by_value.element_type.get_canonical()
        target = _target(child.type, follow_handles=False)  # what it names at last, through pointers and arrays
        named = None
        if target is not None and target.kind == TK.RECORD and target.get_declaration().get_definition() is not None:
            named = f"{name}.{child.spelling}" if not _typedef_named(target) else record_name(target)
            found_records, found_enums = self._record(named, target.get_declaration().get_definition())
            records |= found_records
            enums |= found_enums
        elif target is not None and target.kind == TK.ENUM:
            enums.add(enum_name(target))
        if t.kind in _ARRAYS:
            kind = "array"
        elif t.kind == TK.POINTER:
            kind = "pointer"
        elif t.kind == TK.RECORD:
            kind = "record"
        else:
            kind = "scalar"
        held = named if by_value.kind == TK.RECORD else None
        return {
            "name": child.spelling,
            "offset": child.get_field_offsetof() // 8,
            "size": t.get_size(),
            "canonical": _spelling(t, named, target) if target is not None else t.spelling,
            "kind": kind,
            "record": held,
            "pointee": named if held is None else None,
            "bits": {"offset": child.get_field_offsetof(), "width": child.get_bitfield_width()} if child.is_bitfield()
            else None,
        }


def indirection(t: ci.Type) -> tuple[str | None, int]:
    """The record a parameter type names at last (None: no record with a layout, or a handle) and
    through how many pointers (an array parameter is a pointer)."""
    depth = 0
    while True:
        if is_handle(t):
            return None, depth
        if t.kind == TK.ELABORATED:
            t = t.get_named_type()
        elif t.kind == TK.TYPEDEF:
            t = t.get_declaration().underlying_typedef_type
        elif t.kind == TK.POINTER:
            t, depth = t.get_pointee(), depth + 1
        elif t.kind in _ARRAYS:
            t, depth = t.element_type, depth + 1
        else:
            break
    t = t.get_canonical()
    if t.kind != TK.RECORD or t.get_declaration().get_definition() is None:
        return None, depth
    return record_name(t), depth


def _target(t: ci.Type, follow_handles: bool) -> ci.Type | None:
    """The canonical type a type names at last, through typedefs, pointers and arrays; None when
    it goes through a handle type (is_handle) and `follow_handles` is false."""
    while True:
        if not follow_handles and is_handle(t):
            return None
        if t.kind == TK.ELABORATED:
            t = t.get_named_type()
        elif t.kind == TK.TYPEDEF:
            t = t.get_declaration().underlying_typedef_type
        elif t.kind == TK.POINTER:
            t = t.get_pointee()
        elif t.kind in _ARRAYS:
            t = t.element_type
        else:
            return t.get_canonical()


def _typedef_named(t: ci.Type) -> bool:
    """Whether a record's canonical spelling is a name (a typedef's, for an anonymous record) rather
    than clang's `(anonymous at <path>)`, which must never reach the IR."""
    return "(anonymous" not in t.spelling and "(unnamed" not in t.spelling


def _element(t: ci.Type) -> ci.Type:
    """The canonical type a field holds in place: itself, or an array's (innermost) element."""
    t = t.get_canonical()
    while t.kind in _ARRAYS:
        t = t.element_type.get_canonical()
    return t


def _anonymous_offset(parent: ci.Cursor, member: ci.Cursor) -> int:
    """The offset in bits of a C11 anonymous member: that of its first field within the parent."""
    for field in clang_ext.children(member):
        if field.kind == CK.FIELD_DECL:
            return parent.type.get_offset(field.spelling) - member.type.get_offset(field.spelling)
    return 0


def _spelling(t: ci.Type, record: str | None, inner: ci.Type) -> str:
    """A field's canonical type as text; a record declared in place is written by its IR name."""
    if record is not None and not _typedef_named(inner):
        return t.spelling.replace(inner.spelling, record)
    return t.spelling


def _unqualified(t: ci.Type) -> ci.Type:
    """The canonical type of a record or enum without its qualifiers (`const struct X` -> `struct X`)."""
    return t.get_declaration().type.get_canonical()


def record_name(t: ci.Type) -> str:
    t = _unqualified(t)
    name = t.spelling
    if not _typedef_named(t):
        raise TypeError_(f"an anonymous record reached by a function has no name to compare it by: {name}")
    return name


def enum_name(t: ci.Type) -> str:
    t = _unqualified(t)
    name = t.spelling
    if not _typedef_named(t):
        raise TypeError_(f"an anonymous enum reached by a function has no name to compare it by: {name}")
    return name.removeprefix("enum ")
