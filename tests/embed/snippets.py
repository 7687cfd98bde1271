"""Run the examples of docs/embedding.md exactly as printed, in order, in one directory.

    python3 tests/embed/snippets.py DOC WORKDIR CUBIND_ROOT

Blocks follow a marker comment: `<!-- embed-test: file NAME -->` writes the next fenced block to
WORKDIR/NAME; `<!-- embed-test: run -->` runs it with sh -e in WORKDIR, where `cubind` is a
link to CUBIND_ROOT (the reader's checked-out cubind). Each run's output goes to
WORKDIR/run-<n>.log; the first failing block stops it (exit 1, its output shown). The make
variables of the make running this are not passed on: the examples run as a reader runs them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MARKER = "<!-- embed-test:"


def blocks(text: str) -> list[tuple[str, str]]:
    """(marker argument, block text) for each marked fenced block, in order."""
    found = []
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith(MARKER) and line.endswith("-->"):
            argument = line[len(MARKER):-3].strip()
            i += 1
            if i >= len(lines) or not lines[i].startswith("```"):
                raise SystemExit(f"snippets: {argument!r}: no fenced block right after its marker")
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            found.append((argument, "".join(body)))
        i += 1
    return found


def main() -> int:
    doc, work, root = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]).resolve()
    work.mkdir(parents=True, exist_ok=True)
    link = work / "cubind"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(root)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    runs = 0
    found = blocks(doc.read_text())
    for argument, body in found:
        if argument.startswith("file "):
            (work / argument[len("file "):].strip()).write_text(body)
        elif argument == "run":
            runs += 1
            log = work / f"run-{runs}.log"
            result = subprocess.run(["sh", "-e", "-c", body], cwd=work, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            log.write_text(result.stdout)
            if result.returncode != 0:
                print(f"snippets: {doc}: example {runs} failed (exit {result.returncode}):\n{body}\n{result.stdout}")
                return 1
        else:
            raise SystemExit(f"snippets: unknown marker argument {argument!r}")
    print(f"snippets: {doc}: {len(found) - runs} files written, {runs} examples run in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
