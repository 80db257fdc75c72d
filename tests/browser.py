"""A page checked as a real browser renders it: Debian's Chromium, headless, its DOM dumped after layout.

:func:`require_chromium` skips the calling test, saying why, when Chromium is not installed — and fails it under
``CI=true`` (tests/shared.py's rule: CI installs it, ``.ci/run`` does, so a run without it must not pass).
:func:`rendered_summary` opens a copy of a page with a short script added at its end that measures what was laid
out (each element's text as rendered, an SVG polyline's parsed points and its drawn box) and writes it into the
DOM as JSON, which ``--dump-dom`` prints; the page itself carries no script.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Mapping

import pytest

from tests.shared import running_in_ci

BROWSER_SECONDS = 90
"""The most a page may take to load and dump (a cold Chromium on a loaded two-core machine takes a few)."""


def require_chromium(*, path: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The path of Chromium (``path``: where to look, else on ``PATH`` and at Debian's ``/usr/bin/chromium``); skips
    the calling test without it, and fails it when CI is true."""
    if path is not None:
        found = path if Path(path).is_file() else None
    else:
        found = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None)
    if found:
        return found
    reason = "needs Chromium (Debian's chromium package: apt-get install chromium) to render the page"
    if running_in_ci(environ):
        pytest.fail(f"{reason}; CI must provide it (.ci/run installs it)", pytrace=False)
    pytest.skip(reason)


MEASURE = """
<script>
(function () {
  function text(el) { return (el.innerText || el.textContent || "").trim(); }
  var games = [];
  document.querySelectorAll("section.game").forEach(function (section) {
    var lines = [];
    section.querySelectorAll("svg.plot polyline").forEach(function (line) {
      var box = line.getBBox();
      lines.push({ player: line.getAttribute("data-player"), points: line.points.numberOfItems,
                   width: box.width, height: box.height, stroke: getComputedStyle(line).stroke });
    });
    var svg = section.querySelector("svg.plot");
    games.push({
      game: section.getAttribute("data-game"),
      heading: text(section.querySelector("h2")),
      plot: svg ? { width: svg.getBoundingClientRect().width, height: svg.getBoundingClientRect().height } : null,
      lines: lines,
      legend: Array.prototype.map.call(section.querySelectorAll("ul.legend li"), text),
      said: Array.prototype.map.call(section.querySelectorAll("ul.said li"), text),
      decisions: Array.prototype.map.call(section.querySelectorAll("p.decision"), text),
      requests: section.querySelectorAll("li.step").length,
      rulings: section.querySelectorAll("li.step.ruling").length,
      standings: Array.prototype.map.call(section.querySelectorAll("table.standings tbody tr"), function (row) {
        return Array.prototype.map.call(row.cells, text);
      }),
      winners: text(section.querySelector("p.winners") || document.createElement("p"))
    });
  });
  var out = document.createElement("pre");
  out.id = "rendered-summary";
  out.textContent = JSON.stringify({ title: document.title, scripts: document.scripts.length - 1, games: games });
  document.body.appendChild(out);
})();
</script>
"""


def rendered_summary(page: Path, work: Path) -> dict[str, Any]:
    """What Chromium rendered of ``page`` (``work``: a folder for the copy and the browser's profile)."""
    chromium = require_chromium()
    work.mkdir(parents=True, exist_ok=True)
    copy = work / "measured.html"
    source = page.read_text(encoding="utf-8")
    assert source.count("</body>") == 1
    copy.write_text(source.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    done = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={work / 'profile'}", "--window-size=1200,900", "--dump-dom", copy.resolve().as_uri()],
        capture_output=True, text=True, timeout=BROWSER_SECONDS)
    found = re.search(r'<pre id="rendered-summary">(.*?)</pre>', done.stdout, re.S)
    assert found, f"Chromium rendered no summary (exit {done.returncode}):\n{done.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))
