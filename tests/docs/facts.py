"""The facts of the build that README.md and docs/ state in prose, and where they state them.

A page writes a fact of the build between markers that name it, on one line:

    every one of the <!-- fact: wrappers -->3,459<!-- /fact --> functions
    cubind binds <!-- fact: library-list -->cuBLAS, cuBLASLt, ... and cuFile<!-- /fact -->

(HTML comments: a reader of the rendered page sees the text alone; a list may span lines). tests/docs/test_facts.py
compares each with the value computed here from the configuration, the IR, the drop-in's version
script and include/cubind/version.h, and finds the numbers, versions and library lists the pages
state without a marker. `python3 tests/docs/facts.py --write PAGE...` (make doc-facts) writes the
values into the markers: a fact is generated, never typed.

    number facts   libraries, wrappers, exports, modules, units (the IR's), releases-read, cplusplus-only (functions
                   NVIDIA declares for C++ only), functions-<library> (one library's wrappers):
                   digits ("3,459", in the form the page uses: with or without the thousands comma)
                   or an English word ("nineteen") as the page writes it
    text facts     version, series, node, dropin-node, generator-version, link-flags (-l of every
                   library's file), library-names (every library's cubind name, in id order)
    list facts     library-list (names every bound library), release-list (every release read):
                   checked, not written (the prose around the names is the page's)
    measured       a number that is a measurement of its own (a test's count on some machine):
                   marked so that the scan leaves it, never compared
    some-libraries a list that names some of the libraries on purpose (those a release's packages
                   hold, a table another test checks against the IR): the scan leaves it, never compared
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from generator import VERSION as GENERATOR_VERSION  # noqa: E402
from generator import config  # noqa: E402

MARKER = re.compile(r"<!-- fact: (?P<name>[\w-]+) -->(?P<value>.*?)<!-- /fact -->", re.S)
WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen twenty").split()
ORDINALS = ("zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
            "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split()
NUMBER_FACTS = ("libraries", "wrappers", "exports", "modules", "units", "releases-read", "cplusplus-only") + tuple(
    f"functions-{library.name}" for library in config.load().libraries)
TEXT_FACTS = ("version", "series", "node", "dropin-node", "generator-version", "link-flags", "library-names")
LIST_FACTS = ("library-list", "release-list")
MEASURED = "measured"
SOME_LIBRARIES = "some-libraries"


def version() -> str:
    text = (ROOT / "include" / "cubind" / "version.h").read_text()
    return ".".join(re.search(rf"#define CUBIND_VERSION_{part} (\d+)", text).group(1)  # type: ignore[union-attr]
                    for part in ("MAJOR", "MINOR", "PATCH"))


def series() -> str:
    """What a 0.x release is compatible within (MAJOR.MINOR), MAJOR from 1.0 on (docs/install.md)."""
    major, minor, _ = version().split(".")
    return f"{major}.{minor}" if major == "0" else major


def ir_units() -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted((ROOT / "generated" / "ir").glob("*.json"))]


def releases_read() -> list[str]:
    """Every CUDA release the bindings read, newest first: the IR's own and the configured older ones."""
    newest = {unit["cuda_version"] for unit in ir_units()}
    names = newest | {release.name for release in config.load().releases}
    return sorted(names, key=lambda name: tuple(map(int, name.split("."))), reverse=True)


def library_names() -> list[str]:
    return [library.name for library in config.load().libraries]


def values() -> dict[str, str]:
    """Every number and text fact, as computed from the build's sources."""
    units = ir_units()
    dropin_map = (ROOT / "generated" / "dropin" / "libcubind-dropin.map.in").read_text()
    libraries = config.load().libraries
    return {
        "libraries": str(len(libraries)),
        "wrappers": str(sum(len(unit["functions"]) for unit in units)),
        "exports": str(len(re.findall(r"^\s+\w+;$", dropin_map, re.M))),
        "modules": str(len({function["module"] for unit in units for function in unit["functions"]})),
        "units": str(len(units)),
        "releases-read": str(len(releases_read())),
        "cplusplus-only": str(sum(1 for unit in units for function in unit["functions"] if function.get("cplusplus_only"))),
        **{f"functions-{library.name}": str(sum(1 for unit in units for function in unit["functions"]
                                                if function["library"] == library.name)) for library in libraries},
        "version": version(),
        "series": series(),
        "node": f"CUBIND_{series()}",
        "dropin-node": f"CUBIND_DROPIN_{series()}",
        "generator-version": GENERATOR_VERSION,
        "link-flags": " ".join(f"-l{library.file_stem[3:]}" for library in libraries),
        "library-names": ", ".join(library.name for library in libraries),
    }


def as_written(value: str, written: str) -> str:
    """`value` (a number) in the form `written` uses: English word, digits with or without commas."""
    number = int(value)
    stripped = written.strip("*")
    bold = "**" if written.startswith("**") else ""
    if stripped.isalpha():
        text = (ORDINALS if stripped.lower() in ORDINALS else WORDS)[number] if number < len(WORDS) else str(number)
        text = text.capitalize() if stripped[0].isupper() else text
    else:
        text = f"{number:,}" if "," in stripped or (number >= 10000) else str(number)
    return f"{bold}{text}{bold}"


def number_of(written: str) -> int | None:
    text = written.strip("*").lower()
    if text in WORDS:
        return WORDS.index(text)
    if text in ORDINALS:
        return ORDINALS.index(text)
    return int(text.replace(",", "")) if re.fullmatch(r"\d[\d,]*", text) else None


def normalized_names(text: str) -> set[str]:
    return {word.lower() for word in re.findall(r"[A-Za-z][A-Za-z0-9]*", text)}


def check(name: str, written: str, facts: dict[str, str]) -> str | None:
    """Why `written`, marked as fact `name`, is wrong; None when it is right."""
    if name in (MEASURED, SOME_LIBRARIES):
        return None
    if name in NUMBER_FACTS:
        return None if number_of(written) == int(facts[name]) else f"{name} is {facts[name]}, not {written}"
    if name in TEXT_FACTS:
        return None if " ".join(written.strip("`").split()) == facts[name] else f"{name} is {facts[name]}, not {written}"
    if name == "library-list":
        missing = [lib for lib in library_names() if lib.lower() not in normalized_names(written)]
        return f"library-list does not name {missing}" if missing else None
    if name == "release-list":
        missing = [release for release in releases_read() if not re.search(rf"\b{re.escape(release)}(\.\d+)?\b", written)]
        return f"release-list does not name {missing}" if missing else None
    return f"no fact is called {name!r} (known: {', '.join(NUMBER_FACTS + TEXT_FACTS + LIST_FACTS + (MEASURED, SOME_LIBRARIES))})"


def write(page: Path, facts: dict[str, str]) -> bool:
    """Writes each number and text fact's value into its markers; whether the page changed."""
    def value(match: re.Match[str]) -> str:
        name, written = match["name"], match["value"]
        if name in NUMBER_FACTS:
            written = as_written(facts[name], written)
        elif name in TEXT_FACTS:
            written = f"`{facts[name]}`" if written.startswith("`") else facts[name]
        return f"<!-- fact: {name} -->{written}<!-- /fact -->"

    text = page.read_text()
    new = MARKER.sub(value, text)
    if new != text:
        page.write_text(new)
    return new != text


def main() -> int:
    if len(sys.argv) < 3 or sys.argv[1] != "--write":
        print(__doc__)
        return 2
    facts = values()
    for page in map(Path, sys.argv[2:]):
        if write(page, facts):
            print(f"doc-facts: {page} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
