"""Plain formulas of numbers: each formula of the model once, broadcasting, with units and sources.

Every function takes scalars, numpy arrays or pandas Series (a Series in gives a Series
out, index kept), knows nothing of scenarios or pydantic, and documents its units, formula
and reference. The exceptions say so: a docstring with a "Not elementwise" paragraph (a function
of a whole series of cash flows, hours or months, one whose result is a whole count or None, one
that returns several figures together), and a parameter documented as "a scalar" (tests/
test_series.py holds every other function and parameter to the rule). The domain modules call
these; nothing recomputes them inline.

=====================  ==========================================================
module                 formulas
=====================  ==========================================================
``power``              drawn power, facility energy, electricity cost
``energy``             emissions, embodied per month, training MWh, J/token, meter kW, hourly tariff bill,
                       IT and facility kW, N+k provisioned kW
``capital``            depreciation, capital charge, capital-recovery factor, rates, present value, loans,
                       price paths
``staffing``           FTEs for a fleet, staffing cost
``cloud``              cloud storage, egress, always-on CPU nodes, a support plan with a minimum
``tokens``             output share, blended API price, GPU-hours for tokens
``fleet``              GPUs needed, whole units, servers needed, spares
``utilisation``        cost per used GPU-hour, break-even utilisation
``serving``            weight and KV-cache memory, replica size, throughput estimate
``pools``              at a latency target: prefill and decode pools' GPU time, replicas for a rate, KV cache
                       of a batch
``training``           6·N·D, GPU-hours at an MFU, MFU backed out, training state
``checkpoint``         job MTBF, failures by component, Young and Daly intervals, goodput, steps, GPU-hours lost
``parallelism``        memory per GPU: ZeRO-sharded model state, activations
``screening``          load-duration curve, busy shares, single-layer rule, demand served below a level
``returns``            NPV conventions, IRR, MIRR, ROI, payback, Fisher, residual curves, provider EBIT/NOI
``tax``                tax depreciation (straight line, declining balance, MACRS), shield
``roots``              roots in a bracket: vectorised scans, bisection
=====================  ==========================================================
"""

from .capital import (
    book_value_share,
    capital_charge,
    capital_recovery_factor,
    forward_factors_from_reserved,
    growth_factor,
    lease_payment,
    loan_balance,
    loan_payment,
    monthly_rate,
    present_value,
    step_factor,
    straight_line_depreciation,
    yearly_change_factor,
)
from .checkpoint import (
    checkpoint_steps,
    cluster_failures_per_year,
    daly_interval,
    failures_per_gpu_per_year_from_count,
    goodput_fraction,
    gpu_hours_lost_per_failure,
    interval_with_restart,
    job_mtbf_hours,
    mtbf_hours,
    time_lost_fraction,
    young_interval,
)
from .cloud import always_on_cost, egress_cost, storage_cost, support_plan_cost
from .energy import (
    embodied_per_month,
    emissions_kg,
    facility_power_kw,
    hourly_energy_cost,
    it_load_kw,
    joules_per_output_token,
    meter_power_kw,
    provisioned_power_kw,
    training_energy_mwh,
    weekly_hour_prices,
    wh_per_1000_tokens,
)
from .fleet import gpus_needed, gpus_per_server_step, servers_needed, servers_with_spares, whole_units
from .parallelism import activation_bytes_per_gpu, activation_bytes_per_layer, zero_state_bytes_per_gpu
from .pools import (
    disaggregated_gpu_seconds_per_token,
    disaggregated_ttft,
    kv_cache_bytes_of_batch,
    mean_kv_cache_bytes_in_flight,
    output_rate_to_provision,
    prefill_gpu_seconds_per_output_token,
    prefill_seconds,
    replicas_for_rate,
)
from .power import drawn_power_kw, electricity_cost, facility_energy_kwh
from .returns import (
    changes_sign,
    discounted,
    ebit,
    fisher_real_rate,
    irr,
    mirr,
    net_operating_income,
    npv_with_convention,
    payback,
    per_year,
    provider_revenue,
    residual_share,
    roi,
    yearly_totals,
)
from .screening import (
    SortedDemand,
    busy_shares,
    load_duration_curve,
    served_below,
    served_below_sorted,
    single_layer_level,
    sorted_demand,
)
from .serving import (
    estimate_output_throughput,
    kv_cache_bytes_per_token,
    lora_adapter_bytes,
    lora_adapters_resident,
    min_gpus_per_replica,
    weight_bytes,
)
from .staffing import fte_needed, staffing_cost
from .tax import declining_balance_shares, depreciation_shares, spread_yearly, tax_shield
from .tokens import api_price_parts, blended_api_price, gpu_hours_for_tokens, output_share, tokens_per_month
from .training import (
    achieved_tflops_from_gpu_hours,
    mfu_from_achieved_tflops,
    mfu_from_gpu_hours,
    mfu_from_tokens_per_second,
    min_gpus_for_training_state,
    training_flop,
    training_gpu_hours,
    wall_clock_gpu_hours,
)
from .utilisation import break_even_utilisation, cost_per_used_gpu_hour

__all__ = [
    "achieved_tflops_from_gpu_hours",
    "activation_bytes_per_gpu",
    "activation_bytes_per_layer",
    "checkpoint_steps",
    "failures_per_gpu_per_year_from_count",
    "gpu_hours_lost_per_failure",
    "mfu_from_achieved_tflops",
    "mfu_from_tokens_per_second",
    "wall_clock_gpu_hours",
    "zero_state_bytes_per_gpu",
    "embodied_per_month",
    "emissions_kg",
    "hourly_energy_cost",
    "joules_per_output_token",
    "meter_power_kw",
    "training_energy_mwh",
    "weekly_hour_prices",
    "wh_per_1000_tokens",
    "changes_sign",
    "discounted",
    "fisher_real_rate",
    "irr",
    "mirr",
    "npv_with_convention",
    "payback",
    "per_year",
    "residual_share",
    "roi",
    "yearly_totals",
    "declining_balance_shares",
    "depreciation_shares",
    "spread_yearly",
    "tax_shield",
    "lease_payment",
    "forward_factors_from_reserved",
    "step_factor",
    "yearly_change_factor",
    "api_price_parts",
    "blended_api_price",
    "book_value_share",
    "break_even_utilisation",
    "busy_shares",
    "capital_charge",
    "cost_per_used_gpu_hour",
    "daly_interval",
    "drawn_power_kw",
    "electricity_cost",
    "estimate_output_throughput",
    "facility_energy_kwh",
    "fte_needed",
    "goodput_fraction",
    "gpu_hours_for_tokens",
    "gpus_needed",
    "gpus_per_server_step",
    "growth_factor",
    "interval_with_restart",
    "job_mtbf_hours",
    "kv_cache_bytes_per_token",
    "lora_adapter_bytes",
    "lora_adapters_resident",
    "load_duration_curve",
    "loan_balance",
    "loan_payment",
    "mfu_from_gpu_hours",
    "min_gpus_for_training_state",
    "min_gpus_per_replica",
    "monthly_rate",
    "output_share",
    "present_value",
    "servers_needed",
    "served_below",
    "served_below_sorted",
    "sorted_demand",
    "SortedDemand",
    "servers_with_spares",
    "single_layer_level",
    "staffing_cost",
    "straight_line_depreciation",
    "time_lost_fraction",
    "tokens_per_month",
    "training_flop",
    "capital_recovery_factor",
    "cluster_failures_per_year",
    "mtbf_hours",
    "facility_power_kw",
    "it_load_kw",
    "provisioned_power_kw",
    "ebit",
    "net_operating_income",
    "provider_revenue",
    "training_gpu_hours",
    "weight_bytes",
    "whole_units",
    "young_interval",
    "disaggregated_gpu_seconds_per_token",
    "disaggregated_ttft",
    "kv_cache_bytes_of_batch",
    "mean_kv_cache_bytes_in_flight",
    "output_rate_to_provision",
    "prefill_gpu_seconds_per_output_token",
    "prefill_seconds",
    "replicas_for_rate",
    "always_on_cost",
    "egress_cost",
    "storage_cost",
    "support_plan_cost",
]
