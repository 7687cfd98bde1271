"""CHANGES.md (issue 37 item 4): its newest entry is the version include/cubind/version.h gives, the
entries go from newest to oldest, and the newest says what a caller must change. Run by make
test-docs (pytest -q tests/docs)."""

import re
from pathlib import Path

from test_facts import ROOT, version

ENTRY = re.compile(r"^## (\d+)\.(\d+)\.(\d+)\s*$", re.M)


def entries() -> list[tuple[int, int, int]]:
    return [tuple(map(int, m.groups())) for m in ENTRY.finditer((ROOT / "CHANGES.md").read_text())]  # type: ignore[misc]


def test_the_newest_entry_is_the_version_of_the_headers() -> None:
    found = entries()
    assert found, "CHANGES.md has no entry (## MAJOR.MINOR.PATCH)"
    newest = ".".join(map(str, found[0]))
    assert newest == version(), f"CHANGES.md's newest entry is {newest}; include/cubind/version.h says {version()}"


def test_entries_go_from_newest_to_oldest_once_each() -> None:
    found = entries()
    assert found == sorted(set(found), reverse=True), f"CHANGES.md's entries out of order or repeated: {found}"


def test_the_newest_entry_says_what_a_caller_must_change() -> None:
    text = (ROOT / "CHANGES.md").read_text()
    newest = text[ENTRY.search(text).end():]  # type: ignore[union-attr]
    following = ENTRY.search(newest)
    newest = newest[:following.start()] if following else newest
    missing = [title for title in ("### What a caller must change", "### Added") if title not in newest]
    assert not missing, f"CHANGES.md's newest entry has no {missing}"
