#!/bin/sh
# tests/julia/run.sh JULIA PACKAGES LIBRARY CONSTANTS IR WORK - the Julia module on the mocks (make test-julia).
#
# JULIA runs Julia (make fetch-julia's); PACKAGES holds the rendered Cubind/; LIBRARY is libcubind.so.0;
# the environment names the mocks (CUBIND_<LIB>_PATH). cuBLAS's create is scripted to fail on its second
# call (CUBIND_MOCK_STATUS_FILE), with the status constants.json gives CUBLAS_STATUS_EXECUTION_FAILED;
# cuRAND is missing. Julia's compiled files go to WORK/depot, kept from run to run.
set -eu
julia=$1 packages=$2 library=$3 constants=$4 ir=$5 work=$6
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
/usr/bin/python3 "$here/expected.py" "$constants" "$ir" > "$work/expected.tsv"
failed=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["values"]["CUBLAS_STATUS_EXECUTION_FAILED"])' "$constants")
printf '# the second cublasCreate fails\ncublasCreate_v2#2=%s\n' "$failed" > "$work/status.txt"
started=$(date +%s)
CUBIND_MOCK_STATUS_FILE="$work/status.txt" CUBIND_CURAND_PATH=/nonexistent/libcurand.so.10 CUBIND_JULIA_LIBRARY="$library" \
    JULIA_DEPOT_PATH="$work/depot" "$julia" --startup-file=no "$here/consumer.jl" "$packages" "$work/expected.tsv"
echo "julia: $("$julia" --version) ran the consumer in $(( $(date +%s) - started )) s (the module compiled in $work/depot)"
