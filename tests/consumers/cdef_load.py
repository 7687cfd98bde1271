"""tests/consumers/cdef_load.py FILE... - cffi's cdef of each file, in order, into one cffi.FFI()
(as a program loading cdef/common.h and then module files does); fails naming the file refused."""
import sys

import cffi

ffi = cffi.FFI()
for count, path in enumerate(sys.argv[1:]):
    with open(path) as f:
        try:
            ffi.cdef(f.read())
        except cffi.CDefError as error:
            sys.exit(f"{path} (after {count} other files): {error}")
