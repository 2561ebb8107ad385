"""The command keeps freed memory for its next calculation (costmodel.allocator), and leaves a choice
already made in the environment, or a libc other than glibc, alone."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import textwrap

import pytest

from costmodel import allocator

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

# 64 MB in four 16 MB blocks, freed, then the same again: pages faulted by the second round. With glibc's
# defaults the first 16 MB block freed raises the mmap threshold to 16 MB and the trim threshold to 32 MB, so
# the 64 MB freed at the heap's top are handed back and fault again (16,384 pages of 4 kB); kept, they do not.
ROUNDS = textwrap.dedent(
    """
    import resource, sys
    from costmodel.allocator import keep_freed_memory
    kept = keep_freed_memory() if sys.argv[1] == "keep" else False
    def round_():
        blocks = [bytearray(16 * 1024 * 1024) for _ in range(4)]
        del blocks
    round_(); round_()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    round_()
    print(kept, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    """
)


def faults_of_a_round(mode: str) -> tuple[str, int]:
    done = subprocess.run([sys.executable, "-c", ROUNDS, mode], capture_output=True, text=True, check=True)
    kept, faults = done.stdout.split()
    return kept, int(faults)


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt")
def test_freed_memory_is_reused_without_faulting_again():
    kept, faults = faults_of_a_round("keep")
    default_kept, default_faults = faults_of_a_round("default")
    assert (kept, default_kept) == ("True", "False")
    assert default_faults >= 64 * 1024 * 1024 // 4096 // 2  # at least half the pages fault again (4 kB pages)
    assert faults < 200  # a few pages of the interpreter's own, not the 64 MB


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt")
def test_the_processes_the_command_starts_get_the_same_thresholds():
    script = "from costmodel.allocator import keep_freed_memory; env = {}; "
    script += "print(keep_freed_memory(env), env)"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ("True {'MALLOC_TRIM_THRESHOLD_': '268435456', 'MALLOC_MMAP_THRESHOLD_': '33554432'}")


@pytest.mark.parametrize("name", ["MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES"])
def test_a_choice_in_the_environment_is_left_alone(name):
    environ = {name: "131072"}
    assert allocator.keep_freed_memory(environ) is False
    assert environ == {name: "131072"}


def test_other_libcs_are_left_alone(monkeypatch):
    monkeypatch.setattr(allocator.platform, "libc_ver", lambda: ("musl", "1.2"))
    environ: dict[str, str] = {}
    assert allocator.keep_freed_memory(environ) is False
    assert environ == {}


def test_the_command_keeps_freed_memory_and_import_does_not(monkeypatch):
    from costmodel import cli

    calls = []
    monkeypatch.setattr(allocator, "keep_freed_memory", lambda: calls.append(True) or True)
    monkeypatch.setattr(sys, "argv", ["costmodel", "--version"])
    monkeypatch.setattr("gc.freeze", lambda: None)  # run() freezes the heap for a quick exit: not pytest's
    with pytest.raises(SystemExit):
        cli.run()
    assert calls == [True]
    script = "import costmodel, os; print(sorted(k for k in os.environ if k.startswith('MALLOC_')))"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=environ)
    assert done.stdout.strip() == "[]"
