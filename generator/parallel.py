"""Stage 1 over every unit, in worker processes: libclang parses dominate `make generate`, and
units are independent. Workers return the plain-data IR (libclang objects never leave a process);
results keep the configuration's unit order, so the output does not depend on scheduling.
Stage 2 splits its rendering in two the same way (`forked`)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import Connection
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

JOBS_VARIABLE = "CUBIND_GENERATOR_JOBS"


def jobs(tasks: int) -> int:
    """Worker processes to use: $CUBIND_GENERATOR_JOBS, else one per CPU this process may run on."""
    wanted = os.environ.get(JOBS_VARIABLE, "")
    count = int(wanted) if wanted.isdigit() and int(wanted) > 0 else len(os.sched_getaffinity(0))
    return max(1, min(count, tasks))


def ordered_map(function: Callable[[T], R], items: Sequence[T], weight: Callable[[T], float] | None = None,
                meanwhile: Callable[[], None] | None = None) -> list[R]:
    """[function(item) for item in items], spread over `jobs` processes (in this one when 1).
    Items are started heaviest first by `weight` (an estimate of their cost: the longest jobs
    first balance the workers best); the result is in the order of `items`. `meanwhile` is run
    in this process once the workers have their items (it uses a core the last items leave idle)."""
    workers = jobs(len(items))
    if workers == 1:
        results = [function(item) for item in items]
        if meanwhile is not None:
            meanwhile()
        return results
    order = sorted(range(len(items)), key=lambda i: -weight(items[i])) if weight else list(range(len(items)))
    ordered: list[R | None] = [None] * len(items)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        # Every item submitted (every worker forked) before `meanwhile` starts.
        futures = [pool.submit(function, items[i]) for i in order]
        if meanwhile is not None:
            meanwhile()
        for index, future in zip(order, futures):
            ordered[index] = future.result()
    return ordered  # type: ignore[return-value]


def forked(function: Callable[[], R]) -> Callable[[], R]:
    """Start function() in a forked child process and return what waits for its result: the child
    sees this process's objects as they are (nothing is pickled on the way in), its result is
    pickled back. Run here, at once, when $CUBIND_GENERATOR_JOBS allows one process."""
    if jobs(2) == 1:
        result = function()
        return lambda: result
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    # daemon: a parent that fails before it waits ends the child instead of waiting for it
    child = context.Process(target=_send_result, args=(function, writer), daemon=True)
    child.start()
    writer.close()

    def wait() -> R:
        try:
            failed, value = reader.recv()
        except EOFError:
            raise RuntimeError(f"the forked worker died (exit status {child.exitcode})") from None
        finally:
            reader.close()
            child.join()
        if failed:
            raise value
        return value

    return wait


def _send_result(function: Callable[[], R], writer: Connection) -> None:
    """In the child: (False, result) or (True, the exception) through `writer`."""
    try:
        outcome: tuple[bool, object] = (False, function())
    except Exception as exc:  # raised again in the parent
        outcome = (True, exc)
    writer.send(outcome)
    writer.close()
