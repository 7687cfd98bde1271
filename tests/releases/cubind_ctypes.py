"""The part of libcubind's C API the release tests call through ctypes, and the generated data they
iterate over (the IR's functions and constants, the configuration's libraries): nothing restated."""

from __future__ import annotations

import ctypes as C
import json
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IR_DIR = ROOT / "generated" / "ir"

STATES = {0: "unknown", 1: "callable", 2: "adapted", 3: "missing", 4: "refused", 5: "not loaded"}


class LibraryInfo(C.Structure):  # struct cubind_library_info (cubind/cubind.h)
    _fields_ = [("size", C.c_size_t), ("library", C.c_int), ("name", C.c_char_p), ("found", C.c_int),
                ("found_by", C.c_char_p), ("path", C.c_char_p), ("real_path", C.c_char_p),
                ("soname", C.c_char_p), ("version_major", C.c_int), ("version_minor", C.c_int),
                ("version_patch", C.c_int), ("version_source", C.c_char_p), ("functions", C.c_size_t),
                ("functions_found", C.c_size_t), ("functions_missing", C.c_size_t),
                ("missing", C.POINTER(C.c_char_p)), ("error", C.c_char_p), ("release", C.c_char_p),
                ("releases", C.c_char_p), ("release_note", C.c_char_p)]


class FunctionInfo(C.Structure):  # struct cubind_function_info
    _fields_ = [("size", C.c_size_t), ("library", C.c_int), ("name", C.c_char_p), ("cubind_name", C.c_char_p),
                ("added_in", C.c_char_p), ("changed_in", C.c_char_p), ("state", C.c_int),
                ("release", C.c_char_p), ("symbol", C.c_char_p), ("reason", C.c_char_p)]


class Error(C.Structure):  # struct cubind_error
    _fields_ = [("kind", C.c_int), ("library", C.c_int), ("status", C.c_int), ("library_name", C.c_char_p),
                ("function", C.c_char_p), ("status_name", C.c_char_p), ("message", C.c_char * 4096)]


def _text(value: bytes | None) -> str | None:
    return value.decode() if value is not None else None


@cache
def irs() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(IR_DIR.glob("*.json"))]


def functions_of(library: str) -> list[dict]:
    return [f for ir in irs() for f in ir["functions"] if f["library"] == library]


def ir_of(library: str) -> dict | None:
    return next((ir for ir in irs() if any(f["library"] == library for f in ir["functions"])), None)


class Cubind:
    def __init__(self, path: str) -> None:
        self.lib = C.CDLL(path)
        self.lib.cubind_library_name.restype = C.c_char_p
        self.lib.cubind_library_from_name.argtypes = [C.c_char_p]
        self.lib.cubind_library_info.argtypes = [C.c_int, C.POINTER(LibraryInfo)]
        self.lib.cubind_function_info.argtypes = [C.c_char_p, C.POINTER(FunctionInfo)]
        self.lib.cubind_last_error.restype = C.POINTER(Error)
        self.lib.cubind_nvrtc_get_ptx.argtypes = [C.c_void_p, C.c_char_p]
        self.lib.cubind_nvrtc_create_program.argtypes = [C.POINTER(C.c_void_p), C.c_char_p, C.c_char_p, C.c_int,
                                                         C.c_void_p, C.c_void_p]
        self.lib.cubind_nvrtc_compile_program.argtypes = [C.c_void_p, C.c_int, C.c_void_p]
        self.lib.cubind_nvrtc_get_ptx_size.argtypes = [C.c_void_p, C.POINTER(C.c_size_t)]
        self.lib.cubind_curand_set_pseudo_random_generator_seed.argtypes = [C.c_void_p, C.c_ulonglong]
        self.lib.cubind_curand_generate_uniform.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t]
        self.lib.cubind_curand_destroy_generator.argtypes = [C.c_void_p]
        self.lib.cubind_curand_create_generator_host.argtypes = [C.POINTER(C.c_void_p), C.c_int]
        self.lib.cubind_cublasLt_matmul_preference_init_internal.argtypes = [C.c_void_p, C.c_size_t]

    def library_names(self) -> list[str]:
        names, i = [], 0
        while (name := self.lib.cubind_library_name(i)) is not None:
            names.append(name.decode())
            i += 1
        return names

    @staticmethod
    def env_var(name: str) -> str:
        return f"CUBIND_{name.upper()}_PATH"

    @staticmethod
    def function_names(library: str) -> list[str]:
        return [f["name"] for f in functions_of(library)]

    @staticmethod
    def constant(name: str) -> int:
        for ir in irs():
            for entry in ir["types"]:
                for c in entry.get("constants") or []:
                    if c["name"] == name:
                        return c["value"]
        raise KeyError(name)

    def library_info(self, name: str) -> dict:
        info = LibraryInfo()
        info.size = C.sizeof(info)
        kind = self.lib.cubind_library_info(self.lib.cubind_library_from_name(name.encode()), C.byref(info))
        return {"kind": kind, "found": info.found, "found_by": _text(info.found_by), "path": _text(info.path),
                "version": [info.version_major, info.version_minor, info.version_patch],
                "functions": info.functions, "functions_found": info.functions_found,
                "functions_missing": info.functions_missing, "release": _text(info.release),
                "releases": _text(info.releases), "release_note": _text(info.release_note),
                "error": _text(info.error)}

    def function_info(self, name: str) -> dict:
        info = FunctionInfo()
        info.size = C.sizeof(info)
        kind = self.lib.cubind_function_info(name.encode(), C.byref(info))
        return {"kind": kind, "state": STATES[info.state], "release": _text(info.release),
                "symbol": _text(info.symbol), "reason": _text(info.reason), "added_in": _text(info.added_in),
                "changed_in": _text(info.changed_in)}

    def last_error(self) -> str:
        return self.lib.cubind_last_error().contents.message.decode()
