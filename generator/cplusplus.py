"""What NVIDIA's headers give a C++ program beyond the C API, repeated on cubind's wrappers:
default arguments (`cudaEventRecord(event, stream = 0)`) and the function templates, overloads,
specializations and C++-only inline helpers of a unit's headers and of its `cplusplus_headers`
(cuda_runtime.h: `cudaMalloc(T **, size_t)`, `cudaCreateChannelDesc<float>()`, ...).

Stage 1 (libclang) records them in the IR as plain data: a parameter's `default`, and the IR's
`cplusplus` entry (each definition's tokens, or why it is left out). Stage 2 (module_definitions)
renames the NVIDIA functions they call to cubind's wrappers; templates/_cplusplus.j2 writes them.
The C declarations are not touched: the defaults are added by C++ redeclarations.
"""

from __future__ import annotations

import clang.cindex as ci

from . import clang_ext, macros
from .ctext import spaced as _join
from .tu import IncludeDirs, Parsed, included_files, parse

CK = ci.CursorKind
TK = ci.TokenKind

_ARRAYS = (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY,
           ci.TypeKind.DEPENDENTSIZEDARRAY)
# Tokens of NVIDIA's declaration heads that cubind spells itself (`static inline`).
# Names of the C library that cubind's headers bring (cubind/core.h includes <stddef.h>).
_STANDARD = frozenset({"NULL", "size_t"})
_STORAGE = frozenset({"static", "inline", "__inline__", "__inline", "extern"})


def _tokens(tu: ci.TranslationUnit, extent: ci.SourceRange) -> list[tuple[ci.TokenKind, str]]:
    return [(kind, spelling) for kind, spelling in clang_ext.spelled_tokens(tu, extent) if kind != TK.COMMENT]


def _array_sizes(t: ci.Type) -> int:
    """How many array sizes a parameter's declared type spells (`m[][3]`: 1, `x[3]`: 1): the
    parameter cursor's first expression children, before any default argument."""
    count = 0
    for _ in range(16):
        t = t.get_canonical()
        if t.kind in _ARRAYS:
            count += t.kind != ci.TypeKind.INCOMPLETEARRAY
            t = t.element_type
        elif t.kind == ci.TypeKind.POINTER:
            t = t.get_pointee()
        else:
            break
    return count


def default_expression(param: ci.Cursor) -> ci.Cursor | None:
    """The default argument of a parameter of a C++ parse: an expression child after its array sizes."""
    expressions = [c for c in clang_ext.children(param) if c.kind.is_expression()][_array_sizes(param.type):]
    return expressions[-1] if expressions else None


def _identifiers(tokens: list[tuple[ci.TokenKind, str]]) -> list[str]:
    return [s for k, s in tokens if k == TK.IDENTIFIER]


def declared_names(functions: list[dict], types: list[dict], constants: list[dict]) -> set[str]:
    """Every name a unit's cubind headers declare under NVIDIA's spelling (types, enumerators,
    constants) or rename (functions): what a repeated default or definition may name."""
    names = {f[k] for f in functions for k in ("name", "symbol")} | _STANDARD
    names |= {c["name"] for c in constants}
    for entry in types:
        names |= {n for n in (entry.get("name"), entry.get("typedef")) if n}
        names |= {c["name"] for c in entry.get("constants") or ()}
    return names


def add_defaults(cxx: Parsed, own: set[str], functions: list[dict], known: set[str]) -> None:
    """Give each parameter of `functions` the default argument NVIDIA's C++ declaration has
    (`"default": "0"`): its tokens when every name in them is one cubind declares, else its value
    (a macro cubind does not define: `cudaMemAttachSingle` -> 4)."""
    first: dict[str, ci.Cursor] = {}
    for cursor in cxx.declarations(CK.FUNCTION_DECL):
        if cxx.header_of(cursor) in own:
            first.setdefault(cursor.spelling, cursor)
    for function in functions:
        cursor = first.get(function["symbol"])
        if cursor is None:
            continue
        arguments = clang_ext.arguments(cursor)
        if len(arguments) != len(function["params"]):
            continue
        for param, argument in zip(function["params"], arguments):
            expression = default_expression(argument)
            if expression is not None:
                param["default"] = _spell_default(cxx, argument, expression, known)


def _spell_default(cxx: Parsed, argument: ci.Cursor, expression: ci.Cursor, known: set[str]) -> str:
    tokens = _tokens(cxx.tu, expression.extent)
    if not tokens:  # the whole expression is a macro's expansion: what follows `=` in the declaration
        written = _tokens(cxx.tu, argument.extent)
        equals = [i for i, (_, s) in enumerate(written) if s == "="]
        tokens = written[equals[-1] + 1:] if equals else []
    if tokens and set(_identifiers(tokens)) <= known:
        return _join([s for _, s in tokens])
    value = clang_ext.evaluate_int(expression)
    if value is None:
        raise ValueError(f"{argument.location.file}:{argument.location.line}: the default argument of "
                         f"{argument.spelling} is neither spelled with names cubind declares nor an integer")
    return str(value)


# ---- definitions ------------------------------------------------------------------------------

def _head(tokens: list[tuple[ci.TokenKind, str]]) -> tuple[list, int]:
    """`template < ... >` at the start of a definition's tokens and where it ends."""
    if not tokens or tokens[0][1] != "template":
        return [], 0
    depth = 0
    for i, (_, s) in enumerate(tokens[1:], 1):
        depth += {"<": 1, ">": -1, ">>": -2}.get(s, 0)
        if depth <= 0:
            return tokens[: i + 1], i + 1
    return [], 0


def candidates(parsed: Parsed, own: set[str], extra: set[str]) -> list[ci.Cursor]:
    """The C++ definitions cubind repeats, in source order: function templates and explicit
    specializations of the unit's own headers and of its `cplusplus_headers` (`extra`), and every
    C++-linkage inline definition of the latter (the own headers' are the IR's helpers)."""
    found = []
    for kind, cursor in parsed.top_level():
        header = parsed.header_of(cursor)
        if header not in own and header not in extra:
            continue
        if kind == CK.FUNCTION_TEMPLATE:
            found.append(cursor)
        elif kind == CK.FUNCTION_DECL and cursor.is_definition() and cursor.mangled_name != cursor.spelling and \
                (header in extra or "<" in cursor.displayname):
            found.append(cursor)
    return found


def definitions(include_dirs: IncludeDirs, headers: list[str], own: set[str], extra: list[str], args: list[str],
                known: set[str], nvcc_args: list[str] = ()) -> dict:
    """The IR's `cplusplus` entry: the C++ definitions cubind repeats, and those it leaves out, why.
    With `nvcc_args`, also those the headers declare for nvcc only (`#if defined(__CUDACC__)`), marked
    `nvcc`: read from a parse with nvcc's macros, in which the files those macros add to the headers'
    includes (device code: crt/common_functions.h, ...) are read empty, as a host compiler cannot
    parse them and cubind repeats none of their declarations."""
    sources = [*headers, *extra]
    parsed = parse(include_dirs, sources, args, name="cubind_cplusplus", macros=True, bodies=True)
    found = candidates(parsed, own, set(extra))
    nvcc_only: set[tuple[str | None, int]] = set()
    if nvcc_args:
        host = {(parsed.header_of(c), c.location.line) for c in found}
        device = included_files(include_dirs, sources, [*args, *nvcc_args]) - \
            {inclusion.include.name for inclusion in parsed.tu.get_includes()}
        parsed = parse(include_dirs, sources, [*args, *nvcc_args], name="cubind_cplusplus_nvcc", macros=True,
                       bodies=True, empty=device)
        found = candidates(parsed, own, set(extra))
        nvcc_only = {(parsed.header_of(c), c.location.line) for c in found} - host
    macro_names = {c.spelling: c for c in parsed.declarations(CK.MACRO_DEFINITION)}
    raw = []
    used_macros: set[str] = set()
    for cursor in found:
        tokens = _tokens(parsed.tu, cursor.extent)
        raw.append((cursor, tokens))
        used_macros |= {s for s in _identifiers(tokens) if s in macro_names and s not in known
                        and not clang_ext.is_macro_function_like(macro_names[s])}
    values = macros.evaluate(include_dirs, [*headers, *extra], args, sorted(used_macros))
    entries: list[dict] = []
    left_out: list[dict] = []
    for cursor, tokens in raw:
        entry = _definition(parsed, cursor, tokens, macro_names)
        where = {"name": cursor.spelling, "header": parsed.header_of(cursor), "line": cursor.location.line}
        if (where["header"], where["line"]) in nvcc_only:
            where["nvcc"] = True
        if isinstance(entry, str):
            left_out.append({**where, "reason": entry})
        else:
            entries.append({**where, **entry})
    # A definition naming something cubind does not declare is left out; so, then, is one calling it.
    while True:
        available = known | {e["name"] for e in entries}
        kept = []
        for entry in entries:
            unknown = _unknown(entry, available, values)
            if unknown:
                left_out.append({k: entry[k] for k in ("name", "header", "line", "nvcc") if k in entry}
                                | {"reason": "names what cubind's headers do not declare: " + ", ".join(unknown)})
            else:
                kept.append(entry)
        if len(kept) == len(entries):
            break
        entries = kept
    for entry in entries:
        for part in ("head", "template_args", "body"):
            entry[part] = _substituted(entry[part], known, values)
        entry["params"] = [_substituted(p, known, values) for p in entry["params"]]
        for part in ("head", "returns", "template_args", "body"):
            entry[part] = [s for _, s in entry[part]]
        entry["params"] = [[s for _, s in p] for p in entry["params"]]
        del entry["locals"]
    left_out.sort(key=lambda e: (e["header"], e["line"]))
    return {"definitions": entries, "left_out": left_out}


def _definition(parsed: Parsed, cursor: ci.Cursor, tokens: list, macro_names: dict) -> dict | str:
    """A definition's parts as tokens, or why cubind cannot repeat it. Its head is cubind's own
    (`static inline`, the result type): NVIDIA's attribute macros there (`__host__`) are dropped."""
    head, start = _head(tokens)
    body_cursor = next((c for c in clang_ext.children(cursor) if c.kind == CK.COMPOUND_STMT), None)
    if body_cursor is None:
        return "declared, not defined, here"
    body = _tokens(parsed.tu, body_cursor.extent)
    if any(s == "#" for _, s in body):
        body = _with_directives(body_cursor)
    # the declarator: the name, template arguments of a specialization, then the parameters
    name_at = next((i for i in range(start, len(tokens)) if tokens[i][1] == cursor.spelling
                    and i + 1 < len(tokens) and tokens[i + 1][1] in ("(", "<")), None)
    if name_at is None:
        return "its name is not spelled in its declaration"
    template_args: list = []
    after = name_at + 1
    if tokens[after][1] == "<":
        depth = 0
        for i in range(after, len(tokens)):
            depth += {"<": 1, ">": -1}.get(tokens[i][1], 0)
            if depth == 0:
                template_args = tokens[after:i + 1]
                after = i + 1
                break
    params = [_tokens(parsed.tu, p.extent) for p in clang_ext.children(cursor) if p.kind == CK.PARM_DECL]
    returns = [t for t in tokens[start:name_at]
               if t[1] not in _STORAGE and not (t[0] == TK.IDENTIFIER and t[1] in macro_names)]
    locals_ = {c.spelling for c in cursor.walk_preorder() if c.kind.is_declaration() and c.spelling}
    return {
        "kind": "template" if cursor.kind == CK.FUNCTION_TEMPLATE else
                "specialization" if template_args else "overload",
        "head": head,
        "returns": returns,
        "template_args": template_args,
        "params": params,
        "body": body,
        "locals": locals_,
    }


def _lines(body: str) -> str:
    """A body as lines: a directive's own line (_with_directives) keeps the indentation of the
    code around it off, the code after it gets the indentation of the code before it."""
    lines: list[str] = []
    indent = "    "
    for line in body.split("\n"):
        if not line.strip():
            continue
        if line.startswith("#"):
            lines.append(line.rstrip())
            continue
        if line.startswith(" ") and not line.startswith("    "):
            line = indent + line.strip()
        indent = line[: len(line) - len(line.lstrip())] or indent
        lines.append(line.rstrip())
    return "\n".join(lines)


def _with_directives(body: ci.Cursor) -> list:
    """A body's tokens with each preprocessor directive in it as one token of its own line
    (`#if defined(_CHAR_UNSIGNED)`): written as NVIDIA wrote it, its names not checked."""
    found: list = []
    directive: list[str] = []
    line = -1
    for token in body.get_tokens():
        if token.kind == TK.COMMENT:
            continue
        at = token.location.line
        if directive and at != line:
            found.append((TK.PUNCTUATION, "\n#" + _join(directive[1:]) + "\n"))
            directive = []
        if token.spelling == "#" and at != line:
            directive = ["#"]
        elif directive:
            directive.append(token.spelling)
        else:
            found.append((token.kind, token.spelling))
        line = at
    return found


def _unknown(entry: dict, available: set[str], values: dict[str, int]) -> list[str]:
    """The names a definition uses that neither it nor cubind's headers declare, in order."""
    unknown: list[str] = []
    for part in [entry["head"], entry["returns"], entry["template_args"], *entry["params"], entry["body"]]:
        for i, (kind, spelling) in enumerate(part):
            if kind != TK.IDENTIFIER or (i and part[i - 1][1] in (".", "->")):
                continue  # a member's name
            if spelling not in entry["locals"] and spelling not in available and spelling not in values \
                    and spelling not in unknown:
                unknown.append(spelling)
    return unknown


def _substituted(tokens: list, known: set[str], values: dict[str, int]) -> list:
    """A macro cubind's headers do not define, by its value."""
    return [(TK.LITERAL, str(values[s])) if k == TK.IDENTIFIER and s not in known and s in values else (k, s)
            for k, s in tokens]


# ---- stage 2 ----------------------------------------------------------------------------------

def module_definitions(ir: dict, unit, module, rename: dict[str, str], name_of, join) -> list[dict]:
    """The definitions of `module` as the header writes them: NVIDIA's calls renamed to cubind's
    wrappers (`rename`: NVIDIA name -> cubind name), each under its cubind name (`name_of`)."""
    entries = ir.get("cplusplus", {}).get("definitions", [])
    names = dict(rename)
    for entry in entries:
        owner = unit.module_for_function(entry["name"])
        if owner is not None:
            names.setdefault(entry["name"], name_of(owner, entry["name"]))

    def renamed(tokens: list[str]) -> list[str]:
        out: list[str] = []
        for i, t in enumerate(tokens):
            t = names.get(t, t) if not (i and tokens[i - 1] in (".", "->")) else t
            if out and out[-1] == "*" and t == "*":
                out[-1] = "**"
            else:
                out.append(t)
        return out

    def text(spelled: str) -> str:
        return spelled.replace(":: ", "::").replace("< ", "<").replace(" >", ">").replace(" (", "(") \
            if spelled.startswith("template") else spelled.replace(":: ", "::").replace("::(", "::")

    found = []
    for entry in entries:
        if unit.module_for_function(entry["name"]) != module:
            continue
        found.append({
            "name": entry["name"],
            "cubind_name": names[entry["name"]],
            "header": entry["header"],
            "line": entry["line"],
            "kind": entry["kind"],
            "nvcc": entry.get("nvcc", False),
            "head": text(_join(entry["head"])),
            "returns": _join(entry["returns"]),
            "template_args": " ".join(entry["template_args"]).replace("< ", "<").replace(" >", ">")
                             if entry["kind"] == "specialization" else "",
            "params": ", ".join(text(_join(renamed(p))) for p in entry["params"]) or "void",
            "body": _lines(text(join(renamed(entry["body"])))),
        })
    return found
