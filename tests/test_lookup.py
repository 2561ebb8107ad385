"""Finding catalog rows by the names people type (costmodel.lookup) and `costmodel catalog`."""

import datetime as dt
import json

import pytest

import costmodel
from costmodel import lookup
from costmodel.catalog import default_catalog
from costmodel.cli import main


def test_period_end_takes_the_last_day_the_as_of_names():
    assert lookup.period_end("2026") == dt.date(2026, 12, 31)
    assert lookup.period_end("2026-09") == dt.date(2026, 9, 30)
    assert lookup.period_end("2024-02") == dt.date(2024, 2, 29)  # a leap year
    assert lookup.period_end("2026-11-30") == dt.date(2026, 11, 30)


def test_months_between_counts_whole_months():
    assert lookup.months_between(dt.date(2026, 5, 31), dt.date(2026, 11, 30)) == 5  # a day short of 6
    assert lookup.months_between(dt.date(2026, 5, 31), dt.date(2026, 12, 1)) == 6
    assert lookup.months_between(dt.date(2026, 12, 31), dt.date(2026, 12, 1)) == 0  # not yet past


def test_a_price_is_stale_after_six_months_and_a_spec_never():
    catalog = default_catalog()
    offer = catalog.cloud_offers["nebius-h100"]  # as of 2026-09: true until 2026-09-30
    assert not lookup.stale_rows([offer], dt.date(2027, 3, 30))  # 6 months: not past the limit
    [stale] = lookup.stale_rows([offer], dt.date(2027, 4, 30))  # 7 months
    assert (stale.age_months, stale.limit_months) == (7, 6)
    assert stale.describe() == (
        "data/cloud_prices.csv: nebius-h100 is as of 2026-09, more than 6 months before "
        "2027-04-30 (rentals are flagged after 6 months)"
    )
    gpu = catalog.gpus["A100-SXM-80GB"]  # a datasheet of 2021 does not age
    assert not lookup.stale_rows([gpu], dt.date(2030, 1, 1))


def test_a_row_cited_twice_is_flagged_once():
    offer = default_catalog().cloud_offers["nebius-h100"]
    assert len(lookup.stale_rows([offer, offer], dt.date(2030, 1, 1))) == 1


def test_search_takes_the_names_people_type():
    catalog = default_catalog()
    found = lookup.search(catalog, "h100")
    gpus = [m.ident for m in found if m.table == "gpus"]
    assert found[0].table == "gpus" and "H100-SXM-80GB" in gpus  # the GPUs before their servers and offers
    in_id = [m for m in found if m.rank <= 1]  # "h100" in the id itself
    assert in_id[:3] == [m for m in in_id if m.table == "gpus"] and all("H100" in m.ident for m in in_id[:3])
    assert all(m.rank == 3 for m in found if m.ident == "H800-SXM-80GB")  # only its notes name the H100
    found = {m.ident for m in lookup.search(catalog, "Claude Sonnet", ("api_offers",))}
    assert "anthropic-claude-sonnet-4-5" in found
    assert all("sonnet" in m.ident for m in lookup.search(catalog, "claude sonnet", ("api_offers",)))
    assert lookup.search(catalog, "no such thing anywhere") == []
    assert lookup.search(catalog, "  ") == []


def test_kind_names_and_their_aliases():
    assert (
        lookup.kind_of("rentals") == lookup.kind_of("cloud_prices") == lookup.kind_of("cloud-offers") == "cloud_offers"
    )
    assert lookup.kind_of("APIs") == "api_offers"
    assert lookup.kind_name("cloud_prices.csv") == "rentals"
    with pytest.raises(ValueError, match="the kinds are gpus, servers, rentals"):
        lookup.kind_of("gpu-prices")


def test_an_unknown_id_names_the_closest_and_the_catalog_command(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    text = costmodel.scenario_path("llama70b-vs-api").read_text().replace("offer: r1-brief-h100", "offer: r1-brief-h10")
    assert "r1-brief-h10\n" in text
    path.write_text(text)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "did you mean r1-brief-h100" in err and "options.rent.offer" in err
    many = len(default_catalog().cloud_offers) > 12
    assert ("costmodel catalog search r1-brief-h10" in err) == many and ("known: " in err) == (not many)


def test_catalog_show_gives_every_field_with_unit_and_source(capsys):
    assert main(["catalog", "show", "H100-SXM-80GB"]) == 0
    out = capsys.readouterr().out
    assert "data/gpus.csv: H100-SXM-80GB (gpus)" in out
    assert "memory_bandwidth_tb_s: 3.35 [TB/s]" in out and "tdp_w: 700 [W]" in out
    assert "grade: P (primary source)" in out and "source: NVIDIA H100 product page" in out


def test_catalog_show_of_an_unknown_id_suggests_and_exits_2(capsys):
    assert main(["catalog", "show", "nebius-h10"]) == 2
    assert "did you mean nebius-h100" in capsys.readouterr().err


def test_catalog_list_filters_and_prints_json(capsys):
    assert main(["catalog", "list", "servers", "--filter", "h200", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all("h200" in (r["server"] + r["gpu"] + r["notes"]).lower() for r in rows)
    assert all(r["file"] == "data/servers.csv" for r in rows)
    assert main(["catalog", "list", "prices"]) == 2
    assert "unknown kind 'prices'" in capsys.readouterr().err


def test_catalog_stale_lists_only_rows_past_their_limit(capsys):
    assert main(["catalog", "stale", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert all(r["age_months"] > r["limit_months"] for r in rows)
    assert {r["kind"] for r in rows} <= {lookup.kind_name(t) for t, m in lookup.STALE_AFTER_MONTHS.items() if m}


def test_compare_flags_the_stale_prices_it_uses(capsys):
    assert main(["compare", "h100-10k-cluster", "--json", "--no-uncertainty"]) == 0
    data = json.loads(capsys.readouterr().out)
    server = default_catalog().servers["hgx-h100-ib"]  # the scenario's server, priced 2024-08
    expected = [s.describe() for s in lookup.stale_rows([server])]
    assert expected and all(s in data["stale"] for s in expected)


def test_the_review_date_is_today_unless_stated(monkeypatch):
    monkeypatch.setenv("COSTMODEL_TODAY", "2027-06-30")
    assert lookup.review_date() == dt.date(2027, 6, 30)
    monkeypatch.setenv("COSTMODEL_TODAY", "")
    assert lookup.review_date() == dt.date.today()
    for bad in ("2027-6-30", "30/06/2027", "2027-02-30"):
        monkeypatch.setenv("COSTMODEL_TODAY", bad)
        with pytest.raises(ValueError, match="not a date as YYYY-MM-DD"):
            lookup.review_date()


def test_a_word_begins_a_word_of_the_row_not_any_part_of_it():
    catalog = default_catalog()
    gpus = {m.row.gpu for m in lookup.search(catalog, "l40s", ("cloud_offers",))}
    assert gpus == {"L40S-48GB"}  # not RunPod's 1x_L40_SECURE (L40 + SECURE)
    assert "GH200-96GB" not in {m.row.gpu for m in lookup.search(catalog, "h200", ("cloud_offers",))}
    [exact, *_] = lookup.search(catalog, "qwen3-32b")
    assert (exact.table, exact.ident, exact.rank) == ("models", "qwen3-32b", 0)
    assert "groq-qwen-qwen3-32b" in [m.ident for m in lookup.search(catalog, "groq-qwen3-32b")]


def test_catalog_show_ignores_case_and_list_sorts(capsys):
    assert main(["catalog", "show", "mi300x-192gb"]) == 0
    assert "data/gpus.csv: MI300X-192GB" in capsys.readouterr().out
    assert main(["catalog", "list", "rentals", "--filter", "b200", "--sort", "price_per_gpu_hour", "--json"]) == 0
    prices = [r["price_per_gpu_hour"] for r in json.loads(capsys.readouterr().out)]
    assert prices == sorted(prices) and len(prices) > 3
    assert main(["catalog", "list", "rentals", "--sort", "cost"]) == 2
    assert "not a column of rentals" in capsys.readouterr().err


def test_a_deprecated_api_offer_is_flagged_in_compare(tmp_path, capsys):
    deprecated = [o for o in default_catalog().api_offers.values() if o.deprecated]
    assert deprecated and all("deprecated by the provider" in o.notes for o in deprecated)
    path = tmp_path / "s.yaml"
    text = costmodel.scenario_path("qwen3-32b-small-server").read_text()
    path.write_text(text.replace("offer: aws-qwen-qwen3-32b-v1-0", "offer: cerebras-qwen-3-32b"))
    assert main(["compare", str(path), "--json", "--no-uncertainty"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert any("cerebras-qwen-3-32b (Cerebras, Qwen 3 32B) is deprecated by the provider" in w for w in warnings)
