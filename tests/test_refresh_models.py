"""scripts/refresh_models.py: data/models.csv from the model configs of aiconfigurator-core 0.12.0."""

from __future__ import annotations

import csv
import importlib.resources
import importlib.util
import io
import json
from pathlib import Path

import pytest

from costmodel.formulas.serving import kv_cache_bytes_per_token

pytest.importorskip("aiconfigurator_core")

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location("refresh_models", ROOT / "scripts" / "refresh_models.py")
refresh = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(refresh)


@pytest.fixture(scope="module")
def generated():
    committed = (ROOT / "data" / "models.csv").read_text(encoding="utf-8")
    models, skipped, _ = refresh.refreshed(committed)
    return committed, models, skipped


@pytest.fixture(scope="module")
def rows(generated):
    return {r["model"]: r for r in csv.DictReader(io.StringIO(generated[0]))}


def config(stem: str) -> dict:
    folder = importlib.resources.files("aiconfigurator_core") / "model_configs"
    return json.loads((folder / f"{stem}_config.json").read_text(encoding="utf-8"))


def test_committed_csvs_are_the_scripts_output(generated):
    committed, models, skipped = generated
    assert models == committed
    assert skipped == (ROOT / "data" / "sources" / "aiconfigurator" / "not_imported_models.csv").read_text(
        encoding="utf-8"
    )


def test_check_fails_on_a_changed_csv(tmp_path, generated):
    changed = tmp_path / "models.csv"
    changed.write_text(generated[0].replace("qwen3-32b,", "qwen3-32b-x,", 1), encoding="utf-8")
    listed = tmp_path / "not_imported.csv"
    listed.write_text(generated[2], encoding="utf-8")
    assert refresh.main(["--check", "--path", str(changed), "--not-imported", str(listed)]) == 1
    changed.write_text(generated[0], encoding="utf-8")
    assert refresh.main(["--check", "--path", str(changed), "--not-imported", str(listed)]) == 0


def test_counts(rows, generated):
    assert len(rows) >= 60
    from_package = [r for r in rows.values() if "aiconfigurator-core 0.12.0" in r["source"]]
    assert len(from_package) >= 55
    # Every config of the package is a row or listed as not imported, with a reason.
    folder = importlib.resources.files("aiconfigurator_core") / "model_configs"
    files = {e.name for e in folder.iterdir() if e.name.endswith("_config.json")}
    listed = {r["config"]: r["reason"] for r in csv.DictReader(io.StringIO(generated[2]))}
    imported = {r["source"].split("model_configs/")[1].split(";")[0] for r in from_package}
    assert files == imported | set(listed)
    assert all(listed.values())


def test_existing_rows_are_kept(rows):
    # The five rows bundled scenarios use, with the figures they had before the script.
    kept = {
        "llama-2-70b": ("6.9e10", "6.9e10", "80", "2048"),
        "llama-3.1-8b": ("8.03e9", "8.03e9", "32", "2048"),
        "llama-3.3-70b": ("7.06e10", "7.06e10", "80", "2048"),
        "llama-3.1-405b": ("4.05e11", "4.05e11", "126", "2048"),
        "deepseek-v3": ("6.71e11", "3.7e10", "61", "576"),
    }
    for model, figures in kept.items():
        row = rows[model]
        assert (
            row["total_parameters"],
            row["active_parameters"],
            row["layers"],
            row["kv_elements_per_token_per_layer"],
        ) == figures
        assert "aiconfigurator" not in row["source"]


def test_llama_3_1_8b_count_by_hand():
    # meta-llama/Llama-3.1-8B config: vocab 128,256, hidden 4,096, 32 layers, 32 heads of 128, 8 KV heads,
    # intermediate 14,336, untied output head.
    #   embeddings + head: 2 x 128,256 x 4,096                          = 1,050,673,152
    #   per layer: Q, O 2 x 4,096 x 4,096 = 33,554,432; K, V 2 x 4,096 x 1,024 = 8,388,608;
    #              MLP 3 x 4,096 x 14,336 = 176,160,768; 2 norms 8,192     =   218,112,000
    #   32 layers                                                      = 6,979,584,000
    #   final norm                                                     =         4,096
    #   total                                                          = 8,030,261,248
    # The model card (https://huggingface.co/meta-llama/Llama-3.1-8B) gives 8.03B.
    found = refresh.count(config("meta-llama--Meta-Llama-3.1-8B"))
    assert found["total"] == found["active"] == 8_030_261_248
    assert (found["layers"], found["kv"], found["kv_heads"], found["head_dim"]) == (32, 2048, 8, 128)
    assert found["hidden"] == 4096


def test_hidden_size():
    # Widths of the residual stream: Llama 3 Herd of Models (arXiv 2407.21783) Table 3, model dimension 4,096
    # (8B) and 8,192 (70B, the hand-kept row's source: Llama-3.3-70B-Instruct config.json, hidden 8192);
    # DeepSeek-V3 Technical Report (arXiv 2412.19437) section 4.2, hidden dimension 7,168. A new column is
    # filled in hand-kept rows from the package; a row the package lacks and whose source gives none stays empty.
    rows = {r["model"]: r for r in csv.DictReader(io.StringIO((ROOT / "data" / "models.csv").read_text()))}
    assert (rows["llama-3.1-8b"]["hidden_size"], rows["llama-3.3-70b"]["hidden_size"]) == ("4096", "8192")
    assert rows["deepseek-v3"]["hidden_size"] == "7168"
    assert rows["llama-2-70b"]["hidden_size"] == ""


@pytest.mark.parametrize(
    "stem, total, active",
    [
        # Model cards' stated figures, typed here from the cards:
        ("Qwen--Qwen3-32B", 32.8e9, None),  # https://huggingface.co/Qwen/Qwen3-32B: 32.8B
        ("Qwen--Qwen3-30B-A3B", 30.5e9, 3.3e9),  # https://huggingface.co/Qwen/Qwen3-30B-A3B: 30.5B, 3.3B activated
        ("Qwen--Qwen3-235B-A22B", 235e9, 22e9),  # https://huggingface.co/Qwen/Qwen3-235B-A22B: 235B, 22B activated
        ("deepseek-ai--DeepSeek-V3", 671e9, 37e9),  # DeepSeek-V3 technical report (arXiv 2412.19437): 671B, 37B
        ("openai--gpt-oss-120b", 116.8e9, None),  # gpt-oss model card (arXiv 2508.10925): 116.8B total
        ("mistralai--Mixtral-8x7B-v0.1", 46.7e9, 12.9e9),  # Mistral AI, Mixtral of experts: 46.7B, 12.9B per token
    ],
)
def test_counts_agree_with_model_cards(stem, total, active):
    found = refresh.count(config(stem))
    assert found["total"] == pytest.approx(total, rel=0.02)
    if active:
        assert found["active"] == pytest.approx(active, rel=0.02)


def test_kv_bytes_per_token_gqa(rows):
    # Llama 3.1 8B at BF16: 2 (K and V) x 8 KV heads x 128 x 32 layers x 2 bytes = 131,072 B per token.
    row = rows["llama-3.1-8b"]
    assert kv_cache_bytes_per_token(int(row["layers"]), int(row["kv_elements_per_token_per_layer"]), "bf16") == 131_072


def test_kv_bytes_per_token_mla(rows):
    # DeepSeek-R1 (the DeepSeek-V3 architecture, MLA) at BF16: (512 latent + 64 RoPE key) x 61 layers x 2 bytes
    # = 70,272 B per token (DeepSeek-V3 technical report, arXiv 2412.19437, section 2.1.1).
    row = rows["deepseek-r1"]
    assert row["kv_heads"] == ""
    assert kv_cache_bytes_per_token(int(row["layers"]), int(row["kv_elements_per_token_per_layer"]), "bf16") == 70_272


def test_hybrid_rows_say_the_kv_figure_is_an_upper_bound(rows):
    for model in ("gpt-oss-120b", "qwen3.5-397b-a17b", "nemotron-3-nano-30b-a3b", "minimax-m3"):
        assert "upper bound" in rows[model]["notes"] or "not in the KV figure" in rows[model]["notes"], model
    # Nemotron 3 Nano: 6 of its 52 blocks are attention (2 KV heads of 128): 6 x 512 = 3,072 numbers per token.
    assert "exact 3,072 numbers per token" in rows["nemotron-3-nano-30b-a3b"]["notes"]
