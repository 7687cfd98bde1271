#!/bin/sh
# tests/dropin/run.sh WORK LIBDIR MOCKS - programs written for NVIDIA's headers, linked with the
# drop-in alone, on the installable mocks of every release (docs/dropin.md, docs/mocks.md).
#
# LIBDIR holds libcubind-dropin.so and libcubind.so; MOCKS the mock folders (<release>/ each, named
# in RELEASES, newest first). Environment: CC, CUDA_PATH, SONAMES (every bound library's soname),
# NVCC (empty: the nvcc check is skipped), IR (the generated tree's ir/), DOC (docs/dropin.md, whose
# figures are checked against what this measures), TWINS (the examples' twins with NVIDIA's names, built)
# and TWIN_MPI (the MPI build of one, or empty).
#
# The drop-in exports exactly the symbol of every function of the IR.
# Each program of tests/dropin/*.c is compiled unchanged against $CUDA_PATH/include with
# -Werror -pedantic and linked with -lcubind-dropin only; then:
# - no NVIDIA library is in its DT_NEEDED, and every symbol it takes from the drop-in carries the
#   drop-in's version node (readelf, nm);
# - on the mocks of each release it runs to its end, and the mocks' log (CUBIND_MOCK_LOG) has every
#   drop-in symbol it references; runtime_memcpy prints the runtime version of that release;
# - its error path: the last call it makes is scripted to fail (CUBIND_MOCK_STATUS, or
#   CUBIND_MOCK_STATUS_FILE every other program) on that call's N-th occurrence; it must stop
#   there, exit 1 and name the failed call and its status;
# - a bad script is refused.
set -eu
work=$1 libdir=$2 mocks=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "test-dropin: $*"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
newest=${RELEASES%% *}
warnings="-std=c11 -Wall -Wextra -Werror -pedantic"
node=$(readelf -V -W "$libdir/libcubind-dropin.so" | sed -n 's/.*Flags: none.*Name: \(CUBIND_DROPIN_[0-9.]*\).*/\1/p' | head -n 1)
[ -n "$node" ] || fail "libcubind-dropin.so defines no CUBIND_DROPIN_ version node"
nm -D --defined-only "$libdir/libcubind-dropin.so" | awk '$2 == "T" {print $3}' | sed 's/@.*//' | LC_ALL=C sort -u > "$work/exports.txt"
/usr/bin/python3 -c 'import json, sys
for path in sys.argv[1:]:
    for f in json.load(open(path))["functions"]:
        print(f["symbol"])' "$IR"/*.json | LC_ALL=C sort -u > "$work/ir-symbols.txt"
cmp -s "$work/exports.txt" "$work/ir-symbols.txt" ||
    { diff "$work/ir-symbols.txt" "$work/exports.txt" | head; fail "the drop-in's exports are not the IR's symbols (above)"; }
thousands() { echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }
exported=$(thousands "$(wc -l < "$work/exports.txt")")
# the prose without its fact markers (<!-- fact: ... -->, tests/docs/facts.py)
prose=$(sed 's/<!--[^>]*-->//g' "$DOC")
printf '%s\n' "$prose" | grep -q "($exported for the" || fail "$DOC does not say the drop-in exports $exported symbols"

programs=0 calls=0 index=0
for source in "$here"/*.c; do
    name=$(basename "$source" .c)
    program="$work/$name"
    # shellcheck disable=SC2086 # the flags are meant to split
    $CC $warnings -isystem "$CUDA_PATH/include" "$source" -o "$program" \
        -L"$libdir" -lcubind-dropin -Wl,-rpath,"$libdir" > "$work/$name.cc.log" 2>&1 ||
        { cat "$work/$name.cc.log"; fail "$name does not build against NVIDIA's headers with the drop-in"; }
    readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' > "$work/$name.needed"
    for soname in $SONAMES; do
        if grep -qxF "$soname" "$work/$name.needed"; then fail "$name needs $soname"; fi
    done
    grep -qx 'libcubind-dropin\.so\.[0-9]*' "$work/$name.needed" || fail "$name does not need libcubind-dropin"
    nm -D --undefined-only "$program" | awk '{print $2}' > "$work/$name.undefined"
    grep -v -e '@GLIBC_' -e "@$node\$" -e '^_ITM_' -e '^__gmon_start__$' "$work/$name.undefined" > "$work/$name.other" &&
        { cat "$work/$name.other"; fail "$name takes the symbols above from elsewhere than the drop-in ($node) and libc"; }
    sed -n "s/@$node\$//p" "$work/$name.undefined" | LC_ALL=C sort -u > "$work/$name.referenced"
    [ -s "$work/$name.referenced" ] || fail "$name references nothing of the drop-in"

    for release in $RELEASES; do
        log="$work/$name-$release.log"
        LD_LIBRARY_PATH="$mocks/$release" CUBIND_MOCK_LOG="$log" "$program" > "$work/$name-$release.out" 2>&1 ||
            { cat "$work/$name-$release.out"; fail "$name fails on the mocks of CUDA $release"; }
        grep -q "^$name: done" "$work/$name-$release.out" || fail "$name did not finish on the mocks of CUDA $release"
        LC_ALL=C sort -u "$log" | LC_ALL=C comm -23 "$work/$name.referenced" - > "$work/$name-$release.unlogged"
        [ ! -s "$work/$name-$release.unlogged" ] ||
            { cat "$work/$name-$release.unlogged"; fail "on CUDA $release's mocks, $name's calls above were not recorded"; }
        if [ "$name" = runtime_memcpy ]; then
            expected=$(echo "$release" | awk -F. '{print $1 * 1000 + $2 * 10}')
            grep -q "(runtime $expected)" "$work/$name-$release.out" ||
                fail "the mocks of CUDA $release do not answer cudaRuntimeGetVersion with $expected: $(cat "$work/$name-$release.out")"
        fi
    done
    calls=$((calls + $(wc -l < "$work/$name-$newest.log")))

    # The error path: the last call the program makes (a symbol it references), on its N-th occurrence.
    last=$(grep -xF -f "$work/$name.referenced" "$work/$name-$newest.log" | tail -n 1)
    nth=$(grep -cxF "$last" "$work/$name-$newest.log")
    rule="$last#$nth=1"
    log="$work/$name-failing.log"
    if [ $((index % 2)) -eq 0 ]; then
        set +e; LD_LIBRARY_PATH="$mocks/$newest" CUBIND_MOCK_LOG="$log" CUBIND_MOCK_STATUS="$rule" "$program" \
            > "$work/$name-failing.out" 2>&1; status=$?; set -e
    else
        printf '# the last call fails\n%s\n' "$rule" > "$work/$name.rules"
        set +e; LD_LIBRARY_PATH="$mocks/$newest" CUBIND_MOCK_LOG="$log" CUBIND_MOCK_STATUS_FILE="$work/$name.rules" \
            "$program" > "$work/$name-failing.out" 2>&1; status=$?; set -e
    fi
    [ "$status" -eq 1 ] || { cat "$work/$name-failing.out"; fail "$name with $rule exits $status, not 1"; }
    grep -q "failed: status 1\$" "$work/$name-failing.out" ||
        { cat "$work/$name-failing.out"; fail "$name with $rule does not report the failed call"; }
    [ "$(tail -n 1 "$log")" = "$last" ] || fail "$name with $rule went on after the failed call"
    index=$((index + 1)) programs=$((programs + 1))
    echo "test-dropin: $name: $(wc -l < "$work/$name.referenced") NVIDIA symbols, no NVIDIA library needed;" \
         "ran on the mocks of $(echo "$RELEASES" | sed 's/ /, /g'); stops at $rule"
done

# The examples' twins with NVIDIA's names (TWINS: the programs make built from generated/examples/nvidia/,
# generator/twins.py, into BUILD/examples/nvidia/: compiled unchanged against NVIDIA's headers, linked
# with the drop-in alone): no NVIDIA library needed, every CUDA symbol from the drop-in. On each
# release's mocks the driver loads through cubind and sees no GPU, so each stops at its GPU check:
# it exits 77 and says SKIP, after its device count query (cuDeviceGetCount, cudaGetDeviceCount: those
# it references) reached the mocks. TWIN_MPI (the MPI build of allreduce_launcher's twin, where MPI
# is found): built and linked the same, not run (MPI starts its ranks: tests/launcher/run.sh).
# tests/gpu/dropin.sh runs them on a GPU, on CUDA 13.0's libraries and with 12.4's runtime.
twins=0
mkdir -p "$work/examples"
for program in $TWINS ${TWIN_MPI:-}; do
    name=$(basename "$program")
    [ -x "$program" ] || fail "the twin $program was not built"
    readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' > "$work/examples/$name.needed"
    for soname in $SONAMES; do
        if grep -qxF "$soname" "$work/examples/$name.needed"; then fail "the twin $name needs $soname"; fi
    done
    nm -D --undefined-only "$program" | awk '{print $2}' > "$work/examples/$name.undefined"
    grep -qx 'libcubind-dropin\.so\.[0-9]*' "$work/examples/$name.needed" || fail "the twin $name does not need libcubind-dropin"
    sed -n "s/@$node\$//p" "$work/examples/$name.undefined" | LC_ALL=C sort -u > "$work/examples/$name.referenced"
    if grep -v "@$node\$" "$work/examples/$name.undefined" | sed 's/@.*//' | grep -xF -f "$work/exports.txt"; then
        fail "the twin $name takes the CUDA symbols above from elsewhere than the drop-in ($node)"
    fi
    twins=$((twins + 1))
    [ "$program" != "${TWIN_MPI:-}" ] || continue
    queries=$(grep -x -e cuDeviceGetCount -e cudaGetDeviceCount "$work/examples/$name.referenced" || true)
    [ -n "$queries" ] || fail "the twin $name references no device count query"
    for release in $RELEASES; do
        log="$work/examples/$name-$release.log"
        set +e; LD_LIBRARY_PATH="$mocks/$release" CUBIND_MOCK_LOG="$log" "$program" > "$work/examples/$name-$release.out" 2>&1
        status=$?; set -e
        [ "$status" -eq 77 ] && grep -q "^$name: .*SKIP" "$work/examples/$name-$release.out" ||
            { cat "$work/examples/$name-$release.out"; fail "the twin $name exits $status on the mocks of CUDA $release, not 77 (no GPU)"; }
        for query in $queries; do
            grep -qx "$query" "$log" || fail "the twin $name's $query did not reach the mocks of CUDA $release"
        done
    done
done
[ "$twins" -gt 0 ] || fail "no example twin built (TWINS)"
echo "test-dropin: $twins programs of the examples' twins with NVIDIA's names built with the drop-in alone" \
     "($(for p in $TWINS ${TWIN_MPI:-}; do basename "$p"; done | tr '\n' ' ' | sed 's/ $//')); on the mocks of each release" \
     "they reach the driver and skip (no GPU)${TWIN_MPI:+; the MPI build not run}"

# A rule the mocks cannot read stops the program at its first call, saying why (exit status 78).
set +e; LD_LIBRARY_PATH="$mocks/$newest" CUBIND_MOCK_STATUS="cudaMalloc#x=2" "$work/runtime_memcpy" > "$work/bad.out" 2>&1
status=$?; set -e
[ "$status" -eq 78 ] || { cat "$work/bad.out"; fail "a bad CUBIND_MOCK_STATUS exits $status, not 78"; }
grep -q 'rule 1 "cudaMalloc#x=2": the call number' "$work/bad.out" || { cat "$work/bad.out"; fail "a bad CUBIND_MOCK_STATUS is not reported"; }

# Interposition, on the real libraries (docs/dropin.md): the drop-in is in the program's global
# scope, which the dynamic loader searches first for the libraries cubind opens; their references
# to each other's exports (cublasLtMatmul@libcublasLt.so.13 in libcublas) name the real soname's
# version node, which the drop-in's definitions (CUBIND_DROPIN_*) do not satisfy.
$CC $warnings -isystem "$CUDA_PATH/include" "$here/real/interposition.c" -o "$work/interposition" \
    -L"$libdir" -lcubind-dropin -Wl,-rpath,"$libdir"
LD_DEBUG=bindings LD_DEBUG_OUTPUT="$work/bindings" "$work/interposition" > "$work/interposition.out"
cat "$work/bindings".* > "$work/bindings.txt"
# "binding file <from> [0] to <to> [0]: normal symbol `<symbol>' [<version>]", for the drop-in's exports
sed -n "s/.*binding file \([^ ]*\) \[[0-9]*\] to \([^ ]*\) \[[0-9]*\]: normal symbol \`\([^']*\)'.*/\1 \2 \3/p" \
    "$work/bindings.txt" | awk 'NR == FNR {exported[$1] = 1; next} ($3 in exported)' "$work/exports.txt" - \
    > "$work/exported-bindings.txt"
grep -v "^$work/interposition " "$work/exported-bindings.txt" > "$work/library-bindings.txt" ||
    fail "no NVIDIA library bound a symbol the drop-in exports: were the real libraries loaded? $(cat "$work/interposition.out")"
if grep 'libcubind-dropin' "$work/library-bindings.txt"; then
    fail "the NVIDIA libraries above bound their references to the drop-in"
fi
bound=$(wc -l < "$work/library-bindings.txt")
printf '%s\n' "$prose" | grep -q "all $bound of their references" || fail "$DOC does not say that all $bound references bound to NVIDIA's libraries"
echo "test-dropin: the real libraries' $bound references to names the drop-in exports" \
     "bound to NVIDIA's own ($(awk '{print $1}' "$work/library-bindings.txt" | sed 's#.*/##' | LC_ALL=C sort -u | tr '\n' ' ' | sed 's/ $//'))"

# nvcc: a kernel launched with <<<...>>> (docs/dropin.md). The registration and launch entry points
# come from libcudart, every runtime API call from the drop-in, and reaches cubind (traced).
if [ -n "${NVCC:-}" ]; then
    "$NVCC" -cudart=shared -o "$work/kernel" "$here/kernel.cu" -L"$libdir" -lcubind-dropin \
        -Xlinker -rpath,"$libdir" > "$work/kernel.cc.log" 2>&1 || { cat "$work/kernel.cc.log"; fail "nvcc"; }
    nm -D --undefined-only "$work/kernel" | awk '{print $2}' > "$work/kernel.undefined"
    grep -q "^cudaMalloc@$node\$" "$work/kernel.undefined" || fail "the nvcc program's cudaMalloc is not the drop-in's"
    private=$(grep -c '^__cuda[A-Za-z]*@libcudart\.so\.' "$work/kernel.undefined" || true)
    [ "$private" -gt 0 ] || fail "the nvcc program takes no registration entry point from libcudart"
    if grep -v '^__cuda' "$work/kernel.undefined" | grep '@libcudart'; then fail "the nvcc program takes the above from libcudart"; fi
    CUBIND_TRACE=1 "$work/kernel" > "$work/kernel.out" 2>&1 || { cat "$work/kernel.out"; fail "the nvcc program failed"; }
    grep -q 'cubind-trace: .* runtime cudaMalloc(' "$work/kernel.out" || { cat "$work/kernel.out"; fail "the nvcc program's cudaMalloc did not reach cubind"; }
    echo "test-dropin: kernel.cu (nvcc -cudart=shared): $private registration and launch entry points from libcudart, cudaMalloc through cubind"

    # The same program on the mocks of each release (docs/mocks.md): linked with that release's
    # libcudart (the releases cache; the toolkit's for the newest), its registration and launch
    # calls reference that release's version node (libcudart.so.12, ...), which the mock defines,
    # and are among the calls generator/libraries.toml's `nvcc` says that release's nvcc emits; the
    # mock records them (the launch after the pop of its configuration). This nvcc stands in for
    # each release's: where a release's list lacks a launch entry point the newest's has, the
    # program is built with __NV_LEGACY_LAUNCH (the launch through cudaLaunchKernel, as 11.8's nvcc
    # generates it).
    /usr/bin/python3 - "$here/../../generator/libraries.toml" "$NVCC_LIBRARY" > "$work/nvcc-entries.txt" <<'PY'
import sys, tomllib
library = next(l for l in tomllib.load(open(sys.argv[1], "rb"))["library"] if l["name"] == sys.argv[2])
for entry in library["nvcc"]:
    print(entry["symbol"], entry["mock"], " ".join(entry["releases"]))
PY
    newest_launch=$(awk -v r="$newest" '$2 == "status" { for (i = 3; i <= NF; ++i) if ($i == r) print $1 }' "$work/nvcc-entries.txt")
    for pair in $NVCC_SONAMES; do
        release=${pair%%:*} soname=${pair#*:}
        awk -v r="$release" '{ for (i = 3; i <= NF; ++i) if ($i == r) print $1, $2 }' "$work/nvcc-entries.txt" > "$work/nvcc-$release.entries"
        program="$work/kernel-$release" link="" legacy=""
        if [ "$release" != "$newest" ]; then
            link="$work/cudart-$release"
            mkdir -p "$link"
            [ -e "$RELEASES_CACHE/$release/lib/$soname" ] || fail "CUDA $release's $soname is not in $RELEASES_CACHE (make fetch-release-libs)"
            ln -sf "$RELEASES_CACHE/$release/lib/$soname" "$link/$(echo "$soname" | sed 's/\.so\..*/.so/')"
            link="-L$link"
        fi
        for symbol in $newest_launch; do
            grep -q "^$symbol " "$work/nvcc-$release.entries" || legacy="-D__NV_LEGACY_LAUNCH -Xcompiler -D__NV_LEGACY_LAUNCH"
        done
        # shellcheck disable=SC2086 # the flags are meant to split
        "$NVCC" $legacy -cudart=shared -o "$program" "$here/kernel.cu" $link -L"$libdir" -lcubind-dropin \
            -Xlinker -rpath,"$libdir" > "$program.cc.log" 2>&1 || { cat "$program.cc.log"; fail "nvcc for CUDA $release"; }
        nm -D --undefined-only "$program" | awk '{print $2}' > "$program.undefined"
        grep '^__cuda' "$program.undefined" > "$program.entries" ||
            fail "the nvcc program for CUDA $release references no entry point of libcudart"
        while read -r reference; do
            symbol=${reference%%@*}
            [ "${reference#*@}" = "$soname" ] || fail "the nvcc program for CUDA $release references $reference, not of $soname"
            grep -q "^$symbol " "$work/nvcc-$release.entries" ||
                fail "nvcc emits $symbol for CUDA $release: generator/libraries.toml's nvcc list of $release lacks it"
        done < "$program.entries"
        log="$program.log"
        LD_LIBRARY_PATH="$mocks/$release" CUBIND_MOCK_LOG="$log" "$program" > "$program.out" 2>&1 ||
            { cat "$program.out"; fail "the nvcc program fails on the mocks of CUDA $release"; }
        grep -q '^kernel: cudaMalloc 0$' "$program.out" || { cat "$program.out"; fail "the nvcc program on CUDA $release's mocks"; }
        for symbol in $(awk '$2 == "handle" || $2 == "push" || $2 == "pop" {print $1}' "$work/nvcc-$release.entries"); do
            grep -qx "$symbol" "$log" || fail "on CUDA $release's mocks, the nvcc program's $symbol was not recorded"
        done
        pop=$(awk '$2 == "pop" {print $1}' "$work/nvcc-$release.entries")
        launch=$(grep -A1 -x "$pop" "$log" | tail -n 1)
        sed 's/@.*//' "$program.undefined" | grep -qx "$launch" ||
            fail "on CUDA $release's mocks, the call after $pop is $launch, not a launch the program references"
        echo "test-dropin: kernel.cu for CUDA $release${legacy:+ (__NV_LEGACY_LAUNCH)}: $(wc -l < "$program.entries") entry points of $soname," \
             "on its mocks: registered, configured and launched ($launch)"
    done
fi
echo "test-dropin: $exported exports, the IR's symbols; $programs programs, $calls calls recorded on the mocks of CUDA $newest"
