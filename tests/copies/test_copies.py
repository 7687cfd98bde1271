"""Every copy, and which one is used (issue 19, docs/probe.md "Every copy", docs/loader.md).

Fixture trees are built at test time in a temporary directory: a Python prefix whose site-packages
holds NVIDIA's wheel layouts (nvidia/cu13/lib, nvidia/<name>/lib, ...), a conda prefix, an
LD_LIBRARY_PATH directory and CUDA_PATH / CUDA_HOME trees, filled with the generated mocks
(build/test/mock, one per bound library), a real CUDA 12.4 cuBLAS from the releases cache ("another
release"), and, for each library cubind only locates ([[locate]] in generator/libraries.toml), a
small library compiled here with that library's soname and version query. Everything is iterated
from the configuration; nothing restates a soname. `cubind-probe --all` (text and JSON), the
discovery switch (CUBIND_SEARCH_PYTHON), CUDA_PATH's place in discovery, --cuda-path and the C API
(through ctypes) are driven against these trees.
"""

from __future__ import annotations

import ctypes as C
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from generator import config, release_headers  # noqa: E402  (libraries come from the configuration)

sys.path.insert(0, str(ROOT / "tests" / "probe"))
from probe_schema import validated  # noqa: E402  (every report read is checked against docs/probe.schema.json)

CONFIG = config.load()
BOUND = list(CONFIG.libraries)
LOCATE = list(CONFIG.locate)
PROBE = Path(os.environ.get("CUBIND_PROBE", ROOT / "build" / "bin" / "cubind-probe"))
MOCK_DIR = Path(os.environ.get("CUBIND_TEST_MOCK_DIR", ROOT / "build" / "test" / "mock"))
LIBCUBIND = Path(os.environ.get("CUBIND_TEST_LIBCUBIND", ROOT / "build" / "lib" / "libcubind.so"))
RECORDER = "libcubind_mock_recorder.so"  # the mocks' common dependency, found beside them ($ORIGIN)
# The soname each bound library's mocks carry (generated/build.mk): the newest of a major the bindings
# read, which for a library whose headers are an older release's is not its newest configured soname
MOCK_SONAMES = dict(re.findall(r"^CUBIND_SONAME_(\w+) := (\S+)$", (ROOT / "generated" / "build.mk").read_text(), re.M))


def mock_soname(lib) -> str:
    return MOCK_SONAMES[lib.name]
SITE = "lib/python3.11/site-packages"
# The environment variables of the places: removed, so that only the fixture's places count.
PLACE_VARIABLES = ("LD_LIBRARY_PATH", "CUDA_PATH", "CUDA_HOME", "CONDA_PREFIX", "VIRTUAL_ENV", "PYTHONPATH",
                   "CUBIND_SEARCH_PYTHON")
MINOR, PATCH = 4, 2  # what every compiled located library answers after its major


def major_of(soname: str) -> int:
    return int(soname.split(".so.")[1].split(".")[0])


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in PLACE_VARIABLES and not (k.startswith("CUBIND_") and k.endswith("_PATH"))}
    return {**env, **extra}


def probe(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([str(PROBE), *args], capture_output=True, text=True, env=env, timeout=300)


def place(lib, tree: Path, wheel: int = 0) -> Path:
    """The wheel directory `wheel` of `lib` in the fixture's site-packages."""
    return tree / "venv" / SITE / lib.wheel_dirs[wheel]


def copy_mock(lib, directory: Path, name: str | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / (name or mock_soname(lib))
    shutil.copyfile(MOCK_DIR / mock_soname(lib), target)
    if not (directory / RECORDER).exists():
        shutil.copyfile(MOCK_DIR / RECORDER, directory / RECORDER)
    return target


def located_source(entry, minor: str = str(MINOR)) -> str:
    """C source of a library answering version MAJOR.4.2 through `entry`'s configured query (the minor:
    the C expression `minor`)."""
    major, query = major_of(entry.sonames[0]), entry.version
    if query.kind == "property":
        return (f"int {query.function}(int type, int *value) "
                f"{{ *value = type == 0 ? {major} : type == 1 ? ({minor}) : {PATCH}; return 0; }}\n")
    if query.kind == "encoded":
        e = list(query.encoding) + [0] * (3 - len(query.encoding))
        value = f"{major * e[0]} + ({minor}) * {e[1]} + {PATCH * e[2]}"
        if entry.returns_value:
            return f"#include <stddef.h>\nsize_t {query.function}(void) {{ return (size_t)({value}); }}\n"
        return f"int {query.function}(unsigned *value) {{ *value = (unsigned)({value}); return 0; }}\n"
    if query.kind == "major-minor":
        return (f"int {query.function}(int *major, int *minor) "
                f"{{ *major = {major}; *minor = ({minor}); return 0; }}\n")
    return "int cubind_fixture_located(void) { return 0; }\n"


def expected_version(entry) -> tuple[int, int, int]:
    patch = -1 if entry.version.kind == "major-minor" else PATCH
    return major_of(entry.sonames[0]), MINOR, patch


def compile_located(entry, directory: Path, body: str = "") -> Path:
    """`entry`'s library in `directory`: its soname; a file-name kind's real file carries its full version."""
    directory.mkdir(parents=True, exist_ok=True)
    soname = entry.sonames[0]
    real = soname if entry.version.kind != "file-name" else f"{entry.stem}.so.{major_of(soname)}.{MINOR}.{PATCH}"
    source = directory / f"{entry.name}.c"
    source.write_text(located_source(entry) + body)
    subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", str(directory / real), str(source)],
                   check=True)
    source.unlink()
    if real != soname:
        (directory / soname).symlink_to(real)
    return directory / soname


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> dict:
    """The fixture's places and what was put where: {path: (library, place)}."""
    root = tmp_path_factory.mktemp("copies")
    (root / "home").mkdir()
    put: dict[Path, tuple[str, str]] = {}
    for lib in BOUND:
        if lib.wheel_dirs:
            put[copy_mock(lib, place(lib, root))] = (lib.name, "site-packages")
    for entry in LOCATE:
        put[compile_located(entry, root / "venv" / SITE / entry.wheel_dirs[0])] = (entry.name, "site-packages")
    runtime = CONFIG.library("runtime")
    put[copy_mock(runtime, root / "cuda" / "lib64")] = ("runtime", "CUDA_PATH")
    put[copy_mock(runtime, root / "cuda-home" / "lib64")] = ("runtime", "CUDA_HOME")
    cufft = CONFIG.library("cufft")
    conda = copy_mock(cufft, root / "conda" / "lib")
    put[conda] = ("cufft", "LD_LIBRARY_PATH")  # linked from an LD_LIBRARY_PATH directory, searched first
    cusparse = CONFIG.library("cusparse")
    put[copy_mock(cusparse, root / "conda" / "lib")] = ("cusparse", "conda")
    (root / "ld").mkdir()
    (root / "ld" / cufft.sonames[0]).symlink_to(conda)  # one file, two places: one copy
    curand = CONFIG.library("curand")
    put[copy_mock(curand, root / "ld2")] = ("curand", "LD_LIBRARY_PATH")
    env = clean_env(VIRTUAL_ENV=str(root / "venv"), CONDA_PREFIX=str(root / "conda"), HOME=str(root / "home"),
                    CUDA_PATH=str(root / "cuda"), CUDA_HOME=str(root / "cuda-home"),
                    LD_LIBRARY_PATH=f"{root / 'ld'}:{root / 'ld2'}")
    return {"root": root, "put": put, "env": env}


@pytest.fixture(scope="module")
def report(tree) -> dict:
    result = probe("--all", "--json", env=tree["env"])
    assert result.returncode == 0, result.stderr
    return validated(result.stdout)


def copies_of(report: dict, name: str) -> list[dict]:
    return next(lib for lib in report["copies"] if lib["name"] == name)["copies"]


def copy_at(report: dict, name: str, path: Path) -> dict:
    real = os.path.realpath(path)
    found = [c for c in copies_of(report, name) if c["real_path"] == real]
    assert len(found) == 1, (name, path, copies_of(report, name))
    return found[0]


def test_every_library_is_listed_once_in_order(report: dict) -> None:
    assert [lib["name"] for lib in report["copies"]] == [lib.name for lib in BOUND] + [e.name for e in LOCATE]
    for lib in report["copies"]:
        assert lib["bound"] == (lib["name"] in {b.name for b in BOUND})
        reals = [c["real_path"] for c in lib["copies"]]
        assert len(reals) == len(set(reals)), lib["name"]  # deduplicated by real file


def test_every_fixture_copy_is_found_at_its_place(tree: dict, report: dict) -> None:
    for path, (name, where) in tree["put"].items():
        copy = copy_at(report, name, path)
        assert copy["place"] == where, (path, copy)
        assert copy["error"] is None and copy["soname"] is not None
        assert copy["places"].startswith(f"{where}: ")


def test_a_file_at_two_places_is_one_copy_with_both(tree: dict, report: dict) -> None:
    cufft = CONFIG.library("cufft")
    copy = copy_at(report, "cufft", tree["root"] / "conda" / "lib" / cufft.sonames[0])
    assert copy["place"] == "LD_LIBRARY_PATH"  # searched first
    assert "conda: " in copy["places"] and "LD_LIBRARY_PATH: " in copy["places"]


@pytest.mark.parametrize("entry", LOCATE, ids=[e.name for e in LOCATE])
def test_located_library_version_and_release(tree: dict, report: dict, entry) -> None:
    copy = copy_at(report, entry.name, tree["root"] / "venv" / SITE / entry.wheel_dirs[0] / entry.sonames[0])
    assert (copy["version"]["major"], copy["version"]["minor"], copy["version"]["patch"]) == \
        tuple(None if v < 0 else v for v in expected_version(entry))
    assert copy["version_source"] == ("file-name" if entry.version.kind == "file-name" else "query")
    if entry.version.function:
        assert copy["version_detail"] == entry.version.function
    major = major_of(entry.sonames[0])
    cuda = (str(major) if entry.cuda_from_major else
            str(dict(entry.cuda_of_major)[major]) if major in dict(entry.cuda_of_major) else None)
    if cuda is None:
        found = re.findall(r"/cu(?:da-)?(\d+)(?=/|(?<=\d)\.)", copy["real_path"])  # the one nearest the file
        cuda = found[-1] if found else None
    assert copy["release"] == cuda


def unsaid_releases(entries) -> list:
    """The located libraries whose release neither their configuration nor their wheel directory says."""
    return [e for e in entries if not e.cuda_from_major and major_of(e.sonames[0]) not in dict(e.cuda_of_major)
            and not re.search(r"(^|/)cu\d+/", e.wheel_dirs[0] if e.wheel_dirs else "")]


def test_a_toolkit_directory_says_the_release(tmp_path: Path) -> None:
    """A located library whose configuration and wheel say no CUDA release, in a toolkit's directory
    (cuda-12.4/lib64, as /usr/local/cuda-13.0 holds cuDNN's parts on a machine): its release is the
    toolkit's major (issue 37: `CUDA ?` for cuDNN's parts)."""
    entries = unsaid_releases(LOCATE)
    if not entries:
        pytest.skip("every located library's release is said by its configuration or its wheel")
    root = tmp_path / "cuda-12.4"
    for entry in entries:
        compile_located(entry, root / "lib64")
    result = probe("--all", "--json", env=clean_env(CUDA_PATH=str(root), HOME=str(tmp_path), PATH="/nonexistent"))
    data = validated(result.stdout)
    for entry in entries:
        assert copy_at(data, entry.name, root / "lib64" / entry.sonames[0])["release"] == "12"


def test_every_copy_says_its_release_or_why_not(tree: dict) -> None:
    text = probe("--all", env=tree["env"]).stdout
    copies = text[text.index("\nEvery copy: "):].split("\nNo copy of:")[0]
    lines = [line for line in copies.splitlines() if line.startswith("      version ")]
    assert lines and "CUDA ?" not in copies
    for line in lines:
        assert re.search(r"\), CUDA (\d[\d.]*|release unknown \([^)]+\)); at ", line), line


def test_bound_copies_answer_as_the_loader_does(tree: dict) -> None:
    """Each bound library, loaded by cubind from the site-packages copy (CUBIND_<LIB>_PATH): the copy's
    version, asked in a child, is what cubind_library_info says of the same file, and it is the one taken."""
    env = dict(tree["env"])
    wheel = [lib for lib in BOUND if lib.wheel_dirs]
    for lib in wheel:
        env[lib.env_var] = str(place(lib, tree["root"]) / mock_soname(lib))
    result = probe("--all", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = validated(result.stdout)
    for lib in wheel:
        info = next(i for i in data["libraries"] if i["name"] == lib.name)
        assert info["found"], info["error"]
        copy = copy_at(data, lib.name, place(lib, tree["root"]) / mock_soname(lib))
        assert copy["chosen"] and copy["chosen_by"] == lib.env_var
        assert copy["version_source"] == ("file-name" if lib.version.kind == "file-name" else "query"), \
            copy["version_detail"]
        version = info["version"]
        if isinstance(version, str):  # before the probe's JSON versions became objects
            parts = [int(p) for p in version.split(".")] + [None] * 3
            version = {"major": parts[0], "minor": parts[1], "patch": parts[2]}
        assert copy["version"] == version
        assert copy["release"] == info["release_text"]  # a copy's release is the text ("13.0")
        assert sum(c["chosen"] for c in copies_of(data, lib.name)) == 1


def test_a_library_of_another_release(tree: dict, tmp_path: Path) -> None:
    release = next(r for r in CONFIG.releases if "cublas" in r.units)
    source = release_headers.library_dir(release_headers.cache_root(), release)
    cublas = CONFIG.library("cublas")
    files = sorted(source.glob(f"{cublas.sonames[0].split('.so')[0]}*.so.*")) if source.is_dir() else []
    if not files:
        pytest.skip(f"no CUDA {release.name} cuBLAS in {source} (make fetch-release-libs)")
    wheel = tmp_path / "venv" / SITE / cublas.wheel_dirs[-1]
    wheel.mkdir(parents=True)
    for f in source.iterdir():  # cuBLAS and the cuBLASLt it needs, links as they are
        if f.name.startswith(("libcublas.", "libcublasLt.")):
            shutil.copy(f, wheel / f.name, follow_symlinks=False)
    env = clean_env(VIRTUAL_ENV=str(tmp_path / "venv"), HOME=str(tmp_path))
    result = probe("--all", "--json", env=env)
    assert result.returncode == 0, result.stderr
    copy = next(c for c in copies_of(validated(result.stdout), "cublas") if c["real_path"].startswith(str(wheel)))
    assert copy["place"] == "site-packages"
    assert copy["version"]["major"] == int(release.name.split(".")[0])
    assert copy["version"]["minor"] == int(release.name.split(".")[1])
    assert copy["release"] == release.name


def test_the_text_report_lists_every_copy(tree: dict, report: dict) -> None:
    result = probe("--all", env=tree["env"])
    assert result.returncode == 0, result.stderr
    text = result.stdout[result.stdout.index("\nEvery copy: "):]
    for lib in report["copies"]:
        for copy in lib["copies"]:
            assert copy["path"] in text
    missing = text.rsplit("\nNo copy of:", 1)[1].split()
    assert missing == [lib["name"] for lib in report["copies"] if not lib["copies"]]


def test_the_switch_searches_the_wheels_before_the_system(tree: dict) -> None:
    env = {k: v for k, v in tree["env"].items() if k not in ("LD_LIBRARY_PATH", "CUDA_PATH", "CUDA_HOME")}
    on = validated(probe("--json", env={**env, "CUBIND_SEARCH_PYTHON": "1"}).stdout)
    off = validated(probe("--json", env=env).stdout)
    for lib in BOUND:
        if not lib.wheel_dirs:
            continue
        taken = next(i for i in on["libraries"] if i["name"] == lib.name)
        # cuBLASLt after cuBLAS: "beside a library it is used with", which is the same wheel directory
        assert taken["found_by"] in ("site-packages", "beside a library it is used with"), taken
        assert taken["path"] == str(place(lib, tree["root"]) / mock_soname(lib))
        assert next(i for i in off["libraries"] if i["name"] == lib.name)["found_by"] != "site-packages"


def test_the_switch_puts_the_wheels_before_cuda_home(tree: dict) -> None:
    """CUDA_HOME set (as images set it for everyone) and the switch on: the wheel's copy, as a Python
    program of that environment gets it; the switch off: CUDA_HOME's (docs/loader.md, steps 5 and 6)."""
    runtime = CONFIG.library("runtime")
    assert runtime.wheel_dirs, "the runtime has a wheel (nvidia/cu13/lib)"
    env = {k: v for k, v in tree["env"].items() if k not in ("LD_LIBRARY_PATH", "CUDA_PATH")}
    wheel = str(place(runtime, tree["root"]) / runtime.sonames[0])
    home = str(tree["root"] / "cuda-home" / "lib64" / runtime.sonames[0])
    for extra, expected in (({"CUBIND_SEARCH_PYTHON": "1"}, ("site-packages", wheel)), ({}, ("CUDA_HOME", home))):
        result = probe("--all", "--json", env={**env, **extra})
        assert result.returncode == 0, result.stderr
        data = validated(result.stdout)
        info = next(i for i in data["libraries"] if i["name"] == "runtime")
        assert (info["found_by"], info["path"]) == expected, extra
        chosen = [c for c in copies_of(data, "runtime") if c["chosen"]]
        assert [(c["chosen_by"], c["real_path"]) for c in chosen] == [(expected[0], os.path.realpath(expected[1]))]
    # CUDA_PATH too comes after the wheels when the switch is on
    on = validated(probe("--json", env={**env, "CUDA_PATH": str(tree["root"] / "cuda"),
                                        "CUBIND_SEARCH_PYTHON": "1"}).stdout)
    assert next(i for i in on["libraries"] if i["name"] == "runtime")["path"] == wheel


def test_cuda_path_comes_before_cuda_home_and_the_ld_so_cache(tree: dict) -> None:
    runtime = CONFIG.library("runtime")
    env = {k: v for k, v in tree["env"].items() if k != "LD_LIBRARY_PATH"}
    data = validated(probe("--json", env=env).stdout)
    info = next(i for i in data["libraries"] if i["name"] == "runtime")
    assert (info["found_by"], info["path"]) == ("CUDA_PATH", str(tree["root"] / "cuda" / "lib64" / runtime.sonames[0]))
    env.pop("CUDA_PATH")
    data = validated(probe("--json", env=env).stdout)
    info = next(i for i in data["libraries"] if i["name"] == "runtime")
    assert (info["found_by"], info["path"]) == ("CUDA_HOME",
                                               str(tree["root"] / "cuda-home" / "lib64" / runtime.sonames[0]))


def test_cuda_path_option_probes_that_installation(tree: dict) -> None:
    runtime = CONFIG.library("runtime")
    env = {k: v for k, v in tree["env"].items() if k not in ("LD_LIBRARY_PATH", "CUDA_PATH")}
    given = tree["root"] / "cuda"
    result = probe("--all", "--json", "--cuda-path", str(given), env=env)
    assert result.returncode == 0, result.stderr
    data = validated(result.stdout)
    info = next(i for i in data["libraries"] if i["name"] == "runtime")
    assert (info["found_by"], info["path"]) == ("CUDA_PATH", str(given / "lib64" / runtime.sonames[0]))
    first = copies_of(data, "runtime")[0]
    assert first["place"] == "--cuda-path" and first["chosen"]
    assert probe("--cuda-path", "relative/dir", env=env).returncode == 2
    assert probe("--cuda-path", env=env).returncode == 2


class Options(C.Structure):  # struct cubind_copies_options (cubind/copies.h)
    _fields_ = [("size", C.c_size_t), ("flags", C.c_uint), ("library", C.c_char_p), ("cuda_path", C.c_char_p)]


class Copy(C.Structure):  # struct cubind_copy
    _fields_ = [("size", C.c_size_t), ("library", C.c_char_p), ("bound", C.c_int), ("path", C.c_char_p),
                ("real_path", C.c_char_p), ("place", C.c_char_p), ("places", C.c_char_p), ("soname", C.c_char_p),
                ("version_major", C.c_int), ("version_minor", C.c_int), ("version_patch", C.c_int),
                ("version_source", C.c_char_p), ("version_detail", C.c_char_p), ("release", C.c_char_p),
                ("chosen", C.c_int), ("chosen_by", C.c_char_p), ("error", C.c_char_p)]


API_SCRIPT = r"""
import ctypes as C, json, sys
sys.path.insert(0, sys.argv[1])
from test_copies import Options, Copy
lib = C.CDLL(sys.argv[2])
lib.cubind_copies_get.argtypes = [C.c_void_p, C.c_size_t, C.POINTER(Copy)]
lib.cubind_copies_count.argtypes = [C.c_void_p]
lib.cubind_copies_count.restype = C.c_size_t
lib.cubind_copies_free.argtypes = [C.c_void_p]
lib.cubind_locatable_name.restype = C.c_char_p
out = {"names": [], "lists": {}}
i = 0
while lib.cubind_locatable_name(C.c_size_t(i)) is not None:
    out["names"].append(lib.cubind_locatable_name(C.c_size_t(i)).decode()); i += 1
def find(**kw):
    opts = Options(C.sizeof(Options), kw.get("flags", 0), kw.get("library"), kw.get("cuda_path"))
    handle = C.c_void_p()
    rc = lib.cubind_copies_find(C.byref(opts) if kw.get("size", 1) else C.byref(Options(0)), C.byref(handle))
    copies = []
    for k in range(lib.cubind_copies_count(handle)):
        c = Copy(); c.size = C.sizeof(Copy)
        assert lib.cubind_copies_get(handle, k, C.byref(c)) == 0
        copies.append({f: (getattr(c, f).decode() if isinstance(getattr(c, f), bytes) else getattr(c, f))
                       for f, _ in Copy._fields_ if f != "size"})
    bad = Copy(); bad.size = C.sizeof(Copy)
    out_of_range = lib.cubind_copies_get(handle, len(copies), C.byref(bad))
    lib.cubind_copies_free(handle)
    return {"rc": rc, "copies": copies, "out_of_range": out_of_range}
for key, kw in json.loads(sys.argv[3]).items():
    if "library" in kw: kw["library"] = kw["library"].encode()
    if "cuda_path" in kw: kw["cuda_path"] = kw["cuda_path"].encode()
    out["lists"][key] = find(**kw)
maps = open("/proc/self/maps").read()
out["mapped"] = [line.split()[-1] for line in maps.splitlines() if sys.argv[4] in line]
print(json.dumps(out))
"""


def api(tree: dict, calls: dict, env: dict[str, str] | None = None) -> dict:
    result = subprocess.run([sys.executable, "-c", API_SCRIPT, str(Path(__file__).parent), str(LIBCUBIND),
                             json.dumps(calls), str(tree["root"])], capture_output=True, text=True,
                            env=env or tree["env"], timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_c_api(tree: dict, report: dict) -> None:
    located = LOCATE[0]
    out = api(tree, {"all": {}, "one": {"library": located.name}, "no_query": {"flags": 2},
                     "unknown": {"library": "no-such-library"}, "relative": {"cuda_path": "relative"},
                     "size0": {"size": 0}})
    assert out["names"] == [lib["name"] for lib in report["copies"]]
    assert out["lists"]["all"]["rc"] == 0 and out["lists"]["all"]["out_of_range"] == 4
    by_probe = sorted(c["real_path"] for lib in report["copies"] for c in lib["copies"])
    assert sorted(c["real_path"] for c in out["lists"]["all"]["copies"]) == by_probe
    assert {c["library"] for c in out["lists"]["one"]["copies"]} == {located.name}
    assert all(c["version_source"] != "query" for c in out["lists"]["no_query"]["copies"])
    for bad in ("unknown", "relative", "size0"):
        assert out["lists"][bad]["rc"] == 4 and out["lists"][bad]["copies"] == []
    # asked in children: none of the fixture's libraries is mapped in the calling process
    assert out["mapped"] == []


def test_a_copy_that_hangs_is_abandoned(tree: dict, tmp_path: Path) -> None:
    entry = next(e for e in LOCATE if e.version.function)
    directory = tmp_path / "venv" / SITE / entry.wheel_dirs[0]
    compile_located(entry, directory,
                    "#include <unistd.h>\n__attribute__((constructor)) static void hang(void) { for (;;) pause(); }\n")
    env = clean_env(VIRTUAL_ENV=str(tmp_path / "venv"), HOME=str(tmp_path))
    out = api({"root": tmp_path, "env": env}, {"one": {"library": entry.name}})
    copy = next(c for c in out["lists"]["one"]["copies"] if c["real_path"].startswith(str(directory)))
    assert "did not answer" in copy["version_detail"]
    assert copy["version_source"] in ("file-name", "none")


@pytest.mark.parametrize("preloaded", [False, True])
def test_each_copy_answers_with_its_own_parts(tmp_path: Path, preloaded: bool) -> None:
    """A library whose version query answers through a part it loads with dlopen by soname
    (libcudnn.so.9 through libcudnn_graph.so.9): two copies in two directories, of two versions, each
    with its parts beside it (the part asked needs another, DT_NEEDED, whose name sorts after it), and
    a third pair on LD_LIBRARY_PATH that ld.so would find first. Each copy says its own version: the
    child loads the copy's parts from beside it first, each after the part it needs. `preloaded`: the
    probe itself has the third pair loaded (as it has the cuDNN it loads for its report; the child
    inherits it), which must not answer for either copy: the child loads in a namespace of its own."""
    entry = next(e for e in LOCATE if e.version.kind in ("property", "encoded"))
    major = major_of(entry.sonames[0])
    part, base = f"{entry.stem}_fixturepart.so.{major}", f"{entry.stem}_fixturezbase.so.{major}"
    reader = (f"#include <dlfcn.h>\nstatic int part_minor(void) {{ void *h = dlopen(\"{part}\", RTLD_NOW); "
              "int (*f)(void) = h ? (int (*)(void))dlsym(h, \"cubind_fixture_part_minor\") : 0; "
              "return f ? f() : 99; }\n")

    def build(directory: Path, minor: int | None, library: bool = True) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        source = directory / "part.c"
        source.write_text(f"int cubind_fixture_base_minor(void) {{ return {minor}; }}\n")
        subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{base}", "-o", str(directory / base), str(source)],
                       check=True)
        source.write_text("int cubind_fixture_base_minor(void);\n"
                          "int cubind_fixture_part_minor(void) { return cubind_fixture_base_minor(); }\n")
        subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{part}", "-o", str(directory / part), str(source),
                        str(directory / base)], check=True)
        if library:
            source.write_text(reader + located_source(entry, "part_minor()"))
            subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{entry.sonames[0]}", "-o",
                            str(directory / entry.sonames[0]), str(source), "-ldl"], check=True)
        source.unlink()

    wheel, other, first = tmp_path / "venv" / SITE / entry.wheel_dirs[0], tmp_path / "other", tmp_path / "first"
    build(wheel, 7)
    build(other, 8)
    build(first, 9, library=False)  # only a part, of neither copy, found first by name
    env = clean_env(VIRTUAL_ENV=str(tmp_path / "venv"), HOME=str(tmp_path), LD_LIBRARY_PATH=f"{first}:{other}")
    if preloaded:
        env["LD_PRELOAD"] = f"{first / base}:{first / part}"
    result = probe("--all", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = validated(result.stdout)
    for directory, minor in ((wheel, 7), (other, 8)):
        copy = copy_at(data, entry.name, directory / entry.sonames[0])
        assert copy["version_source"] == "query", copy
        assert (copy["version"]["major"], copy["version"]["minor"]) == (major, minor), copy
        assert copy["version_detail"] == \
            f"{entry.version.function}, asked with 2 parts loaded from beside it: {base}, {part}"


def test_a_copy_loaded_from_elsewhere_is_listed(tree: dict, tmp_path: Path) -> None:
    """A file cubind loads from no place it searches (CUBIND_<LIB>_PATH naming it) is a copy too,
    at the place of the step that found it, with its version. (Every library is a mock here: a mock
    and the real library it stands for, loaded together, would clash in ld.so's symbol versions.)"""
    env = dict(tree["env"])
    for lib in BOUND:
        if lib.wheel_dirs:
            env[lib.env_var] = str(place(lib, tree["root"]) / mock_soname(lib))
    lib = next(lib for lib in BOUND if lib.wheel_dirs and lib.version.kind != "file-name")
    path = copy_mock(lib, tmp_path / "elsewhere")
    env[lib.env_var] = str(path)
    result = probe("--all", "--json", env=env)
    assert result.returncode == 0, result.stderr
    copy = copy_at(validated(result.stdout), lib.name, path)
    assert (copy["place"], copy["chosen"], copy["chosen_by"]) == (lib.env_var, True, lib.env_var)
    assert copy["version_source"] == "query" and copy["version"]["major"] is not None


# Issue 25: a directory named by the environment is a directory, never a pattern. Each variable with
# the layout cubind appends to it (its own glob); the named directory holds "[1]", which glob would
# read as a class matching the sibling "...1", holding other copies.
NAMED_PLACES = {
    "VIRTUAL_ENV": SITE,
    "CONDA_PREFIX": SITE,
    "HOME": ".local/" + SITE,
    "PYENV_ROOT": "versions/3.11.9/" + SITE,
}


@pytest.mark.parametrize("variable", list(NAMED_PLACES))
def test_a_named_directory_is_not_a_pattern(tmp_path: Path, variable: str) -> None:
    named, other = tmp_path / "x" / "named[1]", tmp_path / "x" / "named1"
    wheel = [lib for lib in BOUND if lib.wheel_dirs]
    assert wheel, "a bound library has a wheel"
    for prefix in (named, other):
        for lib in wheel:
            copy_mock(lib, prefix / NAMED_PLACES[variable] / lib.wheel_dirs[0])
    env = {k: v for k, v in clean_env().items() if k != "PYENV_ROOT"}
    env.update({"HOME": str(tmp_path / "home"), "PATH": "/nonexistent", variable: str(named)})
    result = probe("--all", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = validated(result.stdout)
    for lib in wheel:
        reals = [c["real_path"] for c in copies_of(data, lib.name)]
        assert os.path.realpath(named / NAMED_PLACES[variable] / lib.wheel_dirs[0] / mock_soname(lib)) in reals
        assert not [r for r in reals if r.startswith(f"{os.path.realpath(other)}/")], (lib.name, reals)
    # the switch on: every library is loaded from the named directory, none from its sibling
    data = validated(probe("--json", env={**env, "CUBIND_SEARCH_PYTHON": "1"}).stdout)
    for lib in wheel:
        info = next(i for i in data["libraries"] if i["name"] == lib.name)
        assert info["path"] == str(named / NAMED_PLACES[variable] / lib.wheel_dirs[0] / mock_soname(lib)), info


def test_a_path_dlopen_would_rewrite_is_refused(tmp_path: Path) -> None:
    """VIRTUAL_ENV=<tmp>/v$ORIGIN: dlopen would replace $ORIGIN (a dynamic string token) and load
    another file than the one listed, so each copy there says so in `error` and is never asked."""
    wheel = [lib for lib in BOUND if lib.wheel_dirs]
    named = tmp_path / "v$ORIGIN"
    for lib in wheel:
        copy_mock(lib, named / SITE / lib.wheel_dirs[0])
    env = clean_env(VIRTUAL_ENV=str(named), HOME=str(tmp_path), PATH="/nonexistent")
    result = probe("--all", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = validated(result.stdout)
    for lib in wheel:
        copy = copy_at(data, lib.name, named / SITE / lib.wheel_dirs[0] / mock_soname(lib))
        assert copy["error"] == "its path holds $ORIGIN, which dlopen replaces (a dynamic string token)", copy
        assert copy["version_detail"].startswith(("not asked: it cannot be loaded; ", "no version query; ")), copy


def test_a_release_is_read_from_the_wheel_not_the_named_directory(tmp_path: Path) -> None:
    """A located library whose release comes from its wheel's cu<N> directory (nvidia/cu13/lib), in a
    virtual environment under a directory named cu99: the wheel's release, not the user's directory's."""
    entries = [e for e in LOCATE if not e.cuda_from_major and major_of(e.sonames[0]) not in dict(e.cuda_of_major)
               and re.search(r"(^|/)cu\d+/", e.wheel_dirs[0])]
    if not entries:
        pytest.skip("no located library whose release its wheel directory says")
    venv = tmp_path / "cu99" / "venv"
    for entry in entries:
        compile_located(entry, venv / SITE / entry.wheel_dirs[0])
    result = probe("--all", "--json", env=clean_env(VIRTUAL_ENV=str(venv), HOME=str(tmp_path), PATH="/nonexistent"))
    assert result.returncode == 0, result.stderr
    data = validated(result.stdout)
    for entry in entries:
        copy = copy_at(data, entry.name, venv / SITE / entry.wheel_dirs[0] / entry.sonames[0])
        assert copy["release"] == re.findall(r"cu(\d+)/", entry.wheel_dirs[0])[-1], copy


def copy_of_wheel(report: dict, lib, directory: Path, name: str) -> dict:
    return copy_at(report, lib.name, directory / name)


def test_a_file_that_is_not_a_library_is_refused_before_any_child(tmp_path: Path) -> None:
    """A script, random bytes, an object file and an executable named like a library: each listed
    with the reason it cannot be loaded in `error`, and no child asked its version (docs/probe.md)."""
    lib = next(lib for lib in BOUND if lib.wheel_dirs and lib.version.kind != "file-name")
    directory = tmp_path / "venv" / SITE / lib.wheel_dirs[0]
    directory.mkdir(parents=True)
    soname = mock_soname(lib)
    (directory / f"{soname}.1").write_text("#!/bin/sh\necho not a library\n")
    noise = random.Random(25).randbytes(100)
    (directory / f"{soname}.2").write_bytes(b"\0" + noise[1:])  # never ELF's magic number
    source = tmp_path / "main.c"
    source.write_text("int main(void) { return 0; }\n")
    subprocess.run(["cc", "-c", "-o", str(directory / f"{soname}.3"), str(source)], check=True)
    subprocess.run(["cc", "-no-pie", "-o", str(directory / f"{soname}.4"), str(source)], check=True)
    reasons = {1: "not an ELF file: a script", 2: "not an ELF file", 3: "not a shared object",
               4: "not a shared object"}
    env = clean_env(VIRTUAL_ENV=str(tmp_path / "venv"), HOME=str(tmp_path), PATH="/nonexistent")
    result = probe("--all", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = validated(result.stdout)
    for n, reason in reasons.items():
        copy = copy_of_wheel(data, lib, directory, f"{soname}.{n}")
        assert copy["error"] is not None and copy["error"].startswith(reason), copy
        assert copy["version_source"] == "file-name", copy
        assert copy["version_detail"].startswith("not asked: it cannot be loaded; file name "), copy


def test_the_children_per_directory_are_bounded(tmp_path: Path) -> None:
    """2,000 one-byte files named like a library cost no child at all; ten loadable copies of one
    library in one directory cost a bounded number of children, the others' versions read from their
    names, each saying why (docs/probe.md). Counted, not timed."""
    lib = next(lib for lib in BOUND if lib.wheel_dirs and lib.version.kind != "file-name")
    soname = mock_soname(lib)
    conda = tmp_path / "conda" / "lib"
    conda.mkdir(parents=True)
    for n in range(2000):
        (conda / f"{soname}.{n}").write_bytes(b"x")
    wheel = tmp_path / "venv" / SITE / lib.wheel_dirs[0]
    for n in range(10):
        copy_mock(lib, wheel, f"{soname}.{n}")
    env = clean_env(VIRTUAL_ENV=str(tmp_path / "venv"), CONDA_PREFIX=str(tmp_path / "conda"), HOME=str(tmp_path),
                    PATH="/nonexistent")
    result = probe("--all", "--json", env=env)
    assert result.returncode == 0, result.stderr
    copies = copies_of(validated(result.stdout), lib.name)
    in_conda = [c for c in copies if c["real_path"].startswith(f"{os.path.realpath(conda)}/")]
    assert len(in_conda) == 2000
    assert all(c["error"] == "not an ELF file: 1 bytes, too short for an ELF header" for c in in_conda)
    assert all(c["version_detail"].startswith("not asked: it cannot be loaded; ") for c in in_conda)
    in_wheel = [c for c in copies if c["real_path"].startswith(f"{os.path.realpath(wheel)}/")]
    assert len(in_wheel) == 10 and all(c["error"] is None for c in in_wheel)
    asked = [c for c in in_wheel if c["version_source"] == "query"]
    bounded = [c for c in in_wheel if c["version_source"] != "query"]
    limits = {re.fullmatch(rf"not asked: (\d+) copies of {lib.name} in its directory were asked already "
                           rf"\(at most \1\); file name {re.escape(soname)}\.\d+", c["version_detail"]).group(1)
              for c in bounded}
    assert len(limits) == 1 and 0 < len(asked) == int(limits.pop()) < 10, [c["version_detail"] for c in in_wheel]
    assert all(c["version_source"] == "file-name" for c in bounded)
