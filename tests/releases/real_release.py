"""tests/releases/real_release.py LIBCUBIND SCENARIO - run in a fresh process by test_real_releases.py:
load real CUDA libraries of an older release through libcubind (the caller sets CUBIND_<LIB>_PATH, or
preloads a library) and print, as one JSON object, what cubind says of them and what real calls gave.

Scenarios: "census" (every library named by a CUBIND_<LIB>_PATH: its info and every function's state),
"checks" (the census and cubind_check_count's results),
"nvrtc" (compile a kernel to PTX), "curand" (a host generator's numbers), "preference" (cuBLASLt's
matmul preference initialised in a buffer of the bindings' size), "preloaded" (the runtime the process
loaded before cubind: what cubind takes)."""

from __future__ import annotations

import ctypes as C
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cubind_ctypes import Cubind  # noqa: E402


def census(cubind: Cubind) -> dict:
    out = {}
    for name in cubind.library_names():  # all loaded first: a library's info names the others it mixes with
        if os.environ.get(cubind.env_var(name)) is not None:
            cubind.lib.cubind_load(cubind.lib.cubind_library_from_name(name.encode()))
    for name in cubind.library_names():
        if os.environ.get(cubind.env_var(name)) is None:
            continue
        info = cubind.library_info(name)
        states: dict[str, dict] = {}
        for function in cubind.function_names(name):
            f = cubind.function_info(function)
            states[function] = {"state": f["state"], "symbol": f["symbol"], "reason": f["reason"]}
        out[name] = {"info": info, "functions": states}
    return out


class Check(C.Structure):
    """struct cubind_check (cubind/machine.h)."""
    _fields_ = [("size", C.c_size_t), ("name", C.c_char_p), ("library", C.c_int), ("verdict", C.c_int),
                ("reason", C.c_char_p)]


def checks(cubind: Cubind) -> list[dict]:
    """cubind_check_count / cubind_check_get of what the scenario loaded: name, library, verdict, reason."""
    lib = cubind.lib
    lib.cubind_check_count.restype = C.c_size_t
    lib.cubind_verdict_name.restype = C.c_char_p
    lib.cubind_library_name.restype = C.c_char_p
    out = []
    for i in range(lib.cubind_check_count()):
        check = Check(size=C.sizeof(Check))
        if lib.cubind_check_get(C.c_size_t(i), C.byref(check)) == 0:
            out.append({"name": check.name.decode(), "library": lib.cubind_library_name(check.library).decode(),
                        "verdict": lib.cubind_verdict_name(check.verdict).decode(), "reason": check.reason.decode()})
    return out


def nvrtc(cubind: Cubind) -> dict:
    source = b'extern "C" __global__ void axpy(float a, float *x, float *y) { y[threadIdx.x] += a * x[threadIdx.x]; }'
    lib = cubind.lib
    program = C.c_void_p()
    status = lib.cubind_nvrtc_create_program(C.byref(program), source, b"axpy.cu", 0, None, None)
    out = {"create": status}
    if status != 0:
        out["error"] = cubind.last_error()
        return out
    out["compile"] = lib.cubind_nvrtc_compile_program(program, 0, None)
    size = C.c_size_t()
    out["size_status"] = lib.cubind_nvrtc_get_ptx_size(program, C.byref(size))
    ptx = C.create_string_buffer(size.value)
    out["ptx_status"] = lib.cubind_nvrtc_get_ptx(program, ptx)
    out["ptx_has_entry"] = b".entry axpy" in ptx.value
    out["destroy"] = lib.cubind_nvrtc_destroy_program(C.byref(program))
    out["error"] = cubind.last_error()
    return out


def curand(cubind: Cubind) -> dict:
    lib = cubind.lib
    generator = C.c_void_p()
    status = lib.cubind_curand_create_generator_host(C.byref(generator), cubind.constant("CURAND_RNG_PSEUDO_DEFAULT"))
    out = {"create": status}
    if status != 0:
        out["error"] = cubind.last_error()
        return out
    values = (C.c_float * 1000)()
    out["seed"] = lib.cubind_curand_set_pseudo_random_generator_seed(generator, C.c_ulonglong(1234))
    out["generate"] = lib.cubind_curand_generate_uniform(generator, values, C.c_size_t(1000))
    out["in_range"] = all(0.0 < v <= 1.0 for v in values)
    out["distinct"] = len(set(values))
    out["destroy"] = lib.cubind_curand_destroy_generator(generator)
    return out


def preference(cubind: Cubind) -> dict:
    size = int(os.environ["CUBIND_TEST_PREFERENCE_SIZE"])
    buffer = (C.c_ubyte * size)(*([0xAA] * size))
    status = cubind.lib.cubind_cublasLt_matmul_preference_init_internal(buffer, C.c_size_t(size))
    info = cubind.function_info("cublasLtMatmulPreferenceInit_internal")
    return {"status": status, "bytes": list(buffer), "state": info["state"], "release": info["release"],
            "error": cubind.last_error()}


def preloaded(cubind: Cubind) -> dict:
    info = cubind.library_info("runtime")
    version = C.c_int()
    status = cubind.lib.cubind_runtime_runtime_get_version(C.byref(version))
    return {"info": info, "status": status, "version": version.value,
            "get_device_properties": cubind.function_info("cudaGetDeviceProperties")}


def require(cubind: Cubind) -> dict:
    """The program requires CUDA 12.4 of the runtime, then asks for it; a release the bindings do not
    know (12.6) cannot be required."""
    runtime = cubind.lib.cubind_library_from_name(b"runtime")
    unknown = cubind.lib.cubind_require_release(runtime, 12, 6)
    unknown_error = cubind.last_error()
    known = cubind.lib.cubind_require_release(runtime, 12, 4)
    return {"unknown": unknown, "unknown_error": unknown_error, "known": known,
            "info": cubind.library_info("runtime")}


def main() -> None:
    libcubind, scenario = sys.argv[1], sys.argv[2]
    preload = os.environ.get("CUBIND_TEST_PRELOAD")
    if preload:
        C.CDLL(preload, mode=C.RTLD_GLOBAL)  # a component of the process built for that release
    cubind = Cubind(libcubind)
    result = {"census": census, "checks": lambda cubind: {**census(cubind), "checks": checks(cubind)}, "nvrtc": nvrtc, "curand": curand, "preference": preference,
              "preloaded": preloaded, "require": require}[scenario](cubind)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
