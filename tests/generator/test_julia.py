"""The Julia module's renderer (generator/julia.py, generator/ctype_spelling.py): it runs without
libclang, reads every type spelling of the checked-in IR, lays records out as C does and refuses
what it cannot express. Julia itself checks the rendered module in `make test-julia`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator import config as config_module
from generator import julia
from generator.ctype_spelling import CType, SpellingError, parse

ROOT = Path(__file__).resolve().parents[2]
IR_DIR = ROOT / "generated" / "ir"


@pytest.fixture(scope="module")
def irs() -> list[dict]:
    return julia.read_irs(config_module.load(config_module.CONFIG_PATH), IR_DIR)


def test_renders_without_libclang(tmp_path: Path) -> None:
    """python3 -m generator.julia with `clang` unimportable: the module is written all the same."""
    program = ("import sys; sys.modules['clang'] = None\n"
               "from generator import julia\n"
               f"status = julia.main(['--soname', 'libcubind.so.0', '--out', {str(tmp_path)!r}])\n"
               "assert not [m for m in sys.modules if m.startswith('clang') and sys.modules[m] is not None]\n"
               "sys.exit(status)\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    written = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    config = config_module.load(config_module.CONFIG_PATH)
    libraries = {f["library"] for ir in julia.read_irs(config, IR_DIR) for f in ir["functions"]}
    assert written == {"Cubind/Project.toml", "Cubind/src/Cubind.jl", "Cubind/src/types.jl", "Cubind/src/core.jl",
                       *(f"Cubind/src/{name}.jl" for name in libraries)}


def test_every_spelling_of_the_ir_is_read(irs: list[dict]) -> None:
    spellings = {p[key] for ir in irs for f in ir["functions"] for p in f["params"] for key in ("type", "value_type")}
    spellings |= {f["returns"]["type"] for ir in irs for f in ir["functions"]}
    spellings |= {t["underlying"] for ir in irs for t in ir["types"] if t["kind"] == "typedef"}
    spellings |= {f["type"] for ir in irs for t in ir["types"] if t["kind"] in ("struct", "union")
                  for f in t["fields"] if f["record"] is None}
    for spelling in spellings:
        parse(spelling)
    assert len(spellings) > 1000


@pytest.mark.parametrize("spelling, expected", [
    ("const float *", CType("float", 1)),
    ("struct cublasContext **", CType("struct cublasContext", 2)),
    ("const char *const *", CType("char", 2)),
    ("unsigned char *[4]", CType("unsigned char", 1, (4,))),
    ("long long int", CType("long long")),
    ("unsigned", CType("unsigned int")),
    ("int[2][3]", CType("int", 0, (2, 3))),
    ("char[]", CType("char", 0, (None,))),
    ("void (*)(void *, int)", CType("void", 1, (), True)),
    ("const char *(*)(void *)", CType("void", 1, (), True)),
])
def test_spellings(spelling: str, expected: CType) -> None:
    assert parse(spelling) == expected


@pytest.mark.parametrize("spelling", ["int (*)[4]", "struct", "int float", "cudaStream_t cudaEvent_t", "int[n]", "int @"])
def test_spellings_refused(spelling: str) -> None:
    with pytest.raises(SpellingError):
        parse(spelling)


def test_every_record_has_c_size(irs: list[dict]) -> None:
    """Every complete record of the IR is a Julia struct of C's size (the renderer lays it out with
    C's offsets and checks the total)."""
    types = julia.Types(irs)
    definitions = {d.name: d for d in types.emit_all()}
    for ir in irs:
        for entry in ir["types"]:
            if entry["kind"] in ("struct", "union") and entry.get("complete", True) and not entry.get("cplusplus_class"):
                name = entry["name"] or entry["typedef"]
                assert definitions[name].kind == "struct"
                assert types.done[name].size == entry["size"], name


def _field(name: str, type_: str, offset: int, bits: int | None = None, record: dict | None = None) -> dict:
    return {"name": name, "type": type_, "canonical": type_, "decl": f"{type_} {name}", "offset_bits": offset * 8,
            "bit_width": bits, "record": record}


def _record(name: str, fields: list[dict], size: int, align: int, kind: str = "struct") -> dict:
    return {"kind": kind, "name": name, "typedef": None, "header": "fixture.h", "line": 1, "deprecated": None,
            "complete": True, "opaque_reason": None, "fields": fields, "uses": [], "size": size, "align": align,
            "explicit_align": None, "define_guard": None}


def _ir(types: list[dict], functions: list[dict] | None = None) -> dict:
    return {"types": types, "functions": functions or [], "constants": [], "literal_constants": []}


def test_record_held_bytes() -> None:
    """A union declared in place and a bit-field are held as the widest integers their offsets allow;
    the other fields keep their C names and offsets."""
    union = {"kind": "union", "name": None, "fields": []}
    entry = _record("S", [_field("c", "char", 0), _field("u", "union { int a; double b; }", 8, record=union),
                          _field("flags", "unsigned int", 16, bits=3), _field("d", "double", 24)], 32, 8)
    types = julia.Types([_ir([entry])])
    definition = types.emit_all()[0]
    assert definition.fields == [("c", "Cchar"), ("_bytes1", "NTuple{1, UInt8}"), ("_bytes2", "NTuple{1, UInt16}"),
                                 ("_bytes4", "NTuple{1, UInt32}"), ("_bytes8", "NTuple{2, UInt64}"), ("d", "Cdouble")]
    assert "`u` (a union declared in place)" in definition.docs[1] and "`flags` (a bit-field)" in definition.docs[1]
    assert (types.done["S"].size, types.done["S"].align) == (32, 8)


def test_record_pointing_at_itself_and_reserved_names() -> None:
    entry = _record("node", [_field("next", "struct node *", 0), _field("end", "int", 8)], 16, 8)
    definition = julia.Types([_ir([entry])]).emit_all()[0]
    assert definition.fields == [("next", "Ptr{node}"), ('var"end"', "Cint"), ("_bytes12", "NTuple{1, UInt32}")]


def test_unknown_type_refused() -> None:
    entry = _record("S", [_field("x", "mystery_t", 0)], 4, 4)
    with pytest.raises(julia.JuliaError, match="mystery_t"):
        julia.Types([_ir([entry])]).emit_all()


def test_a_name_for_two_types_refused() -> None:
    with pytest.raises(julia.JuliaError, match="names two types"):
        julia.Types([_ir([_record("S", [_field("x", "int", 0)], 4, 4)]),
                     _ir([_record("S", [_field("x", "double", 0)], 8, 8)])])


def test_held_record_by_value_refused() -> None:
    """A record passed by value whose bytes are partly held as integers would be passed in the
    wrong registers: refused, never rendered."""
    entry = _record("S", [_field("flags", "unsigned int", 0, bits=3)], 4, 4)
    function = {"name": "f", "symbol": "f", "cubind_name": "cubind_x_f", "library": "x", "header": "fixture.h", "line": 1,
                "returns": {"type": "int", "canonical": "int", "category": "integer"}, "returns_status": False,
                "params": [{"name": "s", "type": "struct S", "value_type": "struct S", "category": "record"}],
                "deprecated": None}
    types = julia.Types([_ir([entry])])
    types.emit_all()
    library = config_module.load(config_module.CONFIG_PATH).libraries[0]
    with pytest.raises(julia.JuliaError, match="holds bytes"):
        julia.wrapper(function, types, library)


def test_wrapper_parameter_renamed_away_from_its_types() -> None:
    """A parameter named like a Julia keyword or like a type its call names is renamed: the call's
    types stay the module's."""
    entry = _record("dim3", [_field("x", "unsigned int", 0)], 4, 4)
    function = {"name": "f", "symbol": "f_v2", "cubind_name": "cubind_x_f", "library": "x", "header": "fixture.h",
                "line": 7, "returns": {"type": "void", "canonical": "void", "category": "void"}, "returns_status": False,
                "params": [{"name": "dim3", "type": "struct dim3 *", "value_type": "struct dim3 *", "category": "pointer"},
                           {"name": "end", "type": "int", "value_type": "int", "category": "integer"}],
                "deprecated": "", "added_in": "12.4", "changed_in": ["13.0"]}
    types = julia.Types([_ir([entry])])
    types.emit_all()
    library = config_module.load(config_module.CONFIG_PATH).libraries[0]
    w = julia.wrapper(function, types, library)
    assert w.params == [("dim3_", "Ptr{dim3}"), ("end_", "Cint")] and w.returns == "Cvoid"
    assert "Wraps `f` of lib" in w.docs[2] and "exported as `f_v2`" in w.docs[2]
    assert "since CUDA 12.4 or older; changed in CUDA 13.0" in w.docs[2] and w.docs[-1] == "Deprecated by NVIDIA."


def test_julia_literals() -> None:
    assert julia.julia_string('a "b" $c \\ \n\x01') == '"a \\"b\\" \\$c \\\\ \\n\\x01"'
    assert julia.doc_text('$x "y" \\') == '\\$x \\"y\\" \\\\'
    assert julia.integer_type([0, -1], 4) == "Cint" and julia.integer_type([0, 0xFFFFFFFF], 4) == "Cuint"
    assert julia.define_type(1 << 40) == "Clonglong" and julia.define_type((1 << 64) - 1) == "Culonglong"


def test_command_line_failure(tmp_path: Path) -> None:
    """A folder without IR: exit 2, the reason said, nothing written."""
    done = subprocess.run([sys.executable, "-m", "generator.julia", "--ir", str(tmp_path), "--soname", "libcubind.so.0",
                           "--out", str(tmp_path / "out")], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "holds the IR of no configured unit" in done.stderr
    assert not (tmp_path / "out").exists()


def test_core_reads_the_error_record_layout(tmp_path: Path, irs: list[dict]) -> None:
    """core.jl takes cubind_error's offsets and cubind's constants from constants.json."""
    api = json.loads((ROOT / "generated" / "constants.json").read_text())
    files = julia.render(config_module.load(config_module.CONFIG_PATH), irs, api, "libcubind.so.0", "test")
    core = files["Cubind/src/core.jl"]
    for member, offset in api["layouts"]["cubind_error"]["offsets"].items():
        assert f"const ERROR_{member.upper()} = {offset}\n" in core
    assert f"const CUBIND_ERROR_STATUS = cubind_error_kind({api['values']['CUBIND_ERROR_STATUS']})\n" in core


def test_templates_compile_in_the_generators_environment() -> None:
    """make generate compiles every template with its own environment (render.compile_templates):
    the Julia templates use none of this renderer's own, so they compile there too."""
    from generator import render
    env = render.environment()
    for name in env.list_templates(extensions=["j2"]):
        if name.startswith("julia/"):
            env.get_template(name)
