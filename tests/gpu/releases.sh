#!/bin/sh
# tests/gpu/releases.sh BUILD_DIR - on a GPU machine: the runtime of an older CUDA release called
# through cubind gives what that release's own program gets, and what the newest runtime gives.
#
# Three runs of tests/gpu/releases.c (built by `make gpu-build`): through cubind with the toolkit's
# runtime; through cubind with an older release's libcudart (each release BUILD_DIR/test/gpu/releases.txt
# lists, carried in BUILD_DIR/test/gpu/cuda-<release>/; a listed release missing, or none, fails);
# and that release's own program (built against its headers, linked to its libcudart). The device
# properties both layouts have, the graph's edges, the capture's outputs and what the functions
# called through semantic adapters give (`adapted.`: graph instantiation and update, a node's
# dependencies, removed edges, capture dependencies, managed memory advised and prefetched, a driver
# entry point) must be the same in all three; `node.` (cudaGraphAddNode and node parameters, 12.4
# and newer) in the runs whose runtime has it; `status.` (what only the newest form writes:
# driverStatus) in the newest and cubind's runs. cubind must say it called the older runtime as
# its release.
#
# The driver's semantic adapters the same way (tests/gpu/releases_driver.c): through cubind on the
# machine's driver; through cubind on a driver that says it is of the release
# (cuda-<release>/libcuda.so.1.release, tests/gpu/driver_as_release.py: the machine's driver, which
# keeps exporting the older entry points for programs built with that release); and the release's
# own program (built against its cuda.h, on the machine's driver). `driver.` lines must be the same
# in all three, `node.` (cuGraphAddNode, 12.4 and newer) in the runs that have it, `own.` in cubind's
# and the release's own, `dstatus.` (symbolStatus) in cubind's and the newest.
set -u
gpu=$(cd "${1:-build}" && pwd)/test/gpu
failed=0
releases=$(cat "$gpu/releases.txt" 2>/dev/null)
if [ -z "$releases" ]; then
    echo "FAILED: no older release's runtime in $gpu/releases.txt (make gpu-build carries them)"
    failed=1
fi
echo "releases: the runtimes of CUDA" $releases
"$gpu/releases-driver-cubind" > "$gpu/driver-newest.out" 2>&1
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
    version=$(sed -n 's/^runtime.version=//p' "$gpu/$release-cubind.out")
    for run in "$release-cubind" "$release-direct"; do
        keys='prop|graph|capture|adapted'
        [ "${version:-0}" -ge 12040 ] && keys="$keys|node"
        [ "$run" = "$release-cubind" ] && keys="$keys|status"
        # the runtime's own verdict on an update whose topology changed: CUDA 11.8 answers
        # cudaGraphExecUpdateErrorNotSupported (6), 13.0 cudaGraphExecUpdateErrorTopologyChanged (2)
        # (measured on an H200): compared with the release's own program below, not with the newest
        own='^adapted\.update1\.result='
        grep -E "^($keys)\." "$gpu/newest.out" | grep -v "$own" > "$gpu/newest-$run.fields"
        grep -E "^($keys)\." "$gpu/$run.out" | grep -v "$own" > "$gpu/$run.fields"
        if diff "$gpu/newest-$run.fields" "$gpu/$run.fields"; then
            echo "same fields: newest and $run ($(wc -l < "$gpu/$run.fields") lines: $keys)"
        else
            echo "FAILED: $run differs from the newest runtime"; failed=$((failed + 1))
        fi
    done
    # cubind with the release's runtime gives what the release's own program gives, field for field
    grep -E '^(prop|graph|capture|adapted|node)\.' "$gpu/$release-cubind.out" > "$gpu/$release-cubind.own"
    grep -E '^(prop|graph|capture|adapted|node)\.' "$gpu/$release-direct.out" > "$gpu/$release-direct.own"
    if diff "$gpu/$release-direct.own" "$gpu/$release-cubind.own"; then
        echo "same fields: $release-direct and $release-cubind ($(wc -l < "$gpu/$release-cubind.own") lines)"
    else
        echo "FAILED: $release-cubind differs from the release's own program"; failed=$((failed + 1))
    fi
    grep -c '^adapted\.' "$gpu/$release-cubind.out" | grep -qv '^0$' ||
        { echo "FAILED: no adapted function was compared"; failed=$((failed + 1)); }
    grep -q '^graph.edges=1$' "$gpu/newest.out" && grep -q '^capture.graph_set=1$' "$gpu/newest.out" ||
        { echo "FAILED: the graph edge or the capture's graph is missing"; failed=$((failed + 1)); }
    # the driver, called as this release through its semantic adapters
    drv=$gpu/cuda-$release/libcuda.so.1.release
    if [ ! -f "$drv" ] || [ ! -x "$gpu/releases-driver-direct-$release" ]; then
        echo "FAILED: CUDA $release: no $drv or no releases-driver-direct-$release"; failed=$((failed + 1)); continue
    fi
    env CUBIND_DRIVER_PATH="$drv" "$gpu/releases-driver-cubind" > "$gpu/$release-driver-cubind.out" 2>&1
    "$gpu/releases-driver-direct-$release" > "$gpu/$release-driver-direct.out" 2>&1
    for run in driver-newest "$release-driver-cubind" "$release-driver-direct"; do
        echo "--- $run"; cat "$gpu/$run.out"
        grep -q '^error=' "$gpu/$run.out" && { echo "FAILED: $run"; failed=$((failed + 1)); }
    done
    grep -q "^cubind.release=$release\$" "$gpu/$release-driver-cubind.out" ||
        { echo "FAILED: cubind did not call $drv as CUDA $release"; failed=$((failed + 1)); }
    keys='driver'
    case $release in 11.*|12.[0-3]) ;; *) keys='driver|node' ;; esac
    for pair in "driver-newest $release-driver-cubind $keys" "driver-newest $release-driver-direct $keys" \
                "$release-driver-direct $release-driver-cubind $keys|own" "driver-newest $release-driver-cubind dstatus"; do
        set -- $pair
        grep -E "^($3)\." "$gpu/$1.out" > "$gpu/$1-$2.a"
        grep -E "^($3)\." "$gpu/$2.out" > "$gpu/$1-$2.b"
        if [ -s "$gpu/$1-$2.a" ] && diff "$gpu/$1-$2.a" "$gpu/$1-$2.b"; then
            echo "same fields: $1 and $2 ($(wc -l < "$gpu/$1-$2.b") lines: $3)"
        else
            echo "FAILED: $2 differs from $1 ($3)"; failed=$((failed + 1))
        fi
    done
done
echo "releases: $failed failed"
exit "$failed"
