#!/usr/bin/python3
"""cubind-probe --all against NVIDIA's cuda-pathfinder, side by side, on a machine whose Python has it.

    python3 tests/gpu/pathfinder.py [PROBE]        (PROBE: build/bin/cubind-probe)

For every library cuda.pathfinder knows (SUPPORTED_NVIDIA_LIBNAMES), in a Python child of its own
(loading one library must not decide the next): the file load_nvidia_dynamic_lib(name) loads
(abs_path, links resolved). Beside it, from `cubind-probe --all --json` run twice, without and
with CUBIND_SEARCH_PYTHON=1: the copy cubind takes (or, for a library it only locates, the one a
dlopen of its soname takes), and whether pathfinder's file is among the copies cubind lists at all.
A pathfinder library is matched to cubind's by its soname stem (cudart is libcudart, cubind's
"runtime"), from generator/libraries.toml.

Exit status: the number of files pathfinder loads that cubind's --all does not list (0: it sees
every copy pathfinder chose). Different choices are reported, not counted: pathfinder puts wheels
first, cubind the system's search unless CUBIND_SEARCH_PYTHON=1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from generator import config  # noqa: E402

PROBE = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build" / "bin" / "cubind-probe")
CHILD = """
import json, os, sys
import cuda.pathfinder as pf
try:
    loaded = pf.load_nvidia_dynamic_lib(sys.argv[1])
    print(json.dumps({"path": loaded.abs_path, "real": os.path.realpath(loaded.abs_path)}))
except Exception as e:
    print(json.dumps({"error": type(e).__name__ + ": " + str(e).splitlines()[0][:160]}))
"""


def pathfinder_names() -> list[str]:
    out = subprocess.run([sys.executable, "-c", "import cuda.pathfinder as pf; print(' '.join(pf.SUPPORTED_NVIDIA_LIBNAMES))"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"cuda.pathfinder is not importable here: {out.stderr.strip().splitlines()[-1:]}")
    return out.stdout.split()


def pathfinder_choice(name: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, name], capture_output=True, text=True, timeout=120)
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": (out.stderr.strip().splitlines() or ["no answer"])[-1][:160]}


def probe(python: bool) -> dict:
    env = {**os.environ, **({"CUBIND_SEARCH_PYTHON": "1"} if python else {})}
    out = subprocess.run([str(PROBE), "--all", "--json"], capture_output=True, text=True, env=env, timeout=600)
    if out.returncode != 0:
        sys.exit(f"{PROBE} --all --json failed: {out.stderr}")
    return {lib["name"]: lib for lib in json.loads(out.stdout)["copies"]}


def version(copy: dict) -> str:
    v = copy["version"]
    return ".".join(str(v[k]) for k in ("major", "minor", "patch") if v[k] is not None) or "?"


def main() -> int:
    cfg = config.load()
    stems = {lib.sonames[0].split(".so")[0]: lib.name for lib in cfg.libraries}
    stems.update({entry.stem: entry.name for entry in cfg.locate})
    plain, python = probe(False), probe(True)
    unseen = 0
    rows = []
    for name in pathfinder_names():
        ours = stems.get(f"lib{name}")
        pf = pathfinder_choice(name)
        lib = plain.get(ours) if ours else None
        taken = next((c for c in lib["copies"] if c["chosen"]), None) if lib else None
        taken_py = next((c for c in python[ours]["copies"] if c["chosen"]), None) if lib else None
        listed = lib is not None and "real" in pf and any(c["real_path"] == pf["real"] for c in lib["copies"])
        if "real" in pf and not listed:
            unseen += 1
        rows.append((name, ours or "-", pf, taken, taken_py, listed, len(lib["copies"]) if lib else 0))
    for name, ours, pf, taken, taken_py, listed, n in rows:
        print(f"\n{name} (cubind: {ours}; {n} copies listed)")
        print(f"  pathfinder:              {pf.get('real', pf.get('error'))}")
        for label, t in (("cubind", taken), ("cubind, SEARCH_PYTHON=1", taken_py)):
            text = f"{t['real_path']}  {version(t)} ({t['version_source']}), CUDA {t['release']}; {t['chosen_by']}" if t else "none"
            same = "" if t is None or "real" not in pf else ("  = pathfinder" if t["real_path"] == pf["real"] else "  differs")
            print(f"  {label + ':':24} {text}{same}")
        if "real" in pf:
            print(f"  pathfinder's file listed by --all: {'yes' if listed else 'NO'}")
    found = sum(1 for r in rows if "real" in r[2])
    print(f"\npathfinder found {found} of {len(rows)} libraries; cubind --all lists {found - unseen} of those files")
    return unseen


if __name__ == "__main__":
    sys.exit(main())
