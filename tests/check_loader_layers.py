"""The loader is a one-way stack (docs/loader-internals.md): fail when it is not.

Each loader file says its layer in its opening comment ("Layer 3"). A file may include, and its
object may call, only its own module (the .c and .h of one name) and modules of lower layers:
then no include or call can go round in a circle. Calls are read from the compiled objects
(nm), so that a call made through a header declaring functions of several layers (internal.h,
the public API) is caught too. No file may exceed MAX_LINES lines, and docs/loader-internals.md
names every file.

usage: check_loader_layers.py LOADER_DIR OBJECT_DIR DOC
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

MAX_LINES = 550
LAYER = re.compile(r"\bLayer (\d+)\b")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def opening_comment(text: str) -> str:
    """The first /* ... */ block of a file, or ""."""
    start = text.find("/*")
    end = text.find("*/", start)
    return text[start:end] if start >= 0 and end >= 0 else ""


def nm(path: Path, *options: str) -> set[str]:
    """The symbol names nm lists for an object with `options`."""
    out = subprocess.run(["nm", *options, str(path)], check=True, capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def main(loader_dir: Path, object_dir: Path, doc: Path) -> list[str]:
    errors: list[str] = []
    files = sorted(p for p in loader_dir.iterdir() if p.suffix in (".c", ".h"))
    layers: dict[str, int] = {}  # module (file stem) -> layer
    doc_text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if lines > MAX_LINES:
            errors.append(f"{path}: {lines} lines, more than {MAX_LINES}: split it by concern")
        if f"loader/{path.name}" not in doc_text:
            errors.append(f"{path}: not described in {doc}")
        match = LAYER.search(opening_comment(text))
        if match is None:
            errors.append(f'{path}: its opening comment does not say its layer ("Layer N")')
            continue
        layer = int(match.group(1))
        if layers.setdefault(path.stem, layer) != layer:
            errors.append(f"{path}: layer {layer}, but the other file of {path.stem} says {layers[path.stem]}")

    for path in files:
        own = layers.get(path.stem)
        for name in INCLUDE.findall(path.read_text(encoding="utf-8")):
            other = Path(name).stem
            if not (loader_dir / name).exists() or other == path.stem or own is None or other not in layers:
                continue
            if layers[other] >= own:
                errors.append(f"{path}: layer {own} includes {name} of layer {layers[other]} (only lower layers)")

    defined_in: dict[str, str] = {}  # symbol -> module defining it
    objects = {p.stem: object_dir / f"{p.stem}.o" for p in files if p.suffix == ".c"}
    for module, obj in objects.items():
        if not obj.exists():
            errors.append(f"{obj}: not built")
            continue
        for symbol in nm(obj, "--defined-only", "--extern-only"):
            defined_in[symbol] = module
    for module, obj in objects.items():
        if not obj.exists() or module not in layers:
            continue
        for symbol in sorted(nm(obj, "--undefined-only")):
            other = defined_in.get(symbol)
            if other is not None and other != module and other in layers and layers[other] >= layers[module]:
                errors.append(f"loader/{module}.c: layer {layers[module]} calls {symbol} of loader/{other}.c, "
                              f"layer {layers[other]} (only lower layers)")
    return errors


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    found = main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
    for error in found:
        print(f"check_loader_layers: {error}")
    if found:
        sys.exit(1)
    print(f"check_loader_layers: {sys.argv[1]} is a one-way stack, every file at most {MAX_LINES} lines")
