"""Where the headers and libraries of the configured older CUDA releases are kept, and what
tools/fetch-cuda-releases.sh fetches into it (docs/releases.md).

    python3 -m generator.release_headers cache              the cache folder
    python3 -m generator.release_headers plan headers|libraries [ARCH]
                                                     one line per package to fetch, tab-separated:
                                                     release, suite, archive, components (comma-
                                                     separated), keyring, package, version; with ARCH
                                                     (arm64), the libraries for that Debian architecture
                                                     of the releases that configure them
    python3 -m generator.release_headers unit-includes [CUDA_PATH]
                                                     for a compiler building against NVIDIA's headers: the
                                                     directory of the headers a toolkit may lack
                                                     ($CUDA_EXTRA_INCLUDE, -idirafter) where it has them, the
                                                     feature macros those headers need (-D), and
                                                     -DCUBIND_TEST_WITHOUT_<unit> for each unit whose newest
                                                     headers neither CUDA_PATH nor it has
    python3 -m generator.release_headers without-headers units|modules|report [CUDA_PATH]
                                                     those units (or their modules), one a line; report: why,
                                                     a line each, naming the release the IR read them from
    python3 -m generator.release_headers unit-switches [CUDA_PATH]
                                                     -D flags of the switches (CUBIND_SELF_CONTAINED_<MODULE>)
                                                     of the modules whose headers CUDA_PATH lacks: cubind's
                                                     copies of their headers
    python3 -m generator.release_headers names              the configured older releases, newest first, one a line
    python3 -m generator.release_headers sources RELEASE    the sources.list of RELEASE's private apt state: one
                                                     line per suite, signed by its keyring
    python3 -m generator.release_headers census [IR_DIR]    per unit and older release, how many functions
                                                     are of each compat class (a Markdown table;
                                                     IR_DIR: generated/ir)

The cache is $CUBIND_RELEASES_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/cubind/releases; a
release's headers are in <cache>/<release>/include, its shared objects in <cache>/<release>/lib (those
for another Debian architecture in <cache>/<release>/lib-<arch>).
CUDA_PATH defaults to /usr/local/cuda; $CUDA_EXTRA_INCLUDE is the directory `make generate
CUDA_EXTRA_INCLUDE=DIR` reads the headers a toolkit may lack from (toolkit_may_lack), which the
Makefile exports to the tests.
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
EXTRA_INCLUDE_VARIABLE = "CUDA_EXTRA_INCLUDE"
DEFAULT_CUDA = Path("/usr/local/cuda")
IR_DIR = Path(__file__).resolve().parent.parent / "generated" / "ir"
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
    """unit -> release -> compat class -> how many of the unit's functions: each older release, and the
    newest where it lacks a function the unit keeps (one it removed: release_compare.keep_first_release)."""
    def counted(ir: dict) -> list[dict]:
        newest = ir["releases"][0]["name"]
        removed = any(not f["releases"][newest]["declared"] for f in ir["functions"])
        return ir["releases"][0 if removed else 1:]
    return {ir["unit"]: {r["name"]: collections.Counter(f["releases"][r["name"]]["compat"] for f in ir["functions"])
                         for r in counted(ir)}
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


def extra_include(environ: dict[str, str] | None = None) -> Path | None:
    """The directory of the headers a toolkit may lack, from the environment (None: not given)."""
    value = (os.environ if environ is None else environ).get(EXTRA_INCLUDE_VARIABLE)
    return Path(value) if value else None


def newest_headers(unit: config_module.Unit, cuda_path: Path, extra: Path | None) -> Path | None:
    """Where a compiler finds the unit's headers, as the generator searches them (the toolkit first,
    then `extra` for a unit a toolkit may lack): the directory, or None when not every one is there."""
    for directory in (cuda_path / "include", *((extra,) if unit.toolkit_may_lack and extra else ())):
        if all((directory / header).is_file() for header in unit.headers):
            return directory
    return None


def without_headers(config: Config, cuda_path: Path, extra: Path | None) -> list[config_module.Unit]:
    """The units a toolkit may lack whose headers neither it nor `extra` has: a test that compiles
    NVIDIA's headers leaves them out (their declarations are the IR's release, not another's)."""
    return [u for u in config.units if u.toolkit_may_lack and newest_headers(u, cuda_path, extra) is None]


def unit_includes(config: Config, cuda_path: Path, extra: Path | None) -> list[str]:
    """The flags a compiler building against NVIDIA's headers needs beyond -I CUDA_PATH/include: `extra`
    after the toolkit's (-idirafter: the toolkit's own headers still win) where a unit a toolkit may lack
    has its headers there; the feature-test macros those units' headers need of a program (cufile.h's
    _DEFAULT_SOURCE, for glibc's loff_t); and CUBIND_TEST_WITHOUT_<unit> for each unit left out
    (without_headers), which generated/tests/nvidia_headers.h then does not include."""
    units = [u for u in config.units if u.toolkit_may_lack]
    found = [u for u in units if newest_headers(u, cuda_path, extra) is not None]
    return [*((f"-idirafter {extra}",) if any(newest_headers(u, cuda_path, None) is None for u in found) else ()),
            *dict.fromkeys(f"-D{m}" for u in found for m in u.feature_macros),
            *(f"-DCUBIND_TEST_WITHOUT_{u.name}" for u in without_headers(config, cuda_path, extra))]


def unit_switches(config: Config, cuda_path: Path) -> list[str]:
    """-D flags of the switches (CUBIND_SELF_CONTAINED_<MODULE>) of the modules of the units a toolkit
    may lack whose headers `cuda_path` lacks: what a compiler without __has_include needs, with
    CUBIND_USE_CUDA_HEADERS, to build against that toolkit (tests/test_headers_hidden.sh)."""
    return [f"-D{m.self_contained_switch}" for u in config.units
            if u.toolkit_may_lack and newest_headers(u, cuda_path, None) is None for m in u.modules]


def without_headers_report(config: Config, cuda_path: Path, extra: Path | None, ir_dir: Path = IR_DIR) -> list[str]:
    """A line for each unit left out: its headers, the release the IR read them from, where they were looked for."""
    lines = []
    for unit in without_headers(config, cuda_path, extra):
        path = ir_dir / f"{unit.name}.json"
        release = json.loads(path.read_text())["releases"][0]["name"] if path.is_file() else "?"
        lines.append(f"{unit.name}: left out: CUDA {release}'s {', '.join(unit.headers)} (generated/ir/{unit.name}.json "
                     f"was read from them) is in neither {cuda_path / 'include'} nor "
                     f"{EXTRA_INCLUDE_VARIABLE} ({extra or 'not set'})")
    return lines


def main(argv: list[str]) -> int:
    config = config_module.load()
    if argv == ["cache"]:
        print(cache_root())
        return 0
    if 2 <= len(argv) <= 3 and argv[0] == "plan" and argv[1] in SETS and (len(argv) == 2 or argv[1] == "libraries"):
        print("\n".join(plan(config, argv[1], argv[2] if len(argv) == 3 else None)))
        return 0
    if argv[:1] == ["unit-includes"] and len(argv) <= 2:
        print(" ".join(unit_includes(config, Path(argv[1]) if len(argv) == 2 else DEFAULT_CUDA, extra_include())))
        return 0
    if argv[:1] == ["unit-switches"] and len(argv) <= 2:
        print(" ".join(unit_switches(config, Path(argv[1]) if len(argv) == 2 else DEFAULT_CUDA)))
        return 0
    if argv[:1] == ["without-headers"] and len(argv) in (2, 3) and argv[1] in ("units", "modules", "report"):
        cuda_path = Path(argv[2]) if len(argv) == 3 else DEFAULT_CUDA
        units = without_headers(config, cuda_path, extra_include())
        lines = {"units": [u.name for u in units], "modules": [m.name for u in units for m in u.modules],
                 "report": without_headers_report(config, cuda_path, extra_include())}[argv[1]]
        if lines:
            print("\n".join(lines))
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
