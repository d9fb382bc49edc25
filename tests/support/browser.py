"""Pages opened in headless Chromium: console errors, and pages wider than a phone."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.report_data import (
    assert_svg_parses_with_viewbox,
    svg_elements,
)

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


PHONE = (390, 844)


DESKTOP = (1280, 1600)


HOOK = """<script>
window.__pbemErrors = [];
window.addEventListener("error", function (e) {
  window.__pbemErrors.push("error: " + (e.message || \
(e.target && (e.target.src || e.target.href)) || "resource failed"));
}, true);
(function () {
  var original = console.error;
  console.error = function () { \
window.__pbemErrors.push("console.error: " + Array.prototype.join.call(arguments, " ")); \
original.apply(console, arguments); };
})();
window.addEventListener("load", function () {
  var width = document.documentElement.clientWidth;
  var svgs = document.querySelectorAll("svg");
  for (var i = 0; i < svgs.length; i++) {
    var box = svgs[i].getBoundingClientRect();
    if (box.width > width + 1) \
window.__pbemErrors.push("svg " + i + " is " + box.width + "px wide in a " + width + "px window");
    if (box.width < 1 || box.height < 1) window.__pbemErrors.push("svg " + i + " is not drawn");
  }
  if (document.documentElement.scrollWidth > width + 1) \
window.__pbemErrors.push("page scrolls sideways: " + \
document.documentElement.scrollWidth + "px in " + width + "px");
  var out = document.createElement("pre");
  out.id = "pbem-browser-check";
  out.hidden = true;  // in the DOM Chromium dumps, not in the screenshot taken in the same run
  out.textContent = JSON.stringify({errors: window.__pbemErrors, svgs: svgs.length, width: width});
  document.body.appendChild(out);
});
</script>"""


def chromium() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        pytest.skip("headless Chromium not installed (Debian package 'chromium'; .ci/run installs it)")
    return path


def run_chromium(tmp_path: Path, url: str, size: tuple[int, int], *extra: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"profile-{size[0]}"
    return subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            f"--user-data-dir={profile}",
            f"--window-size={size[0]},{size[1]}",
            *extra,
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def check_in_browser(tmp_path: Path, name: str, html: str) -> None:
    """Open the page at phone and desktop width; no errors; screenshots saved
    (one Chromium run per width dumps the DOM and takes the screenshot)."""
    for svg in svg_elements(html):
        assert_svg_parses_with_viewbox(svg)
    checked = tmp_path / f"{name}.checked.html"
    checked.write_text(html.replace("<head>", "<head>\n" + HOOK, 1), encoding="utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        shot = ARTIFACTS / f"report-{name}-{label}.png"
        shot.unlink(missing_ok=True)
        result = run_chromium(
            tmp_path, checked.as_uri(), size, "--dump-dom", "--virtual-time-budget=3000", f"--screenshot={shot}"
        )
        assert result.returncode == 0, result.stderr[-2000:]
        m = re.search(r'<pre id="pbem-browser-check"[^>]*>(.*?)</pre>', result.stdout, re.S)
        assert m, f"the page did not finish loading in Chromium ({label}):\n{result.stderr[-2000:]}"
        report = json.loads(
            m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        )
        assert report["errors"] == [], (label, report["errors"])
        assert report["svgs"] == len(svg_elements(html))
        console = [
            line
            for line in result.stderr.splitlines()
            if "CONSOLE" in line and re.search(r"Uncaught|Error|Refused|Failed", line)
        ]
        assert console == [], console
        assert shot.exists() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", result.stderr[-2000:]
