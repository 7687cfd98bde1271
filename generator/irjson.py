"""The IR files' JSON text: json.dumps(value, indent=1, ensure_ascii=False), byte for byte, faster.

With an indent, the standard library encodes in pure Python through a chain of nested generators
(every piece of text is yielded up through each level of nesting). Here each container is one
join of its items' texts, and strings and numbers are encoded by the same C helpers json uses.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring  # json.dumps's string encoder when ensure_ascii=False
from typing import Any

# The text of a value that is no container, by its exact type (subclasses: _other_scalar).
_SCALARS: dict[type, Callable[[Any], str]] = {
    str: encode_basestring,
    int: int.__repr__,
    bool: {True: "true", False: "false"}.__getitem__,
    type(None): lambda _: "null",
    float: json.dumps,  # float.__repr__, or NaN / Infinity as json writes them
}


def dumps(value: Any) -> str:
    """json.dumps(value, indent=1, ensure_ascii=False) for plain data: dicts with string keys,
    lists, tuples, strings, integers, floats, booleans and None (TypeError for anything else)."""
    return _text(value, "\n")


def _text(value: Any, newline: str) -> str:
    """The text of `value`, at the indentation that `newline` (a line break and spaces) gives."""
    scalar = _SCALARS.get(type(value))
    if scalar is not None:
        return scalar(value)
    inner = newline + " "
    get = _SCALARS.get
    if isinstance(value, dict):
        if not value:
            return "{}"
        keys = _KEYS
        items = [(keys.get(key) or _key(key)) + (scalar(item) if (scalar := get(type(item))) else _text(item, inner))
                 for key, item in value.items()]
        return "{" + inner + ("," + inner).join(items) + newline + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        items = [scalar(item) if (scalar := get(type(item))) else _text(item, inner) for item in value]
        return "[" + inner + ("," + inner).join(items) + newline + "]"
    return _other_scalar(value)


# `"key": ` by key: the IR repeats a few dozen keys over and over.
_KEYS: dict[str, str] = {}


def _key(key: Any) -> str:
    if type(key) is not str:
        raise TypeError(f"keys must be strings, not {type(key).__name__} ({key!r})")
    _KEYS[key] = encode_basestring(key) + ": "
    return _KEYS[key]


def _other_scalar(value: Any) -> str:
    """A subclass of str, int or float (an enum member, say), as json.dumps writes it."""
    if isinstance(value, (str, int, float)):
        return json.dumps(value, ensure_ascii=False)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
