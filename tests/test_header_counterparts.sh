#!/bin/sh
# tests/test_header_counterparts.sh CUDA_PATH MODULE... - including a cubind module header changes
# nothing else in the program (make test-headers; run from the repository root). For each module,
# against NVIDIA's headers it stands for (generated/tests/header_counterpart.c), as C (gcc) and C++ (g++):
#  1. the macros it defines (-dM) are NVIDIA's counterpart's, cubind's own CUBIND_* aside: no more
#     of NVIDIA's headers nor of the C library; with CUDA's include directory given as -I, and
#     without it (cubind's copies);
#  2. in C++, the program's own exp(1.0f), sqrt(1.0f), fabs(1.0f) after <cmath> have the type they
#     have after NVIDIA's header (double, unless it brings <math.h> in), with CUDA or without.
set -eu
cuda=$1
shift
src=generated/tests/header_counterpart.c
nvidia="-I$cuda/include ${NVIDIA_EXTRA_INCLUDES:-}"
base="-Iinclude -Igenerated/include"
checks=0
theirs=$(mktemp)
trap 'rm -f "$theirs"' EXIT

# The names of the macros a translation unit defines.
macro_names() {
    "$@" -dM -E "$src" | sed -n 's/^#define \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' | sort -u
}

for module in "$@"; do
    for compiler in "gcc -x c -std=c11" "g++ -x c++ -std=c++17"; do
        unit="$compiler -DCUBIND_TEST_MODULE_$module"
        # NVIDIA's headers that only C++ can include, their declarations being C, compile as C with
        # the C++ library headers they include as empty files (NVIDIA_C_STAND_INS)
        stand_ins=""
        case $compiler in gcc*) stand_ins=${NVIDIA_C_STAND_INS:-} ;; esac
        macro_names $unit -DCUBIND_TEST_NVIDIA $nvidia $stand_ins > "$theirs"
        for where in with-cuda alone; do
            dirs=$nvidia
            [ "$where" = alone ] && dirs=""
            extra=$(macro_names $unit $base $dirs | grep -v '^CUBIND_' | comm -23 - "$theirs")
            if [ -n "$extra" ]; then
                echo "test-headers: cubind/$module.h ($compiler, $where) defines macros NVIDIA's header does not:"
                echo "$extra" | head -20 | tr '\n' ' '
                echo
                exit 1
            fi
            checks=$((checks + 1))
        done
    done
    # C++: what the program's own math calls mean
    unit="g++ -x c++ -std=c++17 -Wall -Wextra -Werror -DCUBIND_TEST_MODULE_$module -fsyntax-only $src"
    expected=""
    for type in double float; do
        if $unit -DCUBIND_TEST_NVIDIA $nvidia -DCUBIND_TEST_EXP=$type >/dev/null 2>&1; then expected=$type; fi
    done
    if [ -z "$expected" ]; then
        echo "test-headers: exp(1.0f) after NVIDIA's headers of $module is neither double nor float:"
        $unit -DCUBIND_TEST_NVIDIA $nvidia -DCUBIND_TEST_EXP=double
        exit 1
    fi
    for dirs in "$nvidia" ""; do
        if ! output=$($unit $base $dirs -DCUBIND_TEST_EXP=$expected 2>&1); then
            echo "test-headers: after cubind/$module.h (include path: $base $dirs) exp(1.0f) is not $expected as after NVIDIA's:"
            echo "$output" | head -20
            exit 1
        fi
        checks=$((checks + 1))
    done
done
echo "headers: each of $# module headers defines no macro its NVIDIA counterpart does not and keeps the" \
     "meaning of exp(1.0f) in C++, with CUDA on the include path and without ($checks checks)"
