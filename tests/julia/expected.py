"""What the Julia module must hold, from constants.json and the IR (tests/julia/consumer.jl checks it):
one fact a line, tab-separated, for a reader with no JSON parser (Julia 1.5's standard library has none).

    value     NAME  int|float|string|pointer  VALUE    every constant of constants.json (a string: its UTF-8 bytes in hex)
    record    NAME  SIZE                               every record the IR defines (not a C++ class)
    field     NAME  FIELD  OFFSET                      each field of those C names (not a bit-field nor a C11 anonymous member)
    function  NAME  PARAMETERS  C-NAME  ADDED-IN       every wrapper

    expected.py CONSTANTS_JSON IR_DIR > expected.tsv
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(constants_path: str, ir_dir: str) -> None:
    constants = json.loads(Path(constants_path).read_text())
    out = []
    for name, value in constants["values"].items():
        kind = constants["defines"].get(name, {}).get("kind", "int")
        text = value.encode().hex() if kind == "string" else repr(value)
        out.append(("value", name, kind, text))
    records: set[str] = set()
    for path in sorted(Path(ir_dir).glob("*.json")):
        ir = json.loads(path.read_text())
        for entry in ir["types"]:
            name = entry["name"] or entry["typedef"]
            if entry["kind"] not in ("struct", "union") or not entry.get("complete", True) \
                    or entry.get("cplusplus_class") or name in records:
                continue
            records.add(name)
            out.append(("record", name, str(entry["size"])))
            for f in entry["fields"]:
                if f["name"] and f["bit_width"] is None:
                    out.append(("field", name, f["name"], str(f["offset_bits"] // 8)))
        for f in ir["functions"]:
            out.append(("function", f["cubind_name"], str(len(f["params"])), f["name"], f.get("added_in") or ""))
    sys.stdout.write("".join("\t".join(line) + "\n" for line in out))


if __name__ == "__main__":
    main(*sys.argv[1:])
