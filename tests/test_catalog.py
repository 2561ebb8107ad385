"""The catalogs in data/: every row sourced and dated, bad rows rejected with their place."""

import shutil

import pytest

from costmodel import CatalogError, load_catalog
from costmodel.paths import DATA_DIR


def test_every_row_has_source_date_and_grade():
    catalog = load_catalog()
    for table in (
        catalog.gpus,
        catalog.servers,
        catalog.cloud_offers,
        catalog.api_offers,
        catalog.models,
        catalog.throughput,
    ):
        assert table
        for row in table.values():
            assert row.source.strip() and row.as_of.strip() and row.quality in {"P", "S", "U"}


def test_dense_peaks_are_half_the_sparse_headlines():
    # NVIDIA H100 datasheet: 1,979 TFLOP/s BF16 and 3,958 FP8 *with sparsity*; dense is half.
    h100 = load_catalog().gpus["H100-SXM-80GB"]
    assert h100.bf16_dense_tflops == 989 and h100.fp8_dense_tflops == 1979


def test_bad_row_names_file_line_and_column(tmp_path):
    for name in ("gpus.csv", "servers.csv", "cloud_prices.csv", "api_prices.csv", "models.csv", "throughput.csv"):
        shutil.copy(DATA_DIR / name, tmp_path / name)
    path = tmp_path / "cloud_prices.csv"
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace(",3.99,", ",-3.99,")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(CatalogError) as caught:
        load_catalog(tmp_path)
    (problem,) = caught.value.problems
    assert problem[0] == "line 3, column price_per_gpu_hour"
    assert str(path) in str(caught.value)


def test_server_with_unknown_gpu(tmp_path):
    for name in ("gpus.csv", "servers.csv", "cloud_prices.csv", "api_prices.csv", "models.csv", "throughput.csv"):
        shutil.copy(DATA_DIR / name, tmp_path / name)
    path = tmp_path / "servers.csv"
    path.write_text(path.read_text().replace("dgx-b200,B200-SXM-180GB", "dgx-b200,B900"))
    with pytest.raises(CatalogError, match="unknown GPU"):
        load_catalog(tmp_path)


def test_a_row_with_an_implausible_figure_is_refused_naming_its_file(tmp_path):
    # a price of 1e20 USD/GPU-hour in a --catalog folder: the file, line and column are named,
    # not the scenario option that uses the row
    from costmodel.catalog import load_catalog_overrides

    path = tmp_path / "cloud_prices.csv"
    lines = (DATA_DIR / "cloud_prices.csv").read_text().splitlines()
    path.write_text("\n".join([lines[0], lines[1].replace(",3.50,", ",1e20,")]) + "\n")
    with pytest.raises(CatalogError) as caught:
        load_catalog_overrides(tmp_path)
    (problem,) = caught.value.problems
    assert problem[0] == "line 2, column price_per_gpu_hour"
    assert "magnitude outside 1e-09 to 1e+15" in problem[2]
    assert str(path) in str(caught.value)
