"""The inline form's exported slots name (generator/model.py slots_symbol): its digest must change
with anything a program built with CUBIND_INLINE relies on (each index's symbol and type), so a
libcubind with another layout fails to load the program instead of calling a wrong function."""

from generator.model import slots_symbol


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
