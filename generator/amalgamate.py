"""The amalgamation: a generated tree (the whole configuration, or a subset) with the loader and
cubind's own headers, as one header and one source that compile alone (`cc -c cubind.c`).

    python3 -m generator amalgamate --tree DIR [--prefix NAME] --out OUTDIR

writes OUTDIR/NAME.h and OUTDIR/NAME.c (NAME: the prefix, else "cubind"). The header is
cubind/cubind.h with every cubind header it includes inlined, once each. The source defines
CUBIND_EMBEDDED (the API hidden: cubind/platform.h), includes every system header its parts
include, makes everything after them hidden (`#pragma GCC visibility`), includes the header and
then each source of the loader and of the tree, with the loader's own headers inlined. A system
header included under a condition (a platform's: <pthread.h>) stays where it is, its declarations
kept out of the hidden region.

What is file-local in one source may be declared in another (each generated source has a static
`trace_enum` and a `struct names`): the names declared at file scope in more than one source are
renamed in each, to <source>__<name>. With a prefix, every identifier of cubind's own
(cubind_*, cubind__*, CUBIND_*) becomes <prefix>_*, <prefix>__*, <PREFIX>_*, so two copies can live
in one linked object. String literals are left as they are: messages, the environment variables a
copy reads (CUBIND_TRACE, CUBIND_<LIB>_PATH) and the names cubind_function_available knows.

Everything is read and rewritten through libclang: a file's tokens (preprocessing directives
included) and, for the file-scope names, its declarations; never by patterns over the text.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci

from .tu import load_libclang

ROOT = Path(__file__).resolve().parent.parent
LOADER = ROOT / "loader"
INCLUDE = ROOT / "include"
# Parsed for their declarations only: the system's headers, not NVIDIA's (cubind's own declare
# every CUDA type), and no warning matters here (the result is compiled with -Werror by its tests).
PARSE_ARGS = ["-x", "c", "-std=c11", "-D_GNU_SOURCE", "-DCUBIND_SELF_CONTAINED"]
CONDITIONALS_OPEN = ("if", "ifdef", "ifndef")


class AmalgamateError(Exception):
    """The tree or a source cannot be amalgamated; the message says why."""


@dataclass(frozen=True)
class Directive:
    """A preprocessing directive: its line (0-based), its name and, for an #include, the target."""
    line: int
    name: str
    target: str | None = None   # "cubind/cufft.h" or "<stddef.h>"
    depth: int = 0              # #if nesting around it
    argument: str | None = None  # the token after the name (the macro of #ifndef, #define)


def _tokens(name: str, text: str) -> list[ci.Token]:
    """The tokens of `text` (directives and inactive code included), lexed by libclang."""
    load_libclang()
    tu = ci.TranslationUnit.from_source(name, args=[*PARSE_ARGS, "-nostdinc"], unsaved_files=[(name, text)],
                                        options=ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
    start = tu.get_location(name, 0)
    end = tu.get_location(name, len(text.encode()))
    return list(tu.get_tokens(extent=ci.SourceRange.from_locations(start, end)))


def directives(name: str, text: str) -> list[Directive]:
    """Every directive of `text` in order, with the #if depth around it."""
    found = []
    depth = 0
    tokens = _tokens(name, text)
    lines = [t.location.line for t in tokens]
    for i, token in enumerate(tokens):
        if token.spelling != "#" or (i > 0 and lines[i - 1] == lines[i]) or i + 1 == len(tokens):
            continue
        line = lines[i]
        end = i + 2
        while end < len(tokens) and lines[end] == line:
            end += 1
        word = tokens[i + 1].spelling
        rest = [t.spelling for t in tokens[i + 2:end]]
        if word == "endif":
            depth -= 1
        target = None
        if word == "include" and rest and rest[0].startswith('"'):
            target = rest[0][1:-1]
        elif word == "include" and "<" in rest[:1] and ">" in rest:
            target = "".join(rest[:rest.index(">") + 1])
        found.append(Directive(line - 1, word, target, depth, rest[0] if rest else None))
        if word in CONDITIONALS_OPEN:
            depth += 1
    return found


def rename(name: str, text: str, names: dict[str, str]) -> str:
    """`text` with every identifier in `names` replaced (a member after `.` or `->` included: a
    renamed struct is renamed with its members' uses)."""
    edits = [(t.extent.start.offset, t.extent.end.offset, names[t.spelling]) for t in _tokens(name, text)
             if t.kind == ci.TokenKind.IDENTIFIER and t.spelling in names]
    return _splice(text, edits)


def prefixed(name: str, text: str, prefix: str) -> str:
    """`text` with cubind's own identifiers under `prefix` (cubind_x -> prefix_x, CUBIND_X -> PREFIX_X)
    and its own headers too (#include "cubind/x.h" -> #include "prefix/x.h")."""
    edits = []
    tokens = _tokens(name, text)
    for i, t in enumerate(tokens):
        if (t.kind == ci.TokenKind.LITERAL and t.spelling.startswith('"cubind/') and i >= 2 and
                tokens[i - 1].spelling == "include" and tokens[i - 2].spelling == "#"):
            edits.append((t.extent.start.offset, t.extent.end.offset, f'"{prefix}/' + t.spelling[len('"cubind/'):]))
        if t.kind != ci.TokenKind.IDENTIFIER:
            continue
        if t.spelling.startswith("cubind_"):
            edits.append((t.extent.start.offset, t.extent.end.offset, prefix + t.spelling[len("cubind"):]))
        elif t.spelling.startswith("CUBIND_"):
            edits.append((t.extent.start.offset, t.extent.end.offset, prefix.upper() + t.spelling[len("CUBIND"):]))
    return _splice(text, edits)


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    data = text.encode()
    out = []
    at = 0
    for start, end, replacement in sorted(edits):
        out.append(data[at:start])
        out.append(replacement.encode())
        at = end
    out.append(data[at:])
    return b"".join(out).decode()


def file_scope_names(path: Path, text: str, include_dirs: list[Path]) -> set[str]:
    """The names `text` declares at file scope itself (not in a header it includes): static
    functions and objects, typedefs, the struct/union/enum tags it defines (nested ones are
    file-scope in C), enumerators and macros."""
    load_libclang()
    name = str(path)
    tu = ci.TranslationUnit.from_source(
        name, args=[*PARSE_ARGS, *(f"-I{d}" for d in include_dirs)], unsaved_files=[(name, text)],
        options=ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES | ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    found: set[str] = set()
    tags = (ci.CursorKind.STRUCT_DECL, ci.CursorKind.UNION_DECL, ci.CursorKind.ENUM_DECL)

    def visit(cursor: ci.Cursor) -> None:
        for child in cursor.get_children():
            if child.location.file is None or child.location.file.name != name:
                continue
            kind = child.kind
            if kind in (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.VAR_DECL):
                if child.storage_class == ci.StorageClass.STATIC:
                    found.add(child.spelling)
            elif kind in (ci.CursorKind.TYPEDEF_DECL, ci.CursorKind.MACRO_DEFINITION, ci.CursorKind.ENUM_CONSTANT_DECL):
                found.add(child.spelling)
            elif kind in tags and child.spelling and child.is_definition():
                found.add(child.spelling)  # a tag only named here (struct x;) is another file's
            if kind in tags:
                visit(child)

    visit(tu.cursor)
    return found


class _Inliner:
    """Resolves quoted #includes: each cubind header or loader header is inlined once."""

    def __init__(self, search: list[Path]):
        self.search = search
        self.seen: set[Path] = set()
        self.system: list[str] = []   # unconditional system includes, in first-seen order

    def find(self, target: str, near: Path) -> Path:
        for directory in (near.parent, *self.search):
            if (directory / target).is_file():
                return (directory / target).resolve()
        raise AmalgamateError(f"{near}: #include \"{target}\" not found in {', '.join(map(str, self.search))}")

    def inline(self, path: Path, text: str | None = None) -> str:
        """`path` with its quoted includes replaced by their text (once) or by nothing (after)."""
        text = path.read_text() if text is None else text
        lines = text.splitlines(keepends=True)
        found = directives(str(path), text)
        # a header's include guard (#ifndef G / #define G first) makes nothing conditional
        guarded = len(found) >= 2 and found[0].name == "ifndef" and found[1].name == "define" and \
            found[0].argument == found[1].argument
        for d in found:  # in order: a header is inlined where first included
            if d.name != "include" or d.target is None:
                continue
            if d.target.startswith("<"):
                if d.depth == int(guarded):
                    if d.target not in self.system:
                        self.system.append(d.target)
                else:  # under a condition (a platform's header): kept in place, its declarations not hidden
                    lines[d.line] = ("#if defined(__GNUC__) || defined(__clang__)\n#pragma GCC visibility push(default)\n"
                                     f"#endif\n{lines[d.line]}#if defined(__GNUC__) || defined(__clang__)\n"
                                     "#pragma GCC visibility pop\n#endif\n")
                continue
            header = self.find(d.target, path)
            if header in self.seen:
                lines[d.line] = ""
                continue
            self.seen.add(header)
            shown = _shown(header)
            lines[d.line] = f"/* ---- {shown} ---- */\n{self.inline(header)}/* ---- end of {shown} ---- */\n"
        return "".join(lines)


def _shown(path: Path) -> str:
    """How the banners name a file: from the repository's root, or a tree's file from the tree
    (<tree>/src/cufft.c as src/cufft.c)."""
    if path.is_relative_to(ROOT):
        return str(path.relative_to(ROOT))
    for part in ("include", "src"):
        if part in path.parts:
            at = len(path.parts) - 1 - path.parts[::-1].index(part)
            return str(Path(*path.parts[at:]))
    return path.name


def _local_renames(sources: list[tuple[Path, str]], include_dirs: list[Path]) -> dict[Path, dict[str, str]]:
    """For each source, the names it declares at file scope that another source declares too."""
    declared = {path: file_scope_names(path, text, include_dirs) for path, text in sources}
    counts = Counter(n for names in declared.values() for n in names)
    renames = {}
    for path, names in declared.items():
        stem = path.stem.replace("-", "_")
        renames[path] = {n: f"{stem}__{n}" for n in names if counts[n] > 1 and n != "_GNU_SOURCE"}
    return renames


def _stamp(tree: Path, prefix: str | None) -> str:
    """What the files hold and how to make them again (the tree's libraries: its build.mk)."""
    built = next((line.split(":=", 1)[1].strip() for line in (tree / "build.mk").read_text().splitlines()
                  if line.startswith("CUBIND_LIBRARIES :=")), "?")
    command = f"make amalgamation LIBRARIES=\"{built}\"" + (f" API_PREFIX={prefix}" if prefix else "")
    return (f"\n *\n * The libraries: {built}. Generated from cubind's sources and a generated tree; do not edit:"
            f"\n * regenerate with\n *     {command}")


def amalgamate(tree: Path, prefix: str | None = None) -> dict[str, str]:
    """{"<name>.h": text, "<name>.c": text} for the generated tree `tree`."""
    if not (tree / "src" / "libraries.c").is_file() or not (tree / "build.mk").is_file():
        raise AmalgamateError(f"{tree} is not a generated tree (no src/libraries.c or build.mk)")
    name = prefix or "cubind"
    stamp = _stamp(tree, prefix)
    search = [tree / "include", INCLUDE, LOADER, tree / "src"]
    inliner = _Inliner(search)
    header_path = inliner.find("cubind/cubind.h", INCLUDE / "cubind" / "cubind.h")
    inliner.seen.add(header_path)
    header_body = inliner.inline(header_path)
    guard = f"{name.upper()}_AMALGAMATION_H"
    header = (f"/*\n * {name}.h - cubind as one header (with {name}.c){stamp}\n */\n"
              f"#ifndef {guard}\n#define {guard}\n\n{header_body}\n#endif /* {guard} */\n")

    sources = [(p, p.read_text()) for p in sorted(LOADER.glob("*.c")) + sorted((tree / "src").glob("*.c"))]
    renames = _local_renames(sources, [tree / "include", INCLUDE, LOADER, tree / "src"])
    parts = []
    for path, text in sources:
        if renames[path]:
            text = rename(str(path), text, renames[path])
        parts.append(f"/* ==== {_shown(path)} ==== */\n{inliner.inline(path, text)}")
    system = "".join(f"#include {h}\n" for h in inliner.system)
    source = (f"/*\n * {name}.c - cubind as one source (with {name}.h){stamp}\n *\n"
              " * Compile it alone (cc -c, C11); link -ldl -lpthread. Its symbols are hidden: a shared\n"
              f" * library that links it exports none of them (define {name.upper()}_API to choose otherwise).\n */\n"
              "#define _GNU_SOURCE\n#if !defined(CUBIND_EMBEDDED)\n#define CUBIND_EMBEDDED 1\n#endif\n"
              f"{system}\n"
              "/* Everything below is hidden: the loader's internals are not exported either. */\n"
              "#if defined(__GNUC__) || defined(__clang__)\n#pragma GCC visibility push(hidden)\n#endif\n\n"
              f"#include \"{name}.h\"\n\n" + "\n".join(parts) +
              "\n#if defined(__GNUC__) || defined(__clang__)\n#pragma GCC visibility pop\n#endif\n")
    if prefix:
        header = prefixed(f"{name}.h", header, prefix)
        source = prefixed(f"{name}.c", source, prefix)
    return {f"{name}.h": header, f"{name}.c": source}


# What a prefixed tree holds besides the generated files (prefixed_tree): the loader, cubind's own
# headers, the passthrough tests' own sources and the recorder of the mocks, and the version script.
TREE_SOURCES = {
    "loader": [(p, p.name) for p in sorted(LOADER.glob("*.[ch]"))],
    "include/cubind": [(p, p.name) for p in sorted((INCLUDE / "cubind").glob("*.h"))],
    "support": [(ROOT / "tests" / n, n) for n in ("passthrough_main.c", "passthrough.h")] +
               [(ROOT / "tests" / "mock" / n, n) for n in ("recorder.c", "recorder.h", "names.h")],
    "abi": [(ROOT / "abi" / "libcubind.map", "libcubind.map")],
}


def prefixed_tree(files: dict[str, str], prefix: str) -> dict[str, str]:
    """A generated tree (path -> text) whose identifiers of cubind's own are all under `prefix`, with
    cubind's sources it needs to build and test on its own (TREE_SOURCES) under it too: every C
    source and header, and the version script, through prefixed() (the amalgamation's renaming);
    include/cubind/ becomes include/<prefix>/, and build.mk says CUBIND_PREFIX (the Makefile builds
    such a tree from its own loader). Strings are left as they are, as in the amalgamation."""
    out: dict[str, str] = {}
    every = dict(files)
    for folder, sources in TREE_SOURCES.items():
        for path, name in sources:
            every[f"{folder}/{name}"] = path.read_text()
    for path, text in every.items():
        if path.startswith("rust/"):
            continue  # the Rust crate declares cubind_*: it is cubind's, not a prefixed copy's
        if path.endswith((".c", ".h", ".map")):
            text = prefixed(path, text, prefix)
        if path.startswith("include/cubind/"):
            path = f"include/{prefix}/" + path[len("include/cubind/"):]
        out[path] = text
    out["build.mk"] = every["build.mk"] + (f"# Every identifier of cubind's own is {prefix}_* ({prefix.upper()}_*): the tree "
                                          f"holds its own loader and headers\n# (make generate API_PREFIX={prefix}).\n"
                                          f"CUBIND_PREFIX := {prefix}\n")
    return out
