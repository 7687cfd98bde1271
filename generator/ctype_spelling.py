"""The C type spellings the IR holds (`type`, `value_type`, `underlying` of its functions, fields and
typedefs), read back into their structure, for renderers that run without libclang (the Julia
module: generator/julia.py).

The IR's spellings are libclang's own (`const float *`, `struct cublasContext **`, `unsigned char
*[4]`, `int (*)(void *, void *)`): a specifier list, then pointers, then array bounds, or a pointer to
a function. That small grammar is all this reads; anything else (a pointer to an array, an array of
function pointers) is refused with the spelling, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

QUALIFIERS = frozenset({"const", "volatile", "restrict"})
TAGS = frozenset({"struct", "union", "enum"})
# The words of C's arithmetic types, and each type they spell, in a canonical order.
BUILTIN_WORDS = frozenset({"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool",
                           "bool"})
BUILTINS = {
    ("void",): "void", ("char",): "char", ("signed", "char"): "signed char", ("unsigned", "char"): "unsigned char",
    ("short",): "short", ("short", "int"): "short", ("signed", "short"): "short", ("signed", "short", "int"): "short",
    ("unsigned", "short"): "unsigned short", ("unsigned", "short", "int"): "unsigned short",
    ("int",): "int", ("signed",): "int", ("signed", "int"): "int",
    ("unsigned",): "unsigned int", ("unsigned", "int"): "unsigned int",
    ("long",): "long", ("long", "int"): "long", ("signed", "long"): "long", ("signed", "long", "int"): "long",
    ("unsigned", "long"): "unsigned long", ("unsigned", "long", "int"): "unsigned long",
    ("long", "long"): "long long", ("long", "long", "int"): "long long", ("signed", "long", "long"): "long long",
    ("signed", "long", "long", "int"): "long long",
    ("unsigned", "long", "long"): "unsigned long long", ("unsigned", "long", "long", "int"): "unsigned long long",
    ("float",): "float", ("double",): "double", ("long", "double"): "long double", ("_Bool",): "_Bool", ("bool",): "_Bool",
}
_ORDER = ("signed", "unsigned", "short", "long", "void", "char", "int", "float", "double", "_Bool", "bool")


class SpellingError(ValueError):
    """A spelling outside the grammar this module reads."""


@dataclass(frozen=True)
class CType:
    """A type as its spelling gives it: `base` is a builtin ("unsigned long long"), a tag ("struct X",
    "enum X") or a typedef name; `pointers` the number of `*`; `arrays` each bound, outermost first
    (None: `[]`); `function` a pointer to a function (its parameters are not read), `pointers` then
    counting the `*` inside its parentheses."""
    base: str
    pointers: int = 0
    arrays: tuple[int | None, ...] = ()
    function: bool = False

    @property
    def builtin(self) -> bool:
        return self.base in BUILTINS.values()

    @property
    def tag(self) -> tuple[str, str] | None:
        """("struct", "X") for `struct X`, ...; None for a builtin or a typedef name."""
        kind, _, name = self.base.partition(" ")
        return (kind, name) if kind in TAGS else None

    def element(self) -> "CType":
        """The type of an array's elements (the type itself when it is no array)."""
        return CType(self.base, self.pointers, self.arrays[1:], self.function)

    def pointee(self) -> "CType":
        """The type a pointer points to."""
        if self.arrays or self.pointers == 0:
            raise SpellingError(f"{self} is not a pointer")
        if self.function and self.pointers == 1:
            raise SpellingError("the pointee of a function pointer is a function")
        return CType(self.base, self.pointers - 1, (), self.function)


def tokens(text: str) -> list[str]:
    """Identifiers, numbers and single punctuation characters."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char.isspace():
            i += 1
        elif char.isalnum() or char == "_":
            start = i
            while i < len(text) and (text[i].isalnum() or text[i] == "_"):
                i += 1
            out.append(text[start:i])
        elif char in "*[](),":
            out.append(char)
            i += 1
        else:
            raise SpellingError(f"unexpected {char!r} in the type {text!r}")
    return out


def parse(text: str) -> CType:
    """The structure of one of the IR's type spellings."""
    words = tokens(text)
    at = 0
    builtin: list[str] = []
    base: str | None = None
    while at < len(words) and words[at] not in ("*", "[", "(", ")", ","):
        word = words[at]
        if word in QUALIFIERS:
            at += 1
        elif word in TAGS:
            if at + 1 >= len(words) or not _identifier(words[at + 1]):
                raise SpellingError(f"{word} without a tag in {text!r}")
            base = _one(base, f"{word} {words[at + 1]}", text)
            at += 2
        elif word in BUILTIN_WORDS:
            builtin.append(word)
            at += 1
        elif _identifier(word):
            base = _one(base, word, text)
            at += 1
        else:
            raise SpellingError(f"unexpected {word!r} in {text!r}")
    if builtin:
        key = tuple(sorted(builtin, key=_ORDER.index))
        if key not in BUILTINS:
            raise SpellingError(f"no C type is spelled {' '.join(builtin)!r} ({text!r})")
        base = _one(base, BUILTINS[key], text)
    if base is None:
        raise SpellingError(f"no type in {text!r}")
    pointers = 0
    while at < len(words) and words[at] in ("*", *QUALIFIERS):
        pointers += words[at] == "*"
        at += 1
    if at < len(words) and words[at] == "(":
        return _function_pointer(words, at, text)
    arrays: list[int | None] = []
    while at < len(words) and words[at] == "[":
        if at + 1 < len(words) and words[at + 1] == "]":
            arrays.append(None)
            at += 2
        elif at + 2 < len(words) and words[at + 1].isdigit() and words[at + 2] == "]":
            arrays.append(int(words[at + 1]))
            at += 3
        else:
            raise SpellingError(f"an array bound that is not a number in {text!r}")
    if at != len(words):
        raise SpellingError(f"cannot read {' '.join(words[at:])!r} in {text!r}")
    return CType(base, pointers, tuple(arrays))


def _function_pointer(words: list[str], at: int, text: str) -> CType:
    """`R (*)(P...)` or `R (**)(P...)`: a pointer to a function, its result and parameters skipped."""
    inner = at + 1
    stars = 0
    while inner < len(words) and words[inner] in ("*", *QUALIFIERS):
        stars += words[inner] == "*"
        inner += 1
    if stars == 0 or inner >= len(words) or words[inner] != ")" or inner + 1 >= len(words) or words[inner + 1] != "(":
        raise SpellingError(f"a declarator other than a function pointer in {text!r}")
    depth = 0
    for end in range(inner + 1, len(words)):
        depth += {"(": 1, ")": -1}.get(words[end], 0)
        if depth == 0:
            break
    else:
        raise SpellingError(f"unbalanced parentheses in {text!r}")
    if end != len(words) - 1:
        raise SpellingError(f"something after a function pointer's parameters in {text!r}")
    return CType("void", stars, (), True)


def _identifier(word: str) -> bool:
    return word.isidentifier() and word not in QUALIFIERS and word not in TAGS and word not in BUILTIN_WORDS


def _one(current: str | None, new: str, text: str) -> str:
    if current is not None:
        raise SpellingError(f"two type names ({current}, {new}) in {text!r}")
    return new
