"""The semantic adapters in the checked-in IR (generator/semantic.toml, docs/releases.md "Semantic
adapters"): every mapping reaches the IR with its entry point's parameters as that release's headers
declare them, the functions it maps are no longer refused, the refused count per unit and release in
docs/releases.md is the IR's, and a mapping that does not fit its function is rejected; the records it
passes are checked by what their older layout cannot carry, and the [[selector]] and [[read_written]]
entries that say what the layouts do not reach the IR, or are rejected."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from generator import config, release_headers as releases, semantic
from generator.parse import IRError

ROOT = Path(__file__).resolve().parents[2]
IRS = {p.stem: json.loads(p.read_text()) for p in sorted((ROOT / "generated" / "ir").glob("*.json"))}
CONFIG = config.load()


def _refused(ir: dict, release: str) -> list[str]:
    """The functions of `ir` that no entry point of `release` can call: another ABI, no equivalent, no mapping."""
    return [f["name"] for f in ir["functions"]
            if f["releases"][release]["compat"] == "signature" and f["releases"][release]["equivalent"] is None
            and not f["releases"][release].get("semantic")]


def test_every_mapping_is_in_the_ir() -> None:
    assert CONFIG.semantic, "generator/libraries.toml names no semantic mappings"
    functions = {f["name"]: f for ir in IRS.values() for f in ir["functions"]}
    for m in CONFIG.semantic:
        for release in m["releases"]:
            s = functions[m["function"]]["releases"][release].get("semantic")
            assert s is not None, f"{m['function']} in CUDA {release}: no semantic entry in the IR"
            assert s["entry"] == m["entry"] and len(s["params"]) == len(m["args"])


def test_mapped_functions_are_not_refused() -> None:
    mapped = {(m["function"], r) for m in CONFIG.semantic for r in m["releases"]}
    for ir in IRS.values():
        for release in (r["name"] for r in ir["releases"][1:]):
            assert not {(name, release) for name in _refused(ir, release)} & mapped


def test_the_docs_say_the_refused_count_of_the_ir() -> None:
    """docs/releases.md's census: per unit and release, `signature: semantic` and `signature: refused`
    as the IR has them (the refused were those plus the mapped before the mappings)."""
    text = (ROOT / "docs" / "releases.md").read_text()
    for unit, ir in IRS.items():
        for release in (r["name"] for r in ir["releases"][1:]):
            mapped = sum(1 for f in ir["functions"] if f["releases"][release].get("semantic"))
            row = re.search(rf"^\| {re.escape(unit)} \| {re.escape(release)} \|(.*)\|$", text, re.MULTILINE)
            assert row, f"docs/releases.md has no census row for {unit} {release}"
            cells = [c.strip() for c in row.group(1).split("|")]
            assert int(cells[-3]) == mapped, f"{unit} {release}: semantic"
            assert int(cells[-2]) == len(_refused(ir, release)), f"{unit} {release}: refused"
    assert releases.census_table(list(IRS.values())) in text


def _runtime_function(name: str) -> dict:
    return copy.deepcopy(next(f for f in IRS["runtime"]["functions"] if f["name"] == name))


def test_a_mapping_that_does_not_fit_is_rejected() -> None:
    ir = {"functions": [_runtime_function("cudaMemPrefetchAsync")]}
    ir["functions"][0]["releases"]["11.8"].pop("semantic", None)
    ir["functions"][0]["releases"]["11.8"]["action"] = "refuse"  # as release_compare.py leaves it
    entry = {("cudaMemPrefetchAsync", "11.8"): {"entry": "cudaMemPrefetchAsync", "result": "enum cudaError",
                                                "params": ["const void *", "unsigned long", "int", "struct CUstream_st *"]}}
    good = next(m for m in CONFIG.semantic if m["function"] == "cudaMemPrefetchAsync")
    too_few = dict(good, args=good["args"][:3])
    with pytest.raises(IRError, match="takes 4 parameters"):
        semantic.attach(copy.deepcopy(ir), (too_few,), entry)
    unknown = dict(good, args=[*good["args"][:3], "streem"])
    with pytest.raises(IRError, match="no parameter 'streem'"):
        semantic.attach(copy.deepcopy(ir), (unknown,), entry)
    with pytest.raises(IRError, match="declare no"):
        semantic.attach(copy.deepcopy(ir), (good,), {})
    callable_there = copy.deepcopy(ir)
    callable_there["functions"][0]["releases"]["11.8"].update(compat="identical", action="call")
    with pytest.raises(IRError, match="callable there"):
        semantic.attach(callable_there, (good,), entry)


def test_a_union_member_is_checked_by_its_fields_the_older_release_lacks() -> None:
    """cudaGraphNodeParams in CUDA 12.4, passed as it is: the child-graph member lacks `ownership`,
    the allocation member's pool properties `usage`, each read from both layouts and checked only
    while `type` (the record's [[selector]]) says the member is in use; their offsets in the record
    are where the adapter's table looks."""
    f = _runtime_function("cudaGraphAddNode")
    adapter = semantic.adapter(f, "12.4", IRS["runtime"]["releases"][0]["name"], IRS["runtime"], 0, 0)
    assert adapter is not None and not adapter.checks
    [record] = adapter.records
    records = IRS["runtime"]["release_records"]["13.0"]
    holder = next(x for x in records["struct cudaGraphNodeParams"]["fields"] if x["kind"] == "record")
    ownership = next(x for x in records["struct cudaChildGraphNodeParams"]["fields"] if x["name"] == "ownership")
    usage = next(x for x in records["struct cudaMemPoolProps"]["fields"] if x["name"] == "usage")
    pool = next(x for x in records["struct cudaMemAllocNodeParamsV2"]["fields"] if x["name"] == "poolProps")
    assert [(p.offset, p.size, p.name, p.when.field, p.when.value) for p in record.not_carried] == [
        (holder["offset"] + ownership["offset"], ownership["size"], "graph.ownership", "type", "cudaGraphNodeTypeGraph"),
        (holder["offset"] + pool["offset"] + usage["offset"], usage["size"], "alloc.poolProps.usage", "type",
         "cudaGraphNodeTypeMemAlloc")]
    assert record.checked and record.old_record == "struct cudaGraphNodeParams"


def test_a_union_member_that_differs_without_a_selector_stops_the_generator() -> None:
    ir = copy.deepcopy(IRS["runtime"])
    ir["selectors"] = [s for s in ir["selectors"] if s["record"] != "struct cudaGraphNodeParams"]
    with pytest.raises(IRError, match=r"union member graph differs in CUDA 12.4.*\[\[selector\]\]"):
        semantic.adapter(_runtime_function("cudaGraphAddNode"), "12.4", ir["releases"][0]["name"], ir, 0, 0)


def test_a_record_passed_as_it_is_through_non_const_must_say_whether_it_is_read() -> None:
    f = _runtime_function("cudaGraphAddNode")
    del next(p for p in f["params"] if p["name"] == "nodeParams")["input"]
    with pytest.raises(IRError, match=r"passed as it is, and CUDA 12.4 cannot carry .*\[\[read_written\]\]"):
        semantic.adapter(f, "12.4", IRS["runtime"]["releases"][0]["name"], IRS["runtime"], 0, 0)


def test_selectors_and_read_written_parameters_are_in_the_ir() -> None:
    """Every [[selector]] reaches the IR of the unit laying its record out, every [[read_written]]
    parameter is marked `input` there; a mapping's require naming a union member is rejected (the
    record's selector says it, for every path)."""
    assert CONFIG.selectors and CONFIG.read_written
    selected = {s["record"]: s for ir in IRS.values() for s in ir.get("selectors", ())}
    for s in CONFIG.selectors:
        assert selected[s["record"]] == s
    params = {(f["name"], p["name"]): p for ir in IRS.values() for f in ir["functions"] for p in f["params"]}
    for r in CONFIG.read_written:
        assert params[(r["function"], r["param"])].get("input") is True
    assert sum(1 for p in params.values() if p.get("input")) == len(CONFIG.read_written)
    m = next(m for m in CONFIG.semantic if m["function"] == "cudaGraphAddNode")
    member = dict(m, require=[{"param": "nodeParams", "member": "graph", "when": {"field": "type", "equals": "x"}}])
    with pytest.raises(IRError, match=r"\[\[selector\]\]"):
        semantic._check_names(member, _runtime_function("cudaGraphAddNode"), "test")


def test_a_selector_or_read_written_entry_that_does_not_fit_is_rejected() -> None:
    def attach(selectors: tuple = (), read_written: tuple = ()) -> None:
        ir = copy.deepcopy(IRS["runtime"])
        ir.pop("selectors", None)
        semantic.attach_records(ir, selectors, read_written)

    good = next(s for s in CONFIG.selectors if s["record"] == "struct cudaGraphNodeParams")
    with pytest.raises(IRError, match="no enum field 'kind'"):
        attach((dict(good, field="kind"),))
    with pytest.raises(IRError, match="no member 'allocation'"):
        attach((dict(good, members={"allocation": "cudaGraphNodeTypeMemAlloc"}),))
    with pytest.raises(IRError, match="cudaMemAllocationTypePinned is not an enumerator of enum cudaGraphNodeType"):
        attach((dict(good, members={"alloc": "cudaMemAllocationTypePinned"}),))
    with pytest.raises(IRError, match="not a parameter cudaMemPoolCreate writes through"):
        attach(read_written=({"function": "cudaMemPoolCreate", "param": "poolProps"},))


def _driver_function(name: str) -> dict:
    return copy.deepcopy(next(f for f in IRS["driver"]["functions"] if f["name"] == name))


def test_a_record_of_another_name_is_passed_when_it_is_the_prefix() -> None:
    """CUDA 11.8's cuGraphAddKernelNode takes CUDA_KERNEL_NODE_PARAMS_st, 13.0's the _v2_st that
    extends it with kern and ctx: those must be zero (the record pair's table, checked at their
    offsets); a getter clears them; an older record whose field moved is rejected by the generator."""
    newest = IRS["driver"]["releases"][0]["name"]
    adapter = semantic.adapter(_driver_function("cuGraphAddKernelNode"), "11.8", newest, IRS["driver"], 0, 0)
    assert adapter is not None and not adapter.checks
    records = IRS["driver"]["release_records"][newest]
    fields = {x["name"]: x for x in records["struct CUDA_KERNEL_NODE_PARAMS_v2_st"]["fields"]}
    [record] = adapter.records
    assert record.old_record == "struct CUDA_KERNEL_NODE_PARAMS_st"
    assert [(p.offset, p.size, p.name, p.when) for p in record.not_carried] == [
        (fields[n]["offset"], fields[n]["size"], n, None) for n in ("kern", "ctx")]
    getter = semantic.adapter(_driver_function("cuGraphKernelNodeGetParams"), "11.8", newest, IRS["driver"], 0, 0)
    assert getter is not None and not getter.checks and not getter.records
    assert [w.statements for w in getter.after] == [
        [f"cubind__semantic_clear((unsigned char *)(void *)nodeParams + {fields[n]['offset']}, {fields[n]['size']}, 1);"]
        for n in ("kern", "ctx")]
    moved = copy.deepcopy(IRS["driver"])
    old = moved["release_records"]["11.8"]["struct CUDA_KERNEL_NODE_PARAMS_st"]
    next(x for x in old["fields"] if x["name"] == "gridDimX")["offset"] += 4
    with pytest.raises(IRError, match="gridDimX moved"):
        semantic.adapter(_driver_function("cuGraphAddKernelNode"), "11.8", newest, moved, 0, 0)


def test_every_refusal_names_its_obstacle() -> None:
    """Each function still refused in a release (no equivalent, no mapping): the reason says whether
    that release has an entry point with the newest parameters (which) or that it has none, and names
    the parameter in the way, by its name in the newest form."""
    refused = 0
    for ir in IRS.values():
        newest = ir["releases"][0]["name"]
        for f in ir["functions"]:
            names = {p["name"] for p in f["params"]}
            for release, d in f["releases"].items():
                if d.get("action") != "refuse":
                    continue
                refused += 1
                reason = d["reason"]
                has = re.match(rf"the CUDA {newest} form cannot be called: CUDA {re.escape(release)} has (\w+) with "
                               rf"the CUDA {newest} parameters, but parameter (\w+) ", reason)
                lacks = reason.startswith(f"the CUDA {newest} form does not exist: ")
                assert has or lacks, f"{f['name']} in CUDA {release}: {reason}"
                named = {has.group(2)} if has else set(re.findall(r"\w+", reason.split(": ", 1)[1]))
                assert named & names, f"{f['name']} in CUDA {release} names no parameter: {reason}"
    assert refused  # the driver's CUdevResource functions in 12.4 and 12.5, cuBLASLt's preference init in 11.8
