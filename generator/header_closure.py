"""What a cubind header may bring in: no more than its NVIDIA counterpart does.

NVIDIA's nvrtc.h includes <stdlib.h> and nothing of CUDA; cublas_api.h includes cuComplex.h,
which includes <math.h> (in C++ that adds float overloads of exp, sqrt, ... to the global
namespace). cubind's header for a module includes the groups of the NVIDIA headers its
counterpart reaches, and the C library headers those include, and nothing else: a program means
the same with NVIDIA's header, with cubind's and CUDA on the include path, or with cubind's alone.
The include graph is the IR's `includes` (header_constants.includes), read from libclang.
"""

from __future__ import annotations

from collections.abc import Iterable


def include_graph(irs: Iterable[dict]) -> dict[str, dict[str, list[str]]]:
    """Every unit's `includes`, merged: header -> {"headers", "system"}."""
    graph: dict[str, dict[str, list[str]]] = {}
    for ir in irs:
        for header, entry in ir.get("includes", {}).items():
            merged = graph.setdefault(header, {"headers": [], "system": [], "cplusplus": []})
            for key in ("headers", "system", "cplusplus"):
                merged[key].extend(h for h in entry.get(key, []) if h not in merged[key])
    for merged in graph.values():  # an edge another unit's C parse took is no C++-only one
        merged["cplusplus"] = [h for h in merged["cplusplus"] if h not in merged["headers"]]
    return graph


def closure(graph: dict[str, dict[str, list[str]]], headers: Iterable[str]) -> set[str]:
    """The NVIDIA headers `headers` reach through #include, themselves included."""
    seen: set[str] = set()
    todo = list(headers)
    while todo:
        header = todo.pop()
        if header in seen:
            continue
        seen.add(header)
        todo.extend(graph.get(header, {}).get("headers", []))
    return seen


def needed_headers(graph: dict[str, dict[str, list[str]]], header: str) -> list[str]:
    """The NVIDIA headers `header` reaches in C or in C++, itself first, the others sorted: what must
    be on the include path for an #include of it to compile (templates/_macros.j2: cubind includes
    NVIDIA's header only when all are there, else uses its own copy)."""
    seen: set[str] = set()
    todo = [header]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        entry = graph.get(current, {})
        todo.extend([*entry.get("headers", []), *entry.get("cplusplus", [])])
    return [header, *sorted(seen - {header})]


def system_headers(graph: dict[str, dict[str, list[str]]], reached: set[str]) -> list[str]:
    """The C library headers the headers of `reached` include themselves, sorted."""
    return sorted({s for h in reached for s in graph.get(h, {}).get("system", [])})


def shared_file(header: str) -> str:
    """cubind's header for the declarations of a shared NVIDIA header (driver_types.h ->
    cuda_types_driver_types.h): a module includes only those its counterpart reaches."""
    stem = header.removesuffix(".h").replace("/", "_").replace(".", "_")
    return f"cuda_types_{stem}.h"
