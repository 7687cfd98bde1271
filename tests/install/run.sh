#!/bin/sh
# tests/install/run.sh WORK LIBRARY VERSION - `make install` and `make install-strip` as a packager
# runs them, after `make`. LIBRARY is the built libcubind.so.X.Y.Z. Environment: MAKE (with this
# build's variables), COMPILERS (the commands that compile: none may run), CC, CFLAGS, LDFLAGS.
#
# - A dry run of either shows no compiler, no package manager, no sudo and no cmake; run for real,
#   with those commands replaced on PATH by traps that fail, they write what they must.
# - install keeps the library as built (debug information included); install-strip leaves no
#   debug information in the library, the archive or the probe, and the same exported symbols.
# - The stripped tree is all a program needs (tests/install_check.c, the probe); the documentation
#   is installed; the CMake package answers version requests as CMake's SameMinorVersion does.
set -eu
work=$1 library=$2 version=$3
here=$(cd "$(dirname "$0")" && pwd)
realname=$(basename "$library")
# The make above runs this script as a plain command, not as a recursive make: its jobserver is not
# ours to use, so the makes below run one job at a time (they only copy files).
MAKEFLAGS=$(printf '%s' "${MAKEFLAGS:-}" | sed -e 's/ -j[0-9]*//g' -e 's/ --jobserver-[^ ]*//g')
export MAKEFLAGS
fail() { echo "test-install: $*"; exit 1; }

rm -rf "$work"
mkdir -p "$work/traps"

# --- dry runs --------------------------------------------------------------------------------------
forbidden="sudo|su|doas|apt-get|apt|aptitude|dpkg|dpkg-query|cmake|sh tools/install-deps.sh"
for goal in install install-strip; do
    $MAKE -n "$goal" PREFIX="$work/dry" > "$work/dry-$goal.txt"
    for compiler in $COMPILERS; do
        if grep -E "^$compiler " "$work/dry-$goal.txt"; then fail "make $goal compiles (above)"; fi
    done
    if grep -E "^($forbidden)( |$)" "$work/dry-$goal.txt"; then fail "make $goal runs a package manager, sudo or cmake (above)"; fi
done

# --- for real, with traps --------------------------------------------------------------------------
for command in sudo su doas apt-get apt aptitude dpkg dpkg-query cmake; do
    printf '#!/bin/sh\necho "%s $*" >> "%s/trapped.txt"\nexit 1\n' "$command" "$work" > "$work/traps/$command"
    chmod +x "$work/traps/$command"
done
PATH="$work/traps:$PATH" $MAKE install PREFIX="$work/plain" > "$work/install.log"
PATH="$work/traps:$PATH" $MAKE install-strip PREFIX="$work/strip" > "$work/install-strip.log"
[ ! -e "$work/trapped.txt" ] || { cat "$work/trapped.txt"; fail "make install ran the commands above"; }

# --- debug information -----------------------------------------------------------------------------
cmp -s "$library" "$work/plain/lib/$realname" || fail "make install changed the library it copied"
debug_sections() { readelf -S -W "$1" | grep -c -E ' \.(z)?debug_' || true; }
[ "$(debug_sections "$work/plain/lib/$realname")" -gt 0 ] ||
    echo "test-install: note: the library was built without debug information (CFLAGS has no -g)"
for file in "lib/$realname" lib/libcubind.a bin/cubind-probe; do
    n=$(debug_sections "$work/strip/$file")
    [ "$n" -eq 0 ] || fail "make install-strip left $n debug sections in $file"
done
exports() { nm -D --defined-only "$1" | awk '{print $3}' | LC_ALL=C sort; }
exports "$library" > "$work/exports-built.txt"
exports "$work/strip/lib/$realname" > "$work/exports-stripped.txt"
cmp -s "$work/exports-built.txt" "$work/exports-stripped.txt" || fail "install-strip changed the exported symbols"
[ "$(readlink "$work/strip/lib/libcubind.so")" = "$(readlink "$work/plain/lib/libcubind.so")" ] ||
    fail "install-strip installed other links than install"

# --- the stripped tree in use ----------------------------------------------------------------------
# shellcheck disable=SC2086 # the flags are meant to split
$CC $CFLAGS -I"$work/strip/include" "$here/../install_check.c" -o "$work/use" \
    -L"$work/strip/lib" -lcubind -Wl,-rpath,"$work/strip/lib" $LDFLAGS
"$work/use"
"$work/strip/bin/cubind-probe" > /dev/null
for doc in README.md CHANGES.md docs/index.md docs/api/README.md generated/docs/libraries.md examples/sgemm.c; do
    [ -s "$work/strip/share/doc/cubind/$doc" ] || fail "share/doc/cubind/$doc is not installed"
done

# --- the CMake package's version file --------------------------------------------------------------
cmake -S "$here/versions" -B "$work/versions" -DCMAKE_PREFIX_PATH="$work/strip" -DVERSION="$version" \
    > "$work/versions.log" 2>&1 || { cat "$work/versions.log"; fail "the CMake package answers a version request wrongly"; }
sed -n 's/^-- versions: //p' "$work/versions.log"
echo "test-install: install and install-strip run no compiler, package manager, sudo or cmake;" \
     "install-strip leaves no debug information; the stripped tree builds and runs a program"
