#!/bin/sh
# tests/embed/subset_from_ir.sh WORK REFERENCE_CACHE - a subset with nothing to download
# (docs/embedding.md, "Picking libraries"): cuFFT + cuBLAS picked the three ways a user picks them,
#
#   (a) CMake: set(CUBIND_LIBRARIES "cufft cublas") and add_subdirectory (tests/embed/from_ir)
#   (b) the amalgamation: make amalgamation LIBRARIES="cufft cublas"
#   (c) make generate LIBRARIES="cufft cublas" OUT=dir
#
# on a machine where fetching is impossible: the releases cache (CUBIND_RELEASES_CACHE) is an empty
# folder, and apt-get, curl and wget are stand-ins on the PATH that record being run and fail. Each
# step runs under strace: no file is opened (nor tried) in either releases cache or in the
# toolkit's include folder, and no stand-in ran. The three trees are the same files, and the same
# as the subset generated from the headers (REFERENCE_CACHE: the releases cache that has them; the
# comparison is skipped, and says so, when it has not). Then the tree's library, mocks and
# passthrough tests (make test-passthrough GENERATED=...), the CMake program and the amalgamation
# compiled alone (gcc and clang, -Werror) each calling cuFFT and cuBLAS on the mocks.
# Environment: MAKE, PYTHON, CUDA_PATH, CC.
set -eu
# each make below is a user's, not a sub-make of the one that runs this test
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
[ $# -eq 2 ] || { echo "usage: $0 WORK REFERENCE_CACHE" >&2; exit 2; }
work=$1
reference_cache=$2
root=$(pwd)
make=${MAKE:-make}
python=${PYTHON:-/usr/bin/python3}
cuda=${CUDA_PATH:-/usr/local/cuda}
selection="cufft cublas"
flags="-std=c11 -Wall -Wextra -Werror -pedantic"

fail() {
    echo "test-embed-from-ir: $*" >&2
    exit 1
}

rm -rf "$work"
mkdir -p "$work/cache" "$work/bin"
work=$(cd "$work" && pwd)
for tool in apt-get curl wget; do
    printf '#!/bin/sh\necho "%s $*" >> "%s/fetched"\nexit 1\n' "$tool" "$work" > "$work/bin/$tool"
    chmod +x "$work/bin/$tool"
done
original_path=$PATH

# $1 step name, then the command: run with fetching impossible, traced; its output in WORK/NAME.log.
offline() {
    name=$1
    shift
    started=$(date +%s.%N)
    if ! env PATH="$work/bin:$original_path" CUBIND_RELEASES_CACHE="$work/cache" \
        strace -f -qq -e trace=open,openat,openat2,creat,stat,newfstatat,access -o "$work/$name.trace" "$@" \
        > "$work/$name.log" 2>&1; then
        cat "$work/$name.log"
        fail "$name failed with nothing to fetch (above)"
    fi
    awk -v name="$name" -v started="$started" -v ended="$(date +%s.%N)" \
        'BEGIN { printf "%s %.2f\n", name, ended - started }' >> "$work/times"
    # every path the step looked at, under the caches or the toolkit's headers
    sed -n 's/^[0-9]* *[a-z0-9]*([^"]*"\([^"]*\)".*/\1/p' "$work/$name.trace" | sort -u > "$work/$name.paths"
    # (but include/cuda.h: libclang's driver opens it, on any parse, for the version of a CUDA
    # installation it finds, whatever the language; the parses here are of cubind's own files)
    real_cuda=$(readlink -f "$cuda")
    if grep -E "^($work/cache|$reference_cache|$cuda/include|$cuda/targets/[^/]*/include|$real_cuda/include|$real_cuda/targets/[^/]*/include)/." \
        "$work/$name.paths" | grep -v -E "/include/cuda\.h$" > "$work/$name.forbidden"; then
        head -n 5 "$work/$name.forbidden"
        fail "$name looked for $(wc -l < "$work/$name.forbidden") files in a releases cache or the toolkit's headers (above)"
    fi
    [ ! -e "$work/fetched" ] || { cat "$work/fetched"; fail "$name tried to fetch (above)"; }
    [ -z "$(ls -A "$work/cache")" ] || fail "$name wrote into the releases cache: $(ls -A "$work/cache")"
}

# (c) make generate
offline make-generate "$make" --no-print-directory generate LIBRARIES="$selection" OUT="$work/make-tree"
# (b) the amalgamation
offline amalgamation "$make" --no-print-directory amalgamation LIBRARIES="$selection" OUT="$work/amalgamation" \
    BUILD="$work/amalgamation-build"
# (a) CMake, configured (the tree is generated then), then built
offline cmake-configure cmake -S tests/embed/from_ir -B "$work/cmake" -DCUBIND_SOURCE_DIR="$root" \
    -DCMAKE_C_COMPILER="${CC:-cc}" -DCMAKE_C_FLAGS="$flags"
cmake_tree="$work/cmake/cubind/generated-cufft-cublas"
[ -f "$cmake_tree/src/libraries.c" ] || fail "CMake generated no tree in $cmake_tree"

# The three ways give the same files (the CMake tree, the amalgamation's tree: the make tree's).
diff -r "$work/make-tree" "$cmake_tree" > "$work/cmake.diff" || \
    { head -n 20 "$work/cmake.diff"; fail "CMake's tree differs from make generate's (above)"; }
diff -r "$work/make-tree" "$work/amalgamation-build/amalgamation-tree/cufft-cublas" > "$work/amalgamation.diff" || \
    { head -n 20 "$work/amalgamation.diff"; fail "the amalgamation's tree differs from make generate's (above)"; }

# ... and those of the headers, where their releases are at hand (the old way, with the real cache)
have_headers=$(CUBIND_RELEASES_CACHE="$reference_cache" "$python" -c '
import sys
from generator import config, release_headers as releases
cache = releases.cache_root()
print(all(releases.include_dir(cache, r).is_dir() and (cache / r.name / ".headers.stamp").is_file()
          for r in config.load().releases))')
if [ "$have_headers" = True ]; then
    CUBIND_RELEASES_CACHE="$reference_cache" "$python" -m generator generate --cuda-path "$cuda" \
        --libraries $selection --out "$work/headers-tree" > "$work/headers.log" 2>&1 || \
        { cat "$work/headers.log"; fail "the subset from the headers failed (above)"; }
    diff -r "$work/headers-tree" "$work/make-tree" > "$work/headers.diff" || \
        { head -n 20 "$work/headers.diff"; fail "the subset from the IR differs from the subset from the headers (above)"; }
    "$python" -m generator amalgamate --tree "$work/headers-tree" --out "$work/headers-amalgamation" > /dev/null
    # (the amalgamation names each part's file, under the tree it was given: the trees are compared above)
    for name in cubind.h cubind.c; do
        for dir in headers-amalgamation amalgamation; do
            sed -E 's,^/\* (====|----) .*/(src|include)/(.*) (====|----) \*/$,/* \1 TREE/\2/\3 \4 */,' "$work/$dir/$name" \
                > "$work/$dir.$name.parts"
        done
        diff "$work/headers-amalgamation.$name.parts" "$work/amalgamation.$name.parts" > "$work/headers-amalgamation.diff" || \
            { head -n 20 "$work/headers-amalgamation.diff"; fail "the amalgamation from the IR differs from the headers' (above)"; }
    done
    compared="the same $(find "$work/make-tree" -type f | wc -l) files as from the headers (and the amalgamation)"
else
    compared="not compared with the headers' subset: $reference_cache has not every release's headers"
fi

# The tree builds and passes its passthrough tests on its own mocks.
"$make" --no-print-directory GENERATED="$work/make-tree" BUILD="$work/make-build" test-passthrough \
    > "$work/passthrough.log" 2>&1 || { tail -n 30 "$work/passthrough.log"; fail "the subset's passthrough tests failed (above)"; }
mocks="$work/make-build/test/mock"
soname() {
    sed -n "s/^CUBIND_SONAME_$1 := //p" "$work/make-tree/build.mk"
}
[ -n "$(soname cufft)" ] && [ -n "$(soname cublas)" ] || fail "the subset's build.mk names no soname of cuFFT or cuBLAS"
mock_env="CUBIND_CUFFT_PATH=$mocks/$(soname cufft) CUBIND_CUBLAS_PATH=$mocks/$(soname cublas)"

# The CMake program, on the mocks
cmake --build "$work/cmake" > "$work/cmake-build.log" 2>&1 || { cat "$work/cmake-build.log"; fail "the CMake build failed (above)"; }
env $mock_env "$work/cmake/two_libraries" | grep -q '^two_libraries: cuFFT and cuBLAS called' || \
    { env $mock_env "$work/cmake/two_libraries"; fail "the CMake program failed on the mocks (above)"; }

# The amalgamation compiled alone, with gcc and clang, and a program on it, on the mocks
for cc in gcc clang; do
    (cd "$work/amalgamation" && $cc $flags -O2 -c cubind.c -o "cubind-$cc.o") || fail "the amalgamation does not compile alone ($cc)"
    $cc $flags -DAMALGAMATION -I"$work/amalgamation" tests/embed/from_ir/two_libraries.c "$work/amalgamation/cubind-$cc.o" \
        -o "$work/amalgamation/two_libraries-$cc" -ldl -lpthread || fail "a program on the amalgamation does not link ($cc)"
    env $mock_env "$work/amalgamation/two_libraries-$cc" | grep -q '^two_libraries: cuFFT and cuBLAS called' || \
        fail "the program on the amalgamation ($cc) failed on the mocks"
done

echo "test-embed-from-ir: cuFFT + cuBLAS with an empty releases cache and no way to fetch: make generate \
($(awk '$1 == "make-generate" {printf "%.1f s", $2}' "$work/times")), the amalgamation, CMake's CUBIND_LIBRARIES; \
no file of a releases cache looked at, no NVIDIA header of $cuda/include (libclang's probe of cuda.h aside); one tree, $compared; \
its passthrough tests, the CMake program and the amalgamation (gcc, clang) run on the mocks"
