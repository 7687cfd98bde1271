"""Write the generated tree atomically, and compare it with what is on disk."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_tree(root: Path, files: dict[str, str]) -> list[str]:
    """Write every file (each by rename of a complete temporary file) and remove files of
    the managed folders that are no longer produced. Returns the paths that changed."""
    changed = []
    for relative, text in sorted(files.items()):
        path = root / relative
        data = text.encode()
        if path.is_file() and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        changed.append(relative)
    for stale in sorted(set(existing(root)) - set(files)):
        (root / stale).unlink()
        changed.append(stale)
    return changed


def existing(root: Path) -> list[str]:
    """Files currently under root (relative paths), dot-files excluded."""
    if not root.is_dir():
        return []
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def differences(root: Path, files: dict[str, str]) -> list[str]:
    """What differs between root and the files that would be written, one line each."""
    lines = []
    for relative, text in sorted(files.items()):
        path = root / relative
        if not path.is_file():
            lines.append(f"missing: {relative}")
        elif path.read_bytes() != text.encode():
            lines.append(f"differs: {relative}")
    for stale in sorted(set(existing(root)) - set(files)):
        lines.append(f"not generated: {stale}")
    return lines
