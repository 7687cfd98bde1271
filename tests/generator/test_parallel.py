"""generator/parallel.py: work in other processes, results as if done here."""

import os

import pytest

from generator import parallel


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_forked_returns_the_result(monkeypatch: pytest.MonkeyPatch, jobs: str) -> None:
    monkeypatch.setenv(parallel.JOBS_VARIABLE, jobs)
    data = {"text": "x" * 100_000}  # seen by the child as this process has it
    wait = parallel.forked(lambda: (os.getpid(), len(data["text"])))
    pid, size = wait()
    assert size == 100_000
    assert (pid == os.getpid()) == (jobs == "1")


def test_forked_raises_the_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")

    def fail() -> None:
        raise ValueError("no such template")

    wait = parallel.forked(fail)
    with pytest.raises(ValueError, match="no such template"):
        wait()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ordered_map_keeps_the_order_and_runs_meanwhile(monkeypatch: pytest.MonkeyPatch, jobs: str) -> None:
    monkeypatch.setenv(parallel.JOBS_VARIABLE, jobs)
    ran = []
    assert parallel.ordered_map(abs, [3, -1, -2], weight=float, meanwhile=lambda: ran.append(True)) == [3, 1, 2]
    assert ran == [True]
