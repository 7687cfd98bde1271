"""The C library's types NVIDIA's headers spell that strict C11 lacks (cufile.h's glibc loff_t, its
struct timespec): cubind's declarations spell them so that they need no feature-test macro."""

from __future__ import annotations

from pathlib import Path

from generator.declarators import PRIVATE_TYPEDEFS
from generator.tu import parse
from generator.typesel import STANDARD_STRUCTS, TypeSelector

HEADER = """#include <sys/types.h>
typedef struct fxOps {
    ssize_t (*read)(void *handle, char *buffer, size_t size, loff_t offset);
} fxOps_t;
int fxWait(fxOps_t *ops, struct timespec *timeout);
"""


def _entries(tmp_path: Path) -> tuple[list[dict], set[str]]:
    (tmp_path / "fx.h").write_text(HEADER)
    # as the cuFile unit is parsed: with the feature macro NVIDIA's header needs (feature_macros)
    parsed = parse((tmp_path,), ["fx.h"], ["-x", "c", "-std=c11", "-D_DEFAULT_SOURCE"])
    selector = TypeSelector(parsed, {"fx.h"})
    selector.seed_own_headers()
    return selector.entries(), selector.standard_headers


def test_loff_t_is_declared_under_a_private_name_before_its_first_user(tmp_path: Path) -> None:
    entries, standard = _entries(tmp_path)
    private, target = PRIVATE_TYPEDEFS["loff_t"]
    names = [e["name"] for e in entries]
    assert private in names and names.index(private) < names.index("fxOps")
    typedef = entries[names.index(private)]
    assert (typedef["decl"], typedef["header"], typedef["size"]) == (f"{target} {private}", "fx.h", 8)
    record = entries[names.index("fxOps")]
    assert [f["decl"] for f in record["fields"]] == [f"ssize_t (*read)(void *, char *, size_t, {private})"]
    assert {"sys/types.h", "stdint.h"} <= standard


def test_a_c_library_structure_taken_by_pointer_is_standard(tmp_path: Path) -> None:
    """struct timespec (glibc's, under _DEFAULT_SOURCE) is no declaration to repeat: its header is
    recorded, and cubind's header declares its tag (STANDARD_STRUCTS) where it does not include it."""
    (tmp_path / "fx.h").write_text(HEADER)
    parsed = parse((tmp_path,), ["fx.h"], ["-x", "c", "-std=c11", "-D_DEFAULT_SOURCE"])
    selector = TypeSelector(parsed, {"fx.h"})
    wait = next(c for _, c in parsed.top_level() if c.spelling == "fxWait")
    for argument in wait.type.argument_types():
        selector.visit_type(argument)
    assert "struct timespec" not in {e["name"] for e in selector.entries()}
    assert STANDARD_STRUCTS["time.h"] == "timespec" and "time.h" in selector.standard_headers
