"""The JSON of `fleet`, `diff` and `bills` each follow a contract of their own (data/schemas/*-output.schema.json),
not the comparison's: their schema_version is theirs, and every document the commands print validates."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import jsonschema
import pytest

import costmodel
from costmodel.cli import main
from costmodel.presentation.documents import DOCUMENTS, SCHEMA_VERSIONS, document, document_json_schema

ROOT = Path(__file__).resolve().parents[1]
FLEETS = ["two-teams.yaml", "serve-and-finetune.yaml"]
BILLS = ["focus_sample.csv", "focus_sample_data_1_0.csv"]


def committed(kind: str) -> dict:
    return json.loads((ROOT / "data" / "schemas" / f"{kind}-output.schema.json").read_text(encoding="utf-8"))


def printed(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("kind", DOCUMENTS)
def test_the_committed_schemas_are_the_models(kind, capsys):
    # regenerate with `costmodel schema --output KIND > data/schemas/KIND-output.schema.json`
    assert committed(kind) == document_json_schema(kind) == printed(capsys, ["schema", "--output", kind])
    jsonschema.Draft202012Validator.check_schema(committed(kind))


def test_schema_output_without_a_kind_is_still_the_comparison(capsys):
    assert printed(capsys, ["schema", "--output"]) == costmodel.output_json_schema()


@pytest.mark.parametrize("name", FLEETS)
def test_fleet_json_follows_its_contract(name, capsys):
    data = printed(capsys, ["fleet", str(ROOT / "data" / "fleets" / name), "--json"])
    jsonschema.Draft202012Validator(committed("fleet")).validate(data)
    assert data["schema_version"] == SCHEMA_VERSIONS["fleet"] != costmodel.SCHEMA_VERSION
    # the showback is money to the cent that adds up: allocated over the teams is the winner's figure
    total = sum(Decimal(s["allocated"]) for s in data["showback"])
    assert total == Decimal(str(round(data["figures"][data["winner"]], 2)))


def test_diff_json_follows_its_contract(capsys):
    data = printed(capsys, ["diff", "llama70b-vs-api", "llama70b-interactive", "--json"])
    jsonschema.Draft202012Validator(committed("diff")).validate(data)
    assert data["schema_version"] == SCHEMA_VERSIONS["diff"]
    for measure, m in data["measures"].items():
        assert m["change"] == pytest.approx(m["b"] - m["a"]), measure


@pytest.mark.parametrize("name", BILLS)
def test_bills_json_follows_its_contract_in_plain_decimals(name, capsys):
    data = printed(capsys, ["bills", str(ROOT / "data" / "bills" / name), "--json"])
    jsonschema.Draft202012Validator(committed("bills")).validate(data)
    assert data["schema_version"] == SCHEMA_VERSIONS["bills"]
    # the public sample's zero and sub-cent costs were written "0E-11" and "3.7020E-7"; plain notation now
    money = [row[key] for row in data["spend"] for key in ("billed_cost", "effective_cost")]
    assert money and not any("E" in m.upper() for m in money)
    assert sum(Decimal(m) for m in data["totals_by_month"].values()) == sum(
        Decimal(row["billed_cost"]) for row in data["spend"]
    )


def test_a_field_outside_the_contract_fails_loudly():
    data = json.loads(json.dumps({"a": "x", "b": "y", "currency": "USD", "method": "exact", "measures": {}}))
    data |= {"inputs": [], "other_differences": [], "other_effect": {}}
    assert document("diff", data)["a"] == "x"
    with pytest.raises(ValueError, match="surprise"):
        document("diff", data | {"surprise": 1})
