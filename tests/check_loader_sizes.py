"""A loader file includes what it uses (docs/loader-internals.md): fail when the median loader file,
preprocessed, is over MAX_MEDIAN lines, or a loader file includes a header of the generated API.

Each loader/*.c is preprocessed with the compiler and flags given (those of the library's build), its
lines counted; the counts are printed, smallest first, with their median. A loader file may include,
of cubind's public headers, only the hand-written ones (include/cubind/, not cubind.h, which includes
every module) and the generated library enum (cubind/libraries.h): never a module's header.

usage: check_loader_sizes.py LOADER_DIR PUBLIC_INCLUDE_DIR -- CC [FLAGS...]
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
from pathlib import Path

MAX_MEDIAN = 6000
INCLUDE = re.compile(r'^\s*#\s*include\s+"cubind/([^"]+)"', re.MULTILINE)
ALLOWED_GENERATED = frozenset({"libraries.h"})


def preprocessed_lines(source: Path, command: list[str]) -> int:
    out = subprocess.run([*command, "-E", str(source)], check=True, capture_output=True, text=True).stdout
    return out.count("\n")


def main(loader_dir: Path, public: Path, command: list[str]) -> list[str]:
    errors = []
    allowed = {p.name for p in public.glob("*.h")} - {"cubind.h"} | ALLOWED_GENERATED
    for path in sorted(loader_dir.glob("*.[ch]")):
        for header in INCLUDE.findall(path.read_text(encoding="utf-8")):
            if header not in allowed:
                errors.append(f"{path}: includes cubind/{header}, part of the generated API: include what it uses "
                              f"(cubind/core.h, tables.h, internal.h)")
    counts = sorted((preprocessed_lines(p, command), p.name) for p in loader_dir.glob("*.c"))
    for lines, name in counts:
        print(f"check_loader_sizes: {lines:6d} {name}")
    median = statistics.median(lines for lines, _ in counts)
    print(f"check_loader_sizes: median of {len(counts)} loader files preprocessed: {median:g} lines "
          f"(at most {MAX_MEDIAN})")
    if median > MAX_MEDIAN:
        errors.append(f"the median loader file is {median:g} lines preprocessed, more than {MAX_MEDIAN}: a loader file "
                      f"includes more than it uses")
    return errors


if __name__ == "__main__":
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit(__doc__)
    found = main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[4:])
    for error in found:
        print(f"check_loader_sizes: {error}")
    sys.exit(1 if found else 0)
