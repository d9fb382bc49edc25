"""bench/peak_rss.py loaded as a module: runs ``pbem`` and measures its peak RSS."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def _peak_rss_module():
    spec = importlib.util.spec_from_file_location(
        "peak_rss", Path(__file__).resolve().parents[2] / "bench" / "peak_rss.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PEAK_RSS = _peak_rss_module()
