"""tests/consumers/consumer_cffi.py PREFIX [NAME...] - cffi in ABI mode through
share/cubind/cdef/NAME.h, each file in order into one FFI (default: cubind, the whole; or common
and module files); see consumer.c."""
import sys

import cffi

prefix = sys.argv[1]
ffi = cffi.FFI()
for name in sys.argv[2:] or ["cubind"]:
    with open(f"{prefix}/share/cubind/cdef/{name}.h") as f:
        ffi.cdef(f.read())
cubind = ffi.dlopen(f"{prefix}/lib/libcubind.so")


def text(p):
    return ffi.string(p).decode() if p != ffi.NULL else "-"


print(f"cubind {text(cubind.cubind_version())}, {cubind.CUBIND_LIBRARY_COUNT} libraries")
for lib in range(cubind.CUBIND_LIBRARY_COUNT):
    info = ffi.new("struct cubind_library_info *")
    info.size = ffi.sizeof("struct cubind_library_info")  # the caller says how much it has
    kind = cubind.cubind_library_info(lib, info)
    print(f"{text(cubind.cubind_library_name(lib))}: kind {kind} found {info.found} soname {text(info.soname)} "
          f"version {text(info.version_text)} "
          f"functions {info.functions} missing {info.functions_missing}")
cubind.cubind_clear_error()
version = ffi.new("int *")
status = cubind.cubind_curand_get_version(version)
e = cubind.cubind_last_error()
print(f"curandGetVersion: status {status} kind {e.kind} library {text(e.library_name)} function {text(e.function)} "
      f"status_name {text(e.status_name)} message {ffi.string(e.message).decode()}")
