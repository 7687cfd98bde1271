"""tests/consumers/consumer_ctypes.py PREFIX - Python ctypes, declarations written by hand as a
ctypes user writes them from cubind/cubind.h (see consumer.c)."""
import ctypes as C
import sys

prefix = sys.argv[1]
cubind = C.CDLL(f"{prefix}/lib/libcubind.so")


class Error(C.Structure):  # struct cubind_error
    _fields_ = [("kind", C.c_int), ("library", C.c_int), ("status", C.c_int), ("library_name", C.c_char_p),
                ("function", C.c_char_p), ("status_name", C.c_char_p), ("message", C.c_char * 4096)]


class LibraryInfo(C.Structure):  # struct cubind_library_info
    _fields_ = [("size", C.c_size_t), ("library", C.c_int), ("name", C.c_char_p), ("found", C.c_int),
                ("found_by", C.c_char_p),
                ("path", C.c_char_p), ("real_path", C.c_char_p), ("soname", C.c_char_p),
                ("version_major", C.c_int), ("version_minor", C.c_int), ("version_patch", C.c_int),
                ("version_source", C.c_char_p), ("functions", C.c_size_t), ("functions_found", C.c_size_t),
                ("functions_missing", C.c_size_t), ("missing", C.POINTER(C.c_char_p)), ("error", C.c_char_p)]


cubind.cubind_version.restype = C.c_char_p
cubind.cubind_library_name.restype = C.c_char_p
cubind.cubind_library_name.argtypes = [C.c_int]
cubind.cubind_library_info.argtypes = [C.c_int, C.POINTER(LibraryInfo)]
cubind.cubind_last_error.restype = C.POINTER(Error)
cubind.cubind_curand_get_version.argtypes = [C.POINTER(C.c_int)]


def text(b):
    return b.decode() if b is not None else "-"


# CUBIND_LIBRARY_COUNT is an enum constant, not a symbol: count the names cubind_library_name gives.
count = 0
while cubind.cubind_library_name(count) is not None:
    count += 1
print(f"cubind {text(cubind.cubind_version())}, {count} libraries")
for lib in range(count):
    info = LibraryInfo()
    info.size = C.sizeof(info)  # the caller says how much it has
    kind = cubind.cubind_library_info(lib, C.byref(info))
    print(f"{text(cubind.cubind_library_name(lib))}: kind {kind} found {info.found} soname {text(info.soname)} "
          f"version {info.version_major}.{info.version_minor}.{info.version_patch} "
          f"functions {info.functions} missing {info.functions_missing}")
cubind.cubind_clear_error()
version = C.c_int()
status = cubind.cubind_curand_get_version(C.byref(version))
e = cubind.cubind_last_error().contents
print(f"curandGetVersion: status {status} kind {e.kind} library {text(e.library_name)} function {text(e.function)} "
      f"status_name {text(e.status_name)} path in message {int(b'/nonexistent/libcurand.so.10' in e.message)}")
