"""Tracing: each wrapper's slow path passes its arguments to the shared cubind__trace_args and its
result to cubind__trace_result (loader/trace_log.c); each function's description of their kinds,
made here, is data in its library's symbol table."""

from __future__ import annotations

import os

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
    """The variadic argument of a value of that kind: none for a record or no result; an integer, an
    enum or a pointer as a word, which a shared slow path has whatever the kind (loader/trace_log.h)."""
    if kind in ("i", "u") or kind[0] == "e":
        return [f"(cubind__word){expr}"]
    if kind == "p":
        return [f"(cubind__word)(uintptr_t){expr}"]
    cast = {"f": "double", "s": "int"}
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


def arguments(lib: LibraryModel, function: dict) -> list[str]:
    """cubind__trace_args's variadic arguments: the parameters."""
    values = []
    for p in function["params"]:
        values += _value(_kind(lib, p), p["name"])
    return values


def result(lib: LibraryModel, function: dict, expr: str) -> list[str]:
    """cubind__trace_result's variadic argument: the result (`expr` names it), or none."""
    return _value(_result_kind(lib, function), expr)


def _prefix(names: list[str]) -> str:
    """What every name of an enum's constants starts with, up to and with its last '_' ("CUBLAS_OP_"):
    the table holds it once, and each name without it."""
    if len(names) < 2:
        return ""
    common = os.path.commonprefix(names)
    return common[: common.rfind("_") + 1]


# A description names a parameter by one byte from FIRST_NAME up when its library's table holds the
# name (loader/trace_log.h): its names that save the most, so many at most.
FIRST_NAME = 0x80
NAMES_MAX = 0x100 - FIRST_NAME


def _names(descriptions: list[str]) -> list[str]:
    """The parameter names the table holds once, each named by one byte in the descriptions: those that
    save the most bytes (every use less one, less the name and its offset), most first."""
    uses: dict[str, int] = {}
    for d in descriptions:
        for param in d.split(";")[1:-1]:
            name = param[param.index(":") + 1:] if param[0] == "e" else param[1:]
            uses[name] = uses.get(name, 0) + 1
    saved = {name: count * (len(name) - 1) - (len(name) + 1 + 2) for name, count in uses.items()}
    return sorted((n for n in saved if saved[n] > 0), key=lambda n: (-saved[n], n))[:NAMES_MAX]


def coded(description: str, names: list[str]) -> str:
    """`description` with each name of `names` as its one byte (chr(FIRST_NAME + its number))."""
    number = {name: i for i, name in enumerate(names)}
    out = []
    for param in description.split(";")[:-1]:
        kind = param[: param.index(":") + 1] if param[0] == "e" else param[:1]
        name = param[len(kind):]
        out.append(kind + (chr(FIRST_NAME + number[name]) if name in number else name))
    return ";".join(out) + ";"


def table(lib: LibraryModel) -> dict:
    """The library's descriptions, each once ("unique"), coded with the parameter names the table
    holds ("names": coded()), and each function's among them ("of"); the constants of each enum its
    descriptions name, by ascending value, as the table holds them ("enums": name, constants, their
    names' common "prefix" and each one's name after it, "suffixes"; "first": each enum's first
    constant among all); "value_type": the C type of the values, int when every value fits in one."""
    unique: list[str] = []
    at: dict[str, int] = {}
    of = []
    for f in lib.functions:
        d = description(lib, f)
        if d not in at:
            at[d] = len(unique)
            unique.append(d)
        of.append(at[d])
    names = _names(unique)
    unique = [coded(d, names) for d in unique]
    enums = []
    first = 0
    for e in lib.trace_enums:
        constants = sorted((c for c in e["constants"] if -(2 ** 63) <= c["value"] < 2 ** 63), key=lambda c: c["value"])
        values = [c["value"] for c in constants]
        if len(set(values)) != len(values):
            raise ValueError(f"enum {e['name']}: two constants of one value")
        prefix = _prefix([c["name"] for c in constants])
        enums.append({"name": e["name"], "constants": constants, "first": first, "prefix": prefix,
                      "suffixes": [c["name"][len(prefix):] for c in constants]})
        first += len(constants)
    fits_int = all(-(2 ** 31) <= c["value"] < 2 ** 31 for e in enums for c in e["constants"])
    return {"unique": unique, "of": of, "enums": enums, "constant_count": first, "names": names,
            "value_type": "int" if fits_int else "long long"}
