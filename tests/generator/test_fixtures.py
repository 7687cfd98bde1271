"""The generator on a fake CUDA toolkit written for the purpose (tests/fixtures/).

The fixture headers hold one of each construct the real headers have or could
have: `_v2` maps, function pointers, arrays, anonymous, negative and 64-bit
enums, bit fields, deprecations, C++-only sections, static inline, variadic and
non-status functions. Each must be bound or skipped with a reason, never dropped:
the declarations are enumerated here with libclang and each is looked up in the
IR. Then the output is built with gcc and clang (-Werror -pedantic), run against
its generated mock, and compared with the fixture headers by the generated ABI
check. Bad input (no header directory, a header that does not parse) must exit
with status 2, name the culprit and write nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import clang.cindex as ci
import pytest

from generator import clang_ext, config, parse

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
CUDA = FIXTURES / "cuda"
INCLUDE = CUDA / "include"
CONFIG_PATH = FIXTURES / "fixture.toml"
CONFIG = config.load(CONFIG_PATH)
LIBRARY = CONFIG.library("fixture")
UNIT = CONFIG.unit("fixture")
# The headers the unit's parse includes, and with them every fixture header it reads.
HEADERS = ("library_types.h", "fixture.h", "fixture_ext.h")

WARNINGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"]
CXX_WARNINGS = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic"]
COMPILERS = [("gcc", "g++"), ("clang", "clang++")]

# -- the fixture's own list: what each declaration must become --------------------------------------
# public C name -> (exported symbol, cubind name)
BOUND = {
    "fxCreate": ("fxCreate_v2", "cubind_fx_create"),
    "fxDestroy": ("fxDestroy_v2", "cubind_fx_destroy"),
    "fxSgemmBatched": ("fxSgemmBatched_v2", "cubind_fx_sgemm_batched"),
    "fxSgemmBatched_64": ("fxSgemmBatched_v2_64", "cubind_fx_sgemm_batched_64"),
    "fxGetProperty": ("fxGetProperty", "cubind_fx_get_property"),
    "fxGetVersion": ("fxGetVersion", "cubind_fx_get_version"),
    "fxGetErrorString": ("fxGetErrorString", "cubind_fx_get_error_string"),
    "fxXerbla": ("fxXerbla", "cubind_fx_xerbla"),
    "fxGetCallback": ("fxGetCallback", "cubind_fx_get_callback"),
    "fxGetScale": ("fxGetScale", "cubind_fx_get_scale"),
    "fxSetCallback": ("fxSetCallback", "cubind_fx_set_callback"),
    "fxSetAllocator": ("fxSetAllocator", "cubind_fx_set_allocator"),
    "fxSetLogger": ("fxSetLogger", "cubind_fx_set_logger"),
    "fxSetDims": ("fxSetDims", "cubind_fx_set_dims"),
    "fxSetMatrix": ("fxSetMatrix", "cubind_fx_set_matrix"),
    "fxSetMode": ("fxSetMode", "cubind_fx_set_mode"),
    "fxSetMasks": ("fxSetMasks", "cubind_fx_set_masks"),
    "fxGetLayout": ("fxGetLayout", "cubind_fx_get_layout"),
    "fxScale": ("fxScale", "cubind_fx_scale"),
    "fxInit": ("fxInit", "cubind_fx_init"),
    "fxShutdown": ("fxShutdown", "cubind_fx_shutdown"),
    "fxUseLegacyIndex": ("fxUseLegacyIndex", "cubind_fx_use_legacy_index"),
    "fxSetStream": ("fxSetStream", "cubind_fx_set_stream"),
    "fxExtPlanCreate": ("fxExtPlanCreate", "cubind_fxExt_plan_create"),
    "fxExtExecute": ("fxExtExecute", "cubind_fxExt_execute"),
    "fxExtSetCallbacks": ("fxExtSetCallbacks", "cubind_fxExt_set_callbacks"),
    "fxExtSetHooks": ("fxExtSetHooks", "cubind_fxExt_set_hooks"),
    "fxExtGetRank": ("fxExtGetRank", "cubind_fxExt_get_rank"),
    "fxExtLaunch": ("fxExtLaunch_v2", "cubind_fxExt_launch"),
    "fxExtQuery": ("__fxExtQuery_3_1", "cubind_fxExt_query"),
}
SKIPPED = {
    "fxLogf": parse.SKIP_VARIADIC,
    "fxGetHook": parse.SKIP_FUNCTION_RESULT,
    "fxCheck": parse.SKIP_STATIC_INLINE,
    "fxScale": parse.SKIP_CXX_OVERLOAD,  # the inline C++ overload; the extern "C" one is bound
    "fxCppHelper": parse.SKIP_CXX_LINKAGE,
    "fxExtPrivateReset": "excluded by configuration (fxExtPrivate*): internal to the fixture library",
}
# static inline functions that only forward to an exported symbol: bound under their name
FORWARDERS = {"fxExtQuery"}
CXX_ONLY = {"fxSetStream"}
CONSTANTS = {"FX_VER_MAJOR": 3, "FX_VER_MINOR": 1, "FX_VER_PATCH": 4, "FX_MAX_DIMS": 3, "FX_INVALID_INDEX": -1,
             "FX_FLAG_WIDE": 1 << 40, "FX_EXT_MAX_PLANS": 8}
ALIASES = {"fxCreate", "fxDestroy", "fxSgemmBatched", "fxSgemmBatched_64", "fxExtLaunch"}
DEFINE_GUARDS = {"FX_UUID_HAS_BEEN_DEFINED"}  # repeated around the declarations they guard
FUNCTION_MACROS = {"FX_EXT_API_PTSZ"}  # expanded by the compiler while finding aliases
GUARDS = {"library_types.h": "FIXTURE_LIBRARY_TYPES_H", "fixture.h": "FIXTURE_H_", "fixture_ext.h": "FIXTURE_EXT_H_"}
ATTRIBUTE_MACROS = {"FX_DEPRECATED", "FX_DEPRECATED_MSG"}  # carried by the deprecations they mark


def _generator(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "generator", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True)


def _run(*command: str | Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(list(map(str, command)), capture_output=True, text=True, env=env)
    assert result.returncode == 0, f"{' '.join(map(str, command))}\n{result.stdout}{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fixture") / "generated"
    result = _generator("generate", "--cuda-path", CUDA, "--config", CONFIG_PATH, "--out", out)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def ir(generated: Path) -> dict:
    return json.loads((generated / "ir" / "fixture.json").read_text())


# -- libclang's own view of the fixture headers ----------------------------------------------------
def _translation_unit(language: str) -> ci.TranslationUnit:
    name = "fixture_all.cpp" if language == "c++" else "fixture_all.c"
    source = "".join(f"#include <{h}>\n" for h in HEADERS)
    std = "-std=c++17" if language == "c++" else "-std=c11"
    tu = ci.Index.create().parse(name, args=["-x", language, std, f"-I{INCLUDE}"], unsaved_files=[(name, source)],
                                 options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    assert not [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    return tu


def _header(cursor: ci.Cursor) -> str | None:
    file = cursor.location.file
    if file is None or Path(file.name).parent.resolve() != INCLUDE.resolve():
        return None
    return Path(file.name).name


def _declarations(cursor: ci.Cursor):
    """Every declaration made in a fixture header, looking into extern "C" blocks."""
    for child in cursor.get_children():
        if _header(child) is None:
            continue
        if child.kind in (ci.CursorKind.LINKAGE_SPEC, ci.CursorKind.UNEXPOSED_DECL):
            yield from _declarations(child)
        else:
            yield child


def test_every_function_is_bound_or_skipped_with_a_reason(ir: dict) -> None:
    functions = {(f["symbol"], f["header"], f["line"]): f for f in ir["functions"]}
    skipped = {(s["name"], s["header"], s["line"]): s for s in ir["skipped"]}
    seen = set()
    for cursor in _declarations(_translation_unit("c++").cursor):  # C++ sees every declaration C sees
        if cursor.kind != ci.CursorKind.FUNCTION_DECL:
            continue
        key = (cursor.spelling, _header(cursor), cursor.location.line)
        if cursor.spelling in FORWARDERS:
            continue  # bound through the symbol it calls, under its own name
        assert (key in functions) != (key in skipped), f"{key} must be bound or skipped, exactly once"
        seen.add(key)
    assert seen == set(functions) | set(skipped)  # and the IR has nothing the headers do not declare

    assert {f["name"]: (f["symbol"], f["cubind_name"]) for f in ir["functions"]} == BOUND
    assert {s["name"]: s["reason"] for s in ir["skipped"]} == SKIPPED
    assert all(s["signature"] for s in ir["skipped"])
    assert {f["name"] for f in ir["functions"] if f["cplusplus_only"]} == CXX_ONLY
    assert {f["name"]: f["module"] for f in ir["functions"]} == {
        n: "fxExt" if n.startswith("fxExt") else "fx" for n in BOUND}
    assert {f["library"] for f in ir["functions"]} == {"fixture"}


def test_every_type_enum_and_constant_is_in_the_ir(ir: dict) -> None:
    types = ir["types"]

    def entry_of(cursor: ci.Cursor) -> dict:
        header = _header(cursor)
        if cursor.spelling:
            matches = [t for t in types if t["header"] == header and cursor.spelling in (t["name"], t["typedef"])]
        else:  # anonymous: the entry declared at the same place
            matches = [t for t in types if t["header"] == header and t["line"] == cursor.location.line]
        assert len(matches) == 1, f"{header}:{cursor.location.line} {cursor.spelling or 'anonymous'}: {matches}"
        return matches[0]

    kinds = (ci.CursorKind.TYPEDEF_DECL, ci.CursorKind.ENUM_DECL, ci.CursorKind.STRUCT_DECL, ci.CursorKind.UNION_DECL)
    tu = _translation_unit("c")
    count = 0
    for cursor in _declarations(tu.cursor):
        if cursor.kind not in kinds:
            continue
        count += 1
        entry = entry_of(cursor)
        if cursor.kind == ci.CursorKind.ENUM_DECL:
            assert entry["constants"] == [{"name": c.spelling, "value": c.enum_value} for c in cursor.get_children()]
            assert entry["size"] == cursor.type.get_size()
    assert count >= 30

    cxx_classes = [c for c in _declarations(_translation_unit("c++").cursor) if c.kind == ci.CursorKind.CLASS_DECL]
    assert [c.spelling for c in cxx_classes] == ["fxStream"]
    stream = entry_of(cxx_classes[0])
    assert stream["cplusplus_class"] and not stream["complete"] and "opaque" in stream["opaque_reason"]

    # Every macro of the headers is a constant, a _v2 map, an include guard or an attribute.
    macros = {c.spelling: c for c in tu.cursor.get_children()
              if c.kind == ci.CursorKind.MACRO_DEFINITION and _header(c) in HEADERS}
    assert set(macros) == (set(CONSTANTS) | ALIASES | set(GUARDS.values()) | ATTRIBUTE_MACROS | DEFINE_GUARDS
                           | FUNCTION_MACROS)
    assert {k["name"]: k["value"] for k in ir["constants"]} == CONSTANTS
    assert ALIASES <= {f["name"] for f in ir["functions"] if f["symbol"] != f["name"]}
    assert ir["guards"] == GUARDS
    assert all(clang_ext.is_macro_function_like(macros[m]) == (m == "FX_DEPRECATED_MSG") for m in ATTRIBUTE_MACROS)
    assert (ir["cuda_version"], ir["header_version"]) == ("12.8", "3.1.4")


def _param(ir: dict, function: str, name: str) -> dict:
    f = next(f for f in ir["functions"] if f["name"] == function)
    return next(p for p in f["params"] if p["name"] == name)


@pytest.mark.parametrize(
    ("function", "param", "decl", "value_type", "value_decl", "category"),
    [
        ("fxSetLogger", "logger", "void (*logger)(int, const char *)", "void (*)(int, const char *)",
         "void (*logger)(int, const char *)", "function_pointer"),
        ("fxSetCallback", "callback", "fxCallback_t callback", "fxCallback_t", "fxCallback_t callback",
         "function_pointer"),
        ("fxSgemmBatched", "Aarray", "const float *const *Aarray", "const float *const *",
         "const float *const *Aarray", "pointer"),
        ("fxSgemmBatched", "Barray", "const float *const Barray[]", "const float *const *",
         "const float *const *Barray", "pointer"),
        ("fxSetDims", "dims", "int dims[3]", "int *", "int *dims", "pointer"),
        ("fxSetDims", "x", "const int x[]", "const int *", "const int *x", "pointer"),
        ("fxSetDims", "strides", "const long long strides[3]", "const long long *", "const long long *strides",
         "pointer"),
        ("fxSetMatrix", "matrix", "const float matrix[2][3]", "const float (*)[3]", "const float (*matrix)[3]",
         "pointer"),
        ("fxExtSetHooks", "hooks", "void (*hooks[])(int)", "void (**)(int)", "void (**hooks)(int)", "pointer"),
        ("fxExtSetCallbacks", "callbacks", "fxCallback_t callbacks[2]", "fxCallback_t *", "fxCallback_t *callbacks",
         "pointer"),
        ("fxExtExecute", "scale", "fxExtComplex_t scale", "fxExtComplex_t", "fxExtComplex_t scale", "record"),
        ("fxSetMasks", "wide", "fxWide_t wide", "fxWide_t", "fxWide_t wide", "enum"),
        ("fxExtGetRank", "arg0", "fxExtPlan_t arg0", "fxExtPlan_t", "fxExtPlan_t arg0", "pointer"),
    ],
)
def test_parameters(ir: dict, function: str, param: str, decl: str, value_type: str, value_decl: str,
                    category: str) -> None:
    p = _param(ir, function, param)
    assert (p["decl"], p["value_type"], p["value_decl"], p["category"]) == (decl, value_type, value_decl, category)


def test_returns_deprecations_and_layouts(ir: dict) -> None:
    functions = {f["name"]: f for f in ir["functions"]}
    returns = {n: (f["returns"]["type"], f["returns"]["category"], f["returns_status"]) for n, f in functions.items()
               if not f["returns_status"]}
    assert returns == {
        "fxGetVersion": ("size_t", "integer", False),
        "fxGetErrorString": ("const char *", "pointer", False),
        "fxXerbla": ("void", "void", False),
        "fxGetCallback": ("fxCallback_t", "function_pointer", False),
        "fxGetScale": ("double", "floating", False),
        "fxExtGetRank": ("int", "integer", False),
    }
    assert {n: f["deprecated"] for n, f in functions.items() if f["deprecated"] is not None} == {
        "fxInit": "use fxCreate", "fxShutdown": ""}
    types = {t["typedef"] or t["name"]: t for t in ir["types"]}
    assert {n: t["deprecated"] for n, t in types.items() if t["deprecated"] is not None} == {
        "fxLegacyIndex_t": "use int64_t indices", "fxOldHandle_t": ""}
    assert [(t["size"], t["align"]) for t in (types["fxWide"], types["fxMask"], types["fxMask64"])] == [
        (8, 8), (4, 4), (8, 8)]
    assert types[None]["constants"] == [{"name": "FX_ALIGNMENT", "value": 16}, {"name": "FX_MAX_BATCH", "value": 65535}]
    layout = types["fxLayout"]
    assert [(f["name"], f["bit_width"]) for f in layout["fields"] if f["bit_width"] is not None] == [
        ("transposed", 1), ("order", 2), ("", 0), ("packed", 5), ("delta", 4)]
    assert {f["name"]: f["decl"] for f in layout["fields"]}["matrix"] == "float matrix[2][3]"
    assert {f["name"]: f["decl"] for f in layout["fields"]}["on_done"] == "void (*on_done)(void *, int)"


def test_generation_is_reproducible(generated: Path) -> None:
    result = _generator("check", "--cuda-path", CUDA, "--config", CONFIG_PATH, "--out", generated)
    assert result.returncode == 0, result.stdout + result.stderr


# -- end to end: build, pass through the mock, compare the ABI ------------------------------------
def _needs(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")


def _build_library(cc: str, generated: Path, build: Path) -> None:
    """libcubind.so from the hand-written loader and the generated sources, as the Makefile builds it."""
    objects = []
    for source in [*sorted((ROOT / "loader").glob("*.c")), *sorted((generated / "src").glob("*.c"))]:
        objects.append(build / f"{source.parent.name}-{source.stem}.o")
        _run(cc, *WARNINGS, "-fPIC", "-fvisibility=hidden", f"-I{generated / 'include'}", f"-I{ROOT / 'include'}",
             f"-I{ROOT / 'loader'}", f"-I{generated / 'src'}", "-c", source, "-o", objects[-1])
    _run(cc, "-shared", "-Wl,--no-undefined", "-o", build / "libcubind.so", *objects, "-ldl", "-lpthread")


@pytest.mark.parametrize(("cc", "cxx"), COMPILERS)
def test_passthrough_of_every_wrapper_on_the_mock(cc: str, cxx: str, generated: Path, ir: dict,
                                                   tmp_path: Path) -> None:
    _needs(cc)
    _build_library(cc, generated, tmp_path)
    _run(cc, *WARNINGS, "-fPIC", "-shared", "-Wl,-soname,libcubind_mock_recorder.so", f"-I{ROOT / 'tests' / 'mock'}",
         "-o", tmp_path / "libcubind_mock_recorder.so", ROOT / "tests" / "mock" / "recorder.c",
         generated / "tests" / "mock_names.c", "-lpthread")
    test_flags = [*WARNINGS, "-DCUBIND_NO_DEPRECATION_WARNINGS", f"-I{generated / 'include'}", f"-I{ROOT / 'include'}",
                  f"-I{ROOT / 'tests'}", f"-I{ROOT / 'tests' / 'mock'}", f"-I{generated / 'tests'}",
                  f"-I{generated / 'src'}"]
    mock = tmp_path / LIBRARY.sonames[0]
    _run(cc, *test_flags, "-fPIC", "-shared", f"-Wl,-soname,{LIBRARY.sonames[0]}", "-o", mock,
         generated / "tests" / "mock_fixture.c", f"-L{tmp_path}", "-lcubind_mock_recorder", f"-Wl,-rpath,{tmp_path}")
    passthrough = tmp_path / "passthrough"
    _run(cc, *test_flags, ROOT / "tests" / "passthrough_main.c", generated / "tests" / "passthrough_fixture.c",
         "-o", passthrough, f"-L{tmp_path}", "-lcubind", "-lcubind_mock_recorder", "-lcmocka", f"-Wl,-rpath,{tmp_path}")

    env = {k: v for k, v in os.environ.items() if not k.startswith("CUBIND_")} | {LIBRARY.env_var: str(mock)}
    output = _run(passthrough, env=env)
    assert f"passthrough: {len(BOUND)} wrappers tested, 0 failed" in output
    assert {line.split()[-1] for line in output.splitlines() if line.startswith("[       OK ]")} == {
        f"test_{f['cubind_name']}" for f in ir["functions"]} | {"test_informational_statuses"}


def _abi_output(compiler: str, source: Path, include: Path, build: Path, name: str, *flags: str) -> str:
    exe = build / name
    _run(compiler, *flags, "-Wno-deprecated-declarations", "-DCUBIND_NO_DEPRECATION_WARNINGS", f"-I{ROOT / 'include'}",
         f"-I{include}", source, "-o", exe)
    return _run(exe)


@pytest.mark.parametrize(("cc", "cxx"), COMPILERS)
def test_abi_agrees_with_the_fixture_headers(cc: str, cxx: str, generated: Path, tmp_path: Path) -> None:
    """cubind's self-contained declarations print what the fixture headers' do, in C and C++;
    with the fixture headers, every wrapper has the type of the function it calls."""
    _needs(cc, cxx)
    source, include = generated / "tests" / "abi_fixture.c", generated / "include"
    nvidia = ["-DCUBIND_ABI_NVIDIA", "-isystem", str(INCLUDE)]
    as_cxx = [*CXX_WARNINGS, "-x", "c++"]
    outputs = {
        "cubind": _abi_output(cc, source, include, tmp_path, "cubind", *WARNINGS),
        "nvidia": _abi_output(cc, source, include, tmp_path, "nvidia", *WARNINGS, *nvidia),
        "nvidia-cxx": _abi_output(cxx, source, include, tmp_path, "nvidia-cxx", *as_cxx, *nvidia),
        "cubind-cxx": _abi_output(cxx, source, include, tmp_path, "cubind-cxx", *as_cxx),
    }
    assert len(set(outputs.values())) == 1, outputs
    lines = set(outputs["cubind"].splitlines())
    assert {"value FX_WIDE_MIN -9223372036854775808", "value FX_MASK64_ALL 18446744073709551615",
            "value FX_DIRECTION_MIN -2147483648", "size fxWide_t 8 8", "size fxMask_t 4 4", "size fxMask64_t 8 8",
            "value FX_ALIGNMENT 16", "size fxLayout_t 112 8", "field struct fxLayout.matrix 56 24"} <= lines
    assert sum(line.startswith("bits struct fxLayout.") for line in lines) == 4
    assert source.read_text().count("(void)static_cast<exact>(&cubind_") == len(BOUND)


def test_abi_check_catches_a_wrong_bit_field(generated: Path, tmp_path: Path) -> None:
    _needs("gcc")
    include = tmp_path / "include"
    shutil.copytree(generated / "include", include)
    header = include / "cubind" / "fx_types.h"
    text = header.read_text()
    assert text.count("unsigned int order : 2;") == 1
    header.write_text(text.replace("unsigned int order : 2;", "unsigned int order : 3;"))
    source = generated / "tests" / "abi_fixture.c"
    ours = _abi_output("gcc", source, include, tmp_path, "cubind", *WARNINGS)
    theirs = _abi_output("gcc", source, include, tmp_path, "nvidia", *WARNINGS, "-DCUBIND_ABI_NVIDIA", "-isystem",
                         str(INCLUDE))
    differ = set(ours.splitlines()) ^ set(theirs.splitlines())
    assert differ and all(line.startswith("bits struct fxLayout.") for line in differ)


# -- bad input: exit status 2, the culprit named, nothing written ------------------------------------
def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def existing_tree(tmp_path: Path) -> Path:
    out = tmp_path / "generated"
    (out / "include" / "cubind").mkdir(parents=True)
    (out / "include" / "cubind" / "fx.h").write_text("/* written before the failing run */\n")
    (out / "ir").mkdir()
    (out / "ir" / "stale.json").write_text("{}\n")  # a file a successful run would delete
    return out


@pytest.mark.parametrize("action", ["generate", "check"])
def test_a_missing_header_directory_fails_and_writes_nothing(action: str, existing_tree: Path, tmp_path: Path) -> None:
    before = _snapshot(existing_tree)
    toolkit = tmp_path / "no-such-toolkit"
    result = _generator(action, "--cuda-path", toolkit, "--config", CONFIG_PATH, "--out", existing_tree)
    assert result.returncode == 2
    assert f"include directory {toolkit / 'include'} does not exist" in result.stderr
    assert _snapshot(existing_tree) == before


@pytest.mark.parametrize("action", ["generate", "check"])
def test_a_header_that_does_not_parse_fails_and_writes_nothing(action: str, existing_tree: Path) -> None:
    before = _snapshot(existing_tree)
    broken = INCLUDE / "fixture_broken.h"
    line = next(i for i, text in enumerate(broken.read_text().splitlines(), 1) if "fxBroken(" in text)
    result = _generator(action, "--cuda-path", CUDA, "--config", FIXTURES / "broken.toml", "--out", existing_tree)
    assert result.returncode == 2
    assert f"fixture_broken.h:{line}: " in result.stderr and result.stderr.startswith("cubind generator: error:")
    assert _snapshot(existing_tree) == before


def test_a_parameter_named_like_cubind_s_own_names_is_refused(tmp_path: Path) -> None:
    """Wrappers and tests name their own variables cubind_*: a CUDA parameter may not."""
    include = tmp_path / "cuda" / "include"
    include.mkdir(parents=True)
    shutil.copy(INCLUDE / "cuda.h", include)
    text = (INCLUDE / "fixture_broken.h").read_text().replace("fxBroken(int x int y)", "fxBroken(int cubind_status)")
    (include / "fixture_broken.h").write_text(text)
    result = _generator("generate", "--cuda-path", tmp_path / "cuda", "--config", FIXTURES / "broken.toml",
                        "--out", tmp_path / "generated")
    assert result.returncode == 2
    assert "parameter cubind_status starts with cubind_" in result.stderr and "fixture_broken.h:" in result.stderr
    assert not (tmp_path / "generated").exists()


def test_records_nested_in_records_and_define_guards(ir: dict, generated: Path) -> None:
    op = next(t for t in ir["types"] if t["name"] == "fxExtOp_union")
    wait = next(f for f in op["fields"] if f["name"] == "wait")
    assert wait["record"]["name"] == "fxExtWait_st"
    assert [f["name"] for f in wait["record"]["fields"]] == ["kind", "", "flags"]
    assert wait["record"]["fields"][1]["record"]["kind"] == "union"
    pads = next(f for f in op["fields"] if f["name"] == "pads")
    assert pads["decl"].startswith("struct { int kind; int pad[3]; } pads[2]")
    uuid = [t for t in ir["types"] if t.get("define_guard") == "FX_UUID_HAS_BEEN_DEFINED"]
    assert {t["name"] or t["typedef"] for t in uuid} == {"fxUuid_st", "fxUuid"}
    header = (generated / "include" / "cubind" / "fxExt_types.h").read_text()
    assert "#ifndef FX_UUID_HAS_BEEN_DEFINED" in header and "#define FX_UUID_HAS_BEEN_DEFINED" in header


def test_cdef_module_files_load_after_common_alone_and_together(generated: Path) -> None:
    """cffi takes common.h, then each module file alone and every one of them, in either order,
    in one FFI (fxExt's functions take fx's types: common.h holds those). LuaJIT is not asked:
    it refuses the fixture's enum values beyond 32 bits, whichever file holds them."""
    cffi = pytest.importorskip("cffi")
    cdef = generated / "cdef"
    modules = [line for line in (cdef / "modules.txt").read_text().splitlines() if line and not line.startswith("#")]
    assert modules == [m.name for m in CONFIG.modules]
    text = {name: (cdef / f"{name}.h").read_text() for name in ["common", *modules]}
    for files in [[m] for m in modules] + [modules, modules[::-1]]:
        ffi = cffi.FFI()
        for name in ["common", *files]:
            ffi.cdef(text[name])


def test_the_rust_crate_compiles(generated: Path) -> None:
    """The fixture's crate (generated/rust/cubind-sys): its bit-fields as byte arrays, its enums beyond
    int typed by their values, every record's size and alignment checked against C's when compiling;
    Debian's rustc (make deps-test), every feature, warnings as errors."""
    crate = generated / "rust" / "cubind-sys"
    features = tomllib.loads((crate / "Cargo.toml").read_text())["features"]["default"]
    assert features
    source = (crate / "src" / "fixture.rs").read_text()
    assert "pub _bitfield1: [u8; " in source
    _run("/usr/bin/rustc", "--edition", "2021", "--crate-type", "rlib", "--crate-name", "cubind_sys", "-D", "warnings",
         *(a for f in features for a in ("--cfg", f'feature="{f}"')), crate / "src" / "lib.rs",
         "-o", generated.parent / "libcubind_sys.rlib")


# -- every function that returns no status has its decided values (libraries.toml `no_status`) ---------
def _no_status_config(tmp_path: Path, edit) -> Path:
    text = CONFIG_PATH.read_text()
    start = text.index("no_status = [")
    end = text.index("]\n", start) + 2
    path = tmp_path / "fixture.toml"
    path.write_text(text[:start] + edit(text[start:end]) + text[end:])
    return path


@pytest.mark.parametrize(("edit", "says"), [
    (lambda s: s.replace('  { function = "fxGetScale", unavailable = "zero", mock = "zero", why = "no scale" },\n', ""),
     "fxGetScale return(s) no status and no_status does not say"),
    (lambda s: s.replace('function = "fxGetScale", unavailable = "zero"', 'function = "fxGetScale", unavailable = "text"'),
     "no_status fxGetScale: unavailable = 'text' does not fit double fxGetScale"),
    (lambda s: s.replace('function = "fxGetScale", unavailable = "zero"', 'function = "fxGetScale", unavailable = "-status"'),
     "unavailable = '-status' does not fit double fxGetScale"),
    (lambda s: s.replace('function = "fxGetVersion", unavailable = "zero", mock = "zero"',
                         'function = "fxGetVersion", unavailable = "zero", mock = "name"'),
     "no_status fxGetVersion: mock = 'name' answers a string"),
    (lambda s: s.replace(']\n', '  { function = "fxCreate", unavailable = "zero", mock = "zero", why = "w" },\n]\n'),
     "no_status fxCreate is no function of the library that returns no status"),
    (lambda s: s.replace('unavailable = "nothing"', 'unavailable = "maybe"'),
     "unavailable 'maybe' is not one of"),
])
def test_a_function_returning_no_status_without_its_decided_values_is_refused(tmp_path: Path, edit, says: str) -> None:
    config_path = _no_status_config(tmp_path, edit)
    result = _generator("generate", "--cuda-path", CUDA, "--config", config_path, "--out", tmp_path / "generated")
    assert result.returncode == 2
    assert says in result.stderr, result.stderr
    assert not (tmp_path / "generated").exists()


def test_the_decided_values_reach_the_wrapper_and_the_mock(generated: Path) -> None:
    """A string's wrapper gives a static text, its mock the name of the status it is given."""
    source = (generated / "src" / "fixture.c").read_text()
    assert '"fxGetErrorString was not called: cubind could not load libfixture or find the function in it' in source
    mock = (generated / "tests" / "mock_fixture.c").read_text()
    assert 'return "FX_STATUS_NOT_SUPPORTED";' in mock and "unrecognized" in mock
