#!/bin/sh
# tests/gpu/run.sh BUILD_DIR - run the already built tests on a GPU machine.
#
# Runs what `make gpu-build` produced, without make or a compiler (the GPU
# machines lack CMocka and libclang; CMocka travels in BUILD_DIR/test/lib):
# the probe, the loader, fault and passthrough tests on mocks, the real-library tests
# (which then expect a GPU), the per-library GPU results, the sgemm test program, the drop-in's
# programs on the real libraries (tests/gpu/dropin.sh), NVVM, nvFatbin and nvJPEG on the GPU (the
# machine's 13.0 ones and 12.4's, carried), NVML's getters of NVML API 13 against nvidia-smi and what
# cuFile says (tests/gpu/toolkit.sh), the programs written for NVIDIA's headers with the renaming
# alone on the real libraries (tests/gpu/cplusplus.sh), the
# examples ($build/examples/*; allreduce_matmul with one rank per GPU, allreduce_launcher as one
# rank with no launcher), on two GPUs or more tests/gpu/launcher.sh (allreduce_launcher's ranks
# under each launcher, each NCCL transport) and, when compute-sanitizer is there, the GPU tests
# under its memcheck.
# Exit status: the number of failed steps.
set -u
build=$(cd "${1:-build}" && pwd)
test_dir="$build/test"
failed=0

step() {
    echo "=== $*"
    if "$@"; then echo "=== ok: $1"; else echo "=== FAILED ($?): $1"; failed=$((failed + 1)); fi
}

# CUBIND_<LIB>_PATH of every library's mock (make gpu-build writes the names: mock/environment.txt)
mock_env=""
while read -r entry; do
    mock_env="$mock_env ${entry%%=*}=$test_dir/mock/${entry#*=}"
done < "$test_dir/mock/environment.txt"

# passthrough NAME: one build of the passthrough tests (passthrough, or passthrough-inline: CUBIND_INLINE)
passthrough() {
    # shellcheck disable=SC2086 # one NAME=VALUE word per library
    env $mock_env "$test_dir/$1" > "$test_dir/$1.log" 2>&1
    status=$?
    grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^passthrough:" "$test_dir/$1.log"
    return $status
}

echo "machine: $(uname -srm); $(. /etc/os-release && echo "$PRETTY_NAME")"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
step "$build/bin/cubind-probe"
step env CUBIND_TEST_MOCK_DIR="$test_dir/mock" CUBIND_TEST_HALF_MOCK_DIR="$test_dir/mock-half" "$test_dir/test_loader"
step env CUBIND_TEST_MOCK_DIR="$test_dir/mock" CUBIND_TEST_HALF_MOCK_DIR="$test_dir/mock-half" "$test_dir/test_faults"
step env CUBIND_TEST_MOCK_DIR="$test_dir/mock" CUBIND_TEST_HALF_MOCK_DIR="$test_dir/mock-half" "$test_dir/test_libraries"
step env CUBIND_TEST_MOCK_DIR="$test_dir/mock" CUBIND_TEST_HALF_MOCK_DIR="$test_dir/mock-half" "$test_dir/test_hardening"
step env CUBIND_TEST_MOCK_DIR="$test_dir/mock" CUBIND_TEST_HALF_MOCK_DIR="$test_dir/mock-half" "$test_dir/test_trace"
step env CUBIND_CUFFT_PATH=/nonexistent/libcufft.so.12 CUBIND_TEST_LIBRARY="$build/lib/libcubind.so.0" "$test_dir/test_unload"
step passthrough passthrough
step passthrough passthrough-inline
step "$test_dir/test_real"
step "$test_dir/test_gpu"
step "$test_dir/sgemm"
step sh "$(dirname "$0")/releases.sh" "$build"
step sh "$(dirname "$0")/dropin.sh" "$build"
step sh "$(dirname "$0")/toolkit.sh" "$build"
step sh "$(dirname "$0")/cplusplus.sh" "$build"
step sh "$(dirname "$0")/cupti.sh" "$build"
# The machine as the probe sees it (issue 19): every copy, with and without the Python places, its
# JSON against the schema; the driver and GPU facts against nvidia-smi's; every library's copy
# against cuda-pathfinder's choice (the Python on PATH has it); the NVML stub refused; no GPU said
# plainly with CUDA_VISIBLE_DEVICES empty.
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ')
step sh -c "'$build/bin/cubind-probe' --all; echo \"exit status \$?\""
step sh -c "CUBIND_SEARCH_PYTHON=1 '$build/bin/cubind-probe' --all --strict > /dev/null; echo \"CUBIND_SEARCH_PYTHON=1 --strict: exit status \$?\""
step python3 "$(dirname "$0")/compare_smi.py" "$build/bin/cubind-probe"
step python3 "$(dirname "$0")/pathfinder.py" "$build/bin/cubind-probe"
nvml_stub=/usr/local/cuda/targets/x86_64-linux/lib/stubs/libnvidia-ml.so
if [ -e "$nvml_stub" ]; then
    step sh -c "CUBIND_NVML_PATH=$nvml_stub '$build/bin/cubind-probe' --json | python3 -c 'import json, sys; n = [l for l in json.load(sys.stdin)[\"libraries\"] if l[\"name\"] == \"nvml\"][0]; print(n[\"found\"], n[\"error\"]); sys.exit(n[\"found\"] or \"link-time stub\" not in (n[\"error\"] or \"\"))'"
fi
step "$test_dir/gpu/no_gpu" "$gpus"
step env CUDA_VISIBLE_DEVICES= "$test_dir/gpu/no_gpu"
# Each example prints one PASS/FAIL line; exit 0 only on a correct result (77: no GPU/driver).
for example in sgemm saxpy linear_layer fft_convolution cudnn_conv allreduce_matmul allreduce_launcher; do
    step "$build/examples/$example"
done
if [ "$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ')" -ge 2 ]; then
    step sh "$(dirname "$0")/launcher.sh" "$build"
fi
if command -v compute-sanitizer > /dev/null || [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    step "$sanitizer" --tool memcheck --error-exitcode 1 "$test_dir/test_gpu"
fi
echo "=== $failed step(s) failed"
exit "$failed"
