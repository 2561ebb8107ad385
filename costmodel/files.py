"""Writing files so that a failure never leaves a half-written one behind."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


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


def write_text_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it into place.

    The file gets the usual permissions (0666 less the process umask), not the 0600 of
    a temporary file.
    """
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
