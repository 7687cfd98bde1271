#!/bin/sh
# tests/gpu/toolkit.sh BUILD_DIR - NVVM, nvFatbin, nvJPEG and NVML through cubind on a GPU machine
# (tests/gpu/toolkit.c and tests/gpu/nvml_getters.c, built by make gpu-build), and what cuFile says there.
#   1. NVVM as discovery finds it (the machine's CUDA 13.0), nvFatbin and nvJPEG of CUDA 12.4 (carried
#      in BUILD_DIR/test/gpu/toolkit-12.4): PTX and cubins packed and launched, a JPEG decoded, encoded
#      and decoded again; each must be called as CUDA 12.4, with 12.4's ABI. Must pass.
#   2. The same with the machine's own nvFatbin and nvJPEG (13.x, libnvfatbin.so.13 and
#      libnvjpeg.so.13 as discovery finds them): each must be called as CUDA 13.0, nvJPEG's restart
#      interval (13.0's) set. Must pass.
#   3. NVML's getters that NVML API 13 added, against nvidia-smi's fields (tests/gpu/compare_nvml.py).
#      Must pass.
#   4. cuFile (its status is a record): its copies and versions (cubind-probe --all, cuFile's block),
#      and cuFileGetVersion / cuFileDriverOpen asked of CUDA 12.4's copy (carried in toolkit-12.4) and
#      of the machine's by tests/gpu/cufile.c, written for NVIDIA's cufile.h, and through cubind (it may
#      answer that GPUDirect Storage is unavailable: printed with the status's name and code, and
#      whether the nvidia-fs module and /etc/cufile.json are there). Reported, not failed.
# Exit status: the number of steps 1 to 3 that failed.
set -u
build=$(cd "${1:-build}" && pwd)
gpu="$build/test/gpu"
failed=0
# ARCH=PATH of each cubin make gpu-build compiled (cubins.txt: ARCH=FILE, beside it)
cubins=$(sed "s|=|=$gpu/|" "$gpu/cubins.txt")

# toolkit RELEASE [VAR=VALUE...]: tests/gpu/toolkit.c, whose nvFatbin and nvJPEG must be called as RELEASE
toolkit() {
    release=$1
    shift
    # shellcheck disable=SC2086 # one ARCH=PATH word per cubin
    output=$(env "$@" "$gpu/toolkit" "$gpu/toolkit.jpg" "$gpu/toolkit.rgb" $cubins)
    status=$?
    echo "$output"
    for library in nvfatbin nvjpeg; do
        if ! echo "$output" | grep -q "^$library .* is called as CUDA $release\$"; then
            echo "FAILED: $library is not called as CUDA $release"
            status=1
        fi
    done
    [ "$status" -eq 0 ] || failed=$((failed + 1))
}

echo "--- 1. NVVM (discovered), nvFatbin and nvJPEG 12.4 (carried)"
toolkit 12.4 CUBIND_NVFATBIN_PATH="$gpu/toolkit-12.4/libnvfatbin.so.12" CUBIND_NVJPEG_PATH="$gpu/toolkit-12.4/libnvjpeg.so.12"
CUBIND_NVFATBIN_PATH="$gpu/toolkit-12.4/libnvfatbin.so.12" CUBIND_NVJPEG_PATH="$gpu/toolkit-12.4/libnvjpeg.so.12" \
    "$build/bin/cubind-probe" nvvm nvfatbin nvjpeg

echo "--- 2. the machine's own nvFatbin and nvJPEG (13.x)"
toolkit 13.0
"$build/bin/cubind-probe" nvfatbin nvjpeg

echo "--- 3. NVML's getters of NVML API 13 against nvidia-smi"
"$build/bin/cubind-probe" nvml
python3 "$(dirname "$0")/compare_nvml.py" "$gpu/nvml-getters" || failed=$((failed + 1))

echo "--- 4. cuFile (measurement): the copies, and cuFileGetVersion / cuFileDriverOpen of CUDA 12.4's (carried)"
echo "    and of the machine's own (libcufile.so.0 as the dynamic loader finds it), as cufile.h declares them"
"$build/bin/cubind-probe" --all | sed -n '/^cufile /,/^[^ ]/p'
"$gpu/cufile" "$gpu/toolkit-12.4/libcufile.so.0"
echo "cuFile 12.4 (carried): exit status $?"
"$gpu/cufile" libcufile.so.0
echo "cuFile (the machine's): exit status $?"
echo "    the same through cubind's wrappers (tests/gpu/cufile_cubind.c): the status records, cubind's error record"
CUBIND_CUFILE_PATH="$gpu/toolkit-12.4/libcufile.so.0" "$gpu/cufile-cubind"
echo "cuFile 12.4 (carried) through cubind: exit status $?"
CUBIND_CUFILE_PATH="$gpu/toolkit-12.4/libcufile.so.0" "$build/bin/cubind-probe" cufile
"$build/bin/cubind-probe" cufile
"$gpu/cufile-cubind"
echo "cuFile (the machine's) through cubind: exit status $?"
ls /dev/nvidia-fs* 2>/dev/null || echo "no /dev/nvidia-fs*: the nvidia-fs kernel module (GPUDirect Storage) is not loaded"
ls /etc/cufile.json 2>/dev/null || echo "no /etc/cufile.json: cuFile's defaults"
exit $failed
