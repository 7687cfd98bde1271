"""NVIDIA's C++ conveniences are in cubind's headers (generator/cplusplus.py): every default
argument that NVIDIA's C++ declaration of a bound function has, cubind's C++ declaration of its
wrapper has too (the same parameters), and every definition the IR repeats is declared under its
cubind name. NVIDIA's side is read from NVIDIA's headers and cubind's from generated/include, both
with libclang in C++: the test iterates over the IR, not over a list of functions."""

import json
import os
from pathlib import Path

import clang.cindex as ci
import pytest

from generator import __main__ as cli
from generator import config as config_module
from generator import release_headers, tu

ROOT = Path(__file__).resolve().parents[2]
IRS = sorted((ROOT / "generated" / "ir").glob("*.json"))
CUDA = Path(os.environ.get("CUDA_PATH", "/usr/local/cuda"))
CK = ci.CursorKind
ARGS = ["-x", "c++", "-std=c++17"]


def _defaulted(cursor: ci.Cursor) -> set[int]:
    """Indexes of the parameters of a C++ function declaration that have a default argument: an
    expression child after the sizes of its array type."""
    found = set()
    for i, arg in enumerate(cursor.get_arguments()):
        sizes, t = 0, arg.type
        while True:
            t = t.get_canonical()
            if t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.VARIABLEARRAY, ci.TypeKind.INCOMPLETEARRAY):
                sizes += t.kind != ci.TypeKind.INCOMPLETEARRAY
                t = t.element_type
            elif t.kind == ci.TypeKind.POINTER:
                t = t.get_pointee()
            else:
                break
        if [c for c in arg.get_children() if c.kind.is_expression()][sizes:]:
            found.add(i)
    return found


def _cubind_declarations(module: str, nvcc_args: tuple[str, ...] = ()) -> tuple[dict[str, set[int]], int]:
    """cubind's C++ view of a module header (as nvcc's host pass sees it with `nvcc_args`): the
    defaulted parameters of each function (over all its declarations) and how many function
    templates it defines under cubind's names."""
    parsed = tu.parse((ROOT / "include", ROOT / "generated" / "include"), [f"cubind/{module}.h"],
                      [*ARGS, *nvcc_args], macros=False)
    defaults: dict[str, set[int]] = {}
    templates = 0
    for kind, cursor in parsed.top_level():
        if kind == CK.FUNCTION_TEMPLATE and cursor.spelling.startswith("cubind_") and \
                not cursor.spelling.endswith("_inline"):
            templates += 1
        if kind == CK.FUNCTION_DECL:
            defaults.setdefault(cursor.spelling, set()).update(_defaulted(cursor))
    return defaults, templates


@pytest.mark.parametrize("ir_path", IRS, ids=[p.stem for p in IRS])
def test_default_arguments_and_definitions_are_cubinds(ir_path):
    ir = json.loads(ir_path.read_text())
    config = config_module.load()
    unit = config.unit(ir["unit"])
    extra = release_headers.extra_include()
    if release_headers.newest_headers(unit, CUDA, extra) is None:
        pytest.skip("\n".join(release_headers.without_headers_report(config, CUDA, extra)))
    include_dirs = cli.newest_include_dirs(unit, CUDA, extra)
    nvidia = tu.parse(include_dirs, list(ir["headers"]), ARGS, macros=False)
    own = set(unit.own_headers)
    nvidia_defaults: dict[str, set[int]] = {}
    for cursor in nvidia.declarations(CK.FUNCTION_DECL):
        if nvidia.header_of(cursor) in own and cursor.spelling not in nvidia_defaults:
            nvidia_defaults[cursor.spelling] = _defaulted(cursor)
    cubind: dict[str, tuple[dict[str, set[int]], int]] = {}
    missing = []
    for function in ir["functions"]:
        expected = nvidia_defaults.get(function["symbol"], set())
        if not expected:
            continue
        module = function["module"]
        if module not in cubind:
            cubind[module] = _cubind_declarations(module)
        got = cubind[module][0].get(function["cubind_name"], set())
        if got != expected:
            missing.append(f"{function['name']}: NVIDIA's defaults {sorted(expected)}, cubind's {sorted(got)}")
    assert not missing, "\n".join(missing)
    # every template the IR repeats is a function template of the module's header (its _inline
    # copies, for the inline form, not counted); those NVIDIA declares for nvcc only are there for
    # nvcc only (__CUDACC__)
    wanted: dict[str, list[int]] = {}
    for definition in ir["cplusplus"]["definitions"]:
        if definition["kind"] == "template":
            module = unit.module_for_function(definition["name"]).name
            wanted.setdefault(module, [0, 0])[bool(definition.get("nvcc"))] += 1
    for module, (host, device) in wanted.items():
        if module not in cubind:
            cubind[module] = _cubind_declarations(module)
        assert cubind[module][1] >= host, \
            f"{module}: {host} templates in the IR, {cubind[module][1]} in cubind/{module}.h"
        with_nvcc = _cubind_declarations(module, config.nvcc_args)[1]
        assert with_nvcc - cubind[module][1] == device, \
            f"{module}: {device} templates for nvcc only in the IR, {with_nvcc - cubind[module][1]} in cubind/{module}.h"


def test_the_runtime_has_what_nvidia_gives():
    """Not vacuous: cuda_runtime_api.h has default arguments and cuda_runtime.h templates, some of
    them for nvcc only (cudaFuncGetAttributes on a kernel)."""
    ir = json.loads((ROOT / "generated" / "ir" / "runtime.json").read_text())
    assert sum("default" in p for f in ir["functions"] for p in f["params"]) > 0
    assert any(d["kind"] == "template" for d in ir["cplusplus"]["definitions"])
    assert {"cudaFuncGetAttributes", "cudaFuncSetAttribute"} <= \
        {d["name"] for d in ir["cplusplus"]["definitions"] if d.get("nvcc") and d["kind"] == "template"}
