"""The loader is a one-way stack on a platform seam (docs/loader-internals.md): fail when it is not.

Each loader file says its layer in its opening comment ("Layer 3"). A file may include, and its
object may call, only its own module (the .c and .h of one name) and modules of lower layers:
then no include or call can go round in a circle. The platform seam is one module at layer 0:
platform.h and the files of its implementations (platform_*.c, platform_*.h). Calls are read from
the compiled objects (nm), so that a call made through a header declaring functions of several
layers (internal.h, the public API) is caught too.

The platform stays behind the seam: only the seam's files include a platform header (PLATFORM_HEADERS)
or call the dynamic loader, the threads library or the unwinder (PLATFORM_CALLS, read from the
objects), and at most MAX_DLOPEN_FILES objects call dlopen. docs/loader-internals.md names every
file. A file longer than LONG_FILE lines is reported, not refused: a line count is a smell to look
at, not a reason to split a file that has one purpose.

usage: check_loader_layers.py LOADER_DIR OBJECT_DIR DOC
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

LONG_FILE = 600
LAYER = re.compile(r"\bLayer (\d+)\b")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
SYSTEM_INCLUDE = re.compile(r"^\s*#\s*include\s+<([^>]+)>", re.MULTILINE)
SEAM = "platform"
# The headers of the platform: the dynamic loader, threads, ELF, the unwinder, processes, Win32.
PLATFORM_HEADERS = frozenset({"dlfcn.h", "link.h", "elf.h", "pthread.h", "unwind.h", "sys/wait.h", "poll.h",
                              "signal.h", "sys/syscall.h", "windows.h", "psapi.h"})
# Functions of those a loader object calls only behind the seam (a prefix ends with "_").
PLATFORM_CALLS = ("dlopen", "dlmopen", "dlsym", "dlvsym", "dlclose", "dlerror", "dladdr", "dladdr1", "dlinfo",
                  "dl_iterate_phdr", "pthread_", "secure_getenv", "__cxa_atexit", "_Unwind_", "fork", "waitpid",
                  "syscall")
MAX_DLOPEN_FILES = 2


def module_of(stem: str) -> str:
    """The module a file belongs to: its stem, or the platform seam for platform.h and platform_*."""
    return SEAM if stem == SEAM or stem.startswith(SEAM + "_") else stem


def opening_comment(text: str) -> str:
    """The first /* ... */ block of a file, or ""."""
    start = text.find("/*")
    end = text.find("*/", start)
    return text[start:end] if start >= 0 and end >= 0 else ""


def nm(path: Path, *options: str) -> set[str]:
    """The symbol names nm lists for an object with `options` (without a version: dlsym@GLIBC_2.34)."""
    out = subprocess.run(["nm", *options, str(path)], check=True, capture_output=True, text=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def platform_call(symbol: str) -> bool:
    return any(symbol.startswith(c) if c.endswith("_") else symbol == c for c in PLATFORM_CALLS)


def main(loader_dir: Path, object_dir: Path, doc: Path) -> tuple[list[str], list[str]]:
    """(errors, notes)"""
    errors: list[str] = []
    notes: list[str] = []
    files = sorted(p for p in loader_dir.iterdir() if p.suffix in (".c", ".h"))
    layers: dict[str, int] = {}  # module -> layer
    doc_text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if lines > LONG_FILE:
            notes.append(f"{path}: {lines} lines (more than {LONG_FILE}): has it one purpose still?")
        if f"loader/{path.name}" not in doc_text:
            errors.append(f"{path}: not described in {doc}")
        match = LAYER.search(opening_comment(text))
        if match is None:
            errors.append(f'{path}: its opening comment does not say its layer ("Layer N")')
            continue
        layer = int(match.group(1))
        module = module_of(path.stem)
        if layers.setdefault(module, layer) != layer:
            errors.append(f"{path}: layer {layer}, but another file of {module} says {layers[module]}")
        if module != SEAM:
            for header in SYSTEM_INCLUDE.findall(text):
                if header in PLATFORM_HEADERS:
                    errors.append(f"{path}: includes <{header}>, a platform header: only the platform seam's files "
                                  f"(platform.h, platform_*) may")
    if layers.get(SEAM, 0) != 0:
        errors.append(f"the platform seam is at layer {layers[SEAM]}, not 0: everything may call it")

    for path in files:
        own = layers.get(module_of(path.stem))
        for name in INCLUDE.findall(path.read_text(encoding="utf-8")):
            other = module_of(Path(name).stem)
            if not (loader_dir / name).exists() or other == module_of(path.stem) or own is None or other not in layers:
                continue
            if layers[other] >= own:
                errors.append(f"{path}: layer {own} includes {name} of layer {layers[other]} (only lower layers)")

    defined_in: dict[str, str] = {}  # symbol -> module defining it
    objects = {p.stem: object_dir / f"{p.stem}.o" for p in files if p.suffix == ".c"}
    undefined: dict[str, set[str]] = {}
    for stem, obj in objects.items():
        if not obj.exists():
            errors.append(f"{obj}: not built")
            continue
        for symbol in nm(obj, "--defined-only", "--extern-only"):
            defined_in[symbol] = module_of(stem)
        undefined[stem] = nm(obj, "--undefined-only")
    dlopen_files = sorted(f"loader/{stem}.c" for stem, symbols in undefined.items() if symbols & {"dlopen", "dlmopen"})
    if len(dlopen_files) > MAX_DLOPEN_FILES:
        errors.append(f"{len(dlopen_files)} files call dlopen ({', '.join(dlopen_files)}): at most {MAX_DLOPEN_FILES}, "
                      f"behind the platform seam")
    for stem, symbols in undefined.items():
        module = module_of(stem)
        if module not in layers:
            continue
        for symbol in sorted(symbols):
            if module != SEAM and platform_call(symbol):
                errors.append(f"loader/{stem}.c calls {symbol}, a function of the platform: only through the "
                              f"platform seam (loader/platform.h)")
            other = defined_in.get(symbol)
            if other is not None and other != module and other in layers and layers[other] >= layers[module]:
                errors.append(f"loader/{stem}.c: layer {layers[module]} calls {symbol} of {other}, "
                              f"layer {layers[other]} (only lower layers)")
    notes.append(f"files that call dlopen: {', '.join(dlopen_files) or 'none'}")
    return errors, notes


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    found, said = main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
    for note in said:
        print(f"check_loader_layers: {note}")
    for error in found:
        print(f"check_loader_layers: {error}")
    if found:
        sys.exit(1)
    print(f"check_loader_layers: {sys.argv[1]} is a one-way stack on its platform seam")
