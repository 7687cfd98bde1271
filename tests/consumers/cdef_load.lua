-- tests/consumers/cdef_load.lua FILE... - ffi.cdef each file, in order, into this one LuaJIT state
-- (as a program loading cdef/common.h and then module files does); fails naming the file refused.
local ffi = require("ffi")
for _, path in ipairs(arg) do
    local file = assert(io.open(path))
    local ok, err = pcall(ffi.cdef, file:read("*a"))
    file:close()
    if not ok then
        io.stderr:write(string.format("%s (after %d other files): %s\n", path, _ - 1, err))
        os.exit(1)
    end
end
