"""Stage 2: render the templates with Jinja2 into the files of generated/."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from . import VERSION, answers, conversion_checks, dropin, ffi, irjson, parallel, release_rules, rust, shapes, tracedesc, twins
from .declarators import PRIVATE_TYPEDEFS
from .model import LibraryModel, Model, ModuleModel

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
LLONG_MIN, LLONG_MAX = -(1 << 63), (1 << 63) - 1


def c_string(text: str) -> str:
    """A C string literal with the same bytes as `text`."""
    return json.dumps(text, ensure_ascii=True)


def c_bytes(text: str) -> str:
    """A C string literal of the bytes `text` holds, one a character (0 to 255): those from 128 as
    octal escapes (three digits: no digit that follows can extend one)."""
    return '"' + "".join(f"\\{ord(c):03o}" if ord(c) >= 0x80 else json.dumps(c)[1:-1] for c in text) + '"'


def prototype(function: dict, name: str | None = None) -> str:
    """`<return type> name(<parameters>)` with the function's own parameter declarations."""
    name = name or function["cubind_name"]
    returns = function["returns"]["type"]
    params = ", ".join(p["decl"] for p in function["params"]) or "void"
    joiner = "" if returns.endswith("*") else " "
    return f"{returns}{joiner}{name}({params})"


def pointer_type(function: dict, name: str) -> str:
    """`typedef`-able declarator of a pointer to the function's type."""
    returns = function["returns"]["type"]
    params = ", ".join(p["decl"] for p in function["params"]) or "void"
    joiner = "" if returns.endswith("*") else " "
    return f"{returns}{joiner}(*{name})({params})"


def fits_int(value: int) -> bool:
    """Whether an enum constant is within ISO C's range for enumerators (that of int)."""
    return INT_MIN <= value <= INT_MAX


def c_integer(value: int) -> str:
    """An integer constant with `value`: as a plain decimal when it fits in int, else with the
    suffix of the type that holds it (LL, ULL); LLONG_MIN, which no literal spells, as an expression."""
    if fits_int(value):
        return str(value)
    if value == LLONG_MIN:
        return f"({LLONG_MIN + 1}LL - 1)"
    if LLONG_MIN < value <= LLONG_MAX:
        return f"{value}LL"
    if 0 < value < (1 << 64):
        return f"{value}ULL"
    raise ValueError(f"integer constant {value} does not fit in 64 bits")


def release_call(release: str, plan, function: int) -> tuple | None:
    """(release, its entry) when `function`'s call differs in `release`, else None."""
    entry = plan.calls_in(release).get(function)
    return (release, entry) if entry is not None else None


def nvidia_usable(needs: dict) -> str:
    """The #if condition under which cubind's headers include an NVIDIA header rather than use their
    copy (Model.nvidia_needs): every header it reaches there, no module switch of theirs defined;
    `defined(__cplusplus)` first for a header only C++ can include. Lines of at most 100 columns."""
    clauses = (["defined(__cplusplus)"] if needs.get("cplusplus") else []) + \
        [f"CUBIND_HAS_INCLUDE(<{h}>)" for h in needs["headers"]] + [f"!defined({s})" for s in needs["switches"]]
    lines = [""]
    for clause in clauses:
        if lines[-1] and len(lines[-1]) + len(clause) + 8 > 100:
            lines.append("")
        lines[-1] += (" && " if lines[-1] else "") + clause
    return " && \\\n    ".join(lines)


def comment(text: str) -> str:
    """Text safe inside a C block comment."""
    return text.replace("*/", "* /")


class _Environment(jinja2.Environment):
    """Jinja2's environment, with `x.key` of a plain dict looked up as an item at once: the IR
    is dicts, and Jinja2 asks for an attribute first, which raises AttributeError each time."""

    _DICT_ATTRIBUTES = frozenset(dir(dict))

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in self._DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


@cache
def environment() -> jinja2.Environment:
    """The one environment of this process: templates are compiled once, on first use (and
    again when their file changes)."""
    env = _Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["c_string"] = c_string
    env.filters["c_bytes"] = c_bytes
    env.filters["comment"] = comment
    env.filters["c_integer"] = c_integer
    env.tests["fits_int"] = fits_int
    env.globals["prototype"] = prototype
    env.globals["pointer_type"] = pointer_type
    env.globals["nvidia_usable"] = nvidia_usable
    env.globals["unavailable_text"] = answers.unavailable_text
    env.globals["names_table"] = answers.names_table
    env.globals["unavailable_phrase"] = answers.unavailable_phrase
    env.filters["release_call"] = release_call
    env.filters["rust_str"] = rust.rust_str
    env.globals["release_codes"] = list(release_rules.Code)
    env.globals["Code"] = release_rules.Code
    env.globals["Action"] = release_rules.Action
    env.globals["trace_description"] = tracedesc.description
    env.globals["trace_arguments"] = tracedesc.arguments
    env.globals["trace_result"] = tracedesc.result
    env.globals["trace_table"] = tracedesc.table
    env.globals["shape_to"] = shapes.to_shape
    env.globals["shape_from"] = shapes.from_shape
    env.globals["shape_traced"] = shapes.traced
    return env


def compile_templates() -> None:
    """Compile every template now (they are otherwise compiled on first use, in render_all)."""
    env = environment()
    for name in env.list_templates(extensions=["j2"]):
        env.get_template(name)


def _template(env: jinja2.Environment, kind: str, name: str) -> jinja2.Template:
    """A per-library override (templates/<name>/<kind>) where one exists, else the base."""
    return env.select_template([f"{name}/{kind}", kind])


def render_all(model: Model, command: str, examples: bool = True) -> dict[str, str]:
    """Every generated file (path relative to generated/ -> text), IR included; with `examples`,
    the examples' twins with NVIDIA's names too (the whole configuration's: generator/twins.py)."""
    env = environment()
    common = {"model": model, "config": model.config, "generator_version": VERSION, "command": command,
              "cuda_version": model.cuda_version,
              # the CUDA releases whose headers the run read, oldest first ("11.8" .. "13.0")
              "oldest_release": min([model.cuda_version, *(r.name for r in model.config.releases)],
                                    key=lambda name: tuple(int(p) for p in name.split("."))),
              "shapes": shapes.tree(model)}
    # About half the work in a second process (forked: it has the model and the compiled templates)
    # while this one renders the rest.
    half = parallel.forked(lambda: _ir_and_library_files(env, model, common))
    out: dict[str, str] = {}
    for ir in model.irs:
        out[f"tests/abi_{ir['unit']}.c"] = env.get_template("abi_check.c.j2").render(
            common | {"ir": ir, "private_typedefs": {private: name for name, (private, _) in PRIVATE_TYPEDEFS.items()}})
    out["include/cubind/cuda_types.h"] = env.get_template("cuda_types.h.j2").render(common)
    for shared in model.shared_files:
        out[f"include/cubind/{shared['file']}"] = env.get_template("cuda_types_header.h.j2").render(common | {"f": shared})
    out["include/cubind/libraries.h"] = env.get_template("libraries.h.j2").render(common)
    out["include/cubind/modules.h"] = env.get_template("modules.h.j2").render(common)
    out["src/libraries.c"] = env.get_template("libraries.c.j2").render(common)
    out["src/shapes.h"] = env.get_template("shapes.h.j2").render(common)
    out["src/shapes.c"] = env.get_template("shapes.c.j2").render(common)
    out["src/locate.c"] = env.get_template("locate.c.j2").render(common)
    out["src/library_dirs.h"] = env.get_template("library_dirs.h.j2").render(common)
    out["src/release_rules.h"] = env.get_template("release_rules.h.j2").render(common)
    out["src/status_names.c"] = env.get_template("status_names.c.j2").render(common)
    out["build.mk"] = env.get_template("build.mk.j2").render(common)
    out["tests/passthrough_groups.h"] = env.get_template("passthrough_groups.h.j2").render(common)
    out["tests/library_cases.c"] = env.get_template("library_cases.c.j2").render(common)
    out["tests/mock_names.c"] = env.get_template("mock_names.c.j2").render(common)
    out["tests/no_status_cases.c"] = env.get_template("no_status_cases.c.j2").render(
        common | {"cases": answers.test_cases(model)})
    out["tests/include_order.c"] = env.get_template("include_order.c.j2").render(common)
    out["tests/nvidia_headers.h"] = env.get_template("nvidia_headers.h.j2").render(common)
    out["tests/header_alone.c"] = env.get_template("header_alone.c.j2").render(common)
    out["tests/header_counterpart.c"] = env.get_template("header_counterpart.c.j2").render(common)
    units = [model.config.unit(ir["unit"]) for ir in model.irs]
    for name in sorted({n for u in units for n in u.stand_ins}):  # the C++ library headers a C build reads empty
        headers = [h for u in units for h, names in u.cplusplus_only if name in names]
        out[f"tests/stand_ins/{name}"] = env.get_template("stand_in.j2").render(common | {"name": name, "headers": headers})
    out["tests/input_fields.c"] = env.get_template("input_fields.c.j2").render(common)
    out["tests/semantic_calls.c"] = env.get_template("semantic_calls.c.j2").render(common)
    out["tests/conversions.c"] = env.get_template("conversions.c.j2").render(
        common | {"expected": conversion_checks.expected(model), "ABSENT": conversion_checks.ABSENT})
    out["docs/libraries.md"] = env.get_template("libraries.md.j2").render(common)
    for module in model.modules:
        context = common | {"m": module}
        out[f"include/cubind/{module.module.name}_types.h"] = _template(env, "module_types.h.j2", module.module.name).render(context)
        out[f"include/cubind/{module.module.name}.h"] = _template(env, "module.h.j2", module.module.name).render(context)
    for module in [*model.modules, *model.type_modules]:
        for part in module.header_files:  # a module split per NVIDIA header: as a shared header's file
            out[f"include/cubind/{part['file']}"] = env.get_template("cuda_types_header.h.j2").render(common | {"f": part})
    for module in model.type_modules:  # a subset's: the types its modules use, not the functions
        out[f"include/cubind/{module.module.name}_types.h"] = _template(env, "module_types.h.j2", module.module.name).render(common | {"m": module})
    out.update(ffi.render(env, model, common, out))  # cdef/*.h, docs/api/*.md
    out.update(dropin.render(env, model, common))  # dropin/*.c and its version script
    if examples:
        out.update(twins.render(env, model, common))  # examples/nvidia/*: the examples with NVIDIA's names
    out.update(half())
    return out


def _ir_and_library_files(env: jinja2.Environment, model: Model, common: dict) -> dict[str, str]:
    """The IR files, and each library's source, mock and passthrough test."""
    out = {f"ir/{ir['unit']}.json": irjson.dumps(ir) + "\n" for ir in model.irs}
    for library in model.libraries:
        context = common | {"lib": library}
        name = library.library.name
        out[f"src/{name}.c"] = _template(env, "library.c.j2", name).render(context)
        out[f"tests/mock_{name}.c"] = _template(env, "mock.c.j2", name).render(context | {"release": None})
        for release in library.release_plan.older:  # the mock of each older release the IR describes
            out[f"tests/mock_{name}-r{release.name.replace('.', '_')}.c"] = _template(env, "mock.c.j2", name).render(
                context | {"release": release, "calls": library.release_plan.calls_in(release.name)})
        out[f"tests/passthrough_{name}.c"] = _template(env, "passthrough.c.j2", name).render(context)
    return out


__all__ = ["render_all", "LibraryModel", "ModuleModel"]
