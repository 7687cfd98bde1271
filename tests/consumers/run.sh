#!/bin/sh
# tests/consumers/run.sh PREFIX WORKDIR VERSION CC - consumers of an installed cubind tree.
#
# The C consumer is built through pkg-config and through CMake (find_package(cubind), both
# imported targets); LuaJIT and cffi (ABI mode) read share/cubind/cdef/cubind.h, and then
# cdef/common.h with every module file cdef/modules.txt lists; the installed ctypes example
# (share/doc/cubind/examples) reads share/cubind/constants.json; Rust binds cubind/cubind.h with
# bindgen and builds with rustc, no crate; and a Rust program on the installed crate cubind-sys
# (share/cubind/rust/cubind-sys), built offline by Debian's cargo, runs on the installed mocks.
# Each prints every library's info and the error record of a call whose library is missing
# (CUBIND_CURAND_PATH names no file): the C output is checked, and every other output must
# be identical to it.
set -eu
prefix=$1 work=$2 version=$3 cc=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
export CUBIND_CURAND_PATH=/nonexistent/libcurand.so.10
warnings="-std=c11 -Wall -Wextra -Werror -pedantic"
cuda_include="${CUDA_PATH:-/usr/local/cuda}/include"

fail() { echo "consumers: $*"; exit 1; }

# --- C through pkg-config -----------------------------------------------------------------------
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
found=$(pkg-config --modversion cubind) || fail "pkg-config does not find cubind in $prefix"
[ "$found" = "$version" ] || fail "pkg-config says cubind $found, expected $version"
# shellcheck disable=SC2046 # pkg-config's output is meant to split
$cc $warnings $(pkg-config --cflags cubind) "$here/consumer.c" -o "$work/c-pkgconfig" \
    $(pkg-config --libs cubind) -Wl,-rpath,"$prefix/lib"
"$work/c-pkgconfig" > "$work/c.txt"
count=$(sed -n 's/^cubind .*, \([0-9]*\) libraries$/\1/p' "$work/c.txt")
[ -n "$count" ] && [ "$count" -gt 0 ] || fail "C consumer: no library count"
grep -q "^cubind $version, " "$work/c.txt" || fail "C consumer: cubind_version() is not $version"
# What it found is what cubind-probe finds (same environment): name, found, soname.
"$prefix/bin/cubind-probe" --json | /usr/bin/python3 -c '
import json, sys
for lib in json.load(sys.stdin)["libraries"]:
    print(lib["name"], int(lib["found"]), lib["soname"] or "-")' > "$work/probe.txt"
sed -n 's/^\([A-Za-z0-9_]*\): kind [0-9]* found \([01]\) soname \([^ ]*\) .*/\1 \2 \3/p' "$work/c.txt" > "$work/c-found.txt"
cmp -s "$work/probe.txt" "$work/c-found.txt" ||
    { diff "$work/probe.txt" "$work/c-found.txt"; fail "C consumer: libraries found differ from cubind-probe's"; }
grep -q ': kind 0 found 1 soname lib' "$work/c.txt" || fail "C consumer: no library found (the tests need the toolkit's)"
grep -q '^curand: kind 2 found 0 ' "$work/c.txt" || fail "C consumer: curand must be missing"
grep -q '^curandGetVersion: status [0-9]* kind 2 library curand function curandGetVersion status_name CURAND_STATUS_INITIALIZATION_FAILED message .*/nonexistent/libcurand\.so\.10' \
    "$work/c.txt" || { cat "$work/c.txt"; fail "C consumer: wrong error record"; }
echo "consumers: C (pkg-config): $count libraries ($(grep -c ' found 1 ' "$work/c.txt") found, as cubind-probe says), the missing library's error record read"

same() { # name file
    cmp -s "$work/c.txt" "$2" || { diff "$work/c.txt" "$2"; fail "$1 reads something else than C"; }
    echo "consumers: $1: identical to C"
}

# --- C through CMake ----------------------------------------------------------------------------
cmake -S "$here/cmake" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCUBIND_EXPECTED_VERSION="$version" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$warnings" > "$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log"; fail "CMake configuration failed"; }
cmake --build "$work/cmake" > "$work/cmake-build.log" 2>&1 || { cat "$work/cmake-build.log"; fail "CMake build failed"; }
if readelf -d "$work/cmake/consumer_static" | grep -q 'libcubind'; then fail "consumer_static links libcubind.so"; fi
readelf -d "$work/cmake/consumer_shared" | grep -q "NEEDED.*\[libcubind.so.${version%%.*}\]" ||
    fail "consumer_shared does not need libcubind.so.${version%%.*}"
"$work/cmake/consumer_shared" > "$work/cmake-shared.txt"
same "C (CMake, cubind::cubind)" "$work/cmake-shared.txt"
"$work/cmake/consumer_static" > "$work/cmake-static.txt"
same "C (CMake, cubind::cubind_static)" "$work/cmake-static.txt"
# Small by default: the archive has one section a function and the target carries --gc-sections,
# so the program, which calls cuRAND's wrapper only, keeps no cuBLAS wrapper; pkg-config --static
# gives the flag too.
nm "$work/cmake/consumer_static" | awk '{print $NF}' > "$work/cmake-static.symbols"
grep -qx cubind_curand_get_version "$work/cmake-static.symbols" || fail "consumer_static has no cubind_curand_get_version"
kept=$(grep -c '^cubind_cublas_' "$work/cmake-static.symbols" || true)
[ "$kept" -eq 0 ] || fail "consumer_static (cubind::cubind_static) keeps $kept cuBLAS wrappers it never calls"
case " $(pkg-config --static --libs cubind) " in
*" -Wl,--gc-sections "*) ;;
*) fail "pkg-config --static --libs cubind has no -Wl,--gc-sections: $(pkg-config --static --libs cubind)" ;;
esac
echo "consumers: C (CMake, cubind::cubind_static): $(grep -c "^cubind_" "$work/cmake-static.symbols") cubind symbols kept, no cuBLAS wrapper; pkg-config --static gives --gc-sections"
# The drop-in (docs/dropin.md), through CMake and pkg-config: a program written for NVIDIA's headers
# needs libcubind-dropin and no NVIDIA library, and runs on the installed mocks of the newest release.
mocks=$(ls -d "$prefix"/lib/cubind/mocks/*/ | sort -V | tail -n 1)
[ -n "$mocks" ] || fail "no mocks installed in $prefix/lib/cubind/mocks"
# shellcheck disable=SC2046 # pkg-config's output is meant to split
$cc $warnings -isystem "$cuda_include" "$here/../dropin/runtime_memcpy.c" -o "$work/dropin-pkgconfig" \
    $(pkg-config --libs cubind-dropin) -Wl,-rpath,"$prefix/lib"
for program in "$work/cmake/consumer_dropin" "$work/dropin-pkgconfig"; do
    readelf -d "$program" | grep -q 'NEEDED.*\[libcubind-dropin\.so\.' || fail "$program does not need libcubind-dropin"
    if readelf -d "$program" | grep NEEDED | grep -v libcubind | grep -E '\[lib(cu|nv|nccl)'; then
        fail "$program needs the NVIDIA library above"
    fi
    LD_LIBRARY_PATH="$mocks" "$program" | grep -q '^runtime_memcpy: done' || fail "$program does not run on $mocks"
done
echo "consumers: a program for NVIDIA's headers with the drop-in (CMake cubind::dropin, pkg-config cubind-dropin) runs on $mocks"
# Where no toolkit is found (CMake's CUDAToolkit disabled, the toolkit cubind was installed with gone: a
# copy of the package that names another), cubind::dropin says so and how to name one.
mkdir -p "$work/no-toolkit/prefix/lib" "$work/no-toolkit/project"
cp -R "$prefix/lib/cmake" "$work/no-toolkit/prefix/lib/"
dropin_cmake="$work/no-toolkit/prefix/lib/cmake/cubind/cubind-dropin.cmake"
configured=$(sed -n 's/.*AND EXISTS "\(.*\)\/cuda_runtime_api\.h".*/\1/p' "$dropin_cmake")
[ -n "$configured" ] || fail "cubind-dropin.cmake names no toolkit it was installed with"
sed -i "s|$configured|/nonexistent/cuda/include|g" "$dropin_cmake"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(no_toolkit C)\nfind_package(cubind CONFIG REQUIRED)\n' \
    > "$work/no-toolkit/project/CMakeLists.txt"
cmake -S "$work/no-toolkit/project" -B "$work/no-toolkit/build" -DCMAKE_PREFIX_PATH="$work/no-toolkit/prefix" \
    -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCMAKE_C_COMPILER="$cc" > "$work/no-toolkit.log" 2>&1 ||
    { cat "$work/no-toolkit.log"; fail "find_package(cubind) without a toolkit failed"; }
grep -q "cubind::dropin: no CUDA toolkit's headers found" "$work/no-toolkit.log" ||
    { cat "$work/no-toolkit.log"; fail "cubind::dropin does not say that it found no toolkit's headers"; }
grep -q "cubind::dropin: NVIDIA's headers from" "$work/cmake.log" ||
    { cat "$work/cmake.log"; fail "cubind::dropin does not say where NVIDIA's headers come from"; }
echo "consumers: cubind::dropin carries NVIDIA's include directory ($(sed -n "s/.*cubind::dropin: NVIDIA's headers from \(.*\) (.*/\1/p" "$work/cmake.log")); without a toolkit it says so"
# A version the package does not accept must not be found.
mkdir -p "$work/cmake-wrong"
printf 'find_package(cubind 99.0 QUIET CONFIG)\nif(cubind_FOUND)\n  message(FATAL_ERROR "accepted 99.0")\nendif()\n' \
    > "$work/cmake-wrong/check.cmake"
cmake -DCMAKE_PREFIX_PATH="$prefix" -P "$work/cmake-wrong/check.cmake" > /dev/null || fail "CMake accepted cubind 99.0"

# --- LuaJIT, cffi, ctypes -----------------------------------------------------------------------
luajit "$here/consumer.lua" "$prefix" > "$work/luajit.txt"
same "LuaJIT (ffi.cdef of cdef/cubind.h)" "$work/luajit.txt"
/usr/bin/python3 "$here/consumer_cffi.py" "$prefix" > "$work/cffi.txt"
same "Python cffi, ABI mode (cdef/cubind.h)" "$work/cffi.txt"
# The same through cdef/common.h and then every module file, one after another.
modules=$(grep -v -e '^#' -e '^$' "$prefix/share/cubind/cdef/modules.txt")
[ -n "$modules" ] || fail "share/cubind/cdef/modules.txt lists no module"
# shellcheck disable=SC2086 # module names have no spaces
luajit "$here/consumer.lua" "$prefix" common $modules > "$work/luajit-modules.txt"
same "LuaJIT (cdef/common.h and the $(printf '%s\n' "$modules" | wc -l) module files)" "$work/luajit-modules.txt"
# shellcheck disable=SC2086
/usr/bin/python3 "$here/consumer_cffi.py" "$prefix" common $modules > "$work/cffi-modules.txt"
same "Python cffi (cdef/common.h and the module files)" "$work/cffi-modules.txt"
# The ctypes example as installed: it finds its prefix from where it is, or from its argument.
example="$prefix/share/doc/cubind/examples/ctypes_example.py"
[ -f "$prefix/share/cubind/constants.json" ] || fail "share/cubind/constants.json not installed"
[ -f "$example" ] || fail "${example#"$prefix"/} not installed"
/usr/bin/python3 "$example" > "$work/ctypes.txt"
same "Python ctypes (the installed example, constants.json)" "$work/ctypes.txt"
(cd "$work" && /usr/bin/python3 "$example" "$prefix") > "$work/ctypes-prefix.txt"
same "Python ctypes (the installed example, given the prefix)" "$work/ctypes-prefix.txt"

# --- Rust: bindgen + rustc, no crate ------------------------------------------------------------
mkdir -p "$work/rust"
bindgen "$prefix/include/cubind/cubind.h" -o "$work/rust/bindings.rs" --no-layout-tests \
    --allowlist-function 'cubind_.*' --allowlist-var 'CUBIND_.*' -- -I"$prefix/include" \
    > "$work/rust/bindgen.log" 2>&1 || { cat "$work/rust/bindgen.log"; fail "bindgen failed"; }
CUBIND_BINDINGS_DIR="$work/rust" rustc --edition 2021 -o "$work/rust/consumer" "$here/consumer.rs" \
    -L "$prefix/lib" -l dylib=cubind -C link-args=-Wl,-rpath,"$prefix/lib" > "$work/rust/rustc.log" 2>&1 ||
    { cat "$work/rust/rustc.log"; fail "rustc failed"; }
"$work/rust/consumer" > "$work/rust.txt"
same "Rust (bindgen on cubind/cubind.h)" "$work/rust.txt"

# --- Rust: the crate cubind-sys, built offline by Debian's cargo and rustc --------------------------
# (CARGO and RUSTC name them: /usr/bin/cargo and /usr/bin/rustc, never a rustup toolchain earlier on
# PATH.) The program of rust_sys/main.rs depends on the installed crate by path, with every library
# (the default features: the whole crate compiled, warnings as errors); then the crate alone with
# none (what every library shares and cubind's own API must compile without any library's module).
crate="$prefix/share/cubind/rust/cubind-sys"
[ -f "$crate/Cargo.toml" ] || fail "share/cubind/rust/cubind-sys not installed"
cargo=${CARGO:-/usr/bin/cargo}
rustc=${RUSTC:-/usr/bin/rustc}
mkdir -p "$work/rust-sys"
printf '[package]\nname = "rust-sys"\nversion = "0.1.0"\nedition = "2021"\n\n[[bin]]\nname = "rust-sys"\npath = "%s"\n\n[dependencies]\ncubind-sys = { path = "%s" }\n' \
    "$here/rust_sys/main.rs" "$crate" > "$work/rust-sys/Cargo.toml"
rust_build() { # log-name cargo-arguments...
    log="$work/rust-sys/$1.log"
    shift
    CARGO_HOME="$work/rust-sys/cargo-home" CARGO_TARGET_DIR="$work/rust-sys/target" RUSTC="$rustc" \
        RUSTFLAGS="-D warnings -C link-arg=-Wl,-rpath,$prefix/lib" "$cargo" build --offline "$@" > "$log" 2>&1 ||
        { cat "$log"; fail "cargo build $* failed (log above)"; }
    if grep -q '^warning' "$log"; then cat "$log"; fail "cargo build $*: warnings (above)"; fi
}
started=$(date +%s)
rust_build program --manifest-path "$work/rust-sys/Cargo.toml"
built=$(date +%s)
rust_build crate-alone --manifest-path "$crate/Cargo.toml" --no-default-features
# cuBLAS's create scripted to fail on the installed mocks of the newest release
failed=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["values"]["CUBLAS_STATUS_EXECUTION_FAILED"])' \
    "$prefix/share/cubind/constants.json")
CUBIND_MOCK_STATUS="cublasCreate_v2=$failed" \
    LD_LIBRARY_PATH="$mocks" "$work/rust-sys/target/debug/rust-sys" > "$work/rust-sys.txt" 2>&1 ||
    { cat "$work/rust-sys.txt"; fail "the Rust program on cubind-sys failed"; }
grep -q '^cublas: cublas cublasCreate CUBLAS_STATUS_EXECUTION_FAILED ' "$work/rust-sys.txt" &&
    grep -q '^rust-sys: done$' "$work/rust-sys.txt" || { cat "$work/rust-sys.txt"; fail "the Rust program on cubind-sys: wrong output"; }
echo "consumers: Rust (the crate cubind-sys, $("$rustc" --version | cut -d' ' -f2), offline, on the mocks of $mocks): built in $((built - started)) s, $(du -sk "$crate" | cut -f1) KB of crate; cuFFT called, cuBLAS's scripted failure read as an error record"
