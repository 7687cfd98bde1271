"""A subset of the libraries (`--libraries cufft cublas`): the model of the kept libraries only.

A subset is made from the checked-in IR (read_irs: generated/ir, which holds the facts of every
configured release, the toolkit's and the older ones'), with no header read and nothing fetched:
the same files as from the headers that IR was made from, since stage 2 renders the same model.

Library ids stay those of generator/libraries.toml (they are ABI): the library enum keeps every
configured value and the loader's descriptions keep every library, the ones left out marked
absent (cubind_library_info reports them as not part of the build). A kept module's headers may
use types of a module left out (cusolverDn uses cuBLAS's fill modes): those modules' *_types.h
are emitted, their functions are not."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from .config import Config, ConfigError
from .model import Model, ModuleModel
from .parse import IR_VERSION


class IRTreeError(Exception):
    """IR files that are not those of this configuration (missing, of another IR version, made for
    other headers or releases): the tree must be regenerated from the headers first."""


def read_irs(config: Config, ir_dir: Path) -> list[dict]:
    """Each configured unit's IR from `ir_dir` (generated/ir), as stage 1 made it; IRTreeError when
    one is missing or was made for another configuration of its headers or releases."""
    return [read_ir(config, ir_dir, unit.name) for unit in config.units]


def read_ir(config: Config, ir_dir: Path, unit_name: str) -> dict:
    """Unit `unit_name`'s IR from `ir_dir`, checked as read_irs checks each."""
    regenerate = "regenerate it from the headers (make generate; docs/regenerating.md)"
    path = ir_dir / f"{unit_name}.json"
    try:
        ir = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IRTreeError(f"{path} is missing: the IR of unit {unit_name} (generator/libraries.toml) is not in "
                          f"{ir_dir}; {regenerate}") from None
    except (OSError, ValueError) as exc:
        raise IRTreeError(f"{path} cannot be read: {exc}") from None
    problem = _stale(config, unit_name, ir)
    if problem:
        raise IRTreeError(f"{path} {problem}; {regenerate}")
    return ir


def _stale(config: Config, unit_name: str, ir: dict) -> str | None:
    """Why an IR file is not the one this configuration's headers and releases give, or None."""
    unit = config.unit(unit_name)
    if ir.get("ir_version") != IR_VERSION:
        return f"is of IR version {ir.get('ir_version')}, this generator's is {IR_VERSION}"
    if ir.get("unit") != unit_name:
        return f"is the IR of unit {ir.get('unit')}, not {unit_name}"
    if tuple(ir.get("headers", ())) != unit.headers:
        return f"was made from the headers {', '.join(ir.get('headers', ()))}, not {', '.join(unit.headers)}"
    made = [(r["name"], tuple(r["packages"])) for r in ir.get("releases", ())[1:]]
    configured = [(r.name, tuple(p.pinned for p in r.headers)) for r in config.releases_of(unit_name)]
    if made != configured:
        return (f"holds the releases {', '.join(n for n, _ in made) or 'none'} "
                f"({'; '.join(' '.join(p) for _, p in made)}), the configuration "
                f"{', '.join(n for n, _ in configured) or 'none'} ({'; '.join(' '.join(p) for _, p in configured)})")
    return None


def select(model: Model, names: list[str]) -> Model:
    """The model restricted to the libraries `names` (library names of generator/libraries.toml)."""
    configured = [lib.name for lib in model.config.libraries]
    unknown = sorted(set(names) - set(configured))
    if unknown:
        raise ConfigError(f"--libraries: {', '.join(unknown)} not configured (generator/libraries.toml has "
                          f"{', '.join(configured)})")
    keep = set(names)
    modules = [m for m in model.modules if m.module.library in keep]
    units = {m.unit for m in modules}
    by_name = {m.module.name: m for m in model.modules}
    needed: dict[str, ModuleModel] = {}

    def need(module: ModuleModel) -> None:
        if module.module.name not in needed:
            needed[module.module.name] = module
            for name in module.type_includes:
                need(by_name[name])

    # every module of a kept unit: its IR (the ABI check) declares their types too
    for module in model.modules:
        if module.unit in units:
            need(module)
    kept = {m.module.name for m in modules}
    type_modules = [m for m in model.modules if m.module.name in needed and m.module.name not in kept]
    irs = [dict(ir, functions=[f for f in ir["functions"] if f["library"] in keep],
                **({"toolkit_exports": [e for e in ir["toolkit_exports"] if e["library"] in keep]}
                   if "toolkit_exports" in ir else {}))
           for ir in model.irs if ir["unit"] in units]
    return dataclasses.replace(
        model, irs=irs, modules=modules, libraries=[lib for lib in model.libraries if lib.library.name in keep],
        type_modules=type_modules, selection=tuple(name for name in configured if name in keep))
