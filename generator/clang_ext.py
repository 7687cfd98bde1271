"""libclang entry points that Debian's python3-clang-14 bindings do not wrap, and leaner
versions of three they do (a cursor's children and arguments, a range's tokens) for the loops over a whole
translation unit.

They are plain libclang C functions (clang-c/Index.h), bound here with ctypes
against the library the bindings already loaded.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache

import clang.cindex as ci

# CXEvalResultKind (clang-c/Index.h)
_EVAL_INT = 1


@cache
def _lib() -> ctypes.CDLL:
    lib = ci.conf.lib
    lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
    lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
    lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getKind.restype = ctypes.c_int
    lib.clang_EvalResult_isUnsignedInt.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_isUnsignedInt.restype = ctypes.c_uint
    lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
    lib.clang_EvalResult_getAsUnsigned.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsUnsigned.restype = ctypes.c_ulonglong
    lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_dispose.restype = None
    lib.clang_Cursor_isMacroFunctionLike.argtypes = [ci.Cursor]
    lib.clang_Cursor_isMacroFunctionLike.restype = ctypes.c_uint
    lib.clang_getCursorPlatformAvailability.argtypes = [
        ci.Cursor,
        ctypes.POINTER(ctypes.c_int),
        ctypes.POINTER(ci._CXString),
        ctypes.POINTER(ctypes.c_int),
        ctypes.POINTER(ci._CXString),
        ctypes.c_void_p,
        ctypes.c_int,
    ]
    lib.clang_getCursorPlatformAvailability.restype = ctypes.c_int
    return lib


def evaluate_int(cursor: ci.Cursor) -> int | None:
    """The integer value of a variable's initializer, or None if it is not an integer constant."""
    lib = _lib()
    result = lib.clang_Cursor_Evaluate(cursor)
    if not result:
        return None
    try:
        if lib.clang_EvalResult_getKind(result) != _EVAL_INT:
            return None
        if lib.clang_EvalResult_isUnsignedInt(result):
            return int(lib.clang_EvalResult_getAsUnsigned(result))
        return int(lib.clang_EvalResult_getAsLongLong(result))
    finally:
        lib.clang_EvalResult_dispose(result)


def is_macro_function_like(cursor: ci.Cursor) -> bool:
    return bool(_lib().clang_Cursor_isMacroFunctionLike(cursor))


def deprecation(cursor: ci.Cursor) -> str | None:
    """None when the declaration is not deprecated, else its message ('' when it has none)."""
    lib = _lib()
    always_deprecated = ctypes.c_int(0)
    always_unavailable = ctypes.c_int(0)
    message = ci._CXString()
    unavailable_message = ci._CXString()
    lib.clang_getCursorPlatformAvailability(
        cursor,
        ctypes.byref(always_deprecated),
        ctypes.byref(message),
        ctypes.byref(always_unavailable),
        ctypes.byref(unavailable_message),
        None,
        0,
    )
    text = ci.conf.lib.clang_getCString(message)
    if not always_deprecated.value:
        return None
    return text.decode() if isinstance(text, bytes) else (text or "")


def children(cursor: ci.Cursor) -> list[ci.Cursor]:
    """list(cursor.get_children()) without cindex's check of each child against the null cursor
    (two more libclang calls a child; a translation unit has tens of thousands of top-level ones)."""
    tu = cursor._tu

    def visit(child: ci.Cursor, _parent: ci.Cursor, found: list[ci.Cursor]) -> int:
        child._tu = tu  # as get_children does: the cursor keeps its translation unit alive
        found.append(child)
        return 1  # CXChildVisit_Continue

    found: list[ci.Cursor] = []
    ci.conf.lib.clang_visitChildren(cursor, ci.callbacks["cursor_visit"](visit), found)
    return found


@cache
def _get_argument() -> ctypes._CFuncPtr:
    """clang_Cursor_getArgument through a second handle on the function: without the result check
    cindex's handle runs (two more libclang calls and a search for the translation unit)."""
    function = ci.conf.lib["clang_Cursor_getArgument"]  # indexing makes a new handle each time
    function.argtypes = [ci.Cursor, ctypes.c_uint]
    function.restype = ci.Cursor
    return function


def arguments(cursor: ci.Cursor) -> list[ci.Cursor]:
    """list(cursor.get_arguments()), the parameters of a function declaration, made faster."""
    get = _get_argument()
    tu = cursor._tu
    found = []
    for i in range(ci.conf.lib.clang_Cursor_getNumArguments(cursor)):
        argument = get(cursor, i)
        argument._tu = tu
        found.append(argument)
    return found


@contextmanager
def token_array(tu: ci.TranslationUnit, extent: ci.SourceRange) -> Iterator[Sequence[ci.Token]]:
    """The tokens of `extent` in libclang's own array, valid inside the `with` only. cindex's
    get_tokens builds a Python Token per token (a few microseconds each, and a header has tens of
    thousands); ask about these through conf.lib with the translation unit:
    clang_getTokenKind(token), clang_getTokenSpelling(tu, token), clang_getTokenLocation(tu, token)."""
    lib = ci.conf.lib
    memory = ctypes.POINTER(ci.Token)()
    count = ctypes.c_uint()
    lib.clang_tokenize(tu, extent, ctypes.byref(memory), ctypes.byref(count))
    if count.value == 0:
        yield ()
        return
    try:
        yield ctypes.cast(memory, ctypes.POINTER(ci.Token * count.value)).contents
    finally:
        lib.clang_disposeTokens(tu, memory, count)


Spelled = tuple[ci.TokenKind, str]   # a token's kind and spelling


def spelled_tokens(tu: ci.TranslationUnit, extent: ci.SourceRange) -> list[Spelled]:
    """(kind, spelling) of each token of `extent`: cursor.get_tokens() without an object per token."""
    lib = ci.conf.lib
    kind_of = ci.TokenKind.from_value
    with token_array(tu, extent) as tokens:
        return [(kind_of(lib.clang_getTokenKind(t)), lib.clang_getTokenSpelling(tu, t)) for t in tokens]
