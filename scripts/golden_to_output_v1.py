"""Convert tests/golden/*.json, once, from the old ``compare --json`` to output schema 1.0.0.

Run once (issue 19): ``python scripts/golden_to_output_v1.py``. It does not run costmodel: it
moves every old key and value to its place in the new format (a number ``x`` → ``{"value":
x}``; a word such as "never" → ``{"value": null, "status": "never"}``; a unit to the ``unit``
beside its value, renamed to the scenario schema's unit names), so the golden test still
proves that no figure changed. Keys of the new format that the old one did not have
(``status`` next to a value, components, cash flows, uncertainty, versions) are not added.
"""

import json
import re
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"

WORDS = {
    "never": "never",
    "not defined": "not_defined",
    "not applicable": "not_applicable",
    "no limit": "no_limit",
    "no failure model": "not_applicable",
    "does not fit on one GPU": "never",
    "never within the horizon": "never",
}
UNITS = {
    "GPU-hours/month": "GPU-h/month",
    "TFLOP/s per GPU": "TFLOP/s/GPU",
    "days": "d",
    "share of wall-clock time": "-",
    "share of GPU-hours": "-",
    "share of paid hours busy": "-",
    "months after the decision": "months",
}


def key(name):
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def value(x):
    """A number or a word as a quantity (without the unit)."""
    if isinstance(x, str):
        return {"value": None, "status": WORDS[x]}
    return {"value": x}


def quantity(old):
    """An old ``{"value", "unit"}`` object, a bare number or a word, as a quantity."""
    if isinstance(old, dict):
        out = {"value": old["value"]}
        if "unit" in old:
            out["unit"] = UNITS.get(old["unit"], old["unit"])
        return out
    return value(old)


def option(old):
    new = {
        "label": old["label"],
        "monthly_cost": {"value": old["monthly_cost"], "unit": old["monthly_cost_unit"]},
        "cost_per_gpu_hour_used": value(old["cost_per_gpu_hour_used"]),
        "cost_per_million_tokens": value(old["cost_per_million_tokens"]),
        "configured_gpus": {"value": old["configured_gpus"]},
        "gpus": {"value": old["gpus"]},
        "utilisation_share": value(old["utilisation"]),
        "gpu_count_stepped_up": old["gpu_count_stepped_up"],
        "capacity_volume": value(old["capacity_volume"]),
    }
    assert set(old) == {
        "label",
        "monthly_cost",
        "monthly_cost_unit",
        "cost_per_gpu_hour_used",
        "cost_per_million_tokens",
        "configured_gpus",
        "gpus",
        "utilisation",
        "gpu_count_stepped_up",
        "capacity_volume",
    }, sorted(old)
    return new


def training(old):
    new = {}
    for name, to in (
        ("flop", "flop"),
        ("dense_peak", "dense_peak"),
        ("ideal_gpu_hours", "ideal_gpu_hours"),
        ("goodput", "goodput_share"),
        ("gpu_hours", "gpu_hours"),
        ("wall_clock_days", "wall_clock"),
        ("job_mtbf_hours", "job_mtbf"),
        ("checkpoint_interval_minutes", "checkpoint_interval"),
    ):
        new[to] = quantity(old.pop(name))
    held = old.pop("min_gpus_to_hold_state")
    new["min_gpus_sharded"] = {**value(held["sharded"]), "unit": held["unit"]}
    new["min_gpus_unsharded"] = {**value(held["unsharded"]), "unit": held["unit"]}
    new["cost"] = {
        o: {
            "total": {"value": c["value"], "unit": c["unit"]},
            "components": {key(k): {"value": v} for k, v in c["components"].items()},
        }
        for o, c in old.pop("cost").items()
    }
    assert not old, sorted(old)
    return new


def finance(old):
    new = {
        "horizon": {"value": old.pop("horizon_months")},
        "discount_rate_per_year": {"value": old.pop("discount_rate_per_year")},
        "tco": {o: quantity(q) for o, q in old.pop("tco").items()},
        "npv": {o: quantity(q) for o, q in old.pop("npv").items()},
        "own_cost_per_used_gpu_hour": quantity(old.pop("own_cost_per_used_gpu_hour")),
        "own_utilisation_share": quantity(old.pop("own_utilisation")),
        "break_even_utilisation": {
            k: {"offer": b["offer"], "price": quantity(b["price"]), "utilisation_share": quantity(b["utilisation"])}
            for k, b in old.pop("break_even_utilisation").items()
        },
    }
    payback = old.pop("payback_month")
    if isinstance(payback, dict):
        new["payback_month"] = {"value": payback["value"], "unit": UNITS[payback["unit"]]}
        new["payback_against"] = payback["against"]
    else:
        new["payback_month"] = value(payback)
    assert not old, sorted(old)
    return new


def mix(old):
    new = {"profile": old.pop("profile")}
    for name in ("gpus", "layer_cost", "pure_options", "savings_against_pure"):
        new[name] = {k: quantity(q) for k, q in old.pop(name).items()}
    new["total"] = quantity(old.pop("total"))
    new["utilisation_share"] = {k: quantity(q) for k, q in old.pop("utilisation").items()}
    demand = old.pop("demand")
    new["demand_mean"] = quantity(demand["mean"])
    new["demand_peak"] = quantity(demand["peak_gpus"])
    new["prices"] = {
        k: {
            "fixed": {"value": p["fixed"]["value"], "unit": p["fixed"]["unit"].replace(" held", "")},
            "variable": {"value": p["variable"]["value"], "unit": p["variable"]["unit"].replace("busy ", "")},
            "note": p["note"],
        }
        for k, p in old.pop("prices").items()
    }
    if "if_steady" in old:
        steady = old.pop("if_steady")
        new["if_steady"] = {
            "gpus": {k: quantity(q) for k, q in steady["gpus"].items()},
            "total": quantity(steady["total"]),
        }
    assert not old, sorted(old)
    return new


def convert(old):
    old = dict(old)
    new = {
        "title": old.pop("title"),
        "currency": old.pop("currency"),
        "volume": {"value": old.pop("volume"), "unit": UNITS.get(old["volume_unit"], old.pop("volume_unit"))},
        "gpu_hours_used": {"value": old.pop("gpu_hours_used_per_month")},
        "options": {name: option(o) for name, o in old.pop("options").items()},
        "cheapest": old.pop("cheapest"),
        "runner_up": old.pop("runner_up"),
        "margin": {"value": old.pop("margin")},
        "margin_share": value(old.pop("margin_share_of_runner_up")),
        "cheapest_by_volume": [
            {"volume_from": {"value": c["from"]}, "volume_to": {"value": c["to"]}, "option": c["option"]}
            for c in old.pop("cheapest_by_volume")
        ],
        "break_evens": [
            {
                "options": b["options"],
                "volume": value(b["volume"]),
                "kind": b["kind"],
                "cheaper_below": b["cheaper_below"],
                "cheaper_above": b["cheaper_above"],
                "all_volumes": {"values": b["all_volumes"]},
                "searched_from": {"value": b["searched"][0]},
                "searched_to": {"value": b["searched"][1]},
            }
            for b in old.pop("break_evens")
        ],
        "estimates": old.pop("estimates"),
    }
    old.pop("volume_unit", None)
    if "training_run" in old:
        new["training_run"] = training(dict(old.pop("training_run")))
    if "finance" in old:
        new["finance"] = finance(dict(old.pop("finance")))
    if "cheapest_mix" in old:
        new["cheapest_mix"] = mix(dict(old.pop("cheapest_mix")))
    assert not old, sorted(old)
    return new


def main() -> int:
    for path in sorted(GOLDEN.glob("*.json")):
        data = json.loads(path.read_text())
        if isinstance(data.get("margin"), dict):
            print(f"{path.name}: already converted", file=sys.stderr)
            continue
        path.write_text(json.dumps(convert(data), indent=2) + "\n")
        print(f"{path.name}: converted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
