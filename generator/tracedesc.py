"""Tracing: each wrapper's traced copy passes its result and arguments to the shared
cubind__trace_log (loader/trace_log.c) with a description of their kinds, made here."""

from __future__ import annotations

from .model import LibraryModel

# loader/trace_log.c copies each name into a buffer of this size.
NAME_MAX = 63


def _kind(lib: LibraryModel, typed: dict) -> str:
    """The description's kind of a parameter or result (loader/trace_log.h lists them)."""
    category = typed["category"]
    if category == "integer":
        unsigned = typed["canonical"].replace("const ", "").strip().startswith(("unsigned", "_Bool", "bool"))
        return "u" if unsigned else "i"
    if category == "enum":
        lookup = lib.trace_enum_of.get(typed["type"])
        if lookup is None:
            return "i"
        return f"e{[e['function'] for e in lib.trace_enums].index(lookup)}:"
    if category in ("pointer", "function_pointer"):
        return "p"
    if category == "floating":
        return "f"
    if category == "record":
        return "r"
    raise ValueError(f"cannot trace a value of category {category} ({typed['type']})")


def _value(kind: str, expr: str) -> list[str]:
    """The variadic argument of a value of that kind: none for a record or no result."""
    cast = {"i": "long long", "u": "unsigned long long", "p": "uintptr_t", "f": "double", "s": "int"}
    if kind[0] == "e":
        return [f"(long long){expr}"]
    return [f"({cast[kind]}){expr}"] if kind in cast else []


def _result_kind(lib: LibraryModel, function: dict) -> str:
    if function["returns_status"]:
        return "s"
    if function["returns"]["category"] == "void":
        return "v"
    return _kind(lib, function["returns"])


def description(lib: LibraryModel, function: dict) -> str:
    """The result's kind, then each parameter's kind and name, each followed by ';'."""
    for p in function["params"]:
        if len(p["name"]) > NAME_MAX:
            raise ValueError(f"{function['name']}: parameter name {p['name']} is longer than {NAME_MAX}, "
                             "which tracing's lines keep (loader/trace_log.c)")
    return _result_kind(lib, function) + ";" + "".join(f"{_kind(lib, p)}{p['name']};" for p in function["params"])


def arguments(lib: LibraryModel, function: dict, result: str) -> list[str]:
    """cubind__trace_log's variadic arguments: the result (`result` names it), then the parameters."""
    values = _value(_result_kind(lib, function), result)
    for p in function["params"]:
        values += _value(_kind(lib, p), p["name"])
    return values
