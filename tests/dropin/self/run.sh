#!/bin/sh
# tests/dropin/self/run.sh WORK LIBDIR INCLUDE - a library calling its own export through the
# drop-in while cubind loads it (docs/dropin.md, "Interposition"; docs/reliability.md).
#
# LIBDIR holds libcubind-dropin.so and libcubind.so, INCLUDE cubind's public headers. Environment:
# CC, CFLAGS and LDFLAGS (a sanitizer's flags), RUN (a command the programs run under: valgrind),
# TOML (generator/libraries.toml), IR (the generated tree's ir/), SECONDS_MAX (each run's limit),
# DOC (docs/reliability.md, which must give the number of runs and libraries).
#
# A library not linked -Bsymbolic (NVML, NCCL) calls its own exports through the global scope,
# where the drop-in's forwarders come first: such a call comes back to cubind while cubind opens
# the library (its constructors run inside dlopen) or asks its version query (its init). It must
# reach the library's own definition, from the loading thread or from a thread the library starts
# and waits for, never an error, never a wait for the load (a deadlock: the run's time limit).
# For each library whose version query is "encoded" through an int * (the fixture's form:
# tests/dropin/self/library.c), a fixture of its soname answering its newest release's version, in
# each shape the library has: its constructor calls its own export, directly and from a thread it
# joins; with a version init, the init does, directly and from a thread it joins. A program linked
# with the drop-in calls the query by NVIDIA's name: it must answer, asked of the query. The fixtures
# of the thread shapes have a SysV hash table (DT_HASH), the others a GNU one (DT_GNU_HASH): cubind
# reads the definition from the object's own tables (loader/elf_symbol.h), either kind.
set -eu
work=$1 libdir=$2 include=$3
here=$(cd "$(dirname "$0")" && pwd)
limit=${SECONDS_MAX:-60}
fail() { echo "test-dropin-self: $*"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
warnings="-std=c11 -Wall -Wextra -Werror -pedantic"

# name soname query version init fini, "-" for none
/usr/bin/python3 - "$TOML" "$IR" > "$work/libraries.txt" <<'PY'
import json, sys, tomllib
from pathlib import Path
for library in tomllib.load(open(sys.argv[1], "rb"))["library"]:
    version = library.get("version", {})
    if version.get("kind") != "encoded" or version.get("returns") == "value":
        continue
    ir = json.loads((Path(sys.argv[2]) / f"{library['name']}.json").read_text())
    query = next(f for f in ir["functions"] if f["symbol"] == version["function"])
    if not query["returns_status"] or query["returns"]["category"] == "record" or len(query["params"]) != 1:
        continue  # the fixture's query returns a status and writes through one pointer
    newest = ir["releases"][0]["library_version"]
    number = sum(newest[part] * unit for part, unit in zip(("major", "minor", "patch"), version["encoding"]))
    print(library["name"], library["sonames"][0], version["function"], number,
          version.get("init", "-"), version.get("fini", "-"))
PY
[ -s "$work/libraries.txt" ] || fail "no library of $TOML has an encoded version query"

runs=0
while read -r name soname query number init fini; do
    # shellcheck disable=SC2086 # the flags are meant to split
    $CC $warnings $CFLAGS -I"$include" -DQUERY="$query" "$here/program.c" -o "$work/program-$name" \
        -L"$libdir" -Wl,--no-as-needed -lcubind-dropin -lcubind -Wl,-rpath,"$libdir" $LDFLAGS
    shapes="3 4"
    defines="-DQUERY=$query -DVERSION=$number"
    if [ "$init" != - ]; then
        shapes="1 2 3 4"
        defines="$defines -DINIT=$init -DFINI=$fini"
    fi
    for shape in $shapes; do
        case $shape in
            1) where="its version init ($init) calls its own export" hash=gnu ;;
            2) where="its version init ($init) calls its own export from a thread it joins" hash=sysv ;;
            3) where="its constructor calls its own export" hash=gnu ;;
            4) where="its constructor calls its own export from a thread it joins" hash=sysv ;;
        esac
        dir="$work/$name-$shape"
        mkdir -p "$dir"
        # shellcheck disable=SC2086
        $CC $warnings $CFLAGS -fPIC -shared $defines -DSHAPE="$shape" -Wl,-soname,"$soname" \
            -Wl,--hash-style="$hash" "$here/library.c" -o "$dir/$soname" -lpthread $LDFLAGS
        readelf -d "$dir/$soname" | grep -q "($(echo "$hash" | sed 's/gnu/GNU_HASH/; s/sysv/HASH/'))" ||
            fail "$dir/$soname has no $hash hash table"
        variable=CUBIND_$(echo "$name" | tr '[:lower:]' '[:upper:]')_PATH
        set +e
        # shellcheck disable=SC2086 # RUN is a command and its options
        env "$variable=$dir/$soname" timeout "$limit" ${RUN:-} "$work/program-$name" "$name" "$number" \
            > "$dir/out.txt" 2>&1
        status=$?
        set -e
        [ "$status" -ne 124 ] || fail "$name, $where: no answer within $limit s (a deadlock)"
        [ "$status" -eq 0 ] || { cat "$dir/out.txt"; fail "$name, $where: exit $status"; }
        echo "test-dropin-self: $(tail -n 1 "$dir/out.txt"); $where ($hash hash table)"
        runs=$((runs + 1))
    done
done < "$work/libraries.txt"
libraries=$(wc -l < "$work/libraries.txt")
# the prose without its fact markers (<!-- fact: ... -->, tests/docs/facts.py)
sed 's/<!--[^>]*-->//g' "$DOC" | grep -q "$runs runs of $libraries libraries" || fail "$DOC does not say $runs runs of $libraries libraries"
echo "test-dropin-self: $runs runs of $libraries libraries${RUN:+ under $(echo "$RUN" | cut -d' ' -f1)}"
