"""Reading an IR's release fields (docs/ir.md), which store for an older release only what differs
from the newest: a release function's `signature`, `records` and `enums` are left out when they
are the newest release's, and `release_records[older]` holds only the layouts that differ from
the newest's (cudarc merges equal declarations across versions the same way). These give them
back whole; generator/release_compare.py writes them (`delta`)."""

from __future__ import annotations

DELTA_FIELDS = ("signature", "records", "enums")


def newest_name(ir: dict) -> str:
    return ir["releases"][0]["name"]


def function_in(function: dict, release: str, newest: str) -> dict:
    """`function.releases[release]` with the fields it shares with the newest release filled in."""
    entry = function["releases"][release]
    if release == newest or not entry.get("declared"):
        return entry
    base = function["releases"][newest]
    return {k: base[k] for k in DELTA_FIELDS if k not in entry} | entry


def records_in(ir: dict, release: str) -> dict:
    """Every layout of `release` the IR names: the newest release's, with the ones that differ."""
    records = ir.get("release_records", {})
    newest = newest_name(ir) if ir.get("releases") else release
    return records.get(newest, {}) | records.get(release, {}) if release != newest else records.get(release, {})


def delta(ir: dict) -> dict:
    """`ir` with what older releases share with the newest left out (in place)."""
    newest = newest_name(ir)
    for function in ir["functions"]:
        base = function["releases"][newest]
        for release, entry in function["releases"].items():
            if release != newest and entry.get("declared"):
                for key in DELTA_FIELDS:
                    if entry[key] == base[key]:
                        del entry[key]
    records = ir["release_records"]
    for release in list(records):
        if release != newest:
            records[release] = {name: layout for name, layout in records[release].items()
                                if records[newest].get(name) != layout}
    return ir
