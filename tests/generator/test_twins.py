"""The examples' twins with NVIDIA's names (generator/twins.py, generated/examples/nvidia/): each
example renamed through the IR, naming nothing of cubind's, every NVIDIA function it calls one the
drop-in exports; and what cannot be renamed mechanically makes the generation fail, saying where."""

from __future__ import annotations

from pathlib import Path

import clang.cindex as ci
import pytest

from generator import VERSION, config, model, render, subset, twins
from generator.amalgamate import _tokens

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"
CONFIG = config.load()
MODEL = model.build(CONFIG, subset.read_irs(CONFIG, GENERATED / "ir"))
NAMES = twins.names_of(MODEL)
# every function of the IR: the name NVIDIA's header gives it -> the symbol the drop-in exports for it
SYMBOL_OF = {f["name"]: f["symbol"] for lib in MODEL.libraries for f in lib.functions}
COMMON = {"generator_version": VERSION, "command": "make generate"}
HEADER = render.environment().get_template("example_twin.c.j2")
TWIN_FILES = sorted(p.relative_to(GENERATED / twins.TWINS).as_posix()
                    for p in (GENERATED / twins.TWINS).rglob("*") if p.is_file())


def _exports() -> set[str]:
    """The names of generated/dropin/libcubind-dropin.map.in's global: list."""
    text = (GENERATED / "dropin" / "libcubind-dropin.map.in").read_text()
    return {line.strip().rstrip(";") for line in text.splitlines() if line.strip().endswith(";")}


def _identifiers(path: Path) -> list[str]:
    return [t.spelling for t in _tokens(str(path), path.read_text()) if t.kind == ci.TokenKind.IDENTIFIER]


def test_every_example_program_has_a_twin() -> None:
    programs = {p.name for p in (ROOT / "examples").glob("*.c")}
    assert programs and programs <= set(TWIN_FILES), sorted(programs - set(TWIN_FILES))


@pytest.mark.parametrize("relative", TWIN_FILES)
def test_a_twin_names_nothing_of_cubind(relative: str) -> None:
    path = GENERATED / twins.TWINS / relative
    tokens = _tokens(str(path), path.read_text())
    named = [t.spelling for t in tokens if t.kind == ci.TokenKind.IDENTIFIER and t.spelling.lower().startswith("cubind")
             and not t.spelling.startswith(twins.OWN_MACRO_PREFIX)]
    assert named == []
    assert not [t.spelling for t in tokens if t.kind == ci.TokenKind.LITERAL and t.spelling.startswith('"cubind/')]


@pytest.mark.parametrize("relative", TWIN_FILES)
def test_a_twin_calls_what_its_example_calls_by_nvidia_names_the_drop_in_exports(relative: str) -> None:
    """The twin's calls, in order, are the example's wrappers renamed; each is exported by the drop-in."""
    source = _identifiers(ROOT / "examples" / relative)
    twin = _identifiers(GENERATED / twins.TWINS / relative)
    called = [name for name in twin if name in SYMBOL_OF]
    assert called == [NAMES.functions.get(name, name) for name in source if name in NAMES.functions or name in SYMBOL_OF]
    exports = _exports()
    assert [name for name in called if SYMBOL_OF[name] not in exports] == []


def test_the_ir_gives_the_names_a_program_writes_and_the_headers_it_includes() -> None:
    assert NAMES.functions["cubind_cublas_sgemm"] == "cublasSgemm"   # exported as cublasSgemm_v2
    assert SYMBOL_OF["cublasSgemm"] == "cublasSgemm_v2"
    assert NAMES.functions["cubind_driver_mem_alloc"] == "cuMemAlloc"
    assert NAMES.headers["cublas"] == ["cublas_v2.h"]
    assert NAMES.headers["cufft"] == ["cufft.h", "cufftXt.h"]
    assert "cuda_runtime_api.h" in NAMES.headers["runtime"]


def _rewrite(text: str, name: str = "examples/x.c") -> str | None:
    return twins.rewrite(name, text, NAMES, HEADER, COMMON)


def test_a_wrapper_and_its_header_are_renamed_in_code_comments_and_strings() -> None:
    text = ('/* x.c - a plan */\n#include "cubind/cufft.h"\n\nint main(void)\n{\n    cufftHandle plan;\n'
            '    /* cubind_cufft_plan1d makes it */\n    puts("cubind_cufft_plan1d");\n'
            '    return cubind_cufft_plan1d(&plan, 8, CUFFT_C2C, 1);\n}\n')
    twin = _rewrite(text)
    assert twin is not None
    assert "#include <cufft.h>\n#include <cufftXt.h>\n" in twin
    assert "    return cufftPlan1d(&plan, 8, CUFFT_C2C, 1);\n" in twin
    assert "/* cufftPlan1d makes it */" in twin and 'puts("cufftPlan1d");' in twin
    assert twin.startswith("/*\n * examples/nvidia/x.c - examples/x.c with NVIDIA's names") and "x.c - a plan" not in twin


def test_a_file_that_names_nothing_of_cubind_is_its_own_twin() -> None:
    assert _rewrite('/* "cbi1": cubind\'s id exchange */\nint x;\n') is None


@pytest.mark.parametrize("text, named", [
    # cubind's error record: no NVIDIA counterpart (check.h's, whose twin is written by hand)
    ('#include "cubind/runtime.h"\nvoid f(void) { cubind_runtime_free(0); (void)cubind_last_error(); }\n',
     "x.c:2: cubind_last_error has no NVIDIA counterpart"),
    # a wrapper whose module header the file does not include: its twin would not include NVIDIA's
    ('#include "check.h"\nint f(void) { return cubind_runtime_free(0); }\n',
     "x.c:2: cubind_runtime_free is of cubind/runtime.h, which the file does not include itself"),
    # the umbrella header stands for no one module's headers
    ('#include "cubind/cubind.h"\nint f(void) { return cubind_runtime_free(0); }\n',
     "x.c:1: #include of cubind/cubind.h"),
    # a twin's comment that names cubind would say what the twin does not do
    ('#include "cubind/runtime.h"\nint f(void)\n{\n    /* through cubind */\n    return cubind_runtime_free(0);\n}\n',
     "x.c:4: 'cubind' names cubind"),
])
def test_what_cannot_be_renamed_fails_naming_it(text: str, named: str) -> None:
    with pytest.raises(twins.TwinError) as error:
        _rewrite(text)
    assert named in str(error.value)


def test_the_generation_fails_on_an_example_that_cannot_be_renamed(tmp_path: Path) -> None:
    (tmp_path / "examples" / "nvidia").mkdir(parents=True)
    (tmp_path / "examples" / "bad.c").write_text('#include "cubind/runtime.h"\nint main(void) { return cubind_error_count(); }\n')
    with pytest.raises(twins.TwinError, match="examples/bad.c:2: cubind_error_count"):
        twins.render(render.environment(), MODEL, COMMON, root=tmp_path)


def test_an_example_with_a_hand_written_twin_is_not_generated(tmp_path: Path) -> None:
    (tmp_path / "examples" / "nvidia").mkdir(parents=True)
    (tmp_path / "examples" / "check.h").write_text("int cubind_last_error(void);\n")
    (tmp_path / "examples" / "nvidia" / "check.h").write_text("int nothing;\n")
    (tmp_path / "examples" / "ok.c").write_text('#include "cubind/runtime.h"\nint main(void) { return cubind_runtime_free(0); }\n')
    assert sorted(twins.render(render.environment(), MODEL, COMMON, root=tmp_path)) == ["examples/nvidia/ok.c"]
