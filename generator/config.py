"""Load generator/libraries.toml into typed, read-only records."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

CONFIG_PATH = Path(__file__).with_name("libraries.toml")


class ConfigError(Exception):
    """The configuration file is inconsistent."""


@dataclass(frozen=True)
class Module:
    name: str
    prefix: str
    library: str
    headers: tuple[str, ...]
    name_exceptions: tuple[tuple[str, str], ...] = ()

    @property
    def exceptions(self) -> dict[str, str]:
        return dict(self.name_exceptions)


@dataclass(frozen=True)
class Unit:
    name: str
    headers: tuple[str, ...]
    version_macros: tuple[str, ...]
    modules: tuple[Module, ...]

    def module_for_function(self, name: str) -> Module | None:
        """The module whose prefix is the longest prefix of `name`."""
        best: Module | None = None
        for module in self.modules:
            if name.startswith(module.prefix) and (best is None or len(module.prefix) > len(best.prefix)):
                best = module
        return best

    @property
    def own_headers(self) -> tuple[str, ...]:
        return tuple(h for m in self.modules for h in m.headers)


@dataclass(frozen=True)
class Library:
    name: str
    sonames: tuple[str, ...]
    status_type: str
    status_success: str
    status_missing_library: str
    status_missing_symbol: str
    version_query: str

    @property
    def env_var(self) -> str:
        return f"CUBIND_{self.name.upper()}_PATH"

    @property
    def enum_name(self) -> str:
        return f"CUBIND_LIB_{self.name.upper()}"


@dataclass(frozen=True)
class Config:
    cuda_version_header: str
    cuda_version_macro: str
    c_args: tuple[str, ...]
    cxx_args: tuple[str, ...]
    units: tuple[Unit, ...]
    libraries: tuple[Library, ...]
    param_docs: tuple[tuple[str, str], ...] = ()

    def param_doc(self, name: str, type_spelling: str | None = None) -> str | None:
        """The documented shape/unit of a parameter, by "name|type" first, then by name."""
        docs = dict(self.param_docs)
        if type_spelling is not None and f"{name}|{type_spelling}" in docs:
            return docs[f"{name}|{type_spelling}"]
        return docs.get(name)

    def library(self, name: str) -> Library:
        for lib in self.libraries:
            if lib.name == name:
                return lib
        raise ConfigError(f"no library named {name!r}")

    def unit(self, name: str) -> Unit:
        for unit in self.units:
            if unit.name == name:
                return unit
        raise ConfigError(f"no unit named {name!r}")

    @property
    def modules(self) -> tuple[Module, ...]:
        return tuple(m for u in self.units for m in u.modules)

    def module_of_header(self, header: str) -> Module | None:
        """The module that owns a header (by base name), or None for shared CUDA headers."""
        for module in self.modules:
            if header in module.headers:
                return module
        return None


def load(path: Path = CONFIG_PATH) -> Config:
    with path.open("rb") as f:
        raw = tomllib.load(f)
    gen = raw["generator"]
    units = tuple(
        Unit(
            name=u["name"],
            headers=tuple(u["headers"]),
            version_macros=tuple(u.get("version_macros", ())),
            modules=tuple(
                Module(
                    m["name"],
                    m["prefix"],
                    m["library"],
                    tuple(m["headers"]),
                    tuple(sorted(raw.get("name_exceptions", {}).get(m["name"], {}).items())),
                )
                for m in u["modules"]
            ),
        )
        for u in raw["unit"]
    )
    libraries = tuple(
        Library(
            name=lib["name"],
            sonames=tuple(lib["sonames"]),
            status_type=lib["status_type"],
            status_success=lib["status_success"],
            status_missing_library=lib["status_missing_library"],
            status_missing_symbol=lib["status_missing_symbol"],
            version_query=lib["version_query"],
        )
        for lib in raw["library"]
    )
    config = Config(
        cuda_version_header=gen["cuda_version_header"],
        cuda_version_macro=gen["cuda_version_macro"],
        c_args=tuple(gen["c_args"]),
        cxx_args=tuple(gen["cxx_args"]),
        units=units,
        libraries=libraries,
        param_docs=tuple(sorted(raw.get("param_docs", {}).items())),
    )
    _validate(config)
    return config


def _validate(config: Config) -> None:
    names = {lib.name for lib in config.libraries}
    for module in config.modules:
        for c_name, _ in module.name_exceptions:
            if not c_name.startswith(module.prefix):
                raise ConfigError(f"name exception {c_name} is not in module {module.name}")
    seen_modules: set[str] = set()
    for module in config.modules:
        if module.library not in names:
            raise ConfigError(f"module {module.name} names unknown library {module.library}")
        if module.name in seen_modules:
            raise ConfigError(f"module {module.name} is configured twice")
        seen_modules.add(module.name)
    owners: dict[str, str] = {}
    for module in config.modules:
        for header in module.headers:
            if header in owners:
                raise ConfigError(f"header {header} belongs to both {owners[header]} and {module.name}")
            owners[header] = module.name
