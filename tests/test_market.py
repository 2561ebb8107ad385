"""The market in the catalog (issue 28): the counts the issue asks for, every row sourced and dated,
and a newcomer's question asked with catalog rows only."""

import datetime as dt

import pytest

import costmodel
from costmodel import lookup
from costmodel.catalog import default_catalog
from costmodel.domain.compare import compare
from costmodel.scenarios import scenario_path

NOT_PROVIDERS = {"R1 product brief", "DeepSeek-V3 report assumption"}  # rows of a case, not a market


def test_the_catalog_holds_the_market():
    c = default_catalog()
    assert len(c.gpus) >= 25 and len(c.servers) >= 25 and len(c.models) >= 60
    assert len(c.cloud_offers) >= 300
    assert len({o.provider for o in c.cloud_offers.values()} - NOT_PROVIDERS) >= 12
    assert len(c.api_offers) >= 500 and len({o.provider for o in c.api_offers.values()}) >= 20
    vendors = {g.name.split()[0] for g in c.gpus.values()}
    assert {"NVIDIA", "AMD", "Intel", "Google"} <= vendors
    assert {s.gpus_per_server for s in c.servers.values()} >= {1, 2, 4, 8, 72}


def test_every_row_has_a_source_and_an_as_of_date():
    for row in lookup.all_rows(default_catalog()):
        assert row.source.strip(), row.citation()
        assert lookup.period_end(row.as_of) <= dt.date(2027, 12, 31), row.citation()


@pytest.mark.parametrize(
    "text, kind, ident",
    [
        ("mi300x", "gpus", "MI300X-192GB"),
        ("h200", "gpus", "H200-SXM-141GB"),
        ("qwen3-32b", "models", "qwen3-32b"),
        ("gaudi 3", "gpus", "GAUDI3-128GB"),
        ("tpu v6e", "gpus", "TPU-V6E-32GB"),
    ],
)
def test_names_people_type_find_the_row(text, kind, ident):
    found = [(m.table, m.ident) for m in lookup.search(default_catalog(), text)]
    assert (lookup.kind_of(kind), ident) in found[:5]


def test_a_newcomers_question_needs_no_offers_block():
    """A 30B-class open model on a 2-GPU server against three rental providers and two API providers."""
    text = scenario_path("qwen3-32b-small-server").read_text()
    assert "\noffers:" not in text
    scenario = costmodel.load_scenario("qwen3-32b-small-server")
    c = default_catalog()
    assert c.servers[scenario.options.own.server].gpus_per_server in (1, 2)
    assert c.models[scenario.workload.serving.model].total_parameters > 25e9
    rentals = [scenario.options.rent, *scenario.options.rents]
    assert len({c.cloud_offers[r.offer].provider for r in rentals}) == 3
    apis = [scenario.options.api, *scenario.options.apis]
    assert len({c.api_offers[a.offer].provider for a in apis}) == 2
    result = compare(scenario)
    assert len(result.options) == 6
    figures = {o: result.decision.figure(o) for o in result.options}
    assert result.decision.winner == min(figures, key=figures.get)


def test_the_newcomers_api_costs_are_the_catalog_prices_by_hand():
    """Groq's Qwen3 32B at $0.29 in / $0.59 out per M tokens (genai-prices 0.2.3, groq/qwen/qwen3-32b):
    20 M tokens/day at 3:1 is 15 M input and 5 M output a day; x 365/12 days a month."""
    result = compare(costmodel.load_scenario("qwen3-32b-small-server"))
    by_hand = (15 * 0.29 + 5 * 0.59) * 365 / 12
    assert result.options["api"].monthly_cost == pytest.approx(by_hand, rel=1e-12)


def test_a_spot_discount_from_the_catalog_is_the_offers_spot_price():
    """primeintellect-primecompute-8xh100-80gb-104-752-us: $2.50 on demand, $1.00 spot per GPU-hour (SkyPilot's
    primeintellect vms.csv: $20 and $8 an 8-GPU instance-hour); with 0.02 interruptions x 0.5 h lost an hour the
    spot GPU-hour of work costs 1.00 / (1 - 0.01)."""
    from conftest import patched

    from costmodel.resolved import resolve

    offer = "primeintellect-primecompute-8xh100-80gb-104-752-us"
    spot = {
        "discount": "catalog",
        "interruptions_per_gpu_hour": 0.02,
        "work_lost_hours_per_interruption": 0.5,
        "source": "the offer's spot price",
    }
    r = resolve(patched("llama70b-vs-api", {"options.rent.offer": offer, "options.rent.spot": spot}))
    terms = r.options["rent"].spot
    assert terms.discount == pytest.approx(0.6, rel=1e-12)
    assert terms.price_per_gpu_hour == pytest.approx(1.00 / 0.99, rel=1e-12)


def test_a_spot_discount_from_the_catalog_needs_a_spot_price():
    from conftest import patched

    from costmodel.errors import InputError
    from costmodel.resolved import resolve

    spot = {
        "discount": "catalog",
        "interruptions_per_gpu_hour": 0.0,
        "work_lost_hours_per_interruption": 0.0,
        "source": "x",
    }
    with pytest.raises((InputError, ValueError), match="r1-brief-h100 has no spot price"):
        resolve(patched("llama70b-vs-api", {"options.rent.spot": spot}))


def test_a_replica_is_sized_on_the_own_servers_gpus_not_on_an_eight_gpu_server():
    """Llama 3.3 70B in BF16 needs 141 GB of weights (70.6e9 x 2 B) plus its KV cache: more than the
    2 x 48 GB x 0.9 = 86.4 GB of one 2 x L40S server, so a replica spans two servers (4 GPUs), and
    with one server per replica at most the scenario is refused naming the server's size."""
    from conftest import patched

    from costmodel.errors import InputError
    from costmodel.resolved import resolve

    bigger = {
        "workload.serving.model": "llama-3.3-70b",
        "workload.serving.precision": "bf16",
        "workload.serving.estimate.batch_size": 4,
        "workload.serving.kv_cache_tokens": 8000,
    }
    with pytest.raises((InputError, ValueError), match="a full server of 2 x 48 GB L40S-48GB"):
        resolve(patched("qwen3-32b-small-server", bigger))
    r = resolve(
        patched(
            "qwen3-32b-small-server",
            {
                **bigger,
                "workload.serving.max_servers_per_replica": 2,
                "options.rent.gpu_count": 4,
                "options.rents.0.gpu_count": 4,
                "options.rents.1.gpu_count": 4,
            },
        )
    )
    assert r.workload.gpus_per_replica == 4
    plan = r.workload.capacity.plan
    assert (plan.gpus_per_server, plan.servers_per_replica) == (2, 2)


def test_spot_terms_a_serving_workload_cannot_use_are_named():
    from conftest import patched

    spot = {"discount": 0.5, "interruptions_per_gpu_hour": 0.0, "work_lost_hours_per_interruption": 0.0, "source": "x"}
    notes = compare(patched("qwen3-32b-small-server", {"options.rent.spot": spot})).notes
    assert any(n.startswith("options.rent.spot is not used") for n in notes)
    batch = compare(patched("qwen3-32b-small-server", {"options.rent.spot": spot, "workload.interruptible": True}))
    assert not any(n.startswith("options.rent.spot is not used") for n in batch.notes)
