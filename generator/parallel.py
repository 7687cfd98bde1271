"""Stage 1 over every unit, in worker processes: libclang parses dominate `make generate`, and
units are independent. Workers return the plain-data IR (libclang objects never leave a process);
results keep the configuration's unit order, so the output does not depend on scheduling."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

JOBS_VARIABLE = "CUBIND_GENERATOR_JOBS"


def jobs(tasks: int) -> int:
    """Worker processes to use: $CUBIND_GENERATOR_JOBS, else one per CPU this process may run on."""
    wanted = os.environ.get(JOBS_VARIABLE, "")
    count = int(wanted) if wanted.isdigit() and int(wanted) > 0 else len(os.sched_getaffinity(0))
    return max(1, min(count, tasks))


def ordered_map(function: Callable[[T], R], items: Sequence[T], weight: Callable[[T], float] | None = None) -> list[R]:
    """[function(item) for item in items], spread over `jobs` processes (in this one when 1).
    Items are started heaviest first by `weight` (an estimate of their cost: the longest jobs
    first balance the workers best); the result is in the order of `items`."""
    workers = jobs(len(items))
    if workers == 1:
        return [function(item) for item in items]
    order = sorted(range(len(items)), key=lambda i: -weight(items[i])) if weight else list(range(len(items)))
    results: list[R | None] = [None] * len(items)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for index, result in zip(order, pool.map(function, [items[i] for i in order])):
            results[index] = result
    return results  # type: ignore[return-value]
