#!/bin/sh
# tests/gpu/toolkit.sh BUILD_DIR - NVVM, nvFatbin and nvJPEG through cubind on a GPU machine
# (tests/gpu/toolkit.c, built by make gpu-build), and what cuFile says there.
#   1. NVVM as discovery finds it (the machine's CUDA 13.0), nvFatbin and nvJPEG of CUDA 12.4 (the
#      release whose headers cubind read; carried in BUILD_DIR/test/gpu/toolkit-12.4): must pass.
#   2. A measurement, reported and not failed: the machine's own nvFatbin and nvJPEG (13.x, newer
#      majors than the headers), first as cubind calls them by default (refused: the record says
#      why), then with CUBIND_ALLOW_NEWER_MAJOR=1 (called with 12.4's ABI).
#   3. cuFile (located, not bound): its copies and versions (cubind-probe --all cufile), and
#      cuFileGetVersion / cuFileDriverOpen asked of the file directly (it may answer that GPUDirect
#      Storage is unavailable: printed with its code).
# Exit status: 1 when step 1 fails.
set -u
build=$(cd "${1:-build}" && pwd)
gpu="$build/test/gpu"
status=0

echo "--- 1. NVVM (discovered), nvFatbin and nvJPEG 12.4 (carried)"
CUBIND_NVFATBIN_PATH="$gpu/toolkit-12.4/libnvfatbin.so.12" CUBIND_NVJPEG_PATH="$gpu/toolkit-12.4/libnvjpeg.so.12" \
    "$gpu/toolkit" "$gpu/toolkit.jpg" "$gpu/toolkit.rgb" || status=1
"$build/bin/cubind-probe" nvvm nvfatbin nvjpeg

echo "--- 2. the machine's own nvFatbin and nvJPEG (measurement)"
"$gpu/toolkit" "$gpu/toolkit.jpg" "$gpu/toolkit.rgb"
echo "default: exit status $?"
CUBIND_ALLOW_NEWER_MAJOR=1 "$gpu/toolkit" "$gpu/toolkit.jpg" "$gpu/toolkit.rgb"
echo "CUBIND_ALLOW_NEWER_MAJOR=1: exit status $?"
CUBIND_ALLOW_NEWER_MAJOR=1 "$build/bin/cubind-probe" nvfatbin nvjpeg

echo "--- 3. cuFile"
"$build/bin/cubind-probe" --all cufile
python3 - <<'PY' || true
import ctypes, ctypes.util
for name in ("libcufile.so.0",):
    try:
        lib = ctypes.CDLL(name)
    except OSError as error:
        print(f"cuFile: {name} not loaded: {error}")
        continue
    class Error(ctypes.Structure):
        _fields_ = [("err", ctypes.c_int), ("cu_err", ctypes.c_int)]
    lib.cuFileGetVersion.restype = Error
    lib.cuFileDriverOpen.restype = Error
    version = ctypes.c_int()
    e = lib.cuFileGetVersion(ctypes.byref(version))
    print(f"cuFileGetVersion: err {e.err} cu_err {e.cu_err} version {version.value}")
    e = lib.cuFileDriverOpen()
    print(f"cuFileDriverOpen: err {e.err} cu_err {e.cu_err} (0: success; 5000+: CU_FILE_* errors, e.g. "
          "5001 driver not initialized, 5007 the nvidia-fs driver is not loaded)")
PY
exit $status
