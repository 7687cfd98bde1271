"""The Rust crate cubind-sys (generated/rust/cubind-sys, generator/rust.py): C types as Rust types,
and the checked-in crate against the IR: a feature and a file a library, every wrapper declared in
its library's file, every status constant under its C name with its library's status type, the
"since CUDA" of each wrapper. make test-consumers builds it with Debian's cargo and runs a program."""

import json
import re
import tomllib
from pathlib import Path

import clang.cindex as ci
import pytest

from generator import config, model, rust

ROOT = Path(__file__).resolve().parents[2]
CRATE = ROOT / "generated" / "rust" / "cubind-sys"
CONFIG = config.load()
_UNITS = [u.name for u in CONFIG.units]
MODEL = model.build(CONFIG, sorted((json.loads(p.read_text()) for p in (ROOT / "generated" / "ir").glob("*.json")),
                                   key=lambda ir: _UNITS.index(ir["unit"])))
SOURCES = {p.stem: p.read_text() for p in (CRATE / "src").glob("*.rs")}


def declarations(source: str) -> dict[str, str]:
    """C declarations -> the Rust type of each typedef, parsed with libclang."""
    tu = ci.Index.create().parse("t.c", args=["-x", "c", "-std=c11"], unsaved_files=[("t.c", source)])
    assert not [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    translator = rust.Translator()
    return {c.spelling: translator.rust(c.underlying_typedef_type) for c in tu.cursor.get_children()
            if c.kind == ci.CursorKind.TYPEDEF_DECL and c.location.file and c.location.file.name == "t.c"}


def test_c_types_become_rust_types() -> None:
    got = declarations("""
        #include <stddef.h>
        #include <stdint.h>
        struct S;
        typedef struct S *handle;
        typedef const char *const *names;
        typedef void (*callback)(void *, int, ...);
        typedef int (*compare)(const void *, const void *);
        typedef float matrix[2][3];
        typedef size_t length;
        typedef int64_t big;
        typedef unsigned long long ull;
        typedef _Bool flag;
        typedef enum E { A } e;
    """)
    assert got == {
        "handle": "*mut S",
        "names": "*const *const c_char",
        "callback": 'Option<unsafe extern "C" fn(*mut c_void, c_int, ...)>',
        "compare": 'Option<unsafe extern "C" fn(*const c_void, *const c_void) -> c_int>',
        "matrix": "[[c_float; 3]; 2]",
        "length": "usize",
        "big": "i64",
        "ull": "c_ulonglong",
        "flag": "bool",
        "e": "E",
    }


def test_names_and_literals() -> None:
    assert [rust.ident(n) for n in ("type", "ref", "self", "plan")] == ["r#type", "r#ref", "self_", "plan"]
    assert rust.rust_string('%04X:"\\') == 'b"%04X:\\"\\\\\\0"'
    assert rust.rust_str('say "hi"\n') == '"say \\"hi\\"\\n"'
    assert [rust.integer_type(v) for v in ([0, 1], [-1, 5], [0xFFFFFFFF], [1 << 32], [-(1 << 40)])] == \
        ["c_uint", "c_int", "c_uint", "c_ulonglong", "c_longlong"]


def test_one_feature_and_one_file_a_library_all_by_default() -> None:
    manifest = tomllib.loads((CRATE / "Cargo.toml").read_text())
    libraries = [lib.library.name for lib in MODEL.libraries]
    assert manifest["features"]["default"] == libraries
    assert set(manifest["features"]) == {"default", *libraries}
    assert manifest["dependencies"] == {}  # nothing from crates.io
    assert manifest["package"]["links"] == "cubind"
    assert set(SOURCES) == {"lib", "error", "common", *libraries}
    for name in libraries:
        assert f'#[cfg(feature = "{name}")]\nmod {name};' in SOURCES["lib"]


@pytest.mark.parametrize("lib", MODEL.libraries, ids=lambda lib: lib.library.name)
def test_every_wrapper_is_declared_in_its_library_file(lib: model.LibraryModel) -> None:
    declared = re.findall(r"^    pub fn (\w+)\(", SOURCES[lib.library.name], re.M)
    assert sorted(declared) == sorted(f["cubind_name"] for f in lib.functions)


@pytest.mark.parametrize("lib", MODEL.libraries, ids=lambda lib: lib.library.name)
def test_every_status_has_its_c_name_and_type(lib: model.LibraryModel) -> None:
    everything = "\n".join(SOURCES.values())
    for status in lib.status_constants:
        # a status record's (CUfileError_t) values are its status member's enum's (CUfileOpError)
        assert re.search(rf"^pub const {status['name']}: {lib.library.status_enum_type} = {status['value']};$",
                         everything, re.M), status["name"]


def test_since_cuda_is_the_oldest_release_read_that_declares_it() -> None:
    releases = [r["name"] for r in MODEL.irs[0]["releases"]]
    newer = [f for lib in MODEL.libraries for f in lib.functions if f["added_in"] != releases[-1]]
    assert newer, "every function is in the oldest release read: nothing to check"
    f = newer[0]
    after = releases[releases.index(f["added_in"]) + 1]
    assert f"Wraps `{f['name']}` ({f['header']}:{f['line']}" in SOURCES[f["library"]]
    assert re.search(rf"since CUDA {re.escape(f['added_in'])} or older, after {re.escape(after)}\b.*\n(    ///.*\n)*"
                     rf"    pub fn {f['cubind_name']}\(", SOURCES[f["library"]])


def test_records_are_laid_out_as_in_c() -> None:
    """Every complete record of the IR is checked when compiling: its size and alignment."""
    checked = set(re.findall(r"^const _: \(\) = assert!\(::std::mem::size_of::<(\w+)>\(\) == ", "\n".join(SOURCES.values()),
                             re.M))
    float2 = next(e for g in MODEL.shared_groups for e in g.entries if e["name"] == "float2" and e["kind"] == "struct")
    assert "float2" in checked and float2["explicit_align"] == 8
    assert re.search(r"#\[repr\(C, align\(8\)\)\]\n#\[derive\(Copy, Clone\)\]\npub struct float2 ", SOURCES["common"])
