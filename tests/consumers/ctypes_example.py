"""cubind from Python's ctypes, installed as share/doc/cubind/examples/ctypes_example.py.

    python3 ctypes_example.py [PREFIX]

PREFIX is where cubind is installed (`make install PREFIX=...`); without it, the one this file
is installed in. It prints every library cubind knows with what cubind_library_info says of it,
then calls cuRAND's version query and prints the thread's error record (empty when it succeeded).

ctypes has no C declaration parser, so nothing is copied from the C headers by hand:
- every enum constant and integer #define (CUBIND_LIBRARY_COUNT, CUFFT_C2C, CUBLAS_OP_N, ...)
  is read from share/cubind/constants.json, which cubind's generator writes;
- the two structures of cubind's own API are declared below, field by field as in
  cubind/cubind.h, and checked against the layout constants.json gives (check_layout):
  a cubind whose structures differ stops this program instead of corrupting memory;
- each function called gets its restype and argtypes (ctypes assumes int otherwise); the
  wrappers' prototypes are in share/cubind/cdef/<module>.h.
"""
import ctypes as C
import json
import sys
from pathlib import Path

# share/doc/cubind/examples/ctypes_example.py -> PREFIX
prefix = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[4]
with open(prefix / "share" / "cubind" / "constants.json") as f:
    constants = json.load(f)
K = constants["values"]  # every constant by name: K["CUBIND_LIBRARY_COUNT"]
cubind = C.CDLL(str(prefix / "lib" / "libcubind.so"))


class Error(C.Structure):  # struct cubind_error
    _fields_ = [("kind", C.c_int), ("library", C.c_int), ("status", C.c_int), ("library_name", C.c_char_p),
                ("function", C.c_char_p), ("status_name", C.c_char_p),
                ("message", C.c_char * K["CUBIND_ERROR_MESSAGE_MAX"])]


class LibraryInfo(C.Structure):  # struct cubind_library_info
    _fields_ = [("size", C.c_size_t), ("library", C.c_int), ("name", C.c_char_p), ("found", C.c_int),
                ("found_by", C.c_char_p), ("path", C.c_char_p), ("real_path", C.c_char_p),
                ("soname", C.c_char_p), ("version_major", C.c_int), ("version_minor", C.c_int),
                ("version_patch", C.c_int), ("version_source", C.c_char_p), ("functions", C.c_size_t),
                ("functions_found", C.c_size_t), ("functions_missing", C.c_size_t),
                ("missing", C.POINTER(C.c_char_p)), ("error", C.c_char_p)]


def check_layout(structure: type, tag: str) -> None:
    """Stop unless `structure` has the size and field offsets of the C struct `tag`. A structure
    that cubind has grown may be declared up to any earlier size (cubind_library_info's `size`)."""
    layout = constants["layouts"][tag]
    ours = {name: getattr(structure, name).offset for name, _ in structure._fields_}
    theirs = {name: offset for name, offset in layout["offsets"].items() if name in ours}
    if ours != theirs or (len(ours) == len(layout["offsets"]) and C.sizeof(structure) != layout["size"]):
        sys.exit(f"struct {tag}: this program's declaration ({ours}, {C.sizeof(structure)} bytes) is not cubind's "
                 f"({layout['offsets']}, {layout['size']} bytes)")


check_layout(Error, "cubind_error")
check_layout(LibraryInfo, "cubind_library_info")

cubind.cubind_version.restype = C.c_char_p
cubind.cubind_version.argtypes = []
cubind.cubind_library_name.restype = C.c_char_p
cubind.cubind_library_name.argtypes = [C.c_int]
cubind.cubind_library_info.restype = C.c_int
cubind.cubind_library_info.argtypes = [C.c_int, C.POINTER(LibraryInfo)]
cubind.cubind_last_error.restype = C.POINTER(Error)
cubind.cubind_last_error.argtypes = []
cubind.cubind_clear_error.restype = None
cubind.cubind_clear_error.argtypes = []
cubind.cubind_curand_get_version.restype = C.c_int  # curandStatus_t, an enum
cubind.cubind_curand_get_version.argtypes = [C.POINTER(C.c_int)]


def text(b: bytes | None) -> str:
    return b.decode() if b is not None else "-"


def version_text(info: LibraryInfo) -> str:
    """The known parts ("13.0", "12"), as cubind's version_text (a later field than this structure
    declares): -1 is a part that is not known."""
    parts = []
    for part in (info.version_major, info.version_minor, info.version_patch):
        if part < 0:
            break
        parts.append(str(part))
    return ".".join(parts) or "-"


count = K["CUBIND_LIBRARY_COUNT"]
print(f"cubind {text(cubind.cubind_version())}, {count} libraries")
for lib in range(count):
    info = LibraryInfo()
    info.size = C.sizeof(info)  # the caller says how much it has
    kind = cubind.cubind_library_info(lib, C.byref(info))
    print(f"{text(cubind.cubind_library_name(lib))}: kind {kind} found {info.found} soname {text(info.soname)} "
          f"version {version_text(info)} "
          f"functions {info.functions} missing {info.functions_missing}")

cubind.cubind_clear_error()
version = C.c_int()
status = cubind.cubind_curand_get_version(C.byref(version))  # K["CURAND_STATUS_SUCCESS"] when it worked
e = cubind.cubind_last_error().contents
print(f"curandGetVersion: status {status} kind {e.kind} library {text(e.library_name)} function {text(e.function)} "
      f"status_name {text(e.status_name)} message {text(e.message)}")
