"""Writing files: never half-written, never over an earlier file until whole, never a formula.

Every file the project writes goes through :func:`write_atomically` (or
:func:`write_all_atomically` for outputs of several files): each is written to a temporary file
beside its final place and renamed there (``os.replace``) only once every file of the output is
whole. A failure or an interrupt (any ``BaseException``) removes the temporary files and leaves
the earlier files as they were.

Every text cell of a CSV file or a workbook that comes from data (titles, labels, scenario names,
warnings, errors) goes through :func:`spreadsheet_text`, so that no spreadsheet reads it as a
formula (OWASP's CSV-injection rule).

References
----------
.. [1] OWASP, "CSV Injection". https://owasp.org/www-community/attacks/CSV_Injection
.. [2] Y. Shafranovich, "Common Format and MIME Type for Comma-Separated Values (CSV) Files",
   RFC 4180, 2005. https://www.rfc-editor.org/rfc/rfc4180
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .errors import OutputPathError

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell's text as a formula (OWASP)."""

_PLAIN_NUMBER = re.compile(r"[+-]?(\d[\d,]*(\.\d*)?|\.\d+)([eE][+-]?\d+)?|-+")


def file_problem(path: Path, max_bytes: int) -> str | None:
    """Why ``path`` cannot be read as an input file, or None: checked before anything is read, so a
    folder, a FIFO, a device (``/dev/zero``) or an oversized file is refused at once.

    Parameters
    ----------
    path
        The file.
    max_bytes
        Largest size read. [B]
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "cannot be read: no such file"
    except OSError as exc:
        return f"cannot be read: {exc.strerror}"
    if stat.S_ISDIR(info.st_mode):
        return "is a folder, not a file"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file (a pipe, a device or a socket): give a file"
    if info.st_size > max_bytes:
        return f"{info.st_size:,} bytes: larger than the {max_bytes:,}-byte limit for this file"
    return None


def spreadsheet_text(value: Any) -> Any:
    """A cell's value as a spreadsheet must get it: text that would start a formula gets a ``'`` in front.

    Parameters
    ----------
    value
        A cell's value. Anything but text (numbers, None, NaN) is returned as it is.

    Returns
    -------
    Same kind as ``value``
        ``"'" + value`` for text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
        return; otherwise ``value`` itself.

    Notes
    -----
    Two kinds of text starting with ``+`` or ``-`` are left as they are, as neither can be a
    formula: a plain decimal number (``-0.05``, ``+1e3``: a spreadsheet reads it as that number)
    and a run of dashes (``-``, a table's "none").

    Examples
    --------
    >>> spreadsheet_text('=HYPERLINK("https://example.com","click")')
    '\\'=HYPERLINK("https://example.com","click")'
    >>> spreadsheet_text("-2+3"), spreadsheet_text("-0.05"), spreadsheet_text("-"), spreadsheet_text(1.5)
    ("'-2+3", '-0.05', '-', 1.5)
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def spreadsheet_frame(frame):
    """A copy of a pandas DataFrame with :func:`spreadsheet_text` applied to every text cell and column name.

    Number columns are left as they are (numbers stay numbers).
    """
    import pandas as pd

    shown = frame.copy()
    for name in shown.columns:
        column = shown[name]
        if not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)):
            shown[name] = column.map(spreadsheet_text, na_action="ignore")
    shown.columns = [spreadsheet_text(str(name)) for name in shown.columns]
    return shown


def write_csv(frame, path: str | Path) -> None:
    """Write a pandas DataFrame as a CSV file that no spreadsheet evaluates.

    Text cells go through :func:`spreadsheet_text`; lines end with CR LF (RFC 4180), so that a
    field holding a CR or an LF is quoted (Python's csv module quotes a field with any character
    of the line terminator). No index column.
    """
    spreadsheet_frame(frame).to_csv(path, index=False, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)


def _temporary_beside(path: Path) -> Path:
    """An empty new file beside ``path`` (hidden, ending ``.tmp``), with the permissions of a new file.

    It is created with mode 0666, which the kernel lessens by the umask, as for any new file
    (not the 0600 of :func:`tempfile.mkstemp`).
    """
    while True:
        temporary = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
        try:
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(handle)
        return temporary


@contextlib.contextmanager
def aside(paths: Sequence[str | Path]) -> Iterator[list[Path]]:
    """Temporary files beside ``paths``, renamed onto them when the block ends without an error.

    Parameters
    ----------
    paths
        The final files. Their folders must exist.

    Yields
    ------
    list of pathlib.Path
        One temporary file per final file (empty, in the same folder, so that the rename is
        atomic), for the block to write.

    Raises
    ------
    OutputPathError
        A final path exists and is not a regular file (a FIFO, a device, a socket, a folder):
        checked before anything is written, as the rename would replace it with a file.

    Notes
    -----
    The files are renamed only after the block has written all of them; on any exception or
    interrupt in the block the temporary files are removed and the final files are left as they
    were. Each rename is atomic; a crash between two renames can leave some files new and some
    earlier, never one half-written.
    """
    finals = [Path(p) for p in paths]
    for final in finals:  # os.replace would put a regular file where a FIFO or a device was
        kind = _not_regular(final)
        if kind is not None:
            raise OutputPathError("output", final, f"is {kind}, not a regular file: nothing written")
    temporaries: list[Path] = []
    try:
        for final in finals:
            temporaries.append(_temporary_beside(final))
        yield temporaries
        for temporary, final in zip(temporaries, finals, strict=True):
            os.replace(temporary, final)
    finally:
        for temporary in temporaries:
            temporary.unlink(missing_ok=True)


def write_all_atomically(writers: Sequence[tuple[str | Path, Callable[[Path], Any]]]) -> list[Path]:
    """Write several files, each by its own writer, and rename them into place only when all are whole.

    Parameters
    ----------
    writers
        ``(final path, write)`` pairs; ``write(path)`` writes the whole file at ``path`` (a
        temporary file beside the final one, which it may replace or overwrite).

    Returns
    -------
    list of pathlib.Path
        The final paths, in order.
    """
    finals = [Path(final) for final, _ in writers]
    with aside(finals) as temporaries:
        for temporary, (_, write) in zip(temporaries, writers, strict=True):
            write(temporary)
    return finals


def write_atomically(path: str | Path, write: Callable[[Path], Any]) -> Path:
    """Write one file by ``write(temporary path)`` and rename it into place when whole (see :func:`aside`)."""
    return write_all_atomically([(path, write)])[0]


def write_text_atomically(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to a temporary file beside ``path``, then rename it into place.

    The file gets the usual permissions (0666 less the process umask).
    """
    write_atomically(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))


def _not_regular(path: Path) -> str | None:
    """What ``path`` is when it exists and is not a regular file ("a folder", "a FIFO (named pipe)",
    "a device", "a socket"), else None (missing, or a regular file).

    A symbolic link is followed: a link to a device is a device. A dangling link is None (the
    rename replaces the link itself).

    Raises
    ------
    OSError
        ``path`` cannot be looked at (a name too long, a folder on the way that cannot be read).
    """
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def output_folder(path: str | Path, option: str) -> Path:
    """Check that ``path`` can be an output folder: one that exists, or one that can be made.

    A missing folder (and its missing parents) is made when an output is written there, as
    ``mkdir -p`` does; this only checks, and makes nothing.

    Parameters
    ----------
    path
        The folder given on the command line.
    option
        The command-line option that gave it (``--out``, ``--csv``), for the message.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OutputPathError
        ``path`` is empty or cannot be looked at (a name too long); or it, or the nearest of its
        parents that exists, is not a folder (a file, a FIFO or a device is there), or that
        parent cannot be written to.
    """
    if not str(path).strip():
        raise OutputPathError(option, repr(str(path)), "an empty path: give a folder")
    path = Path(path)
    try:
        existing = next((p for p in (path, *path.absolute().parents) if p.exists() or p.is_symlink()), None)
        what = None if existing is None or existing.is_dir() else _not_regular(existing) or "a file"
    except OSError as exc:
        raise OutputPathError(option, path, f"cannot be used: {exc.strerror or exc}") from None
    if existing is None:
        return path
    if what is not None:
        where = "is" if existing == path else f"is in {existing}, which is"
        raise OutputPathError(option, path, f"{where} {what}, not a folder")
    if existing != path and not os.access(existing, os.W_OK | os.X_OK):
        raise OutputPathError(option, path, f"{existing} does not exist yet and {existing} cannot be written to")
    if existing == path and not os.access(existing, os.W_OK | os.X_OK):
        raise OutputPathError(option, path, "is a folder that cannot be written to")
    return path


def output_file(path: str | Path, option: str, suffix: str | None = None) -> Path:
    """Check that ``path`` can be an output file: a regular file or nothing yet, in a folder that
    exists or can be made.

    Parameters
    ----------
    path
        The file given on the command line.
    option
        The command-line option that gave it (``--xlsx``), for the message.
    suffix
        The ending the file's format needs (``".xlsx"``; any case), or None for any name.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OutputPathError
        ``path`` is empty, does not end in ``suffix``, is there and is not a regular file (a
        folder, a FIFO, a device or a socket: the file written aside would be renamed over it),
        cannot be looked at (a name too long), or its folder cannot be one (see
        :func:`output_folder`).
    """
    if not str(path).strip():
        raise OutputPathError(option, repr(str(path)), "an empty path: give a file")
    path = Path(path)
    try:
        kind = _not_regular(path)
    except OSError as exc:
        raise OutputPathError(option, path, f"cannot be used: {exc.strerror or exc}") from None
    if kind == "a folder":
        raise OutputPathError(option, path, "is a folder, not a file")
    if kind is not None:
        raise OutputPathError(option, path, f"is {kind}, not a regular file: give a file to write")
    if suffix is not None and path.name.lower() == suffix.lower():  # ".xlsx": a hidden file with no suffix
        raise OutputPathError(option, path, f"is only the ending {suffix}: give a name before it (report{suffix})")
    if suffix is not None and path.suffix.lower() != suffix.lower():
        raise OutputPathError(
            option,
            path,
            f"does not end in {suffix}: the file written is {suffix[1:]} whatever "
            "its name, and programs open a file by its name",
        )
    output_folder(path.absolute().parent, option)
    return path


def made_folder(path: str | Path, option: str) -> Path:
    """Make an output folder (and its missing parents) if it is not there yet.

    Raises
    ------
    OutputPathError
        As :func:`output_folder`, or the folder could not be made.
    """
    path = output_folder(path, option)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputPathError(option, path, f"cannot be made: {exc.strerror or exc}") from None
    return path
