"""NVIDIA's inline definitions in the shared headers cubind copies (cuComplex.h's make_cuComplex,
cuCaddf, cuCabs, ...; vector_types.h's dim3 constructors; a unit's `inline_headers`:
vector_functions.h's make_float2, ...), read from the headers with libclang.

Without CUDA on the include path, cubind's cuda_types_*.h carry their own copy of a shared
header's declarations; a program written for NVIDIA's header also calls its static inline
functions and, in C++, its structures' constructors and conversions. cubind repeats them from
the source: each definition's tokens (its source extent, parsed with function bodies), less
NVIDIA's attribute macros that expand to nothing on a host compiler (`__host__`, `__device__`).
A structure's C++ members are read twice, as C++11 and as C++98 (NVIDIA's headers choose
`constexpr` forms by the standard), and written under the same test of `__cplusplus`.
"""

from __future__ import annotations

import functools

import clang.cindex as ci

from . import clang_ext, header_constants, macros
from .tu import IncludeDirs, Parsed, parse

CK = ci.CursorKind
TK = ci.TokenKind

# What a C definition's head spells that cubind spells itself (`static inline`: C11 and C++).
_STORAGE = frozenset({"static", "inline", "__inline__", "__inline", "extern"})
_MEMBERS = (CK.CONSTRUCTOR, CK.CXX_METHOD, CK.CONVERSION_FUNCTION, CK.DESTRUCTOR, CK.FUNCTION_TEMPLATE)
# The standards whose parses give a structure's C++ members: cubind's test of `__cplusplus` for each.
CXX_STANDARDS = (("cxx11", "-std=c++11"), ("cxx98", "-std=c++98"))


def empty_macros(parsed: Parsed) -> set[str]:
    """The macros of a parse that expand to nothing (`__host__` -> `__location__(host)` -> ``)."""
    definitions = {c.spelling: c for c in parsed.declarations(CK.MACRO_DEFINITION)}
    bodies: dict[str, list[str]] = {}
    for name, cursor in definitions.items():
        tokens = [s for _, s in clang_ext.spelled_tokens(parsed.tu, cursor.extent)][1:]
        if clang_ext.is_macro_function_like(cursor):
            tokens = tokens[tokens.index(")") + 1:] if ")" in tokens else tokens
        bodies[name] = tokens
    empty: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, body in bodies.items():
            if name not in empty and _expands_to_nothing(body, empty, definitions):
                empty.add(name)
                changed = True
    return empty


def _expands_to_nothing(body: list[str], empty: set[str], definitions: dict) -> bool:
    i = 0
    while i < len(body):
        if body[i] not in empty:
            return False
        if clang_ext.is_macro_function_like(definitions[body[i]]) and i + 1 < len(body) and body[i + 1] == "(":
            i = _after_parentheses(body, i + 1)
        else:
            i += 1
    return True


def _after_parentheses(tokens: list[str], start: int) -> int:
    depth = 0
    for i in range(start, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[i], 0)
        if depth == 0:
            return i + 1
    return len(tokens)


def _spelled(parsed: Parsed, cursor: ci.Cursor, empty: set[str], definitions: dict) -> list[str]:
    """A definition's tokens without the macros that expand to nothing (and their arguments)."""
    tokens = [s for k, s in clang_ext.spelled_tokens(parsed.tu, cursor.extent) if k != TK.COMMENT]
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] in empty:
            function_like = clang_ext.is_macro_function_like(definitions[tokens[i]])
            i = _after_parentheses(tokens, i + 1) if function_like and tokens[i + 1:i + 2] == ["("] else i + 1
            continue
        out.append(tokens[i])
        i += 1
    return out


def functions(parsed: Parsed, header: str) -> list[dict]:
    """The static inline functions `header` declares, each defined there or in a header it includes
    itself (vector_functions.h declares make_float2, vector_functions.hpp defines it), in the order
    of `header`'s declarations: {name, line, declarator (the tokens before the body, storage left
    out), body}."""
    empty = empty_macros(parsed)
    definitions = {c.spelling: c for c in parsed.declarations(CK.MACRO_DEFINITION)}
    storage = _STORAGE | _storage_macros(parsed, empty)
    found = []
    seen: set[str] = set()
    for cursor in parsed.declarations(CK.FUNCTION_DECL):
        if parsed.header_of(cursor) != header or cursor.storage_class != ci.StorageClass.STATIC \
                or cursor.spelling in seen:
            continue
        definition = cursor.get_definition()
        body = next((c for c in clang_ext.children(definition) if c.kind == CK.COMPOUND_STMT), None) \
            if definition is not None else None
        if body is None:
            continue
        seen.add(cursor.spelling)
        tokens = _spelled(parsed, definition, empty, definitions)
        body_tokens = _spelled(parsed, body, empty, definitions)
        found.append({"name": cursor.spelling, "line": cursor.location.line,
                      "declarator": [t for t in _head(tokens[:len(tokens) - len(body_tokens)]) if t not in storage],
                      "body": body_tokens})
    return found


def _head(tokens: list[str]) -> list[str]:
    """A definition's tokens before its body, from its first: when the head starts with a macro
    (vector_functions.hpp's `__VECTOR_FUNCTIONS_DECL__ char1 make_char1(...)`), libclang's extent
    starts where the macro's body is spelled, and takes in the lines between (an `#endif`, the
    definitions before): what follows the last `;`, `}` or directive is the head."""
    start = 0
    for i, token in enumerate(tokens):
        if token in (";", "}"):
            start = i + 1
        elif token == "#" and i + 1 < len(tokens):  # `# endif`: the directive's keyword too
            start = i + 2
    return tokens[start:]


def _storage_macros(parsed: Parsed, empty: set[str]) -> set[str]:
    """The object-like macros that expand to storage words, pragmas (`_Pragma("...")`) and macros
    that expand to nothing alone (`__VECTOR_FUNCTIONS_DECL__` -> `static __inline__ __host__
    __device__`; `__NV_SILENCE_DEPRECATION_BEGIN` -> `_Pragma("GCC diagnostic push") ...`): cubind
    spells `static inline` itself, and its copy silences the deprecation warnings as NVIDIA's
    macro does (templates/_macros.j2)."""
    bodies = {c.spelling: [s for _, s in clang_ext.spelled_tokens(parsed.tu, c.extent)][1:]
              for c in parsed.declarations(CK.MACRO_DEFINITION) if not clang_ext.is_macro_function_like(c)}
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, body in bodies.items():
            if name not in found and body and _only_head_words(body, empty | found):
                found.add(name)
                changed = True
    return found


def _only_head_words(body: list[str], known: set[str]) -> bool:
    i = 0
    while i < len(body):
        if body[i] == "_Pragma" and body[i + 1:i + 2] == ["("]:
            i = _after_parentheses(body, i + 1)
        elif body[i] in _STORAGE or body[i] in known:
            i += 1
        else:
            return False
    return True


def members(parsed: Parsed, header: str) -> dict[str, list[list[str]]]:
    """The C++ member functions (constructors, conversions, methods) NVIDIA defines in the
    structures of `header`, each as its tokens: record name -> definitions."""
    empty = empty_macros(parsed)
    definitions = {c.spelling: c for c in parsed.declarations(CK.MACRO_DEFINITION)}
    found: dict[str, list[list[str]]] = {}
    for kind in (CK.STRUCT_DECL, CK.UNION_DECL):
        for cursor in parsed.declarations(kind):
            if not cursor.spelling or parsed.header_of(cursor) != header or not cursor.is_definition():
                continue
            defined = [_spelled(parsed, m, empty, definitions) for m in clang_ext.children(cursor)
                       if m.kind in _MEMBERS and m.is_definition()]
            if defined:
                found[cursor.spelling] = defined
    return found


@functools.cache
def read(include_dirs: IncludeDirs, header: str, c_args: tuple[str, ...], cxx_args: tuple[str, ...]) -> dict:
    """The IR's `inline_definitions` entry of one shared header: its static inline functions (a C
    parse of the header alone) and its structures' C++ members, per C++ standard (the same for
    every unit: read once a process)."""
    c = parse(include_dirs, [header], list(c_args), name="cubind_inline_c", macros=True, bodies=True)
    # besides the IR's entry (selected() keeps only that): what the header includes and its guard,
    # for a header the unit's own parse does not reach (the unit's `inline_headers`)
    entry: dict = {"functions": functions(c, header), "members": {}, "includes": header_constants.includes(c),
                   "guard": macros.presence_macro([c], header)}
    language = [a for a in cxx_args if not a.startswith("-std=")]
    for key, standard in CXX_STANDARDS:
        cxx = parse(include_dirs, [header], [*language, standard], name="cubind_inline_cxx", macros=True, bodies=True)
        for record, defined in members(cxx, header).items():
            entry["members"].setdefault(record, {})[key] = defined
    return entry


def selected(entry: dict, records: set[str]) -> dict:
    """An entry with the members of `records` only (the structures a unit's copy declares)."""
    return {"functions": entry["functions"], "members": {r: m for r, m in entry["members"].items() if r in records}}


def names(entry: dict) -> set[str]:
    """The identifiers an entry's definitions spell (what of the header's types they need)."""
    found: set[str] = set()
    for function in entry["functions"]:
        found |= {t for t in function["declarator"] + function["body"] if t[:1].isalpha() or t[:1] == "_"}
    for by_standard in entry["members"].values():
        for defined in by_standard.values():
            for tokens in defined:
                found |= {t for t in tokens if t[:1].isalpha() or t[:1] == "_"}
    return found
