"""The one definition of what a call becomes in an older CUDA release (docs/releases.md): the
action names the IR writes per function and release (`function.releases[r].action`), the codes the
loader's release tables hold for them (templates/release_rules.h.j2 emits both into
generated/src/release_rules.h, which loader/releases.h, the mocks and the passthrough tests
include), and CUDA's release numbering (CUDA_VERSION's major * 1000 + minor * 10). Nothing else
spells these out."""

from __future__ import annotations

import enum


class Code(enum.IntEnum):
    """What the loader does with an entry of a release table (loader/releases.h). 0 is no entry:
    the function is called as in the newest release."""
    SYMBOL = 1    # another entry point with the newest ABI
    ADAPTER = 2   # a generated adapter that converts records field by field around the release's entry point
    REFUSED = 3   # never called: the newest form cannot be made with that release's entry points
    ABSENT = 4    # not declared by that release: never called

    @property
    def c_name(self) -> str:
        return f"CUBIND__RELEASE_{self.name}"


class Action(enum.Enum):
    """How a library of an older release is called to get the newest release's behaviour: the
    IR's `action`, written once per function and release by generator/release_compare.py."""
    CALL = "call"              # call_symbol has the newest ABI (the newest's symbol, or the release's own name)
    EQUIVALENT = "equivalent"  # another ABI under the function's name; call_symbol, a `_vN` of it, has the newest's
    ADAPT = "adapt"            # call_symbol through an adapter converting `conversions`' records field by field
    SEMANTIC = "semantic"      # call_symbol, another entry point, through a semantic adapter (generator/semantic.py)
    REFUSE = "refuse"          # no call: `reason` names the obstacle
    ABSENT = "absent"          # not declared by that release

    def code(self, call_symbol: str | None, newest_symbol: str) -> Code | None:
        """The loader's code for this action, None when the call is the newest release's own."""
        if self is Action.CALL:
            return None if call_symbol == newest_symbol else Code.SYMBOL
        return _CODES[self]

    @property
    def calls(self) -> bool:
        """Whether a library of that release is called (through call_symbol)."""
        return self not in (Action.REFUSE, Action.ABSENT)


# a semantic adapter is an adapter to the loader: a generated function called instead of the entry point
_CODES = {Action.EQUIVALENT: Code.SYMBOL, Action.ADAPT: Code.ADAPTER, Action.SEMANTIC: Code.ADAPTER,
          Action.REFUSE: Code.REFUSED, Action.ABSENT: Code.ABSENT}


def cuda_number(major: int, minor: int) -> int:
    """CUDA major.minor as CUDA_VERSION (and cudaRuntimeGetVersion) spells it: 13.0 -> 13000."""
    return major * 1000 + minor * 10


def cuda_name(number: int) -> str:
    """13000 -> '13.0'."""
    return f"{number // 1000}.{number % 1000 // 10}"
