"""How cubind tells whether an NVIDIA header was included (generator/macros.py presence_macro): its include
guard, even where directives that leave it the guard come first."""

from __future__ import annotations

import pytest

from generator import macros


def _directives(*lines: str) -> list[tuple[list[str], int]]:
    return [(line.split(), number) for number, line in enumerate(lines, start=1)]


@pytest.mark.parametrize("lead", [
    (),
    ("# include <stddef.h>",),                               # nvFatbin.h
    ("# ifdef __cplusplus", "# endif"),                      # cufile.h: extern "C" { above its guard
    ("# include <stddef.h>", "# ifdef __cplusplus", "# endif"),
])
def test_the_include_guard_after_what_leaves_it_the_guard(monkeypatch: pytest.MonkeyPatch, lead: tuple[str, ...]) -> None:
    directives = _directives(*lead, "# ifndef __CUFILE_H_", "# define __CUFILE_H_", "# define CUFILEOP_BASE_ERR 5000",
                             "# endif")
    monkeypatch.setattr(macros, "file_directives", lambda parsed, header: directives)
    assert macros.presence_macro([object()], "cufile.h") == "__CUFILE_H_"  # type: ignore[list-item]


def test_a_cplusplus_block_with_directives_inside_is_no_lead(monkeypatch: pytest.MonkeyPatch) -> None:
    """An #ifdef __cplusplus that holds a definition is a conditional part of the header, not an extern "C" opener:
    the guard is then not known from the first directives, and the first unconditional macro says it."""
    directives = _directives("# ifdef __cplusplus", "# define IN_CPLUSPLUS 1", "# endif", "# define FIRST 1",
                             "# ifndef G", "# define G", "# endif")
    monkeypatch.setattr(macros, "file_directives", lambda parsed, header: directives)
    assert macros.presence_macro([object()], "x.h") == "FIRST"  # type: ignore[list-item]
