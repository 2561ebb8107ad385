"""data/gpus.csv and data/servers.csv are what scripts/refresh_gpus.py and refresh_servers.py make of
their pinned snapshots (aiconfigurator-core 0.12.0, data/sources/datasheets/accelerators.yaml and
data/sources/servers/servers.yaml), and a few figures agree with the vendors' documents."""

from __future__ import annotations

import csv
import importlib.util
import io
import sys
from pathlib import Path

import pytest

from costmodel.catalog import load_catalog
from costmodel.paths import DATA_DIR

ROOT = Path(__file__).resolve().parents[1]
AGREED_IDS = [
    "A100-SXM-80GB",
    "H100-SXM-80GB",
    "H800-SXM-80GB",
    "H200-SXM-141GB",
    "B200-SXM-180GB",
    "B300-SXM-288GB",
    "T4-16GB",
    "V100-SXM-16GB",
    "V100-SXM-32GB",
    "A10-24GB",
    "A10G-24GB",
    "L4-24GB",
    "L40-48GB",
    "L40S-48GB",
    "RTX-A6000-48GB",
    "RTX-4090-24GB",
    "RTX-5090-32GB",
    "RTX-PRO-6000-96GB",
    "A100-SXM-40GB",
    "A100-PCIE-40GB",
    "A100-PCIE-80GB",
    "H100-PCIE-80GB",
    "H100-NVL-94GB",
    "H200-NVL-141GB",
    "GH200-96GB",
    "GB200-NVL72-186GB",
    "GB300-NVL72-288GB",
    "MI300X-192GB",
    "MI325X-256GB",
    "MI355X-288GB",
    "GAUDI3-128GB",
    "TPU-V5E-16GB",
    "TPU-V5P-95GB",
    "TPU-V6E-32GB",
    "TPU-V7-192GB",
]


def _script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gpus_script():
    pytest.importorskip("aiconfigurator_core")
    return _script("refresh_gpus")


@pytest.fixture(scope="module")
def servers_script():
    return _script("refresh_servers")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_committed_gpu_files_are_the_scripts_output(gpus_script):
    files, _ = gpus_script.outputs()
    for path, text in files.items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run scripts/refresh_gpus.py"


def test_committed_servers_csv_is_the_scripts_output(servers_script):
    assert (DATA_DIR / "servers.csv").read_text(encoding="utf-8") == servers_script.csv_text()


def test_existing_rows_are_kept_verbatim_and_first(gpus_script):
    # The six rows bundled scenarios use: same cells as before issue 28, first in the file.
    files, messages = gpus_script.outputs()
    rows = list(csv.DictReader(io.StringIO(files[gpus_script.CSV])))
    assert [r["gpu"] for r in rows[:6]] == AGREED_IDS[:6]
    h100 = rows[1]
    assert (h100["bf16_dense_tflops"], h100["fp8_dense_tflops"], h100["memory_bandwidth_tb_s"]) == (
        "989",
        "1979",
        "3.35",
    )
    # aiconfigurator says 1978 FP8 for H100 and 7.7 TB/s for B200: reported, not applied.
    assert any("H100-SXM-80GB" in m and "1978" in m for m in messages)
    assert any("B200-SXM-180GB" in m and "7.7" in m for m in messages)


def test_check_mode_reports_a_changed_row_and_exits_1(gpus_script, tmp_path, monkeypatch, capsys):
    stale = tmp_path / "gpus.csv"
    stale.write_text(
        gpus_script.CSV.read_text().replace(
            "MI300X-192GB,AMD Instinct MI300X,192,", "MI300X-192GB,AMD Instinct MI300X,190,"
        )
    )
    monkeypatch.setattr(gpus_script, "CSV", stale)
    assert gpus_script.main(["--check"]) == 1
    assert "changed MI300X-192GB: memory_gb '190' -> '192'" in capsys.readouterr().out
    assert "190," in stale.read_text()  # --check writes nothing


def test_figures_checked_by_hand_against_the_datasheets(catalog):
    g = catalog.gpus
    # AMD Instinct MI300X data sheet: peak BF16 2,614.9 TFLOPS with structured sparsity -> 2,614.9 / 2 = 1,307.45,
    # which AMD prints as 1,307.4 dense; FP8 5,229.8 sparse -> 2,614.9 dense; 192 GB HBM3 at 5.3 TB/s; 750 W.
    mi300x = g["MI300X-192GB"]
    assert (mi300x.bf16_dense_tflops, mi300x.fp8_dense_tflops) == (1307.4, 2614.9)
    assert (mi300x.memory_gb, mi300x.memory_bandwidth_tb_s, mi300x.tdp_w) == (192, 5.3, 750)
    # NVIDIA H100 datasheet, H100 NVL column: FP8 3,341* and BF16 1,671* TFLOPS (* with sparsity) -> 1,670.5 and 835.5.
    nvl = g["H100-NVL-94GB"]
    assert (nvl.fp8_dense_tflops, nvl.bf16_dense_tflops) == (1670.5, 835.5)
    # NVIDIA L4 datasheet: BF16 242* TFLOPS -> 121 dense (aiconfigurator agrees); TDP 72 W.
    assert (g["L4-24GB"].bf16_dense_tflops, g["L4-24GB"].tdp_w) == (121, 72)
    # GB200 NVL72 spec table, per GPU: FP4 20 PF* -> 10,000 dense; 186 GB HBM3E at 8 TB/s.
    gb200 = g["GB200-NVL72-186GB"]
    assert (gb200.fp4_dense_tflops, gb200.memory_gb, gb200.memory_bandwidth_tb_s) == (10000, 186, 8)
    # Intel Gaudi 3 (Hot Chips 2024): BF16 and FP8 matrix 1,835 TFLOPS (no sparsity), 128 GB at 3.67 TB/s.
    gaudi = g["GAUDI3-128GB"]
    assert (gaudi.bf16_dense_tflops, gaudi.fp8_dense_tflops, gaudi.memory_bandwidth_tb_s) == (1835, 1835, 3.67)
    # Google TPU7x page: BF16 2,307 and FP8 4,614 TFLOPs per chip; 7,380 GB/s.
    v7 = g["TPU-V7-192GB"]
    assert (v7.bf16_dense_tflops, v7.fp8_dense_tflops, v7.memory_bandwidth_tb_s) == (2307, 4614, 7.38)


def test_precisions_a_chip_lacks_stay_empty(catalog):
    g = catalog.gpus
    assert g["TPU-V5E-16GB"].fp8_dense_tflops is None  # INT8, not FP8
    assert g["TPU-V6E-32GB"].fp8_dense_tflops is None  # FP8 only at the BF16 rate
    assert g["TPU-V7-192GB"].fp8_dense_tflops == 4614
    assert g["A100-PCIE-80GB"].fp8_dense_tflops is None
    assert g["V100-SXM-16GB"].bf16_dense_tflops is None and g["T4-16GB"].bf16_dense_tflops is None
    with pytest.raises(ValueError, match="no bf16"):
        g["T4-16GB"].dense_tflops("bf16")
    assert g["MI355X-288GB"].tf32_dense_tflops is None  # CDNA 4 has no TF32 matrix


def test_counts_and_agreed_ids(catalog):
    assert len(catalog.gpus) >= 25 and len(catalog.servers) >= 25
    assert set(AGREED_IDS) <= set(catalog.gpus)


def test_server_sizes_and_power_per_gpu_are_plausible(catalog):
    servers = catalog.servers.values()
    sizes = {s.gpus_per_server for s in servers}
    assert {1, 2, 4, 8, 72} <= sizes
    for s in servers:
        assert s.gpu in catalog.gpus
        per_gpu = s.max_power_kw / s.gpus_per_server
        assert 0.3 <= per_gpu <= 3, f"{s.server}: {per_gpu:.2f} kW per GPU"
        assert per_gpu * 1000 >= catalog.gpus[s.gpu].tdp_w, f"{s.server}: less wall power than its GPUs' TDP"
    racks = {s.gpu for s in servers if s.gpus_per_server == 72}
    assert racks == {"GB200-NVL72-186GB", "GB300-NVL72-288GB"}
    for gpu in ("MI300X-192GB", "MI325X-256GB", "MI355X-288GB", "GAUDI3-128GB"):
        assert any(s.gpu == gpu and s.gpus_per_server == 8 for s in servers)


def test_server_estimates_show_their_arithmetic(catalog):
    # l40s-4x-2u: 4 x 8,000 USD + 20,000 platform = 52,000; power 4 x 350 W + 1.0 kW = 2.4 kW.
    row = catalog.servers["l40s-4x-2u"]
    assert (row.price, row.max_power_kw, row.quality) == (52000, 2.4, "U")
    assert "4 GPUs x 8,000 + platform 20,000 = 52,000 USD" in row.notes
    # DGX A100: NVIDIA's launch price 199,000 USD and 6.5 kW max, both cited.
    assert (catalog.servers["dgx-a100-320gb"].price, catalog.servers["dgx-a100-320gb"].quality) == (199000, "S")


def test_a_server_on_an_unknown_gpu_is_refused(servers_script, tmp_path):
    source = (ROOT / "data" / "sources" / "servers" / "servers.yaml").read_text()
    bad = tmp_path / "servers.yaml"
    bad.write_text(source.replace("gpu: L4-24GB", "gpu: L4-48GB", 1))
    with pytest.raises(ValueError, match="L4-48GB is not in data/gpus.csv"):
        servers_script.csv_text(bad)
