"""Runs the code blocks of README.md and docs/ exactly as printed (`make test-docs`).

    run.py --checkout DIR --build DIR --home DIR --work DIR [--installed-docs DIR] [--tool-dir DIR]... PAGE...

Each page runs in a directory of its own under --work that holds links to the checkout's top-level
files and folders (`build` to --build), so that a command written for the checkout (`make ...`,
`build/bin/cubind-probe`, `cc ... -Ibuild/include`) runs as printed; what a block writes stays
there. HOME is --home, where `make install PREFIX="$HOME/.local"` has installed cubind (the
installed tree the pages use). The make variables of the make that started the tests are removed
from the environment, as are CUBIND_*, LD_LIBRARY_PATH and PKG_CONFIG_PATH: a block sees what a
user's shell would, with each --tool-dir first on PATH (the julia that make fetch-julia fetched).

How each language runs (tests/docs/extract.py says how a block is marked):
  sh, bash   the block as a script, `set -e`, in the page's directory (dry-run: with MAKEFLAGS=n;
             gpu: parsed only)
  c          compiled by gcc and by clang with -std=c11 -Wall -Wextra -Werror -pedantic against the
             installed tree, linked and run (gpu: not run)
  file       any language: written to its name; the block that uses it builds it as printed
  lua        luajit (gpu: compiled to bytecode only)
  python     /usr/bin/python3 (gpu: compiled only)
  rust       rustc --edition 2021 -D warnings, then run (gpu: built only)
  toml       parsed (tomllib)
A block passes when it exits 0 (or as its output block says) and writes nothing to stderr (any
warning fails it), and its output matches its output block if it has one. Relative links of the
pages must name files that exist, and anchors headings that exist; with --installed-docs, the
links between the installed pages must hold there too. The last line is
`snippets: N passed, M failed (...)`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extract import Block, Page, expected_output, parse_page  # noqa: E402

PYTHON = "/usr/bin/python3"
C_FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"]
TIMEOUT = 600
SUFFIX = {"sh": ".sh", "bash": ".sh", "c": ".c", "lua": ".lua", "python": ".py", "rust": ".rs", "toml": ".toml"}
REMOVED_ENVIRONMENT = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MAKE_TERMOUT", "MAKE_TERMERR",
                       "LD_LIBRARY_PATH", "PKG_CONFIG_PATH")
LINK = re.compile(r"\]\(([^)\s]+)\)")


@dataclass
class Outcome:
    status: int
    stdout: str
    stderr: str

    def describe(self) -> str:
        text = (self.stdout + self.stderr).strip()
        return f"exit status {self.status}" + (f", output:\n{text}" if text else "")


class Runner:
    def __init__(self, args: argparse.Namespace) -> None:
        self.checkout: Path = args.checkout.resolve()
        self.build: Path = args.build.resolve()
        self.home: Path = args.home.resolve()
        self.work: Path = args.work.resolve()
        self.prefix = self.home / ".local"
        self.environment = {k: v for k, v in os.environ.items()
                            if k not in REMOVED_ENVIRONMENT and not k.startswith("CUBIND_")}
        # Tools that keep their own state under HOME keep it where it was (rustup's toolchains).
        for variable, folder in (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")):
            if variable not in self.environment and (Path.home() / folder).is_dir():
                self.environment[variable] = str(Path.home() / folder)
        self.environment["HOME"] = str(self.home)
        if args.tool_dir:  # where a user who installed the tool has it: on PATH
            self.environment["PATH"] = os.pathsep.join([*(str(d.resolve()) for d in args.tool_dir),
                                                        self.environment.get("PATH", os.defpath)])
        self.gpu = self.has_gpu()
        self.counts = {"passed": 0, "failed": 0, "text": 0, "fragment": 0, "gpu": 0, "unchecked output": 0}
        self.failures: list[str] = []

    def has_gpu(self) -> bool:
        """Whether the installed probe finds the driver (libcuda): then no-gpu outputs are not checked."""
        probe = subprocess.run([str(self.prefix / "bin" / "cubind-probe"), "--json"], capture_output=True,
                               text=True, env=self.environment, check=True)
        return any(lib["name"] == "driver" and lib["found"] for lib in json.loads(probe.stdout)["libraries"])

    def page_directory(self, page: Path) -> Path:
        directory = self.work / str(page.with_suffix("")).replace("/", "-")
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        for entry in self.checkout.iterdir():
            if entry.name not in (".git", "build"):
                (directory / entry.name).symlink_to(entry)
        (directory / "build").symlink_to(self.build)
        (directory / ".snippets").mkdir()
        return directory

    def command(self, argv: list[str], cwd: Path, extra: dict[str, str] | None = None) -> Outcome:
        environment = self.environment | (extra or {})
        try:
            done = subprocess.run(argv, cwd=cwd, env=environment, capture_output=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return Outcome(124, "", f"timed out after {TIMEOUT} s")
        return Outcome(done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"))

    def c_build(self, source: Path, output: Path, cwd: Path) -> Outcome:
        """Compiles and links source with gcc and with clang, warnings as errors."""
        for compiler in ("gcc", "clang"):
            built = self.command([compiler, *C_FLAGS, f"-I{self.prefix}/include", str(source), "-o",
                                  f"{output}-{compiler}", f"-L{self.prefix}/lib", "-lcubind",
                                  f"-Wl,-rpath,{self.prefix}/lib"], cwd)
            if built.status or built.stderr:
                return Outcome(built.status or 1, built.stdout, f"{compiler}: {built.stderr}")
        return Outcome(0, "", "")

    def run_block(self, block: Block, number: int, cwd: Path) -> Outcome | None:
        """Runs one block; None when the block is not run (text, fragment)."""
        kind = block.kind()
        if kind in ("text", "fragment", "output"):
            return None
        if kind == "file":
            assert block.marker is not None
            target = cwd / block.marker.name
            if target.is_symlink():  # a link to the checkout's own file: the page's file replaces it, here only
                target.unlink()
            target.write_text(block.text)  # built by the block that uses it, as printed
            return Outcome(0, "", "")
        source = cwd / ".snippets" / f"{number:02d}{SUFFIX[block.language]}"
        source.write_text(block.text)
        run = kind != "gpu"
        language = block.language
        if language in ("sh", "bash"):
            shell = "bash" if language == "bash" else "sh"
            if not run:
                return self.command([shell, "-n", str(source)], cwd)
            extra = {"MAKEFLAGS": "n"} if kind == "dry-run" else None
            return self.command([shell, "-e", str(source)], cwd, extra)
        if language == "c":
            built = self.c_build(source, source.with_suffix(""), cwd)
            return built if built.status or not run else self.command([f"{source.with_suffix('')}-gcc"], cwd)
        if language == "lua":
            return self.command(["luajit", str(source)] if run else
                                ["luajit", "-b", str(source), str(source.with_suffix(".out"))], cwd)
        if language == "python":
            return self.command([PYTHON, str(source)] if run else [PYTHON, "-m", "py_compile", str(source)], cwd)
        if language == "rust":
            built = self.command(["rustc", "--edition", "2021", "-D", "warnings", "-o",
                                  str(source.with_suffix("")), str(source)], cwd)
            return built if built.status or built.stderr or not run else \
                self.command([str(source.with_suffix(""))], cwd)
        if language == "toml":
            try:
                tomllib.loads(block.text)
            except tomllib.TOMLDecodeError as error:
                return Outcome(1, "", f"not valid TOML: {error}")
            return Outcome(0, "", "")
        raise AssertionError(f"no runner for {language}")  # extract.check_blocks refused it

    def judge(self, block: Block, outcome: Outcome, expected: Block | None) -> str | None:
        """Why the block failed, or None."""
        if expected is None:
            if outcome.status != 0:
                return outcome.describe()
            if outcome.stderr.strip():
                return f"it wrote to stderr:\n{outcome.stderr.strip()}"
            return None
        assert expected.marker is not None
        if expected.marker.no_gpu and self.gpu:
            self.counts["unchecked output"] += 1
            return None
        if outcome.status != expected.marker.exit_status:
            return f"expected exit status {expected.marker.exit_status}; {outcome.describe()}"
        # The two streams reach a terminal interleaved, a pipe each whole: either order is accepted.
        actual = outcome.stdout + outcome.stderr
        if not (expected_output(expected.text, actual) or expected_output(expected.text, outcome.stderr + outcome.stdout)):
            return f"its output is not the one printed at {expected.where}:\n{actual.strip()}"
        return None

    def run_page(self, page: Page) -> None:
        cwd = self.page_directory(page.path)
        for number, block in enumerate(page.blocks):
            kind = block.kind()
            if kind in ("text", "fragment"):
                self.counts[kind] += 1
                continue
            if kind == "output":
                continue
            following = page.blocks[number + 1] if number + 1 < len(page.blocks) else None
            expected = following if following is not None and following.kind() == "output" else None
            outcome = self.run_block(block, number, cwd)
            assert outcome is not None
            if kind == "gpu":
                self.counts["gpu"] += 1
            reason = self.judge(block, outcome, expected)
            if reason:
                self.fail(f"{block.where} ({block.language}, {kind}): {reason}")
            else:
                self.counts["passed"] += 1

    def fail(self, message: str) -> None:
        self.counts["failed"] += 1
        self.failures.append(message)
        print(f"snippets: FAILED {message}", flush=True)


def check_links(pages: list[Page], root: Path, only_installed: bool) -> list[str]:
    """Relative links that name no file, or a heading that is not there."""
    errors = []
    for page in pages:
        source = root / page.path
        if not source.exists():
            continue
        text = re.sub(r"^ {0,3}(```|~~~).*?^ {0,3}\1", "", source.read_text(), flags=re.S | re.M)
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue
            path_part, _, anchor = target.partition("#")
            resolved = (source.parent / path_part).resolve() if path_part else source.resolve()
            inside = resolved.is_relative_to(root.resolve())
            if only_installed and not (inside and resolved.suffix in (".md", ".c", ".h", ".py", ".lua", ".rs")):
                continue
            if not resolved.exists():
                if only_installed and not installed_kind(resolved, root):
                    continue
                errors.append(f"{page.path}: link to {target}: no such file")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                errors.append(f"{page.path}: link to {target}: no such heading")
    return errors


def installed_kind(path: Path, root: Path) -> bool:
    """Whether `make install` installs such a file (its documentation: pages, API, examples)."""
    relative = path.resolve().relative_to(root.resolve())
    return relative.parts[:1] in (("docs",), ("examples",)) or relative.parts[:2] == ("generated", "docs")


def anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings."""
    found = set()
    for line in page.read_text().split("\n"):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading[1].lower()).replace(" ", "-")
            found.add(slug)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkout", type=Path, required=True)
    parser.add_argument("--build", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--installed-docs", type=Path, help="share/doc/cubind of the installed tree")
    parser.add_argument("--tool-dir", type=Path, action="append", default=[],
                        help="a folder put first on PATH: a tool the pages run that the tests fetched (julia)")
    parser.add_argument("pages", type=Path, nargs="+")
    args = parser.parse_args()

    pages = [parse_page(path, (args.checkout / path).read_text()) for path in args.pages]
    runner = Runner(args)
    for error in check_links(pages, args.checkout, only_installed=False):
        runner.fail(error)
    if args.installed_docs:
        for error in check_links(pages, args.installed_docs, only_installed=True):
            runner.fail(f"installed: {error}")
    for page in pages:
        for error in page.errors:  # a page whose blocks are not all marked right is not run at all
            runner.fail(error)
        if not page.errors:
            runner.run_page(page)
    counts = runner.counts
    blocks = sum(len(page.blocks) for page in pages)
    print(f"snippets: {counts['passed']} passed, {counts['failed']} failed ({blocks} blocks in {len(pages)} pages; "
          f"not run: {counts['text']} text, {counts['fragment']} fragments; {counts['gpu']} needing a GPU "
          f"built or parsed only" + (f"; a GPU is present: {counts['unchecked output']} no-gpu outputs not checked"
                                     if runner.gpu else "") + ")")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
