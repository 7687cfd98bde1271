"""constants.json: every enum and #define constant of cubind and of the modules, with its
value, for FFIs that have no C declaration parser (Python ctypes, say), and the layout of
cubind's own structures to check hand-written declarations against.

    {"generated_by": ..., "cuda_version": ...,
     "values":  {NAME: value, ...},                       every enum constant and #define, flat
     "enums":   {tag or typedef: {"tag", "typedef", "cdef", "header", "values": {NAME: value}}},
     "defines": {NAME: {"value", "cdef", "header"}},      #define constants: integer, and (with
                                                          "kind" float, string or pointer, and
                                                          "type" a pointer's) the others
     "layouts": {struct tag: {"size", "align", "offsets": {field: byte offset}}}}

"cdef" names the cdef file that declares it (common, or the module); "header" the C header.
"""

from __future__ import annotations

from .cdef_groups import COMMON, Split
from .flat_api import HEADER_NAME, HandWritten
from .model import Model, TypeGroup


def constants(model: Model, split: Split, api: HandWritten, generated_by: str) -> dict:
    enums: dict[str, dict] = {}
    defines: dict[str, dict] = {}
    values: dict[str, int] = {}

    def add_value(name: str, value: int | float | str, where: str) -> None:
        if values.setdefault(name, value) != value:
            raise ValueError(f"constants.json: {name} is {values[name]} and {value} ({where})")

    def add_enum(entry: dict, cdef: str, header: str) -> None:
        key = entry["name"] or entry["typedef"]
        members = {c["name"]: c["value"] for c in entry["constants"]}
        if key is None:  # an anonymous enum: constants without a type, as #defines are
            for name, value in members.items():
                add_define(name, value, cdef, header)
            return
        if key in enums and enums[key]["values"] != members:
            raise ValueError(f"constants.json: two enums named {key} ({enums[key]['header']}, {header})")
        enums[key] = {"tag": entry["name"], "typedef": entry["typedef"], "cdef": cdef, "header": header,
                      "values": members}
        for name, value in members.items():
            add_value(name, value, header)

    def add_define(name: str, value: int, cdef: str, header: str) -> None:
        defines[name] = {"value": value, "cdef": cdef, "header": header}
        add_value(name, value, header)

    def add_groups(groups: list[TypeGroup], cdef: str) -> None:
        for group in groups:
            for constant in group.constants:
                add_define(constant["name"], constant["value"], cdef, group.header)
            for constant in group.literals:
                add_define(constant["name"], constant["value"], cdef, group.header)
                defines[constant["name"]].update(kind=constant["kind"], type=constant["type"])
            for entry in group.entries:
                if entry["kind"] == "enum":
                    add_enum(entry, cdef, group.header)

    add_groups(split.common, COMMON)
    for define in api.defines:
        add_define(define["name"], define["value"], COMMON, HEADER_NAME)
    for enum in api.enums:
        add_enum(enum, COMMON, HEADER_NAME)
    for module in model.modules:
        add_groups(split.modules[module.module.name], module.module.name)
    return {"generated_by": generated_by, "cuda_version": model.cuda_version,
            "values": values, "enums": enums, "defines": defines, "layouts": api.layouts}
