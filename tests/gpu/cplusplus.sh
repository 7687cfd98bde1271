#!/bin/sh
# tests/gpu/cplusplus.sh BUILD_DIR - the programs written for NVIDIA's headers with the renaming alone,
# each build make gpu-build made, on the GPU machine's real CUDA 13.0 libraries instead of the mocks:
#   tests/cplusplus/nvidia_style_c.c (flags by name, a captured graph, cuBLASXt, the profiler APIs,
#   cuComplex.h's arithmetic): gcc and clang, cubind's headers alone and with CUDA's include directory;
#   tests/cplusplus/nvidia_style.cpp (default arguments, typed allocations, a captured graph,
#   occupancy and launches through the templates, dim3, cuComplex.h): g++ and clang++, alone, with
#   CUDA's include directory and inline (CUBIND_INLINE).
# Every call must succeed, cuBLASXt's product and the kernel's result be right. Exit status: failures.
set -u
build=$(cd "${1:-build}" && pwd)
failed=0
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for program in "$build"/test/nvidia_style_c-* "$build"/test/nvidia_style-*; do
    [ -x "$program" ] || continue
    if out=$(CUBIND_TEST_REAL_LIBRARIES=1 "$program" 2>&1); then
        echo "cplusplus 13.0: $(basename "$program"): $out" | tail -n 1
    else
        echo "cplusplus 13.0: $(basename "$program") FAILED: $out"
        failed=$((failed + 1))
    fi
done
for kind in nvidia_style_c nvidia_style; do
    set -- "$build"/test/"$kind"-*
    [ -x "$1" ] || { echo "cplusplus: no $kind build in $build/test"; failed=$((failed + 1)); }
done
exit "$failed"
