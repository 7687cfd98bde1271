"""docs/probe.schema.json, for every test that reads cubind-probe --json (tests/probe, tests/copies,
tests/machine): each report it parses goes through `validated`, so that a section or a key that drifts
from the schema (or the schema from the output) fails the test that produced it."""

import json
from pathlib import Path

import jsonschema

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "probe.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())


def validated(stdout: str) -> dict:
    """The JSON report, checked against the schema of docs/."""
    document = json.loads(stdout)
    VALIDATOR.validate(document)
    return document
