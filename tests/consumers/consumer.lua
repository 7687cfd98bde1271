-- tests/consumers/consumer.lua PREFIX [NAME...] - LuaJIT through share/cubind/cdef/NAME.h, each file
-- in order into this one FFI state (default: cubind, the whole; or common and module files); see consumer.c.
local ffi = require("ffi")
local prefix = assert(arg[1], "usage: luajit consumer.lua PREFIX [NAME...]")
local names = { select(2, unpack(arg)) }
if #names == 0 then names = { "cubind" } end
for _, name in ipairs(names) do
    local file = assert(io.open(prefix .. "/share/cubind/cdef/" .. name .. ".h"))
    ffi.cdef(file:read("*a"))
    file:close()
end
local cubind = ffi.load(prefix .. "/lib/libcubind.so")

local function str(p) return p ~= nil and ffi.string(p) or "-" end

io.write(string.format("cubind %s, %d libraries\n", ffi.string(cubind.cubind_version()), cubind.CUBIND_LIBRARY_COUNT))
for lib = 0, cubind.CUBIND_LIBRARY_COUNT - 1 do
    local info = ffi.new("struct cubind_library_info")
    info.size = ffi.sizeof(info) -- the caller says how much it has
    local kind = cubind.cubind_library_info(lib, info)
    io.write(string.format("%s: kind %d found %d soname %s version %s functions %d missing %d\n",
        ffi.string(cubind.cubind_library_name(lib)), tonumber(kind), info.found, str(info.soname),
        str(info.version_text), tonumber(info.functions), tonumber(info.functions_missing)))
end
cubind.cubind_clear_error()
local version = ffi.new("int[1]")
local status = cubind.cubind_curand_get_version(version)
local e = cubind.cubind_last_error()
io.write(string.format("curandGetVersion: status %d kind %d library %s function %s status_name %s message %s\n",
    tonumber(status), tonumber(e.kind), str(e.library_name), str(e["function"]), str(e.status_name),
    ffi.string(e.message)))
