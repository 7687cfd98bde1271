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


def ordered_map(function: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """[function(item) for item in items], spread over `jobs` processes (in this one when 1).
    The largest items should come first in `items` for the best balance; the result is in order."""
    workers = jobs(len(items))
    if workers == 1:
        return [function(item) for item in items]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(function, items))
