#!/bin/sh
# tests/consumers/cdef_check.sh CC FILE... - each cdef header is flat (no preprocessor line,
# attribute, __extension__, include or C++), is valid C11 (after the C library's headers that
# declare size_t, int64_t and FILE), and is accepted unchanged by LuaJIT's ffi.cdef and by
# cffi's cdef.
set -eu
cc=$1
shift
for f in "$@"; do
    if grep -n -E '^[[:space:]]*#|__attribute__|__extension__|__declspec|extern "C"|_Alignas|alignas|\bnamespace\b|::' "$f"; then
        echo "cdef: $f: not flat (above)"; exit 1
    fi
    $cc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -include stddef.h -include stdint.h -include stdio.h \
        -x c "$f" || { echo "cdef: $f: not valid C"; exit 1; }
    luajit -e "local ffi = require('ffi'); local f = assert(io.open('$f')); ffi.cdef(f:read('*a'))" ||
        { echo "cdef: $f: LuaJIT's ffi.cdef refuses it"; exit 1; }
    /usr/bin/python3 -c "import cffi, sys; cffi.FFI().cdef(open(sys.argv[1]).read())" "$f" ||
        { echo "cdef: $f: cffi's cdef refuses it"; exit 1; }
done
echo "cdef: $# headers flat, valid C11, accepted by LuaJIT ffi.cdef and cffi cdef"
