"""How long FFI declaration parsers take to read cubind's cdef files: the CPU time of cffi's
`FFI().cdef` and of LuaJIT's `ffi.cdef` over a list of files, in a fresh process each run (what a
program pays at every start), for bench/report.py.

Each run reports the parse alone (process CPU time around the cdef calls: time.process_time,
LuaJIT's os.clock) and the whole process (user + system, interpreter and `import cffi` included).
"""

from __future__ import annotations

import resource
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path

CFFI = """
import sys, time
import cffi
ffi = cffi.FFI()
start = time.process_time()
for path in sys.argv[1:]:
    with open(path) as f:
        ffi.cdef(f.read())
print(time.process_time() - start)
"""

LUAJIT = """
local ffi = require("ffi")
local start = os.clock()
for i = 1, #arg do
    local f = assert(io.open(arg[i]))
    ffi.cdef(f:read("*a"))
    f:close()
end
print(os.clock() - start)
"""

# parser -> (command, the script on its standard input or None); the files follow the command
PARSERS = {"cffi": (["/usr/bin/python3", "-c", CFFI], None), "LuaJIT": (["luajit", "-"], LUAJIT)}


@dataclass
class ParseTime:
    parser: str
    files: list[Path]
    parse: list[float]    # seconds of CPU of the cdef calls, each run
    process: list[float]  # seconds of CPU of the whole process, each run

    @property
    def median(self) -> float:
        return statistics.median(self.parse)

    @property
    def process_median(self) -> float:
        return statistics.median(self.process)

    @property
    def size(self) -> int:
        return sum(f.stat().st_size for f in self.files)


def parse_time(parser: str, files: list[Path], runs: int) -> ParseTime:
    result = ParseTime(parser, files, [], [])
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        command, script = PARSERS[parser]
        done = subprocess.run([*command, *(str(f) for f in files)], capture_output=True, text=True,
                              input=script or "")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"bench: {parser} refused {' '.join(map(str, files))}:\n{done.stdout}{done.stderr}")
        result.parse.append(float(done.stdout.split()[-1]))
        result.process.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return result


def measure(cdef_dir: Path, module: str, runs: int) -> list[tuple[ParseTime, ParseTime]]:
    """(the whole file, common.h and the module's file) for each parser."""
    whole = [cdef_dir / "cubind.h"]
    part = [cdef_dir / "common.h", cdef_dir / f"{module}.h"]
    if not part[1].is_file():
        raise SystemExit(f"bench: no cdef file for module {module} in {cdef_dir}")
    return [(parse_time(parser, whole, runs), parse_time(parser, part, runs)) for parser in PARSERS]
