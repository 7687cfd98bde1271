"""What embedding cubind costs in size (issue 20): stripped sizes of the full library, of subsets and
of a program embedding the cuFFT-only amalgamation, each with call tracing and without (TRACE=0).

    python3 bench/sizes.py --build build --out build/bench/size.md     (make bench-size)

bench/report.py puts the same section in docs/benchmarks.md (make bench). Every variant is built
here, by the Makefile (make GENERATED=<subset> TRACE=0 ...), into --build's bench/size/; the
subsets are generated there first (python3 -m generator generate --from-ir generated/ir --libraries ...).
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBSETS = {"cuFFT only": ["cufft"], "cuBLAS + cuBLASLt": ["cublas", "cublasLt"],
           # the compiler tool-chain and codec libraries (issue 29), embedded without the rest
           "NVVM + nvFatbin + nvJPEG": ["nvvm", "nvfatbin", "nvjpeg"],
           # the profiler's (issue 29), with the driver whose types its records use (CUcontext: a subset of
           # CUPTI alone does not generate, its cdef files lack the driver's types)
           "CUPTI + the driver": ["driver", "cupti"]}
EMBED_GOAL = 150 * 1000          # the cuFFT-only embedding, stripped
FULL_GOAL = 1_600_000            # the full library with tracing built in (issue 39: thin wrappers)
COMMAND = "make bench-size"


@dataclass
class SizeRow:
    name: str
    traced: int        # bytes, stripped, with call tracing
    untraced: int      # the same built with TRACE=0
    goal: str
    met: bool | None
    note: str = ""


def run(command: list[str], cwd: Path = ROOT) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"bench: {' '.join(map(str, command))} failed ({result.returncode}):\n"
                         f"{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return result.stdout


def make(*arguments: str) -> None:
    run(["make", "--no-print-directory", f"-j{len(os.sched_getaffinity(0))}", *arguments])


def stripped(path: Path, work: Path) -> int:
    """The size of `path` once stripped (a copy: the build keeps its symbols)."""
    out = work / f"{path.name}.stripped"
    run(["strip", "-o", str(out), str(path)])
    return out.stat().st_size


def library(build: Path, generated: str, trace: bool, archive: bool = False) -> Path:
    """Build libcubind.so of a tree (`generated`), traced or not, in its own build tree; its real file
    (and with `archive`, libcubind.a and the headers, for archive_program)."""
    tree_build = build / ("no-trace" if not trace else "traced")
    make(f"GENERATED={generated}", f"BUILD={tree_build}", f"TRACE={int(trace)}", "SAN=", f"{tree_build}/lib/libcubind.so",
         *([f"{tree_build}/lib/libcubind.a", "all"] if archive else []))
    return (tree_build / "lib" / "libcubind.so").resolve()


def archive_program(library_file: Path, work: Path, trace: bool) -> Path:
    """bench/embed_cufft.c linked with the full tree's libcubind.a as docs/install.md tells (-ldl -lpthread
    -Wl,--gc-sections, no compiler flag of the user's): the archive's one section a function keeps it small."""
    tree_build = library_file.parent.parent
    program = work / ("archive_cufft" + ("" if trace else "-no-trace"))
    shim = work / "archive-include"      # the program's "cubind.h" (the amalgamation's name): cubind/cubind.h
    shim.mkdir(exist_ok=True)
    (shim / "cubind.h").write_text('#include "cubind/cubind.h"\n')
    run([os.environ.get("CC", "cc"), "-std=c11", "-O2", f"-I{shim}", f"-I{tree_build}/include",
         str(ROOT / "bench" / "embed_cufft.c"), str(tree_build / "lib" / "libcubind.a"), "-o", str(program),
         "-ldl", "-lpthread", "-Wl,--gc-sections"])
    return program


def subset_tree(work: Path, libraries: list[str]) -> Path:
    tree = work / ("tree-" + "-".join(libraries))
    run([sys.executable, "-m", "generator", "generate", "--from-ir", "generated/ir", "--libraries", *libraries,
         "--out", str(tree)])
    return tree


def embedding_program(work: Path, tree: Path, trace: bool) -> Path:
    """bench/embed_cufft.c with the amalgamation of `tree` compiled in, stripped size measured by the caller."""
    amalgamation = work / "amalgamation"
    run([sys.executable, "-m", "generator", "amalgamate", "--tree", str(tree), "--out", str(amalgamation)])
    program = work / ("embed_cufft" + ("" if trace else "-no-trace"))
    # as docs/embedding.md tells a vendoring project: what the program does not call is dropped
    run([os.environ.get("CC", "cc"), "-std=c11", "-O2", *([] if trace else ["-DCUBIND_NO_TRACE"]), f"-I{amalgamation}",
         "-ffunction-sections", "-fdata-sections", str(ROOT / "bench" / "embed_cufft.c"), str(amalgamation / "cubind.c"),
         "-o", str(program), "-Wl,--gc-sections", "-ldl", "-lpthread"])
    return program


def measure(build: Path) -> list[SizeRow]:
    work = (build / "bench" / "size").resolve()
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    full_files = [library(work / "full", "generated", trace, archive=True) for trace in (True, False)]
    full = [stripped(file, work) for file in full_files]
    rows.append(SizeRow("libcubind.so, every library", full[0], full[1], f"≤ {FULL_GOAL:,}, tracing built in "
                        "(issue 39)", full[0] <= FULL_GOAL,
                        "each wrapper is its hot path and a stub that jumps to the slow path its shape shares "
                        "(src/shapes.c); with tracing, that slow path hands the arguments and the result to one "
                        "shared formatter (loader/trace_log.c) that reads each function's description and enum "
                        f"names from its symbol table; TRACE=0 drops those calls and that data: {full[0] - full[1]:,} "
                        "bytes"))
    trees = {name: subset_tree(work, libraries) for name, libraries in SUBSETS.items()}
    for name, tree in trees.items():
        sizes = [stripped(library(work / tree.name, str(tree), trace), work) for trace in (True, False)]
        rows.append(SizeRow(f"libcubind.so, {name} (make generate LIBRARIES=\"{' '.join(SUBSETS[name])}\")",
                            sizes[0], sizes[1], "—", None))
    programs = [stripped(embedding_program(work, trees["cuFFT only"], trace), work) for trace in (True, False)]
    run([os.environ.get("CC", "cc"), "-std=c11", "-O2", str(ROOT / "bench" / "empty.c"), "-o", str(work / "empty")])
    empty = stripped(work / "empty", work)
    rows.append(SizeRow("a program embedding the cuFFT-only amalgamation (bench/embed_cufft.c)", programs[0],
                        programs[1], f"≤ {EMBED_GOAL:,}", programs[0] <= EMBED_GOAL,
                        f"the empty program (bench/empty.c) is {empty:,} bytes"))
    archived = [stripped(archive_program(file, work, trace), work) for file, trace in zip(full_files, (True, False))]
    rows.append(SizeRow("a program linking the full libcubind.a, calling one cuFFT wrapper (bench/embed_cufft.c, "
                        "-ldl -lpthread -Wl,--gc-sections)", archived[0], archived[1], "—", None,
                        "the archive is compiled one section a function (-ffunction-sections -fdata-sections): "
                        "--gc-sections keeps the wrapper called and what it reaches"))
    return rows


def section(build: Path, heading: str = "##") -> str:
    rows = measure(build)
    lines = [f"{heading} Sizes (issue 20): what embedding costs", "",
             "Stripped sizes in bytes (`strip -o`), each variant built by the Makefile in "
             f"`{build}/bench/size/` (`{COMMAND}` measures these rows alone), "
             f"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}; "
             "\"without tracing\" is `make TRACE=0` (`-DCUBIND_NO_TRACE` for the amalgamation).", "",
             "| built | with tracing | without tracing | goal (issues 20, 39) | met | detail |", "|---|---|---|---|---|---|"]
    for r in rows:
        met = "—" if r.met is None else ("yes" if r.met else "**no**")
        lines.append(f"| {r.name} | {r.traced:,} | {r.untraced:,} | {r.goal} | {met} | {r.note} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    text = f"# Sizes\n\nWritten by `{COMMAND}` (bench/sizes.py).\n\n" + section(Path(args.build), "##")
    out = ROOT / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
