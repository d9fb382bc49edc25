"""bench/peak_rss.py loaded as a module: runs ``pbem`` and measures its peak RSS."""

from __future__ import annotations

from tests.support.scripts import load_script

PEAK_RSS = load_script("bench/peak_rss.py", "peak_rss")
