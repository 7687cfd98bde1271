"""The nvmath.bindings naming rule: cublasSgemm -> cubind_cublas_sgemm.

Strip the module prefix, drop the `_v2` ABI suffix (keep `_64`), then turn each
underscore-separated part from CamelCase into snake_case words:

1. a leading run of two or more precision letters before a lowercase operation
   is one word: ZZgesv -> zz_gesv, HSHgemvBatched -> hsh_gemv_batched;
2. an acronym ends before its last capital when a lowercase word follows:
   IRSXgesv -> irs_xgesv, SpGEMM_createDescr -> sp_gemm_create_descr;
3. a lowercase letter followed by a capital starts a word: SpMM -> sp_mm;
4. a digit followed by a capital starts a word (Nrm2Ex -> nrm2_ex), except
   inside type-conversion tokens such as C2C or Z2D (ExecC2C -> exec_c2c);
5. digits stay attached to what precedes them: MakePlanMany64 -> make_plan_many64.

nvmath-python departs from its own rule for a handful of functions; those are
listed per module in libraries.toml (`name_exceptions`) and win over the rule.
"""

from __future__ import annotations

import re

# cuBLAS / cuSOLVER precision letters: S D C Z (IEEE), H (fp16), B and T (bf16),
# X (tf32), K E Y (cuSOLVER IRS low precisions).
PRECISION_LETTERS = "SDCZHBTXKEY"

_LEADING_PRECISIONS = re.compile(rf"^([{PRECISION_LETTERS}]{{2,}})(?=[a-z])")
_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")
_LOWER_UPPER = re.compile(r"([a-z])([A-Z])")
_DIGIT_UPPER = re.compile(r"(?<![A-Z])([0-9])([A-Z])")

ABI_SUFFIX = "_v2"
ILP64_SUFFIX = "_64"


def strip_abi_suffix(name: str) -> str:
    """cublasSgemm_v2 -> cublasSgemm, cublasSgemm_v2_64 -> cublasSgemm_64."""
    if name.endswith(ABI_SUFFIX + ILP64_SUFFIX):
        return name[: -len(ABI_SUFFIX + ILP64_SUFFIX)] + ILP64_SUFFIX
    if name.endswith(ABI_SUFFIX):
        return name[: -len(ABI_SUFFIX)]
    return name


def camel_to_snake(part: str) -> str:
    """One underscore-free part of a C name, as snake_case words."""
    lead = ""
    match = _LEADING_PRECISIONS.match(part)
    if match:
        lead, part = match.group(1) + "_", part[match.end() :]
    part = _ACRONYM.sub(r"\1_\2", part)
    part = _LOWER_UPPER.sub(r"\1_\2", part)
    part = _DIGIT_UPPER.sub(r"\1_\2", part)
    return (lead + part).lower()


def snake_name(c_name: str, prefix: str, exceptions: dict[str, str] | None = None,
               others: frozenset[str] = frozenset()) -> str:
    """The nvmath.bindings function name of C function `c_name` in the module with `prefix`.
    `others` are the other public names of the library: where the name without `_v2` is one of
    them (the driver's cuCtxGetDevice and cuCtxGetDevice_v2), `_v2` names a second function,
    not an ABI version of the first, and stays."""
    if exceptions and c_name in exceptions:
        return exceptions[c_name]
    if not c_name.startswith(prefix) or len(c_name) == len(prefix):
        raise ValueError(f"{c_name} does not start with module prefix {prefix}")
    stripped = strip_abi_suffix(c_name)
    rest = (c_name if stripped in others else stripped)[len(prefix) :]
    words = [camel_to_snake(part) for part in rest.split("_") if part]
    return "_".join(words)


def cubind_name(module: str, c_name: str, prefix: str, exceptions: dict[str, str] | None = None,
                others: frozenset[str] = frozenset()) -> str:
    """cubind_<module>_<snake>, the wrapper's name."""
    return f"cubind_{module}_{snake_name(c_name, prefix, exceptions, others)}"


# C11/C23 and C++ keywords: the generated headers are read by both languages.
KEYWORDS = frozenset(
    """auto break case char const continue default do double else enum extern float for goto if inline int long
    register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
    _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local
    alignas alignof bool constexpr false nullptr static_assert thread_local true typeof typeof_unqual
    _BitInt _Decimal32 _Decimal64 _Decimal128 and and_eq asm bitand bitor catch char8_t char16_t char32_t class
    compl concept consteval constinit const_cast co_await co_return co_yield decltype delete dynamic_cast explicit
    export friend mutable namespace new noexcept not not_eq operator or or_eq private protected public
    reinterpret_cast requires static_cast template this throw try typeid typename using virtual wchar_t xor
    xor_eq""".split()
)


class NameError_(Exception):
    """Generated names collide with each other, with the hand-written API or with the language."""


def reserved_reason(name: str) -> str | None:
    """Why a C identifier may not be used by a library, or None."""
    if name in KEYWORDS:
        return "is a C or C++ keyword"
    if name.startswith("__") or (name.startswith("_") and name[1:2].isupper()):
        return "is reserved for the implementation (C11 7.1.3)"
    if "__" in name:
        return "contains a double underscore, reserved in C++"
    return None


def check_names(functions: list[dict], hand_written: set[str]) -> None:
    """Every wrapper name is unique over all units, unused by the hand-written API and not reserved."""
    seen: dict[str, str] = {}
    problems = []
    for function in functions:
        name = function["cubind_name"]
        other = seen.setdefault(name, function["name"])
        if other != function["name"]:
            problems.append(f"{other} and {function['name']} both map to {name}")
        if name in hand_written:
            problems.append(f"{function['name']} maps to {name}, a name of include/cubind/core.h")
        reason = reserved_reason(name)
        if reason:
            problems.append(f"{function['name']} maps to {name}, which {reason}")
    if problems:
        raise NameError_("; ".join(problems))
