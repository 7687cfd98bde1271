"""libclang entry points that Debian's python3-clang-14 bindings do not wrap.

They are plain libclang C functions (clang-c/Index.h), bound here with ctypes
against the library the bindings already loaded.
"""

from __future__ import annotations

import ctypes
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
