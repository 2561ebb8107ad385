"""Serving curves estimated with NVIDIA's AIConfigurator (aiconfigurator-core, issue 29).

The estimate is checked against measurements the catalog holds (NVIDIA NIM 1.8.0's benchmarking guide,
data/serving_curves.csv; TensorRT-LLM's performance overview, data/throughput.csv), the committed
estimated curves against the pinned package, and the sizing's order: measured, then estimated, then
first principles. Tests that generate curves need the ``estimate`` extra (CI installs it); the others
run on a default install.
"""

import csv
import gzip
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import costmodel
from costmodel import estimate
from costmodel.catalog import ESTIMATED_CURVES, ServingCurvePoint, estimate_validation, estimated_curves
from costmodel.cli import main
from costmodel.domain.compare import compare
from costmodel.formulas import serving_curves as sc
from costmodel.paths import DATA_DIR
from costmodel.presentation import text
from tests.conftest import patched

ROOT = Path(__file__).resolve().parents[1]
needs_package = pytest.mark.skipif(
    importlib.util.find_spec("aiconfigurator_core") is None,
    reason="aiconfigurator-core is not installed: pip install 'costmodel[estimate]'",
)


def _script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nim(concurrency):
    with (DATA_DIR / "serving_curves.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["curve"] == "nim18-llama33-70b-h100-fp8-tp2-5000-500" and float(row["concurrency"]) == concurrency:
                return float(row["output_tokens_per_second_per_gpu"])
    raise LookupError(concurrency)


# --- acceptance: the estimate against NIM's measured curve -------------------------------------------------


@needs_package
def test_llama_70b_fp8_on_two_h100_within_15_percent_of_nim_at_25_and_50():
    # NIM 1.8.0, Llama 3.3 70B FP8 TP2 on 2 x H100, 5,000/500 tokens: 311.7 and 407.185 output tokens/s per
    # GPU at concurrency 25 and 50 (data/serving_curves.csv). The estimate gives 300.3 and 391.3 (-3.7 %, -3.9 %).
    # one curve per step budget (5,000, 8,192 and 10,000 context tokens per step): the best at each concurrency
    rows = estimate.curve(
        "llama-3.3-70b",
        "H100-SXM-80GB",
        estimate.Request(5000, 500),
        precision="fp8",
        gpus_per_replica=2,
        batches=(25, 50),
    )
    assert len({r["curve"] for r in rows}) == 3
    got = {c: max(r["output_tokens_per_second_per_gpu"] for r in rows if r["concurrency"] == c) for c in (25, 50)}
    for c in (25, 50):
        assert got[c] == pytest.approx(_nim(c), rel=0.15)
    assert {r["quality"] for r in rows} == {"E"} and all(r["parallelism"] == "TP2" for r in rows)
    assert all(r["source"].startswith("aiconfigurator-core 0.12.0 estimate: TensorRT-LLM 1.3.0rc20") for r in rows)


@needs_package
def test_the_validation_file_is_what_the_pinned_package_gives():
    assert _script("validate_serving_estimates").main(["--check"]) == 0


def test_validation_band_is_the_committed_rows_and_holds_its_bounds():
    # data/serving_estimate_validation.csv: throughput errors of the 10 compared points lie within -12 % and
    # +8 % (TensorRT-LLM's H200 Llama 3.3 70B maximum is the low end, H100's the high end); the estimate's TTFT
    # is 46-87 % above NIM's measured mean (its prefill is slower than NIM's at 5,000 input tokens)
    with (DATA_DIR / "serving_estimate_validation.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    compared = [r for r in rows if r["throughput_error"]]
    for r in compared:
        measured = float(r["measured_output_tokens_per_second_per_gpu"])
        estimated = float(r["estimated_output_tokens_per_second_per_gpu"])
        assert float(r["throughput_error"]) == pytest.approx((estimated - measured) / measured, abs=1e-4)
    band = estimate_validation()
    assert band.throughput_points == len(compared) == 10
    assert band.throughput_low == min(float(r["throughput_error"]) for r in compared)
    assert -0.15 < band.throughput_low < 0 < band.throughput_high < 0.15
    assert band.ttft_points == 5 and 0.4 < band.ttft_low < band.ttft_high < 0.9
    # every measured row is in the file, compared or with the reason it is not
    assert all(r["status"].startswith(("compared", "not estimated: ")) for r in rows)
    assert {r["measured"] for r in rows} >= {
        "nim18-llama33-70b-h100-fp8-tp2-5000-500-c25",
        "trtllm-llama33-70b-h100-fp8-1k1k",
        "mlperf41-llama2-70b-h100-offline",
    }


# --- coverage and the curves command ----------------------------------------------------------------------


@needs_package
def test_an_uncovered_pair_is_refused_with_what_is_covered():
    with pytest.raises(estimate.NotCovered) as caught:
        estimate.check_covered("llama-3.3-70b", "L4-24GB", "trtllm")
    message = str(caught.value)
    assert "does not cover llama-3.3-70b on L4-24GB with trtllm" in message
    assert "H100-SXM-80GB" in message and "H200-SXM-141GB" in message and "costmodel curves --list" in message


@needs_package
def test_curves_command_writes_rows_in_the_catalog_columns(tmp_path, capsys):
    out = tmp_path / "curves.csv"
    assert (
        main(
            [
                "curves",
                "qwen3-8b",
                "H100-SXM-80GB",
                "--input-tokens",
                "1000",
                "--output-tokens",
                "1000",
                "--gpus-per-replica",
                "1",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    with out.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    with (DATA_DIR / "serving_curves.csv").open(encoding="utf-8", newline="") as handle:
        measured_columns = next(csv.reader(handle))
    assert list(rows[0])[: len(measured_columns)] == measured_columns
    assert {r["quality"] for r in rows} == {"E"} and {r["gpus_per_replica"] for r in rows} == {"1"}
    # on one curve (one step budget), more requests at once: more tokens/s per GPU, fewer per user
    one = [r for r in rows if r["curve"] == rows[0]["curve"]]
    assert rows[0]["curve"].endswith("-agg-1000-1000-ctx1000") and len(one) > 5
    per_gpu = [float(r["output_tokens_per_second_per_gpu"]) for r in one]
    per_user = [float(r["tokens_per_second_per_user"]) for r in one]
    assert per_gpu == sorted(per_gpu) and per_user == sorted(per_user, reverse=True)
    # the written file is a catalog file: it loads as serving-curve points
    assert ServingCurvePoint(**{k: v for k, v in rows[0].items() if v != ""}).estimated


@needs_package
def test_curves_command_refuses_an_uncovered_pair_with_the_covered_list(capsys):
    assert main(["curves", "llama-3.3-70b", "L4-24GB", "--input-tokens", "1000", "--output-tokens", "100"]) == 2
    err = capsys.readouterr().err
    assert "trtllm covers llama-3.3-70b on: A100-SXM-80GB" in err and "Traceback" not in err
    assert main(["curves", "no-such-model", "H100-SXM-80GB", "--input-tokens", "10", "--output-tokens", "10"]) == 2
    assert "not a model id of the catalog" in capsys.readouterr().err


@needs_package
def test_curves_command_refuses_what_no_curve_can_be(tmp_path, capsys):
    def refused(*extra):
        code = main(["curves", "qwen3-8b", "H100-SXM-80GB", "--gpus-per-replica", "1", *extra])
        err = capsys.readouterr().err
        assert code == 2 and "Traceback" not in err, err
        return err

    assert "needs at least 2" in refused("--input-tokens", "1000", "--output-tokens", "1")
    assert "context of 40,960 tokens" in refused("--input-tokens", "500000", "--output-tokens", "1000")
    assert "leaves none of the 2 input tokens" in refused(
        "--input-tokens", "2", "--output-tokens", "10", "--prefix-cache-hit-rate", "0.9"
    )
    # the lever rules of a scenario hold on the command line too
    assert "needs speculative_tokens" in refused(
        "--input-tokens", "10", "--output-tokens", "10", "--acceptance-rate", "0.7"
    )
    assert "need an acceptance_rate" in refused(
        "--input-tokens", "10", "--output-tokens", "10", "--speculative-tokens", "3"
    )
    # the file's format follows --json, and --list lists only
    assert "--out" in refused(
        "--input-tokens", "10", "--output-tokens", "10", "--json", "--out", str(tmp_path / "rows.csv")
    )
    assert main(["curves", "--list", "qwen3-8b"]) == 2 and "--list takes no MODEL" in capsys.readouterr().err
    # a folder that is not there yet is made
    out = tmp_path / "new" / "rows.json"
    assert (
        main(
            [
                "curves",
                "qwen3-8b",
                "H100-SXM-80GB",
                "--gpus-per-replica",
                "1",
                "--input-tokens",
                "100",
                "--output-tokens",
                "10",
                "--json",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    import json

    assert json.loads(out.read_text())[0]["quality"] == "E"


def test_a_request_beyond_the_models_context_is_refused():
    with pytest.raises(ValueError, match="exceed qwen3-32b's context of 40,960 tokens"):
        patched("qwen3-32b-chat-target", {"workload.serving.request": {"input_tokens": 30000, "output_tokens": 30000}})


@needs_package
def test_curves_list_names_every_covered_pair(capsys):
    assert main(["curves", "--list", "--json"]) == 0
    import json

    pairs = json.loads(capsys.readouterr().out)
    assert {"model": "llama-3.3-70b", "gpu": "H100-SXM-80GB", "engine": "trtllm"} in pairs
    assert len(pairs) == len(estimate.coverage()) > 500


@needs_package
def test_without_a_precision_the_command_takes_the_one_the_database_has(capsys):
    # gpt-oss ships MXFP4 experts; the database measures them as w4a16_mxfp4 only, so fp8 and bf16 fail
    assert (
        main(
            [
                "curves",
                "gpt-oss-20b",
                "H100-SXM-80GB",
                "--input-tokens",
                "1000",
                "--output-tokens",
                "1000",
                "--gpus-per-replica",
                "1",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "estimated at fp4" in captured.err and ",fp4,1,TP1," in captured.out
    assert "experts w4a16_mxfp4" in captured.out


@needs_package
def test_moe_replicas_are_split_with_expert_parallelism():
    rows = estimate.curve(
        "qwen3-30b-a3b", "H200-SXM-141GB", estimate.Request(1000, 1000), gpus_per_replica=2, batches=(8,)
    )
    assert {r["parallelism"] for r in rows} == {"TP2 EP2", "DP2 EP2"}


@needs_package
def test_disaggregated_curves_give_a_prefill_and_a_decode_phase():
    rows = estimate.curve(
        "qwen3-8b", "H100-SXM-80GB", estimate.Request(1000, 200), gpus_per_replica=1, disaggregated=True, batches=(1, 8)
    )
    prefill = [r for r in rows if r["phase"] == "prefill"]
    decode = [r for r in rows if r["phase"] == "decode"]
    assert len(prefill) == len(decode) == 2
    # prefill: input tokens/s per GPU = batch x input tokens / the batch's prefill time, on one GPU
    for r in prefill:
        assert r["input_tokens_per_second_per_gpu"] == pytest.approx(
            r["concurrency"] * 1000 / r["ttft_seconds"], rel=1e-4
        )
        assert r["output_tokens_per_second_per_gpu"] is None
    # decode: output tokens/s per GPU = batch x tokens/s per user
    for r in decode:
        assert r["output_tokens_per_second_per_gpu"] == pytest.approx(
            r["concurrency"] * r["tokens_per_second_per_user"], rel=1e-4
        )


@needs_package
def test_levers_change_the_estimate_the_way_they_should():
    request = estimate.Request(5000, 500)
    base = estimate.curve("qwen3-8b", "H100-SXM-80GB", request, gpus_per_replica=1, batches=(8,))[0]
    cached = estimate.curve(
        "qwen3-8b",
        "H100-SXM-80GB",
        request,
        gpus_per_replica=1,
        batches=(8,),
        levers=estimate.Levers(prefix_cache_hit_rate=0.8),
    )[0]
    assert cached["ttft_seconds"] < base["ttft_seconds"] and "prefix-cache hit rate 0.8" in cached["source"]
    with pytest.raises(ValueError, match="prefix_cache_hit_rate 1 is not in"):
        estimate.Levers(prefix_cache_hit_rate=1.0)


# --- the committed curves ---------------------------------------------------------------------------------


@needs_package
def test_a_sample_of_committed_curves_regenerates_with_the_pinned_package():
    assert _script("refresh_serving_curves").main(["--check", "6"]) == 0


def test_committed_curves_load_as_catalog_points():
    points = estimated_curves("qwen3-32b", "H200-SXM-141GB", "fp8")
    assert points and all(p.estimated and p.quality == "E" for p in points)
    assert points[0]._origin == f"data/{ESTIMATED_CURVES}"
    with gzip.open(DATA_DIR / ESTIMATED_CURVES, "rt", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len({(r["model"], r["gpu"]) for r in rows}) > 200
    assert estimated_curves("no-such-model", "H200-SXM-141GB", "fp8") == ()


def test_a_phase_row_states_its_own_figures():
    base = dict(
        point="p",
        curve="c",
        model="qwen3-8b",
        gpu="H100-SXM-80GB",
        precision="fp8",
        gpus_per_replica=1,
        parallelism="TP1",
        engine="x",
        input_tokens=1000,
        output_tokens=100,
        concurrency=1,
        ttft_statistic="mean",
        quality="E",
        as_of="2026-09",
        source="s",
    )
    with pytest.raises(ValueError, match="input_tokens_per_second_per_gpu"):
        ServingCurvePoint(**base, phase="prefill", ttft_seconds=0.1)
    with pytest.raises(ValueError, match="output_tokens_per_second_per_gpu"):
        ServingCurvePoint(**base, phase="aggregated", ttft_seconds=0.1)


# --- sizing: measured before estimated before first principles --------------------------------------------


def test_sizing_takes_the_measured_curve_where_there_is_one():
    # Llama 3.3 70B FP8 on H100 has NIM's measured curve and an estimated one: the measured one sizes it
    c = compare(costmodel.load_scenario("llama70b-interactive"))
    assert c.serving.point.basis == "measured" and c.serving.point.source.startswith("nim18-")


def test_sizing_takes_the_estimated_curve_where_nothing_is_measured():
    # aggregated, so the operating point is the curve's own point (disaggregated serving reads its decode part)
    c = compare(patched("qwen3-32b-chat-target", {"workload.serving.serving_mode": "aggregated"}))
    point = c.serving.point
    assert point.basis == "estimated with aiconfigurator-core's kernel database"
    assert point.source.startswith("aic-qwen3-32b-h200-fp8-") and "-trtllm-agg-1000-1000" in point.source
    # the operating point is a committed point that meets the target, never one beyond it
    committed = {p.point: p for p in estimated_curves("qwen3-32b", "H200-SXM-141GB", "fp8")}
    at = committed[re.search(r"estimated point (\S+)", point.source).group(1)]
    assert at.tokens_per_second_per_user >= 30 and point.tokens_per_second_per_user == pytest.approx(
        at.tokens_per_second_per_user
    )
    better = [
        p
        for p in committed.values()
        if p.curve == at.curve and p.output_tokens_per_second_per_gpu > at.output_tokens_per_second_per_gpu
    ]
    # each better point misses the target: too slow per user, or its mean TTFT read at p90 above 1 s
    assert better and all(
        p.tokens_per_second_per_user < 30 or sc.ttft_at_statistic(p.ttft_seconds, "mean", "p90") > 1.0 for p in better
    )
    words = text.describe_serving(c)
    assert "ESTIMATED with aiconfigurator" in words and "How far the estimate can be off" in words
    # disaggregated (the scenario's own choice): a point of the same estimated curves, its prefill in another pool
    pooled = compare(costmodel.load_scenario("qwen3-32b-chat-target")).serving.point
    assert pooled.basis == point.basis and pooled.source.startswith("aic-qwen3-32b-h200-fp8-")


def test_disaggregated_pools_are_sized_from_the_estimated_phase_curves():
    # the curves were estimated at the workload's 1,000/1,000 shape: the decode pool runs at a point of the
    # estimated decode curve (not the aggregated point with its prefill taken out), the best meeting 30 tokens/s
    c = compare(costmodel.load_scenario("qwen3-32b-chat-target"))
    assert c.serving.mode == "disaggregated"
    point = c.serving.point
    assert "from its own estimated prefill and decode curves" in point.source
    committed = {p.point: p for p in estimated_curves("qwen3-32b", "H200-SXM-141GB", "fp8")}
    at = committed[re.search(r"estimated point (\S+)", point.source).group(1)]
    assert at.phase == "decode" and at.tokens_per_second_per_user >= 30
    assert point.throughput_per_gpu == pytest.approx(at.output_tokens_per_second_per_gpu)
    assert point.tokens_per_second_per_user == pytest.approx(at.tokens_per_second_per_user)
    faster = [p for p in committed.values() if p.curve == at.curve and p.concurrency > at.concurrency]
    assert all(p.tokens_per_second_per_user < 30 for p in faster)


def test_a_curve_id_from_the_estimated_file_can_be_named_in_a_scenario():
    s = patched(
        "qwen3-32b-chat-target", {"workload.serving.curve": "aic-qwen3-32b-h200-fp8-tp2-trtllm-agg-1000-1000-ctx2000"}
    )
    c = compare(s)
    assert c.serving.point.source.startswith("aic-qwen3-32b-h200-fp8-tp2-")
    with pytest.raises(ValueError, match="unknown estimated serving curve .*13,700 ids"):
        patched("qwen3-32b-chat-target", {"workload.serving.curve": "aic-no-such-curve"})
    with pytest.raises(ValueError, match="did you mean aic-qwen3-32b-h200-fp8-tp2-trtllm-agg-1000-1000-ctx"):
        patched("qwen3-32b-chat-target", {"workload.serving.curve": "aic-qwen3-32b-h200-fp8-tp2-trtllm-agg-1000-1000"})


def test_a_model_without_any_curve_falls_back_to_first_principles_and_says_so():
    c = compare(costmodel.load_scenario("deepseek-v3-serving"))  # H800: not a system of the database
    assert c.serving.point.basis == "estimated from first principles"


# --- levers in a scenario ---------------------------------------------------------------------------------


def test_levers_at_their_defaults_change_nothing():
    base = compare(costmodel.load_scenario("qwen3-32b-chat-target"))
    off = compare(patched("qwen3-32b-chat-target", {"workload.serving.levers": {"prefix_cache_hit_rate": 0.0}}))
    assert off.serving.point == base.serving.point


def test_speculative_tokens_and_acceptance_come_together():
    with pytest.raises(ValueError, match="acceptance_rate above 0"):
        patched("qwen3-32b-chat-target", {"workload.serving.levers": {"speculative_tokens": 2}})
    with pytest.raises(ValueError, match="speculative_tokens of at least 1"):
        patched("qwen3-32b-chat-target", {"workload.serving.levers": {"acceptance_rate": 0.7}})


@needs_package
def test_a_prefix_cache_moves_the_curve_and_the_fleet():
    # Disaggregated serving of 1,000/1,000 turns: the higher the share of each prompt in the prefix cache, the
    # less the prefill pool works per request, so the first token comes sooner and the fleet carries more output
    # tokens/s per GPU; the curves are computed with the lever (its id and source say so)
    fleet, first_token = [], []
    for rate in (0.0, 0.3, 0.5, 0.9):
        c = compare(
            patched(
                "qwen3-32b-chat-target",
                {
                    "workload.serving.serving_mode": "disaggregated",
                    "workload.serving.levers": {"prefix_cache_hit_rate": rate},
                },
            )
        )
        fleet.append(c.serving.throughput_per_gpu)
        first_token.append(c.serving.point.ttft)
        if rate:
            assert f"-pc{rate:g}-" in c.serving.point.source
            assert f"prefix-cache hit rate {rate:g}" in c.serving.point.source
    assert fleet == sorted(fleet) and fleet[0] < fleet[-1]
    assert first_token == sorted(first_token, reverse=True) and first_token[-1] < first_token[0]
    # the prefill curve counts every input token a request brings, cached ones included: at batch b its rate
    # times the batch's prefill time is b x the input tokens
    rows = estimate.curve(
        "qwen3-32b",
        "H200-SXM-141GB",
        estimate.Request(1000, 1000),
        gpus_per_replica=1,
        disaggregated=True,
        batches=(1, 16),
        levers=estimate.Levers(prefix_cache_hit_rate=0.5),
    )
    for r in (r for r in rows if r["phase"] == "prefill"):
        assert r["input_tokens_per_second_per_gpu"] * r["ttft_seconds"] == pytest.approx(
            r["concurrency"] * 1000, rel=1e-4
        )


@needs_package
def test_levers_skip_curves_measured_without_them():
    c = compare(patched("llama70b-interactive", {"workload.serving.levers": {"kv_cache_precision": "fp8"}}))
    assert c.serving.point.basis == "estimated with aiconfigurator-core's kernel database"
    assert "-kvfp8" in c.serving.point.source


# --- the package is optional ------------------------------------------------------------------------------


def test_only_the_adapter_imports_aiconfigurator_core():
    importers = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "costmodel").rglob("*.py")
        if "aiconfigurator_core" in p.read_text(encoding="utf-8")
    ]
    assert importers == ["costmodel/estimate.py"]


def test_without_the_extra_the_bundled_scenarios_still_compare():
    # aiconfigurator_core made unimportable: every bundled scenario compares (the estimated curves are data),
    # and `costmodel curves` says how to install the extra instead of failing
    code = (
        "import sys\n"
        "sys.modules['aiconfigurator_core'] = None\n"
        "import importlib.metadata as md\n"
        "real = md.version\n"
        "md.version = lambda name: (_ for _ in ()).throw(md.PackageNotFoundError(name)) "
        "if name == 'aiconfigurator-core' else real(name)\n"
        "import costmodel\n"
        "from costmodel.cli import main\n"
        "for name in costmodel.bundled_scenarios():\n"
        "    s = costmodel.load_scenario(name)\n"
        "    costmodel.compare(s)\n"
        "print(costmodel.comparison_output(costmodel.compare('qwen3-32b-chat-target'))"
        ".serving.operating_point.basis)\n"
        "print(main(['curves', 'qwen3-8b', 'H100-SXM-80GB', '--input-tokens', '10', '--output-tokens', '10']))\n"
        "from tests.conftest import patched\n"
        "try:\n"
        "    costmodel.compare(patched('qwen3-32b-chat-target', {'workload.serving.levers': "
        "{'prefix_cache_hit_rate': 0.5}}))\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    basis, status = done.stdout.strip().splitlines()[-2:]
    assert basis == "estimated with aiconfigurator-core's kernel database" and status == "2"
    assert "pip install 'costmodel[estimate]'" in done.stderr
    # a scenario with levers says which field needs the extra
    assert "ScenarioError" in done.stderr and "workload.serving.levers" in done.stderr
