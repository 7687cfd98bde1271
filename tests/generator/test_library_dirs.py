"""Where each target keeps its libraries ([[platform]] in generator/libraries.toml): generated into
generated/src/library_dirs.h, the compiler's predefined macros pick one, with no C code per target."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from generator import config

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "generated" / "src" / "library_dirs.h"
FIXTURE = ROOT / "tests" / "fixtures" / "fixture.toml"
PLATFORMS = config.load().platforms
# every macro any platform names: each preprocessing below defines only the target's own
EVERY_MACRO = sorted({m for p in PLATFORMS for m in p.macros})


def _strings(value: str) -> tuple[str, ...]:
    return tuple(re.findall(r'"([^"]*)"', value))


def _macros_for(platform: config.Platform) -> dict[str, str]:
    """CUBIND__PLATFORM_* as the preprocessor leaves them for a target predefining `platform`'s macros."""
    args = ["cpp", "-undef", "-dM", *(f"-D{m}" for m in platform.macros), str(HEADER)]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return {name: value for name, value in re.findall(r"^#define (CUBIND__PLATFORM_\w+) (.*)$", out, re.M)}


@pytest.mark.skipif(shutil.which("cpp") is None, reason="no C preprocessor")
@pytest.mark.parametrize("platform", PLATFORMS, ids=[p.name for p in PLATFORMS])
def test_each_target_builds_in_its_own_folders(platform: config.Platform) -> None:
    """With only its macros predefined (cpp -undef: none of the host's), a target gets its own root and
    system folders and ld.so cache bits, and the folders fit the loader's arrays."""
    macros = _macros_for(platform)
    assert _strings(macros["CUBIND__PLATFORM_ROOT_DIRS"]) == platform.root_dirs
    assert _strings(macros["CUBIND__PLATFORM_SYSTEM_DIRS"]) == platform.system_dirs
    flags = macros.get("CUBIND__PLATFORM_LD_CACHE_FLAGS")
    assert (int(flags, 16) if flags is not None else None) == platform.ld_cache_flags
    size = int(macros["CUBIND__PLATFORM_DIR_SIZE"])
    assert all(len(d) < size for d in platform.root_dirs + platform.system_dirs)


def test_arm_servers_and_jetson_are_placed() -> None:
    """aarch64: the toolkit's sbsa and Jetson targets, Debian's multiarch folder, Jetson's driver folders."""
    arm = next(p for p in PLATFORMS if "__aarch64__" in p.macros)
    assert {"targets/sbsa-linux/lib", "targets/aarch64-linux/lib", "lib/aarch64-linux-gnu"} <= set(arm.root_dirs)
    assert {"/usr/lib/aarch64-linux-gnu/nvidia", "/usr/lib/aarch64-linux-gnu/tegra"} <= set(arm.system_dirs)


def _with_platforms(tmp_path: Path, platforms: str) -> Path:
    text = FIXTURE.read_text()
    path = tmp_path / "platforms.toml"
    path.write_text(text[:text.index("[[platform]]")] + platforms)
    return path


@pytest.mark.parametrize("platforms, message", [
    ("", "no \\[\\[platform\\]\\]"),
    ('[[platform]]\nname = "a"\nmacros = ["__a__"]\nroot_dirs = ["lib"]\nsystem_dirs = ["/lib"]\n', "the last"),
    ('[[platform]]\nname = "a"\nroot_dirs = ["lib"]\nsystem_dirs = ["/lib"]\n'
     '[[platform]]\nname = "b"\nroot_dirs = ["lib"]\nsystem_dirs = ["/lib"]\n', "every platform but the last"),
    ('[[platform]]\nname = "a"\nroot_dirs = ["/lib"]\nsystem_dirs = ["/lib"]\n', "relative"),
    ('[[platform]]\nname = "a"\nroot_dirs = ["../lib"]\nsystem_dirs = ["/lib"]\n', "relative"),
    ('[[platform]]\nname = "a"\nroot_dirs = ["lib"]\nsystem_dirs = ["lib"]\n', "not an absolute folder"),
    ('[[platform]]\nname = "a"\nroot_dirs = ["lib", "lib"]\nsystem_dirs = ["/lib"]\n', "listed twice"),
    ('[[platform]]\nname = "a"\nroot_dirs = []\nsystem_dirs = ["/lib"]\n', "each name a folder"),
    ('[[platform]]\nname = "a"\nroot_dirs = ["lib"]\nsystem_dirs = ["/lib"]\nld_cache_flags = 3\n', "architecture byte"),
    ('[[platform]]\nname = "a"\nsystem_dirs = ["/lib"]\n', "root_dirs is missing"),
])
def test_a_platform_entry_is_checked(tmp_path: Path, platforms: str, message: str) -> None:
    with pytest.raises(config.ConfigError, match=message):
        config.load(_with_platforms(tmp_path, platforms))


def test_the_loader_page_lists_each_platforms_folders() -> None:
    """docs/loader.md's table of the folders of each platform says what the configuration says, row by
    row in its order."""
    text = (ROOT / "docs" / "loader.md").read_text()
    section = text[text.index("### The folders of each platform"):]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| target")]
    rows = rows[:len(PLATFORMS)]
    assert len(rows) == len(PLATFORMS)
    for row, platform in zip(rows, PLATFORMS):
        _, roots, systems = [cell.strip() for cell in row.strip("|").split("|")]
        assert tuple(re.findall(r"`([^`]+)`", roots)) == platform.root_dirs, platform.name
        assert tuple(re.findall(r"`([^`]+)`", systems)) == platform.system_dirs, platform.name
