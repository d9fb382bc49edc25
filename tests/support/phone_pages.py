"""Pages measured in headless Chromium at a phone's and a desktop's width: does a
page scroll sideways, and does its close-up (the cropped map a report shows first)
hold every combat, move and label it touches?

One Chromium run per width opens a harness page holding every page in an iframe
of that width (``--allow-file-access-from-files`` lets the harness read them); a
script measures each page once it has loaded and writes the results into the DOM,
which ``--dump-dom`` returns.  Every box is read with ``getBBox`` in the board's
user space, the space of the close-up's ``viewBox`` (the close-up is a ``<use>`` of
the whole map's board group)."""

from __future__ import annotations

import html
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import Table
from tests.support.browser import chromium
from tests.support.cli_steps import sign, status, write_orders

ACTION = "g.events > *, g.moves > *, g.combat-hexes > *, g.combats > *"
"""The marks of this resolution's action on both maps: Farrapos's arrows and battle
rings (``g.events``), Furor Barbarus's paths, combat hexes, attack arrows and badges."""

MEASURE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>iframe { display: block; border: 0; }</style></head>
<body><pre id="pbem-phone"></pre>
<script>
var PAGES = %(pages)s, WIDTH = %(width)d, results = [], left = PAGES.length;
var ACTION = %(action)s;
function inside(b, v) {
  return b.x >= v.x - 0.5 && b.y >= v.y - 0.5 && b.x + b.width <= v.x + v.width + 0.5 &&
    b.y + b.height <= v.y + v.height + 0.5;
}
function meets(b, v) {
  return b.x < v.x + v.width && v.x < b.x + b.width && b.y < v.y + v.height && v.y < b.y + b.height;
}
function name(el) {
  var b = el.getBBox();
  return el.tagName + (el.getAttribute("class") ? "." + el.getAttribute("class") : "") + " '" +
    (el.textContent || "").trim().slice(0, 40) + "' at " + [b.x, b.y, b.width, b.height].map(Math.round).join(" ");
}
function closeUp(doc) {
  var svg = doc.querySelector("figure.map.detail svg");
  if (!svg) return null;
  var v = svg.viewBox.baseVal, use = svg.querySelector("use");
  var board = doc.getElementById(use.getAttribute("href").slice(1));
  var out = {viewBox: [v.x, v.y, v.width, v.height], actions: 0, combats: 0, labels: 0, cut: []};
  board.querySelectorAll(ACTION).forEach(function (el) {
    out.actions++;
    if (el.matches("polygon.combat, g.events > circle")) out.combats++;
    if (!inside(el.getBBox(), v)) out.cut.push("action " + name(el));
  });
  board.querySelectorAll("text").forEach(function (el) {
    var b = el.getBBox();
    if (!meets(b, v)) return;
    out.labels++;
    if (!inside(b, v)) out.cut.push("label " + name(el));
  });
  return out;
}
function wider(doc, width) {
  var found = [];
  doc.querySelectorAll("body *").forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.right > width + 1 && found.length < 6 && !el.closest("svg"))
      found.push(el.tagName + "." + el.className + " right " + Math.round(r.right));
  });
  return found;
}
function measure(page, frame) {
  var win = frame.contentWindow, doc = frame.contentDocument;
  doc.querySelectorAll("details").forEach(function (d) { d.open = true; });  // as a reader who taps them
  var r = {page: page, width: win.innerWidth, scrollWidth: doc.documentElement.scrollWidth};
  if (r.scrollWidth > r.width) r.wider = wider(doc, r.width);
  try { r.closeUp = closeUp(doc); } catch (e) { r.error = String(e); }
  results.push(r);
  if (--left === 0) document.getElementById("pbem-phone").textContent = JSON.stringify(results);
}
PAGES.forEach(function (page) {
  var frame = document.createElement("iframe");
  frame.width = WIDTH; frame.height = 844;
  frame.onload = function () { measure(page, frame); };
  frame.src = page;
  document.body.appendChild(frame);
});
</script></body></html>"""


@dataclass(frozen=True)
class Measured:
    page: str
    width: int
    scroll_width: int
    wider: list[str]
    close_up: dict | None


def measure(tmp: Path, pages: list[Path], width: int) -> list[Measured]:
    """Each page opened ``width`` px wide: its scroll width and its close-up."""
    harness = tmp / f"measure-{width}.html"
    harness.write_text(
        MEASURE % {"pages": json.dumps([p.as_uri() for p in pages]), "width": width, "action": json.dumps(ACTION)},
        encoding="utf-8",
    )
    result = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--allow-file-access-from-files",
            f"--user-data-dir={tmp / f'profile-{width}'}",
            f"--window-size={width + 40},900",
            "--virtual-time-budget=20000",
            "--dump-dom",
            harness.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    m = re.search(r'<pre id="pbem-phone">(.+?)</pre>', result.stdout, re.S)
    assert m, f"the pages did not all load in Chromium ({width} px):\n{result.stderr[-2000:]}"
    measured = {
        r["page"]: Measured(r["page"], r["width"], r["scrollWidth"], r.get("wider", []), r.get("closeUp"))
        for r in json.loads(html.unescape(m.group(1)))
        if not r.get("error") or _raise(r)
    }
    return [measured[p.as_uri()] for p in pages]  # in the order asked, not the order the pages finished loading


def _raise(r: dict) -> bool:
    raise AssertionError(f"{r['page']}: {r['error']}")


def play(t: Table, game: str, resolutions: int, bot: str = "greedy") -> None:
    """``resolutions`` resolutions of ``game`` played through the CLI by ``bot``."""
    for _ in range(resolutions):
        st = status(t, game)
        if not st["awaiting"]:
            return
        for side in st["awaiting"]:
            path = write_orders(t, game, side, f"{game}-t{st['turn']}-{side}.txt", bot=bot, seed=st["turn"])
            sign(t, path, side)
            r = t.run("submit", str(path))
            assert r.exit_code == 0, r.stderr
        r = t.run("process", game)
        assert r.exit_code == 0, r.stderr
