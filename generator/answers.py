"""What a function that returns no status gives: the value of its wrapper when the call cannot be
made, and the answer of its mock (generator/libraries.toml `no_status` and `versions`), checked
against the IR: every such function has its entry, each entry fits its function's type."""

from __future__ import annotations

from .config import ConfigError, Library

UNSIGNED = ("unsigned", "size_t", "_Bool", "uint")


def _release_constants(irs: list[dict], enum: str, constants: list[dict], release: str) -> list[dict]:
    """An enum's constants in an older release (the IR's release_changes: those the release lacks,
    has besides, or numbers otherwise), an alias of a value keeping the first name."""
    missing, renumbered, extra = set(), {}, []
    for ir in irs:
        changes = ir.get("release_changes", {}).get(release, {}).get("enumerators", {})
        missing |= {c["name"] for c in changes.get("missing", []) if c["enum"] == enum}
        renumbered.update({c["name"]: c["value"] for c in changes.get("renumbered", []) if c["enum"] == enum})
        extra += [c for c in changes.get("dropped", []) if c["enum"] == enum]
    found, seen, names = [], set(), set()
    for c in [*constants, *extra]:
        value = renumbered.get(c["name"], c["value"])
        if c["name"] in missing or c["name"] in names or value in seen:
            continue
        seen.add(value)
        names.add(c["name"])
        found.append({"name": c["name"], "value": value})
    return found


def _version_getter(function: dict, kind: str, where: str) -> dict:
    """How the mock answers a version getter: returned (no parameter), through its one pointer
    output (encoded), or property and output (libraryPropertyType, int *)."""
    params = function["params"]
    if function["returns_status"]:
        wanted = 2 if kind == "property" else None
        pointers = [p for p in params if p["category"] == "pointer"]
        if not pointers or (wanted is not None and len(params) != wanted) or pointers[-1] is not params[-1]:
            raise ConfigError(f"{where}: a version getter that returns a status writes its version through its last "
                              "parameter, a pointer" + (" after a property" if kind == "property" else ""))
        return {"through": params[-1]["name"], "property": params[0]["name"] if kind == "property" else None}
    if kind != "encoded" or params or function["returns"]["category"] != "integer":
        raise ConfigError(f"{where}: a version getter that returns no status returns one encoded integer and "
                          "takes no parameter")
    return {"through": None, "property": None}


def entries(library: Library, functions: list[dict], irs: list[dict], enum_constants, releases: list[str]) -> dict:
    """The library's no_status entries checked against its functions, each with its function, its
    index and what the templates need: {"no_status": [...], "by_name": {...}, "versions": {...}}.
    `enum_constants(type)` gives (enum name, constants) or None; `releases` the release names the
    mocks are generated for (the newest first)."""
    index = {f["name"]: i for i, f in enumerate(functions)}
    decided = {e.function: e for e in library.no_status}
    without = [f["name"] for f in functions if not f["returns_status"] and f["name"] not in decided]
    if without:
        raise ConfigError(f"library {library.name}: {', '.join(without)} return(s) no status and no_status does not "
                          "say what the wrapper gives when the call cannot be made and what the mock answers "
                          "(generator/libraries.toml)")
    getters = {}
    for getter in library.versions:
        where = f"library {library.name}: versions {getter.function}"
        if getter.function not in index:
            raise ConfigError(f"{where} is no function of the library")
        getters[getter.function] = {"of": getter.of, "kind": getter.kind, "encoding": list(getter.encoding),
                                    **_version_getter(functions[index[getter.function]], getter.kind, where)}
    found = []
    for e in library.no_status:
        where = f"library {library.name}: no_status {e.function}"
        if e.function not in index or functions[index[e.function]]["returns_status"]:
            raise ConfigError(f"{where} is no function of the library that returns no status")
        f = functions[index[e.function]]
        returns = f["returns"]
        void = returns["category"] == "void"
        params = {p["name"]: p for p in f["params"]}
        text_result = returns["type"].replace(" ", "") == "constchar*"
        signed = returns["category"] == "integer" and not any(u in returns["canonical"] for u in UNSIGNED)
        checks = {
            "text": text_result if e.buffer is None else void and e.buffer in params and e.length in params
            and params[e.buffer]["type"].replace(" ", "") == "char*" and params[e.length]["category"] == "integer",
            "-status": signed, "zero": not void, "nothing": void,
        }
        if not checks[e.unavailable]:
            raise ConfigError(f"{where}: unavailable = {e.unavailable!r} does not fit {returns['type']} {e.function}"
                              f"({', '.join(p['type'] for p in f['params'])})")
        entry = {"function": f, "index": index[e.function], "unavailable": e.unavailable, "mock": e.mock, "why": e.why,
                 "buffer": e.buffer, "length": e.length, "argument": e.argument, "constant": e.constant, "names": {}}
        if e.mock in ("name", "empty") and not text_result:
            raise ConfigError(f"{where}: mock = {e.mock!r} answers a string: {e.function} returns {returns['type']}")
        if e.mock == "name":
            found_enum = None if len(f["params"]) != 1 else (enum_constants(f["params"][0]["type"]) or
                                                              enum_constants(f["params"][0]["canonical"]))
            if found_enum is None:
                raise ConfigError(f"{where}: mock = \"name\" names the constant of its one enum parameter")
            enum, constants = found_enum
            entry["enum"] = enum
            entry["names"] = {r: (constants if i == 0 else _release_constants(irs, enum, constants, r))
                              for i, r in enumerate(releases)}
        if e.mock == "argument" and (e.argument not in params or params[e.argument]["category"] != "integer"
                                     or returns["category"] != "integer"):
            raise ConfigError(f"{where}: mock = \"argument\" answers an integer parameter of an integer function")
        if e.mock in ("constant", "version") and void:
            raise ConfigError(f"{where}: mock = {e.mock!r} answers a value: {e.function} is void")
        found.append(entry)
    return {"no_status": found, "by_name": {e["function"]["name"]: e for e in found}, "versions": getters}


def unavailable_text(library: Library, function: dict) -> str:
    """The static text a wrapper of `function` (unavailable = "text") gives when the call cannot be
    made: what happened, and where the reason is."""
    return (f"{function['name']} was not called: cubind could not load {library.file_stem} or find the function in it "
            "(cubind_last_error() says why)")


def scripted(library: Library, function: dict) -> str:
    """What a CUBIND_MOCK_STATUS rule may script of a function (tests/mock/names.h)."""
    if function["name"] == library.version.function:
        return "VERSION"
    if function["returns_status"]:
        return "STATUS"
    return "NUMBER" if function["returns"]["category"] in ("integer", "enum") else "NONE"


NVCC_SCRIPTED = {"status": "STATUS", "pop": "STATUS", "push": "NUMBER"}


def names_table(libraries: list, irs: list[dict]) -> list[dict]:
    """Per library, the names its mocks' rules may use (generated/tests/mock_names.c): each function
    with every symbol its mocks export for it in a release read (the newest's, each older release's
    own and the one cubind calls there), nvcc's entry points, and the statuses of every release."""
    out = []
    for lib in libraries:
        L = lib.library
        functions = []
        for f in lib.functions:
            exports = [f["symbol"]]
            for r in f["releases"].values():
                exports += [s for s in (r.get("symbol"), r.get("call_symbol")) if s]
            functions.append({"name": f["name"], "exports": list(dict.fromkeys(exports)), "scripted": scripted(L, f)})
        for e in L.nvcc:
            functions.append({"name": e.symbol, "exports": [e.symbol], "scripted": NVCC_SCRIPTED.get(e.mock, "NONE")})
        releases = [r.name for r in lib.release_plan.older] if lib.release_plan is not None else []
        statuses = {c["name"]: c["value"] for c in lib.status_constants}
        for release in releases:
            for c in _release_constants(irs, L.status_enum_type, lib.status_constants, release):
                statuses.setdefault(c["name"], c["value"])
        out.append({"library": L, "functions": functions, "statuses": statuses})
    return out


def _encoded(parts: list[int], encoding: list[int]) -> int:
    return sum(p * e for p, e in zip(parts, encoding))


def test_cases(model) -> dict:
    """What tests/test_no_status.c checks, from the IR and the configuration: each function returning no
    status with its decided values and its mocks' answers, on the tests' mocks (CUBIND_MOCK_VERSION
    77.1.2) and on the installed mocks of each release (dropin/mocks.mk's folders), and the version
    getters that return a status."""
    newest = model.cuda_version
    releases = [newest, *(r.name for r in model.config.releases)]
    test_library = [77, 1, 2]
    out = {"releases": releases, "no_status": [], "versions": [], "name_tables": []}
    table_of: dict[tuple, int] = {}

    def table(constants: list[dict]) -> int | None:
        """The index of a list of names in out["name_tables"], each list once."""
        if not constants:
            return None
        key = tuple((c["name"], c["value"]) for c in constants)
        if key not in table_of:
            table_of[key] = len(out["name_tables"])
            out["name_tables"].append(constants)
        return table_of[key]

    def cuda_parts(release: str) -> list[int]:
        return [int(p) for p in release.split(".")[:2]] + [0]

    for lib in model.libraries:
        L = lib.library
        plan = [r for r in lib.release_plan.releases] if lib.release_plan is not None else []
        by_name = {r.name: r for r in plan}
        older = [r.name for r in plan[1:]]
        newest_version = [max(v, 0) for v in plan[0].library_version] if plan else test_library

        def folder(release: str) -> dict | None:
            """The library's mock in the folder of `release`: its release and library version, or None."""
            if release != newest and older and release not in older:
                return None
            own = release in older
            return {"names_of": release if own else (plan[0].name if plan else newest),
                    "library": [max(v, 0) for v in by_name[release].library_version] if own else newest_version,
                    "cuda": cuda_parts(release)}

        def version_of(getter: dict, parts_of) -> dict:
            parts = parts_of["cuda"] if getter["of"] == "cuda" else parts_of["library"]
            return {"parts": parts, "encoded": _encoded(parts, getter["encoding"])}

        # the tests' mocks: CUBIND_MOCK_VERSION=77.1.2, CUDA's release the newest the library was read for
        tests_mock = {"library": test_library, "cuda": cuda_parts(plan[0].name if plan else newest)}
        getters = dict(lib.version_getters)
        if L.version.function is not None:
            getters.setdefault(L.version.function, {"of": "library", "kind": L.version.kind,
                                                    "encoding": list(L.version.encoding)})
        for e in lib.no_status:
            f = e["function"]
            getter = getters.get(f["name"]) if e["mock"] == "version" else None
            per_release = []
            for release in releases:
                where = folder(release)
                names = e["names"].get(where["names_of"], []) if where else []
                per_release.append(None if where is None else {
                    "names": table(names), "name_count": len(names),
                    "version": version_of(getter, where) if getter else None})
            newest_names = e["names"].get(plan[0].name if plan else newest, [])
            out["no_status"].append({
                "library": L, "entry": e, "function": f, "text": unavailable_text(L, f),
                "number": scripted(L, f) == "NUMBER", "in_half_mock": e["index"] % 2 == 0 or f["name"] == L.version.function,
                "test_version": version_of(getter, tests_mock) if getter else None,
                "names": table(newest_names), "name_count": len(newest_names), "releases": per_release})
        for name, getter in lib.version_getters.items():
            f = lib.functions[[g["name"] for g in lib.functions].index(name)]
            if not f["returns_status"]:
                continue
            out["versions"].append({
                "library": L, "function": f, "getter": getter,
                "test_version": version_of(getter, tests_mock),
                "releases": [None if folder(r) is None else version_of(getter, folder(r)) for r in releases]})
    return out


def unavailable_phrase(owner, function: dict) -> str:
    """What the reference says a wrapper returning no status gives when the call cannot be made (no_status)."""
    entry = owner.no_status_of[function["name"]]
    L = owner.library
    if entry["unavailable"] == "text":
        if entry["buffer"]:
            return (f"a text saying it was not called (cubind_last_error() says why) is written into {entry['buffer']}, "
                    f"cut to {entry['length']} bytes")
        return "a static text saying it was not called and that cubind_last_error() says why, never NULL"
    if entry["unavailable"] == "-status":
        return f"-{L.status_missing_library} if {L.file_stem} cannot be loaded, -{L.status_missing_symbol} if it lacks {function['symbol']}"
    if entry["unavailable"] == "nothing":
        return "nothing is written"
    return "NULL" if function["returns"]["category"] in ("pointer", "function_pointer") else \
        ("a record of zeros" if function["returns"]["category"] == "record" else "0")
