"""C declarators built from libclang types.

A C declaration puts the declared name inside the type ("const float *const
A[]", "void (*cb)(int)"), so it cannot be a type spelling plus a name; this
module rebuilds it from the type's structure, inside out.
"""

from __future__ import annotations

import clang.cindex as ci

TK = ci.TypeKind

_WRAPPERS = (TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO)

INTEGER_KINDS = frozenset(
    {
        TK.BOOL, TK.CHAR_U, TK.UCHAR, TK.CHAR16, TK.CHAR32, TK.USHORT, TK.UINT, TK.ULONG, TK.ULONGLONG,
        TK.CHAR_S, TK.SCHAR, TK.WCHAR, TK.SHORT, TK.INT, TK.LONG, TK.LONGLONG,
    }
)
FLOATING_KINDS = frozenset({TK.FLOAT, TK.DOUBLE, TK.LONGDOUBLE, TK.HALF, TK.FLOAT128})

# The C library's typedefs that NVIDIA's headers spell and strict C11 (-std=c11) does not declare even
# after the headers those include: glibc's loff_t (<sys/types.h> declares it only under _DEFAULT_SOURCE
# or _GNU_SOURCE, which cufile.h needs of its users without saying so: it fails under -std=c11).
# cubind's declarations spell it under a private name of the same type (typesel declares the typedef):
# a program that has loff_t can pass its own functions (CUfileFSOps_t's), and one that has not is not
# given the name. glibc's loff_t is __off64_t, the same type as int64_t on every ABI it has.
PRIVATE_TYPEDEFS = {"loff_t": ("cubind_loff_t", "int64_t")}


def declare(t: ci.Type, name: str = "", base: str | None = None) -> str:
    """The C declaration of `name` with type `t`; with no name, the abstract declarator (a type name).
    `base` replaces the spelling of the innermost type (a record declared in place)."""
    return _declare(t, name, base).strip()


def _qualifiers(t: ci.Type) -> str:
    words = []
    if t.is_const_qualified():
        words.append("const")
    if t.is_volatile_qualified():
        words.append("volatile")
    if t.is_restrict_qualified():
        words.append("restrict")
    return " ".join(words)


def _declare(t: ci.Type, inner: str, base: str | None = None) -> str:
    kind = t.kind
    if kind == TK.POINTER:
        quals = _qualifiers(t)
        return _pointer_to(t.get_pointee(), (quals + (" " if inner else "") if quals else "") + inner)
    if kind == TK.CONSTANTARRAY:
        return _declare(t.element_type, f"{inner}[{t.element_count}]", base)
    if kind == TK.INCOMPLETEARRAY:
        return _declare(t.element_type, f"{inner}[]", base)
    if kind == TK.FUNCTIONPROTO:
        args = [declare(a) for a in t.argument_types()]
        if t.is_function_variadic():
            args.append("...")
        return _declare(t.get_result(), f"{inner}({', '.join(args) or 'void'})")
    if kind == TK.FUNCTIONNOPROTO:
        return _declare(t.get_result(), f"{inner}()")
    spelling = t.spelling if base is None else base
    if kind == TK.BOOL:  # as NVIDIA's headers spell it (<stdbool.h>'s macro in C, the type in C++): not _Bool
        spelling = spelling.replace("_Bool", "bool")
    if base is None and kind == TK.TYPEDEF and (name := t.get_declaration().spelling) in PRIVATE_TYPEDEFS:
        spelling = spelling.replace(name, PRIVATE_TYPEDEFS[name][0])
    if not inner:
        return spelling
    return f"{spelling} {inner}"


def _pointer_to(pointee: ci.Type, inner: str) -> str:
    """The declarator of a pointer to `pointee` ("*" already followed by its qualifiers in `inner`)."""
    text = "*" + inner
    if pointee.kind in (TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
        text = f"({text})"
    return _declare(pointee, text)


def decay(t: ci.Type, name: str = "") -> str:
    """The type a parameter declared with type `t` really has (arrays and functions become pointers:
    `int m[2][3]` is `int (*)[3]`); with a name, the declaration of a variable of that type."""
    if t.kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
        return _pointer_to(t.element_type, name).strip()
    if t.kind in (TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO):
        return _pointer_to(t, name).strip()
    return declare(t, name)


def output(t: ci.Type) -> str | None:
    """Whether a parameter of type `t` is one the function may write a result through (docs/mocks.md,
    "Outputs"): a pointer (or array) whose pointee is an object of a known size the pointer does not
    make const -- `int *`, `size_t *`, `cudaStream_t *` (a pointer to a handle), `void **`,
    `struct cudaDeviceProp *`, `float *` (an array's first element) -- and not `const T *`, `void *`
    (no size), a function, or a handle (`cublasHandle_t`: a pointer to an incomplete record, whose
    pointee is the library's own). None when it is not; else the name of the pointee's record ("" for
    another type), which the caller drops when cubind's C headers declare that record opaque (a C++
    class such as `__half`, complete to the C++ parse only)."""
    if t.kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
        pointee = t.element_type
    else:
        canonical = t.get_canonical()
        if canonical.kind != TK.POINTER:
            return None
        pointee = canonical.get_pointee()
    pointee = pointee.get_canonical()
    if pointee.is_const_qualified() or pointee.kind in (TK.VOID, TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO):
        return None
    if pointee.get_size() <= 0:  # negative for an incomplete type
        return None
    return pointee.get_declaration().spelling if pointee.kind == TK.RECORD else ""


def category(t: ci.Type) -> str:
    """What kind of value a parameter of type `t` carries: pointer, function_pointer, integer, enum,
    floating, record or void."""
    if t.kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
        return "pointer"
    canonical = t.get_canonical()
    kind = canonical.kind
    if kind == TK.POINTER:
        pointee = canonical.get_pointee().kind
        return "function_pointer" if pointee in (TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO) else "pointer"
    if kind in (TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO):
        return "function_pointer"
    if kind == TK.ENUM:
        return "enum"
    if kind in INTEGER_KINDS:
        return "integer"
    if kind in FLOATING_KINDS:
        return "floating"
    if kind == TK.RECORD:
        return "record"
    if kind == TK.VOID:
        return "void"
    raise ValueError(f"unsupported type {t.spelling!r} (canonical kind {kind})")
