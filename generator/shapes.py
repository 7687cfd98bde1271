"""Slow paths shared by shape: the wrappers whose parameters pass alike, of whatever library, share one
slow path (templates/shapes.c.j2). Each wrapper keeps a stub of its own type (templates/library.c.j2),
which converts its arguments to the shape's (every integer, enum and pointer to one 64-bit word,
cubind__word) and jumps to the shared body with its member number; the body makes the typed call of
that member in a switch whose cases are the same machine code, which the compiler merges into one."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import LibraryModel, Model

# The members of one body at most: the compiler merges its members' calls, each a case of a switch
# that jumps to one join, only up to a number of cases (gcc: 100 edges into one block,
# max-crossjump-edges); a shape with more members has a body for each so many.
MEMBERS_MAX = 96

# Passed in the general-purpose registers, the member number needs one left over: six on x86-64 (and
# eight on AArch64; nothing is passed on the stack for it, so the stub only jumps). Else it goes in a
# floating-point register, of which eight. With one more left over, the stub passes its own address
# too; else the body finds it from the member number (a switch: a jump and a load a member).
INTEGER_REGISTERS = 6
FLOATING_REGISTERS = 8

# The C type each parameter is passed to a shape as, by its kind: a word (integers of 32 bits and
# more, enums, object and function pointers), or itself (floating point; an integer narrower than int,
# which a caller widens as the type says, so that the call stays the same machine code).
WORD = "cubind__word"
_NARROW = {"signed char", "unsigned char", "char", "short", "unsigned short", "_Bool"}
_FLOATING = {"float", "double"}


def erased(param: dict) -> str | None:
    """The C type `param` is passed to a shape as; None: none (a record by value: its wrapper keeps a
    slow path of its own)."""
    category = param["category"]
    canonical = param["canonical"].replace("const ", "").replace("volatile ", "").strip()
    if category in ("pointer", "function_pointer", "enum"):
        return WORD
    if category == "integer":
        return canonical if canonical in _NARROW else WORD
    if category == "floating" and canonical in _FLOATING:
        return canonical
    return None


def to_shape(param: dict) -> str:
    """The stub's argument expression: the parameter converted to its shape's type."""
    if param["category"] in ("pointer", "function_pointer"):
        return f"(uintptr_t){param['name']}"
    return param["name"]


def from_shape(param: dict, name: str) -> str:
    """The typed call's argument: the shape's parameter `name` converted back to the parameter's type."""
    if param["category"] in ("pointer", "function_pointer"):
        return f"({param['value_type']})(uintptr_t){name}"
    if erased(param) == WORD:
        return f"({param['value_type']}){name}"
    return name


def traced(kind: str, name: str) -> str:
    """cubind__trace_args's variadic argument of the shape's parameter `name`, of C type `kind`: a
    word, or a floating-point value as a double (loader/trace_log.h)."""
    if kind == WORD:
        return name
    if kind in _FLOATING:
        return f"(double){name}"
    return f"({WORD}){name}"


@dataclass
class Member:
    library: LibraryModel
    function: dict
    index: int  # in its library's table

    @property
    def stub(self) -> str:
        """The name of the stub its wrapper's hot path calls until it is resolved."""
        return f"cubind__slow_{self.function['symbol']}"


@dataclass
class Shape:
    number: int
    params: list[str]       # each parameter's C type (the body returns the status as an int)
    member_in_word: bool    # the member number is passed as an unsigned (else as a double)
    stub_passed: bool       # the stub passes its address after the member number
    members: list[Member] = field(default_factory=list)


@dataclass
class TreeShapes:
    shapes: list[Shape]
    of: dict[str, tuple[Shape, int]]  # a shared wrapper's symbol -> its shape and member number

    def used_by(self, lib: LibraryModel) -> list[Shape]:
        """The shapes of the library's wrappers, by number."""
        numbers = {self.of[f["symbol"]][0].number for f in lib.functions if f["symbol"] in self.of}
        return [s for s in self.shapes if s.number in numbers]


def shareable(lib: LibraryModel, function: dict) -> bool:
    """Whether `function`'s slow path is its shape's: it returns the library's status (not a record
    holding it: the status member is tested there) and passes nothing by value that a word cannot
    carry, with a register left for the member number."""
    if not function["returns_status"] or lib.library.status_member:
        return False
    params = [erased(p) for p in function["params"]]
    if None in params:
        return False
    words = sum(1 for p in params if p not in _FLOATING)
    floats = len(params) - words
    return words < INTEGER_REGISTERS or floats < FLOATING_REGISTERS


def tree(model: Model) -> TreeShapes:
    """The shapes of every library's wrappers, in the order of their first member, and each shared
    wrapper's."""
    by_key: dict[tuple, Shape] = {}  # the last body of each shape
    shapes_: list[Shape] = []
    of: dict[str, tuple[Shape, int]] = {}
    for lib in model.libraries:
        for index, f in enumerate(lib.functions):
            if not shareable(lib, f):
                continue
            if f["symbol"] in of:
                raise ValueError(f"{f['symbol']} is a symbol of two libraries: its stub's name would be too")
            params = [erased(p) for p in f["params"]]
            words = sum(1 for p in params if p not in _FLOATING)
            key = tuple(params)
            shape = by_key.get(key)
            if shape is None or len(shape.members) == MEMBERS_MAX:
                shape = Shape(len(shapes_), params, words < INTEGER_REGISTERS, words + 1 < INTEGER_REGISTERS)
                by_key[key] = shape
                shapes_.append(shape)
            of[f["symbol"]] = (shape, len(shape.members))
            shape.members.append(Member(lib, f, index))
    return TreeShapes(shapes_, of)
