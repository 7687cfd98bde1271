"""A subset of the libraries (`--libraries cufft cublas`): the model of the kept libraries only.

Library ids stay those of generator/libraries.toml (they are ABI): the library enum keeps every
configured value and the loader's descriptions keep every library, the ones left out marked
absent (cubind_library_info reports them as not part of the build). A kept module's headers may
use types of a module left out (cusolverDn uses cuBLAS's fill modes): those modules' *_types.h
are emitted, their functions are not."""

from __future__ import annotations

import dataclasses

from .config import ConfigError
from .model import Model, ModuleModel


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
    irs = [dict(ir, functions=[f for f in ir["functions"] if f["library"] in keep])
           for ir in model.irs if ir["unit"] in units]
    return dataclasses.replace(
        model, irs=irs, modules=modules, libraries=[lib for lib in model.libraries if lib.library.name in keep],
        type_modules=type_modules, selection=tuple(name for name in configured if name in keep))
