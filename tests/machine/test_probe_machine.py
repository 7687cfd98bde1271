"""cubind-probe's driver, GPU and checks sections against the stand-ins of NVML and the driver
(tests/machine/fake_*.c) and the mocks: the JSON's facts and sources (every report checked against
docs/probe.schema.json), the text, the exit statuses (6 for an error, and for a warning under
--strict). Run by make test-machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "probe"))
from probe_schema import validated  # noqa: E402  (every report read is checked against docs/probe.schema.json)

PROBE = os.environ["CUBIND_PROBE"]
MACHINE = Path(os.environ["CUBIND_TEST_MACHINE_DIR"])
MOCKS = Path(os.environ["CUBIND_TEST_MOCK_DIR"])
RELEASE_MOCKS = Path(os.environ["CUBIND_TEST_RELEASE_MOCK_DIR"])


def probe(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "CUBIND_NVML_PATH": str(MACHINE / "nvml/libnvidia-ml.so.1"),
                   "CUBIND_DRIVER_PATH": str(MACHINE / "cuda/libcuda.so.1"), **env}
    return subprocess.run([PROBE, *args], env=environment, capture_output=True, text=True, timeout=120)


def test_driver_and_gpu_facts_with_their_sources() -> None:
    run = probe("--json")
    assert run.returncode == 0, run.stderr
    report = validated(run.stdout)
    driver = report["driver"]
    assert driver["release"] == "580.159.04" and driver["release_source"] == "nvml"
    assert driver["release_version"] == {"major": 580, "minor": 159, "patch": 4}
    assert driver["cuda"] == {"major": 13, "minor": 0, "patch": None} and driver["cuda_source"] == "driver"
    assert driver["gpu_count"] == 1 and driver["nvml_error"] is None and driver["driver_error"] is None
    [gpu] = report["gpus"]
    assert gpu["name"] == "NVIDIA H100 80GB HBM3" and gpu["name_source"] == "nvml"
    assert gpu["uuid"] == "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"
    assert gpu["compute_capability"] == {"major": 9, "minor": 0, "patch": None}
    assert gpu["memory_total_mib"] == 81559 and gpu["memory_source"] == "nvml"
    assert (gpu["mig_current"], gpu["mig_pending"]) == ("disabled", "enabled")
    assert gpu["pci_bus_id"] == "00000000:19:00.0" and gpu["nvml_index"] == 0
    assert {c["verdict"] for c in report["checks"]} <= {"ok", "warning", "error"}
    text = probe().stdout
    assert "driver      580.159.04 (nvml); supports CUDA 13.0 (driver); 1 GPU (driver)" in text
    assert "    memory: 81559 MiB (nvml)" in text and "    MIG: current disabled, pending enabled (nvml)" in text


def test_no_driver_at_all() -> None:
    run = probe("--json", CUBIND_NVML_PATH="/nonexistent/libnvidia-ml.so.1",
                CUBIND_DRIVER_PATH="/nonexistent/libcuda.so.1")
    report = validated(run.stdout)
    assert report["gpus"] == [] and report["driver"]["gpu_count"] is None
    assert report["driver"]["driver_error"].startswith("libcuda not found; tried: CUBIND_DRIVER_PATH=/nonexistent")


def test_mixed_releases_warn_and_strict_makes_it_an_exit_status() -> None:
    mixed = {"CUBIND_CUBLAS_PATH": str(MOCKS / "libcublas.so.13"),
             "CUBIND_CUBLASLT_PATH": str(RELEASE_MOCKS / "libcublasLt.so.13")}
    run = probe("--json", **mixed)
    checks = validated(run.stdout)["checks"]
    coupled = [c for c in checks if c["name"] == "coupled-release" and c["library"] == "cublasLt"]
    assert coupled and coupled[0]["verdict"] == "warning" and "of CUDA 12.4" in coupled[0]["reason"]
    assert not [c for c in checks if c["verdict"] == "error"]
    assert run.returncode == 0
    assert probe("--json", "--strict", **mixed).returncode == 6
    assert probe("--strict", "--json", **mixed).returncode == 6


def test_an_old_driver_is_an_error() -> None:
    run = probe("--json", FAKE_DRIVER_RELEASE="535.54.03")
    checks = validated(run.stdout)["checks"]
    errors = [c for c in checks if c["verdict"] == "error"]
    assert errors and all("driver 535.54.03 is older than 580.65.06" in c["reason"] for c in errors)
    assert run.returncode == 6


def test_the_headline_and_the_check_account_for_the_gpus() -> None:
    """With a GPU, the report's first lines say CUDA work can run and --check's verdict is "runs"; with
    none visible, both say why not (the check said "runs" for a program that then failed)."""
    assert probe().stdout.splitlines()[1] == "this machine can run CUDA work: 1 GPU, driver 580.159.04 (CUDA 13.0)"
    report = validated(probe("--json").stdout)
    assert report["machine"] == {"can_run_cuda": True, "gpu_count": 1, "reason": None,
                                 "driver_file": str(MACHINE / "cuda/libcuda.so.1"), "driver_in_build": True}
    run = probe("--json", "--check", PROBE)
    check = validated(run.stdout)["check"]
    assert run.returncode == 0 and check["verdict"] == "runs" and check["reasons"] == []
    run = probe("--json", "--check", PROBE, FAKE_GPU_COUNT="0")
    check = validated(run.stdout)["check"]
    assert run.returncode == 3 and check["verdict"] == "runs-partly"
    [reason] = check["reasons"]
    assert reason.startswith("it starts, but no GPU can be used here: driver 580.159.04, no GPU visible "
                             "(cuInit returned CUDA_ERROR_NO_DEVICE (100); CUDA_VISIBLE_DEVICES")
    report = validated(probe("--json", FAKE_GPU_COUNT="0").stdout)
    assert report["machine"]["can_run_cuda"] is False and "no GPU visible" in report["machine"]["reason"]
