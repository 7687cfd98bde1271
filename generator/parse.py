"""Stage 1: parse a unit's CUDA headers with libclang and build its IR (plain data)."""

from __future__ import annotations

import functools

import clang.cindex as ci

from . import VERSION, clang_ext, cplusplus, header_constants, inline_copies, layout, macros
from .config import Config, Unit
from .declarators import category, decay, declare, output
from .names import cubind_name
from .tu import IncludeDirs, Parsed, ParseError, parse
from .typesel import STANDARD_STRUCTS, TypeSelector, referenced_names

CK = ci.CursorKind
IR_VERSION = 1
RESERVED_PREFIX = "cubind_"
# The key of a unit's IR that holds its ABI facts (layout.py) until generator/release_compare.py compares the
# releases' and replaces it with the IR's release fields: never written out.
ABI_KEY = "_abi"

SKIP_STATIC_INLINE = "static inline helper defined in the header: not an exported symbol"
SKIP_CXX_OVERLOAD = "C++ overload of an extern \"C\" function, defined inline in the header: not an exported symbol"
SKIP_CXX_LINKAGE = "declared with C++ linkage: not an extern \"C\" symbol"
SKIP_VARIADIC = "variadic: a wrapper cannot forward a variable argument list"
SKIP_FUNCTION_RESULT = ("returns a pointer to a function through no typedef name: a wrapper's declaration "
                        "cannot be spelled as a return type followed by a name")


class IRError(Exception):
    """The headers produce an IR cubind cannot use (name collision, unknown module, ...)."""


def _functions(parsed: Parsed, own: set[str]) -> list[ci.Cursor]:
    """Function declarations made in the unit's own headers, first declaration of each, TU order."""
    seen: dict[tuple[str, str], ci.Cursor] = {}
    for cursor in parsed.declarations(CK.FUNCTION_DECL):
        if parsed.header_of(cursor) in own:
            seen.setdefault((cursor.spelling, cursor.mangled_name), cursor)
    return list(seen.values())


def _skip_reason(cursor: ci.Cursor, cxx: bool, c_names: set[str]) -> str | None:
    if cxx and cursor.mangled_name != cursor.spelling and cursor.spelling in c_names:
        return SKIP_CXX_OVERLOAD
    if cursor.storage_class == ci.StorageClass.STATIC or cursor.is_definition():
        return SKIP_STATIC_INLINE
    if cxx and cursor.mangled_name != cursor.spelling:
        return SKIP_CXX_LINKAGE
    if cursor.type.kind == ci.TypeKind.FUNCTIONPROTO and cursor.type.is_function_variadic():
        return SKIP_VARIADIC
    result = cursor.result_type
    while result.kind == ci.TypeKind.POINTER:
        result = result.get_pointee()
    if result.kind in (ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO):
        return SKIP_FUNCTION_RESULT
    return None


# A parameter's output record (declarators.output) until build_ir knows which records are opaque: never written out.
_OUTPUT_RECORD = "_output_record"
# Stands for a parameter's name in a declarator computed once per type (_type_facts).
_NAME = "\x00"


def _type_facts(parsed: Parsed, t: ci.Type) -> dict:
    """What a parameter or result of type `t` needs, computed once per type of a translation unit:
    thousands of parameters share a few hundred types, and each fact is several libclang calls.
    Types are told apart by spelling, which names one type within a translation unit."""
    spelling = t.spelling
    key = ("type", spelling)
    facts = parsed.memo.get(key)
    if facts is None:
        facts = parsed.memo[key] = {
            "type": spelling,
            "canonical": t.get_canonical().spelling,
            "decl": declare(t, _NAME),
            "value_type": decay(t),
            "value_decl": decay(t, _NAME),
            "category": category(t),
            "output": output(t),
            "uses": referenced_names(t),
        }
    return facts


def _param(arg: ci.Cursor, index: int, facts: dict) -> dict:
    """A parameter's IR entry; `facts`: _type_facts of its type."""
    name = arg.spelling or f"arg{index}"
    if name.startswith(RESERVED_PREFIX):
        raise IRError(f"{arg.location.file}:{arg.location.line}: parameter {name} starts with {RESERVED_PREFIX}, "
                      "which the generated wrappers and tests use for their own names")
    param = {
        "name": name,
        "type": facts["type"],
        "canonical": facts["canonical"],
        "decl": facts["decl"].replace(_NAME, name),
        "value_type": facts["value_type"],
        "value_decl": facts["value_decl"].replace(_NAME, name),
        "category": facts["category"],
    }
    if facts["output"] is not None:
        param["output"] = True
        param[_OUTPUT_RECORD] = facts["output"]
    return param


def _function(parsed: Parsed, cursor: ci.Cursor, public: str, unit: Unit, cxx_only: bool, status_types: dict,
              publics: frozenset[str]) -> dict:
    module = unit.module_for_function(public)
    if module is None:
        raise IRError(f"{public} matches no module prefix of unit {unit.name}")
    result = _type_facts(parsed, cursor.result_type)
    arguments = clang_ext.arguments(cursor)
    facts = [_type_facts(parsed, a.type) for a in arguments]
    location = cursor.location
    library = module.library
    status_type = status_types[library]
    return {
        "name": public,
        "symbol": cursor.spelling,
        "module": module.name,
        "library": library,
        "cubind_name": cubind_name(module.name, public, module.prefix, module.exceptions, publics),
        "header": parsed.relative(location.file),
        "line": location.line,
        "returns": {
            "type": result["type"],
            "canonical": result["canonical"],
            "category": result["category"],
        },
        "returns_status": result["type"] == status_type,
        "uses": sorted(set().union(result["uses"], *(f["uses"] for f in facts))),
        "params": [_param(arg, i, f) for i, (arg, f) in enumerate(zip(arguments, facts))],
        "deprecated": clang_ext.deprecation(cursor),
        "cplusplus_only": cxx_only,
        "comment": cursor.brief_comment or None,
    }


def build_ir(config: Config, unit: Unit, include_dirs: IncludeDirs, cuda_version: str, newest: bool = True) -> dict:
    """The IR of one unit: functions, skipped declarations, types, constants, guards, versions.
    `cuda_version` is the toolkit's (macros.cuda_version), the same for every unit. `newest`: the
    toolkit's headers; an older release's IR serves only to compare ABIs (generator/release_compare.py),
    which needs no C++ definitions (cuda_runtime.h's templates are the toolkit's)."""
    own = set(unit.own_headers)
    headers = list(unit.headers)
    c = parse(include_dirs, headers, [*config.c_args, *unit.c_args], stand_ins=unit.stand_ins)
    # The C++ parse also evaluates the unit's constants and version macros (one parse fewer):
    # the candidates are known from the C parse, and the lines after the headers change none of
    # their declarations.
    # Every object-like macro of an NVIDIA header is evaluated: which headers' constants cubind
    # repeats is known only once the types are chosen (header_constants).
    candidates = list(dict.fromkeys(cursor.spelling for cursor, body in header_constants.candidates(c) if body))
    evaluated_names = [*candidates, *(m for m in unit.version_macros if m not in candidates)]
    # -ferror-limit=0: most candidates are not values (attributes, aliases), each line an error.
    # With its macros' cursors: its #include directives, what each header includes only in C++.
    cxx = parse(include_dirs, headers, [*config.cxx_args, "-ferror-limit=0"],
                extra_source=macros.evaluation_source(evaluated_names) + header_constants.evaluation_source(c),
                macros=True)
    values = macros.evaluated(cxx, evaluated_names, len(headers) + 1)
    status_types = {lib.name: lib.status_type for lib in config.libraries}

    bound: list[tuple[Parsed, ci.Cursor, bool]] = []
    helpers: list[tuple[Parsed, ci.Cursor, bool]] = []  # skipped inline definitions cubind repeats
    skipped: list[dict] = []
    c_names: set[str] = set()
    c_functions = _functions(c, own)
    for cursor in c_functions:
        c_names.add(cursor.spelling)
        exclusion = unit.exclusion(cursor.spelling)
        reason = f"excluded by configuration ({exclusion.pattern}): {exclusion.reason}" if exclusion else None
        reason = reason or _skip_reason(cursor, cxx=False, c_names=set())
        if reason:
            skipped.append(_skipped(c, cursor, reason, cxx=False))
            helpers.append((c, cursor, False))
        else:
            bound.append((c, cursor, False))
    skipped_names = {s["name"] for s in skipped}
    bound_c_names = c_names - skipped_names
    for cursor in _functions(cxx, own):
        reason = _skip_reason(cursor, cxx=True, c_names=bound_c_names)
        if reason and cursor.spelling not in skipped_names:
            skipped.append(_skipped(cxx, cursor, reason, cxx=True))
            helpers.append((cxx, cursor, True))
            skipped_names.add(cursor.spelling)
            bound_c_names.discard(cursor.spelling)
        elif reason is None and cursor.spelling not in c_names:
            bound.append((cxx, cursor, True))

    symbols = {cursor.spelling for _, cursor, _ in bound}
    aliases = macros.function_aliases(c, own, symbols, [*config.c_args, *unit.c_args], headers, unit.stand_ins)
    for cursor in c_functions:
        target = macros.forwarding_target(cursor, symbols) if cursor.storage_class == ci.StorageClass.STATIC else None
        if target is not None:
            aliases[cursor.spelling] = target
            skipped = [s for s in skipped if s["name"] != cursor.spelling]
    public_of = {symbol: public for public, symbol in aliases.items()}

    publics = frozenset(public_of.get(cursor.spelling, cursor.spelling) for _, cursor, _ in bound)
    functions = [
        _function(parsed, cursor, public_of.get(cursor.spelling, cursor.spelling), unit, cxx_only, status_types,
                  publics)
        for parsed, cursor, cxx_only in bound
    ]

    layouts = layout.Layouts()
    abi = {}
    for (parsed, cursor, _), function in zip(bound, functions):
        facts = layouts.function(cursor, caller_storage=unit.caller_storage_of(function["name"]) is not None)
        abi[function["name"]] = {"symbol": function["symbol"], **facts}

    define_guards = functools.cache(lambda header: macros.define_guards(c, header))
    selector = TypeSelector(c, own, define_guards)
    selector.seed_own_headers()
    defined = {e["name"] for e in skipped if e["definition"]}
    repeated = [(p, k, x) for p, k, x in helpers if k.spelling in defined]
    for parsed, cursor, cxx_only in bound + repeated:
        types = [cursor.result_type, *(a.type for a in clang_ext.arguments(cursor))]
        for t in types:
            if cxx_only:
                selector.visit_cxx_type(t, cxx)
            else:
                selector.visit_type(t)
    # Every enum of the shared headers the unit's headers reach (device_types.h's cudaRoundMode,
    # through cuda_runtime_api.h), used or not, where cubind can tell whether the header was included.
    reached = {h for inclusion in c.tu.get_includes() if (h := c.relative(inclusion.include)) is not None
               and config.module_of_header(h) is None and _presence(c, cxx, h) is not None}
    selector.seed_enums(reached)
    # NVIDIA's inline definitions in the shared headers cubind copies, and in the unit's
    # inline_headers, and the types they name (dim3's `operator uint3`): until no new header is reached.
    inline_definitions: dict[str, dict] = {}
    while pending := sorted(h for h in (selector.headers() | set(unit.inline_headers)) - own - set(inline_definitions)
                            if config.module_of_header(h) is None):
        for header in pending:
            inline_definitions[header] = inline_copies.read(include_dirs, header, tuple(config.c_args),
                                                            tuple(config.cxx_args))
            named = inline_copies.names(inline_definitions[header])
            for cursor in selector.order:   # a structure and its typedef (`struct uint3`, `uint3`)
                if cursor.spelling in named:
                    selector.visit_decl(cursor)
    # Every enum of every header a declaration is repeated from, and of the unit's own headers.
    repeated_headers = own | selector.headers()
    selector.seed_enums(repeated_headers)
    types = selector.entries()
    # An output through a pointer to a record cubind's C headers declare opaque (a C++ class, a C
    # library structure such as cuFileBatchIOGetStatus's struct timespec) is none.
    opaque = {n for e in types if e["kind"] in ("struct", "union") and not e.get("complete")
              for n in (e["name"], e["typedef"]) if n} | set(STANDARD_STRUCTS.values())
    for function in functions:
        for param in function["params"]:
            if param.pop(_OUTPUT_RECORD, "") in opaque:
                del param["output"]
    records = {e["name"] for e in types if e["kind"] in ("struct", "union") and e.get("complete")}
    inline_definitions = {h: d for h, e in sorted(inline_definitions.items())
                          if (d := inline_copies.selected(e, records))["functions"] or d["members"]}
    guard_of = {h: macros.presence_macro([c, cxx], h) for h in sorted(repeated_headers)}
    declared = {n for e in types for n in (e["name"], e["typedef"]) if n} | \
        {k["name"] for e in types if e["kind"] == "enum" for k in e["constants"]}
    constants, literal_constants, skipped_macros = header_constants.classify(
        c, cxx, repeated_headers, {n: values[n] for n in candidates if n in values}, evaluated_names,
        len(headers) + 1, declared, guard_of)

    # an inline header the unit's parse does not include: its includes and guard from its own parse
    includes = header_constants.includes(c)
    header_constants.cplusplus_includes(cxx, includes)
    guards = {}
    for header in unit.inline_headers:
        read = inline_copies.read(include_dirs, header, tuple(config.c_args), tuple(config.cxx_args))
        for included, entry in read["includes"].items():
            includes.setdefault(included, entry)
        guards[header] = read["guard"]
    for header in sorted({t["header"] for t in types} | {k["header"] for k in [*constants, *literal_constants]}):
        guards[header] = guard_of.get(header) or macros.presence_macro([c, cxx], header)
        blocks = define_guards(header)
        for entry in types:
            if entry["header"] == header:
                entry["define_guard"] = next((m for m, first, last in blocks if first < entry["line"] < last), None)

    dependent = _dependent_headers(include_dirs, sorted(guards), [*config.c_args, *unit.c_args], unit.stand_ins)

    # Headers with no version macros of their own (NVRTC, nvJitLink) are the toolkit's version.
    version_values = {m: values[m] for m in unit.version_macros if m in values}
    missing = [m for m in unit.version_macros if m not in version_values]
    if missing:
        raise IRError(f"unit {unit.name}: version macros {', '.join(missing)} are not defined")
    header_version = ".".join(str(version_values[m]) for m in unit.version_macros) or cuda_version

    # What NVIDIA's headers give C++ programs: default arguments, templates and overloads.
    known = cplusplus.declared_names(functions, types, [*constants, *literal_constants])
    cplusplus.add_defaults(cxx, own, functions, known)
    cxx_definitions: dict = {"definitions": [], "left_out": []}
    templates = any(cxx.header_of(t) in own for t in cxx.declarations(CK.FUNCTION_TEMPLATE))
    if newest and (unit.cplusplus_headers or templates):
        cxx_definitions = cplusplus.definitions(include_dirs, headers, own, list(unit.cplusplus_headers),
                                                list(config.cxx_args), known, list(config.nvcc_args))

    return {
        "ir_version": IR_VERSION,
        "generator_version": VERSION,
        "unit": unit.name,
        "cuda_version": cuda_version,
        "header_version": header_version,
        "headers": headers,
        "functions": functions,
        "skipped": skipped,
        "types": types,
        "constants": constants,
        "literal_constants": literal_constants,
        "skipped_macros": skipped_macros,
        "includes": dict(sorted(includes.items())),
        "guards": guards,
        "dependent_headers": dependent,
        "standard_headers": sorted(selector.standard_headers),
        "cplusplus": cxx_definitions,
        "inline_definitions": inline_definitions,
        ABI_KEY: {"functions": abi, "records": layouts.records},
    }


def _presence(c: Parsed, cxx: Parsed, header: str) -> str | None:
    """macros.presence_macro of `header`, or None where it has none (cupti_nvtx_cbid.h)."""
    try:
        return macros.presence_macro([c, cxx], header)
    except ValueError:
        return None


def _dependent_headers(include_dirs: IncludeDirs, headers: list[str], args: list[str],
                       stand_ins: tuple[str, ...]) -> list[str]:
    """The headers of `headers` that do not compile included alone: they need what the header
    including them defines first (cupti_activity_deprecated.h, PACKED_ALIGNMENT of cupti_activity.h).
    cubind's headers never include such a header themselves (templates/_macros.j2)."""
    dependent = []
    for header in headers:
        try:
            parse(include_dirs, [header], args, name="cubind_alone", macros=False, stand_ins=stand_ins)
        except ParseError:
            dependent.append(header)
    return dependent


def _skipped(parsed: Parsed, cursor: ci.Cursor, reason: str, cxx: bool) -> dict:
    entry = {
        "name": cursor.spelling,
        "header": parsed.relative(cursor.location.file),
        "line": cursor.location.line,
        "signature": declare(cursor.type, cursor.spelling),
        "reason": reason,
        "cplusplus_only": cxx,
        "definition": None,
    }
    if reason in (SKIP_STATIC_INLINE, SKIP_CXX_OVERLOAD):
        body = macros.definition_body(cursor)
        if body is not None:
            # NVIDIA's inline definition, which cubind repeats with its own wrappers (templates/module.h.j2)
            entry["definition"] = {
                "returns": cursor.result_type.spelling,
                "params": [{"name": a.spelling, "type": decay(a.type), "decl": declare(a.type, a.spelling)}
                           for a in cursor.get_arguments()],
                "body": body,
            }
    return entry
