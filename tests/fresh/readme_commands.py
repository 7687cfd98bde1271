"""The set-up commands of README.md, as printed: the first code block of its "## Set up" section,
one command a line (tests/fresh/run.sh runs them on a fresh machine).

    readme_commands.py README.md [COUNT]   the first COUNT commands (all without COUNT)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
import extract  # noqa: E402  (the docs' own parser of code blocks)

SECTION = "## Set up"


def commands(readme: Path) -> list[str]:
    text = readme.read_text()
    start = text.index(f"\n{SECTION}\n")
    line = text.count("\n", 0, start) + 2  # of the heading, 1-based
    page = extract.parse_page(readme, text)
    block = next(b for b in page.blocks if b.line > line and b.language in ("sh", "bash"))
    return [command for command in block.text.splitlines() if command.strip() and not command.lstrip().startswith("#")]


def main() -> int:
    found = commands(Path(sys.argv[1]))
    count = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] else len(found)
    print("\n".join(found[:count]))
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
