"""The rules of tests/docs/extract.py: what makes a documented block run, and what is refused."""

from pathlib import Path

import pytest

from extract import expected_output, parse_page

PAGE = Path("page.md")


def errors(text: str) -> list[str]:
    return parse_page(PAGE, text).errors


def kinds(text: str) -> list[str]:
    page = parse_page(PAGE, text)
    assert page.errors == []
    return [block.kind() for block in page.blocks]


def test_a_block_with_a_runner_runs() -> None:
    assert kinds("```sh\necho hi\n```\n\n```c\nint main(void) { return 0; }\n```\n") == ["run", "run"]


def test_text_blocks_are_not_run() -> None:
    assert kinds("```text\nwhat it prints\n```\n") == ["text"]


def test_a_block_without_language_is_refused() -> None:
    assert "without a language" in " ".join(errors("```\nmake\n```\n"))


def test_a_language_without_runner_is_refused_unless_marked() -> None:
    assert "no runner for ```cmake" in " ".join(errors("```cmake\nfind_package(cubind)\n```\n"))
    assert kinds("<!-- snippet: fragment -->\n```cmake\nfind_package(cubind)\n```\n") == ["fragment"]
    assert kinds("<!-- snippet: file CMakeLists.txt -->\n```cmake\nproject(a C)\n```\n\n"
                 "```sh\ncmake -S . -B out  # CMakeLists.txt\n```\n") == ["file", "run"]


@pytest.mark.parametrize("text", [
    "<!-- snippet: fragment -->\nSome text.\n\n```c\nint x;\n```\n",
    "<!-- snippet: fragment -->\n",
])
def test_a_marker_must_stand_before_a_block(text: str) -> None:
    assert "not followed by a code block" in " ".join(errors(text))


@pytest.mark.parametrize("marker", ["snippet: skip", "snippet: file", "snippet: file a/b.c",
                                    "snippet: output exit=x", "snippet: gpu now"])
def test_unknown_or_malformed_markers_are_refused(marker: str) -> None:
    assert errors(f"<!-- {marker} -->\n```sh\ntrue\n```\n")


def test_a_file_block_must_be_used_by_a_later_block() -> None:
    file_block = "<!-- snippet: file app.c -->\n```c\nint main(void) { return 0; }\n```\n"
    assert "used by no later block" in " ".join(errors(file_block))
    assert kinds(file_block + "\n```sh\ncc app.c -o app\n```\n") == ["file", "run"]


def test_an_output_block_follows_a_block_that_runs() -> None:
    assert "after no block that runs" in " ".join(errors("```text\nx\n```\n\n<!-- snippet: output -->\n```text\nx\n```\n"))
    page = parse_page(PAGE, "```sh\nfalse\n```\n\n<!-- snippet: output no-gpu exit=1 -->\n```text\n```\n")
    assert page.errors == []
    marker = page.blocks[1].marker
    assert marker is not None and (marker.kind, marker.no_gpu, marker.exit_status) == ("output", True, 1)


def test_make_test_runs_only_as_a_dry_run() -> None:
    assert "mark it dry-run" in " ".join(errors("```sh\nmake -j2 test\n```\n"))
    assert "mark it dry-run" in " ".join(errors("```sh\nmake test-c SAN=thread\n```\n"))
    assert kinds("<!-- snippet: dry-run -->\n```sh\nmake -j2 test\n```\n") == ["dry-run"]
    assert kinds("```sh\nmake install PREFIX=/tmp/x\n```\n") == ["run"]


def test_dry_run_is_for_shell_blocks() -> None:
    assert "dry-run is for sh blocks" in " ".join(errors("<!-- snippet: dry-run -->\n```c\nint x;\n```\n"))


def test_indented_code_is_refused_but_list_continuations_are_not() -> None:
    assert "indented code block" in " ".join(errors("Text.\n\n    make test\n"))
    assert errors("- an item\n\n    still the item\n") == []
    assert errors("- an item\n  continued\n\n    still the item\n") == []


def test_an_unclosed_block_is_refused() -> None:
    assert "never closed" in " ".join(errors("```sh\ntrue\n"))


def test_blocks_keep_their_text_and_line() -> None:
    page = parse_page(PAGE, "# Title\n\n~~~python\nprint(1)\n```\n~~~\n")
    assert [(b.line, b.language, b.text) for b in page.blocks] == [(3, "python", "print(1)\n```\n")]


@pytest.mark.parametrize("expected, actual, matches", [
    ("cubind: cublasCreate returned ...", "cubind: cublasCreate returned CUBLAS_STATUS_NOT_INITIALIZED (1)\n", True),
    ("a\n...\nz", "a\nb\nc\nz", True),
    ("exactly this", "exactly that", False),
    ("prefix ...", "other prefix x", False),
])
def test_expected_output_with_ellipsis(expected: str, actual: str, matches: bool) -> None:
    assert expected_output(expected, actual) is matches
