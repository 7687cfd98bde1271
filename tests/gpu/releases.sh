#!/bin/sh
# tests/gpu/releases.sh BUILD_DIR - on a GPU machine: the runtime of an older CUDA release called
# through cubind gives what that release's own program gets, and what the newest runtime gives.
#
# For each older release `make gpu-build` carried (BUILD_DIR/test/gpu/releases.txt: every configured
# [[release]] whose runtime has the forms the program calls, CUDA 12.5 and 12.4), three runs of
# tests/gpu/releases.c: through cubind with the toolkit's runtime; through cubind with the release's
# libcudart (carried in BUILD_DIR/test/gpu/cuda-<release>/); and that release's own program (built
# against its headers, linked to its libcudart). The device properties both layouts have, the graph's
# edges and the capture's outputs must be the same in all three, and cubind must say it called the
# older runtime as its release. A listed release whose runtime is missing, or no release at all, fails.
set -u
gpu=$(cd "${1:-build}" && pwd)/test/gpu
failed=0
releases=$(cat "$gpu/releases.txt" 2>/dev/null)
if [ -z "$releases" ]; then
    echo "FAILED: no older release's runtime in $gpu/releases.txt (make gpu-build carries them)"
    failed=1
fi
echo "releases: the runtimes of CUDA" $releases
for release in $releases; do
    dir=$gpu/cuda-$release
    lib=$(ls "$dir"/libcudart.so.* 2>/dev/null | head -n 1)
    if [ -z "$lib" ] || [ ! -x "$gpu/releases-direct-$release" ]; then
        echo "FAILED: CUDA $release: no runtime in $dir or no releases-direct-$release"
        failed=$((failed + 1))
        continue
    fi
    "$gpu/releases-cubind" > "$gpu/newest.out" 2>&1
    env CUBIND_RUNTIME_PATH="$lib" "$gpu/releases-cubind" > "$gpu/$release-cubind.out" 2>&1
    env LD_LIBRARY_PATH="$dir" "$gpu/releases-direct-$release" > "$gpu/$release-direct.out" 2>&1
    for run in newest "$release-cubind" "$release-direct"; do
        echo "--- $run"; cat "$gpu/$run.out"
        grep -q '^error=' "$gpu/$run.out" && { echo "FAILED: $run"; failed=$((failed + 1)); }
    done
    grep -q "^cubind.release=$release\$" "$gpu/$release-cubind.out" ||
        { echo "FAILED: cubind did not call $lib as CUDA $release"; failed=$((failed + 1)); }
    grep -E '^(prop|graph|capture)\.' "$gpu/newest.out" > "$gpu/newest.fields"
    for run in "$release-cubind" "$release-direct"; do
        grep -E '^(prop|graph|capture)\.' "$gpu/$run.out" > "$gpu/$run.fields"
        if diff "$gpu/newest.fields" "$gpu/$run.fields"; then
            echo "same fields: newest and $run ($(wc -l < "$gpu/$run.fields") lines)"
        else
            echo "FAILED: $run differs from the newest runtime"; failed=$((failed + 1))
        fi
    done
    grep -q '^graph.edges=1$' "$gpu/newest.fields" && grep -q '^capture.graph_set=1$' "$gpu/newest.fields" ||
        { echo "FAILED: the graph edge or the capture's graph is missing"; failed=$((failed + 1)); }
done
echo "releases: $failed failed"
exit "$failed"
