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


def _quote_folder(folder, price: str):
    """A --catalog folder of one rented H100 offer at ``price`` USD/GPU-hour (written as given)."""
    header = (DATA_DIR / "cloud_prices.csv").read_text().splitlines()[0]
    path = folder / "cloud_prices.csv"
    path.write_text(
        f'{header}\nmy-quote-h100,Example quote,H100-SXM-80GB,on_demand,{price},USD,P,2026-11,"test row",\n'
    )
    return path


class TestLoadedOnce:
    """A catalog folder is read, validated and indexed once while its files stay as they are."""

    def test_an_unchanged_folder_gives_the_same_catalog(self, tmp_path):
        from costmodel.catalog import catalog_from

        _quote_folder(tmp_path, "2.00")
        first = catalog_from(tmp_path)
        assert catalog_from(str(tmp_path)) is first  # the same folder named as text: kept under its path
        assert first is not None and first.cloud_offers["my-quote-h100"].price_per_gpu_hour == 2.0

    def test_a_file_edited_in_place_is_read_again(self, tmp_path):
        import os

        from costmodel.catalog import catalog_from

        path = _quote_folder(tmp_path, "2.00")
        first = catalog_from(tmp_path)
        before = path.stat().st_mtime_ns
        _quote_folder(tmp_path, "2.75")  # the same size: only the time tells
        os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))
        again = catalog_from(tmp_path)
        assert again is not first and again is not None
        assert again.cloud_offers["my-quote-h100"].price_per_gpu_hour == 2.75

    def test_a_file_replaced_by_a_rename_with_the_old_time_is_read_again(self, tmp_path):
        # an editor's save: a new file renamed over the old one; same size and, here, the same time
        import os

        from costmodel.catalog import catalog_from

        path = _quote_folder(tmp_path, "2.00")
        first = catalog_from(tmp_path)
        assert first is not None and first.cloud_offers["my-quote-h100"].price_per_gpu_hour == 2.0
        stat = path.stat()
        (tmp_path / "new").mkdir()
        replacement = _quote_folder(tmp_path / "new", "2.75")
        os.utime(replacement, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        os.replace(replacement, path)
        assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
        again = catalog_from(tmp_path)
        assert again is not None and again.cloud_offers["my-quote-h100"].price_per_gpu_hour == 2.75

    def test_a_file_added_to_the_folder_is_read(self, tmp_path):
        from costmodel.catalog import catalog_from

        _quote_folder(tmp_path, "2.00")
        first = catalog_from(tmp_path)
        assert first is not None and "my-server" not in first.servers
        header, row = (DATA_DIR / "servers.csv").read_text().splitlines()[:2]
        (tmp_path / "servers.csv").write_text(f"{header}\nmy-server{row[row.index(',') :]}\n")
        again = catalog_from(tmp_path)
        assert again is not None and "my-server" in again.servers

    def test_a_whole_data_folder_is_loaded_once_and_again_once_edited(self, tmp_path):
        import os

        for name in ("gpus.csv", "servers.csv", "cloud_prices.csv", "api_prices.csv", "models.csv", "throughput.csv"):
            shutil.copy(DATA_DIR / name, tmp_path / name)
        first = load_catalog(tmp_path)
        assert load_catalog(tmp_path) is first
        path = tmp_path / "cloud_prices.csv"
        before = path.stat().st_mtime_ns
        path.write_text(
            path.read_text().replace(
                "r1-brief-h100,R1 product brief,H100-SXM-80GB,on_demand,3.50,",
                "r1-brief-h100,R1 product brief,H100-SXM-80GB,on_demand,3.75,",
            )
        )
        os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))
        again = load_catalog(tmp_path)
        assert again.cloud_offers["r1-brief-h100"].price_per_gpu_hour == 3.75
        assert first.cloud_offers["r1-brief-h100"].price_per_gpu_hour == 3.5  # the catalog given before stays

    def test_a_folder_that_fails_is_not_kept(self, tmp_path):
        from costmodel.catalog import catalog_from

        path = _quote_folder(tmp_path, "-2.00")
        with pytest.raises(CatalogError, match="price_per_gpu_hour"):
            catalog_from(tmp_path)
        with pytest.raises(CatalogError, match="price_per_gpu_hour"):  # read again, refused again
            catalog_from(tmp_path)
        _quote_folder(tmp_path, "2.00")
        assert path.exists() and catalog_from(tmp_path) is not None
