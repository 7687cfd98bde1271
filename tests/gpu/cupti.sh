#!/bin/sh
# tests/gpu/cupti.sh BUILD_DIR - CUPTI's activity API records the kernel and the copies of a cubind
# program (tests/gpu/cupti.c: NVRTC, the driver API, CUPTI through cubind), on the GPU machine's
# real libraries. Exit status: the program's (0 passed, 77 no GPU here, else failed).
set -u
build=$(cd "${1:-build}" && pwd)
"$build/test/gpu/cupti"
status=$?
[ "$status" -eq 77 ] && echo "cupti: no GPU can be used here (skipped)"
exit "$status"
