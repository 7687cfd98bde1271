"""The IR contract: every generated/ir/*.json validates against ir.schema.json (docs/ir.md),
and the schema refuses what the contract forbids."""

import copy
import json
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "ir.schema.json").read_text())
IR_FILES = sorted((ROOT / "generated" / "ir").glob("*.json"))


def validator():
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(SCHEMA, format_checker=cls.FORMAT_CHECKER)


def test_there_is_ir():
    assert IR_FILES


@pytest.mark.parametrize("path", IR_FILES, ids=lambda p: p.stem)
def test_ir_validates(path):
    errors = sorted(validator().iter_errors(json.loads(path.read_text())), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{path.name}: /{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])


def _broken(change):
    ir = copy.deepcopy(json.loads(IR_FILES[0].read_text()))
    change(ir)
    return list(validator().iter_errors(ir))


@pytest.mark.parametrize("change", [
    lambda ir: ir["functions"][0].pop("symbol"),                        # a required field missing
    lambda ir: ir["functions"][0].update(surprise=1),                   # a field the contract does not name
    lambda ir: ir["functions"][0]["params"][0].update(category="blob"),  # a category that is not one
    lambda ir: ir["types"].append({"kind": "enum", "name": "x"}),       # an incomplete type entry
    lambda ir: ir.update(ir_version=2),                                 # another IR version
    lambda ir: ir["constants"].append({"name": "X", "text": "1", "value": "1", "header": "a.h", "line": 1}),
], ids=["missing", "unknown-field", "category", "type-entry", "version", "constant-value"])
def test_schema_refuses(change):
    assert _broken(change)
