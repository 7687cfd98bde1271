"""Every function a bound library exports that a header of the toolkit declares is bound by cubind,
or listed with why (issue 26, item 2).

For each library of generator/libraries.toml whose file is found (the toolkit's lib64 and the
system's library directories, newest soname first; where none is, the toolkit's link-time stub,
which exports the API of a library that comes with the GPU driver: libcuda, libnvidia-ml):

- exported: the functions its dynamic symbol table defines (generator/ffi.py reads the ELF file);
- bound: the IR's functions of that library whose symbol (the one the newest release's headers
  select) it is, when libcubind ($CUBIND_LIBRARY, built) exports the wrapper;
- skipped: the IR's `skipped` functions of the library's units (declared there, each with its reason);
- declared: what libclang finds declared as a function (C and C++, NVIDIA's default macros) in
  the headers of the library's include directories (the toolkit's, a unit's include_dirs and, for a
  unit a toolkit may lack, $CUDA_EXTRA_INCLUDE and the include dirs of the older releases whose lib
  dirs hold its file). A header that cannot be parsed alone (it needs headers the machine lacks)
  declares, for this census, every exported name it spells.

An exported function that is declared, not bound and not skipped must be listed in the library's
`unbound` entries (generator/libraries.toml) with a reason; the census fails on any other.
"""

from __future__ import annotations

import json
import os
import re
import sys
from functools import cache
from pathlib import Path

import clang.cindex as ci

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from generator import release_headers  # noqa: E402
from generator.config import Config, Library, load  # noqa: E402
from generator.ffi import exported_functions, library_dirs  # noqa: E402

CUDA = Path(os.environ.get("CUDA_PATH", "/usr/local/cuda"))
CUBIND = os.environ.get("CUBIND_LIBRARY")
SYSTEM_DIRS = tuple(Path(d) for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"))
HEADER_SUFFIXES = (".h", ".hpp", ".cuh")
IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
SCOPES = (ci.CursorKind.LINKAGE_SPEC, ci.CursorKind.UNEXPOSED_DECL, ci.CursorKind.NAMESPACE)


def older_releases(config: Config, library: Library) -> tuple:
    """The older releases of the units of the library that a toolkit may lack (toolkit_may_lack:
    nvFatbin, nvJPEG, cuFile, whose files the toolkit here lacks too), newest first."""
    return tuple(dict.fromkeys(r for unit in config.units if unit.toolkit_may_lack
                               and any(m.library == library.name for m in unit.modules)
                               for r in config.releases_of(unit.name)))


def release_lib_dirs(config: Config, library: Library) -> tuple[Path, ...]:
    """The releases cache's lib dirs of those releases (make fetch-release-libs)."""
    return tuple(release_headers.library_dir(release_headers.cache_root(), r) for r in older_releases(config, library))


def library_file(library: Library, config: Config) -> tuple[Path, str] | None:
    """The library's file and what it is: the newest soname in the toolkit's or the system's
    directories, else in the releases cache's lib dir of the release its headers come from, else
    the toolkit's link-time stub of that soname family."""
    for soname in library.sonames:
        for directory in (*(CUDA / d for d in library_dirs(config)), *SYSTEM_DIRS):
            if (directory / soname).is_file():
                return directory / soname, "library"
    for soname in library.sonames:
        for directory in release_lib_dirs(config, library):
            if (directory / soname).is_file():
                return directory / soname, "library"
    stem = library.sonames[0].split(".so")[0]
    for directory in library_dirs(config):
        if (CUDA / directory / "stubs" / f"{stem}.so").is_file():
            return CUDA / directory / "stubs" / f"{stem}.so", "link-time stub"
    return None


def include_dirs(config: Config, library: Library) -> tuple[Path, ...]:
    """Where the headers of the library's units are searched (generator/__main__.py's order)."""
    dirs: list[Path] = []
    for unit in config.units:
        if not any(m.library == library.name for m in unit.modules):
            continue
        dirs += [Path(d) for d in unit.include_dirs]
        extra = release_headers.extra_include()
        if unit.toolkit_may_lack and extra is not None:
            dirs.append(extra)
    dirs += [release_headers.include_dir(release_headers.cache_root(), r) for r in older_releases(config, library)]
    dirs.append(CUDA / "include")
    return tuple(dict.fromkeys(d.resolve() for d in dirs if d.is_dir()))


@cache
def header_files(root: Path) -> tuple[tuple[str, frozenset[bytes]], ...]:
    """Every header under an include directory (relative name) with the identifiers it spells."""
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix in HEADER_SUFFIXES and path.is_file():
            found.append((path.relative_to(root).as_posix(), frozenset(IDENTIFIER.findall(path.read_bytes()))))
    return tuple(found)


def relative(name: str, roots: tuple[Path, ...]) -> str:
    path = Path(name).resolve()
    for root in roots:
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    return path.as_posix()


@cache
def declarations(path: Path, header: str, roots: tuple[Path, ...],
                 args: tuple[str, ...]) -> tuple[dict[str, set[str]], set[str] | None]:
    """Functions with external linkage declared by `#include <header>` (at `path`) parsed alone: name ->
    declaring headers; and, when it does not parse without errors, the names the header spells before
    a parenthesis in its code (its tokens, not its comments): what it may declare."""
    language = args[args.index("-x") + 1]
    source = f"census.{'cpp' if language == 'c++' else 'c'}"
    tu = ci.Index.create().parse(source, args=[*args, *(f"-I{r}" for r in roots)],
                                 unsaved_files=[(source, f"#include <{header}>\n")],
                                 options=ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES
                                 | ci.TranslationUnit.PARSE_INCOMPLETE)
    found: dict[str, set[str]] = {}

    def walk(cursor: ci.Cursor) -> None:
        for child in cursor.get_children():
            # a static (inline) function is the header's own code, not the library's symbol of that name
            if (child.kind == ci.CursorKind.FUNCTION_DECL and child.location.file is not None
                    and child.linkage != ci.LinkageKind.INTERNAL):
                found.setdefault(child.spelling, set()).add(relative(child.location.file.name, roots))
            elif child.kind in SCOPES:
                walk(child)

    walk(tu.cursor)
    if not any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
        return found, None
    tokens = list(tu.get_tokens(extent=tu.get_extent(str(path), (0, path.stat().st_size))))
    return found, {t.spelling for t, after in zip(tokens, tokens[1:])
                   if t.kind == ci.TokenKind.IDENTIFIER and after.spelling == "("}


def declared(config: Config, roots: tuple[Path, ...], names: set[str]) -> dict[str, frozenset[str]]:
    """Of `names`, those a header under `roots` declares, each with its declaring headers."""
    wanted = {n.encode() for n in names}
    result: dict[str, set[str]] = {}
    for root in roots:
        for header, identifiers in header_files(root):
            spelled = identifiers & wanted
            if not spelled:
                continue
            parsed = [declarations(root / header, header, roots, args) for args in (config.c_args, config.cxx_args)]
            for found, _ in parsed:
                for name in names & found.keys():
                    result.setdefault(name, set()).update(found[name])
            if all(calls is not None for _, calls in parsed):  # cannot tell: it may declare what it calls
                for name in names & set.union(*(calls for _, calls in parsed if calls is not None)):
                    result.setdefault(name, set()).add(header)
    return {name: frozenset(headers) for name, headers in result.items()}


def irs() -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted((ROOT / "generated" / "ir").glob("*.json"))]


def test_every_declared_export_is_bound_or_listed() -> None:
    assert CUBIND, "set CUBIND_LIBRARY to the built libcubind (make test-census)"
    cubind = exported_functions(Path(CUBIND)) or set()
    assert cubind, f"{CUBIND}: no exported function"
    config = load()
    units = irs()
    problems: list[str] = []
    compared = 0
    for library in config.libraries:
        found = library_file(library, config)
        if found is None:
            print(f"{library.name}: no file of {', '.join(library.sonames)} here: not compared")
            continue
        path, what = found
        exported = exported_functions(path) or set()
        assert exported, f"{path}: no exported function"
        # the symbol each wrapper calls with the newest release's headers (the IR's first release)
        bound = {}
        for ir in units:
            newest = ir["releases"][0]["name"] if ir.get("releases") else None
            for f in ir["functions"]:
                if f["library"] == library.name:
                    call = f.get("releases", {}).get(newest, {}).get("call_symbol") or f["symbol"]
                    bound[f["symbol"]] = bound[call] = f
        unit_names = {u.name for u in config.units if any(m.library == library.name for m in u.modules)}
        skipped = {s["name"]: s["reason"] for ir in units if ir["unit"] in unit_names for s in ir["skipped"]}
        for symbol in sorted(exported & bound.keys()):
            if bound[symbol]["cubind_name"] not in cubind:
                problems.append(f"{library.name}: {symbol} is bound as {bound[symbol]['cubind_name']}, "
                                f"which {CUBIND} does not export")
        rest = exported - bound.keys() - skipped.keys()
        roots = include_dirs(config, library)
        where = declared(config, roots, rest)
        listed = {}
        for symbol in sorted(where):
            reason = library.unbound_reason(symbol, where[symbol])
            if reason is None:
                problems.append(f"{library.name}: {symbol} ({path.name} exports it, {', '.join(sorted(where[symbol]))} "
                                "declares it) is neither bound nor listed in the library's `unbound` entries")
            else:
                listed.setdefault(reason, []).append(symbol)
        compared += 1
        print(f"{library.name} ({path}, {what}): {len(exported)} exported; {len(exported & bound.keys())} bound, "
              f"{len(exported & skipped.keys())} skipped by the IR, {sum(map(len, listed.values()))} declared and "
              f"listed unbound, {len(rest) - len(where)} declared by no header")
        for reason, symbols in listed.items():
            print(f"    {len(symbols)} unbound ({', '.join(symbols[:3])}{', ...' if len(symbols) > 3 else ''}): {reason}")
    assert compared, "no configured library was found"
    assert not problems, "\n".join(problems)
