"""Load generator/libraries.toml into typed, read-only records."""

from __future__ import annotations

import fnmatch
import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path

CONFIG_PATH = Path(__file__).with_name("libraries.toml")


class ConfigError(Exception):
    """The configuration file is inconsistent."""


@dataclass(frozen=True)
class Module:
    name: str
    prefix: str
    library: str
    headers: tuple[str, ...]
    name_exceptions: tuple[tuple[str, str], ...] = ()

    @property
    def exceptions(self) -> dict[str, str]:
        return dict(self.name_exceptions)

    @property
    def self_contained_switch(self) -> str:
        """The macro that makes cubind's headers use their own copies of the module's NVIDIA headers
        (cusolverDn: CUBIND_SELF_CONTAINED_CUSOLVERDN), for a compiler that cannot tell whether a
        header is there (no __has_include) and a toolkit without it (docs/headers.md)."""
        return f"CUBIND_SELF_CONTAINED_{self.name.upper()}"


@dataclass(frozen=True)
class Exclusion:
    """Functions picked by name for a purpose of the configuration, with why."""
    pattern: str   # fnmatch pattern over C function names
    reason: str


@dataclass(frozen=True)
class Unit:
    name: str
    headers: tuple[str, ...]
    version_macros: tuple[str, ...]
    modules: tuple[Module, ...]
    include_dirs: tuple[str, ...] = ()
    exclude: tuple[Exclusion, ...] = ()
    caller_storage: tuple[Exclusion, ...] = ()
    # a toolkit may lack the unit's headers (a partial install: the CPU machines' CUDA 13.0 has no
    # nvjpeg.h): they are searched in the toolkit, then in the directory the generator is given
    # (--extra-include); where neither has them the unit is taken from the checked-in IR
    toolkit_may_lack: bool = False
    # the configured release cubind first read the unit from (nvJPEG: 12.4): every function it declares
    # stays bound, at its place in the library's slots (the inline form's ABI), one a newer release
    # removed `absent` there; the functions it lacks follow, in the newest release's order
    first_release: str | None = None
    # the unit's own version in each release, where its headers have no version macro (cufile.h): release
    # name -> "major.minor.patch" (cuFile 1.15.1 in CUDA 13.0): what a library's version query answers
    library_versions: tuple[tuple[str, str], ...] = ()
    # headers a C++ program takes besides the unit's (cuda_runtime.h): their templates, overloads
    # and C++-only inline helpers are repeated on cubind's wrappers (generator/cplusplus.py)
    cplusplus_headers: tuple[str, ...] = ()
    # headers the unit's header a program takes includes (cuda_runtime.h: vector_functions.h), whose
    # static inline functions (make_float2, make_cudaExtent, ...) cubind's module header repeats: its
    # counterpart includes them (generator/inline_copies.py)
    inline_headers: tuple[str, ...] = ()
    # feature-test macros of the C library that the unit's headers need of a program including them,
    # defined in its C parse: cufile.h spells glibc's loff_t, which <sys/types.h> declares only under
    # _DEFAULT_SOURCE (without it, clang reads the type as int). cubind's headers need none of them
    # (declarators.PRIVATE_TYPEDEFS)
    feature_macros: tuple[str, ...] = ()
    # headers of `headers` that only C++ can include although their declarations are C, each with the
    # C++ library headers it includes (cupti_profiler_host.h, <string>): the C parses read those as
    # empty files (tu.parse's stand_ins), so that the header's declarations are read, and checked, as
    # C and bound for C; cubind's headers include NVIDIA's header in C++ only
    cplusplus_only: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def library_version(self, release: str) -> str | None:
        """The unit's version in `release` by its library_versions, or None when not configured."""
        return dict(self.library_versions).get(release)

    @property
    def c_args(self) -> tuple[str, ...]:
        """The C parse's arguments beyond the configuration's: the feature macros, defined."""
        return tuple(f"-D{m}" for m in self.feature_macros)

    @property
    def stand_ins(self) -> tuple[str, ...]:
        """The C++ library headers its C parses read as empty files (cplusplus_only)."""
        return tuple(sorted({name for _, names in self.cplusplus_only for name in names}))

    def exclusion(self, name: str) -> Exclusion | None:
        """The configured exclusion that matches a function name, or None."""
        return next((e for e in self.exclude if fnmatch.fnmatchcase(name, e.pattern)), None)

    def caller_storage_of(self, name: str) -> Exclusion | None:
        """The `caller_storage` entry that matches a function name, or None: the function lays out
        the records behind its handle parameters in memory the caller allocated."""
        return next((e for e in self.caller_storage if fnmatch.fnmatchcase(name, e.pattern)), None)

    def module_for_function(self, name: str) -> Module | None:
        """The module whose prefix is the longest prefix of `name`."""
        best: Module | None = None
        for module in self.modules:
            if name.startswith(module.prefix) and (best is None or len(module.prefix) > len(best.prefix)):
                best = module
        return best

    @property
    def own_headers(self) -> tuple[str, ...]:
        return tuple(h for m in self.modules for h in m.headers)


@dataclass(frozen=True)
class Unbound:
    """Functions a library exports and a toolkit header declares that cubind does not bind, picked
    by name (an fnmatch pattern) or by the header that declares them, with why (tests/census)."""
    reason: str
    pattern: str | None = None   # over the exported symbol's name
    header: str | None = None    # fnmatch pattern over the declaring header, relative to an include dir

    def matches(self, symbol: str, headers: frozenset[str]) -> bool:
        """Whether it covers `symbol`, declared in `headers` (each relative to its include dir)."""
        if self.pattern is not None:
            return fnmatch.fnmatchcase(symbol, self.pattern)
        return bool(headers) and all(fnmatch.fnmatchcase(h, self.header or "") for h in headers)


VERSION_KINDS = ("property", "encoded", "major-minor", "file-name")


@dataclass(frozen=True)
class VersionQuery:
    """How a library reports its version: `property` a GetProperty-style function
    (libraryPropertyType, int *); `encoded` one integer (returned, or through an int * out-parameter)
    split by `encoding`: part i = value % encoding[i-1] / encoding[i] (13000 with [1000, 10] -> 13.0,
    22809 with [10000, 100, 1] -> 2.28.9); `major-minor` two out-parameters; `file-name` no function:
    the numbers after ".so." in the loaded file's real name."""
    kind: str
    function: str | None = None
    encoding: tuple[int, ...] = ()
    # statuses of the query that mean the file is not the library (the driver's link stub)
    refuse: tuple[tuple[str, str], ...] = ()
    # no-argument functions returning the library's status, called before the query (init) and after
    # it (fini), looked up in the same object as the query: NVML answers nothing before nvmlInit_v2,
    # and nvmlShutdown balances its reference count. A failing init is the query's failure.
    init: str | None = None
    fini: str | None = None


UNAVAILABLE_KINDS = ("text", "-status", "zero", "nothing")
MOCK_ANSWERS = ("name", "empty", "version", "argument", "constant", "zero")


@dataclass(frozen=True)
class NoStatus:
    """A function that returns no status (libraries.toml `no_status`): what its wrapper gives when the
    call cannot be made (`unavailable`, one of UNAVAILABLE_KINDS) and what its mock answers (`mock`,
    one of MOCK_ANSWERS), with why; `buffer` and `length` name the parameters a "text" goes into for
    a void function, `argument` the parameter a mock answers, `constant` the constant it answers."""
    function: str
    unavailable: str
    mock: str
    why: str
    buffer: str | None = None
    length: str | None = None
    argument: str | None = None
    constant: str | None = None


@dataclass(frozen=True)
class VersionGetter:
    """A function besides the version query that answers a version (libraries.toml `versions`): the
    library's (`of = "library"`) or CUDA's (`of = "cuda"`), as one encoded integer or by property."""
    function: str
    of: str
    kind: str
    encoding: tuple[int, ...] = ()


@dataclass(frozen=True)
class NvccEntry:
    """A function of the library that nvcc's generated code calls (libraries.toml `nvcc`): its
    prototype as the mocks define it, the releases whose nvcc emits it, what the mock does."""
    symbol: str
    returns: str
    params: tuple[str, ...]
    releases: tuple[str, ...]
    mock: str


@dataclass(frozen=True)
class Library:
    name: str
    id: int
    sonames: tuple[str, ...]
    status_type: str
    status_success: str
    status_missing_library: str
    status_missing_symbol: str
    version: VersionQuery
    # the soname's number is the library's major version (libcublas.so.13 is 13.x; libcuda.so.1 is not)
    soname_versioned: bool = True
    # one library for every CUDA release (the driver, libcuda.so.1): called strictly as the newest
    # release read that is not newer than it, and a function it lacks says which version it needs
    serves_every_release: bool = False
    # libraries that must come from the same CUDA release as this one
    coupled: tuple[str, ...] = ()
    # cuda = { "11.4.2" = "12" }: the first library version of a CUDA major (cuSOLVER 11.4.2 came
    # with CUDA 12.0), for a library whose major does not follow CUDA's; oldest first
    cuda_from: tuple[tuple[tuple[int, int, int], int], ...] = ()
    # statuses the library documents as not failures ("not ready yet"), each with why: returned
    # unchanged, never recorded as an error nor passed to the error handler
    informational: tuple[tuple[str, str], ...] = ()
    # statuses that can mean "no usable GPU", each with why: only their messages end with why no GPU
    # can be used here (loader/no_gpu.c)
    no_gpu: tuple[tuple[str, str], ...] = ()
    # where NVIDIA's pip wheels put it, relative to a site-packages directory ("nvidia/cu13/lib")
    wheel_dirs: tuple[str, ...] = ()
    # a CUDA root's directories besides lib64, lib and targets/<arch>/lib where the toolkit keeps it
    # (NVVM: "nvvm/lib64"): searched after those by the loader's CUDA root steps and by the probe
    root_dirs: tuple[str, ...] = ()
    # exported functions a toolkit header declares that cubind does not bind, with why
    unbound: tuple[Unbound, ...] = ()
    # a status that is a record (cuFile's CUfileError_t { CUfileOpError err; CUresult cu_err; }): the
    # member holding the library's status (`err`), whose enum is `status_enum`; the wrapper tests and
    # records that member and returns the record unchanged. None: the status is the enum itself.
    status_member: str | None = None
    status_enum: str | None = None
    # the record's second member telling more when the status is `when` (cu_err, the driver's CUresult,
    # when err is CU_FILE_CUDA_DRIVER_ERROR): (member, when, library naming its statuses)
    status_detail: tuple[str, str, str] | None = None
    # every function that returns no status: its value when the call cannot be made, its mock's answer
    no_status: tuple[NoStatus, ...] = ()
    # the functions besides `version` that answer a version (the mocks answer the release's)
    versions: tuple[VersionGetter, ...] = ()
    # NVIDIA's file exports every function in a version node named after its soname
    versioned_symbols: bool = False
    # the functions nvcc's generated code calls in it (the runtime's registration and launch)
    nvcc: tuple[NvccEntry, ...] = ()

    def unbound_reason(self, symbol: str, headers: frozenset[str]) -> str | None:
        """Why an exported function declared in `headers` is not bound, or None: it must be."""
        return next((u.reason for u in self.unbound if u.matches(symbol, headers)), None)

    def cuda_major_from(self, release: str) -> tuple[int, int, int]:
        """The first library version of CUDA release `release`'s major ("12.4": 12), or -1s when
        the configuration does not say (the library's own major then stands for CUDA's)."""
        major = int(release.split(".")[0])
        return next((first for first, cuda in self.cuda_from if cuda == major), (-1, -1, -1))

    @property
    def env_var(self) -> str:
        return f"CUBIND_{self.name.upper()}_PATH"

    @property
    def enum_name(self) -> str:
        return f"CUBIND_LIB_{self.name.upper()}"

    @property
    def file_stem(self) -> str:
        """The library's file as people name it, its newest soname before ".so" ("libcudart" for
        the runtime unit, "libcuda" for the driver): what generated comments and docs call it."""
        return self.sonames[0].split(".so")[0]

    @property
    def status_enum_type(self) -> str:
        """The enum whose constants are the statuses: the status type itself unless it is a record."""
        return self.status_enum or self.status_type

    def status_of(self, expression: str) -> str:
        """The C expression of the status held by `expression`, a value of the status type."""
        return f"({expression}).{self.status_member}" if self.status_member else expression

    def detail_of(self, expression: str) -> str:
        """The C expression of the status record's second member (status_detail) held by `expression`."""
        assert self.status_detail is not None
        return f"({expression}).{self.status_detail[0]}"


@dataclass(frozen=True)
class Locate:
    """A library cubind locates but does not bind ([[locate]]): its copies and their versions."""
    name: str
    sonames: tuple[str, ...]                  # newest first
    wheel_dirs: tuple[str, ...]               # relative to a site-packages directory
    version: VersionQuery
    root_dirs: tuple[str, ...] = ()           # a CUDA root's directories besides lib64, lib, targets/<arch>/lib
    returns_value: bool = False               # "encoded": the function returns the number (size_t)
    cuda_from_major: bool = False             # cuda = "major": the library's major is CUDA's
    cuda_of_major: tuple[tuple[int, int], ...] = ()  # cuda = { "12" = "13" }: library major -> CUDA major

    @property
    def stem(self) -> str:
        return self.sonames[0].split(".so")[0]


@dataclass(frozen=True)
class Package:
    """A Debian package, at an exact version."""
    name: str
    version: str

    @property
    def pinned(self) -> str:
        """`name=version`, as apt-get takes and the IR records it."""
        return f"{self.name}={self.version}"


@dataclass(frozen=True)
class DriverMinimum:
    """The oldest Linux GPU driver that runs a CUDA release: `full` with every feature of the release,
    `minor_compat` through CUDA minor-version compatibility (limits: no PTX JIT of the release's newer
    PTX, no feature that needs the newer driver). Driver releases as NVIDIA numbers them ("550.54.14")."""
    full: str
    minor_compat: str

    @staticmethod
    def parse(raw: dict, where: str) -> "DriverMinimum":
        try:
            minimum = DriverMinimum(str(raw["full"]), str(raw["minor_compat"]))
        except (KeyError, TypeError):
            raise ConfigError(f"{where}: driver needs full and minor_compat (driver releases)") from None
        for text in (minimum.full, minimum.minor_compat):
            parts = text.split(".")
            if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
                raise ConfigError(f"{where}: driver release {text!r} is not NNN.NN[.NN]")
        return minimum

    @staticmethod
    def numbers(text: str) -> tuple[int, int, int]:
        parts = [int(p) for p in text.split(".")] + [0]
        return (parts[0], parts[1], parts[2])


@dataclass(frozen=True)
class Platform:
    """Where a target keeps its libraries ([[platform]]): generated/src/library_dirs.h holds each, and the
    compiler's predefined macros pick the one built in (docs/loader.md)."""
    name: str                        # "aarch64-linux"
    macros: tuple[str, ...]          # all predefined on the target; () for the last, any other target
    root_dirs: tuple[str, ...]       # a CUDA root's library folders, in the order searched
    system_dirs: tuple[str, ...]     # the system's library folders, absolute, in the order searched
    ld_cache_flags: int | None = None  # the architecture bits of its ld.so cache entries


@dataclass(frozen=True)
class Release:
    """An older CUDA release whose headers are read besides the toolkit's (docs/releases.md)."""
    name: str                       # "12.4"
    suite: str                      # the Debian suite that has its packages ("trixie")
    archive: str                    # the Debian archive's URL
    components: tuple[str, ...]
    keyring: str                    # the keyring apt checks the suite's signature with
    units: tuple[str, ...]          # the units its headers cover
    headers: tuple[Package, ...]    # packages whose usr/include the generator reads
    libraries: tuple[Package, ...]  # packages whose shared objects the tests load
    driver: DriverMinimum | None = None  # the oldest driver that runs it
    # more suites apt reads for the pinned packages (Debian's experimental holds only what differs
    # from unstable: CUDA 12.5's headers there, the CCCL they include in sid)
    extra_suites: tuple[str, ...] = ()
    # false: apt accepts the suites' Release files past their Valid-Until (an archive's experimental
    # and sid are re-signed weekly; a mirror frozen in time keeps them expired). This release's
    # source lines only, never apt's global setting; the signature is still checked.
    check_valid_until: bool = True
    # the libraries of the release for other Debian architectures (architecture -> packages): the
    # cross-built tests load them under an emulator (make test-aarch64)
    architectures: tuple[tuple[str, tuple[Package, ...]], ...] = ()

    def libraries_of(self, architecture: str | None) -> tuple[Package, ...]:
        """The library packages for `architecture` (None: the machine's own), () where none is configured."""
        return self.libraries if architecture is None else dict(self.architectures).get(architecture, ())

    @property
    def suites(self) -> tuple[str, ...]:
        return (self.suite, *self.extra_suites)

    @property
    def version_key(self) -> tuple[int, ...]:
        return tuple(int(part) for part in self.name.split("."))


@dataclass(frozen=True)
class Config:
    cuda_version_header: str
    cuda_version_macro: str
    c_args: tuple[str, ...]
    cxx_args: tuple[str, ...]
    units: tuple[Unit, ...]
    libraries: tuple[Library, ...]
    param_docs: tuple[tuple[str, str], ...] = ()
    releases: tuple[Release, ...] = ()   # newest first
    locate: tuple[Locate, ...] = ()      # libraries located, not bound
    platforms: tuple[Platform, ...] = ()  # where each target keeps its libraries; the last: any other
    newest_driver: DriverMinimum | None = None  # the oldest driver that runs the toolkit's (newest) release
    nvcc_args: tuple[str, ...] = ()      # what nvcc's host pass adds to a C++ parse (cplusplus.py)
    # semantic adapters ([generator] semantic names the file; generator/semantic.py reads them)
    semantic: tuple[dict, ...] = ()
    # the same file's [[selector]] (which field of a record says which member of its union is in use)
    # and [[read_written]] (a record through a pointer to non-const that the function reads too)
    selectors: tuple[dict, ...] = ()
    read_written: tuple[dict, ...] = ()

    @functools.cached_property
    def _param_docs(self) -> dict[str, str]:
        return dict(self.param_docs)

    def param_doc(self, name: str, type_spelling: str | None = None) -> str | None:
        """The documented shape/unit of a parameter, by "name|type" first, then by name."""
        docs = self._param_docs
        if type_spelling is not None and f"{name}|{type_spelling}" in docs:
            return docs[f"{name}|{type_spelling}"]
        return docs.get(name)

    def releases_of(self, unit: str) -> tuple[Release, ...]:
        """The configured (older) releases that cover a unit, newest first."""
        return tuple(r for r in self.releases if unit in r.units)

    def release(self, name: str) -> Release:
        for release in self.releases:
            if release.name == name:
                return release
        raise ConfigError(f"no release named {name!r}")

    def library(self, name: str) -> Library:
        for lib in self.libraries:
            if lib.name == name:
                return lib
        raise ConfigError(f"no library named {name!r}")

    def unit(self, name: str) -> Unit:
        for unit in self.units:
            if unit.name == name:
                return unit
        raise ConfigError(f"no unit named {name!r}")

    @property
    def modules(self) -> tuple[Module, ...]:
        return tuple(m for u in self.units for m in u.modules)

    @property
    def cplusplus_only_headers(self) -> frozenset[str]:
        """The headers only C++ can include, their declarations being C (Unit.cplusplus_only)."""
        return frozenset(header for u in self.units for header, _ in u.cplusplus_only)

    def module_of_header(self, header: str) -> Module | None:
        """The module that owns a header (by base name), or None for shared CUDA headers."""
        for module in self.modules:
            if header in module.headers:
                return module
        return None


def load(path: Path = CONFIG_PATH) -> Config:
    with path.open("rb") as f:
        raw = tomllib.load(f)
    gen = raw["generator"]
    units = tuple(
        Unit(
            name=u["name"],
            headers=tuple(u["headers"]),
            version_macros=tuple(u.get("version_macros", ())),
            include_dirs=tuple(u.get("include_dirs", ())),
            exclude=tuple(Exclusion(e["pattern"], e["reason"]) for e in u.get("exclude", ())),
            caller_storage=tuple(Exclusion(e["pattern"], e["reason"]) for e in u.get("caller_storage", ())),
            toolkit_may_lack=u.get("toolkit_may_lack", False),
            first_release=u.get("first_release"),
            library_versions=tuple(sorted((str(k), str(v)) for k, v in u.get("library_versions", {}).items())),
            cplusplus_headers=tuple(u.get("cplusplus_headers", ())),
            inline_headers=tuple(u.get("inline_headers", ())),
            feature_macros=tuple(u.get("feature_macros", ())),
            cplusplus_only=tuple((c["header"], tuple(c["includes"])) for c in u.get("cplusplus_only", ())),
            modules=tuple(
                Module(
                    m["name"],
                    m["prefix"],
                    m["library"],
                    tuple(m["headers"]),
                    tuple(sorted(raw.get("name_exceptions", {}).get(m["name"], {}).items())),
                )
                for m in u["modules"]
            ),
        )
        for u in raw["unit"]
    )
    libraries = tuple(sorted((
        Library(
            name=lib["name"],
            id=lib["id"],
            sonames=tuple(lib["sonames"]),
            status_type=lib["status_type"],
            status_success=lib["status_success"],
            status_missing_library=lib["status_missing_library"],
            status_missing_symbol=lib["status_missing_symbol"],
            version=VersionQuery(
                kind=lib["version"]["kind"],
                function=lib["version"].get("function"),
                encoding=tuple(lib["version"].get("encoding", ())),
                refuse=tuple(sorted(lib["version"].get("refuse", {}).items())),
                init=lib["version"].get("init"),
                fini=lib["version"].get("fini"),
            ),
            soname_versioned=lib.get("soname_versioned", True),
            serves_every_release=lib.get("serves_every_release", False),
            coupled=tuple(lib.get("coupled", ())),
            cuda_from=_cuda_from(lib),
            informational=tuple(sorted(lib.get("informational", {}).items())),
            no_gpu=tuple(sorted(lib.get("no_gpu", {}).items())),
            wheel_dirs=tuple(lib.get("wheel_dirs", ())),
            root_dirs=tuple(lib.get("root_dirs", ())),
            unbound=tuple(Unbound(u["reason"], u.get("pattern"), u.get("header")) for u in lib.get("unbound", ())),
            status_member=lib.get("status_member"),
            status_enum=lib.get("status_enum"),
            status_detail=(lib["status_detail"]["member"], lib["status_detail"]["when"], lib["status_detail"]["library"])
            if "status_detail" in lib else None,
            no_status=tuple(NoStatus(**entry) for entry in lib.get("no_status", ())),
            versions=tuple(VersionGetter(e["function"], e["of"], e["kind"], tuple(e.get("encoding", ())))
                           for e in lib.get("versions", ())),
            versioned_symbols=lib.get("versioned_symbols", False),
            nvcc=tuple(NvccEntry(e["symbol"], e["returns"], tuple(e["params"]), tuple(e["releases"]), e["mock"])
                       for e in lib.get("nvcc", ())),
        )
        for lib in raw["library"]
    ), key=lambda lib: lib.id))
    config = Config(
        cuda_version_header=gen["cuda_version_header"],
        cuda_version_macro=gen["cuda_version_macro"],
        c_args=tuple(gen["c_args"]),
        cxx_args=tuple(gen["cxx_args"]),
        nvcc_args=tuple(gen.get("nvcc_args", ())),
        units=units,
        libraries=libraries,
        param_docs=tuple(sorted(raw.get("param_docs", {}).items())),
        newest_driver=DriverMinimum.parse(gen["newest_driver"], "generator.newest_driver")
        if "newest_driver" in gen else None,
        releases=tuple(sorted((_release(r) for r in raw.get("release", ())), key=lambda r: r.version_key,
                              reverse=True)),
        locate=tuple(_locate(entry) for entry in raw.get("locate", ())),
        platforms=tuple(_platform(entry) for entry in raw.get("platform", ())),
        **_semantic(path.parent, gen),
    )
    _validate(config)
    return config


def _semantic(directory: Path, gen: dict) -> dict[str, tuple[dict, ...]]:
    """The [[semantic]], [[selector]] and [[read_written]] entries of the file [generator] semantic
    names (relative to the configuration), as Config's fields."""
    if "semantic" not in gen:
        return {}
    with (directory / gen["semantic"]).open("rb") as f:
        raw = tomllib.load(f)
    return {"semantic": tuple(raw.get("semantic", ())), "selectors": tuple(raw.get("selector", ())),
            "read_written": tuple(raw.get("read_written", ()))}


def _release(raw: dict) -> Release:
    name = str(raw.get("name", ""))
    parts = name.split(".")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise ConfigError(f"release {name!r}: a release's name is its CUDA version, major.minor")
    try:
        return Release(
            name=raw["name"],
            suite=raw["suite"],
            archive=raw["archive"],
            components=tuple(raw["components"]),
            keyring=raw["keyring"],
            units=tuple(raw["units"]),
            headers=tuple(Package(p["package"], p["version"]) for p in raw["headers"]),
            libraries=tuple(Package(p["package"], p["version"]) for p in raw.get("libraries", ())),
            driver=DriverMinimum.parse(raw["driver"], f"release {name}") if "driver" in raw else None,
            extra_suites=tuple(raw.get("extra_suites", ())),
            check_valid_until=raw.get("check_valid_until", True),
            architectures=tuple((arch, tuple(Package(p["package"], p["version"]) for p in entry["libraries"]))
                                for arch, entry in sorted(raw.get("architecture", {}).items())),
        )
    except KeyError as exc:
        raise ConfigError(f"release {raw.get('name', '?')}: {exc.args[0]} is missing") from None


def _platform(raw: dict) -> Platform:
    try:
        flags = raw.get("ld_cache_flags")
        if flags is not None and (not isinstance(flags, int) or not 0 < flags <= 0xff00 or flags & 0xff):
            raise ConfigError(f"platform {raw['name']}: ld_cache_flags is the architecture byte of an ld.so cache "
                              "entry's flags (0x0a00), or absent")
        return Platform(name=raw["name"], macros=tuple(raw.get("macros", ())), root_dirs=tuple(raw["root_dirs"]),
                        system_dirs=tuple(raw["system_dirs"]), ld_cache_flags=flags)
    except KeyError as exc:
        raise ConfigError(f"platform {raw.get('name', '?')}: {exc.args[0]} is missing") from None


def _cuda_from(lib: dict) -> tuple[tuple[tuple[int, int, int], int], ...]:
    """[[library]] cuda = { "<first library version>" = "<CUDA major>" }, oldest first."""
    try:
        firsts = sorted((tuple((int(p) for p in (k.split(".") + ["0", "0"])[:3])), int(v))
                        for k, v in lib.get("cuda", {}).items())
    except (AttributeError, ValueError):
        raise ConfigError(f"library {lib.get('name', '?')}: cuda is a table of \"<first library version>\" = "
                          f"\"<CUDA major>\"") from None
    if [cuda for _, cuda in firsts] != sorted({cuda for _, cuda in firsts}):
        raise ConfigError(f"library {lib.get('name', '?')}: cuda's CUDA majors must grow with the versions, once each")
    return tuple(firsts)  # type: ignore[return-value]


def _locate(raw: dict) -> Locate:
    try:
        version = raw["version"]
        cuda = raw.get("cuda")
        if cuda is not None and cuda != "major" and not isinstance(cuda, dict):
            raise ConfigError(f"locate {raw['name']}: cuda is \"major\" or a table of majors")
        if version.get("returns", "value") != "value":
            raise ConfigError(f"locate {raw['name']}: version returns is \"value\" or absent")
        return Locate(
            name=raw["name"],
            sonames=tuple(raw["sonames"]),
            wheel_dirs=tuple(raw.get("wheel_dirs", ())),
            root_dirs=tuple(raw.get("root_dirs", ())),
            version=VersionQuery(kind=version["kind"], function=version.get("function"),
                                 encoding=tuple(version.get("encoding", ()))),
            returns_value=version.get("returns") == "value",
            cuda_from_major=cuda == "major",
            cuda_of_major=tuple(sorted((int(k), int(v)) for k, v in cuda.items())) if isinstance(cuda, dict) else (),
        )
    except KeyError as exc:
        raise ConfigError(f"locate {raw.get('name', '?')}: {exc.args[0]} is missing") from None


def _validate_platforms(platforms: tuple[Platform, ...]) -> None:
    """Each platform says when it applies (macros, C identifiers) but the last, which applies to any
    other target; each has folders to search, a root's relative and without "..", the system's absolute."""
    if not platforms:
        raise ConfigError("no [[platform]]: the loader needs the library folders of at least any target (the last)")
    for i, platform in enumerate(platforms):
        last = i == len(platforms) - 1
        if bool(platform.macros) == last:
            raise ConfigError(f"platform {platform.name}: every platform but the last names its macros; the last "
                              "(any other target) names none")
        if not all(m.isidentifier() for m in platform.macros):
            raise ConfigError(f"platform {platform.name}: macros are the compiler's predefined macros (identifiers)")
        if not platform.root_dirs or not platform.system_dirs:
            raise ConfigError(f"platform {platform.name}: root_dirs and system_dirs each name a folder or more")
        for folder in platform.root_dirs:
            if folder.startswith("/") or ".." in folder.split("/") or not folder.strip("/"):
                raise ConfigError(f"platform {platform.name}: root_dirs {folder!r} is a folder of a CUDA root (relative)")
        for folder in platform.system_dirs:
            if not folder.startswith("/") or ".." in folder.split("/"):
                raise ConfigError(f"platform {platform.name}: system_dirs {folder!r} is not an absolute folder")
        for folders in (platform.root_dirs, platform.system_dirs):
            if len(set(folders)) != len(folders):
                raise ConfigError(f"platform {platform.name}: a folder is listed twice")


def _validate(config: Config) -> None:
    names = {lib.name for lib in config.libraries}
    ids = sorted(lib.id for lib in config.libraries)
    if ids != list(range(len(ids))):
        raise ConfigError(f"library ids must be 0..{len(ids) - 1}, each once (they are pinned: never renumber): {ids}")
    for lib in config.libraries:
        if (lib.status_member is None) != (lib.status_enum is None):
            raise ConfigError(f"library {lib.name}: status_member and status_enum go together (a status that is a "
                              "record names the member holding the status and that member's enum)")
        if lib.status_detail is not None and lib.status_member is None:
            raise ConfigError(f"library {lib.name}: status_detail is another member of a status record: "
                              "it needs status_member")
        query = lib.version
        if query.kind not in VERSION_KINDS:
            raise ConfigError(f"library {lib.name}: version kind {query.kind!r} is not one of {VERSION_KINDS}")
        if (query.function is None) != (query.kind == "file-name"):
            raise ConfigError(f"library {lib.name}: version kind {query.kind} needs a function exactly when it "
                              "is not file-name")
        if (query.kind == "encoded") != bool(query.encoding):
            raise ConfigError(f"library {lib.name}: an encoding goes with version kind encoded, and only with it")
        if (query.init is not None or query.fini is not None) and query.kind == "file-name":
            raise ConfigError(f"library {lib.name}: init and fini go with a version query, not with kind file-name")
        if query.fini is not None and query.init is None:
            raise ConfigError(f"library {lib.name}: a version fini balances an init: give the init too")
    seen_locate: set[str] = set(names)
    for entry in config.locate:
        if entry.name in seen_locate:
            raise ConfigError(f"locate {entry.name}: the name of another library or locate entry")
        seen_locate.add(entry.name)
        if not entry.sonames or any(s.split(".so")[0] != entry.stem for s in entry.sonames):
            raise ConfigError(f"locate {entry.name}: its sonames must share one stem")
        query = entry.version
        if query.kind not in VERSION_KINDS or (query.function is None) != (query.kind == "file-name"):
            raise ConfigError(f"locate {entry.name}: version kind {query.kind!r} unknown, or a function "
                              "given exactly when it is file-name")
        if (query.kind == "encoded") != bool(query.encoding) or (entry.returns_value and query.kind != "encoded"):
            raise ConfigError(f"locate {entry.name}: encoding and returns go with version kind encoded only")
    for lib in config.libraries:
        for entry in lib.unbound:
            if (entry.pattern is None) == (entry.header is None) or not entry.reason.strip():
                raise ConfigError(f"library {lib.name}: an unbound entry names a pattern or a header (one of them), "
                                  "and a reason")
        for other in lib.coupled:
            if other not in names or other == lib.name:
                raise ConfigError(f"library {lib.name}: coupled library {other!r} is not another library")
        fixed = {lib.status_success, lib.status_missing_library, lib.status_missing_symbol}
        for status, reason in lib.informational:
            if status in fixed:
                raise ConfigError(f"library {lib.name}: {status} is success or a status cubind returns for a failed "
                                  "load; it cannot be informational")
            if not reason.strip():
                raise ConfigError(f"library {lib.name}: informational status {status} needs its reason")
        for status, reason in lib.no_gpu:
            if status == lib.status_success or status in dict(lib.informational):
                raise ConfigError(f"library {lib.name}: no_gpu status {status} is success or informational: "
                                  "it is not a failure")
            if not reason.strip():
                raise ConfigError(f"library {lib.name}: no_gpu status {status} needs its reason")
    for lib in config.libraries:
        _validate_answers(config, lib)
    for module in config.modules:
        for c_name, _ in module.name_exceptions:
            if not c_name.startswith(module.prefix):
                raise ConfigError(f"name exception {c_name} is not in module {module.name}")
    seen_modules: set[str] = set()
    for module in config.modules:
        if module.library not in names:
            raise ConfigError(f"module {module.name} names unknown library {module.library}")
        if module.name in seen_modules:
            raise ConfigError(f"module {module.name} is configured twice")
        seen_modules.add(module.name)
    for unit in config.units:
        for header, includes in unit.cplusplus_only:
            if header not in unit.headers or not includes:
                raise ConfigError(f"unit {unit.name}: cplusplus_only {header} needs to be one of its headers, "
                                  "with the C++ library headers it includes")
    unit_names = {u.name for u in config.units}
    seen_releases: set[str] = set()
    for release in config.releases:
        if release.name in seen_releases:
            raise ConfigError(f"release {release.name} is configured twice")
        seen_releases.add(release.name)
        unknown = sorted(set(release.units) - unit_names)
        if unknown:
            raise ConfigError(f"release {release.name} covers unknown units {', '.join(unknown)}")
        if not release.headers:
            raise ConfigError(f"release {release.name} names no header package")
        if not isinstance(release.check_valid_until, bool):
            raise ConfigError(f"release {release.name}: check_valid_until is true or false")
        for arch, packages in release.architectures:
            if not arch.isalnum() or arch != arch.lower() or not packages:
                raise ConfigError(f"release {release.name}: architecture {arch!r} is a Debian architecture (arm64) "
                                  "with its libraries")
        twice = sorted({s for s in release.suites if release.suites.count(s) > 1})
        if twice:
            raise ConfigError(f"release {release.name} names suite {', '.join(twice)} twice")
    _validate_platforms(config.platforms)
    for unit in config.units:
        if unit.first_release is not None and (unit.first_release not in seen_releases
                                               or unit.name not in config.release(unit.first_release).units):
            raise ConfigError(f"unit {unit.name}: first_release {unit.first_release!r} is not a configured release "
                              "that covers the unit")
        for release, version in unit.library_versions:
            if not all(part.isdigit() for part in version.split(".")) or len(version.split(".")) > 3:
                raise ConfigError(f"unit {unit.name}: library_versions[{release!r}] = {version!r} is not "
                                  "major.minor.patch")
        if unit.library_versions and unit.version_macros:
            raise ConfigError(f"unit {unit.name}: library_versions are for headers without version macros")
    owners: dict[str, str] = {}
    for module in config.modules:
        for header in module.headers:
            if header in owners:
                raise ConfigError(f"header {header} belongs to both {owners[header]} and {module.name}")
            owners[header] = module.name


NVCC_MOCKS = ("status", "handle", "push", "pop", "true", "nothing")


def _validate_answers(config: Config, lib: Library) -> None:
    """The parts of a library's no_status, versions and nvcc entries that need no IR (the IR's side is
    checked by model.no_status_entries: every function that returns no status has its entry)."""
    seen: set[str] = set()
    for entry in lib.no_status:
        where = f"library {lib.name}: no_status {entry.function}"
        if entry.function in seen:
            raise ConfigError(f"{where} is given twice")
        seen.add(entry.function)
        if entry.unavailable not in UNAVAILABLE_KINDS:
            raise ConfigError(f"{where}: unavailable {entry.unavailable!r} is not one of {UNAVAILABLE_KINDS}")
        if entry.mock not in MOCK_ANSWERS:
            raise ConfigError(f"{where}: mock {entry.mock!r} is not one of {MOCK_ANSWERS}")
        if not entry.why.strip():
            raise ConfigError(f"{where} needs its why")
        if (entry.buffer is None) != (entry.length is None) or (entry.buffer is not None and entry.unavailable != "text"):
            raise ConfigError(f"{where}: buffer and length go together, with unavailable = \"text\"")
        if (entry.argument is None) != (entry.mock != "argument") or (entry.constant is None) != (entry.mock != "constant"):
            raise ConfigError(f"{where}: argument goes with mock = \"argument\", constant with mock = \"constant\", each only there")
    getters: set[str] = set()
    for getter in lib.versions:
        where = f"library {lib.name}: versions {getter.function}"
        if getter.function in getters or getter.function == lib.version.function:
            raise ConfigError(f"{where} is given twice, or is the library's version query")
        getters.add(getter.function)
        if getter.of not in ("library", "cuda") or getter.kind not in ("encoded", "property"):
            raise ConfigError(f"{where}: of is \"library\" or \"cuda\", kind \"encoded\" or \"property\"")
        if (getter.kind == "encoded") != bool(getter.encoding):
            raise ConfigError(f"{where}: an encoding goes with kind encoded, and only with it")
    for entry in lib.no_status:
        if (entry.mock == "version") != (entry.function in getters or entry.function == lib.version.function):
            raise ConfigError(f"library {lib.name}: no_status {entry.function}: mock = \"version\" is for the version "
                              "query and the versions entries, and each of those that returns no status has it")
    symbols: set[str] = set()
    for entry in lib.nvcc:
        where = f"library {lib.name}: nvcc {entry.symbol}"
        if entry.symbol in symbols:
            raise ConfigError(f"{where} is given twice")
        symbols.add(entry.symbol)
        if entry.mock not in NVCC_MOCKS:
            raise ConfigError(f"{where}: mock {entry.mock!r} is not one of {NVCC_MOCKS}")
        if (entry.returns == "void") != (entry.mock in ("nothing",)):
            raise ConfigError(f"{where}: mock \"nothing\" is for a void function, and only for one")
        if not entry.releases:
            raise ConfigError(f"{where} names no release")
