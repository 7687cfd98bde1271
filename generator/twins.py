"""The examples' twins with NVIDIA's names (docs/dropin.md, "The examples with NVIDIA's names"):
each file of examples/ written with cubind's names, rewritten as a program written for NVIDIA's
headers writes it, for the drop-in to link: generated/examples/nvidia/<file>.

The rewriting is mechanical and driven by the IR, through libclang's tokens (directives and
comments included; never patterns over the text):
- every cubind wrapper (`cubind_cublas_sgemm`) becomes the name NVIDIA's header gives the function
  the drop-in forwards for it (`cublasSgemm`, which cublas_v2.h maps to the exported
  `cublasSgemm_v2`), in code, comments and string literals alike;
- every `#include "cubind/<module>.h"` becomes the NVIDIA headers that module stands for (its
  counterpart: `cubind/cufft.h` -> <cufft.h>, <cufftXt.h>), and a wrapper may only be used by a
  file that includes its module's header itself, so that its twin includes NVIDIA's;
- the file's header comment becomes one saying where the twin comes from.

What has no NVIDIA counterpart (cubind's error record, cubind_last_error, the umbrella
cubind/cubind.h) stays out of the examples' own code: it is in examples/check.h, whose twin,
examples/nvidia/check.h, is written by hand (a file of examples/nvidia/ is never generated). Any
other name of cubind's (an identifier, or a word of a comment or a string, beginning with
"cubind") makes the generation fail, naming the file, the line and the name. A file that names
nothing of cubind (examples/common/launcher.c) is its own twin: it is not copied.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci
import jinja2

from .amalgamate import _splice, _tokens
from .model import Model

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = "examples"
TWINS = "examples/nvidia"      # the hand-written twins, and the generated ones' folder under generated/
SUFFIXES = (".c", ".h")
# The examples' own macros (include guards CUBIND_EXAMPLES_*_H, the build's CUBIND_EXAMPLE_MPI):
# spelled like cubind's, but theirs, and the same in the twin.
OWN_MACRO_PREFIX = "CUBIND_EXAMPLE"


class TwinError(ValueError):
    """An example cannot be renamed mechanically; the message names the file, line and name."""


@dataclass(frozen=True)
class Names:
    """What the renaming knows, from the IR: the wrappers the drop-in forwards for, and the NVIDIA
    headers each cubind module header stands for."""
    functions: dict[str, str]        # cubind_cublas_sgemm -> cublasSgemm
    modules: dict[str, str]          # cubind_cublas_sgemm -> cublas
    headers: dict[str, list[str]]    # cublas -> [cublas_v2.h]


def names_of(model: Model) -> Names:
    """The drop-in's functions (those of templates/dropin.c.j2: every library's) and each module's
    NVIDIA counterpart (without the unit's inline_headers, which cuda_runtime.h includes for C++)."""
    functions = {f["cubind_name"]: f["name"] for lib in model.libraries for f in lib.functions}
    modules = {f["cubind_name"]: f["module"] for lib in model.libraries for f in lib.functions}
    headers = {m.module.name: [h for h in m.counterpart if h not in model.config.unit(m.unit).inline_headers]
               for m in model.modules}
    return Names(functions, modules, headers)


def sources(root: Path = ROOT) -> list[str]:
    """The files of examples/ and its sub-folders (relative to root) that may have a twin: C sources
    and headers, not examples/nvidia/'s, not those that have a hand-written twin there."""
    base = root / EXAMPLES
    found = []
    for path in sorted(base.rglob("*")):
        relative = path.relative_to(base)
        if path.suffix not in SUFFIXES or not path.is_file() or relative.parts[0] == "nvidia":
            continue
        if (root / TWINS / relative).exists():
            continue
        found.append(relative.as_posix())
    return found


def render(env: jinja2.Environment, model: Model, common: dict, root: Path = ROOT) -> dict[str, str]:
    """examples/nvidia/<file> for every file of examples/ that names something of cubind's."""
    names = names_of(model)
    out = {}
    for relative in sources(root):
        text = (root / EXAMPLES / relative).read_text()
        twin = rewrite(f"{EXAMPLES}/{relative}", text, names, env.get_template("example_twin.c.j2"), common)
        if twin is not None:
            out[f"{TWINS}/{relative}"] = twin
    return out


def _is_word_byte(c: int, first: bool) -> bool:
    """An ASCII letter or underscore, or (not first) a digit: a byte of a C identifier."""
    return c < 128 and (chr(c).isalpha() or c == ord("_") or (not first and chr(c).isdigit()))


def _words(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each identifier-like word of a comment's or a string's bytes (a number's
    letters, 0x1f, are not one)."""
    words = []
    i = 0
    while i < len(data):
        if not _is_word_byte(data[i], first=False):
            i += 1
            continue
        j = i + 1
        while j < len(data) and _is_word_byte(data[j], first=False):
            j += 1
        if _is_word_byte(data[i], first=True):
            words.append((i, j))
        i = j
    return words


def _cubind_like(word: str) -> bool:
    return word.lower().startswith("cubind") and not word.startswith(OWN_MACRO_PREFIX)


def rewrite(name: str, text: str, names: Names, header: jinja2.Template, common: dict) -> str | None:
    """The twin of example `name` (its path under the repository, `text` its contents), or None
    when it names nothing of cubind's. Raises TwinError for what cannot be renamed."""
    tokens = _tokens(name, text)
    lines = [t.location.line for t in tokens]
    edits: list[tuple[int, int, str]] = []
    included: set[str] = set()          # the modules whose cubind header the file includes
    used: dict[str, tuple[str, int]] = {}  # module -> (a wrapper of it, its line)
    touched = False
    # cubind named in a comment or a string: wrong in a twin, harmless in a file that is its own
    mentions: list[TwinError] = []

    def fail(line: int, what: str) -> TwinError:
        return TwinError(f"{name}:{line}: {what}")

    def rename_words(token: ci.Token) -> None:
        nonlocal touched
        data = token.spelling.encode()
        start = token.extent.start.offset
        for a, b in _words(data):
            word = data[a:b].decode()
            if word in names.functions:
                edits.append((start + a, start + b, names.functions[word]))
                touched = True
            elif _cubind_like(word) and not mentions:
                mentions.append(fail(token.location.line + data[:a].count(b"\n"),
                                     f"{word!r} names cubind, which the twin with NVIDIA's names does not use: "
                                     "say it in the file's header comment or in check.h"))

    i = 0
    while i < len(tokens):
        token = tokens[i]
        starts_line = i == 0 or lines[i - 1] != lines[i]
        if token.kind == ci.TokenKind.COMMENT and token.extent.start.offset == 0:
            # the header comment: replaced below, once the file is known to have a twin
            i += 1
            continue
        if token.spelling == "#" and starts_line and i + 1 < len(tokens) and tokens[i + 1].spelling == "include":
            end = i + 2
            while end < len(tokens) and lines[end] == lines[i] and tokens[end].kind != ci.TokenKind.COMMENT:
                end += 1
            rest = tokens[i + 2:end]
            target = (rest[0].spelling[1:-1] if rest and rest[0].kind == ci.TokenKind.LITERAL
                      else "".join(t.spelling for t in rest[1:-1]) if rest and rest[0].spelling == "<" else "")
            if target.startswith("cubind/"):
                module = target[len("cubind/"):].removesuffix(".h")
                if module not in names.headers:
                    raise fail(lines[i], f"#include of {target}, which stands for no one module's NVIDIA headers: "
                                         "include the module headers whose functions the file calls "
                                         f"({', '.join('cubind/' + m + '.h' for m in sorted(names.headers)[:3])}, ...)")
                included.add(module)
                replacement = "\n".join(f"#include <{h}>" for h in names.headers[module])
                edits.append((token.extent.start.offset, rest[-1].extent.end.offset, replacement))
                touched = True
                i = end
                continue
        if token.kind == ci.TokenKind.IDENTIFIER:
            if token.spelling in names.functions:
                edits.append((token.extent.start.offset, token.extent.end.offset, names.functions[token.spelling]))
                used.setdefault(names.modules[token.spelling], (token.spelling, lines[i]))
                touched = True
            elif _cubind_like(token.spelling):
                raise fail(lines[i], f"{token.spelling} has no NVIDIA counterpart (it is not a wrapper the drop-in "
                                     "forwards for): confine it to check.h, whose twin examples/nvidia/check.h is "
                                     "written by hand")
        elif token.kind in (ci.TokenKind.COMMENT, ci.TokenKind.LITERAL):
            rename_words(token)
        i += 1

    for module, (wrapper, line) in sorted(used.items()):
        if module not in included:
            raise fail(line, f"{wrapper} is of cubind/{module}.h, which the file does not include itself: "
                             f"include it, and its twin includes {', '.join(names.headers[module])}")
    if not touched:
        return None
    if mentions:
        raise mentions[0]
    first = tokens[0] if tokens else None
    heading = header.render(common | {"twin": f"{TWINS}/{name.removeprefix(EXAMPLES + '/')}", "source": name})
    if first is not None and first.kind == ci.TokenKind.COMMENT and first.extent.start.offset == 0:
        edits.append((0, first.extent.end.offset, heading.rstrip("\n")))
    else:
        edits.append((0, 0, heading))
    return _splice(text, edits)
