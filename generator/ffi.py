"""Outputs for FFI authors and readers, rendered from the same model as the C headers:

- cdef/cubind.h (the whole), cdef/common.h and cdef/<module>.h (loaded together: common.h,
  then any modules), cdef/modules.txt (the module files): flat C declarations (typedefs, enums
  with explicit values, structs, prototypes; no preprocessor line, attribute or include) that
  LuaJIT's ffi.cdef and cffi's cdef accept unchanged (templates/cdef*.j2; what each file
  holds: cdef_groups.py);
- constants.json: every enum and integer #define with its value (ffi_constants.py);
- docs/api/<module>.md: the API reference of every wrapper (templates/api.md.j2), with
  whether the CUDA toolkit's own library exports its symbol (recorded in the IR at stage 1:
  record_toolkit_exports).

The hand-written part of the API (include/cubind/cubind.h: error record, library info,
loader functions) is read with libclang (flat_api.py), so both follow that header as it changes.
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

import jinja2

from . import irjson, rust
from .cdef_groups import COMMON, WHOLE, check_disjoint, declared_names, flat_groups, split, standard_structs
from .ffi_constants import constants
from .flat_api import hand_written
from .config import Config
from .model import Model


# --- what the toolkit's libraries export --------------------------------------------------------

def library_dirs(config: Config) -> tuple[str, ...]:
    """A toolkit's library folders on every configured platform ([[platform]] root_dirs), in order."""
    return tuple(dict.fromkeys(d for platform in config.platforms for d in platform.root_dirs))


def exported_functions(path: Path) -> set[str] | None:
    """Names of the functions an ELF shared object defines in its dynamic symbol table
    (global or weak), read with the standard library alone; None when it is not readable."""
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _dynamic_functions(data)
    except (OSError, ValueError, struct.error):
        return None


def _dynamic_functions(data: mmap.mmap) -> set[str] | None:
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:  # 64-bit little-endian only
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names: set[str] = set()
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind != 11:  # SHT_DYNSYM
            continue
        strtab = sections[link]
        for at in range(offset, offset + size, entsize or 24):
            st_name, st_info, _other, st_shndx = struct.unpack_from("<IBBH", data, at)
            bind, typ = st_info >> 4, st_info & 0xF
            if st_shndx == 0 or bind not in (1, 2) or typ not in (2, 10):  # defined FUNC/IFUNC
                continue
            start = strtab[4] + st_name
            names.add(data[start:data.find(b"\0", start)].decode())
    return names


def _toolkit_file(cuda_path: Path, soname: str, dirs: tuple[str, ...]) -> tuple[str, set[str] | None] | None:
    """The toolkit's file of `soname` (relative to `cuda_path`) and the functions it exports
    (None: not readable); None when the toolkit has no such file."""
    for directory in dirs:
        candidate = cuda_path / directory / soname
        if candidate.is_file():
            return f"{directory}/{soname}", exported_functions(candidate)
    return None


def record_toolkit_exports(config: Config, irs: list[dict], cuda_path: Path | None) -> None:
    """Each IR's `toolkit_exports` (stage 1, beside the headers): for each library it has functions
    of, the file of its newest soname in the toolkit and which of those functions' symbols the file
    does not export (`missing`; null when the file is not there or not readable). docs/api is
    rendered from it, so a tree rendered from the IR alone (a subset: --from-ir) says what the one
    rendered from the headers says, on a machine without the toolkit too."""
    for ir in irs:
        entries = []
        for library in config.libraries:
            symbols = [f["symbol"] for f in ir["functions"] if f["library"] == library.name]
            if not symbols:
                continue
            soname = library.sonames[0]
            found = _toolkit_file(cuda_path, soname, library_dirs(config)) if cuda_path is not None else None
            exported = found[1] if found else None
            entries.append({"library": library.name, "soname": soname, "path": found[0] if found else None,
                            "missing": None if exported is None else sorted(set(symbols) - exported)})
        ir["toolkit_exports"] = entries


def census(model: Model) -> dict[str, dict]:
    """For each library, from the IR's toolkit_exports: the file of its newest soname in the
    toolkit and the symbols of its functions that file exports ({"soname", "path", "symbols"};
    symbols None when the file was not there)."""
    result = {}
    for library in model.libraries:
        name = library.library.name
        entries = [e for ir in model.irs for e in ir.get("toolkit_exports", ()) if e["library"] == name]
        symbols = None
        if entries and all(e["missing"] is not None for e in entries):
            missing = {s for e in entries for s in e["missing"]}
            symbols = {f["symbol"] for ir in model.irs for f in ir["functions"] if f["library"] == name} - missing
        result[name] = {
            "soname": entries[0]["soname"] if entries else library.library.sonames[0],
            "path": entries[0]["path"] if entries else None,
            "symbols": symbols,
        }
    return result


def render(env: jinja2.Environment, model: Model, common: dict, out: dict[str, str]) -> dict[str, str]:
    """cdef/*, constants.json and docs/api/*.md (paths relative to generated/)."""
    files: dict[str, str] = {}
    api = hand_written(out["include/cubind/libraries.h"])
    names = [m.module.name for m in model.modules]
    if COMMON in names or WHOLE in names:
        raise ValueError(f"a module named {COMMON} or {WHOLE} would overwrite that cdef file")
    files[f"cdef/{WHOLE}.h"] = env.get_template("cdef.h.j2").render(common | {
        "modules": model.modules, "groups": flat_groups(model, model.modules), "api": api.declarations,
        "standard": standard_structs(model.modules),
    })
    parts = split(model)
    files[f"cdef/{COMMON}.h"] = env.get_template("cdef_common.h.j2").render(common | {
        "groups": parts.common, "api": api.declarations, "standard": standard_structs(model.modules),
    })
    module_cdef = env.get_template("cdef_module.h.j2")
    for module in model.modules:
        files[f"cdef/{module.module.name}.h"] = module_cdef.render(common | {
            "name": module.module.name, "modules": [module], "groups": parts.modules[module.module.name],
        })
    files["cdef/modules.txt"] = env.get_template("cdef_modules.txt.j2").render(common | {"modules": model.modules})
    # GCC's and Clang's `__extension__` before an anonymous member (generator/typesel.py) is no C an FFI
    # declaration parser reads (cffi's pycparser refuses it): the flat files leave it out
    for path in [p for p in files if p.startswith("cdef/") and p.endswith(".h")]:
        files[path] = files[path].replace("__extension__ ", "")
    check_disjoint({COMMON: declared_names(parts.common),
                    **{m.module.name: declared_names(parts.modules[m.module.name], m.functions) for m in model.modules}})
    generated_by = (f"the cubind generator {common['generator_version']} from the CUDA {model.cuda_version} headers; "
                    f"do not edit: change generator/ or templates/ and regenerate with {common['command']}")
    files["constants.json"] = irjson.dumps(constants(model, parts, api, generated_by)) + "\n"
    files.update(rust.render(env, model, common, {**out, **files}, api))  # rust/cubind-sys/
    exports = census(model)
    doc = env.get_template("api.md.j2")
    files["docs/api/README.md"] = env.get_template("api_index.md.j2").render(common | {"census": exports})
    for module in model.modules:
        files[f"docs/api/{module.module.name}.md"] = doc.render(common | {
            "m": module, "lib": model.config.library(module.module.library),
            "census": exports[module.module.library],
        })
    return files
