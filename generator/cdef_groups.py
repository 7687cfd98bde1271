"""Which type declarations each cdef file holds.

- cdef/cubind.h, the whole: every type group, shared ones first (flat_groups).
- cdef/common.h and cdef/<module>.h, files an FFI state loads together (split): common.h holds
  the CUDA types no module owns, every module type another module uses (with what those use in
  turn: cuBLAS's enums that cuSOLVER's functions take), and cubind's own API; each module file
  holds only what is left of its module, so it needs common.h and nothing else, and no two files
  declare the same name (check_disjoint). Load common.h first, then any modules in any order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from .model import Model, ModuleModel, TypeGroup

COMMON = "common"   # the stem of the common file: no module may have this name
WHOLE = "cubind"    # the stem of the whole file


def type_modules(model: Model, targets: list[ModuleModel]) -> list[ModuleModel]:
    """The modules whose types `targets` need, each after those it uses (the order in which
    the C headers' #includes declare them)."""
    by_name = {m.module.name: m for m in [*model.modules, *model.type_modules]}
    order: list[ModuleModel] = []
    seen: set[str] = set()

    def visit(module: ModuleModel) -> None:
        if module.module.name in seen:
            return
        seen.add(module.module.name)
        for name in module.type_includes:
            visit(by_name[name])
        order.append(module)

    for module in targets:
        visit(module)
    return order


# The C library's declarations the flat files repeat, by the standard header that has them: what
# LuaJIT's FFI and cffi do not know, or strict C11 after <stddef.h>, <stdint.h> and <stdio.h> lacks
# (cdef_check.sh). The structures are opaque (the wrappers take them by pointer; FILE is glibc's
# struct _IO_FILE); ssize_t and off_t are glibc's on Linux's 64-bit ABIs, the only ones CUDA has.
_STANDARD_FLAT = {
    "stdio.h": ["typedef struct _IO_FILE FILE;"],
    "sys/types.h": ["typedef long ssize_t;", "typedef long off_t;"],
    "sys/socket.h": ["struct sockaddr;"],
    "time.h": ["struct timespec;"],
}


def standard_structs(modules: list[ModuleModel]) -> list[str]:
    """The C library's declarations (_STANDARD_FLAT) that `modules`' declarations need."""
    headers = {h for module in modules for h in module.standard_headers}
    return [d for header, declarations in _STANDARD_FLAT.items() if header in headers for d in declarations]


def flat_groups(model: Model, modules: list[ModuleModel]) -> list[TypeGroup]:
    """The type groups a file declaring `modules` and every type they use holds, shared ones
    first. A block NVIDIA guards with `#ifndef M / #define M` in two headers (CUuuid_st in cuda.h
    and driver_types.h) is declared once, from the first header: a flat file has no
    preprocessor to skip the second."""
    groups = [*model.shared_groups, *(g for tm in type_modules(model, modules) for g in tm.groups)]
    return _first_of_each_guard(groups)


def _first_of_each_guard(groups: list[TypeGroup]) -> list[TypeGroup]:
    first_header: dict[str, str] = {}
    for group in groups:
        for entry in group.entries:
            if entry.get("define_guard"):
                first_header.setdefault(entry["define_guard"], group.header)
    return [_keep(group, lambda e, header=group.header: first_header.get(e.get("define_guard"), header) == header)
            for group in groups]


def _keep(group: TypeGroup, wanted: Callable[[dict], bool], constants: bool = True) -> TypeGroup:
    """The group with only the entries `wanted` accepts, and its #define constants or none."""
    return dataclasses.replace(group, entries=[e for e in group.entries if wanted(e)],
                               constants=group.constants if constants else [],
                               literals=group.literals if constants else [])


def _declared(entry: dict) -> list[str]:
    return [n for n in (entry["name"], entry["typedef"]) if n]


@dataclasses.dataclass
class Split:
    common: list[TypeGroup]               # shared types, then module types other modules use
    modules: dict[str, list[TypeGroup]]   # module name -> what is left of its own groups


def split(model: Model) -> Split:
    """The type groups of cdef/common.h and of each cdef/<module>.h (see the module's doc)."""
    owner: dict[str, str] = {}            # type name -> the module whose header declares it
    declaring: dict[str, list[dict]] = {}  # type name -> the module entries declaring it
    for mm in model.modules:
        for group in mm.groups:
            for entry in group.entries:
                for name in _declared(entry):
                    owner.setdefault(name, mm.module.name)
                    declaring.setdefault(name, []).append(entry)
    # a module's name another module uses, and every module name that one uses in turn
    todo = [name for mm in model.modules
            for name in sorted(_uses(mm)) if owner.get(name, mm.module.name) != mm.module.name]
    shared: set[int] = set()  # id() of the module entries that go to common.h
    while todo:
        for entry in declaring[todo.pop()]:
            if id(entry) not in shared:
                shared.add(id(entry))
                todo.extend(n for n in entry.get("uses", []) if n in owner)
    # a block guarded by a macro in several headers: once, in common.h (flat_groups' rule)
    guarded: dict[str, set[str]] = {}
    for group in [*model.shared_groups, *(g for mm in model.modules for g in mm.groups)]:
        for entry in group.entries:
            if entry.get("define_guard"):
                guarded.setdefault(entry["define_guard"], set()).add(group.header)
    repeated = {guard for guard, headers in guarded.items() if len(headers) > 1}
    ordered = type_modules(model, model.modules)

    def to_common(entry: dict) -> bool:
        return id(entry) in shared or entry.get("define_guard") in repeated

    common = _first_of_each_guard([*model.shared_groups,
                                   *(_keep(g, to_common, constants=False) for mm in ordered for g in mm.groups)])
    modules = {mm.module.name: [_keep(g, lambda e: not to_common(e)) for g in mm.groups] for mm in model.modules}
    return Split([g for g in common if g.entries or g.constants or g.literals],
                 {name: [g for g in groups if g.entries or g.constants or g.literals]
                                                    for name, groups in modules.items()})


def _uses(module: ModuleModel) -> set[str]:
    return ({n for g in module.groups for e in g.entries for n in e.get("uses", [])} |
            {n for f in module.functions for n in f["uses"]})


def declared_names(groups: Iterable[TypeGroup], functions: Iterable[dict] = ()) -> set[str]:
    """Every name the type groups and wrappers of a cdef file define (struct tags by their
    definition only: a repeated `struct X;` declares nothing new): types, enum constants,
    #define constants, wrappers."""
    names: set[str] = set()
    for group in groups:
        names.update(k["name"] for k in [*group.constants, *group.literals])
        for entry in group.entries:
            if entry["typedef"] or entry["kind"] == "typedef":
                names.add(entry["typedef"] or entry["name"])
            if entry["name"] and entry["kind"] != "typedef" and entry.get("complete", True):
                names.add(f"{entry['kind']} {entry['name']}")
            names.update(c["name"] for c in entry.get("constants", []))
    names.update(f["cubind_name"] for f in functions)
    return names


def check_disjoint(files: dict[str, set[str]]) -> None:
    """Refuse cdef files meant to be loaded together that declare a name twice (LuaJIT's
    ffi.cdef fails on the second: 'attempt to redefine')."""
    seen: dict[str, str] = {}
    for file, names in files.items():
        for name in sorted(names):
            if name in seen:
                raise ValueError(f"cdef/{seen[name]}.h and cdef/{file}.h both declare {name}")
            seen[name] = file
