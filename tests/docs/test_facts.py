"""Facts the build knows, as README.md and docs/ state them (issue 27, item 6): the version in
libcubind's file name, how many libraries cubind binds, every library's CUBIND_<LIB>_PATH, and no
page called "coming" that exists. Each is read from the configuration or the headers, never
restated here. Run by make test-docs (pytest -q tests/docs)."""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from generator import config  # noqa: E402  (the libraries come from the configuration)

LIBRARIES = config.load().libraries
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def version() -> str:
    text = (ROOT / "include" / "cubind" / "version.h").read_text()
    return ".".join(re.search(rf"#define CUBIND_VERSION_{part} (\d+)", text).group(1)  # type: ignore[union-attr]
                    for part in ("MAJOR", "MINOR", "PATCH"))


def occurrences(pattern: str) -> list[tuple[str, str]]:
    """(page:line, the first group) of every match of `pattern` in the pages."""
    found = []
    for page in PAGES:
        for number, line in enumerate(page.read_text().splitlines(), 1):
            found += [(f"{page.relative_to(ROOT)}:{number}", m.group(1)) for m in re.finditer(pattern, line)]
    return found


def test_libcubind_file_names_carry_this_version() -> None:
    wrong = [(where, v) for where, v in occurrences(r"libcubind\.so\.(\d+\.\d+\.\d+)") if v != version()]
    assert not wrong, f"libcubind.so.{version()} is this version: {wrong}"


def test_the_count_of_bound_libraries_is_the_configurations() -> None:
    counts = occurrences(r"the (\d+) cubind binds") + occurrences(r'"CUBIND_LIBRARY_COUNT": (\d+)')
    assert counts, "no page states the count: the test would check nothing"
    wrong = [(where, n) for where, n in counts if int(n) != len(LIBRARIES)]
    assert not wrong, f"cubind binds {len(LIBRARIES)} libraries: {wrong}"


def test_the_loader_page_names_every_path_variable() -> None:
    text = (ROOT / "docs" / "loader.md").read_text()
    missing = [lib.env_var for lib in LIBRARIES if f"`{lib.env_var}`" not in text]
    assert not missing, f"docs/loader.md does not name {missing}"


def test_no_page_that_exists_is_coming() -> None:
    coming = [(where, page) for where, page in occurrences(r"`docs/([\w-]+\.md)`, coming") if (ROOT / "docs" / page).exists()]
    assert not coming, coming
