"""cubind-probe of a subset that leaves the driver API out (test-embed's tree, $CUBIND_TEST_SUBSET_PROBE):
its headline speaks of the machine - the kernel module, the driver's file - whatever the build binds,
and the libraries left out are said as such, in one line (issue 37: it said `no CUDA driver: not part
of this build of cubind`, a module left out taken for a driver missing)."""

import os
import subprocess
from pathlib import Path

import pytest

from test_probe import LIBRARIES, validated

SUBSET_PROBE = os.environ.get("CUBIND_TEST_SUBSET_PROBE")
DRIVER = LIBRARIES["driver"]


def subset_probe(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    if SUBSET_PROBE is None or not Path(SUBSET_PROBE).exists():
        pytest.skip("no subset probe: make test-probe builds one")
    environment = {k: v for k, v in os.environ.items() if k != DRIVER.env_var}
    return subprocess.run([SUBSET_PROBE, *args], capture_output=True, text=True, env={**environment, **(env or {})},
                          timeout=120)


def test_the_headline_speaks_of_the_machine() -> None:
    report = validated(subset_probe("--json").stdout)
    machine = report["machine"]
    assert machine["driver_in_build"] is False
    left_out = [lib["name"] for lib in report["libraries"] if lib["functions"] == 0]
    assert DRIVER.name in left_out
    if not machine["can_run_cuda"]:
        assert "not part of this build" not in machine["reason"], machine
        assert machine["reason"].startswith(("no CUDA driver: the NVIDIA kernel module", "driver ")), machine
    lines = subset_probe().stdout.splitlines()
    assert "not part of this build" not in lines[1], lines[1]
    assert lines[2].startswith("    (this build of cubind leaves the driver API out; the driver's file here: "), lines[2]
    [said] = [line for line in lines if line.startswith("left out    ")]
    assert said.startswith(f"left out    {', '.join(left_out)}: not part of this build of cubind"), said
    for name in left_out:
        assert not [line for line in lines if line.startswith(f"{name:<11} not found")], name


def test_the_drivers_file_is_found_though_the_build_leaves_it_out(tmp_path: Path) -> None:
    """A file of the driver's soname in LD_LIBRARY_PATH: the headline names it."""
    source = tmp_path / "driver.c"
    source.write_text("int cubind_fixture_driver(void) { return 0; }\n")
    driver = tmp_path / DRIVER.sonames[0]
    subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{driver.name}", str(source), "-o", str(driver)], check=True)
    env = {"LD_LIBRARY_PATH": str(tmp_path)}
    assert validated(subset_probe("--json", env=env).stdout)["machine"]["driver_file"] == str(driver)
    assert f"the driver's file here: {driver})" in subset_probe(env=env).stdout
