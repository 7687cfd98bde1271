#!/bin/sh
# tests/gpu/dropin.sh BUILD_DIR - the programs of tests/dropin/ (written for NVIDIA's headers,
# compiled unchanged and linked with the drop-in alone by make test-dropin) on the GPU machine's
# real libraries: CUDA 13.0's, then, for the runtime, CUDA 12.4's libcudart (make gpu-releases
# copies it to BUILD_DIR/test/gpu/cuda-12.4/). Each must run to its end; runtime_memcpy prints the
# version of the runtime cubind loaded, which must be the release's. Then the examples' twins with
# NVIDIA's names (generated/examples/nvidia/, built by make test-dropin into BUILD_DIR/examples/nvidia/),
# the same two ways. Exit status: failures.
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
# The examples' twins with NVIDIA's names (generated from the examples, compiled unchanged against
# NVIDIA's headers and linked with the drop-in alone by make test-dropin, into BUILD_DIR/examples/nvidia/):
# each must print PASS and exit 0, on CUDA 13.0's libraries, then with CUDA 12.4's libcudart, which the
# dynamic loader's log (LD_DEBUG=files, in BUILD_DIR/test/dropin/examples/) must show loaded instead of
# 13.0's. allreduce_matmul runs one rank (its argument), allreduce_launcher one rank with no launcher;
# the MPI build of allreduce_launcher's twin is left to mpirun (not run here). NCCL through the drop-in
# fails while libnccl.so.2, not linked -Bsymbolic, binds its own calls to the drop-in (docs/dropin.md).
twins=0
logs="$build/test/dropin/examples"
mkdir -p "$logs"
for program in "$build"/examples/nvidia/*; do
    name=$(basename "$program")
    case "$name" in *_mpi) continue ;; esac
    args=""
    [ "$name" = allreduce_matmul ] && args=1
    twins=$((twins + 1))
    # shellcheck disable=SC2086 # no argument or one
    if out=$("$program" $args 2>&1); then echo "dropin twin 13.0: $(echo "$out" | tail -n 1)"; else
        echo "dropin twin 13.0: $name FAILED (exit $?): $out"; failed=$((failed + 1)); fi
    [ -n "$cudart" ] || continue
    rm -f "$logs/$name.ld".*
    # shellcheck disable=SC2086
    if out=$(CUBIND_RUNTIME_PATH="$cudart" LD_DEBUG=files LD_DEBUG_OUTPUT="$logs/$name.ld" "$program" $args 2>&1); then
        loaded=$(cat "$logs/$name.ld".* | sed -n 's/.*file=\([^ ]*libcudart\.so[^ ]*\).*/\1/p' | sort -u | tr '\n' ' ')
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
[ "$twins" -gt 0 ] || { echo "dropin: no examples' twins in $build/examples/nvidia"; failed=$((failed + 1)); }
exit "$failed"
