"""cubind-probe --check FILE: programs built here (with $CUBIND_TEST_CC against $CUBIND_TEST_BUILD)
that use cubind functions, one of them a function the half mocks lack; a CUDA library they need,
found or not; a program linked against another version node of libcubind; a program that is not
CUDA's; files that are not ELF, or are ELF files cut short or corrupted. Text and JSON (checked
against docs/probe.schema.json), and the exit status, which says whether the program can run here.

The functions are picked from the generated API reference (generated/docs/api/*.md), the
libraries and their sonames from the configuration: nothing here names a CUDA function.
"""

import json
import os
import random
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from test_probe import HALF_MOCK_DIR, LIBRARIES, MOCK_DIR, ROOT, header_version, mock_env, mock_soname, probe, validated

BUILD = Path(os.environ.get("CUBIND_TEST_BUILD", ROOT / "build"))
# the compiler, with the sanitizer flags of a sanitizer build: its libcubind may need their run time
CC = shlex.split(os.environ.get("CUBIND_TEST_CC", "cc"))
ROW = re.compile(r"^\| \[`(cubind_\w+)`\]\(#cubind_\w+\) \| `(\w+)` \|")
LIBRARY = re.compile(r"^Module `\w+` of library `(\w+)`")
EXIT = {"runs": 0, "runs-partly": 3, "cannot-start": 4, "unreadable": 5}


def wrappers() -> dict[str, list[tuple[str, str]]]:
    """library -> [(cubind name, C API name)], from the generated API reference."""
    result: dict[str, list[tuple[str, str]]] = {}
    for page in sorted((ROOT / "generated" / "docs" / "api").glob("*.md")):
        library = None
        for line in page.read_text().splitlines():
            if m := LIBRARY.match(line):
                library = m.group(1)
            elif (m := ROW.match(line)) and library is not None:
                result.setdefault(library, []).append((m.group(1), m.group(2)))
    return result


def build(tmp: Path, name: str, symbols: list[str], *link: str, shared: bool = False) -> Path:
    """A program (or shared library) that refers to `symbols` (never run: only read by --check)."""
    source = tmp / f"{name}.c"
    declarations = "".join(f"extern void {s}(void);\n" for s in symbols)
    table = ", ".join(symbols) if symbols else "0"
    source.write_text(f"{declarations}void (*const volatile used[])(void) = {{{table}}};\n"
                      + ("" if shared else "int main(void) { return used[0] == 0; }\n"))
    out = tmp / (f"lib{name}.so" if shared else name)
    command = [*CC, str(source), "-o", str(out), *(["-shared", "-fPIC"] if shared else []), *link]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command)}\n{result.stderr}"
    return out


def cubind_link() -> list[str]:
    lib = BUILD / "lib"
    assert (lib / "libcubind.so").exists(), "build libcubind first (make test-probe does)"
    return [f"-L{lib}", "-lcubind", f"-Wl,-rpath,{lib}"]


# The reason a program that uses CUDA is "runs-partly" where no GPU can be used (the mocks' driver sees
# none): the tests of what else the check finds set it aside (without_gpu_reason).
NO_GPU = "it starts, but no GPU can be used here: "


def without_gpu_reason(report: dict, status: int) -> tuple[dict, int]:
    """The check's report and exit status as they would be on a machine with a GPU: the no-GPU reason
    set aside (it is tested by test_no_gpu_makes_a_cuda_program_run_partly)."""
    reasons = [r for r in report["reasons"] if not r.startswith(NO_GPU)]
    if status == 3 and len(reasons) < len(report["reasons"]) and not reasons:
        return {**report, "verdict": "runs", "exit_status": 0, "reasons": []}, 0
    return {**report, "reasons": reasons}, status


def check(path: Path, env: dict[str, str] | None = None) -> tuple[dict, str, int]:
    """--check as JSON (validated) and as text; both must give the same exit status."""
    as_json = probe("--json", "--check", str(path), env=env)
    as_text = probe("--check", str(path), env=env)
    assert as_json.returncode == as_text.returncode, (as_json.stderr, as_text.stderr)
    assert as_json.returncode >= 0, "killed by a signal"
    report = validated(as_json.stdout)
    assert "libraries" not in report
    assert report["check"]["exit_status"] == as_json.returncode == EXIT[report["check"]["verdict"]]
    assert f"verdict: {report['check']['verdict']} (exit status {as_json.returncode})" in as_text.stdout
    return report["check"], as_text.stdout, as_json.returncode


@pytest.fixture(scope="module")
def half_report() -> dict:
    result = probe("--json", env=mock_env(HALF_MOCK_DIR))
    assert result.returncode == 0
    return {lib["name"]: lib for lib in validated(result.stdout)["libraries"]}


@pytest.fixture(scope="module")
def picked(half_report: dict) -> list[tuple[str, str, str, bool]]:
    """Per library: a wrapper the half mock serves and one it lacks: (library, cubind, C name, missing)."""
    chosen = []
    for library, functions in wrappers().items():
        missing = set(half_report[library]["missing"])
        served = [f for f in functions if f[1] not in missing]
        lacking = [f for f in functions if f[1] in missing]
        for group, is_missing in ((served, False), (lacking, True)):
            if group:
                chosen.append((library, group[len(group) // 2][0], group[len(group) // 2][1], is_missing))
    assert any(m for *_, m in chosen) and not all(m for *_, m in chosen)
    return chosen


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory, picked: list) -> Path:
    """Uses the picked wrappers and two functions of cubind's own API, and needs a mock CUDA library."""
    if MOCK_DIR is None:
        pytest.skip("no mock tree")
    tmp = tmp_path_factory.mktemp("check")
    needed = mock_soname(LIBRARIES[picked[0][0]])
    return build(tmp, "uses", [c for _, c, _, _ in picked] + ["cubind_load", "cubind_function_available"],
                 *cubind_link(), "-Wl,--no-as-needed", str(Path(MOCK_DIR) / needed), f"-Wl,-rpath,{MOCK_DIR}",
                 f"-Wl,-rpath-link,{MOCK_DIR}")


def test_a_function_the_half_mocks_lack_is_reported(program: Path, picked: list) -> None:
    report, text, status = check(program, env=mock_env(HALF_MOCK_DIR))
    major, minor, _ = header_version()
    node = f"CUBIND_{major}.{minor}" if major == 0 else f"CUBIND_{major}"
    functions = {f["symbol"]: f for f in report["functions"]}
    assert set(functions) == {c for _, c, _, _ in picked} | {"cubind_load", "cubind_function_available"}
    for library, cubind, name, missing in picked:
        f = functions[cubind]
        assert (f["kind"], f["name"], f["library"]) == ("wrapper", name, library)
        assert f["state"] == ("missing" if missing else "callable"), f
        assert f["exported"] and f["version_node"] == node and f["from"] == f"libcubind.so.{major}"
        assert (f["reason"] is not None) == missing
        assert f"{f['state']} " in text and f"{cubind}@{node} ({name}, {library})" in text
    assert functions["cubind_load"]["kind"] == functions["cubind_load"]["state"] == "api"
    assert report["cubind"]["needed"] and report["cubind"]["version_nodes_asked"] == [node]
    # linked with the run path of the build tree: the libcubind it loads is the probe's
    assert Path(report["cubind"]["program_path"]).resolve() == (BUILD / "lib" / f"libcubind.so.{major}").resolve()
    assert report["cubind"]["same_as_probe"] is True and "but FILE would load" not in text
    assert status == 3 and report["verdict"] == "runs-partly"
    # the verdict lists 15 reasons, then "and N more" (tools/probe/check.c: REASONS_MAX): with 17
    # libraries some of the missing functions are among those N
    more = sum(int(r.split()[1]) for r in report["reasons"] if re.fullmatch(r"and \d+ more", r))
    listed = sum("cannot be called here (missing)" in r for r in report["reasons"])
    assert listed <= sum(m for *_, m in picked) <= listed + more


def test_on_the_full_mocks_the_program_runs(program: Path, picked: list) -> None:
    report, text, status = check(program, env=mock_env(MOCK_DIR))
    report, status = without_gpu_reason(report, status)
    assert status == 0 and report["verdict"] == "runs" and report["reasons"] == []
    assert {f["state"] for f in report["functions"]} == {"callable", "api"}
    # the CUDA library it needs, found in its run path
    library = LIBRARIES[picked[0][0]]
    assert report["libraries"] == [{"soname": mock_soname(library), "library": library.name, "found": True,
                                    "path": str(Path(MOCK_DIR) / mock_soname(library)), "found_in": "run path",
                                    "error": None, "cubind_path": str(Path(MOCK_DIR) / mock_soname(library))}]
    assert f"found     {mock_soname(library)} (run path)" in text
    assert report["type"] in ("executable", "position-independent executable") and report["dynamic"]


def test_a_shared_library_is_checked_too(tmp_path: Path, picked: list) -> None:
    library = build(tmp_path, "plugin", [picked[0][1]], *cubind_link(), shared=True)
    report, _, status = check(library, env=mock_env(MOCK_DIR))
    report, status = without_gpu_reason(report, status)
    assert report["type"] == "shared library" and status == 0
    assert [f["symbol"] for f in report["functions"]] == [picked[0][1]]


def test_a_cuda_library_that_is_not_found_stops_the_program(tmp_path: Path) -> None:
    # a library cubind binds, of a version no machine has: its soname is of the library's family
    library = next(iter(LIBRARIES.values()))
    stem = library.sonames[0].split(".so")[0]
    soname = f"{stem}.so.999"
    (tmp_path / "stub.c").write_text("int stub_function(void) { return 0; }\n")
    stub = tmp_path / "stub" / soname
    stub.parent.mkdir()
    subprocess.run([*CC, "-shared", "-fPIC", str(tmp_path / "stub.c"), "-o", str(stub), f"-Wl,-soname,{soname}"],
                   check=True)
    program = build(tmp_path, "needs", [], "-Wl,--no-as-needed", str(stub))
    stub.unlink()
    report, text, status = check(program)
    assert status == 4 and report["verdict"] == "cannot-start"
    assert report["libraries"][0]["soname"] == soname and report["libraries"][0]["library"] == library.name
    assert report["libraries"][0]["found"] is False and report["libraries"][0]["error"]
    assert any(soname in r and "not found" in r for r in report["reasons"])
    assert f"not found {soname}" in text


def test_origin_in_the_run_path_is_the_files_directory(tmp_path: Path) -> None:
    library = list(LIBRARIES.values())[-1]
    soname = library.sonames[0]
    (tmp_path / "stub.c").write_text("int stub_function(void) { return 0; }\n")
    (tmp_path / "libs").mkdir()
    subprocess.run([*CC, "-shared", "-fPIC", str(tmp_path / "stub.c"), "-o", str(tmp_path / "libs" / soname),
                    f"-Wl,-soname,{soname}"], check=True)
    program = build(tmp_path, "origin", [], "-Wl,--no-as-needed", str(tmp_path / "libs" / soname),
                    "-Wl,-rpath,$ORIGIN/libs")
    report, status = without_gpu_reason(*check(program)[::2])
    libs = str(tmp_path.resolve() / "libs")
    assert report["run_path_tag"] == "DT_RUNPATH" and report["run_path"] == [libs]
    assert report["libraries"][0]["found"] and report["libraries"][0]["found_in"] == "run path"
    assert report["libraries"][0]["path"] == f"{libs}/{soname}" and status == 0


def test_a_program_linked_against_another_version_node_cannot_start(tmp_path: Path) -> None:
    major, minor, _ = header_version()
    other = f"CUBIND_{major}.{minor + 1}" if major == 0 else f"CUBIND_{major + 1}"
    stub_dir = tmp_path / "other"
    stub_dir.mkdir()
    (tmp_path / "other.c").write_text("void cubind_load(void) {}\n")
    (tmp_path / "other.map").write_text(f"{other} {{ global: cubind_*; local: *; }};\n")
    subprocess.run([*CC, "-shared", "-fPIC", str(tmp_path / "other.c"), "-o", str(stub_dir / f"libcubind.so.{major}"),
                    f"-Wl,-soname,libcubind.so.{major}", f"-Wl,--version-script,{tmp_path / 'other.map'}"], check=True)
    program = build(tmp_path, "linked_elsewhere", ["cubind_load"], f"-L{stub_dir}", f"-l:libcubind.so.{major}",
                    f"-Wl,-rpath,{stub_dir}")
    report, text, status = check(program)
    assert status == 4 and report["verdict"] == "cannot-start"
    (f,) = report["functions"]
    assert f["version_node"] == other and f["exported"] is False and f["state"] == "not exported"
    assert report["cubind"]["version_nodes_asked"] == [other] and report["cubind"]["version_node"] != other
    assert any(other in r for r in report["reasons"])
    assert f"not exported cubind_load@{other}" in text
    # it would load the libcubind of its run path, not the probe's: the report says so
    assert report["cubind"]["program_path"] == str(stub_dir / f"libcubind.so.{major}")
    assert report["cubind"]["same_as_probe"] is False
    assert f"but FILE would load {stub_dir / f'libcubind.so.{major}'} (run path)" in text


def test_no_gpu_makes_a_cuda_program_run_partly(program: Path) -> None:
    """A program that starts but whose CUDA work cannot run (it said "runs", then failed with "no CUDA
    driver"): no driver at all, then a driver that sees no GPU (the mocks' driver counts none)."""
    env = {**mock_env(MOCK_DIR), "CUBIND_DRIVER_PATH": "/nonexistent/libcuda.so.1",
           "CUBIND_NVML_PATH": "/nonexistent/libnvidia-ml.so.1"}
    report, text, status = check(program, env=env)
    assert status == 3 and report["verdict"] == "runs-partly"
    assert f"{NO_GPU}no CUDA driver: libcuda not found" in report["reasons"]
    assert f"{NO_GPU}no CUDA driver: libcuda not found" in text
    report, _, status = check(program, env=mock_env(MOCK_DIR))
    assert status == 3 and [r for r in report["reasons"] if r.startswith(NO_GPU) and "no GPU visible" in r]


def test_a_program_that_uses_no_cuda_runs(tmp_path: Path) -> None:
    report, text, status = check(build(tmp_path, "plain", []),
                                 env={"CUBIND_DRIVER_PATH": "/nonexistent/libcuda.so.1"})
    assert status == 0 and report["verdict"] == "runs"
    assert report["functions"] == [] and report["libraries"] == [] and not report["cubind"]["needed"]
    assert "CUDA libraries it needs (DT_NEEDED): none" in text


@pytest.mark.parametrize("content, why", [
    (b"#!/bin/sh\necho not a program\n", "not an ELF file"),
    (b"", "not an ELF file"),
    (b"\x7fELF", "not an ELF file"),
])
def test_a_file_that_is_not_elf_is_refused(tmp_path: Path, content: bytes, why: str) -> None:
    path = tmp_path / "file"
    path.write_bytes(content)
    report, text, status = check(path)
    assert status == 5 and report["verdict"] == "unreadable" and why in report["error"]
    assert f"cannot be checked: {why}" in text


def test_a_directory_and_a_missing_file_are_refused(tmp_path: Path) -> None:
    report, _, status = check(tmp_path)
    assert status == 5 and report["error"] == "not a regular file"
    report, _, status = check(tmp_path / "nothing")
    assert status == 5 and report["error"].startswith("cannot open it: ")


def _plain(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return build(tmp_path_factory.mktemp("plain"), "plain", ["cubind_load"], *cubind_link()).read_bytes()


@pytest.fixture(scope="module")
def elf(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return _plain(tmp_path_factory)


def _patched(data: bytes, at: int, value: bytes) -> bytes:
    return data[:at] + value + data[at + len(value):]


def _variants(data: bytes) -> list[tuple[str, bytes, str | None]]:
    """(what, bytes, words the refusal must hold, or None when any outcome but a crash will do)"""
    shoff = int.from_bytes(data[0x28:0x30], "little")
    shnum = int.from_bytes(data[0x3c:0x3e], "little")
    variants = [
        ("32-bit", _patched(data, 4, b"\x01"), "32-bit ELF file"),
        ("unknown class", _patched(data, 4, b"\x07"), "corrupt (unknown class)"),
        ("big-endian", _patched(data, 5, b"\x02"), "big-endian ELF file"),
        ("another machine", _patched(data, 0x12, (3).to_bytes(2, "little")), "ELF machine 3"),
        ("an object file", _patched(data, 0x10, (1).to_bytes(2, "little")), "not a program or a shared library"),
        ("huge section header offset", _patched(data, 0x28, (1 << 63).to_bytes(8, "little")), "truncated or corrupt"),
        ("section header offset past the end", _patched(data, 0x28, len(data).to_bytes(8, "little")),
         "truncated or corrupt"),
        ("section headers of the wrong size", _patched(data, 0x3a, (12).to_bytes(2, "little")), "corrupt"),
        ("no section headers", _patched(data, 0x28, bytes(8)), "no section headers"),
        ("the header alone", data[:64], "truncated"),
        ("cut short before its section headers", data[:shoff + 10], "truncated"),
        ("no identification", data[:10], "not an ELF file"),
    ]
    for i in range(shnum):  # each section's offset and size, huge
        at = shoff + i * 64
        variants.append((f"section {i} offset huge", _patched(data, at + 0x18, (1 << 62).to_bytes(8, "little")), None))
        variants.append((f"section {i} size huge", _patched(data, at + 0x20, (1 << 62).to_bytes(8, "little")), None))
        variants.append((f"section {i} link out of range", _patched(data, at + 0x28, (0xffff).to_bytes(4, "little")),
                         None))
    for length in sorted({len(data) // 4, len(data) // 2, len(data) - 1}):
        variants.append((f"cut to {length} bytes", data[:length], None))
    rng = random.Random(19)  # the same corruptions every run
    for n in range(40):
        mutated = bytearray(data)
        for _ in range(16):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        variants.append((f"random corruption {n}", bytes(mutated), None))
    return variants


def test_corrupt_and_truncated_files_are_refused_without_a_crash(tmp_path: Path, elf: bytes) -> None:
    env = mock_env(MOCK_DIR) if MOCK_DIR is not None else None
    for what, data, why in _variants(elf):
        path = tmp_path / "file"
        path.write_bytes(data)
        result = probe("--json", "--check", str(path), env=env)
        assert result.returncode in (0, 3, 4, 5), f"{what}: exit {result.returncode}\n{result.stderr}"
        report = validated(result.stdout)["check"]
        if why is not None:
            assert result.returncode == 5 and why in report["error"], (what, report["error"])


# --- through the drop-in, and embedded (issue 37) ------------------------------------------------

def ir_symbols() -> dict[str, tuple[str, str]]:
    """Every exported symbol of the IR -> (C API name, library)."""
    symbols = {}
    for unit in (ROOT / "generated" / "ir").glob("*.json"):
        for f in json.loads(unit.read_text())["functions"]:
            symbols[f["symbol"]] = (f["name"], f["library"])
    return symbols


def dropin_exports() -> list[str]:
    """The names the drop-in exports (its version script, generated from the IR)."""
    text = (ROOT / "generated" / "dropin" / "libcubind-dropin.map.in").read_text()
    return re.findall(r"^\s+(\w+);$", text, re.MULTILINE)


@pytest.fixture(scope="module")
def through_dropin(tmp_path_factory: pytest.TempPathFactory, half_report: dict) -> tuple[Path, dict]:
    """A program linked with the drop-in alone that calls, by NVIDIA's names, per library one function
    the half mock serves and one it lacks: the program and {symbol: (C name, library, missing)}."""
    symbols, chosen = ir_symbols(), {}
    for symbol in dropin_exports():
        name, library = symbols[symbol]
        missing = name in half_report[library]["missing"]
        if (library, missing) not in {(lib, m) for _, lib, m in chosen.values()}:
            chosen[symbol] = (name, library, missing)
    lib = BUILD / "lib"
    assert (lib / "libcubind-dropin.so").exists(), "build the drop-in first (make test-probe does)"
    program = build(tmp_path_factory.mktemp("dropin"), "dropin", list(chosen), f"-L{lib}", "-lcubind-dropin",
                    f"-Wl,-rpath,{lib}")
    return program, chosen


def test_a_program_using_the_dropin_is_checked_function_by_function(through_dropin: tuple) -> None:
    """Its references to the drop-in's version node (cudaMalloc@CUBIND_DROPIN_0.5) are reported as a
    renamed program's calls: each function's state, and the verdict (it said "runs", 0 functions)."""
    program, chosen = through_dropin
    major, minor, _ = header_version()
    node = f"CUBIND_DROPIN_{major}.{minor}" if major == 0 else f"CUBIND_DROPIN_{major}"
    report, text, status = check(program, env=mock_env(HALF_MOCK_DIR))
    assert report["dropin"] == {"needed": True, "soname": f"libcubind-dropin.so.{major}", "version_node": node,
                                "program_path": str(BUILD / "lib" / f"libcubind-dropin.so.{major}")}
    functions = {f["symbol"]: f for f in report["dropin_functions"]}
    assert set(functions) == set(chosen)
    for symbol, (name, library, missing) in chosen.items():
        f = functions[symbol]
        assert (f["name"], f["library"], f["version_node"], f["exported"]) == (name, library, node, True), f
        assert f["cubind_name"].startswith("cubind_") and f["state"] == ("missing" if missing else "callable"), f
        assert f"{f['state']} " in text and f"{symbol}@{node} ({f['cubind_name']}, {library})" in text
    assert f"NVIDIA's functions it uses through the drop-in: {len(chosen)}" in text
    assert status == 3 and any("(through the drop-in) cannot be called here (missing)" in r for r in report["reasons"])
    # on the full mocks every function is callable: the verdict is the machine's GPUs' alone
    report, _, status = check(program, env=mock_env(MOCK_DIR))
    assert {f["state"] for f in report["dropin_functions"]} == {"callable"}
    assert status == 3 and report["reasons"] and all(r.startswith(NO_GPU) for r in report["reasons"]), report
    assert without_gpu_reason(report, status)[1] == 0


@pytest.fixture(scope="module")
def embedding(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A shared library that links libcubind.a (cubind embedded, hidden) and calls one wrapper of it."""
    archive = BUILD / "lib" / "libcubind.a"
    assert archive.exists(), "build libcubind.a first (make test-probe does)"
    tmp = tmp_path_factory.mktemp("embedding")
    cubind, _ = next(iter(wrappers().values()))[0]
    (tmp / "embeds.c").write_text(f"extern int {cubind}();\nint embeds(void) {{ return {cubind}(0, 0, 0, 0); }}\n")
    out = tmp / "libembeds.so"
    subprocess.run([*CC, "-shared", "-fPIC", str(tmp / "embeds.c"), str(archive), "-o", str(out), "-ldl", "-lpthread",
                    "-Wl,--gc-sections"], check=True)
    return out


def test_an_embedding_says_what_it_binds(embedding: Path, tmp_path: Path) -> None:
    """Its ELF note (stripped or not) names cubind's version and the libraries the build binds; the
    verdict is "runs" only when all of their functions can be called here (it said "runs" always)."""
    built = re.search(r"^CUBIND_LIBRARIES := (.*)$", (ROOT / "generated" / "build.mk").read_text(), re.M).group(1)
    stripped = tmp_path / "libstripped.so"
    subprocess.run(["strip", "--strip-all", str(embedding), "-o", str(stripped)], check=True)
    for path in (embedding, stripped):
        report, text, status = check(path, env=mock_env(HALF_MOCK_DIR))
        [note] = report["embedded"]
        assert note == {"version_text": ".".join(map(str, header_version())), "libraries": built,
                        "found": len(built.split())}, note
        assert not report["embedded_cannot_tell"] and status == 3
        assert any("which of them it calls cannot be told from the file" in r for r in report["reasons"]), report
        assert f"cubind embedded in it: {note['version_text']}, binding {len(built.split())} libraries" in text
        # on the full mocks every function is exported; those that do not exist in the release a
        # library is called as (nvJPEG 13.0 removed one) are the only others it cannot call here
        report, _, status = check(path, env=mock_env(MOCK_DIR))
        libraries = validated(probe("--json", env=mock_env(MOCK_DIR)).stdout)["libraries"]
        partial = ", ".join(f"{lib['name']} {len(lib['missing'])} of {lib['functions']}" for lib in libraries
                            if lib["missing"] and lib["name"] in built.split())
        assert all(n["state"] == "missing" and n["reason"].startswith("it does not exist")
                   for lib in libraries for n in lib["not_callable"]), libraries
        rest = without_gpu_reason(report, status)[0]["reasons"]
        if partial:
            assert rest == [f"it embeds cubind {note['version_text']}, which binds functions that cannot be called "
                            f"here ({partial}); which of them it calls cannot be told from the file"], rest
        else:
            assert without_gpu_reason(report, status)[1] == 0, rest
        assert status == 3, report


def test_an_embedding_without_its_note_is_not_said_to_run(embedding: Path, tmp_path: Path) -> None:
    bare = tmp_path / "libbare.so"
    subprocess.run(["objcopy", "--remove-section", ".note.cubind", str(embedding), str(bare)], check=True)
    report, text, status = check(bare, env=mock_env(MOCK_DIR))
    assert report["embedded"] == [] and report["embedded_cannot_tell"] is True
    assert any("cannot be told" in r for r in without_gpu_reason(report, status)[0]["reasons"]), report
    assert without_gpu_reason(report, status)[1] == 3
    assert "no note of what it binds" in text
