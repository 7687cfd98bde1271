"""The code blocks of a Markdown page, with what `make test-docs` must do with each.

A fenced block's info string names its language; an HTML comment on the line before the fence
(blank lines between are allowed) says how a block is used when it is not a program to run alone:

    <!-- snippet: text -->            (the language `text` needs no marker) not run: output, a diagram
    <!-- snippet: fragment -->        not run: part of a file or program the text around it shows
    <!-- snippet: gpu -->             needs a GPU: built (C, Rust) or parsed (sh, Lua, Python), not run
    <!-- snippet: dry-run -->         sh: make is asked what it would do (MAKEFLAGS=n), nothing is built
    <!-- snippet: file NAME -->       written to NAME for the blocks after it (a later block names it
                                      and builds it as printed); any language
    <!-- snippet: output [no-gpu] [exit=N] -->   a `text` block: what the block before it prints
                                      (stdout and stderr, either first); `...` stands for any text. no-gpu: checked
                                      only on a machine without a GPU driver. exit=N: that block's
                                      exit status (0 otherwise).

Everything else runs. A block whose language has no runner, a sh block that runs make's tests
(make test, test-*, compilers, bench: they would run again inside `make test`) unless dry-run, an indented code block (it has no
language), a marker that is not followed by a block or that this module does not know, an output
block after nothing that runs and a file that no later block uses are errors: new documentation
cannot slip in untested.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

# Languages a block may be run in (tests/docs/run.py), and the one that never runs.
RUNNABLE = {"sh", "bash", "c", "lua", "python", "rust", "toml"}
NOT_RUN = {"text"}
# Markers that say a block is not run as a program of its own.
MARKER_KINDS = {"text", "fragment", "gpu", "dry-run", "file", "output"}

FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(?P<body>.*?)\s*-->\s*$")
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")
# A make of the tests, run from a block, would start `make test` again from inside it.
MAKE_TESTS = re.compile(r"^\s*make\b.*\s(test|test-[\w-]+|compilers|bench[\w-]*)(\s|$)", re.M)


@dataclass
class Marker:
    kind: str
    name: str = ""          # file: the file's name
    exit_status: int = 0    # output: the exit status of the block before
    no_gpu: bool = False    # output: only checked without a GPU driver


@dataclass
class Block:
    page: Path
    line: int               # of the opening fence, 1-based
    language: str
    text: str
    marker: Marker | None = None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    def kind(self) -> str:
        """What is done with the block: run, text, fragment, gpu, dry-run, file or output."""
        if self.marker is not None:
            return self.marker.kind
        return "text" if self.language in NOT_RUN else "run"


@dataclass
class Page:
    path: Path
    blocks: list[Block] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def parse_marker(body: str) -> Marker:
    words = body.split()
    if not words or words[0] not in MARKER_KINDS:
        raise ValueError(f"unknown snippet marker {body!r} (known: {', '.join(sorted(MARKER_KINDS))})")
    kind, rest = words[0], words[1:]
    if kind == "file":
        if len(rest) != 1 or "/" in rest[0] or rest[0].startswith("."):
            raise ValueError(f"'file' takes one plain file name: {body!r}")
        return Marker(kind, name=rest[0])
    if kind == "output":
        marker = Marker(kind)
        for word in rest:
            if word == "no-gpu":
                marker.no_gpu = True
            elif re.fullmatch(r"exit=\d+", word):
                marker.exit_status = int(word[5:])
            else:
                raise ValueError(f"'output' takes no-gpu and exit=N, not {word!r}")
        return marker
    if rest:
        raise ValueError(f"'{kind}' takes no argument: {body!r}")
    return Marker(kind)


def indented_code(lines: list[str], index: int) -> bool:
    """Whether lines[index] opens an indented code block (four spaces after a blank line, not
    the continuation of a list item)."""
    line = lines[index]
    if not line.startswith("    ") or not line.strip() or index == 0 or lines[index - 1].strip():
        return False
    previous = index - 1
    while previous >= 0 and not lines[previous].strip():
        previous -= 1
    if previous < 0:
        return True
    before = lines[previous]
    return not (LIST_ITEM.match(before) or before.startswith("  "))


def parse_page(path: Path, text: str) -> Page:
    page = Page(path)
    lines = text.split("\n")
    pending: tuple[int, Marker] | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        marker = MARKER.match(line)
        fence = FENCE.match(line)
        if marker:
            if pending:
                page.errors.append(f"{path}:{pending[0]}: snippet marker not followed by a code block")
            try:
                pending = (index + 1, parse_marker(marker["body"]))
            except ValueError as error:
                page.errors.append(f"{path}:{index + 1}: {error}")
                pending = None
        elif fence:
            close = re.compile(rf"^ {{0,3}}{fence['fence'][0]}{{{len(fence['fence'])},}}\s*$")
            end = index + 1
            while end < len(lines) and not close.match(lines[end]):
                end += 1
            if end == len(lines):
                page.errors.append(f"{path}:{index + 1}: code block never closed")
            info = fence["info"].strip()
            language = info.split()[0].lower() if info else ""
            block = Block(path, index + 1, language, "\n".join(lines[index + 1:end]) + "\n",
                          pending[1] if pending else None)
            page.blocks.append(block)
            pending = None
            index = end
        elif line.strip():
            if pending:
                page.errors.append(f"{path}:{pending[0]}: snippet marker not followed by a code block")
                pending = None
            if indented_code(lines, index):
                page.errors.append(f"{path}:{index + 1}: indented code block: fence it with a language "
                                   "(```text for output)")
        index += 1
    if pending:
        page.errors.append(f"{path}:{pending[0]}: snippet marker not followed by a code block")
    page.errors.extend(check_blocks(page.blocks))
    return page


def check_blocks(blocks: list[Block]) -> list[str]:
    """The rules that need more than one block: languages, outputs, files."""
    errors = []
    for position, block in enumerate(blocks):
        kind = block.kind()
        if not block.language:
            errors.append(f"{block.where}: code block without a language (```sh, ```c, ```text, ...)")
        elif kind in ("run", "gpu", "dry-run") and block.language not in RUNNABLE:
            errors.append(f"{block.where}: no runner for ```{block.language} (runners: "
                          f"{', '.join(sorted(RUNNABLE))}); mark it <!-- snippet: fragment --> if it "
                          "is not meant to run")
        if kind == "dry-run" and block.language not in ("sh", "bash"):
            errors.append(f"{block.where}: dry-run is for sh blocks")
        if kind == "run" and block.language in ("sh", "bash") and MAKE_TESTS.search(block.text):
            errors.append(f"{block.where}: runs make's tests from inside make test: mark it dry-run")
        if kind == "output":
            before = blocks[position - 1] if position else None
            if block.language not in NOT_RUN:
                errors.append(f"{block.where}: an output block is ```text")
            if before is None or before.kind() not in ("run", "dry-run"):
                errors.append(f"{block.where}: output block after no block that runs")
        if kind == "file":
            assert block.marker is not None
            name = block.marker.name
            if not any(name in later.text for later in blocks[position + 1:] if later.kind() in ("run", "gpu")):
                errors.append(f"{block.where}: file {name} is used by no later block that runs")
    return errors


def expected_output(expected: str, actual: str) -> bool:
    """Whether actual matches expected, where `...` stands for any text (newlines included)."""
    parts = [re.escape(part) for part in expected.strip().split("...")]
    return re.fullmatch(".*?".join(parts), actual.strip(), re.S) is not None
