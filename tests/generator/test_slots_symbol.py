"""The inline form's exported slots name (generator/model.py slots_symbol): its digest must change
with anything a program built with CUBIND_INLINE relies on (each index's symbol and type), so a
libcubind with another layout fails to load the program instead of calling a wrong function."""

import json
from pathlib import Path

from generator import config, model
from generator.model import slots_aliases, slots_symbol

ROOT = Path(__file__).resolve().parents[2]


def function(symbol: str, returns: str = "int", params: tuple[str, ...] = ("int *",)) -> dict:
    return {"symbol": symbol, "returns": {"type": returns}, "params": [{"type": t} for t in params]}


LAYOUT = [function("a"), function("b"), function("c", params=("void *", "size_t"))]


def test_same_layout_same_name() -> None:
    assert slots_symbol("cublas", LAYOUT) == slots_symbol("cublas", [dict(f) for f in LAYOUT])
    assert slots_symbol("cublas", LAYOUT).startswith("cubind_cublas_slots_")


def test_every_change_of_layout_changes_the_name() -> None:
    name = slots_symbol("cublas", LAYOUT)
    changed = [
        [LAYOUT[1], LAYOUT[0], LAYOUT[2]],                           # two indices swapped
        LAYOUT + [function("d")],                                    # a function added at the end
        [LAYOUT[0], function("x"), LAYOUT[1], LAYOUT[2]],           # ... or in the middle
        LAYOUT[:2],                                                  # one removed
        [LAYOUT[0], function("b", returns="long"), LAYOUT[2]],      # a result type changed
        [LAYOUT[0], function("b", params=("long *",)), LAYOUT[2]],  # a parameter type changed
        [LAYOUT[0], function("b", params=()), LAYOUT[2]],           # a parameter dropped
    ]
    names = {slots_symbol("cublas", layout) for layout in changed}
    assert name not in names and len(names) == len(changed)
    assert slots_symbol("cufft", LAYOUT) != name


def test_a_released_layout_that_this_one_begins_with_keeps_its_name() -> None:
    """Functions added at the end leave the indices of a released layout as they were: libcubind
    exports its slots under that layout's name too, so programs built against it still load."""
    grown = LAYOUT + [function("d"), function("e")]
    released = frozenset({slots_symbol("cublas", LAYOUT), "cubind_cublas_create", slots_symbol("cufft", LAYOUT)})
    assert slots_aliases("cublas", grown, released) == [slots_symbol("cublas", LAYOUT)]
    assert slots_aliases("cublas", LAYOUT, released) == []   # the current name is no alias
    # a layout whose indices moved is not this one's beginning: no alias, the baseline check fails
    moved = [LAYOUT[1], LAYOUT[0], LAYOUT[2], function("d")]
    assert slots_aliases("cublas", moved, released) == []


def test_a_library_s_slots_are_its_modules_in_configuration_order() -> None:
    """A module added to a library (cuBLASXt's to libcublas) takes the slots after the others', even
    where the IR lists its functions before some of theirs (the C++-only ones)."""
    configured = config.load()
    irs = [json.loads((ROOT / "generated" / "ir" / f"{u.name}.json").read_text()) for u in configured.units]
    built = model.build(configured, irs)
    order = [m.name for m in configured.modules]
    for library in built.libraries:
        ranks = [order.index(f["module"]) for f in library.functions]
        assert ranks == sorted(ranks), library.library.name
