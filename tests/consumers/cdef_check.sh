#!/bin/sh
# tests/consumers/cdef_check.sh CC FILE... - the cdef files (every generated/cdef/* file: the whole,
# common.h, the module files and modules.txt, which lists the module files).
#
# Each header is flat (no preprocessor line, attribute, __extension__, include or C++). A header
# modules.txt does not list is loaded alone, common.h first and alone too; then common.h with each
# module file, and common.h with every module file one after another (in the listed order and
# reversed): each load is valid C11 (after the C library's headers that declare size_t, int64_t,
# FILE and bool) and accepted unchanged by LuaJIT's ffi.cdef and by cffi's cdef in one FFI state.
set -eu
cc=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
list='' common=''
for f in "$@"; do
    case $(basename "$f") in
        modules.txt) list=$f ;;
        common.h) common=$f ;;
    esac
done
[ -n "$list" ] && [ -n "$common" ] || { echo "cdef: modules.txt and common.h are not among the files given"; exit 1; }
dir=$(dirname "$list")
modules=$(grep -v -e '^#' -e '^$' "$list")
[ -n "$modules" ] || { echo "cdef: $list lists no module"; exit 1; }

# load NAME FILE... - the files, in order, as one C translation unit, one LuaJIT state, one cffi.FFI().
load() {
    name=$1
    shift
    cat "$@" | $cc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -include stddef.h -include stdint.h \
        -include stdio.h -include stdbool.h -x c - || { echo "cdef: $name: not valid C"; exit 1; }
    luajit "$here/cdef_load.lua" "$@" || { echo "cdef: $name: LuaJIT's ffi.cdef refuses it"; exit 1; }
    /usr/bin/python3 "$here/cdef_load.py" "$@" || { echo "cdef: $name: cffi's cdef refuses it"; exit 1; }
}

headers=0 alone=0
for f in "$@"; do
    case $f in *.h) ;; *) continue ;; esac
    headers=$((headers + 1))
    if grep -n -E '^[[:space:]]*#|__attribute__|__extension__|__declspec|extern "C"|_Alignas|alignas|\bnamespace\b|::' "$f"; then
        echo "cdef: $f: not flat (above)"; exit 1
    fi
    stem=$(basename "$f" .h)
    if [ "$f" != "$common" ] && ! printf '%s\n' "$modules" | grep -qxF "$stem"; then
        load "$f alone" "$f"
        alone=$((alone + 1))
    fi
done
load "$common alone" "$common"
count=0 files='' reversed=''
for m in $modules; do
    [ -f "$dir/$m.h" ] || { echo "cdef: $list lists $m, and $dir/$m.h is missing"; exit 1; }
    load "$common then $dir/$m.h" "$common" "$dir/$m.h"
    count=$((count + 1))
    files="$files $dir/$m.h"
    reversed="$dir/$m.h $reversed"
done
# shellcheck disable=SC2086 # the lists are of paths without spaces (generated names)
load "$common then every module file of $list" "$common" $files
# shellcheck disable=SC2086
luajit "$here/cdef_load.lua" "$common" $reversed || { echo "cdef: the module files in reverse order: LuaJIT refuses them"; exit 1; }
[ $((headers - alone - 1)) -eq "$count" ] || { echo "cdef: $((headers - alone - 1)) module headers given, $list lists $count"; exit 1; }
echo "cdef: $headers headers flat; $alone alone, common.h alone, common.h with each of the $count module files and with all of them (in both orders in LuaJIT): valid C11, accepted by LuaJIT ffi.cdef and cffi cdef"
