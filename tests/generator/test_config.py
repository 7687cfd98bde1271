"""The configuration's promises that outlive one generation: library ids are pinned."""

import json
from pathlib import Path

from generator import config

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
