"""The counts behind `make test`'s last line: each suite records what it counted, the summary adds them.

    results.py [--dir D] [--target T] [--variant V] [--tree B] run NAME FORMAT -- COMMAND...
        runs COMMAND, its output passed through and parsed as FORMAT (cmocka, pytest, snippets, julia);
        records the counts and exits with COMMAND's status
    results.py ... count NAME FORMAT LOG      parses a log a recipe wrote, records the counts
    results.py ... passed NAME                records a check (a recipe that ends once it passed)
    results.py ... step NAME -- MAKE ARGS...  runs one step of `make test` (a make, -k), and records
        as failed every target that make reports failing and that recorded no failure of its own;
        a step that recorded nothing and passed counts as one check
    results.py ... summary                    the count of each suite, then `cubind: N passed, M failed`

Under make -n, `step` only runs the step's make and `summary` counts nothing. Every record is a
file of its own in D, named by its target, suite, variant and build tree (B: $(BUILD)), so the order
in which `make -j` runs the suites does not matter, nothing is appended concurrently, and a suite run
in another tree (a subset's test-passthrough, built in its own BUILD) is a record of its own instead
of overwriting the main tree's. A suite that exits with an error but counted no
failure (a crash, a wrong exit status) is recorded with one failure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

CMOCKA_PASSED = re.compile(r"^\[  PASSED  \] (\d+) test\(s\)", re.M)
CMOCKA_FAILED = re.compile(r"^\[  FAILED  \] (\d+) test\(s\)", re.M)
PYTEST_SUMMARY = re.compile(r"^=*\s*(\d+ \w+(?:, \d+ \w+)*) in [\d.]+s", re.M)
SNIPPETS_SUMMARY = re.compile(r"^snippets: (\d+) passed, (\d+) failed", re.M)
JULIA_SUMMARY = re.compile(r"^julia: (\d+) passed, (\d+) failed", re.M)
# GNU make's report of a failed target: "make[2]: *** [tests/tests.mk:210: test-loader] Error 1".
MAKE_ERROR = re.compile(r"^\S*?\[(\d+)\]: \*\*\* \[(?:.*: )?([^\]:]+)\] Error \d+", re.M)


@dataclass
class Record:
    name: str
    kind: str
    variant: str
    target: str
    passed: int
    failed: int
    tree: str = ""


# The build trees whose records need no label: the default one, and a sanitizer's (named by its variant).
MAIN_TREE = re.compile(r"^(build)?(/san-[\w.-]+)?/?$")


def parse(kind: str, output: str) -> tuple[int, int]:
    """(passed, failed) as the suite reports them."""
    if kind == "cmocka":
        return (sum(int(n) for n in CMOCKA_PASSED.findall(output)),
                sum(int(n) for n in CMOCKA_FAILED.findall(output)))
    if kind == "pytest":
        summaries = PYTEST_SUMMARY.findall(output)
        counts = {}
        for part in summaries[-1].split(", ") if summaries else []:
            number, word = part.split(" ", 1)
            counts[word] = int(number)
        return (counts.get("passed", 0) + counts.get("xfailed", 0),
                counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0))
    if kind in ("snippets", "julia"):
        found = (SNIPPETS_SUMMARY if kind == "snippets" else JULIA_SUMMARY).findall(output)
        return (int(found[-1][0]), int(found[-1][1])) if found else (0, 0)
    raise SystemExit(f"results.py: unknown suite format {kind!r}")


def file_name(record: Record) -> str:
    text = "-".join(part for part in (record.target, record.name, record.variant, record.tree) if part)
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text) + ".json"


def write(directory: Path, record: Record) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / file_name(record)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(asdict(record)) + "\n")
    temporary.replace(path)


def read_all(directory: Path) -> list[Record]:
    return [Record(**json.loads(path.read_text())) for path in sorted(directory.glob("*.json"))]


def record_counts(args: argparse.Namespace, kind: str, output: str, status: int) -> None:
    passed, failed = parse(kind, output)
    if status != 0 and failed == 0:
        failed = 1
    write(args.dir, Record(args.name, kind, args.variant, args.target, passed, failed, args.tree))


def write_out(data: bytes) -> None:
    """All of `data` to our standard output, waiting while it is full: a descriptor that another
    program of the run made non-blocking (the file description is shared through make) answers
    EAGAIN instead of waiting, and a buffered write then fails with BlockingIOError."""
    sys.stdout.flush()  # what print() holds goes first
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(sys.stdout.fileno(), view):]
        except BlockingIOError:
            select.select([], [sys.stdout.fileno()], [])


def tee(command: list[str], log: Path | None = None) -> tuple[int, str]:
    """Runs command, its output (stdout and stderr in order) copied to ours as it comes."""
    # close_fds=False: a make below keeps the jobserver's descriptors that MAKEFLAGS names.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, close_fds=False)
    assert process.stdout is not None
    chunks = []
    with open(log, "wb") if log else open(os.devnull, "wb") as copy:
        for line in process.stdout:
            write_out(line)
            copy.write(line)
            chunks.append(line)
    return process.wait(), b"".join(chunks).decode("utf-8", "replace")


def dry_run() -> bool:
    """Whether the make above runs with -n: its single-letter flags come first, without a dash."""
    first = os.environ.get("MAKEFLAGS", "").split(" ", 1)[0]
    return not first.startswith("-") and "n" in first


def step(args: argparse.Namespace) -> int:
    if dry_run():  # make -n test: each step shows its commands; nothing is recorded
        return subprocess.run(args.command, close_fds=False, check=False).returncode
    args.dir.mkdir(parents=True, exist_ok=True)
    before = {path.name for path in args.dir.glob("*.json")}
    status, output = tee(args.command, args.dir / f"step-{args.name}.log")
    recorded = [r for r in read_all(args.dir) if file_name(r) not in before]
    level = int(os.environ.get("MAKELEVEL", "0"))  # the level of the make this step starts
    failed_targets = {target for found, target in MAKE_ERROR.findall(output) if int(found) == level}
    counted = {r.target for r in recorded if r.failed}
    for target in sorted(failed_targets - counted):
        write(args.dir, Record(target, "make", args.name if args.name != target else "", target, 0, 1))
    if status != 0 and not failed_targets and not counted:
        write(args.dir, Record(args.name, "make", "", "", 0, 1))
    if status == 0 and not recorded:
        write(args.dir, Record(args.name, "check", "", "", 1, 0))
    return status


def label(record: Record) -> str:
    """The suite's name, its variant, and its build tree when that is not a main one."""
    text = f"{record.name} ({record.variant})" if record.variant else record.name
    return text if MAIN_TREE.match(record.tree) else f"{text} [{record.tree}]"


def summary(directory: Path) -> int:
    if dry_run():
        print("make test: a dry run (make -n): nothing was run, nothing is counted")
        return 0
    records = read_all(directory)
    labels = {id(r): label(r) for r in records}
    width = max((len(text) for text in labels.values()), default=10)
    print(f"make test: {len(records)} suites and checks (passed, failed)")
    for r in sorted(records, key=lambda r: (r.failed == 0, r.kind, r.name, r.variant, r.tree)):
        print(f"  {r.kind:<8} {labels[id(r)]:<{width}} {r.passed:>6} {r.failed:>6}")
    passed = sum(r.passed for r in records)
    failed = sum(r.failed for r in records)
    print(f"cubind: {passed} passed, {failed} failed")
    return 1 if failed or not records else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, default=Path("build/test-results"))
    parser.add_argument("--target", default="", help="the make target that runs the suite ($@)")
    parser.add_argument("--variant", default="", help="the build variant, e.g. the sanitizer")
    parser.add_argument("--tree", default="", help="the build tree the suite ran in ($(BUILD))")
    commands = parser.add_subparsers(dest="action", required=True)
    run = commands.add_parser("run")
    run.add_argument("name")
    run.add_argument("kind", metavar="format")
    run.add_argument("command", nargs=argparse.REMAINDER)
    count = commands.add_parser("count")
    count.add_argument("name")
    count.add_argument("kind", metavar="format")
    count.add_argument("log", type=Path)
    count.add_argument("--status", type=int, default=0, help="the suite's exit status")
    passed = commands.add_parser("passed")
    passed.add_argument("name")
    steps = commands.add_parser("step")
    steps.add_argument("name")
    steps.add_argument("command", nargs=argparse.REMAINDER)
    commands.add_parser("summary")
    args = parser.parse_args()

    if args.action == "run":
        command = args.command[1:] if args.command[:1] == ["--"] else args.command
        status, output = tee(command)
        record_counts(args, args.kind, output, status)
        return status
    if args.action == "count":
        record_counts(args, args.kind, args.log.read_text(errors="replace"), args.status)
        return 0
    if args.action == "passed":
        write(args.dir, Record(args.name, "check", args.variant, args.target, 1, 0, args.tree))
        return 0
    if args.action == "step":
        args.command = args.command[1:] if args.command[:1] == ["--"] else args.command
        return step(args)
    return summary(args.dir)


if __name__ == "__main__":
    sys.exit(main())
