"""The API reference (generated/docs/api/<module>.md) says, for every wrapper, whether the
toolkit's library exports its symbol: the generator read that from the ELF files of
$CUDA_PATH/lib64. It must be what cubind-probe finds when it loads the same files.

Needs the built probe, like test_probe.py; libraries the probe does not find in the
toolkit (another copy, or none) are not compared.
"""

import json
import os
import re
from pathlib import Path

from test_probe import ROOT, probe

CUDA = Path(os.environ.get("CUDA_PATH", "/usr/local/cuda")).resolve()
DOCS = ROOT / "generated" / "docs" / "api"
ROW = re.compile(r"^\| \[`cubind_\w+`\]\(#cubind_\w+\) \| `(\w+)` \| `\w+` \| (yes|\*\*no\*\*|\?) \|$")
LIBRARY = re.compile(r"^Module `\w+` of library `(\w+)`")


def documented() -> dict[str, dict[str, bool | None]]:
    """library -> C API name -> exported (None: unknown)."""
    result: dict[str, dict[str, bool | None]] = {}
    for page in sorted(DOCS.glob("*.md")):
        if page.name == "README.md":
            continue
        library = None
        for line in page.read_text().splitlines():
            if m := LIBRARY.match(line):
                library = m.group(1)
            elif m := ROW.match(line):
                assert library is not None, f"{page.name}: a wrapper row before the library line"
                result.setdefault(library, {})[m.group(1)] = {"yes": True, "**no**": False, "?": None}[m.group(2)]
    return result


def test_reference_agrees_with_the_probe() -> None:
    docs = documented()
    report = json.loads(probe("--json").stdout)
    compared = 0
    for lib in report["libraries"]:
        assert lib["name"] in docs, f"no API reference page for {lib['name']}"
        if not lib["found"] or not Path(lib["path"]).resolve().is_relative_to(CUDA):
            continue
        documented_missing = {name for name, exported in docs[lib["name"]].items() if exported is False}
        assert None not in docs[lib["name"]].values(), f"{lib['name']}: the reference does not know; make generate"
        assert documented_missing == set(lib["missing"]), lib["name"]
        assert len(docs[lib["name"]]) == lib["functions"]
        compared += 1
    print(f"API reference and cubind-probe agree on {compared} libraries")
