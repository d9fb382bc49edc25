"""Peak memory of one ``python -m pbem`` process, used by the benchmark and by
tests/test_resource_limits.py.

The child reports its own peak RSS (``VmHWM`` from ``/proc/self/status``) as it
exits.  Not ``ru_maxrss`` from ``wait4``: Linux carries the parent's peak into a
child over fork and exec, so a child of a 500 MB parent would report 500 MB.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MEASURED = """
import os, runpy
try:
    runpy.run_module("pbem", run_name="__main__", alter_sys=True)
finally:
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(os.environ["PBEM_PEAK_RSS_FILE"], "w") as out:
        out.write(peak)
"""


def run_pbem(args: list[str], cwd: Path, report_dir: Path, timeout: float) -> tuple[int, str, int]:
    """Run ``python -m pbem ARGS`` in ``cwd``; (exit status, stderr, peak RSS in bytes)."""
    report = report_dir / f"peak-rss-{os.getpid()}.txt"
    env = {**os.environ, "PBEM_PEAK_RSS_FILE": str(report)}
    r = subprocess.run(
        [sys.executable, "-c", MEASURED, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=timeout,
    )
    peak = int(report.read_text()) * 1024
    report.unlink()
    return r.returncode, r.stderr.decode("utf-8", "replace"), peak
