#!/bin/sh
# tests/gpu/dropin.sh BUILD_DIR - the programs of tests/dropin/ (written for NVIDIA's headers,
# compiled unchanged and linked with the drop-in alone by make test-dropin) on the GPU machine's
# real libraries: CUDA 13.0's, then, for the runtime, CUDA 12.4's libcudart (make gpu-releases
# copies it to BUILD_DIR/test/gpu/cuda-12.4/). Each must run to its end; runtime_memcpy prints the
# version of the runtime cubind loaded, which must be the release's. Then the examples' NVIDIA-named
# twins (examples/nvidia/, built by make test-dropin), the same two ways. Exit status: failures.
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
# The examples' NVIDIA-named twins (examples/nvidia/: compiled unchanged against NVIDIA's headers and
# linked with the drop-in alone by make test-dropin, into BUILD_DIR/test/dropin/examples/): each must
# print PASS and exit 0, on CUDA 13.0's libraries, then with CUDA 12.4's libcudart, which the dynamic
# loader's log (LD_DEBUG=files) must show loaded instead of 13.0's. allreduce_matmul and
# allreduce_launcher (NCCL over several ranks, MPI) have no twin.
twins=0
for program in "$build"/test/dropin/examples/*; do
    name=$(basename "$program")
    case "$name" in *.*) continue ;; esac # the mocks' logs and outputs beside them
    twins=$((twins + 1))
    if out=$("$program" 2>&1); then echo "dropin twin 13.0: $(echo "$out" | tail -n 1)"; else
        echo "dropin twin 13.0: $name FAILED (exit $?): $out"; failed=$((failed + 1)); fi
    [ -n "$cudart" ] || continue
    rm -f "$build/test/dropin/examples/$name.ld".*
    if out=$(CUBIND_RUNTIME_PATH="$cudart" LD_DEBUG=files LD_DEBUG_OUTPUT="$build/test/dropin/examples/$name.ld" \
             "$program" 2>&1); then
        loaded=$(cat "$build/test/dropin/examples/$name.ld".* | sed -n 's/.*file=\([^ ]*libcudart\.so[^ ]*\).*/\1/p' | sort -u | tr '\n' ' ')
        case "$name:$loaded" in
        saxpy:) echo "dropin twin 12.4: $(echo "$out" | tail -n 1) (no runtime call)" ;;
        *:*cuda-12.4/libcudart.so.12*)
            case "$loaded" in
            *libcudart.so.13*) echo "dropin twin 12.4: $name FAILED: 13.0's runtime loaded too: $loaded"; failed=$((failed + 1)) ;;
            *) echo "dropin twin 12.4: $(echo "$out" | tail -n 1) (runtime: $loaded)" ;;
            esac ;;
        *) echo "dropin twin 12.4: $name FAILED: not 12.4's runtime: $loaded"; failed=$((failed + 1)) ;;
        esac
    else
        echo "dropin twin 12.4: $name FAILED (exit $?): $out"; failed=$((failed + 1))
    fi
done
[ "$twins" -gt 0 ] || { echo "dropin: no examples' twins in $build/test/dropin/examples"; failed=$((failed + 1)); }
exit "$failed"
