"""NVML's getters that NVML API 13 added, through cubind (tests/gpu/nvml_getters.c), against what
nvidia-smi reports of the same field (run on a GPU machine, not in CI):

    /usr/bin/python3 tests/gpu/compare_nvml.py build/test/gpu/nvml-getters

Prints one line per GPU and field (cubind's value, nvidia-smi's, same or DIFFERENT); a field
nvidia-smi does not report here (its --help-query-gpu lacks it, or it answers [N/A]) or NVML does not
support on the GPU is said so and not compared. Temperatures are read at two moments: they may differ
by a few degrees. The driver branch (nvmlSystemGetDriverBranch, which nvidia-smi's query has no field
for) must name the major of nvidia-smi's driver_version. Exits 1 when a field differs, when
libnvidia-ml is not called as a release that has these getters, or when nothing could be compared."""

from __future__ import annotations

import csv
import io
import subprocess
import sys

# nvidia-smi --query-gpu field -> (nvml_getters.c's field, how the values compare)
FIELDS = {
    "index": ("index-by-uuid", "exact"),
    "temperature.gpu": ("temperature", "degrees"),
    "temperature.gpu.tlimit": ("margin-temperature", "degrees"),
    "addressing_mode": ("addressing-mode", "exact"),
}
DEGREES = 3  # two reads of a temperature, a moment apart


def smi(fields: list[str]) -> list[list[str]]:
    done = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"],
                          capture_output=True, text=True, check=True)
    return [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(done.stdout)) if row]


def same(kind: str, ours: str, theirs: str) -> bool:
    if kind == "degrees":
        return abs(int(ours) - int(theirs)) <= DEGREES
    return ours.lower() == theirs.lower()


def main(program: str) -> int:
    done = subprocess.run([program], capture_output=True, text=True, check=False)
    print(done.stdout, end="")
    print(done.stderr, end="", file=sys.stderr)
    ours: dict[tuple[str, str], str] = {}
    facts: dict[str, str] = {}
    for line in done.stdout.splitlines():
        words = line.split(" ", 3)
        if words[0] == "gpu" and len(words) == 4:
            ours[(words[1], words[2])] = words[3]
        elif len(words) >= 2:
            facts[words[0]] = line.split(" ", 1)[1]
    called_as = facts.get("called-as", "?").split(".")[0]
    if done.returncode != 0 or not called_as.isdigit() or int(called_as) < 13:
        print(f"nvml-getters: exit status {done.returncode}, libnvidia-ml called as CUDA {facts.get('called-as')}")
        return 1
    known = subprocess.run(["nvidia-smi", "--help-query-gpu"], capture_output=True, text=True, check=True).stdout
    asked = [f for f in FIELDS if f'"{f}"' in known]
    print(f"nvidia-smi reports {', '.join(asked)}; not {', '.join(f for f in FIELDS if f not in asked) or 'none'}")
    rows = smi(["uuid", "driver_version", *asked])
    differ = compared = 0
    for uuid, driver, *values in rows:
        index = next((i for (i, field), value in ours.items() if field == "uuid" and value == uuid), None)
        if index is None:
            print(f"{uuid}: nvidia-smi lists it, nvml-getters does not")
            differ += 1
            continue
        for field, theirs in zip(asked, values):
            name, kind = FIELDS[field]
            mine = ours.get((index, name), "?")
            if mine.startswith("unavailable") or theirs.startswith("[N/A]") or theirs.startswith("[Not Supported]"):
                print(f"GPU {index} {field}: cubind {mine!r}, nvidia-smi {theirs!r}: not compared")
                continue
            ok = same(kind, mine, theirs)
            compared += 1
            differ += not ok
            print(f"GPU {index} {uuid} {field}: cubind {mine!r} ({name}), nvidia-smi {theirs!r}: "
                  f"{'same' if ok else 'DIFFERENT'}")
        branch = facts.get("branch", "")
        ok = driver.split(".")[0] in branch
        compared += 1
        differ += not ok
        print(f"driver branch: cubind {branch!r}, nvidia-smi driver_version {driver!r}: "
              f"{'names its major' if ok else 'DIFFERENT'}")
    if compared == 0:
        print("nothing compared")
        return 1
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "build/test/gpu/nvml-getters"))
