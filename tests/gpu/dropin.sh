#!/bin/sh
# tests/gpu/dropin.sh BUILD_DIR - the programs of tests/dropin/ (written for NVIDIA's headers,
# compiled unchanged and linked with the drop-in alone by make test-dropin) on the GPU machine's
# real libraries: CUDA 13.0's, then, for the runtime, CUDA 12.4's libcudart (make gpu-releases
# copies it to BUILD_DIR/test/gpu/cuda-12.4/). Each must run to its end; runtime_memcpy prints the
# version of the runtime cubind loaded, which must be the release's. Exit status: failures.
set -u
build=$(cd "${1:-build}" && pwd)
failed=0
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for name in runtime_memcpy cublas_sgemm cufft_c2c driver_nvrtc nccl_one_rank; do
    program="$build/test/dropin/$name"
    [ -x "$program" ] || { echo "dropin: $name: not built"; failed=$((failed + 1)); continue; }
    if out=$("$program" 2>&1); then echo "dropin 13.0: $out" | tail -n 1; else
        echo "dropin 13.0: $name FAILED: $out"; failed=$((failed + 1)); fi
done
cudart=$(ls "$build"/test/gpu/cuda-12.4/libcudart.so.* 2> /dev/null | head -n 1)
if [ -n "$cudart" ]; then
    out=$(CUBIND_RUNTIME_PATH="$cudart" "$build/test/dropin/runtime_memcpy" 2>&1)
    case "$out" in
    *"done (runtime 12040)"*) echo "dropin 12.4: $out" ;;
    *) echo "dropin 12.4: runtime_memcpy FAILED: $out"; failed=$((failed + 1)) ;;
    esac
else
    echo "dropin 12.4: no CUDA 12.4 runtime in $build/test/gpu"; failed=$((failed + 1))
fi
exit "$failed"
