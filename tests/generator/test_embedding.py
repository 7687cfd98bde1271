"""The embedding parts of the generator: subsets (generator/subset.py), the amalgamation's token
edits (generator/amalgamate.py) and tracing's descriptions (generator/tracedesc.py)."""

from __future__ import annotations

import pytest

from generator import amalgamate, config, subset, tracedesc
from generator.model import LibraryModel, Model

SOURCE = """#ifndef CUBIND_X_H
#define CUBIND_X_H
#include <stddef.h>
#include "cubind/platform.h"
#if defined(CUBIND_HAS)
#include <cufft.h>
#endif
/* cubind_comment stays */
static const char *s = "cubind_string stays";
int cubind_f(int my_cubind_x) { return CUBIND_LIMIT + my_cubind_x; }
struct names { int names; } names;
#endif
"""


def test_prefix_renames_cubind_identifiers_only() -> None:
    out = amalgamate.prefixed("x.h", SOURCE, "mylib")
    assert "int mylib_f(int my_cubind_x)" in out and "MYLIB_LIMIT" in out and "#ifndef MYLIB_X_H" in out
    assert "/* cubind_comment stays */" in out and '"cubind_string stays"' in out
    assert '#include "mylib/platform.h"' in out  # cubind's own header, under the prefix too
    text = '#include <stdio.h>\nconst char *s = "cubind/x.h";\n'  # a string that is not an #include's: kept
    assert amalgamate.prefixed("x.c", text, "m") == text


def test_prefixed_tree_holds_its_own_sources_renamed() -> None:
    files = {"build.mk": "CUBIND_LIBRARIES := cufft\n", "include/cubind/cufft.h": SOURCE,
             "src/cufft.c": '#include "cubind/cufft.h"\nint cubind_cufft_x(void) { return 0; }\n', "ir/cufft.json": "{}",
             "rust/cubind-sys/src/lib.rs": "pub fn cubind_x();\n"}
    tree = amalgamate.prefixed_tree(files, "mylib")
    assert not [p for p in tree if p.startswith("rust/")]  # the crate declares cubind_*: cubind's own only
    assert "include/cubind/cufft.h" not in tree and "#ifndef MYLIB_X_H" in tree["include/mylib/cufft.h"]
    assert tree["src/cufft.c"] == '#include "mylib/cufft.h"\nint mylib_cufft_x(void) { return 0; }\n'
    assert tree["build.mk"].endswith("CUBIND_PREFIX := mylib\n") and tree["ir/cufft.json"] == "{}"
    assert "int cubind__" not in tree["loader/internal.h"] and "mylib__resolve" in tree["loader/internal.h"]
    assert "mylib_*;" in tree["abi/libcubind.map"] and "MYLIB_0." in tree["abi/libcubind.map"]
    assert "include/mylib/core.h" in tree and "support/recorder.c" in tree and "support/passthrough_main.c" in tree


def test_directives_give_targets_and_depth() -> None:
    found = [d for d in amalgamate.directives("x.h", SOURCE) if d.name == "include"]
    assert [(d.target, d.depth) for d in found] == [("<stddef.h>", 1), ("cubind/platform.h", 1), ("<cufft.h>", 2)]
    assert [d.line for d in found] == [2, 3, 5]


def test_rename_touches_only_the_names_given() -> None:
    out = amalgamate.rename("x.c", SOURCE, {"names": "x__names"})
    assert "struct x__names { int x__names; } x__names;" in out
    assert "cubind_f" in out


def test_subset_refuses_an_unknown_library() -> None:
    model = Model(config.load(), [], "13.0", [], [], [])
    with pytest.raises(config.ConfigError, match="nonexistent"):
        subset.select(model, ["cufft", "nonexistent"])
    assert subset.select(model, ["cufft"]).selection == ("cufft",)


def test_trace_description_and_arguments() -> None:
    lib = LibraryModel(config.load().library("cufft"), [], [], "", [],
                       trace_enums=[{"name": "cufftType", "function": "trace_enum_0", "constants": []}],
                       trace_enum_of={"cufftType": "trace_enum_0"})
    function = {"name": "f", "returns_status": True, "returns": {"category": "enum", "type": "cufftResult"},
                "params": [{"name": "plan", "category": "pointer", "type": "cufftHandle *", "canonical": "int *"},
                           {"name": "n", "category": "integer", "type": "size_t", "canonical": "unsigned long"},
                           {"name": "type", "category": "enum", "type": "cufftType", "canonical": "cufftType"},
                           {"name": "x", "category": "floating", "type": "float", "canonical": "float"},
                           {"name": "c", "category": "record", "type": "float2", "canonical": "float2"}]}
    assert tracedesc.description(lib, function) == "s;pplan;un;e0:type;fx;rc;"
    # every integer, enum and pointer passes as a cubind__word (what a shared slow path has), a
    # floating-point value as a double, a record not at all
    assert tracedesc.arguments(lib, function) == ["(cubind__word)(uintptr_t)plan", "(cubind__word)n",
                                                  "(cubind__word)type", "(double)x"]
    assert tracedesc.result(lib, function, "r") == ["(int)r"]


def test_trace_table_keeps_each_description_once_and_sorts_constants() -> None:
    constants = [{"name": "B", "value": 2}, {"name": "A", "value": -1}, {"name": "HUGE", "value": 2 ** 64 - 1}]
    plain = {"name": "g", "returns_status": False, "returns": {"category": "void", "type": "void"},
             "params": [{"name": "n", "category": "integer", "type": "int", "canonical": "int"}]}
    lib = LibraryModel(config.load().library("cufft"), [plain, dict(plain, name="h"), dict(plain, name="k", params=[])],
                       [], "", [], trace_enums=[{"name": "e", "function": "trace_enum_0", "constants": constants}],
                       trace_enum_of={"e": "trace_enum_0"})
    table = tracedesc.table(lib)
    assert table["unique"] == ["v;in;", "v;"]
    assert table["of"] == [0, 0, 1]
    assert [c["name"] for c in table["enums"][0]["constants"]] == ["A", "B"]  # by value; the unsigned 2^64-1 left out
    assert table["constant_count"] == 2


def _copy_ir(tmp_path, ir_dir):
    import shutil
    target = tmp_path / "ir"
    shutil.copytree(ir_dir, target)
    return target


def test_read_irs_reads_every_configured_unit() -> None:
    from pathlib import Path
    cfg = config.load()
    irs = subset.read_irs(cfg, Path(__file__).resolve().parents[2] / "generated" / "ir")
    assert [ir["unit"] for ir in irs] == [u.name for u in cfg.units]


def test_read_irs_refuses_a_missing_or_stale_ir(tmp_path) -> None:
    import json
    from pathlib import Path
    cfg = config.load()
    ir_dir = _copy_ir(tmp_path, Path(__file__).resolve().parents[2] / "generated" / "ir")
    unit = cfg.units[0].name
    path = ir_dir / f"{unit}.json"
    ir = json.loads(path.read_text())
    older = ir["releases"][1:]
    if older:  # made for a release the configuration pins at other package versions
        older[0]["packages"] = [p + "~other" for p in older[0]["packages"]]
        path.write_text(json.dumps(ir))
        with pytest.raises(subset.IRTreeError, match=f"{unit}.json holds the releases .*make generate"):
            subset.read_irs(cfg, ir_dir)
    path.unlink()
    with pytest.raises(subset.IRTreeError, match=f"{unit}.json is missing"):
        subset.read_irs(cfg, ir_dir)
