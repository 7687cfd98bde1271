"""The configuration's promises that outlive one generation (library ids are pinned), and the checks
of what it may say (informational statuses)."""

import json
from pathlib import Path

import pytest

from generator import config, model

IDS = Path(__file__).with_name("library_ids.json")


def test_library_ids_are_pinned() -> None:
    """An id once released (library_ids.json: the ids of a release, extended at each release) is never
    changed or reused; a library added since takes a new id."""
    released = json.loads(IDS.read_text())
    configured = {lib.name: lib.id for lib in config.load().libraries}
    for name, id_ in released.items():
        if name in configured:
            assert configured[name] == id_, f"library {name} was {id_}, now {configured[name]}: ids are pinned"
    reused = {id_ for name, id_ in configured.items() if name not in released} & set(released.values())
    assert not reused, f"ids {sorted(reused)} belong to released libraries"


def test_library_ids_are_dense_and_ordered() -> None:
    libraries = config.load().libraries
    assert [lib.id for lib in libraries] == list(range(len(libraries)))


def test_version_queries_are_configured_consistently() -> None:
    for lib in config.load().libraries:
        query = lib.version
        assert query.kind in config.VERSION_KINDS
        assert (query.function is None) == (query.kind == "file-name")
        assert bool(query.encoding) == (query.kind == "encoded")
        if query.encoding:
            assert list(query.encoding) == sorted(query.encoding, reverse=True)


FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "fixture.toml"


def _fixture_with_informational(tmp_path: Path, table: str) -> Path:
    text = FIXTURE.read_text()
    start = text.index("informational = {")
    end = text.index("\n", start)
    path = tmp_path / "informational.toml"
    path.write_text(text[:start] + f"informational = {table}" + text[end:])
    return path


@pytest.mark.parametrize("status", ["FX_STATUS_SUCCESS", "FX_STATUS_NOT_INITIALIZED", "FX_STATUS_NOT_SUPPORTED"])
def test_success_and_the_fixed_statuses_cannot_be_informational(tmp_path: Path, status: str) -> None:
    """Success is no status to exempt, and the statuses cubind returns for a failed load are failures."""
    with pytest.raises(config.ConfigError, match=f"{status} is success or a status cubind returns"):
        config.load(_fixture_with_informational(tmp_path, f'{{ {status} = "why" }}'))


def test_an_informational_status_needs_its_reason(tmp_path: Path) -> None:
    with pytest.raises(config.ConfigError, match="needs its reason"):
        config.load(_fixture_with_informational(tmp_path, '{ FX_STATUS_NOT_READY = " " }'))


def test_an_informational_status_must_be_a_constant_of_the_status_enum() -> None:
    """Checked against the IR, where the enum's constants are known (generator/model.py)."""
    library = config.load(FIXTURE).library("fixture")
    status = [{"name": "FX_STATUS_SUCCESS", "value": 0}, {"name": "FX_STATUS_NOT_READY", "value": 5}]
    assert model._informational(library, status) == [
        {"name": "FX_STATUS_NOT_READY", "value": 5, "reason": "the work queried has not completed yet"}]
    with pytest.raises(ValueError, match="FX_STATUS_NOT_READY is not a constant of fxStatus_t"):
        model._informational(library, status[:1])


def _fixture_with_version(tmp_path: Path, table: str) -> Path:
    text = FIXTURE.read_text()
    start = text.index('version = { kind = "property"')
    end = text.index("\n", start)
    path = tmp_path / "version.toml"
    path.write_text(text[:start] + f"version = {table}" + text[end:])
    return path


def test_a_version_init_and_fini_are_read(tmp_path: Path) -> None:
    query = config.load(_fixture_with_version(
        tmp_path, '{ kind = "property", function = "fxGetProperty", init = "fxInit", fini = "fxShutdown" }')
    ).library("fixture").version
    assert (query.init, query.fini) == ("fxInit", "fxShutdown")
    nvml = config.load().library("nvml").version
    assert (nvml.init, nvml.fini) == ("nvmlInit_v2", "nvmlShutdown")


@pytest.mark.parametrize("table, message", [
    ('{ kind = "file-name", init = "fxInit" }', "init and fini go with a version query"),
    ('{ kind = "property", function = "fxGetProperty", fini = "fxShutdown" }', "a version fini balances an init"),
])
def test_a_version_init_needs_a_query_and_a_fini_an_init(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(config.ConfigError, match=message):
        config.load(_fixture_with_version(tmp_path, table))


def _fixture_with_unbound(tmp_path: Path, entries: str) -> Path:
    text = FIXTURE.read_text()
    start = text.index('version = { kind = "property"')
    path = tmp_path / "unbound.toml"
    path.write_text(text[:start] + f"unbound = [{entries}]\n" + text[start:])
    return path


def test_an_unbound_entry_matches_by_name_or_by_every_declaring_header(tmp_path: Path) -> None:
    library = config.load(_fixture_with_unbound(
        tmp_path, '{ pattern = "__fx*", reason = "internal" }, { header = "fx_gl*.h", reason = "needs GL" }'
    )).library("fixture")
    assert library.unbound_reason("__fxRegister", frozenset({"fx.h"})) == "internal"
    assert library.unbound_reason("fxGLMap", frozenset({"fx_gl_interop.h"})) == "needs GL"
    # declared in a header the entry does not cover too: not covered
    assert library.unbound_reason("fxGLMap", frozenset({"fx_gl_interop.h", "fx.h"})) is None
    assert library.unbound_reason("fxCreate", frozenset({"fx.h"})) is None


@pytest.mark.parametrize("entry", [
    '{ reason = "why" }',
    '{ pattern = "fx*", header = "fx.h", reason = "why" }',
    '{ pattern = "fx*", reason = " " }',
])
def test_an_unbound_entry_names_a_pattern_or_a_header_and_a_reason(tmp_path: Path, entry: str) -> None:
    with pytest.raises(config.ConfigError, match="an unbound entry names a pattern or a header"):
        config.load(_fixture_with_unbound(tmp_path, entry))


def test_a_cuda_table_places_each_release_read_in_its_own_major() -> None:
    """libraries.toml's `cuda` table (the first library version of each CUDA major) must agree with the
    versions of the releases read: a mistyped first version would call a library as another major's."""
    from generator import release_calls
    cusolver = next(lib for lib in config.load().libraries if lib.name == "cusolver")
    assert cusolver.cuda_major_from("12.4") == (11, 4, 2) and cusolver.cuda_major_from("11.8") == (-1, -1, -1)

    def plan(*releases: tuple[str, tuple[int, int, int]]) -> release_calls.ReleasePlan:
        return release_calls.ReleasePlan([release_calls.Release(n, v) for n, v in releases], [], [], [], [])
    model._check_cuda_from(cusolver, plan(("13.0", (12, 0, 4)), ("12.4", (11, 6, 1)), ("11.8", (11, 4, 1))))
    with pytest.raises(config.ConfigError, match="version 11.4.2 of CUDA 11.8 lies in CUDA 12"):
        model._check_cuda_from(cusolver, plan(("12.4", (11, 4, 3)), ("11.8", (11, 4, 2))))


@pytest.mark.parametrize("table", [{"12": "13", "11.4.2": "14"}, {"x": "12"}, "major"])
def test_a_cuda_table_is_versions_to_growing_majors(table: object) -> None:
    with pytest.raises(config.ConfigError, match="cuda"):
        config._cuda_from({"name": "fx", "cuda": table})


def _fixture_with_status_record(tmp_path: Path, table: str) -> Path:
    text = FIXTURE.read_text()
    start = text.index('version = { kind = "property"')
    path = tmp_path / "status_record.toml"
    path.write_text(text[:start] + table + "\n" + text[start:])
    return path


def test_a_status_record_names_its_status_member_and_enum(tmp_path: Path) -> None:
    """cuFile's CUfileError_t { CUfileOpError err; CUresult cu_err; }: the wrapper tests the member, and the
    statuses are the constants of the member's enum, not of the record."""
    library = config.load(_fixture_with_status_record(tmp_path, 'status_member = "err"\nstatus_enum = "fxOpError"\n'
        'status_detail = { member = "cu_err", when = "FX_STATUS_DRIVER", library = "fixture" }')).library("fixture")
    assert (library.status_member, library.status_enum_type) == ("err", "fxOpError")
    assert library.status_detail == ("cu_err", "FX_STATUS_DRIVER", "fixture")
    assert library.status_of("cubind_status") == "(cubind_status).err"
    plain = config.load(FIXTURE).library("fixture")
    assert (plain.status_enum_type, plain.status_of("cubind_status")) == ("fxStatus_t", "cubind_status")


@pytest.mark.parametrize("table, message", [
    ('status_member = "err"', "status_member and status_enum go together"),
    ('status_enum = "fxOpError"', "status_member and status_enum go together"),
    ('status_detail = { member = "cu_err", when = "FX_STATUS_DRIVER", library = "fixture" }', "it needs status_member"),
])
def test_a_status_record_is_configured_whole(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(config.ConfigError, match=message):
        config.load(_fixture_with_status_record(tmp_path, table))


def test_a_status_enum_whose_typedef_has_its_tag_name_is_found() -> None:
    """typedef enum CUfileOpError {...} CUfileOpError (cufile.h): the typedef's underlying type names the tag,
    which has the typedef's name; the lookup once went round that loop for ever."""
    enum = {"kind": "enum", "name": "CUfileOpError", "typedef": None,
            "constants": [{"name": "CU_FILE_SUCCESS", "value": 0}, {"name": "CU_FILE_INTERNAL_ERROR", "value": 5030}]}
    typedef = {"kind": "typedef", "name": None, "typedef": "CUfileOpError", "underlying": "enum CUfileOpError"}
    irs = [{"types": [enum, typedef]}]
    assert [c["name"] for c in model._status_enum(irs, "CUfileOpError")] == ["CU_FILE_SUCCESS", "CU_FILE_INTERNAL_ERROR"]
    assert model._enum_constants({"CUfileOpError": typedef}, "CUfileOpError") is None
