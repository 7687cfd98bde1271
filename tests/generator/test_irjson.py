"""generator/irjson.py writes the same text as json.dumps(value, indent=1, ensure_ascii=False)."""

import enum
import json
from pathlib import Path

import pytest

from generator import irjson

ROOT = Path(__file__).resolve().parents[2]


def reference(value: object) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False)


class Small(enum.IntEnum):
    ONE = 1


@pytest.mark.parametrize("value", [
    None, True, False, 0, -7, 1 << 64, 1.5, -0.0, float("inf"), float("nan"), "", "é \"q\" \\ \n\t\x01 \u2028",
    [], {}, [[]], [{}], {"a": []}, {"a": {}}, [1, "two", None, [3, [4, {}]]], (1, (2, 3)),
    {"x": [{"y": {"z": [True, False]}}], "": 0, "é": "ü"}, [Small.ONE], {"k": Small.ONE},
])
def test_same_text_as_json_dumps(value: object) -> None:
    assert irjson.dumps(value) == reference(value)


def test_same_text_as_the_checked_in_ir() -> None:
    for path in sorted((ROOT / "generated" / "ir").glob("*.json")):
        text = path.read_text(encoding="utf-8")
        assert irjson.dumps(json.loads(text)) + "\n" == text, path.name


@pytest.mark.parametrize("value", [{1: "a"}, {None: 1}, [object()], {"a": {1, 2}}])
def test_what_is_no_ir_is_refused(value: object) -> None:
    with pytest.raises(TypeError):
        irjson.dumps(value)
