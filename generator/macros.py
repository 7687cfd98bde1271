"""What the preprocessor knows: integer constants, include guards, version macros.

Everything here reads libclang's macro cursors and tokens; nothing scans text.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from pathlib import Path

import clang.cindex as ci

from . import clang_ext, release_rules
from .tu import IncludeDirs, Parsed, parse

CK = ci.CursorKind
TK = ci.TokenKind


def macro_definitions(parsed: Parsed, headers: set[str]) -> list[ci.Cursor]:
    """Object-like macro definitions made in `headers`, in source order."""
    return [macro for macro, _ in _macros(parsed, headers)]


def _macros(parsed: Parsed, headers: set[str]) -> list[tuple[ci.Cursor, list[clang_ext.Spelled]]]:
    """(definition, replacement list) of each object-like macro of `headers`, read once per unit."""
    key = ("macros", frozenset(headers))
    if key not in parsed.memo:
        parsed.memo[key] = [
            (cursor, body_tokens(cursor))
            for cursor in parsed.declarations(CK.MACRO_DEFINITION)
            if parsed.header_of(cursor) in headers and not clang_ext.is_macro_function_like(cursor)
        ]
    return parsed.memo[key]


def body_tokens(macro: ci.Cursor) -> list[clang_ext.Spelled]:
    """The replacement list of an object-like macro (its tokens after the name)."""
    return clang_ext.spelled_tokens(macro.translation_unit, macro.extent)[1:]


EVAL_PREFIX = "cubind_eval_"


def evaluation_source(names: list[str]) -> str:
    """C++ lines that make libclang evaluate each name: `constexpr auto cubind_eval_<i> = (NAME);`.
    Appended after a unit's headers (tu.parse's extra_source), read back with `evaluated`."""
    return "".join(f"constexpr auto {EVAL_PREFIX}{i} = ({name});\n" for i, name in enumerate(names))


def evaluated(parsed: Parsed, names: list[str], first_line: int) -> dict[str, int]:
    """The values of the lines of `evaluation_source(names)`, which starts at `first_line` of the
    translation unit's main file. Names whose line does not compile (types, attributes, strings)
    are left out."""
    main = parsed.tu.spelling
    bad_lines = {
        d.location.line
        for d in parsed.tu.diagnostics
        if d.severity >= ci.Diagnostic.Error and d.location.file and d.location.file.name == main
    }
    values: dict[str, int] = {}
    for cursor in parsed.declarations(CK.VAR_DECL):
        if not cursor.spelling.startswith(EVAL_PREFIX):
            continue
        if cursor.location.line in bad_lines:
            continue
        index = int(cursor.spelling.removeprefix(EVAL_PREFIX))
        if cursor.location.line != first_line + index:
            continue
        value = clang_ext.evaluate_int(cursor)
        if value is not None:
            values[names[index]] = value
    return values


def evaluate(include_dirs: IncludeDirs, headers: list[str], args: list[str], names: list[str]) -> dict[str, int]:
    """Integer value of each macro that expands to an integer constant expression.

    Each name becomes `constexpr auto v = (NAME);` in one C++ translation unit
    after the headers; libclang evaluates the initializers. Names whose line
    does not compile (types, attributes, strings) are left out.
    """
    if not names:
        return {}
    parsed = parse(include_dirs, headers, args, extra_source=evaluation_source(names), name="cubind_eval",
                   macros=False)
    return evaluated(parsed, names, len(headers) + 1)


def constant_candidates(parsed: Parsed, headers: set[str]) -> list[str]:
    """Object-like macros of `headers` with a replacement list: what integer_constants evaluates."""
    return [m.spelling for m, body in _macros(parsed, headers) if body]


def integer_constants(parsed: Parsed, headers: set[str], values: dict[str, int]) -> list[dict]:
    """#define constants of `headers` that are integer constant expressions, with their
    replacement text (kept as written, so 0x01ull << 32 stays unsigned long long).
    `values`: the macros' values (`evaluate` or `evaluated` of constant_candidates)."""
    constants = []
    known: set[str] = set()
    for macro, tokens in _macros(parsed, headers):
        name = macro.spelling
        if name not in values:
            continue
        identifiers = {spelling for kind, spelling in tokens if kind == TK.IDENTIFIER}
        if not identifiers <= known:
            continue  # refers to something outside these headers' constants
        constants.append(
            {
                "name": name,
                "text": " ".join(spelling for _, spelling in tokens),
                "value": values[name],
                "header": parsed.relative(macro.location.file),
                "line": macro.location.line,
            }
        )
        known.add(name)
    return constants


def function_aliases(parsed: Parsed, headers: set[str], functions: set[str], args: list[str],
                     unit_headers: list[str], stand_ins: tuple[str, ...] = ()) -> dict[str, str]:
    """Macros that name a declared function: public name -> exported symbol. `#define cublasSgemm
    cublasSgemm_v2`, and also `#define cuMemcpyHtoDAsync __CUDA_API_PTSZ(cuMemcpyHtoDAsync_v2)`,
    whose wrapper macro picks the per-thread (_ptsz) or the default entry point: the compiler
    expands each candidate as NVIDIA's headers are configured by default, and the declaration it
    refers to is the symbol (the default-stream one)."""
    candidates = [
        m.spelling for m, body in _macros(parsed, headers)
        if m.spelling not in functions and any(spelling in functions for _, spelling in body)
    ]
    if not candidates:
        return {}
    lines = "".join(f"void (*const cubind_alias_{i})(void) = (void (*)(void))&{name};\n"
                    for i, name in enumerate(candidates))
    probe = parse(parsed.include_dirs, unit_headers, args, extra_source=lines, name="cubind_alias", macros=False,
                  stand_ins=stand_ins)
    aliases = {}
    for cursor in probe.declarations(CK.VAR_DECL):
        if not cursor.spelling.startswith("cubind_alias_"):
            continue
        target = _referenced_function(cursor)
        if target in functions:
            aliases[candidates[int(cursor.spelling.removeprefix("cubind_alias_"))]] = target
    return aliases


def _referenced_function(cursor: ci.Cursor) -> str | None:
    """The function a declaration's initializer takes the address of."""
    for node in cursor.walk_preorder():
        if node.kind == CK.DECL_REF_EXPR and node.referenced is not None and \
                node.referenced.kind == CK.FUNCTION_DECL:
            return node.referenced.spelling
    return None


def forwarding_target(cursor: ci.Cursor, functions: set[str]) -> str | None:
    """The function a static inline definition only forwards to, or None: the body must be exactly
    `{ return <f>(<its parameters, in order>); }` with <f> one of `functions`. nvJitLink's header
    maps nvJitLinkCreate to the exported __nvJitLinkCreate_13_0 this way instead of by a macro."""
    body = definition_body(cursor)
    if body is None:
        return None
    params = [a.spelling for a in cursor.get_arguments()]
    call: list[str] = []
    for i, name in enumerate(params):
        call += ([","] if i else []) + [name]
    if len(body) < 6 or body[1] != "return" or body[2] not in functions:
        return None
    if body[3:] != ["(", *call, ")", ";", "}"]:
        return None
    return body[2]


def definition_body(cursor: ci.Cursor, limit: int = 4096) -> list[str] | None:
    """The tokens of a function definition's body, `{` to its matching `}`, read from the file
    (the parse skips function bodies, so the cursor's own extent ends at the declarator)."""
    start = cursor.extent.start
    if start.file is None:
        return None
    tu = cursor.translation_unit
    path = Path(start.file.name)
    end = ci.SourceLocation.from_offset(tu, start.file, min(start.offset + limit, path.stat().st_size))
    tokens = [spelling for kind, spelling in clang_ext.spelled_tokens(tu, ci.SourceRange.from_locations(start, end))
              if kind != TK.COMMENT]
    end_of_declarator = [spelling for kind, spelling in clang_ext.spelled_tokens(tu, cursor.extent)
                         if kind != TK.COMMENT]
    rest = tokens[len(end_of_declarator):]
    if not rest or rest[0] != "{":
        return None
    depth = 0
    for i, token in enumerate(rest):
        depth += {"{": 1, "}": -1}.get(token, 0)
        if depth == 0:
            return rest[: i + 1]
    return None


def _directives(tu: ci.TranslationUnit, tokens: Sequence[ci.Token]) -> list[tuple[list[str], int]]:
    """Preprocessor directives of a file's token stream (clang_ext.token_array): the spellings of
    the tokens of each line that starts with '#' (directives end at the end of a line), and that line.

    Only the kind of each token, and the spelling of punctuation and the lines around each '#',
    are asked of libclang: a header has tens of thousands of tokens and each question is a call
    through ctypes."""
    lib = ci.conf.lib
    punctuation = ci.TokenKind.PUNCTUATION.value
    line = ctypes.c_uint()

    def line_of(token: ci.Token) -> int:
        lib.clang_getInstantiationLocation(lib.clang_getTokenLocation(tu, token), None,
                                           ctypes.byref(line), None, None)
        return line.value

    directives = []
    kinds = [lib.clang_getTokenKind(token) for token in tokens]
    count = len(tokens)
    i = 0
    while i < count:
        if kinds[i] != punctuation or lib.clang_getTokenSpelling(tu, tokens[i]) != "#":
            i += 1
            continue
        first = line_of(tokens[i])
        if i > 0 and line_of(tokens[i - 1]) == first:
            i += 1
            continue  # '#' inside a line (a macro's stringizing operator)
        words = ["#"]
        i += 1
        while i < count and line_of(tokens[i]) == first:
            words.append(lib.clang_getTokenSpelling(tu, tokens[i]))
            i += 1
        directives.append((words, first))
    return directives


def _file_extent(parsed: Parsed, header: str) -> ci.SourceRange:
    path = parsed.path_of(header)
    file = parsed.tu.get_file(str(path))
    size = path.stat().st_size
    return ci.SourceRange.from_locations(
        ci.SourceLocation.from_offset(parsed.tu, file, 0), ci.SourceLocation.from_offset(parsed.tu, file, size)
    )


Directive = tuple[list[str], int]   # a directive's token spellings ('#' first), the line of its '#'

# Path -> the directives of that file. Lexing a file does not depend on the translation unit that
# included it, and units share most headers (cuda_runtime_api.h, driver_types.h, ...): each file is
# read through libclang's tokenizer once per process.
_DIRECTIVES: dict[str, list[Directive]] = {}


def file_directives(parsed: Parsed, header: str) -> list[Directive]:
    """The preprocessor directives of `header` as `parsed` finds it, or [] when that translation
    unit did not include it."""
    path = parsed.path_of(header).resolve()
    stat = path.stat()
    key = f"{path}:{stat.st_mtime_ns}:{stat.st_size}"
    cached = _DIRECTIVES.get(key)
    if cached is not None:
        return cached
    with clang_ext.token_array(parsed.tu, _file_extent(parsed, header)) as tokens:
        directives = _directives(parsed.tu, tokens)
        if tokens:
            _DIRECTIVES[key] = directives
    return directives


def define_guards(parsed: Parsed, header: str) -> list[tuple[str, int, int]]:
    """`#ifndef M` / `#define M` ... `#endif` blocks inside a header (not its include guard), as
    (M, first line, last line): NVIDIA declares a type in two headers this way (CUuuid_st in cuda.h
    and driver_types.h), and cubind must repeat the guard for the headers to mix in any order."""
    directives = file_directives(parsed, header)
    words = [w for w, _ in directives]
    include_guard = None
    lead = _leading_includes(words)
    if (len(words) >= lead + 2 and words[lead][1:2] == ["ifndef"] and len(words[lead]) == 3
            and words[lead + 1][1:3] == ["define", words[lead][2]]):
        include_guard = words[lead][2]
    blocks = []
    stack: list[tuple[str | None, int]] = []
    for i, (w, line) in enumerate(directives):
        keyword = w[1] if len(w) > 1 else ""
        if keyword in ("if", "ifdef", "ifndef"):
            guard = None
            if (keyword == "ifndef" and len(w) == 3 and w[2] != include_guard and i + 1 < len(words)
                    and words[i + 1][1:3] == ["define", w[2]]):
                guard = w[2]
            stack.append((guard, line))
        elif keyword == "endif" and stack:
            guard, first = stack.pop()
            if guard is not None:
                blocks.append((guard, first, line))
    return blocks


def _leading_includes(directives: list[list[str]]) -> int:
    """How many directives come before a header's include guard that leave it the guard: `#include`s
    (nvFatbin.h includes <stddef.h> above it) and `#ifdef __cplusplus` blocks with no directive inside
    (cufile.h opens its extern "C" above it)."""
    count = 0
    while count < len(directives):
        if directives[count][1:2] == ["include"]:
            count += 1
        elif (directives[count][1:3] == ["ifdef", "__cplusplus"] and count + 1 < len(directives)
              and directives[count + 1][1:2] == ["endif"]):
            count += 2
        else:
            break
    return count


def presence_macro(candidates: list[Parsed], header: str) -> str:
    """A macro that is defined exactly when `header` has been included: its include guard,
    or, for a `#pragma once` header, the first macro it defines unconditionally.
    `candidates` are translation units to read it from; the first that included it is used."""
    directives: list[list[str]] = []
    for parsed in candidates:
        directives = [w for w, _ in file_directives(parsed, header)]
        if directives:
            break
    lead = _leading_includes(directives)
    if len(directives) >= lead + 2:
        first, second = directives[lead], directives[lead + 1]
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


def cuda_version_number(include_dirs: IncludeDirs, header: str, macro: str, args: list[str]) -> int:
    """CUDA_VERSION as the headers define it: 13000."""
    value = evaluate(include_dirs, [header], args, [macro]).get(macro)
    if value is None:
        raise ValueError(f"{macro} is not defined by {header}")
    return value


def version_text(number: int) -> str:
    """13000 -> '13.0'."""
    return release_rules.cuda_name(number)


def cuda_version(include_dirs: IncludeDirs, header: str, macro: str, args: list[str]) -> str:
    """CUDA_VERSION 13000 -> '13.0'."""
    return version_text(cuda_version_number(include_dirs, header, macro, args))
