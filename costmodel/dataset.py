"""A portfolio written chunk by chunk: the parts folder of a streamed sweep, and its assembly.

A streamed sweep (:func:`costmodel.batch.stream_sweep`) cuts its points into chunks. Each chunk is
turned into its rows where it runs (:func:`encode_chunk`: the typed table as CSV lines and as a
Parquet file, with a summary of its rows), and each finished chunk is stored in
``<out>/portfolio.parts/`` (:class:`Parts`), whatever order the chunks finish in: by the process that
ran it when that process is on the folder's machine (:func:`store_part`), otherwise by the process that
writes the output, from the rows sent back:

.. code-block:: text

    portfolio.parts/
        _manifest.json                 the work these parts belong to (a fingerprint)
        _part-000000.csv               the chunk's CSV lines, no header
        part-000000.parquet            the same rows as a Parquet file (with pyarrow)
        _part-000000.json              its summary, written last: the chunk is complete

The parts folder is a Parquet dataset: ``pandas.read_parquet("portfolio.parts")`` reads every chunk
stored so far (pyarrow passes over the files whose names start with ``_``). An interrupted run
leaves it in place, and ``costmodel batch --resume`` runs only the chunks it lacks. When every chunk
is in, :meth:`Parts.assemble` writes ``portfolio.csv``, its CSVW sidecar and ``portfolio.parquet``
from the parts, one chunk in memory at a time, and removes the folder. The files are the ones
:func:`costmodel.batch.write_portfolio` writes for the same rows.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .errors import InputError

PARTS = "portfolio.parts"
"""The parts folder's name under ``--out``."""

MANIFEST = "_manifest.json"
"""The file of the parts folder that names the work its parts belong to."""

EXCEL_ROWS = 1_048_576
"""Rows of a worksheet (the header included): the most a portfolio.xlsx can hold."""


class ResumeError(InputError):
    """``--resume`` on a parts folder written for other work (another sweep, catalog or version)."""


@dataclass
class Chunk:
    """One finished chunk of a streamed sweep, as the process that ran it sends it back.

    Attributes
    ----------
    index
        The chunk's number (its place in the table).
    rows
        Rows it holds.
    ok_rows
        Rows without an error.
    failures
        Scenario name → its first error, for the rows with one (in the rows' order).
    distinct
        For each text column, up to two of its distinct values (the units of the table's
        columns name a currency when every row holds the same one).
    csv
        The rows as CSV lines (no header), as :func:`costmodel.files.write_csv` writes them.
    parquet
        The rows as a Parquet file, or None when the chunk's output has no Parquet file.
    lost
        The chunk did not run (its process died, or it failed on every try): its rows are error
        rows, and ``--resume`` runs it again.
    stored
        Its files are in the parts folder already, written where it ran (:func:`store_part`):
        ``csv`` and ``parquet`` are empty and only the summary comes back.
    """

    index: int
    rows: int
    ok_rows: int
    failures: dict[str, str]
    distinct: dict[str, list[str]]
    csv: bytes
    parquet: bytes | None = None
    lost: bool = False
    stored: bool = False

    def record(self) -> dict[str, Any]:
        """The chunk's summary (everything but its rows), as stored in ``_part-N.json``."""
        return {
            "index": self.index,
            "rows": self.rows,
            "ok_rows": self.ok_rows,
            "failures": self.failures,
            "distinct": self.distinct,
            "lost": self.lost,
        }


def typed_chunk(columns: Mapping[str, Any], header: list[str], units: dict[str, str]):
    """A chunk's columns (:func:`costmodel.batch.run_task`) as a DataFrame of exactly ``header``'s
    columns, typed by :data:`costmodel.columns.PORTFOLIO` (a column the chunk lacks is empty).

    Raises
    ------
    ValueError
        The chunk has a column that ``header`` lacks, or a value its column cannot hold.
    """
    import pandas as pd

    from .columns import PORTFOLIO

    unknown = [name for name in columns if name not in header]
    if unknown:
        raise ValueError(f"portfolio: columns {', '.join(unknown)} are not in the sweep's table")
    frame = pd.DataFrame(dict(columns)).reindex(columns=header)
    return PORTFOLIO.typed(frame, units)


def _spreadsheet_frame(frame):
    """:func:`costmodel.files.spreadsheet_frame` of a typed frame, each text column's distinct values made
    safe once (a sweep's text columns hold one or a few values over thousands of rows)."""
    import pandas as pd

    from .files import spreadsheet_text

    shown = frame.copy()
    for name in shown.columns:
        column = shown[name]
        if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
            continue
        distinct = column.dropna().unique()
        if all(spreadsheet_text(value) is value for value in distinct):
            continue  # nothing to change (the usual case)
        shown[name] = column.map({value: spreadsheet_text(value) for value in distinct}, na_action="ignore")
    shown.columns = [spreadsheet_text(str(name)) for name in shown.columns]
    return shown


def csv_lines(frame) -> bytes:
    """The rows of a typed portfolio frame as CSV lines without a header, byte for byte the lines
    :func:`costmodel.files.write_csv` writes for them (UTF-8, CR LF, text made safe for spreadsheets)."""
    text = _spreadsheet_frame(frame).to_csv(
        None, index=False, header=False, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL
    )
    return text.encode("utf-8")


def csv_header(frame) -> bytes:
    """The header line :func:`costmodel.files.write_csv` writes for a frame of these columns."""
    from .files import spreadsheet_frame

    text = spreadsheet_frame(frame.iloc[:0]).to_csv(None, index=False, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    return text.encode("utf-8")


def _parquet_bytes(frame, units: dict[str, str]) -> bytes:
    """A typed portfolio frame as the bytes of a Parquet file (needs pyarrow)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .columns import PORTFOLIO

    table = pa.Table.from_pandas(frame, schema=PORTFOLIO.arrow_schema(frame, units), preserve_index=False)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def encode_chunk(
    index: int, columns: Mapping[str, Any], header: list[str], units: dict[str, str], parquet: bool
) -> Chunk:
    """A chunk's columns as its rows in the output's formats, with their summary.

    Parameters
    ----------
    index
        The chunk's number.
    columns
        Column → one value per row (:func:`costmodel.batch.run_task`).
    header
        The table's columns, in order (every chunk of a sweep has the same).
    units
        Units of the swept inputs' columns, by input path.
    parquet
        Also encode the rows as a Parquet file (needs pyarrow where the chunk runs).

    Raises
    ------
    ValueError
        As :func:`typed_chunk`.
    """
    frame = typed_chunk(columns, header, units)
    found = frame_summary(frame)
    return Chunk(
        index=index,
        rows=found.rows,
        ok_rows=found.ok_rows,
        failures=found.failures,
        distinct=found.distinct,
        csv=csv_lines(frame),
        parquet=_parquet_bytes(frame, units) if parquet else None,
    )


def fingerprint(parts: Iterable[Any]) -> str:
    """A SHA-256 of the work: JSON-able parts and bytes, in order (taken one at a time from ``parts``)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else json.dumps(part, sort_keys=True, default=str).encode()
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed into place (a part is whole or absent); the
    temporary file is this process's own (a chunk run again elsewhere meanwhile writes another)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)


def part_path(folder: str | Path, index: int, suffix: str) -> Path:
    """A chunk's file in a parts folder: its Parquet rows as part-N.parquet, the rest as _part-N (out of the
    dataset)."""
    return Path(folder) / f"{'' if suffix == '.parquet' else '_'}part-{index:06d}{suffix}"


def store_part(folder: str | Path, chunk: Chunk) -> Chunk:
    """Store a finished chunk in a parts folder, its rows first and its record last (the chunk counts once the
    record is there), and give it back without its rows (``stored``).

    The process that runs a chunk on the machine of the parts folder (a process pool's or a LocalCluster's
    worker) stores it itself, so that only the chunk's summary travels back to the command.
    """
    _write_atomically(part_path(folder, chunk.index, ".csv"), chunk.csv)
    if chunk.parquet is not None:
        _write_atomically(part_path(folder, chunk.index, ".parquet"), chunk.parquet)
    _write_atomically(part_path(folder, chunk.index, ".json"), json.dumps(chunk.record()).encode())
    return replace(chunk, csv=b"", parquet=None, stored=True)


@dataclass
class Summary:
    """The stored chunks of a parts folder, read from their records.

    Attributes
    ----------
    chunks
        Stored chunks.
    rows
        Their rows.
    ok_rows
        Their rows without an error.
    failures
        Scenario name → its first error, in chunk order.
    distinct
        For each text column, up to two of its distinct values over every chunk.
    """

    chunks: int = 0
    rows: int = 0
    ok_rows: int = 0
    failures: dict[str, str] = field(default_factory=dict)
    distinct: dict[str, list[str]] = field(default_factory=dict)

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one chunk's record in."""
        self.chunks += 1
        self.rows += int(record["rows"])
        self.ok_rows += int(record["ok_rows"])
        for name, error in record["failures"].items():
            self.failures.setdefault(name, error)
        for name, values in record["distinct"].items():
            held = self.distinct.setdefault(name, [])
            for value in values:
                if value not in held and len(held) < 2:
                    held.append(value)


def frame_summary(frame) -> Summary:
    """The :class:`Summary` of the rows of a typed portfolio frame (as one chunk)."""
    errors = frame["error"]
    failures: dict[str, str] = {}
    for name, error in zip(frame["scenario"][errors.notna()], errors[errors.notna()], strict=True):
        failures.setdefault(str(name), str(error))
    distinct = {
        name: [str(v) for v in frame[name].dropna().unique()[:2]]
        for name in frame.columns
        if str(frame[name].dtype) == "string"
    }
    return Summary(chunks=1, rows=len(frame), ok_rows=int(errors.isna().sum()), failures=failures, distinct=distinct)


class Parts:
    """The parts folder of a streamed sweep under an output folder.

    Parameters
    ----------
    out
        The output folder (``--out``); it must exist.
    work
        The fingerprint of the work (:func:`fingerprint`).
    resume
        Keep the chunks already stored for the same work; otherwise start from none.

    Raises
    ------
    ResumeError
        ``resume`` and the folder's manifest names other work.
    OutputPathError
        The parts folder cannot be made (a file of its name is there).
    """

    def __init__(self, out: str | Path, work: str, resume: bool = False) -> None:
        from .files import made_folder

        self.folder = Path(out) / PARTS
        manifest = self.folder / MANIFEST
        if resume and manifest.is_file():
            try:
                stored = json.loads(manifest.read_text(encoding="utf-8")).get("work")
            except (OSError, ValueError, AttributeError):
                stored = None
            if stored != work:
                raise ResumeError(
                    None,
                    [
                        (
                            f"{manifest}: work",
                            stored,
                            "these parts belong to other work (another sweep file, scenario, catalog or "
                            "costmodel version); run without --resume to start again",
                        )
                    ],
                )
        elif self.folder.is_dir():
            self.clear()
        made_folder(self.folder, "--out")  # a file of that name: OutputPathError
        _write_atomically(manifest, json.dumps({"work": work}).encode())

    def clear(self) -> None:
        """Remove the parts folder's own files (and the folder, once empty)."""
        if not self.folder.is_dir():
            return
        for path in self.folder.iterdir():
            if path.name == MANIFEST or path.name.lstrip("._").startswith("part-"):
                path.unlink()
        try:
            self.folder.rmdir()
        except OSError:
            pass  # a file of the user's own is in it: left with the folder

    def _path(self, index: int, suffix: str) -> Path:
        """A chunk's file (:func:`part_path`)."""
        return part_path(self.folder, index, suffix)

    def records(self) -> Iterator[dict[str, Any]]:
        """The stored chunks' records, in chunk order."""
        for path in sorted(self.folder.glob("_part-*.json")):
            yield json.loads(path.read_text(encoding="utf-8"))

    def lost(self) -> list[int]:
        """Numbers of the stored chunks that did not run (their rows are error rows)."""
        return [int(r["index"]) for r in self.records() if r.get("lost")]

    def done(self) -> set[int]:
        """Numbers of the chunks stored whole (a lost chunk is not done: it runs again)."""
        return {int(r["index"]) for r in self.records() if not r.get("lost")}

    def add(self, chunk: Chunk) -> None:
        """Store a finished chunk (:func:`store_part`), unless the process that ran it stored it already."""
        if not chunk.stored:
            store_part(self.folder, chunk)

    def summary(self, head: Summary | None = None) -> Summary:
        """The stored chunks' summary, counted after ``head`` (the rows that come before them)."""
        found = head if head is not None else Summary()
        for record in self.records():
            found.add(record)
        return found

    def _indices(self) -> list[int]:
        return [int(r["index"]) for r in self.records()]

    def assemble(
        self,
        out: str | Path,
        head,
        units: dict[str, str],
        summary: Summary,
        parquet: bool,
        sheet: Callable[[Any, Path], None] | None = None,
    ) -> list[Path]:
        """Write portfolio.csv, its sidecar and (with ``parquet``) portfolio.parquet under ``out``: the rows
        of ``head`` (a typed frame of the table's columns: the scenario files' rows), then every stored
        chunk's in chunk order; with ``sheet`` (a function of the whole table and a path), the workbook
        it writes as portfolio.xlsx; then remove the parts folder, unless a chunk in it did not run
        (``--resume`` runs those again).

        The files are renamed into place only once all are whole
        (:func:`costmodel.files.write_all_atomically`). Only one chunk is in memory at a time, except
        for the workbook, which needs the table whole.

        Raises
        ------
        ValueError
            ``sheet`` and more rows than a worksheet holds (:data:`EXCEL_ROWS`).
        """
        from .columns import PORTFOLIO, metadata_name
        from .files import made_folder, write_all_atomically

        if sheet is not None and summary.rows + len(head) + 1 > EXCEL_ROWS:
            raise ValueError(
                f"--xlsx: {summary.rows + len(head):,} rows do not fit in a worksheet (at most {EXCEL_ROWS - 1:,}); "
                "leave --xlsx out and open portfolio.parquet or portfolio.csv"
            )
        indices = self._indices()
        sample = _sample(head, summary.distinct)

        def write_csv(path: Path) -> None:
            with open(path, "wb") as target:
                target.write(csv_header(head))
                target.write(csv_lines(head))
                for index in indices:
                    with open(self._path(index, ".csv"), "rb") as source:
                        shutil.copyfileobj(source, target, 1 << 20)

        writers: list[tuple[Path, Any]] = [
            (Path(out) / "portfolio.csv", write_csv),
            (Path(out) / metadata_name("portfolio.csv"), PORTFOLIO.csv_metadata_writer(sample, "portfolio.csv", units)),
        ]
        if parquet:
            writers.append(
                (Path(out) / "portfolio.parquet", lambda path: self._write_parquet(path, head, sample, units))
            )
        if sheet is not None:
            writers.append((Path(out) / "portfolio.xlsx", lambda path: sheet(self.frame(head), path)))
        folder = made_folder(out, "--out")
        written = write_all_atomically([(folder / path.name, write) for path, write in writers])
        if not self.lost():
            self.clear()
        return written

    def _write_parquet(self, path: Path, head, sample, units: dict[str, str]) -> None:
        """portfolio.parquet from ``head`` and the stored chunks, one row group each (needs pyarrow)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        from .columns import PORTFOLIO

        # the schema with the units the whole table shows and the pandas dtypes to read it back with
        schema = pa.Table.from_pandas(
            sample.iloc[:0], schema=PORTFOLIO.arrow_schema(sample, units), preserve_index=False
        ).schema
        with pq.ParquetWriter(path, schema) as writer:
            if len(head):
                writer.write_table(pa.Table.from_pandas(head, schema=schema, preserve_index=False))
            for index in self._indices():
                part = pq.read_table(self._path(index, ".parquet"))
                writer.write_table(pa.Table.from_arrays(part.columns, schema=schema))

    def frame(self, head):
        """The whole table as one typed frame: ``head``, then every stored chunk (read from its Parquet
        file, or its CSV lines without pyarrow). Only for a table that fits in memory (a workbook)."""
        import io

        import pandas as pd

        from .columns import PORTFOLIO

        pieces = [head]
        for index in self._indices():
            parquet = self._path(index, ".parquet")
            if parquet.is_file():
                pieces.append(pd.read_parquet(parquet))
            else:
                text = self._path(index, ".csv").read_bytes()
                pieces.append(
                    pd.read_csv(io.BytesIO(text), header=None, names=list(head.columns), float_precision="round_trip")
                )
        return PORTFOLIO.typed(pd.concat([PORTFOLIO.typed(p) for p in pieces], ignore_index=True))


def _sample(head, distinct: Mapping[str, list[str]]):
    """A small typed frame of the table's columns whose text columns hold the distinct values of the whole
    table (``head``'s and the chunks'), up to two each: the units of the columns
    (:meth:`costmodel.columns.Table.units`) read from it are those of the whole table."""
    import pandas as pd

    from .columns import PORTFOLIO

    values: dict[str, list[str]] = {}
    for name in head.columns:
        if str(head[name].dtype) != "string":
            continue
        held = [str(v) for v in head[name].dropna().unique()[:2]]
        for value in distinct.get(name, []):
            if value not in held and len(held) < 2:
                held.append(value)
        values[name] = held
    rows = max((len(v) for v in values.values()), default=0)
    frame = pd.DataFrame({name: [None] * rows for name in head.columns}, dtype=object)
    for name, held in values.items():
        frame[name] = held + [None] * (rows - len(held))
    return PORTFOLIO.typed(frame)
