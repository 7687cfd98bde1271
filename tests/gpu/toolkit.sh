#!/bin/sh
# tests/gpu/toolkit.sh BUILD_DIR - NVVM, nvFatbin and nvJPEG through cubind on a GPU machine
# (tests/gpu/toolkit.c, built by make gpu-build), and what cuFile says there.
#   1. NVVM as discovery finds it (the machine's CUDA 13.0), nvFatbin and nvJPEG of CUDA 12.4 (the
#      release whose headers cubind read; carried in BUILD_DIR/test/gpu/toolkit-12.4): must pass.
#   2. A measurement, reported and not failed: the machine's own nvFatbin and nvJPEG (13.x, newer
#      majors than the headers), first as cubind calls them by default (refused: the record says
#      why), then with CUBIND_ALLOW_NEWER_MAJOR=1 (called with 12.4's ABI).
#   3. cuFile (located, not bound: its status is a record): its copies and versions (cubind-probe
#      --all, cuFile's block), and cuFileGetVersion / cuFileDriverOpen asked of CUDA 12.4's copy (carried in
#      toolkit-12.4) and of the machine's by tests/gpu/cufile.c, written for NVIDIA's cufile.h (it may
#      answer that GPUDirect Storage is unavailable: printed with the status's name and code, and
#      whether the nvidia-fs module and /etc/cufile.json are there). Reported, not failed.
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

echo "--- 3. cuFile (measurement): the copies, and cuFileGetVersion / cuFileDriverOpen of CUDA 12.4's (carried)"
echo "    and of the machine's own (libcufile.so.0 as the dynamic loader finds it), as cufile.h declares them"
"$build/bin/cubind-probe" --all | sed -n '/^cufile /,/^[^ ]/p'
"$gpu/cufile" "$gpu/toolkit-12.4/libcufile.so.0"
echo "cuFile 12.4 (carried): exit status $?"
"$gpu/cufile" libcufile.so.0
echo "cuFile (the machine's): exit status $?"
echo "    the same through cubind's wrappers (tests/gpu/cufile_cubind.c): the status records, cubind's error record"
CUBIND_CUFILE_PATH="$gpu/toolkit-12.4/libcufile.so.0" "$gpu/cufile-cubind"
echo "cuFile 12.4 (carried) through cubind: exit status $?"
"$build/bin/cubind-probe" cufile
"$gpu/cufile-cubind"
echo "cuFile (the machine's) through cubind: exit status $?"
ls /dev/nvidia-fs* 2>/dev/null || echo "no /dev/nvidia-fs*: the nvidia-fs kernel module (GPUDirect Storage) is not loaded"
ls /etc/cufile.json 2>/dev/null || echo "no /etc/cufile.json: cuFile's defaults"
exit $status
