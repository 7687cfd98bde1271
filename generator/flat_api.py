"""cubind's hand-written API (include/cubind/cubind.h, with the generated cubind/libraries.h),
read with libclang and flattened for FFI users: declarations without preprocessor lines for the
cdef files, and the values an FFI without a C parser needs (enum constants, integer #defines,
the layout of cubind's own structures) for the constants file. Read from the header itself, so
both follow it as it changes."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import clang.cindex as ci

from .api import API_HEADERS, PUBLIC_HEADER
from .ctext import spaced
from .typesel import STANDARD_TYPES

INCLUDE = PUBLIC_HEADER.parent.parent
HEADER_NAME = "cubind/cubind.h"


@dataclass
class HandWritten:
    declarations: list[str] = field(default_factory=list)  # flat C, in header order
    enums: list[dict] = field(default_factory=list)    # {"name", "typedef", "constants": [{"name", "value"}]}
    defines: list[dict] = field(default_factory=list)  # integer #define constants: {"name", "value"}
    layouts: dict[str, dict] = field(default_factory=dict)  # struct tag -> {"size", "align", "offsets"}
    comments: dict[str, str] = field(default_factory=dict)  # declared name ("name()": a function) -> the comment before it


def _tokens(cursor: ci.Cursor, macros: dict[str, str]) -> list[str]:
    """The cursor's tokens, integer macros replaced by their values."""
    return [macros.get(t.spelling, t.spelling) for t in cursor.get_tokens()]


def _enum(cursor: ci.Cursor, typedef: str | None, api: HandWritten) -> str:
    constants = [{"name": c.spelling, "value": c.enum_value}
                 for c in cursor.get_children() if c.kind == ci.CursorKind.ENUM_CONSTANT_DECL]
    name = None if cursor.is_anonymous() else cursor.spelling
    api.enums.append({"name": name, "typedef": typedef, "constants": constants})
    values = [f"    {c['name']} = {c['value']}" for c in constants]
    head = ("typedef " if typedef else "") + "enum" + (f" {name}" if name else "")
    return head + " {\n" + ",\n".join(values) + "\n}" + (f" {typedef}" if typedef else "") + ";"


def _record(cursor: ci.Cursor, typedef: str | None, macros: dict[str, str], api: HandWritten) -> str:
    kind = "struct" if cursor.kind == ci.CursorKind.STRUCT_DECL else "union"
    head = ("typedef " if typedef else "") + kind + (f" {cursor.spelling}" if not cursor.is_anonymous() else "")
    if not cursor.is_definition():
        return f"{head};"
    members = [f for f in cursor.get_children() if f.kind == ci.CursorKind.FIELD_DECL]
    api.layouts[str(typedef) if cursor.is_anonymous() else cursor.spelling] = {
        "size": cursor.type.get_size(), "align": cursor.type.get_align(),
        "offsets": {f.spelling: cursor.type.get_offset(f.spelling) // 8 for f in members},
    }
    fields = [f"    {spaced(_tokens(f, macros))};" for f in members]
    return head + " {\n" + "\n".join(fields) + "\n}" + (f" {typedef}" if typedef else "") + ";"


def _function(cursor: ci.Cursor, macros: dict[str, str]) -> str:
    params = [spaced(_tokens(p, macros)) for p in cursor.get_arguments()] or ["void"]
    returns = cursor.result_type.spelling
    joiner = "" if returns.endswith("*") else " "
    return f"{returns}{joiner}{cursor.spelling}({', '.join(params)});"


def _tag_kind(cursor: ci.Cursor) -> str:
    return {ci.CursorKind.ENUM_DECL: "enum", ci.CursorKind.STRUCT_DECL: "struct"}.get(cursor.kind, "union")


def _tag(cursor: ci.Cursor, typedef: str | None, macros: dict[str, str], api: HandWritten) -> str:
    if cursor.kind == ci.CursorKind.ENUM_DECL:
        return _enum(cursor, typedef, api)
    return _record(cursor, typedef, macros, api)


def hand_written(libraries_h: str, headers: tuple[Path, ...] = API_HEADERS) -> HandWritten:
    """The declarations of the hand-written API (include/cubind/core.h, then the other hand-written headers cubind/cubind.h includes) and of the
    generated cubind/libraries.h (given as text), in header order: integer #define constants become
    enum constants."""
    with tempfile.TemporaryDirectory(prefix="cubind-cdef-") as tmp:
        (Path(tmp) / "cubind").mkdir()
        (Path(tmp) / "cubind" / "libraries.h").write_text(libraries_h)
        (Path(tmp) / "cubind" / "modules.h").write_text("")
        root = Path(tmp) / "cubind_api.h"
        root.write_text("".join(f'#include "{h.resolve()}"\n' for h in headers))
        ours = {*(str(h.resolve()) for h in headers), str((Path(tmp) / "cubind" / "libraries.h").resolve())}
        tu = ci.Index.create().parse(
            str(root),
            args=["-x", "c", "-std=c11", f"-I{tmp}", f"-I{INCLUDE}", "-DCUBIND_NO_DEPRECATION_WARNINGS",
                  "-fparse-all-comments", "-fretain-comments-from-system-headers"],
            options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD,
        )
        errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
        if errors:
            raise ValueError(f"{', '.join(map(str, headers))}: {errors[0].spelling}")
        macros: dict[str, str] = {}
        api = HandWritten()
        out = api.declarations
        pending: ci.Cursor | None = None  # a tag definition its typedef may name
        for cursor in tu.cursor.get_children():
            if cursor.location.file is None or str(Path(cursor.location.file.name).resolve()) not in ours:
                continue
            kind = cursor.kind
            if cursor.raw_comment and cursor.spelling:  # the documentation of the Rust crate's items
                function = "()" if kind == ci.CursorKind.FUNCTION_DECL else ""  # cubind_library_info: both
                api.comments.setdefault(cursor.spelling + function, cursor.raw_comment)
            if kind == ci.CursorKind.MACRO_DEFINITION:
                body = [t.spelling for t in cursor.get_tokens()][1:]
                if len(body) == 1 and body[0].lstrip("-").isdigit():
                    macros[cursor.spelling] = body[0]
                    api.defines.append({"name": cursor.spelling, "value": int(body[0])})
                    out.append(f"enum {{ {cursor.spelling} = {body[0]} }};")
                continue
            if pending is not None and not (kind == ci.CursorKind.TYPEDEF_DECL and
                                            cursor.underlying_typedef_type.get_declaration() == pending):
                out.append(_tag(pending, None, macros, api))
                pending = None
            if kind in (ci.CursorKind.ENUM_DECL, ci.CursorKind.STRUCT_DECL, ci.CursorKind.UNION_DECL):
                pending = cursor
            elif kind == ci.CursorKind.TYPEDEF_DECL and cursor.spelling in STANDARD_TYPES:
                continue  # the C library's (core.h names size_t without <stddef.h>): a cdef knows it
            elif kind == ci.CursorKind.TYPEDEF_DECL:
                target = cursor.underlying_typedef_type.get_declaration()
                if pending is not None and target == pending:
                    if pending.is_anonymous():
                        out.append(_tag(pending, cursor.spelling, macros, api))
                    else:
                        out.append(_tag(pending, None, macros, api))
                        out.append(f"typedef {_tag_kind(pending)} {pending.spelling} {cursor.spelling};")
                        if pending.kind == ci.CursorKind.ENUM_DECL:
                            api.enums[-1]["typedef"] = cursor.spelling
                    pending = None
                else:
                    out.append(spaced(_tokens(cursor, macros)) + ";")
            elif kind == ci.CursorKind.FUNCTION_DECL:
                out.append(_function(cursor, macros))
        if pending is not None:
            out.append(_tag(pending, None, macros, api))
        return api
