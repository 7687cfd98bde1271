"""Where the headers and libraries of the configured older CUDA releases are kept, and what
tools/fetch-cuda-releases.sh fetches into it (docs/releases.md).

    python3 -m generator.release_headers cache              the cache folder
    python3 -m generator.release_headers plan headers|libraries [ARCH]
                                                     one line per package to fetch, tab-separated:
                                                     release, suite, archive, components (comma-
                                                     separated), keyring, package, version; with ARCH
                                                     (arm64), the libraries for that Debian architecture
                                                     of the releases that configure them
    python3 -m generator.release_headers unit-includes      -idirafter flags of the units whose headers are an
                                                     older release's (their links folders, made), and the
                                                     feature macros those headers need (-D)
    python3 -m generator.release_headers names              the configured older releases, newest first, one a line
    python3 -m generator.release_headers sources RELEASE    the sources.list of RELEASE's private apt state: one
                                                     line per suite, signed by its keyring
    python3 -m generator.release_headers census [IR_DIR]    per unit and older release, how many functions
                                                     are of each compat class (a Markdown table;
                                                     IR_DIR: generated/ir)

The cache is $CUBIND_RELEASES_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/cubind/releases; a
release's headers are in <cache>/<release>/include, its shared objects in <cache>/<release>/lib (those
for another Debian architecture in <cache>/<release>/lib-<arch>).
"""

from __future__ import annotations

import collections
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from . import config as config_module
from .config import Config, Package, Release

CACHE_VARIABLE = "CUBIND_RELEASES_CACHE"
SETS = ("headers", "libraries")


def cache_root(environ: dict[str, str] | None = None) -> Path:
    """The cache folder, from the environment."""
    env = os.environ if environ is None else environ
    if env.get(CACHE_VARIABLE):
        return Path(env[CACHE_VARIABLE])
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".cache")
    return Path(base) / "cubind" / "releases"


def include_dir(cache: Path, release: Release) -> Path:
    return cache / release.name / "include"


def library_dir(cache: Path, release: Release, architecture: str | None = None) -> Path:
    return cache / release.name / ("lib" if architecture is None else f"lib-{architecture}")


def packages(release: Release, which: str, architecture: str | None = None) -> tuple[Package, ...]:
    if which not in SETS or (which == "headers" and architecture is not None):
        raise ValueError(f"no package set {which!r}{f' for {architecture}' if architecture else ''}: "
                         f"one of {', '.join(SETS)}, libraries only for another architecture")
    return release.headers if which == "headers" else release.libraries_of(architecture)


def plan(config: Config, which: str, architecture: str | None = None) -> list[str]:
    """The lines `plan` prints (module docstring), releases newest first, packages as configured."""
    return ["\t".join((r.name, r.suite, r.archive, ",".join(r.components), r.keyring, p.name, p.version))
            for r in config.releases for p in packages(r, which, architecture)]


def sources(release: Release) -> list[str]:
    """The release's sources.list lines (`sources` in the module docstring). check-valid-until=no, on
    these lines only, where the release's configuration says its suites' Release files may be past
    their Valid-Until; the signature is checked all the same."""
    options = f"signed-by={release.keyring}" + ("" if release.check_valid_until else " check-valid-until=no")
    return [f"deb [{options}] {release.archive} {suite} {' '.join(release.components)}" for suite in release.suites]


def census(irs: Iterable[dict]) -> dict[str, dict[str, collections.Counter]]:
    """unit -> older release -> compat class -> how many of the unit's functions."""
    return {ir["unit"]: {r["name"]: collections.Counter(f["releases"][r["name"]]["compat"] for f in ir["functions"])
                         for r in ir["releases"][1:]}
            for ir in irs}


def census_table(irs: list[dict]) -> str:
    """The census as a Markdown table; `signature` split into calls through an equivalent and refusals."""
    rows = ["| unit | release | functions | identical | renamed | layout | signature: equivalent | "
            "signature: semantic | signature: refused | absent |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for ir in irs:
        counts = census([ir])[ir["unit"]]
        for release, count in counts.items():
            through = sum(1 for f in ir["functions"] if f["releases"][release]["compat"] == "signature"
                          and f["releases"][release]["equivalent"] is not None)
            semantic = sum(1 for f in ir["functions"] if f["releases"][release].get("semantic"))
            rows.append(f"| {ir['unit']} | {release} | {len(ir['functions'])} | {count['identical']} | "
                        f"{count['renamed']} | {count['layout']} | {through} | {semantic} | "
                        f"{count['signature'] - through - semantic} | {count['absent']} |")
    return "\n".join(rows)


def unit_header_links(release_dir: Path, unit: config_module.Unit) -> Path:
    """<release>/unit-headers/<unit>: a copy of each of the unit's headers that `release_dir` holds
    (copies, not symbolic links: gcc resolves a link and would look beside its target for the
    header's quoted includes; made atomically, as parallel parses and generators may ask at once)."""
    folder = release_dir.parent / "unit-headers" / unit.name
    for header in unit.headers:
        target = release_dir / header
        copy = folder / header
        if not target.is_file():
            continue
        data = target.read_bytes()
        if copy.is_file() and not copy.is_symlink() and copy.read_bytes() == data:
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        temporary = copy.with_name(f".{copy.name}.{os.getpid()}")
        temporary.write_bytes(data)
        os.replace(temporary, copy)
    return folder


def unit_includes(config: Config, cache: Path) -> list[str]:
    """-idirafter flags for a compiler building against NVIDIA's headers where the toolkit lacks a
    unit's (headers_release: nvml.h, nvjpeg.h): each unit's own headers from a folder of links, so
    that what they include by a quoted name is the toolkit's, never the older release's; and the
    feature-test macros those headers need of a program (feature_macros: cufile.h's _DEFAULT_SOURCE,
    for glibc's loff_t), which a program including NVIDIA's headers defines."""
    units = [u for u in config.units if u.headers_release is not None]
    return [*(f"-idirafter {unit_header_links(include_dir(cache, config.release(u.headers_release)), u)}" for u in units),
            *dict.fromkeys(f"-D{m}" for u in units for m in u.feature_macros)]


def main(argv: list[str]) -> int:
    config = config_module.load()
    if argv == ["cache"]:
        print(cache_root())
        return 0
    if 2 <= len(argv) <= 3 and argv[0] == "plan" and argv[1] in SETS and (len(argv) == 2 or argv[1] == "libraries"):
        print("\n".join(plan(config, argv[1], argv[2] if len(argv) == 3 else None)))
        return 0
    if argv == ["unit-includes"]:
        print(" ".join(unit_includes(config, cache_root())))
        return 0
    if argv == ["names"]:
        print("\n".join(r.name for r in config.releases))
        return 0
    if len(argv) == 2 and argv[0] == "sources":
        try:
            print("\n".join(sources(config.release(argv[1]))))
        except config_module.ConfigError as exc:
            print(f"cubind: {exc}", file=sys.stderr)
            return 2
        return 0
    if argv[:1] == ["census"] and len(argv) <= 2:
        directory = Path(argv[1]) if len(argv) == 2 else Path(__file__).resolve().parent.parent / "generated" / "ir"
        print(census_table([json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
