"""Outputs for FFI authors and readers, rendered from the same model as the C headers:

- cdef/<module>.h and cdef/cubind.h: flat C declarations (typedefs, enums with explicit
  values, structs, prototypes; no preprocessor line, attribute or include) that LuaJIT's
  ffi.cdef and cffi's cdef accept unchanged (templates/cdef.h.j2);
- docs/api/<module>.md: the API reference of every wrapper (templates/api.md.j2), with
  whether the CUDA toolkit's own library exports its symbol.

The hand-written part of the API (include/cubind/cubind.h: error record, library info,
loader functions) is read with libclang, so the cdef follows that header as it changes.
"""

from __future__ import annotations

import dataclasses

import mmap
import struct
import tempfile
from pathlib import Path

import clang.cindex as ci
import jinja2

from .api import PUBLIC_HEADER
from .ctext import spaced
from .model import Model, ModuleModel

INCLUDE = PUBLIC_HEADER.parent.parent


# --- the hand-written API, flattened ------------------------------------------------------------

def _tokens(cursor: ci.Cursor, macros: dict[str, str]) -> list[str]:
    """The cursor's tokens, integer macros replaced by their values."""
    return [macros.get(t.spelling, t.spelling) for t in cursor.get_tokens()]


def _enum(cursor: ci.Cursor, typedef: str | None) -> str:
    values = [f"    {c.spelling} = {c.enum_value}" for c in cursor.get_children() if c.kind == ci.CursorKind.ENUM_CONSTANT_DECL]
    head = ("typedef " if typedef else "") + "enum" + (f" {cursor.spelling}" if not cursor.is_anonymous() else "")
    return head + " {\n" + ",\n".join(values) + "\n}" + (f" {typedef}" if typedef else "") + ";"


def _record(cursor: ci.Cursor, typedef: str | None, macros: dict[str, str]) -> str:
    kind = "struct" if cursor.kind == ci.CursorKind.STRUCT_DECL else "union"
    head = ("typedef " if typedef else "") + kind + (f" {cursor.spelling}" if not cursor.is_anonymous() else "")
    if not cursor.is_definition():
        return f"{head};"
    fields = [f"    {spaced(_tokens(f, macros))};" for f in cursor.get_children() if f.kind == ci.CursorKind.FIELD_DECL]
    return head + " {\n" + "\n".join(fields) + "\n}" + (f" {typedef}" if typedef else "") + ";"


def _function(cursor: ci.Cursor, macros: dict[str, str]) -> str:
    params = [spaced(_tokens(p, macros)) for p in cursor.get_arguments()] or ["void"]
    returns = cursor.result_type.spelling
    joiner = "" if returns.endswith("*") else " "
    return f"{returns}{joiner}{cursor.spelling}({', '.join(params)});"


def hand_written(libraries_h: str, header: Path = PUBLIC_HEADER) -> list[str]:
    """Flat declarations of include/cubind/cubind.h and of the generated cubind/libraries.h
    (given as text), in header order: integer #define constants become enum constants."""
    with tempfile.TemporaryDirectory(prefix="cubind-cdef-") as tmp:
        (Path(tmp) / "cubind").mkdir()
        (Path(tmp) / "cubind" / "libraries.h").write_text(libraries_h)
        (Path(tmp) / "cubind" / "modules.h").write_text("")
        ours = {str(header.resolve()), str((Path(tmp) / "cubind" / "libraries.h").resolve())}
        tu = ci.Index.create().parse(
            str(header),
            args=["-x", "c", "-std=c11", f"-I{tmp}", f"-I{INCLUDE}", "-DCUBIND_NO_DEPRECATION_WARNINGS"],
            options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD,
        )
        errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
        if errors:
            raise ValueError(f"{header}: {errors[0].spelling}")
        macros: dict[str, str] = {}
        out: list[str] = []
        pending: ci.Cursor | None = None  # a tag definition its typedef may name
        for cursor in tu.cursor.get_children():
            if cursor.location.file is None or str(Path(cursor.location.file.name).resolve()) not in ours:
                continue
            kind = cursor.kind
            if kind == ci.CursorKind.MACRO_DEFINITION:
                body = [t.spelling for t in cursor.get_tokens()][1:]
                if len(body) == 1 and body[0].lstrip("-").isdigit():
                    macros[cursor.spelling] = body[0]
                    out.append(f"enum {{ {cursor.spelling} = {body[0]} }};")
                continue
            if pending is not None and not (kind == ci.CursorKind.TYPEDEF_DECL and
                                            cursor.underlying_typedef_type.get_declaration() == pending):
                out.append(_tag(pending, None, macros))
                pending = None
            if kind in (ci.CursorKind.ENUM_DECL, ci.CursorKind.STRUCT_DECL, ci.CursorKind.UNION_DECL):
                pending = cursor
            elif kind == ci.CursorKind.TYPEDEF_DECL:
                target = cursor.underlying_typedef_type.get_declaration()
                if pending is not None and target == pending:
                    if pending.is_anonymous():
                        out.append(_tag(pending, cursor.spelling, macros))
                    else:
                        out.append(_tag(pending, None, macros))
                        out.append(f"typedef {_tag_kind(pending)} {pending.spelling} {cursor.spelling};")
                    pending = None
                else:
                    out.append(spaced(_tokens(cursor, macros)) + ";")
            elif kind == ci.CursorKind.FUNCTION_DECL:
                out.append(_function(cursor, macros))
        if pending is not None:
            out.append(_tag(pending, None, macros))
        return out


def _tag_kind(cursor: ci.Cursor) -> str:
    return {ci.CursorKind.ENUM_DECL: "enum", ci.CursorKind.STRUCT_DECL: "struct"}.get(cursor.kind, "union")


def _tag(cursor: ci.Cursor, typedef: str | None, macros: dict[str, str]) -> str:
    if cursor.kind == ci.CursorKind.ENUM_DECL:
        return _enum(cursor, typedef)
    return _record(cursor, typedef, macros)


def type_modules(model: Model, targets: list[ModuleModel]) -> list[ModuleModel]:
    """The modules whose types `targets` need, each after those it uses (the order in which
    the C headers' #includes declare them)."""
    by_name = {m.module.name: m for m in [*model.modules, *model.type_modules]}
    order: list[ModuleModel] = []
    seen: set[str] = set()

    def visit(module: ModuleModel) -> None:
        if module.module.name in seen:
            return
        seen.add(module.module.name)
        for name in module.type_includes:
            visit(by_name[name])
        order.append(module)

    for module in targets:
        visit(module)
    return order


def standard_structs(model: Model, modules: list[ModuleModel]) -> list[tuple[str, str]]:
    """(tag, typedef) of the C library's structures the wrappers take by pointer, declared opaque
    because LuaJIT's FFI does not know them: FILE (glibc's struct _IO_FILE), when a module's
    declarations need stdio.h."""
    del model  # the modules' own facts say it
    headers = {h for module in modules for h in module.standard_headers}
    return [("_IO_FILE", "FILE")] if "stdio.h" in headers else []


# --- what the toolkit's libraries export --------------------------------------------------------

LIBRARY_DIRS = ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib")


def exported_functions(path: Path) -> set[str] | None:
    """Names of the functions an ELF shared object defines in its dynamic symbol table
    (global or weak), read with the standard library alone; None when it is not readable."""
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _dynamic_functions(data)
    except (OSError, ValueError, struct.error):
        return None


def _dynamic_functions(data: mmap.mmap) -> set[str] | None:
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:  # 64-bit little-endian only
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names: set[str] = set()
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind != 11:  # SHT_DYNSYM
            continue
        strtab = sections[link]
        for at in range(offset, offset + size, entsize or 24):
            st_name, st_info, _other, st_shndx = struct.unpack_from("<IBBH", data, at)
            bind, typ = st_info >> 4, st_info & 0xF
            if st_shndx == 0 or bind not in (1, 2) or typ not in (2, 10):  # defined FUNC/IFUNC
                continue
            start = strtab[4] + st_name
            names.add(data[start:data.find(b"\0", start)].decode())
    return names


def census(model: Model, cuda_path: Path | None) -> dict[str, dict]:
    """For each library: the file of its newest soname in the toolkit and the symbols it
    exports ({"soname", "path", "symbols"}; symbols None when the file is not there)."""
    result = {}
    for library in model.libraries:
        soname = library.library.sonames[0]
        found = None
        if cuda_path is not None:
            for directory in LIBRARY_DIRS:
                candidate = cuda_path / directory / soname
                if candidate.is_file():
                    found = (f"{directory}/{soname}", exported_functions(candidate))
                    break
        result[library.library.name] = {
            "soname": soname,
            "path": found[0] if found else None,
            "symbols": found[1] if found else None,
        }
    return result


def flat_groups(model: Model, modules: list[ModuleModel]) -> list:
    """The type groups a cdef file declares, shared ones first. A block NVIDIA guards with
    `#ifndef M / #define M` in two headers (CUuuid_st in cuda.h and driver_types.h) is declared
    once, from the first header: a flat file has no preprocessor to skip the second."""
    groups = [*model.shared_groups, *(g for tm in type_modules(model, modules) for g in tm.groups)]
    first_header: dict[str, str] = {}
    for group in groups:
        for entry in group.entries:
            if entry.get("define_guard"):
                first_header.setdefault(entry["define_guard"], group.header)
    result = []
    for group in groups:
        entries = [e for e in group.entries
                   if not e.get("define_guard") or first_header[e["define_guard"]] == group.header]
        result.append(dataclasses.replace(group, entries=entries))
    return result


def render(env: jinja2.Environment, model: Model, common: dict, out: dict[str, str],
           cuda_path: Path | None = None) -> dict[str, str]:
    """cdef/*.h and docs/api/*.md (paths relative to generated/)."""
    files: dict[str, str] = {}
    api = hand_written(out["include/cubind/libraries.h"])
    cdef = env.get_template("cdef.h.j2")
    files["cdef/cubind.h"] = cdef.render(common | {
        "name": "cubind", "modules": model.modules, "groups": flat_groups(model, model.modules), "api": api,
        "standard": standard_structs(model, model.modules),
    })
    for module in model.modules:
        files[f"cdef/{module.module.name}.h"] = cdef.render(common | {
            "name": module.module.name, "modules": [module], "groups": flat_groups(model, [module]),
            "api": api, "standard": standard_structs(model, [module]),
        })
    exports = census(model, cuda_path)
    doc = env.get_template("api.md.j2")
    files["docs/api/README.md"] = env.get_template("api_index.md.j2").render(common | {"census": exports})
    for module in model.modules:
        files[f"docs/api/{module.module.name}.md"] = doc.render(common | {
            "m": module, "lib": model.config.library(module.module.library),
            "census": exports[module.module.library],
        })
    return files
