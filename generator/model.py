"""Turn the IR of every unit into what the templates render: libraries, modules,
type groups (one per NVIDIA header, with the guard that tells whether it was
included) and the shared CUDA types."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from . import answers, api, cplusplus, header_closure, release_calls, release_rules, typesel
from .config import Config, ConfigError, Library, Module
from .ctext import spaced
from .names import check_names, cubind_name
from .parse import SKIP_CXX_OVERLOAD


@dataclass
class TypeGroup:
    header: str                 # NVIDIA header the declarations come from
    guard: str                  # macro defined when that header was included
    cplusplus_class: bool       # C++ classes: declared opaque in C, skipped in C++ after NVIDIA's header
    entries: list[dict] = field(default_factory=list)
    constants: list[dict] = field(default_factory=list)
    literals: list[dict] = field(default_factory=list)  # floating, string and pointer constants
    # NVIDIA's static inline functions of the header, in cubind's copy: {name, line, declarator, body}
    functions: list[dict] = field(default_factory=list)


@dataclass
class ModuleModel:
    module: Module
    unit: str
    header_version: str
    functions: list[dict]
    groups: list[TypeGroup]
    type_includes: list[str]      # other cubind *_types.h headers this module's types need
    standard_headers: list[str]
    helpers: list[dict] = field(default_factory=list)  # NVIDIA's inline helpers and C++ overloads, on cubind
    owner: LibraryModel | None = None  # the library its functions are in (their slots: the inline form)
    # what its NVIDIA counterpart reaches (header_closure): the shared headers' files
    # (cubind/cuda_types_*.h) and the C library headers it includes, no more
    shared_includes: list[str] = field(default_factory=list)
    system_includes: list[str] = field(default_factory=list)
    # the C library's structures its declarations take by pointer that those headers do not declare
    # (typesel.STANDARD_STRUCTS): their tags, declared incomplete
    standard_tags: list[str] = field(default_factory=list)
    counterpart: list[str] = field(default_factory=list)  # NVIDIA's headers a program includes instead
    # the shared files of the unit's inline_headers (vector_functions.h), which the module header
    # includes after its types header
    inline_includes: list[str] = field(default_factory=list)
    # the other modules' cubind types headers its types header includes: a module's <name>_types.h,
    # or, for a module split per NVIDIA header (header_files), the files of the headers reached only
    type_files: list[str] = field(default_factory=list)
    # a module whose headers another module's counterpart reaches, when it has several: one file per
    # NVIDIA header ({header, file, groups, system, includes}), included by <name>_types.h, so that
    # a header reaching cuda.h does not bring in cudaProfiler.h too (_split_per_header)
    header_files: list[dict] = field(default_factory=list)
    cplusplus: list[dict] = field(default_factory=list)  # NVIDIA's C++ templates and overloads (generator/cplusplus.py)


@dataclass
class LibraryModel:
    library: Library
    # module by module in configuration order, each in IR order; a function's index is its symbol
    # slot (a module added to a library takes the slots after the others': slots_aliases())
    functions: list[dict]
    modules: list[str]
    header_version: str
    status_constants: list[dict]  # every value of the status enum
    first_call: dict | None = None    # tests: a status-returning function callable with zeros (not the version query)
    missing_call: dict | None = None  # tests: one the half mock (even slots only) lacks
    # tracing: the enums of the functions' parameters (and non-status results), each with its
    # lookup function's name and its constants, an alias of a value keeping the first name
    trace_enums: list[dict] = field(default_factory=list)
    trace_enum_of: dict[str, str] = field(default_factory=dict)  # type spelling -> lookup function
    slots_symbol: str = ""        # the inline form's exported pointer to the slots (slots_symbol())
    slot_of: dict[str, int] = field(default_factory=dict)  # cubind name -> its index in the slots
    # the released names of the slots whose layout is a beginning of this one (slots_aliases())
    slots_aliases: list[str] = field(default_factory=list)
    # per CUDA release read, what each call becomes there (generator/release_calls.py)
    release_plan: release_calls.ReleasePlan | None = None
    # the statuses the library documents as not failures (libraries.toml `informational`), by value:
    # {name, value, reason}; and every other status that is not success (the failures)
    informational: list[dict] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)
    # the failures that can mean "no usable GPU" (libraries.toml `no_gpu`), {name, value, reason};
    # and the other failures, which never say why no GPU can be used
    no_gpu: list[dict] = field(default_factory=list)
    not_gpu_failures: list[dict] = field(default_factory=list)
    # every function that returns no status, with its value when the call cannot be made and its
    # mock's answer (generator/answers.py); by C name; the other version getters by C name
    no_status: list[dict] = field(default_factory=list)
    no_status_of: dict[str, dict] = field(default_factory=dict)
    version_getters: dict[str, dict] = field(default_factory=dict)

    @property
    def mock_soname(self) -> str:
        """The soname its mocks carry: the newest of a major the bindings read (nvJPEG, read from
        12.4's headers, is libnvjpeg.so.12: a libnvjpeg.so.13 is refused, docs/releases.md)."""
        sonames = self.library.sonames
        if not self.library.soname_versioned or self.release_plan is None or not self.release_plan.releases:
            return sonames[0]
        newest = self.release_plan.releases[0].library_version[0]
        return next((s for s in sonames if int(s.split(".so.")[1].split(".")[0]) <= newest), sonames[0])


def slots_symbol(library_name: str, functions: list[dict]) -> str:
    """The name under which libcubind exports a library's slots to the inline form: it ends in a
    digest of the slots' layout (each index's symbol and type), so a program built against one
    layout cannot load a libcubind with another (undefined symbol) and call the wrong function."""
    layout = "\n".join(f"{f['symbol']} {f['returns']['type']} ({', '.join(p['type'] for p in f['params'])})"
                       for f in functions)
    return f"cubind_{library_name}_slots_{hashlib.sha256(layout.encode()).hexdigest()[:12]}"


# The exported ABI as released (tests/tests.mk test-exports compares the library with it).
ABI_BASELINE = Path(__file__).resolve().parent.parent / "abi" / "symbols.txt"


def released_symbols(path: Path = ABI_BASELINE) -> frozenset[str]:
    """The names libcubind exported when released (abi/symbols.txt without the version node)."""
    try:
        return frozenset(line.split("@", 1)[0] for line in path.read_text().split())
    except FileNotFoundError:
        return frozenset()


def slots_aliases(library_name: str, functions: list[dict], released: frozenset[str]) -> list[str]:
    """The released slots names of this library whose layout is a beginning of this one: functions
    added since then took the slots after the others, so a program built with CUBIND_INLINE against
    that release reads the same indices, and libcubind exports its slots under those names too
    (the ABI only grows)."""
    wanted = {name for name in released if name.startswith(f"cubind_{library_name}_slots_")}
    wanted.discard(slots_symbol(library_name, functions))
    found = []
    for count in range(len(functions)):
        if not wanted:
            break
        name = slots_symbol(library_name, functions[:count])
        if name in wanted:
            wanted.discard(name)
            found.append(name)
    return sorted(found)


def _as_first_bound(config: Config, functions: list[dict], function_irs: list[dict]) -> list[dict]:
    """The library's functions as its unit's first_release (libraries.toml) names them, where that
    release calls one with the same ABI under another symbol (`renamed`: nvml.h 12 calls
    nvmlDeviceGetDriverModel, 13's nvmlDeviceGetDriverModel_v2): the slots layout a program built
    when cubind read that release reads, which these slots serve as they are."""
    renamed = []
    for f, ir in zip(functions, function_irs):
        first = config.unit(ir["unit"]).first_release
        entry = (f.get("releases") or {}).get(first) if first else None
        renamed.append(f | {"symbol": entry["symbol"]} if entry and entry["compat"] == "renamed" else f)
    return renamed


@dataclass
class Model:
    config: Config
    irs: list[dict]
    cuda_version: str
    shared_groups: list[TypeGroup]
    modules: list[ModuleModel]
    libraries: list[LibraryModel]
    # A subset (generator/subset.py): modules whose types the kept ones use, emitted as their
    # *_types.h only, and the libraries kept (empty: every configured library).
    type_modules: list[ModuleModel] = field(default_factory=list)
    selection: tuple[str, ...] = ()
    # one cubind/cuda_types_*.h a shared NVIDIA header: {header, file, groups, system, includes}
    shared_files: list[dict] = field(default_factory=list)
    memo: dict = field(default_factory=dict, repr=False, compare=False)  # nvidia_needs' answers

    def nvidia_needs(self, header: str) -> dict:
        """What cubind's headers need before they #include NVIDIA's `header` rather than use their
        own copy of it: every NVIDIA header it reaches in C or C++ on the include path (`headers`,
        itself first), and none of their modules' CUBIND_SELF_CONTAINED_<MODULE> defined (`switches`).
        A toolkit lacking some headers (no nvml.h) then still compiles (templates/_macros.j2).
        `dependent`: the header does not compile alone (the IR's dependent_headers), so cubind's
        headers never include it themselves; `cplusplus`: only C++ can include it (one of them is
        a unit's cplusplus_only)."""
        if not self.memo:
            self.memo["graph"] = header_closure.include_graph(self.irs)
            self.memo["dependent"] = {h for ir in self.irs for h in ir.get("dependent_headers", [])}
            self.memo["needs"] = {}
        needs = self.memo["needs"].get(header)
        if needs is None:
            headers = header_closure.needed_headers(self.memo["graph"], header)
            switches = dict.fromkeys(m.self_contained_switch for h in headers
                                     if (m := self.config.module_of_header(h)) is not None)
            needs = self.memo["needs"][header] = {
                "headers": headers, "switches": list(switches), "dependent": header in self.memo["dependent"],
                "cplusplus": any(h in self.config.cplusplus_only_headers for h in headers)}
        return needs

    @property
    def cuda_version_number(self) -> int:
        """"13.0" as CUDA_VERSION spells it: 13000."""
        major, minor = (int(part) for part in self.cuda_version.split(".")[:2])
        return release_rules.cuda_number(major, minor)


def _key(entry: dict) -> tuple:
    return (entry["kind"], entry["name"], entry["typedef"])


def _declared_names(entry: dict) -> list[str]:
    return [n for n in (entry["name"], entry["typedef"]) if n]


def _groups(entries: list[tuple[dict, dict]], rank: dict[str, int]) -> list[TypeGroup]:
    """Entries (with the IR they came from) grouped by header, headers in rank order; each
    group's guard comes from its entry's IR."""
    groups: dict[tuple[str, bool], TypeGroup] = {}
    for entry, ir in entries:
        cxx = bool(entry.get("cplusplus_class"))
        key = (entry["header"], cxx)
        if key not in groups:
            groups[key] = TypeGroup(entry["header"], ir["guards"][entry["header"]], cxx)
        groups[key].entries.append(entry)
    return sorted(groups.values(), key=lambda g: (not g.cplusplus_class, rank[g.header]))


def _module_part_file(module: str, header: str) -> str:
    """cubind's file for one NVIDIA header of a module split per header (cuda.h of the driver ->
    driver_types_cuda.h)."""
    stem = header.removesuffix(".h").replace("/", "_").replace(".", "_")
    return f"{module}_types_{stem}.h"


def _split_per_header(config: Config, modules: list[ModuleModel], needed: dict[str, set[str]],
                      graph: dict[str, dict[str, list[str]]], shared_headers: list[str]) -> None:
    """Which cubind types headers each module's types header includes. A module with declarations
    from several NVIDIA headers, some of which another module's counterpart reaches, is split: one
    file per NVIDIA header (header_files), each bringing in what that header does; <name>_types.h
    includes them all, and a module reaching some of its headers includes those files only (NVIDIA's
    cupti.h includes cuda.h, not cudaProfiler.h; the driver module holds both)."""
    by_name = {m.module.name: m for m in modules}
    headers_of = {m.module.name: list(dict.fromkeys(g.header for g in m.groups)) for m in modules}
    split = {name for name, headers in headers_of.items() if len(headers) > 1
             and any(other != name and set(headers) & needed[other] for other in needed)}

    def part_includes(reached: set[str], owner: str, own_header: str) -> list[str]:
        """The cubind types files of the module headers `reached` from `owner`'s `own_header`:
        its own module's other parts, another split module's parts, another module's types."""
        out: list[str] = []
        for name in sorted({m.name for h in reached if (m := config.module_of_header(h)) is not None}):
            if name in split:
                out.extend(_module_part_file(name, h) for h in headers_of[name] if h in reached and h != own_header)
            elif name != owner and name in by_name:
                out.append(f"{name}_types.h")
        return out

    for module in modules:
        name = module.module.name
        module.type_files = [f for other in module.type_includes for f in
                             ([_module_part_file(other, h) for h in headers_of.get(other, []) if h in needed[name]]
                              if other in split else [f"{other}_types.h"])]
        if name not in split:
            continue
        for header in headers_of[name]:
            reached = header_closure.closure(graph, [header])
            module.header_files.append({
                "header": header, "file": _module_part_file(name, header),
                "groups": [g for g in module.groups if g.header == header],
                "system": header_closure.system_headers(graph, reached),
                "includes": [header_closure.shared_file(h) for h in shared_headers if h in reached]
                + part_includes(reached, name, header)})


def build(config: Config, irs: list[dict]) -> Model:
    check_names([f for ir in irs for f in ir["functions"]], api.hand_written_names())
    cuda_versions = {ir["cuda_version"] for ir in irs}
    cuda_versions_list = sorted(cuda_versions)
    if len(cuda_versions) != 1:
        raise ValueError(f"IR files come from different CUDA versions: {sorted(cuda_versions)}")

    # Header order: first appearance over all units, which respects every #include.
    rank: dict[str, int] = {}
    for ir in irs:
        for entry in ir["types"]:
            rank.setdefault(entry["header"], len(rank))
        for constant in [*ir["constants"], *ir.get("literal_constants", [])]:
            rank.setdefault(constant["header"], len(rank))

    owner_of_name: dict[str, str | None] = {}
    shared: dict[tuple, tuple[dict, dict]] = {}
    for ir in irs:
        for entry in ir["types"]:
            module = config.module_of_header(entry["header"])
            for name in _declared_names(entry):
                owner_of_name.setdefault(name, module.name if module else None)
            if module is None:
                shared.setdefault(_key(entry), (entry, ir))
    shared_entries = sorted(shared.values(), key=lambda pair: (rank[pair[0]["header"]], pair[0]["line"]))
    shared_groups = _groups(shared_entries, rank)
    _add_constants(shared_groups, [(ir, k, key) for ir in irs for key in ("constants", "literal_constants")
                                   for k in ir.get(key, []) if config.module_of_header(k["header"]) is None], rank)

    # a unit's inline_headers declare no type: a group of their own for their functions
    for ir in irs:
        for header in config.unit(ir["unit"]).inline_headers:
            if header in ir.get("inline_definitions", {}) and all(g.header != header for g in shared_groups):
                rank.setdefault(header, len(rank))
                shared_groups.append(TypeGroup(header, ir["guards"][header], False))
    _add_inline_definitions(shared_groups, irs)

    graph = header_closure.include_graph(irs)
    shared_headers = list(dict.fromkeys(g.header for g in shared_groups))
    shared_header_of = {n: entry["header"] for entry, _ in shared_entries for n in _declared_names(entry)}
    # headers of functions alone (vector_functions.h): a shared file needs none for its declarations;
    # a module header includes those its counterpart reaches itself (cuda_fp16.h's opaque copy, which
    # cusparse.h's names use, does not bring make_float2 in: NVIDIA's cusparse.h does not)
    functions_only = {g.header for g in shared_groups if g.functions} - \
        {g.header for g in shared_groups if g.entries or g.constants or g.literals}
    shared_files = []
    for header in shared_headers:
        reached = header_closure.closure(graph, [header])
        shared_files.append({"header": header, "file": header_closure.shared_file(header),
                             "groups": [g for g in shared_groups if g.header == header],
                             "system": header_closure.system_headers(graph, reached),
                             "includes": [header_closure.shared_file(h) for h in shared_headers
                                          if h in reached and h != header and h not in functions_only]})
    modules = []
    # every NVIDIA header a module's types header needs: its counterpart's reach and the headers of
    # the names it uses
    needed: dict[str, set[str]] = {}
    header_of_name = {n: entry["header"] for ir in irs for entry in ir["types"] for n in _declared_names(entry)}
    for ir in irs:
        unit = config.unit(ir["unit"])
        for module in unit.modules:
            own = set(module.headers)
            entries = [(e, ir) for e in ir["types"] if e["header"] in own]
            groups = _groups(entries, rank)
            _add_constants(groups, [(ir, k, key) for key in ("constants", "literal_constants")
                                    for k in ir.get(key, []) if k["header"] in own], rank)
            functions = [f for f in ir["functions"] if f["module"] == module.name]
            used = {n for e, _ in entries for n in e.get("uses", [])} | {n for f in functions for n in f["uses"]}
            counterpart = [h for h in module.headers if h in unit.headers] or list(module.headers)
            reached = header_closure.closure(graph, counterpart) | own
            # the unit's inline_headers: in the module header, not its types header, which other
            # modules' types headers include (NVIDIA's cusparse.h includes cuda_runtime_api.h alone)
            inline_reached = header_closure.closure(graph, unit.inline_headers) - reached
            counterpart = counterpart + list(unit.inline_headers)
            reached_modules = {m.name for h in reached if (m := config.module_of_header(h)) is not None}
            includes = sorted(({owner_of_name[n] for n in used if owner_of_name.get(n)} | reached_modules)
                              - {module.name})
            own_names = {n for e, _ in entries for n in _declared_names(e)}
            shared_used = reached | {shared_header_of[n] for n in used - own_names if n in shared_header_of}
            needed[module.name] = reached | {header_of_name[n] for n in used - own_names if n in header_of_name}
            modules.append(
                ModuleModel(module, ir["unit"], ir["header_version"], functions, groups, includes, ir["standard_headers"],
                            _helpers(ir, unit, module),
                            shared_includes=[header_closure.shared_file(h) for h in shared_headers if h in shared_used],
                            system_includes=header_closure.system_headers(graph, reached),
                            counterpart=counterpart,
                            inline_includes=[header_closure.shared_file(h) for h in shared_headers
                                             if h in inline_reached])
            )
            modules[-1].cplusplus = _cplusplus(ir, unit, module)
            modules[-1].standard_tags = [tag for h, tag in typesel.STANDARD_STRUCTS.items()
                                         if h in ir["standard_headers"] and h not in modules[-1].system_includes]
    _split_per_header(config, modules, needed, graph, shared_headers)

    enum_index = _type_index(irs)
    libraries = []
    module_rank = {m.name: i for i, m in enumerate(config.modules)}
    released = released_symbols()
    for library in config.libraries:
        pairs = sorted(((f, ir) for ir in irs for f in ir["functions"] if f["library"] == library.name),
                       key=lambda pair: module_rank[pair[0]["module"]])
        functions = [f for f, _ in pairs]
        function_irs = [ir for _, ir in pairs]
        unit_versions = {ir["header_version"] for ir in irs if any(f["library"] == library.name for f in ir["functions"])}
        status = _status_enum(irs, library.status_enum_type)
        callable_ = [(i, f) for i, f in enumerate(functions) if _callable_with_zeros(f)]
        # not the version query: the mocks answer that one with a version, not the status a test sets
        first = next((f for _, f in callable_ if f["name"] != library.version.function), None)
        missing = next((f for i, f in callable_ if i % 2 == 1 and f["name"] != library.version.function), None)
        trace_enums, trace_enum_of = _trace_enums(functions, enum_index)
        informational = _informational(library, status)
        failures = [c for c in status if c["name"] != library.status_success
                    and c["value"] not in {i["value"] for i in informational}]
        no_gpu = _listed_statuses(library, status, library.no_gpu, "no_gpu")
        libraries.append(
            LibraryModel(
                library,
                functions,
                sorted({f["module"] for f in functions}, key=[m.name for m in config.modules].index),
                "/".join(sorted(unit_versions)),
                status,
                first,
                missing,
                trace_enums,
                trace_enum_of,
                slots_symbol(library.name, functions),
                {f["cubind_name"]: i for i, f in enumerate(functions)},
                sorted({*slots_aliases(library.name, functions, released),
                        *slots_aliases(library.name, _as_first_bound(config, functions, function_irs), released)}),
                release_calls.plan(functions, function_irs, cuda_versions_list[0],
                                   _header_version_numbers(sorted(unit_versions))),
                informational,
                failures,
                no_gpu,
                [c for c in failures if c["value"] not in {n["value"] for n in no_gpu}],
            )
        )
    for lib in libraries:
        if lib.release_plan is not None:
            _check_cuda_from(lib.library, lib.release_plan)
        names = [r.name for r in lib.release_plan.releases] if lib.release_plan is not None else []
        found = answers.entries(lib.library, lib.functions, irs,
                                lambda type_name: _enum_constants(enum_index, type_name), names)
        lib.no_status, lib.no_status_of, lib.version_getters = found["no_status"], found["by_name"], found["versions"]
        known = {model_release.name for model_release in config.releases} | {cuda_versions_list[0]}
        for entry in lib.library.nvcc:
            if not set(entry.releases) <= known:
                raise ConfigError(f"library {lib.library.name}: nvcc {entry.symbol} names a release the generator "
                                  f"does not read: {', '.join(sorted(set(entry.releases) - known))}")
    by_library = {lib.library.name: lib for lib in libraries}
    for m in modules:
        m.owner = by_library[m.module.library]
    return Model(config, irs, cuda_versions.pop(), shared_groups, modules, libraries, shared_files=shared_files)


def _add_constants(groups: list[TypeGroup], constants: list[tuple[dict, dict, str]], rank: dict[str, int]) -> None:
    """Each (IR, constant, IR key) into the group of its header (made when the header has no
    types), once by name: units that include the same header each list its constants."""
    by_header = {g.header: g for g in groups if not g.cplusplus_class}
    seen: set[str] = set()
    for ir, constant, key in constants:
        if constant["name"] in seen:
            continue
        seen.add(constant["name"])
        group = by_header.get(constant["header"])
        if group is None:
            group = by_header[constant["header"]] = TypeGroup(constant["header"], ir["guards"][constant["header"]], False)
            groups.append(group)
        (group.constants if key == "constants" else group.literals).append(constant)
    groups.sort(key=lambda g: (not g.cplusplus_class, rank[g.header]))


def _check_cuda_from(library: Library, plan: release_calls.ReleasePlan) -> None:
    """Each release read lies in its own CUDA major by the library's `cuda` table (libraries.toml):
    a mistyped first version would call a library as another major's release."""
    for release in plan.releases if library.cuda_from else ():
        within = [cuda for first, cuda in library.cuda_from if first <= release.library_version]
        if within and within[-1] != int(release.name.split(".")[0]):
            raise ConfigError(f"{library.name}: version {'.'.join(map(str, release.library_version))} of CUDA "
                             f"{release.name} lies in CUDA {within[-1]} by its cuda table (libraries.toml)")


def _header_version_numbers(versions: list[str]) -> tuple[int, int, int]:
    """"13.1.0" (the first of a library's header versions) as (13, 1, 0); -1 for absent parts."""
    parts = [int(p) for p in (versions[0].split(".") if versions else []) if p.isdigit()][:3]
    return tuple(parts + [-1] * (3 - len(parts)))  # type: ignore[return-value]


C_KEYWORDS = frozenset({"sizeof", "return", "if", "switch", "while", "for", "case", "default", "do", "else"})


def _helpers(ir: dict, unit, module) -> list[dict]:
    """NVIDIA's static inline helpers and C++ overloads of this module, their bodies calling cubind's
    wrappers instead of the libraries (so a program using them needs only -lcubind). A helper whose
    body calls something cubind does not bind is left out."""
    rename = {}
    for f in ir["functions"]:
        rename[f["name"]] = rename[f["symbol"]] = f["cubind_name"]
    defined = [s for s in ir["skipped"] if s["definition"] is not None]
    publics = frozenset(f["name"] for f in ir["functions"])
    for s in defined:
        owner = unit.module_for_function(s["name"])
        if owner is not None:
            rename.setdefault(s["name"], cubind_name(owner.name, s["name"], owner.prefix, owner.exceptions, publics))
    helpers = []
    for s in defined:
        if unit.module_for_function(s["name"]) != module:
            continue
        body = s["definition"]["body"]
        calls = {t for t, after in zip(body, body[1:]) if after == "(" and (t[:1].isalpha() or t[:1] == "_")
                 and t not in C_KEYWORDS}
        if not calls <= set(rename):
            continue
        overload = s["reason"] == SKIP_CXX_OVERLOAD
        helpers.append({
            "name": s["name"],
            "cubind_name": rename[s["name"]],
            "header": s["header"],
            "line": s["line"],
            "cplusplus": overload or s["cplusplus_only"],
            "overload": overload,
            "returns": s["definition"]["returns"],
            "params": s["definition"]["params"],
            "body": _join([rename.get(t, t) for t in body]),
        })
    return helpers


def _cplusplus(ir: dict, unit, module) -> list[dict]:
    """NVIDIA's C++ definitions of this module (cplusplus.module_definitions), calling cubind's wrappers."""
    publics = frozenset(f["name"] for f in ir["functions"])
    rename = {}
    for f in ir["functions"]:
        rename[f["name"]] = rename[f["symbol"]] = f["cubind_name"]

    def name_of(owner, name: str) -> str:
        return cubind_name(owner.name, name, owner.prefix, owner.exceptions, publics)

    return cplusplus.module_definitions(ir, unit, module, rename, name_of, _join)


def _add_inline_definitions(groups: list[TypeGroup], irs: list[dict]) -> None:
    """NVIDIA's inline definitions of a shared header (the IR's `inline_definitions`) in cubind's
    copy of it: its functions after the group's declarations, and each structure's C++ members
    (`cplusplus_members`: standard -> definitions as text) inside the structure."""
    definitions: dict[str, dict] = {}
    for ir in irs:
        for header, entry in ir.get("inline_definitions", {}).items():
            merged = definitions.setdefault(header, {"functions": entry["functions"], "members": {}})
            merged["members"].update(entry["members"])
    for group in groups:
        entry = definitions.get(group.header)
        if group.cplusplus_class or entry is None:
            continue
        group.functions = [{"name": f["name"], "line": f["line"], "declarator": spaced(f["declarator"]),
                            "body": _join(f["body"])} for f in entry["functions"]]
        for i, record in enumerate(group.entries):
            members = entry["members"].get(record["name"]) if record["kind"] in ("struct", "union") else None
            if members:  # a copy: the entry is the IR's, written as it was read
                group.entries[i] = {**record, "cplusplus_members": {standard: [_member(tokens) for tokens in defined]
                                                                    for standard, defined in members.items()}}


def _member(tokens: list[str]) -> str:
    """A C++ member definition as one line: `constexpr dim3(unsigned int vx = 1) : x(vx) {}`."""
    body = tokens.index("{") if "{" in tokens else len(tokens)
    while body > 0 and tokens[body - 1] not in (")", "}", "const", "noexcept"):
        body = tokens.index("{", body + 1)   # a brace of an initializer (`x{v}`), not the body
    head = spaced(tokens[:body])
    rest = tokens[body:]
    return head + " " + ("{}" if rest == ["{", "}"] else "{ " + spaced(rest[1:-1]) + " }")


def _join(tokens: list[str]) -> str:
    """A body's tokens as C lines, without its outer braces: one statement a line, indented by block."""
    lines: list[str] = []
    line: list[str] = []
    depth, parens = 1, 0

    def end_line() -> None:
        if line:
            lines.append("    " * depth + spaced(line))
            line.clear()

    for token in tokens[1:-1]:
        if token == "}":
            end_line()
            depth -= 1
        line.append(token)
        parens += {"(": 1, ")": -1}.get(token, 0)
        if token == "{":
            end_line()
            depth += 1
        elif token == "}" or (token == ";" and parens == 0) or (token == ":" and line[0] in ("case", "default")):
            end_line()
    end_line()
    return "\n".join(lines)


def _callable_with_zeros(function: dict) -> bool:
    """Returns a status and takes only pointers, integers and enums (tests call it with zeros)."""
    return function["returns_status"] and all(p["category"] in ("pointer", "integer", "enum")
                                              for p in function["params"])


def _enum_constants(entries: dict[str, dict], type_name: str) -> tuple[str, list[dict]] | None:
    """The enum behind a type name (typedef'd or tagged, `const` ignored): its name and constants,
    an alias of a value keeping the first name; None when the type is no enum of `entries`."""
    name = type_name.replace("const ", "").removeprefix("enum ").strip()
    entry = entries.get(name)
    seen_typedefs: set[int] = set()
    while entry is not None and entry["kind"] == "typedef" and id(entry) not in seen_typedefs:
        seen_typedefs.add(id(entry))
        entry = entries.get(entry["underlying"].replace("const ", "").removeprefix("enum ").strip())
    if entry is None or entry["kind"] != "enum":
        return None
    seen: set[int] = set()
    unique = []
    for constant in entry["constants"]:
        if constant["value"] not in seen:
            seen.add(constant["value"])
            unique.append(constant)
    return entry["name"] or entry["typedef"], unique


def _status_enum(irs: list[dict], type_name: str) -> list[dict]:
    """The constants of the enum behind a status type name (typedef'd or tagged)."""
    for ir in irs:
        # a tag and a typedef of one name (typedef enum CUfileOpError {...} CUfileOpError): the tag's entry
        by_name = {n: e for e in ir["types"] for n in _declared_names(e)}
        by_name.update({n: e for e in ir["types"] if e["kind"] == "enum" for n in _declared_names(e)})
        found = _enum_constants(by_name, type_name)
        if found is not None:
            return found[1]
    raise ValueError(f"status type {type_name} is not an enum in any IR")


def _informational(library: Library, status: list[dict]) -> list[dict]:
    """The library's informational statuses (each a constant of its status enum, not success's value),
    with their values and reasons, in value order."""
    value_of = {c["name"]: c["value"] for c in status}
    success = value_of.get(library.status_success)
    found = []
    for name, reason in library.informational:
        if name not in value_of:
            raise ValueError(f"library {library.name}: informational status {name} is not a constant of "
                             f"{library.status_type}")
        if value_of[name] == success:
            raise ValueError(f"library {library.name}: informational status {name} has the value of "
                             f"{library.status_success}")
        found.append({"name": name, "value": value_of[name], "reason": reason})
    return sorted(found, key=lambda c: c["value"])


def _listed_statuses(library: Library, status: list[dict], listed, key: str) -> list[dict]:
    """The statuses `listed` ((name, reason) pairs of libraries.toml `key`), each a constant of the
    library's status enum, with their values and reasons, in value order."""
    value_of = {c["name"]: c["value"] for c in status}
    found = []
    for name, reason in listed:
        if name not in value_of:
            raise ValueError(f"library {library.name}: {key} status {name} is not a constant of {library.status_type}")
        found.append({"name": name, "value": value_of[name], "reason": reason})
    return sorted(found, key=lambda c: c["value"])


def _type_index(irs: list[dict]) -> dict[str, dict]:
    """Every named type of every IR by each of its names (the first declaration wins)."""
    index: dict[str, dict] = {}
    for ir in irs:
        for entry in ir["types"]:
            for name in _declared_names(entry):
                index.setdefault(name, entry)
    return index


def _trace_enums(functions: list[dict], index: dict[str, dict]) -> tuple[list[dict], dict[str, str]]:
    """The enums a library's traced calls name: those of enum parameters and of enum results that
    are not the status (cubind_status_name names those). Each gets a lookup function, generated once."""
    enums: dict[str, dict] = {}
    lookup_of: dict[str, str] = {}
    typed = [p for f in functions for p in f["params"] if p["category"] == "enum"]
    typed += [f["returns"] for f in functions if f["returns"]["category"] == "enum" and not f["returns_status"]]
    for t in typed:
        if t["type"] in lookup_of:
            continue
        found = _enum_constants(index, t["type"]) or _enum_constants(index, t["canonical"])
        if found is None:
            continue
        name, constants = found
        if name not in enums:
            enums[name] = {"name": name, "function": f"trace_enum_{len(enums)}", "constants": constants}
        lookup_of[t["type"]] = enums[name]["function"]
    return list(enums.values()), lookup_of
