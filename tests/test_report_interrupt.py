"""A real Ctrl-C: SIGINT sent to a ``costmodel report`` process while its kernel runs the notebook.

The command documents its exit codes in :mod:`costmodel.cli`: 130 when interrupted, "with no kernel
or socket left behind". Here the signal comes from outside, as a terminal's Ctrl-C does, at the
point where nbclient has its own SIGINT handlers on the event loop (which killed the kernel and
then reset the signals, before :func:`costmodel.jupyter_adapter.keeping_signal_handlers`). The
processes are read from /proc, so the test runs on Linux only.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc (Linux)"),
]

INTERRUPTED = 130
"""The exit code of an interrupted command (costmodel.cli's INTERRUPTED; the shell's 128 + SIGINT)."""


def _state(pid: int) -> str | None:
    """A process's state letter from /proc (R, S, Z, ...), or None when there is no such process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie has ended: only its exit status is left)."""
    return _state(pid) not in (None, "Z", "X")


def _descendants(pid: int) -> dict[int, str]:
    """Every process below ``pid`` (children, their children, ...) with its command line."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            commands[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # ended while being read
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = {}, [pid]
    while todo:
        parent = todo.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in found:
                found[child] = commands.get(child, "")
                todo.append(child)
    return found


@pytest.mark.parametrize(
    "scenarios",
    [["llama70b-vs-api"], ["llama70b-vs-api", "h200-24gpu-cluster"]],
    ids=["own-kernel", "kept-kernel"],
)
def test_sigint_while_the_kernel_runs_leaves_no_report_no_kernel_and_exits_130(tmp_path, scenarios):
    out = tmp_path / "reports"
    out.mkdir()
    scratch = tmp_path / "tmp"  # the kernel's folder (connection file, sockets) is made under TMPDIR
    scratch.mkdir()
    environment = {**os.environ, "TMPDIR": str(scratch)}
    command = [sys.executable, "-m", "costmodel", "report", *scenarios, "--out", str(out)]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
        text=True,
        # Python's own Ctrl-C handler, as in a terminal: a process started in the background by a
        # shell without job control (make, CI) inherits SIGINT ignored, and Python keeps it so
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    seen: dict[int, str] = {}
    try:
        # wait until the kernel runs and the runner has begun the notebook (its scratch folder is made
        # just before the first cell is sent); then every process below the command is recorded
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            seen.update(_descendants(process.pid))
            kernels = [pid for pid, line in seen.items() if "costmodel.kernel" in line and _alive(pid)]
            if kernels and list(out.glob("*/.costmodel-*")):
                break
            time.sleep(0.05)
        assert process.poll() is None, f"the report ended before it could be interrupted: {process.communicate()}"
        assert kernels, f"no kernel process among {seen}"
        time.sleep(0.3)  # the kernel is running cells by now
        seen.update(_descendants(process.pid))
        os.kill(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    # every process the command started (the kernel, the chart drawer) ended with it, none orphaned
    left = {pid: line for pid, line in seen.items() if _alive(pid)}
    assert process.returncode == INTERRUPTED, stderr
    assert left == {}
    assert "costmodel report: interrupted; nothing half-written was left" in stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    # no page, notebook, temporary file or report folder; the kernel's folder and sockets removed
    assert sorted(out.rglob("*")) == []
    assert sorted(scratch.iterdir()) == []
    assert "wrote" not in stdout
