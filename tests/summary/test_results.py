"""make test's summary (tests/summary/results.py): what each suite's output counts, and the sum."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import results

SCRIPT = Path(__file__).resolve().parent / "results.py"


@pytest.mark.parametrize("kind, output, counts", [
    ("cmocka", "[==========] 19 test(s) run.\n[  PASSED  ] 19 test(s).\n", (19, 0)),
    ("cmocka", "[  PASSED  ] 2 test(s).\n[  FAILED  ] 1 test(s), listed below:\n[  FAILED  ] a\n"
               "[  PASSED  ] 5 test(s).\n", (7, 1)),
    ("pytest", "....\n812 passed in 3.20s\n", (812, 0)),
    ("pytest", "1 failed, 11 passed, 2 skipped in 0.53s\n", (11, 1)),
    ("pytest", "===== 2 passed, 1 error in 1.0s =====\n", (2, 1)),
    ("snippets", "snippets: FAILED x\nsnippets: 36 passed, 1 failed (49 blocks)\n", (36, 1)),
    ("julia", "julia: checked 7104 constants\nFAILED: x\njulia: 17915 passed, 1 failed\n", (17915, 1)),
    ("cmocka", "Segmentation fault\n", (0, 0)),
])
def test_suite_outputs_are_counted(kind: str, output: str, counts: tuple[int, int]) -> None:
    assert results.parse(kind, output) == counts


def run(directory: Path, *arguments: str, makeflags: str = "") -> subprocess.CompletedProcess[str]:
    environment = os.environ | {"MAKEFLAGS": makeflags, "MAKELEVEL": "1"}
    return subprocess.run([sys.executable, str(SCRIPT), "--dir", str(directory), *arguments],
                          capture_output=True, text=True, env=environment, check=False)


def test_a_crash_counts_one_failure_and_the_summary_fails(tmp_path: Path) -> None:
    assert run(tmp_path, "--target", "test-x", "run", "x", "cmocka", "--", "sh", "-c", "exit 139").returncode == 139
    assert run(tmp_path, "passed", "test-y").returncode == 0
    summary = run(tmp_path, "summary")
    assert summary.returncode == 1
    assert summary.stdout.splitlines()[-1] == "cubind: 1 passed, 1 failed"


def test_a_failed_target_without_counts_is_counted_once(tmp_path: Path) -> None:
    make_output = "make[1]: *** [tests/tests.mk:9: test-z] Error 1\nmake[2]: *** [Makefile:1: inner] Error 1\n"
    step = run(tmp_path, "step", "test-c", "--", "sh", "-c", f"printf '{make_output}'; exit 2")
    assert step.returncode == 2
    summary = run(tmp_path, "summary")
    assert "test-z (test-c)" in summary.stdout and "inner" not in summary.stdout
    assert summary.stdout.splitlines()[-1] == "cubind: 0 passed, 1 failed"


def test_a_step_that_counted_nothing_and_passed_is_one_check(tmp_path: Path) -> None:
    assert run(tmp_path, "step", "check-generated", "--", "true").returncode == 0
    assert run(tmp_path, "summary").stdout.splitlines()[-1] == "cubind: 1 passed, 0 failed"


def test_a_dry_run_records_nothing(tmp_path: Path) -> None:
    assert run(tmp_path, "step", "test-c", "--", "true", makeflags="n -j2").returncode == 0
    assert not list(tmp_path.glob("*.json"))
    assert run(tmp_path, "summary", makeflags="kn").returncode == 0
    assert run(tmp_path, "summary", makeflags=" --no-print-directory").returncode == 1  # not a dry run: nothing ran


def test_a_suite_of_another_build_tree_is_a_record_of_its_own(tmp_path: Path) -> None:
    """A subset tree's test-passthrough (its own BUILD) under the same sanitizer as the main tree's
    counts beside it, instead of overwriting its file (issue 37: 3,478 became 57 under ASan)."""
    log = "[  PASSED  ] {} test(s).\n"
    for tree, passed in (("build/san-address-undefined", 3478), ("build/san-address-undefined/test/embed/build-cufft", 57)):
        assert run(tmp_path, "--target", "test-passthrough", "--variant", "address,undefined", "--tree", tree,
                   "run", "passthrough", "cmocka", "--", "printf", log.format(passed)).returncode == 0
    summary = run(tmp_path, "summary")
    assert summary.stdout.splitlines()[-1] == "cubind: 3535 passed, 0 failed"
    assert "passthrough (address,undefined) [build/san-address-undefined/test/embed/build-cufft]" in summary.stdout
