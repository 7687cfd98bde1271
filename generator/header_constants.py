"""Every constant of the headers cubind repeats: each object-like macro of those headers is an
integer, floating, string or pointer constant, which cubind's headers define as NVIDIA's do, or is
skipped with why (a header guard, a function's versioned name, an attribute, ...).

The headers are the unit's own and every NVIDIA header a declaration of the unit comes from (the
IR's `guards`): once cubind repeats a declaration of driver_types.h it repeats every enum and
constant of driver_types.h, so that a program written for NVIDIA's header compiles against
cubind's alone (`cudaStreamNonBlocking`, `cudaCpuDeviceId`, `cudaStreamLegacy`). Everything is
read from libclang: macro cursors and their tokens, and the type and value libclang gives each
macro written as an initializer after the headers (`evaluation_source`).
"""

from __future__ import annotations

import ast
import ctypes

import clang.cindex as ci

from . import clang_ext
from .tu import STAND_INS, Parsed

CK = ci.CursorKind
TK = ci.TokenKind

TYPE_PREFIX = "cubind_type_"
CAST_PREFIX = "cubind_cast_"

# CXEvalResultKind (clang-c/Index.h)
_EVAL_INT, _EVAL_FLOAT = 1, 2

SKIP_GUARD = "include guard of {header}: tells whether the header was included, not a value"
SKIP_EMPTY = "defined empty: a marker tested with #if defined, not a value"
SKIP_FUNCTION_LIKE = "function-like macro: not a constant"
SKIP_FUNCTION = "names the function {target} (the API name of a versioned symbol): cubind binds the function"
SKIP_TYPE = "names the type {target}: an alias of a type, not a value"
SKIP_ATTRIBUTE = "expands to an attribute, a pragma or a storage keyword, not a value"
SKIP_INITIALIZER = "a brace initializer list, not an expression"
SKIP_UNDECLARED = "names {names}, which NVIDIA's headers do not declare"
SKIP_COMPILER = "its value is the compiler's (__cplusplus): the program's own compiler defines it"
SKIP_OTHER = "not an expression with a constant value (a bit range, a statement or a fragment of one)"

_ATTRIBUTE_WORDS = {"__attribute__", "_Pragma", "__declspec", "__inline__", "__thread", "__location__",
                    "__device__", "__host__", "__forceinline__", "inline", "static", "extern"}
# Predefined by the compiler: a macro spelled with one has the value of the compiler it meets.
_COMPILER_WORDS = {"__cplusplus", "__GNUC__", "__clang__", "_MSC_VER", "__CUDACC__", "__CUDA_ARCH__"}


def candidates(parsed: Parsed) -> list[tuple[ci.Cursor, list[clang_ext.Spelled]]]:
    """(definition, replacement list without comments) of each object-like macro of an NVIDIA
    header of the translation unit (any header found in its include directories), first
    definition of each name in each header, in source order."""
    key = "header_constants"
    if key not in parsed.memo:
        seen: dict[tuple[str, str], tuple[ci.Cursor, list[clang_ext.Spelled]]] = {}
        for cursor in parsed.declarations(CK.MACRO_DEFINITION):
            header = parsed.header_of(cursor)
            if header is None or (cursor.spelling, header) in seen:
                continue
            if clang_ext.is_macro_function_like(cursor) or _has_parameters(cursor):
                continue
            body = [(k, s) for k, s in clang_ext.spelled_tokens(cursor.translation_unit, cursor.extent)[1:]
                    if k != TK.COMMENT]
            seen[(cursor.spelling, header)] = (cursor, body)
        parsed.memo[key] = list(seen.values())
    return parsed.memo[key]


def _has_parameters(cursor: ci.Cursor) -> bool:
    """A '(' right after the name, with no space between: a function-like macro that libclang's
    isMacroFunctionLike misses (`#define __dv(v)` in cuda_runtime_api.h)."""
    tokens = list(cursor.get_tokens())
    return len(tokens) > 1 and tokens[1].spelling == "(" and \
        tokens[1].extent.start.offset == tokens[0].extent.end.offset


def _cast(body: list[clang_ext.Spelled]) -> tuple[str, str] | None:
    """(type, operand) of a body shaped `( (T) E )` or `(T) E`, as text, else None."""
    tokens = [s for _, s in body]
    while len(tokens) > 2 and tokens[0] == "(" and _closing(tokens, 0) == len(tokens) - 1:
        tokens = tokens[1:-1]
    if not tokens or tokens[0] != "(":
        return None
    end = _closing(tokens, 0)
    if end is None or end == len(tokens) - 1:
        return None
    return " ".join(tokens[1:end]), " ".join(tokens[end + 1:])


def _closing(tokens: list[str], start: int) -> int | None:
    depth = 0
    for i in range(start, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[i], 0)
        if depth == 0:
            return i
    return None


def evaluation_source(parsed: Parsed) -> str:
    """C++ lines that make libclang tell each candidate's type (`static auto cubind_type_<i> =
    (NAME);`, which compiles for a pointer too) and the operand of each cast-shaped one
    (`constexpr auto cubind_cast_<i> = (E);`: the 0x1 of `((cudaStream_t)0x1)`). Appended after
    macros.evaluation_source, whose constexpr lines give the arithmetic values."""
    lines = []
    for i, (cursor, body) in enumerate(candidates(parsed)):
        if not body:
            continue
        lines.append(f"static auto {TYPE_PREFIX}{i} = ({cursor.spelling});\n")
        cast = _cast(body)
        if cast is not None:
            lines.append(f"constexpr auto {CAST_PREFIX}{i} = ({cast[1]});\n")
    return "".join(lines)


def _probes(cxx: Parsed) -> tuple[dict[int, ci.Type], dict[int, int], dict[str, float]]:
    """From the C++ parse with the evaluation lines: candidate index -> type, -> cast operand
    value; and macro name -> floating value (macros.evaluation_source's lines)."""
    main = cxx.tu.spelling
    bad_lines = {d.location.line for d in cxx.tu.diagnostics
                 if d.severity >= ci.Diagnostic.Error and d.location.file and d.location.file.name == main}
    types: dict[int, ci.Type] = {}
    casts: dict[int, int] = {}
    for cursor in cxx.declarations(CK.VAR_DECL):
        name = cursor.spelling
        if cursor.location.line in bad_lines:
            continue
        if name.startswith(TYPE_PREFIX):
            types[int(name.removeprefix(TYPE_PREFIX))] = cursor.type
        elif name.startswith(CAST_PREFIX):
            value = clang_ext.evaluate_int(cursor)
            if value is not None:
                casts[int(name.removeprefix(CAST_PREFIX))] = value
    return types, casts, {}


def _floating(cxx: Parsed, names: list[str], first_line: int) -> dict[str, float]:
    """Macro name -> value, for the lines of macros.evaluation_source(names) libclang evaluates
    to a floating constant (`CUDNN_BN_MIN_EPSILON 0.0`, `NCCL_UNDEF_FLOAT -1.0f`)."""
    from .macros import EVAL_PREFIX
    lib = clang_ext._lib()
    lib.clang_EvalResult_getAsDouble.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsDouble.restype = ctypes.c_double
    main = cxx.tu.spelling
    bad_lines = {d.location.line for d in cxx.tu.diagnostics
                 if d.severity >= ci.Diagnostic.Error and d.location.file and d.location.file.name == main}
    values = {}
    for cursor in cxx.declarations(CK.VAR_DECL):
        if not cursor.spelling.startswith(EVAL_PREFIX) or cursor.location.line in bad_lines:
            continue
        index = int(cursor.spelling.removeprefix(EVAL_PREFIX))
        if cursor.location.line != first_line + index:
            continue
        result = lib.clang_Cursor_Evaluate(cursor)
        if not result:
            continue
        try:
            if lib.clang_EvalResult_getKind(result) == _EVAL_FLOAT:
                values[names[index]] = float(lib.clang_EvalResult_getAsDouble(result))
        finally:
            lib.clang_EvalResult_dispose(result)
    return values


def _is_function(t: ci.Type | None) -> bool:
    """A function's type, or a pointer to one (what a function name decays to in `auto x = (f);`)."""
    if t is None:
        return False
    t = t.get_canonical()
    if t.kind == ci.TypeKind.POINTER:
        t = t.get_pointee().get_canonical()
    return t.kind in (ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO)


def _string(body: list[clang_ext.Spelled]) -> str | None:
    """The value of a body made of string literals only (in parentheses or not), else None."""
    literals = [s for k, s in body if s not in "()"]
    if not literals or not all(k == TK.LITERAL or s in "()" for k, s in body):
        return None
    if not all(s.startswith('"') and s.endswith('"') for s in literals):
        return None
    try:
        return "".join(ast.literal_eval(s) for s in literals)
    except (ValueError, SyntaxError):
        return None


def includes(c: Parsed) -> dict[str, dict[str, list[str]]]:
    """What each NVIDIA header of the translation unit includes itself, as this parse took it:
    {header: {"headers": [NVIDIA headers], "system": [C library headers, as spelled]}}. cubind's
    header for it brings in no more than that (templates: the groups of the headers it reaches,
    the C library headers they include), so that including it changes nothing else."""
    result: dict[str, dict[str, list[str]]] = {}
    for cursor in c.declarations(CK.INCLUSION_DIRECTIVE):
        header = c.header_of(cursor)
        if header is None:
            continue
        entry = result.setdefault(header, {"headers": [], "system": []})
        included = cursor.get_included_file()
        if included is not None and included.name.startswith(STAND_INS):
            continue  # a C++ library header a C parse reads empty (tu.parse's stand_ins): none of C's
        nvidia = c.relative(included) if included is not None else None
        key, name = ("headers", nvidia) if nvidia is not None else ("system", cursor.spelling)
        if name not in entry[key]:
            entry[key].append(name)
    return dict(sorted(result.items()))


def cplusplus_includes(cxx: Parsed, includes: dict[str, dict[str, list[str]]]) -> None:
    """Add to `includes` (of the C parse) the NVIDIA headers each NVIDIA header includes only in C++
    (`cplusplus`: nccl.h's cuda_fp8.h): a header is usable only when every header it includes, in
    either language, is there (cubind's headers then include it; templates/_macros.j2)."""
    for cursor in cxx.declarations(CK.INCLUSION_DIRECTIVE):
        header = cxx.header_of(cursor)
        included = cursor.get_included_file()
        nvidia = cxx.relative(included) if included is not None else None
        if header is None or nvidia is None:
            continue
        entry = includes.setdefault(header, {"headers": [], "system": []})
        if nvidia not in entry["headers"] and nvidia not in entry.setdefault("cplusplus", []):
            entry["cplusplus"].append(nvidia)


def system_names(c: Parsed) -> set[str]:
    """Macros and types the C library's headers define (NULL, INT_MIN, size_t): a constant may use
    them, since cubind's copy of a header includes the C library headers NVIDIA's includes."""
    return {cursor.spelling for kind in (CK.MACRO_DEFINITION, CK.TYPEDEF_DECL)
            for cursor in c.declarations(kind) if c.header_of(cursor) is None}


def _typed_value(t: ci.Type | None, value: int) -> str:
    """`((T)value)`: the value of an integer constant whose text needs what cubind does not
    declare (nvml.h's function-like NVML_STRUCT_VERSION), with the type C++ gives it."""
    literal = str(value) if -(1 << 31) <= value < (1 << 31) else \
        (f"{value}LL" if -(1 << 63) < value < (1 << 63) else f"{value}ULL")
    if t is None:
        return f"({literal})"
    return f"(({t.get_canonical().spelling}){literal})"


def classify(c: Parsed, cxx: Parsed, headers: set[str], integers: dict[str, int], names: list[str],
             first_line: int, declared: set[str], guards: dict[str, str]) -> tuple[list[dict], list[dict], list[dict]]:
    """(integer constants, other constants, skipped macros) of the object-like macros of `headers`.

    `integers`: the integer value of each macro that has one (macros.evaluated); `names` and
    `first_line`: the macros.evaluation_source lines of the C++ parse `cxx`, which also holds this
    module's evaluation_source after them; `declared`: the type and enumerator names cubind's
    headers declare for the unit; `guards`: header -> its include guard."""
    types, casts, _ = _probes(cxx)
    floats = _floating(cxx, names, first_line)
    functions = {cursor.spelling for cursor in c.declarations(CK.FUNCTION_DECL)}
    type_names = {cursor.spelling for kind in (CK.TYPEDEF_DECL, CK.STRUCT_DECL, CK.UNION_DECL, CK.ENUM_DECL)
                  for cursor in c.declarations(kind)}
    skipped: list[dict] = []
    attribute_like: set[str] = set()  # skipped as attributes: so is a macro that expands to one
    found: list[tuple[dict, set[str], int]] = []   # (entry, identifiers, candidate index)
    handled: set[str] = set()  # a name two headers define (EXCLUDE_FROM_RTC): the first one's
    for index, (cursor, body) in enumerate(candidates(c)):
        header = c.header_of(cursor)
        if header not in headers or cursor.spelling in handled:
            continue
        name = cursor.spelling
        handled.add(name)
        where = {"name": name, "header": header, "line": cursor.location.line}
        text = " ".join(s for _, s in body)
        identifiers = {s for k, s in body if k == TK.IDENTIFIER}
        spellings = [s for _, s in body]

        def skip(reason: str) -> None:
            skipped.append({**where, "reason": reason})

        if not body:
            skip(SKIP_GUARD.format(header=header) if guards.get(header) == name else SKIP_EMPTY)
            continue
        if spellings[0] == "{":
            skip(SKIP_INITIALIZER)
            continue
        if identifiers & (_ATTRIBUTE_WORDS | attribute_like) or \
                any(k == TK.KEYWORD and s in _ATTRIBUTE_WORDS for k, s in body):
            skip(SKIP_ATTRIBUTE)
            attribute_like.add(name)
            continue
        if (len(body) == 1 and spellings[0] in functions) or _is_function(types.get(index)):
            target = next((s for s in reversed(spellings) if s in functions), text)
            skip(SKIP_FUNCTION.format(target=target))
            continue
        if len(body) == 1 and spellings[0] in type_names:
            skip(SKIP_TYPE.format(target=spellings[0]))
            continue
        if identifiers & _COMPILER_WORDS:
            skip(SKIP_COMPILER)
            continue
        kind = value = ctype = None
        if name in integers:
            kind, value = "integer", integers[name]
        elif name in floats:
            kind, value = "float", floats[name]
        elif (string := _string(body)) is not None:
            kind, value = "string", string
        elif index in types and types[index].get_canonical().kind == ci.TypeKind.POINTER \
                and (cast := _cast(body)) is not None and index in casts:
            kind, value, ctype = "pointer", casts[index], cast[0]
        if kind is None:
            unknown = identifiers - declared
            if len(body) == 1 and spellings[0] not in functions and unknown:
                skip(SKIP_UNDECLARED.format(names=spellings[0]))
            else:
                skip(SKIP_OTHER)
            continue
        entry = {"name": name, "text": text, "value": value, "header": header, "line": cursor.location.line}
        if kind != "integer":
            entry.update(kind=kind, type=ctype)
        found.append((entry, identifiers, index))
    # What a constant's text names must be declared too: cubind's types and enumerators, the C
    # library's names, another constant kept (in any order: nvml.h uses one defined further down).
    known = declared | system_names(c)
    kept = {entry["name"] for entry, _, _ in found}
    while True:
        dropped = {entry["name"] for entry, ids, _ in found
                   if entry["name"] in kept and not ids <= known | kept and "kind" in entry}
        if not dropped:
            break
        kept -= dropped
    integer_constants: list[dict] = []
    others: list[dict] = []
    for entry, identifiers, index in found:
        unknown = identifiers - known - kept
        if "kind" not in entry:
            if unknown:   # its value, typed as C++ types it: the text needs what cubind lacks
                entry["text"] = _typed_value(types.get(index), entry["value"])
            integer_constants.append(entry)
        elif entry["name"] in kept:
            others.append(entry)
        else:
            skipped.append({k: entry[k] for k in ("name", "header", "line")} |
                           {"reason": SKIP_UNDECLARED.format(names=", ".join(sorted(unknown)))})
    return integer_constants, others, skipped
