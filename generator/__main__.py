"""Command line of the cubind generator.

    python3 -m generator generate [--cuda-path DIR] [--include-dir DIR]... [--extra-include DIR] [--libraries NAME...]
                                  [--prefix NAME] [--out DIR]
    python3 -m generator generate --from-ir generated/ir [--libraries NAME...] [--prefix NAME] --out DIR
    python3 -m generator check    [--cuda-path DIR] [--include-dir DIR]... [--extra-include DIR] [--libraries NAME...]
                                  [--out DIR]
    python3 -m generator amalgamate --tree DIR [--prefix NAME] --out DIR

generate  parse the CUDA headers (stage 1), render every output (stage 2) and
          write the tree; nothing is written unless every step succeeded.
check     regenerate in memory and compare with the tree; exit 1 on a difference.
--from-ir DIR  stage 2 only: the IR files of DIR (the checked-in generated/ir, which hold every
          configured release's facts) instead of the headers; no header is read, no release fetched.
          The same files as from the headers that IR was made from (a subset or a prefixed tree);
          regenerating from the headers is for changing cubind itself (docs/regenerating.md).
--extra-include  the newest release's headers of the units a toolkit may lack (toolkit_may_lack in
          generator/libraries.toml: nvjpeg.h, nvFatbin.h, nvml.h, cufile.h, which the CPU machines'
          partial CUDA 13.0 lacks), searched after the toolkit's. A unit whose headers are in neither
          is taken from the checked-in IR (--fallback-ir, default generated/ir); each such unit is
          named, with where it came from.
--libraries  only these libraries (names of generator/libraries.toml), with their pinned ids:
          a tree that builds on its own (make GENERATED=DIR), with its own mocks and tests.
--prefix  every identifier of cubind's own as NAME_* (NAME_* and NAME__* for cubind_* and cubind__*,
          NAME in upper case for CUBIND_*), with the loader and headers in the tree
          (generator/amalgamate.py's renaming): two such trees link into one object.
amalgamate  a generated tree (--tree) with the loader as NAME.h and NAME.c in --out, which
          compile alone (generator/amalgamate.py); --prefix NAME renames cubind's identifiers.
Exit status 2 for a missing header directory, a header that fails to parse or an
IR cubind cannot use; the message names the culprit.
"""

from __future__ import annotations

import argparse
import functools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import config as config_module
from . import amalgamate, ffi, macros, model, output, parallel, parse, release_compare, release_headers, render, semantic, subset
from .names import NameError_
from .tu import ParseError, find_header, load_libclang
from .typesel import TypeError_

DEFAULT_CUDA = "/usr/local/cuda"
# where a unit whose headers are missing is taken from (toolkit_may_lack): the checked-in IR
CHECKED_IN_IR = Path(__file__).resolve().parent.parent / "generated" / "ir"


def command_line(cuda_path: str, include_dirs: list[str], libraries: list[str] | None = None,
                 prefix: str | None = None) -> str:
    """The command stamped into every file: the one that regenerates it."""
    suffix = "" if cuda_path == DEFAULT_CUDA else f" CUDA_PATH={cuda_path}"
    if include_dirs:
        suffix += f" INCLUDE_DIRS='{' '.join(include_dirs)}'"
    if libraries:
        suffix += f" LIBRARIES='{' '.join(libraries)}'"
    if prefix:
        suffix += f" API_PREFIX={prefix}"
    if libraries or prefix:
        suffix += " OUT=<dir>"
    return f"make generate{suffix}"


@dataclass(frozen=True)
class _Task:
    """One parse of stage 1: a unit's headers (None: the toolkit's CUDA version) of a release
    (None: the toolkit's, the newest)."""
    unit: config_module.Unit | None
    release: config_module.Release | None = None


@dataclass(frozen=True)
class Headers:
    """Where stage 1 looks for headers: --include-dir, the toolkit (--cuda-path), the directory of the
    headers a toolkit may lack (--extra-include), the older releases' cache."""
    extra: tuple[Path, ...]
    cuda_path: Path
    extra_include: Path | None
    cache: Path


def produce(cuda_path: Path, config_path: Path, include_dirs: list[str] | None = None,
            previous: Path | None = None, releases_cache: Path | None = None,
            libraries: list[str] | None = None, prefix: str | None = None,
            ir_dir: Path | None = None, extra_include: Path | None = None, fallback_ir: Path | None = None,
            notes: list[str] | None = None) -> dict[str, str]:
    """Every generated file, by path. `previous`: the tree generated last (its IR sizes order the
    parallel work, heaviest unit first; nothing produced depends on it). `releases_cache`: where the
    configured older releases' headers are (release_headers.cache_root() when None). `libraries`: a subset
    (generator/subset.py); None or empty: every configured library. `prefix`: the tree's identifiers
    under it (amalgamate.prefixed_tree). `ir_dir`: render from these IR files (generated/ir, every
    release's facts) instead of parsing any header (subset.read_irs): no header is read, old or new.
    `extra_include`: the headers a toolkit may lack (toolkit_may_lack); a unit whose headers are in
    neither it nor the toolkit is taken from `fallback_ir` (the checked-in IR), and `notes` gets a
    line for each such unit saying where it came from."""
    config = config_module.load(config_path)
    if ir_dir is not None:
        built = model.build(config, subset.read_irs(config, ir_dir))
        return _render(built, libraries, prefix, cuda_path, include_dirs, _examples(config_path))
    where = Headers(tuple(Path(d) for d in include_dirs or ()), cuda_path, extra_include,
                    releases_cache if releases_cache is not None else release_headers.cache_root())
    for release in config.releases:
        if not release_headers.include_dir(where.cache, release).is_dir():
            raise ParseError(f"the headers of CUDA {release.name} are not in {release_headers.include_dir(where.cache, release)}: "
                             "run make fetch-releases (or set CUBIND_RELEASES_CACHE to where they are)")
    lacking = {u.name for u in config.units if u.toolkit_may_lack and _newest_headers(where, u) is None}
    # Each release's CUDA version is one more parse, made beside the units': each IR gets it after.
    tasks = [_Task(None), *(_Task(u) for u in config.units if u.name not in lacking),
             *(t for r in config.releases
               for t in (_Task(None, r), *(_Task(config.unit(u), r) for u in r.units if u not in lacking)))]
    load_libclang()  # once, here: the workers are forked with it loaded
    # While the workers parse, this process compiles the templates stage 2 renders.
    results = parallel.ordered_map(functools.partial(_stage1, config, where), tasks,
                                   weight=functools.partial(_weight, config, where, previous),
                                   meanwhile=render.compile_templates)
    parsed = dict(zip(tasks, results))
    cuda_number = parsed[_Task(None)]
    cuda_version = macros.version_text(cuda_number)
    irs = []
    for unit in config.units:
        if unit.name in lacking:
            irs.append(_from_ir(config, unit, fallback_ir or CHECKED_IN_IR, cuda_version, where, notes))
            continue
        if unit.toolkit_may_lack and notes is not None:
            notes.append(f"{unit.name}: read from CUDA {cuda_version}'s headers ({_newest_headers(where, unit)})")
        older = []
        for release in config.releases_of(unit.name):
            number = parsed[_Task(None, release)]
            ir = parsed[_Task(unit, release)]
            ir["header_version"] = _header_version(ir, unit, release.name, number)
            older.append(release_compare.ReleaseIR(release.name, number, tuple(p.pinned for p in release.headers), ir))
        ir = parsed[_Task(unit)]
        ir["cuda_version"] = cuda_version
        ir["header_version"] = _header_version(ir, unit, cuda_version, cuda_number)
        entry_points = semantic.entry_facts(config.semantic, older)  # before attach drops the ABI facts
        irs.append(release_compare.attach(release_compare.ReleaseIR(cuda_version, cuda_number, (), ir), older,
                                          unit.first_release))
        semantic.attach(irs[-1], config.semantic, entry_points)
        semantic.attach_records(irs[-1], config.selectors, config.read_written)
    ffi.record_toolkit_exports(config, irs, cuda_path)
    return _render(model.build(config, irs), libraries, prefix, cuda_path, include_dirs, _examples(config_path))


def _header_version(ir: dict, unit: config_module.Unit, release: str, cuda_number: int) -> str:
    """The unit's own version in `release`: its headers' version macros, else its library_versions
    (cufile.h has no macro: cuFile 1.15.1 in CUDA 13.0), else the release's CUDA version."""
    if ir["header_version"]:
        return ir["header_version"]
    if unit.library_versions:
        version = unit.library_version(release)
        if version is None:
            raise config_module.ConfigError(f"unit {unit.name}: library_versions gives no version for CUDA {release} "
                                            "(generator/libraries.toml)")
        return version
    return macros.version_text(cuda_number)


def _newest_headers(where: Headers, unit: config_module.Unit) -> Path | None:
    """The directory that holds the unit's first header where stage 1 searches it, when every one
    of the unit's headers is found; else None."""
    dirs = _include_dirs(where, unit)
    found = [find_header(dirs, h) for h in unit.headers]
    return found[0].parent if found and all(found) else None  # type: ignore[union-attr]


def _from_ir(config: config_module.Config, unit: config_module.Unit, fallback_ir: Path, cuda_version: str,
             where: Headers, notes: list[str] | None) -> dict:
    """The IR of a unit whose headers neither the toolkit nor --extra-include has, as checked in."""
    ir = subset.read_ir(config, fallback_ir, unit.name)
    read_from = ir["releases"][0]["name"]
    if read_from != cuda_version:
        raise ParseError(f"{', '.join(unit.headers)} of unit {unit.name} are in neither {where.cuda_path / 'include'} "
                         f"nor the extra include directory, and {fallback_ir / (unit.name + '.json')} was read from "
                         f"CUDA {read_from}'s, not the toolkit's {cuda_version}: give CUDA {cuda_version}'s "
                         "(make generate CUDA_EXTRA_INCLUDE=DIR; docs/regenerating.md)")
    if notes is not None:
        given = f"nor in {where.extra_include}" if where.extra_include is not None else "and no CUDA_EXTRA_INCLUDE"
        notes.append(f"{unit.name}: taken from {fallback_ir / (unit.name + '.json')} (read from CUDA {read_from}'s "
                     f"headers): {', '.join(unit.headers)} not in {where.cuda_path / 'include'} {given}")
    return ir


def _examples(config_path: Path) -> bool:
    """Whether the tree gets the examples' twins (generator/twins.py): the repository's examples are
    written for its own configuration, not for another's (a test's fixture libraries)."""
    return config_path.resolve() == config_module.CONFIG_PATH.resolve()


def _render(built: model.Model, libraries: list[str] | None, prefix: str | None, cuda_path: Path,
            include_dirs: list[str] | None, examples: bool = True) -> dict[str, str]:
    """Stage 2: the files of the model, of a subset of it, under a prefix; `examples`: with the
    examples' twins, unless it is a subset or prefixed."""
    if libraries:
        built = subset.select(built, libraries)
    # the selection in the configuration's order: the same files whatever order it was given in
    # the examples' twins use libraries a subset may lack, and cubind's names a prefixed tree renames
    files = render.render_all(built, command_line(str(cuda_path), list(include_dirs or ()), list(built.selection),
                                                  prefix), examples=examples and not libraries and not prefix)
    return amalgamate.prefixed_tree(files, prefix) if prefix else files


def _include_dirs(where: Headers, unit: config_module.Unit) -> tuple[Path, ...]:
    """Where a unit's headers are searched: --include-dir, the unit's include_dirs, the toolkit, and
    for a unit a toolkit may lack (toolkit_may_lack: nvjpeg.h), --extra-include after it: the
    toolkit's own headers win, and what the extra directory's headers include by a quoted name
    (nvjpeg.h's "cuda_runtime_api.h") is found beside them first, else in the toolkit."""
    dirs = (*where.extra, *(Path(d) for d in unit.include_dirs), where.cuda_path / "include")
    return (*dirs, where.extra_include) if unit.toolkit_may_lack and where.extra_include is not None else dirs


def newest_include_dirs(unit: config_module.Unit, cuda_path: Path, extra_include: Path | None) -> tuple[Path, ...]:
    """Where stage 1 searches a unit's newest headers (no --include-dir): for the tests that parse
    NVIDIA's headers as the generator did."""
    return _include_dirs(Headers((), cuda_path, extra_include, release_headers.cache_root()), unit)


def _stage1(config: config_module.Config, where: Headers, task: _Task) -> Any:
    """A unit's IR (its cuda_version left empty), or, for no unit, the CUDA version (13000)."""
    if task.release is not None:
        include_dirs: tuple[Path, ...] = (release_headers.include_dir(where.cache, task.release),)
    elif task.unit is not None:
        include_dirs = _include_dirs(where, task.unit)
    else:
        include_dirs = (*where.extra, where.cuda_path / "include")
    if task.unit is None:
        return macros.cuda_version_number(include_dirs, config.cuda_version_header, config.cuda_version_macro,
                                          list(config.cxx_args))
    return parse.build_ir(config, task.unit, include_dirs, "", newest=task.release is None)


def _weight(config: config_module.Config, where: Headers, previous: Path | None, task: _Task) -> float:
    """An estimate of a stage-1 task's cost: the size of the unit's IR generated last, else of its
    own headers (a poorer guess: NVIDIA's comments weigh nothing to parse)."""
    unit = task.unit
    if unit is None:
        return 0.0
    last_ir = previous / "ir" / f"{unit.name}.json" if previous is not None else None
    if last_ir is not None and last_ir.is_file():
        return float(last_ir.stat().st_size)
    include_dirs = _include_dirs(where, unit)
    return float(sum(path.stat().st_size for h in unit.own_headers
                     if (path := find_header(include_dirs, h)) is not None))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m generator", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["generate", "check", "amalgamate"])
    parser.add_argument("--cuda-path", default=DEFAULT_CUDA, help="CUDA toolkit root (its include/ is parsed)")
    parser.add_argument("--out", default="generated", help="the generated tree")
    parser.add_argument("--include-dir", action="append", default=[], metavar="DIR",
                        help="search DIR for headers before the toolkit's (NCCL or cuDNN outside it); repeatable")
    parser.add_argument("--extra-include", metavar="DIR", default=None,
                        help="the newest release's headers of the units a toolkit may lack (nvjpeg.h, nvml.h, ...), "
                             "searched after the toolkit's; a unit whose headers are in neither is taken from "
                             "--fallback-ir (make generate CUDA_EXTRA_INCLUDE=DIR)")
    parser.add_argument("--fallback-ir", metavar="DIR", default=None,
                        help=f"where a unit whose headers are missing is taken from (default: {CHECKED_IN_IR})")
    parser.add_argument("--config", default=str(config_module.CONFIG_PATH), help="library configuration (TOML)")
    parser.add_argument("--releases-cache", metavar="DIR", default=None,
                        help="where the older releases' headers are (default: $CUBIND_RELEASES_CACHE, else "
                             "${XDG_CACHE_HOME:-~/.cache}/cubind/releases; make fetch-releases fills it)")
    parser.add_argument("--libraries", nargs="+", default=[], metavar="NAME",
                        help="generate only these libraries (cufft cublas ...), keeping their ids")
    parser.add_argument("--from-ir", metavar="DIR", default=None,
                        help="generate, check: render from the IR files in DIR (generated/ir) instead of parsing "
                             "headers: a subset or a prefixed tree with no CUDA header, old or new")
    parser.add_argument("--tree", help="amalgamate: the generated tree (generated, or a subset's)")
    parser.add_argument("--prefix", help="generate, amalgamate: <prefix>_* instead of cubind_* (a C identifier)")
    args = parser.parse_args(argv)
    if args.prefix is not None and not _valid_prefix(args.prefix):
        print(f"cubind generator: error: --prefix {args.prefix!r} is not a lower-case C identifier", file=sys.stderr)
        return 2
    if args.action == "amalgamate":
        return _amalgamate(args)
    notes: list[str] = []
    try:
        files = produce(Path(args.cuda_path), Path(args.config), args.include_dir, previous=Path(args.out),
                        releases_cache=Path(args.releases_cache) if args.releases_cache else None,
                        libraries=args.libraries, prefix=args.prefix,
                        ir_dir=Path(args.from_ir) if args.from_ir else None,
                        extra_include=Path(args.extra_include) if args.extra_include else None,
                        fallback_ir=Path(args.fallback_ir) if args.fallback_ir else None, notes=notes)
    except (ParseError, parse.IRError, TypeError_, NameError_, config_module.ConfigError, ValueError,
            subset.IRTreeError) as exc:
        print(f"cubind generator: error: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"cubind generator: {note}")
    out = Path(args.out)
    if args.action == "check":
        diff = output.differences(out, files)
        for line in diff:
            print(line)
        if diff:
            print(f"cubind generator: {out} is not what the generator produces ({len(diff)} files); run make generate")
            return 1
        print(f"cubind generator: {out} is up to date ({len(files)} files)")
        return 0
    changed = output.write_tree(out, files)
    print(f"cubind generator: wrote {len(files)} files to {out} ({len(changed)} changed)")
    return 0


def _valid_prefix(prefix: str) -> bool:
    return prefix.isidentifier() and prefix.isascii() and prefix.lower() == prefix and prefix != "cubind"


def _amalgamate(args: argparse.Namespace) -> int:
    if args.tree is None:
        print("cubind generator: error: amalgamate needs --tree DIR", file=sys.stderr)
        return 2
    try:
        files = amalgamate.amalgamate(Path(args.tree), args.prefix)
    except amalgamate.AmalgamateError as exc:
        print(f"cubind generator: error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text)
    print(f"cubind generator: wrote {', '.join(str(out / n) for n in files)} from {args.tree}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
