"""Write data/api_energy.csv again from the EcoLogits package (MPL-2.0; its model data ship with it).

EcoLogits estimates the energy of one request to a hosted LLM from the model's (estimated)
active parameters, the output tokens and the provider's PUE (Rincé and Banse, EcoLogits
methodology, ecologits.ai). This script asks it for one request of 1,000 output tokens with
the latency its own data give (time to first token + 1,000 / tokens per second), and keeps the
energy range [Wh] and the embodied emissions [g CO2e] per 1,000 output tokens, so the model
reads a pinned, cited row at run time and needs no network and no EcoLogits import.

Run: .venv/bin/python scripts/make_api_energy.py   (needs the dev extra, which holds ecologits)
"""

from __future__ import annotations

import csv
import sys
from importlib.metadata import version
from pathlib import Path

from ecologits.model_repository import models
from ecologits.tracers.utils import PROVIDER_CONFIG_MAP, llm_impacts

OUT = Path(__file__).resolve().parents[1] / "data" / "api_energy.csv"
TOKENS = 1000

# data/api_prices.csv offer -> (EcoLogits provider, EcoLogits model name); None: not covered.
OFFERS = {
    "anthropic-claude-opus-4-5": ("anthropic", "claude-opus-4-5-20251101"),
    "anthropic-claude-sonnet-4-5": ("anthropic", "claude-sonnet-4-5-20250929"),
    "anthropic-claude-haiku-4-5": ("anthropic", "claude-haiku-4-5-20251001"),
}


def _range(value) -> tuple[float, float]:
    low = getattr(value, "min", value)
    high = getattr(value, "max", value)
    return float(low), float(high)


def rows() -> list[dict]:
    out = []
    for offer, (provider, name) in OFFERS.items():
        model = models.find_model(provider=provider, model_name=name)
        if model is None:
            print(f"{offer}: {provider}/{name} not in EcoLogits {version('ecologits')}", file=sys.stderr)
            continue
        latency = model.deployment.ttft + TOKENS / model.deployment.tps
        impacts = llm_impacts(provider, name, TOKENS, latency)
        energy_low, energy_high = _range(impacts.energy.value)
        embodied_low, embodied_high = _range(impacts.embodied.gwp.value)
        pue_low, pue_high = _range(PROVIDER_CONFIG_MAP[provider].datacenter_pue)
        warnings = "; ".join(w.code for w in (impacts.warnings or []))
        out.append(
            {
                "offer": offer,
                "ecologits_model": f"{provider}/{name}",
                "wh_per_1000_output_tokens_low": f"{energy_low * 1000:.4f}",
                "wh_per_1000_output_tokens_high": f"{energy_high * 1000:.4f}",
                "embodied_g_co2e_per_1000_output_tokens_low": f"{embodied_low * 1000:.4f}",
                "embodied_g_co2e_per_1000_output_tokens_high": f"{embodied_high * 1000:.4f}",
                "pue_low": f"{pue_low:g}",
                "pue_high": f"{pue_high:g}",
                "grid_region": "ecologits-usa",
                "quality": "U",
                "as_of": "2026-11",
                "source": (
                    f"ESTIMATE: EcoLogits {version('ecologits')} (MPL-2.0) llm_impacts for one request of "
                    f"{TOKENS} output tokens at latency ttft + {TOKENS}/tps from its models.json "
                    f"(tps {model.deployment.tps:g}, ttft {model.deployment.ttft:g} s); energy includes "
                    f"the provider PUE range; methodology ecologits.ai"
                ),
                "notes": warnings,
            }
        )
    return out


def main() -> None:
    data = rows()
    with OUT.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(data[0]))
        writer.writeheader()
        writer.writerows(data)
    print(f"wrote {len(data)} rows to {OUT}")


if __name__ == "__main__":
    main()
