#!/bin/sh
# tests/gpu/cplusplus.sh BUILD_DIR - tests/cplusplus/nvidia_style_c.c (a C program written for NVIDIA's
# headers with the renaming alone: flags by name, a captured graph, cuBLASXt, the profiler APIs,
# cuComplex.h's arithmetic), each build make gpu-build made (gcc and clang, cubind's headers alone and
# with CUDA's include directory), on the GPU machine's real CUDA 13.0 libraries instead of the mocks:
# every call must succeed and cuBLASXt's product be right. Exit status: failures.
set -u
build=$(cd "${1:-build}" && pwd)
failed=0
ran=0
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for program in "$build"/test/nvidia_style_c-*; do
    [ -x "$program" ] || continue
    ran=$((ran + 1))
    if out=$(CUBIND_TEST_REAL_LIBRARIES=1 "$program" 2>&1); then
        echo "cplusplus 13.0: $(basename "$program"): $out" | tail -n 1
    else
        echo "cplusplus 13.0: $(basename "$program") FAILED: $out"
        failed=$((failed + 1))
    fi
done
[ "$ran" -gt 0 ] || { echo "cplusplus: no nvidia_style_c build in $build/test"; failed=1; }
exit "$failed"
