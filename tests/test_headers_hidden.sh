#!/bin/sh
# tests/test_headers_hidden.sh CUDA_PATH OUT - cubind/cubind.h with a toolkit that lacks some of
# NVIDIA's headers (make test-headers; run from the repository root, include trees made under OUT).
#
# A toolkit is often partial (the CUDA 13.0 one here has no nvml.h, nvjpeg.h, cufile.h nor
# nvFatbin.h: NVIDIA_EXTRA_INCLUDES brings them from CUDA_EXTRA_INCLUDE where it is given). cubind's headers include an NVIDIA header only
# where it and every NVIDIA header it includes are there, and use their own copy otherwise. Every
# build must succeed and print nothing:
#  1. the toolkit as it is (without NVIDIA_EXTRA_INCLUDES): cubind.h with CUBIND_USE_CUDA_HEADERS
#     and without, C11 and C++17;
#  2. the toolkit with the units' headers, each NVIDIA header cubind.h's build reads (gcc -M, C and
#     C++) hidden in turn: cubind.h with CUBIND_USE_CUDA_HEADERS, C11 and C++17; HIDDEN_JOBS
#     (default: the processors) at a time, each in its own copy of the include tree;
#  3. a compiler that cannot tell whether a header is there (CUBIND_HAS_INCLUDE answering "there"
#     for every header, as with no __has_include and CUBIND_USE_CUDA_HEADERS) on the toolkit as it
#     is: fails on a header it lacks, and compiles with the CUBIND_SELF_CONTAINED_<MODULE> switches
#     of the modules whose headers it lacks (NVIDIA_MISSING_SWITCHES: generator.release_headers
#     unit-switches).
set -eu
cuda=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
program=$out/program.c
printf '#include "cubind/cubind.h"\nint main(void) { return cubind_last_error()->kind == CUBIND_OK ? 0 : 1; }\n' > "$program"
BASE="-Wall -Wextra -Werror -pedantic -Iinclude -Igenerated/include -fsyntax-only"
C="gcc -x c -std=c11"
CXX="g++ -x c++ -std=c++17"
builds=0
hidden=""

# Run a build (its words as given); stop with its command and output unless it succeeds silently.
silent() {
    if ! output=$("$@" 2>&1) || [ -n "$output" ]; then
        echo "test-headers: this build is not silent${hidden:+ (NVIDIA's $hidden hidden)}:"
        echo "$*"
        echo "$output" | head -20
        exit 1
    fi
    builds=$((builds + 1))
}

# 1. The toolkit as it is.
for compiler in "$C" "$CXX"; do
    for use in "" -DCUBIND_USE_CUDA_HEADERS; do
        silent $compiler $BASE -I"$cuda/include" $use "$program"
    done
done
echo "headers: cubind/cubind.h compiles with the toolkit's headers alone, with CUBIND_USE_CUDA_HEADERS and without (C11, C++17)"

# An include tree, copies (a quoted #include in a symbolic link is looked for beside its target):
# $1/0 the toolkit's include directory, $1/1, ... the units' folders of NVIDIA_EXTRA_INCLUDES
# (-idirafter DIR); prints the include flags for it.
copy_tree() {
    mkdir -p "$1/0"
    cp -rL "$cuda/include/." "$1/0/"
    flags="-I$1/0"
    n=0 after=""
    for word in ${NVIDIA_EXTRA_INCLUDES:-}; do
        if [ "$word" = -idirafter ]; then after=1; continue; fi
        if [ -n "$after" ]; then
            n=$((n + 1))
            mkdir -p "$1/$n"
            cp -rL "$word/." "$1/$n/"
            flags="$flags -idirafter $1/$n"
            after=""
        else
            flags="$flags $word"
        fi
    done
    echo "$flags"
}

# 2. Each header hidden in turn. The headers: those the build reads from the tree (C and C++).
flags=$(copy_tree "$out/list")
headers=$( (gcc -x c -std=c11 $BASE $flags -DCUBIND_USE_CUDA_HEADERS -M "$program";
            g++ -x c++ -std=c++17 $BASE $flags -DCUBIND_USE_CUDA_HEADERS -M "$program") |
           tr ' \\' '\n\n' | sed -n "s|^$out/list/||p" | sort -u)
count=$(echo "$headers" | wc -l)
[ "$count" -gt 50 ] || { echo "test-headers: cubind.h's build reads only $count NVIDIA headers"; exit 1; }
hide_each() {  # job $1 of $2: every $2-th header, hidden in its own tree
    tree=$out/job$1
    flags=$(copy_tree "$tree")
    i=0
    for header in $headers; do
        i=$((i + 1))
        [ $((i % $2)) -eq "$1" ] || continue
        mv "$tree/$header" "$tree/$header.hidden"
        hidden=${header#*/}
        for compiler in "$C" "$CXX"; do
            silent $compiler $BASE $flags -DCUBIND_USE_CUDA_HEADERS "$program"
        done
        mv "$tree/$header.hidden" "$tree/$header"
    done
    echo "$builds" > "$tree.builds"
}
jobs=${HIDDEN_JOBS:-$(nproc)}
pids=""
job=0
while [ "$job" -lt "$jobs" ]; do
    (builds=0; hide_each "$job" "$jobs") > "$out/job$job.log" 2>&1 &
    pids="$pids $!"
    job=$((job + 1))
done
failed=0
job=0
for pid in $pids; do
    wait "$pid" || { cat "$out/job$job.log"; failed=1; }
    job=$((job + 1))
done
[ "$failed" -eq 0 ] || exit 1
job=0
while [ "$job" -lt "$jobs" ]; do
    builds=$((builds + $(cat "$out/job$job.builds")))
    job=$((job + 1))
done
echo "headers: cubind/cubind.h compiles with CUBIND_USE_CUDA_HEADERS and each of the $count NVIDIA headers its build reads hidden (C11, C++17)"

# 3. A compiler that cannot tell: every header taken to be there, but for the switched modules
# (a toolkit that has every unit's headers, as a full one does, needs no switch: nothing to build).
cannot_tell="-DCUBIND_USE_CUDA_HEADERS -DCUBIND_HAS_INCLUDE(header)=1"
switches=${NVIDIA_MISSING_SWITCHES:-}
if [ -z "$switches" ]; then
    echo "headers: the toolkit in $cuda has every unit's headers: no module needs a CUBIND_SELF_CONTAINED_ switch"
    echo "headers: $builds builds with NVIDIA's headers missing, not one line of output"
    exit 0
fi
if output=$($C $BASE -I"$cuda/include" $cannot_tell "$program" 2>&1) ||
   ! echo "$output" | grep -q "No such file or directory"; then
    echo "test-headers: with every header taken to be there, the toolkit as it is should lack one:"
    echo "$output" | head -5
    exit 1
fi
for compiler in "$C" "$CXX"; do
    silent $compiler $BASE -I"$cuda/include" $cannot_tell $switches "$program"
done
echo "headers: a compiler that cannot tell which headers are there compiles cubind/cubind.h with $switches"
echo "headers: $builds builds with NVIDIA's headers missing, not one line of output"
