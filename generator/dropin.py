"""The drop-in link library's sources (docs/dropin.md): for every bound library, a definition of
each exported symbol NVIDIA's headers make a program reference, forwarding to cubind's wrapper,
and the version script that exports exactly those names."""

from __future__ import annotations

import jinja2

from .model import Model


def render(env: jinja2.Environment, model: Model, common: dict) -> dict[str, str]:
    """dropin/<library>.c for each library, dropin/libcubind-dropin.map.in, and dropin/release.mk
    (the headers' CUDA release: the name of the installed mocks' newest folder)."""
    out = {f"dropin/{lib.library.name}.c": env.get_template("dropin.c.j2").render(common | {"lib": lib})
           for lib in model.libraries}
    out["dropin/libcubind-dropin.map.in"] = env.get_template("dropin.map.j2").render(common)
    out["dropin/release.mk"] = env.get_template("dropin_release.mk.j2").render(common)
    return out
