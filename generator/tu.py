"""Translation units: parse a list of headers with libclang, failing loudly on errors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci

_OPTIONS = (
    ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    | ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES
    | ci.TranslationUnit.PARSE_INCOMPLETE
)


class ParseError(Exception):
    """A header is missing or does not parse; the message names it."""


@dataclass
class Parsed:
    tu: ci.TranslationUnit
    include_dir: Path

    def relative(self, file: ci.File | None) -> str | None:
        """A file's path relative to the include directory (its #include spelling), or None."""
        if file is None:
            return None
        path = Path(file.name)
        try:
            return path.resolve().relative_to(self.include_dir.resolve()).as_posix()
        except ValueError:
            return None


def parse(include_dir: Path, headers: list[str], args: list[str], extra_source: str = "", name: str = "cubind") -> Parsed:
    """Parse `#include <h>` for each header (then `extra_source`) as one translation unit."""
    if not include_dir.is_dir():
        raise ParseError(f"include directory {include_dir} does not exist")
    for header in headers:
        if not (include_dir / header).is_file():
            raise ParseError(f"header {header} not found in {include_dir}")
    language = args[args.index("-x") + 1] if "-x" in args else "c"
    source_name = f"{name}.{'cpp' if language == 'c++' else 'c'}"
    source = "".join(f"#include <{h}>\n" for h in headers) + extra_source
    index = ci.Index.create()
    try:
        tu = index.parse(source_name, args=[*args, f"-I{include_dir}"], unsaved_files=[(source_name, source)], options=_OPTIONS)
    except ci.TranslationUnitLoadError as exc:
        raise ParseError(f"libclang could not parse {', '.join(headers)}: {exc}") from exc
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error and not _in_main_file(d, source_name)]
    if errors:
        first = errors[0]
        where = f"{first.location.file.name}:{first.location.line}" if first.location.file else source_name
        raise ParseError(f"{where}: {first.spelling} (while parsing {', '.join(headers)}; {len(errors)} error(s))")
    return Parsed(tu, include_dir)


def _in_main_file(diagnostic: ci.Diagnostic, source_name: str) -> bool:
    """Errors in the synthetic main file belong to extra_source probes, which callers check themselves."""
    file = diagnostic.location.file
    return file is not None and file.name == source_name


def top_level(cursor: ci.Cursor):
    """Top-level declarations in source order, looking through extern "C" blocks."""
    for child in cursor.get_children():
        if child.kind in (ci.CursorKind.LINKAGE_SPEC, ci.CursorKind.UNEXPOSED_DECL):
            yield from top_level(child)
        else:
            yield child
