"""Names the hand-written public API already uses, so no generated wrapper takes one.

Read from the hand-written public headers (include/cubind/core.h, the core API, and inline.h,
which the generated module headers include) with libclang's tokenizer: every cubind_* identifier declared
there (functions, types, enum constants, macros), no preprocessing needed.
"""

from __future__ import annotations

from pathlib import Path

import clang.cindex as ci

PUBLIC_HEADER = Path(__file__).resolve().parent.parent / "include" / "cubind" / "core.h"
INLINE_HEADER = PUBLIC_HEADER.with_name("inline.h")


def extra_headers() -> tuple[Path, ...]:
    """The hand-written headers cubind/cubind.h includes besides the core API and the generated
    modules (cubind/copies.h, ...): part of the API as core.h is, in its own files."""
    umbrella = PUBLIC_HEADER.with_name("cubind.h").read_text()
    names = [line.split('"')[1] for line in umbrella.splitlines() if line.startswith('#include "cubind/')]
    return tuple(PUBLIC_HEADER.parent.parent / name for name in names
                 if name not in ("cubind/core.h", "cubind/modules.h"))


# The hand-written API, in the order cubind/cubind.h includes it: the core, then the others
# (cubind/machine.h: the driver, the GPUs, the checks; cubind/copies.h: every copy).
API_HEADERS = (PUBLIC_HEADER, *extra_headers())


def hand_written_names(headers: tuple[Path, ...] | None = None) -> set[str]:
    headers = headers if headers is not None else (PUBLIC_HEADER, INLINE_HEADER, *extra_headers())
    return {name for header in headers for name in _names(header)}


def _names(header: Path) -> set[str]:
    index = ci.Index.create()
    tu = index.parse(str(header), args=["-x", "c", "-std=c11"], options=ci.TranslationUnit.PARSE_INCOMPLETE)
    file = tu.get_file(str(header))
    size = header.stat().st_size
    extent = ci.SourceRange.from_locations(
        ci.SourceLocation.from_offset(tu, file, 0), ci.SourceLocation.from_offset(tu, file, size)
    )
    return {
        t.spelling
        for t in tu.get_tokens(extent=extent)
        if t.kind == ci.TokenKind.IDENTIFIER and t.spelling.lower().startswith("cubind_")
    }
