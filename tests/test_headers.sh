#!/bin/sh
# tests/test_headers.sh CUDA_PATH OUT MODULE... - cubind's headers as programs take them
# (make test-headers; run from the repository root, builds written under OUT).
#
# Every build must succeed and print nothing at all: -Werror turns warnings into failures, and an
# empty output also catches what -Werror lets through (notes, warnings of flags not turned on).
#  1. each module header alone (generated/tests/header_alone.c) with cubind's core API: gcc and
#     clang as C11, g++ and clang++ as C++11;
#     a. CUBIND_HEADER_WARNINGS (cubind's own header code checked as the program's own), NVIDIA's
#        headers found as system ones (-isystem: theirs are not under test), out-of-line form;
#     b. the same with cubind's copies of NVIDIA's declarations (CUBIND_SELF_CONTAINED), inline form;
#     c. as a program takes it: CUDA's include directory given as -I, inline form.
#  2. cubind/cubind.h and every NVIDIA header in one program, in both orders
#     (generated/tests/include_order.c), CUDA's include directory given as -I: C11, C++11 and
#     C++17, gcc and clang, out-of-line and inline, linked.
#  3. cubind/cubind.h alone under every warning the compilers have (clang -Weverything, a long
#     list for gcc), -I, out-of-line and inline: a program's flags never find anything in it.
set -eu
cuda=$1
out=$2
shift 2
mkdir -p "$out"

BASE="-Wall -Wextra -Werror -pedantic -Wshadow -Iinclude -Igenerated/include"
GCC_ALL="-Wconversion -Wsign-conversion -Wundef -Wcast-qual -Wcast-align=strict -Wredundant-decls -Wpadded
         -Wswitch-enum -Wswitch-default -Wfloat-equal -Wformat=2 -Wmissing-declarations -Wunused-macros
         -Wdouble-promotion -Wvla -Wwrite-strings -Wlogical-op -Wduplicated-cond -Wnull-dereference"
GCC_ALL_C="$GCC_ALL -Wstrict-prototypes -Wmissing-prototypes -Wold-style-definition -Wbad-function-cast
           -Wnested-externs -Wdeclaration-after-statement -Wjump-misses-init -Wc++-compat"
GCC_ALL_CXX="$GCC_ALL -Wold-style-cast -Wuseless-cast -Wzero-as-null-pointer-constant -Wextra-semi -Weffc++
             -Wnon-virtual-dtor -Wctor-dtor-privacy -Wsign-promo"
builds=0

# Run a build (its words as given); stop with its command and output unless it succeeds silently.
silent() {
    if ! output=$("$@" 2>&1) || [ -n "$output" ]; then
        echo "test-headers: this build is not silent:"
        echo "$*"
        echo "$output"
        exit 1
    fi
    builds=$((builds + 1))
}

# 1. Each module header alone: the modules' builds run HEADER_JOBS at a time (default: the
#    processors), each module's in a subshell that leaves its log and its count of builds in OUT.
module_builds() {
    for compiler in "gcc -x c -std=c11" "clang -x c -std=c11" "g++ -x c++ -std=c++11" "clang++ -x c++ -std=c++11"; do
        unit="$compiler $BASE -DCUBIND_TEST_MODULE_$1 -fsyntax-only generated/tests/header_alone.c"
        silent $unit -DCUBIND_HEADER_WARNINGS -isystem "$cuda/include" ${NVIDIA_EXTRA_INCLUDES:-}
        silent $unit -DCUBIND_HEADER_WARNINGS -DCUBIND_SELF_CONTAINED -DCUBIND_INLINE
        silent $unit -I"$cuda/include" ${NVIDIA_EXTRA_INCLUDES:-} -DCUBIND_INLINE
    done
    echo "$builds" > "$out/alone-$1.builds"
}
jobs=${HEADER_JOBS:-$(nproc)}
running="" failed=""
wait_running() {
    for entry in $running; do
        wait "${entry%%:*}" || failed="$failed ${entry#*:}"
    done
    running=""
}
for module in "$@"; do
    (builds=0; module_builds "$module") > "$out/alone-$module.log" 2>&1 &
    running="$running $!:$module"
    [ "$(echo $running | wc -w)" -lt "$jobs" ] || wait_running
done
wait_running
for module in $failed; do cat "$out/alone-$module.log"; done
[ -z "$failed" ] || exit 1
for module in "$@"; do builds=$((builds + $(cat "$out/alone-$module.builds"))); done
echo "headers: each of $# module headers compiles alone with the core API (C11, C++11; gcc, clang)"

# 2. cubind's headers and NVIDIA's together, in both orders.
for form in outline inline; do
    for order in cubind-first nvidia-first; do
        define=""
        [ "$order" = nvidia-first ] && define="-DCUBIND_NVIDIA_FIRST"
        [ "$form" = inline ] && define="$define -DCUBIND_INLINE -fPIC"
        for compiler in "gcc -x c -std=c11" "clang -x c -std=c11" "g++ -x c++ -std=c++11" "g++ -x c++ -std=c++17" \
                        "clang++ -x c++ -std=c++11" "clang++ -x c++ -std=c++17"; do
            name=$(echo "$compiler" | tr -d ' =+' | tr -c 'a-z0-9\n' -)-$order-$form
            silent $compiler $BASE -Igenerated/tests -I"$cuda/include" ${NVIDIA_EXTRA_INCLUDES:-} $define generated/tests/include_order.c \
                -o "$out/$name" -Wl,--unresolved-symbols=ignore-all
        done
    done
done
echo "headers: cubind's and NVIDIA's compile together in both orders, CUDA's directory given as -I" \
     "(C11, C++11, C++17; gcc, clang; out-of-line and inline)"

# 3. cubind.h under every warning.
for form in "" "-DCUBIND_INLINE"; do
    unit="$BASE -I$cuda/include ${NVIDIA_EXTRA_INCLUDES:-} $form -DCUBIND_TEST_EVERYTHING -fsyntax-only generated/tests/header_alone.c"
    silent gcc -x c -std=c11 $GCC_ALL_C $unit
    silent g++ -x c++ -std=c++17 $GCC_ALL_CXX $unit
    silent clang -x c -std=c11 -Weverything $unit
    silent clang++ -x c++ -std=c++17 -Weverything -Wno-c++98-compat $unit
done
echo "headers: cubind/cubind.h gives no warning under clang -Weverything and gcc's long list (C11, C++17)"

# 4. ... but a program's call of a deprecated wrapper warns there, in both forms, unless the program
#    defines CUBIND_NO_DEPRECATION_WARNINGS.
for form in "" "-DCUBIND_INLINE"; do
    for compiler in "gcc -x c -std=c11" "clang -x c -std=c11" "g++ -x c++ -std=c++11" "clang++ -x c++ -std=c++11"; do
        unit="$compiler $BASE -I$cuda/include ${NVIDIA_EXTRA_INCLUDES:-} $form -DCUBIND_TEST_EVERYTHING -DCUBIND_TEST_DEPRECATED_CALL
              -fsyntax-only generated/tests/header_alone.c"
        output=$($unit 2>&1) && status=0 || status=$?
        if [ "$status" -eq 0 ] || ! printf '%s\n' "$output" | grep -q "^generated/tests/header_alone.c:[0-9]*:[0-9]*: error: .*deprecated"; then
            echo "test-headers: the call of a deprecated wrapper did not fail -Werror where it is:"
            echo "$unit"
            echo "$output"
            exit 1
        fi
        silent $unit -DCUBIND_NO_DEPRECATION_WARNINGS
    done
done
echo "headers: a call of a deprecated wrapper warns where it is (gcc, clang; C, C++; out-of-line, inline)," \
     "and not with CUBIND_NO_DEPRECATION_WARNINGS"
echo "headers: $builds builds, not one line of output"
