"""cubind-probe's driver and GPU facts against nvidia-smi's, field by field (issue 19; run on a GPU
machine, not in CI):

    /usr/bin/python3 tests/gpu/compare_smi.py build/bin/cubind-probe

Prints one line per GPU and field (probe, nvidia-smi, same or DIFFERENT) and exits 1 when a field
differs. GPUs are matched by UUID; nvidia-smi's memory.total is in MiB, as the probe's
memory_total_mib; its mig.mode.current is "Enabled", "Disabled" or "[N/A]"."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

FIELDS = "name,uuid,compute_cap,memory.total,mig.mode.current,driver_version,pci.bus_id"


def main(probe: str) -> int:
    report = json.loads(subprocess.run([probe, "--json"], capture_output=True, text=True, check=False).stdout)
    smi = subprocess.run(["nvidia-smi", f"--query-gpu={FIELDS}", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, check=True).stdout
    rows = [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(smi)) if row]
    by_uuid = {g["uuid"]: g for g in report["gpus"]}
    driver = report["driver"]
    print(f"driver: probe {driver['release']} ({driver['release_source']}), CUDA "
          f"{driver['cuda'] and '%d.%d' % (driver['cuda']['major'], driver['cuda']['minor'])} "
          f"({driver['cuda_source']}), {driver['gpu_count']} GPUs; nvidia-smi {len(rows)} GPUs")
    differ = 0
    for name, uuid, cc, memory, mig, release, bus in rows:
        gpu = by_uuid.get(uuid)
        if gpu is None:
            print(f"{uuid}: nvidia-smi lists it, the probe does not (CUDA_VISIBLE_DEVICES?)")
            differ += 1
            continue
        capability = gpu["compute_capability"]
        # each field: (probe's value, nvidia-smi's, where the probe's came from)
        pairs = {
            "name": (gpu["name"], name, gpu["name_source"]),
            "compute_cap": (capability and f"{capability['major']}.{capability['minor']}", cc,
                            gpu["compute_capability_source"]),
            "memory.total MiB": (str(gpu["memory_total_mib"]), memory, gpu["memory_source"]),
            "mig.mode.current": ({"enabled": "Enabled", "disabled": "Disabled", "unsupported": "[N/A]"}
                                 .get(gpu["mig_current"], str(gpu["mig_current"])), mig, gpu["mig_source"]),
            "driver_version": (driver["release"], release, driver["release_source"]),
            "pci.bus_id": ((gpu["pci_bus_id"] or "").upper(), bus.upper(), gpu["pci_bus_id_source"]),
        }
        for field, (ours, theirs, source) in pairs.items():
            same = ours == theirs
            differ += not same
            print(f"GPU {gpu['index']} {uuid} {field}: probe {ours!r} ({source}), "
                  f"nvidia-smi {theirs!r}: {'same' if same else 'DIFFERENT'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "build/bin/cubind-probe"))
