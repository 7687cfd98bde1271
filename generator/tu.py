"""Translation units: parse a list of headers with libclang, failing loudly on errors."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import clang.cindex as ci

from . import clang_ext

_OPTIONS = ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES | ci.TranslationUnit.PARSE_INCOMPLETE
# Macro definitions and expansions as cursors: only parses that read macros need them, and they
# are most of a translation unit's top-level cursors.
_MACROS = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD


class ParseError(Exception):
    """A header is missing or does not parse; the message names it."""


IncludeDirs = tuple[Path, ...]
# A folder no machine has, whose files (parse's stand_ins) exist only in libclang's memory.
STAND_INS = "/cubind-stand-ins"


@dataclass
class Parsed:
    tu: ci.TranslationUnit
    include_dirs: IncludeDirs   # searched in order, as -I options
    # Top-level cursors by kind, listed once: walking a translation unit's ~30,000 children
    # through libclang is the costly part, and every stage-1 step needs some of them.
    _top_level: list[tuple[ci.CursorKind, ci.Cursor]] | None = field(default=None, repr=False, compare=False)
    _by_kind: dict[ci.CursorKind, list[ci.Cursor]] | None = field(default=None, repr=False, compare=False)
    # Other results computed once per translation unit (macros.macro_definitions), by key.
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    def top_level(self) -> list[tuple[ci.CursorKind, ci.Cursor]]:
        """(kind, cursor) of top_level(self.tu.cursor): source order, through extern "C" blocks."""
        if self._top_level is None:
            self._top_level = [(cursor.kind, cursor) for cursor in top_level(self.tu.cursor)]
        return self._top_level

    def declarations(self, kind: ci.CursorKind) -> list[ci.Cursor]:
        """Top-level cursors of `kind`, in top_level order."""
        if self._by_kind is None:
            by_kind: dict[ci.CursorKind, list[ci.Cursor]] = {}
            for cursor_kind, cursor in self.top_level():
                by_kind.setdefault(cursor_kind, []).append(cursor)
            self._by_kind = by_kind
        return self._by_kind.get(kind, [])

    def relative(self, file: ci.File | None) -> str | None:
        """A file's path relative to the include directory it is in (its #include spelling), or None."""
        if file is None:
            return None
        return _relative(file.name, self.include_dirs)

    def header_of(self, cursor: ci.Cursor) -> str | None:
        """relative(cursor.location.file), asking libclang only for the file: SourceLocation.file
        also builds the line, column and offset, and a unit asks this of ~50,000 cursors."""
        lib = ci.conf.lib
        file = ci.c_object_p()
        lib.clang_getInstantiationLocation(lib.clang_getCursorLocation(cursor), ctypes.byref(file), None, None, None)
        if not file:
            return None
        # File handles are the translation unit's: a cursor of another unit is told apart by its own.
        key = (id(cursor._tu), ctypes.addressof(file.contents))  # the handle's value: what it points to
        names = self.memo.setdefault("header_of", {})
        if key not in names:
            names[key] = self.relative(ci.File(file))
        return names[key]

    def path_of(self, header: str) -> Path:
        """Where `#include <header>` is found."""
        return find_header(self.include_dirs, header) or self.include_dirs[0] / header


@cache
def _resolved(path: str) -> Path:
    return Path(path).resolve()


@cache
def _relative(name: str, include_dirs: IncludeDirs) -> str | None:
    # Cached: libclang asks for the same few hundred files hundreds of thousands of times.
    path = _resolved(name)
    for directory in include_dirs:
        try:
            return path.relative_to(_resolved(str(directory))).as_posix()
        except ValueError:
            continue
    return None


def load_libclang() -> None:
    """Load libclang and bind its functions (the bindings do both on first use, ~0.1 s)."""
    ci.conf.lib  # noqa: B018 - the property loads it


def find_header(include_dirs: IncludeDirs, header: str) -> Path | None:
    for directory in include_dirs:
        if (directory / header).is_file():
            return directory / header
    return None


def parse(include_dirs: IncludeDirs, headers: list[str], args: list[str], extra_source: str = "",
          name: str = "cubind", macros: bool = True, bodies: bool = False, empty: frozenset[str] = frozenset(),
          stand_ins: tuple[str, ...] = ()) -> Parsed:
    """Parse `#include <h>` for each header (then `extra_source`) as one translation unit;
    `macros`: with its macro definitions and expansions as cursors (a slower parse and walk);
    `bodies`: with function bodies (what an inline definition declares and names inside);
    `empty`: files (absolute paths) read as empty (included_files); `stand_ins`: headers (<string>)
    found empty before any other (Unit.cplusplus_only: a C parse of a header only C++ can include)."""
    for directory in include_dirs:
        if not directory.is_dir():
            raise ParseError(f"include directory {directory} does not exist")
    for header in headers:
        if find_header(include_dirs, header) is None:
            raise ParseError(f"header {header} not found in {', '.join(map(str, include_dirs))}")
    language = args[args.index("-x") + 1] if "-x" in args else "c"
    source_name = f"{name}.{'cpp' if language == 'c++' else 'c'}"
    source = "".join(f"#include <{h}>\n" for h in headers) + extra_source
    index = ci.Index.create()
    includes = [f"-I{d}" for d in include_dirs] + ([f"-I{STAND_INS}"] if stand_ins else [])
    empty = empty | {f"{STAND_INS}/{h}" for h in stand_ins}
    try:
        tu = index.parse(source_name, args=[*args, *includes],
                         unsaved_files=[(source_name, source), *((path, "") for path in sorted(empty))],
                         options=(_OPTIONS if not bodies else _OPTIONS & ~ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
                         | (_MACROS if macros else 0))
    except ci.TranslationUnitLoadError as exc:
        raise ParseError(f"libclang could not parse {', '.join(headers)}: {exc}") from exc
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error and not _in_main_file(d, source_name)]
    if errors:
        first = errors[0]
        where = f"{first.location.file.name}:{first.location.line}" if first.location.file else source_name
        raise ParseError(f"{where}: {first.spelling} (while parsing {', '.join(headers)}; {len(errors)} error(s))")
    return Parsed(tu, include_dirs)


def included_files(include_dirs: IncludeDirs, headers: list[str], args: list[str]) -> frozenset[str]:
    """The files `#include <h>` of each header reads (absolute paths), errors or not: what a parse
    with other macros (nvcc's __CUDACC__) adds, which a host compiler's parse may not be able to
    read (device code) and is then read empty (parse's `empty`)."""
    includes = [f"-I{d}" for d in include_dirs]
    source = "".join(f"#include <{h}>\n" for h in headers)
    language = args[args.index("-x") + 1] if "-x" in args else "c"
    source_name = f"cubind_files.{'cpp' if language == 'c++' else 'c'}"
    tu = ci.Index.create().parse(source_name, args=[*args, *includes], unsaved_files=[(source_name, source)],
                                 options=_OPTIONS)
    return frozenset(inclusion.include.name for inclusion in tu.get_includes())


def _in_main_file(diagnostic: ci.Diagnostic, source_name: str) -> bool:
    """Errors in the synthetic main file belong to extra_source probes, which callers check themselves."""
    file = diagnostic.location.file
    return file is not None and file.name == source_name


def top_level(cursor: ci.Cursor):
    """Top-level declarations in source order, looking through extern "C" blocks."""
    for child in clang_ext.children(cursor):
        if child.kind in (ci.CursorKind.LINKAGE_SPEC, ci.CursorKind.UNEXPOSED_DECL):
            yield from top_level(child)
        else:
            yield child
