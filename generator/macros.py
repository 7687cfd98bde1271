"""What the preprocessor knows: integer constants, include guards, version macros.

Everything here reads libclang's macro cursors and tokens; nothing scans text.
"""

from __future__ import annotations

from pathlib import Path

import clang.cindex as ci

from . import clang_ext
from .tu import Parsed, parse

CK = ci.CursorKind
TK = ci.TokenKind


def macro_definitions(parsed: Parsed, headers: set[str]) -> list[ci.Cursor]:
    """Object-like macro definitions made in `headers`, in source order."""
    result = []
    for cursor in parsed.tu.cursor.get_children():
        if cursor.kind != CK.MACRO_DEFINITION:
            continue
        if parsed.relative(cursor.location.file) not in headers:
            continue
        if clang_ext.is_macro_function_like(cursor):
            continue
        result.append(cursor)
    return result


def body_tokens(macro: ci.Cursor) -> list[ci.Token]:
    """The replacement list of an object-like macro (its tokens after the name)."""
    return list(macro.get_tokens())[1:]


def evaluate(include_dir: Path, headers: list[str], args: list[str], names: list[str]) -> dict[str, int]:
    """Integer value of each macro that expands to an integer constant expression.

    Each name becomes `constexpr auto v = (NAME);` in one C++ translation unit
    after the headers; libclang evaluates the initializers. Names whose line
    does not compile (types, attributes, strings) are left out.
    """
    if not names:
        return {}
    lines = "".join(f"constexpr auto cubind_eval_{i} = ({name});\n" for i, name in enumerate(names))
    parsed = parse(include_dir, headers, args, extra_source=lines, name="cubind_eval")
    bad_lines = {
        d.location.line
        for d in parsed.tu.diagnostics
        if d.severity >= ci.Diagnostic.Error and d.location.file and d.location.file.name.startswith("cubind_eval.")
    }
    first_line = len(headers) + 1
    values: dict[str, int] = {}
    for cursor in parsed.tu.cursor.get_children():
        if cursor.kind != CK.VAR_DECL or not cursor.spelling.startswith("cubind_eval_"):
            continue
        if cursor.location.line in bad_lines:
            continue
        index = int(cursor.spelling.removeprefix("cubind_eval_"))
        if cursor.location.line != first_line + index:
            continue
        value = clang_ext.evaluate_int(cursor)
        if value is not None:
            values[names[index]] = value
    return values


def integer_constants(parsed: Parsed, headers: set[str], args: list[str], unit_headers: list[str]) -> list[dict]:
    """#define constants of `headers` that are integer constant expressions, with their
    replacement text (kept as written, so 0x01ull << 32 stays unsigned long long)."""
    macros = macro_definitions(parsed, headers)
    names = [m.spelling for m in macros if body_tokens(m)]
    values = evaluate(parsed.include_dir, unit_headers, args, names)
    constants = []
    known: set[str] = set()
    for macro in macros:
        name = macro.spelling
        if name not in values:
            continue
        tokens = body_tokens(macro)
        identifiers = {t.spelling for t in tokens if t.kind == TK.IDENTIFIER}
        if not identifiers <= known:
            continue  # refers to something outside these headers' constants
        constants.append(
            {
                "name": name,
                "text": " ".join(t.spelling for t in tokens),
                "value": values[name],
                "header": parsed.relative(macro.location.file),
                "line": macro.location.line,
            }
        )
        known.add(name)
    return constants


def function_aliases(parsed: Parsed, headers: set[str], functions: set[str]) -> dict[str, str]:
    """`#define cublasSgemm cublasSgemm_v2`: public name -> exported symbol, for declared functions."""
    aliases = {}
    for macro in macro_definitions(parsed, headers):
        tokens = body_tokens(macro)
        if len(tokens) == 1 and tokens[0].kind == TK.IDENTIFIER and tokens[0].spelling in functions:
            aliases[macro.spelling] = tokens[0].spelling
    return aliases


def _directives(tokens: list[ci.Token]):
    """Preprocessor directives of a token stream: lists of tokens starting at a line-initial '#'."""
    current: list[ci.Token] | None = None
    last_line = -1
    for token in tokens:
        line = token.location.line
        if line != last_line and token.spelling == "#":
            if current:
                yield current
            current = [token]
        elif current is not None and line == last_line:
            current.append(token)
        else:
            if current:
                yield current
            current = None
        last_line = line
    if current:
        yield current


def _file_tokens(parsed: Parsed, header: str) -> list[ci.Token]:
    path = parsed.include_dir / header
    file = parsed.tu.get_file(str(path))
    size = path.stat().st_size
    extent = ci.SourceRange.from_locations(
        ci.SourceLocation.from_offset(parsed.tu, file, 0), ci.SourceLocation.from_offset(parsed.tu, file, size)
    )
    return list(parsed.tu.get_tokens(extent=extent))


def presence_macro(candidates: list[Parsed], header: str) -> str:
    """A macro that is defined exactly when `header` has been included: its include guard,
    or, for a `#pragma once` header, the first macro it defines unconditionally.
    `candidates` are translation units to read it from; the first that included it is used."""
    tokens: list[ci.Token] = []
    for parsed in candidates:
        tokens = _file_tokens(parsed, header)
        if tokens:
            break
    directives = [[t.spelling for t in d] for d in _directives(tokens)]
    if len(directives) >= 2:
        first, second = directives[0], directives[1]
        guard = None
        if first[1:2] == ["ifndef"] and len(first) == 3:
            guard = first[2]
        elif first[1:4] == ["if", "!", "defined"]:
            rest = [w for w in first[4:] if w not in "()"]
            guard = rest[0] if len(rest) == 1 else None
        if guard and second[1:3] == ["define", guard]:
            return guard
    depth = 0
    for words in directives:
        keyword = words[1] if len(words) > 1 else ""
        if keyword in ("if", "ifdef", "ifndef"):
            depth += 1
        elif keyword == "endif":
            depth -= 1
        elif keyword == "define" and depth == 0 and len(words) > 2:
            return words[2]
    raise ValueError(f"{header}: no include guard and no unconditional macro to tell whether it was included")


def cuda_version(include_dir: Path, header: str, macro: str, args: list[str]) -> str:
    """CUDA_VERSION 13000 -> '13.0'."""
    value = evaluate(include_dir, [header], args, [macro]).get(macro)
    if value is None:
        raise ValueError(f"{macro} is not defined by {header}")
    return f"{value // 1000}.{value % 1000 // 10}"
