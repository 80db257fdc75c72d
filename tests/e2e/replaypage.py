"""What every game's replay-page test shares: a short game played by the real mod on the headless table against a
real bridge that journals (``--journal``), and the page ``ttsmod replay --html`` makes of that journal, read as
text and as Chromium renders it (tests/browser.py).

:func:`play_journaled` plays ``decisions`` decisions with the game harness's own ``pick`` and ``play`` (each checked
against the engine as every e2e game is), waits until the bridge has journaled every note the mod sent, stops
the bridge and returns what the table showed: the broadcasts to everyone, in order, and the requests it sent.
:func:`check_page` holds the page to them.
"""

from __future__ import annotations

import html
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from bridge.catalog import load
from bridge.rules.contract import lua_json
from tests.browser import rendered_summary
from tests.e2e.harness import LiveGame, ttsmod


@dataclass
class Played:
    journal: Path
    colours: list[str]
    said: list[str]          # what the table told everyone, in order (lib.panel.say)
    actions: list[dict]      # the actions of the legal requests the mod sent, in order
    setups: int              # setup requests (a mod that lays its own table asks none)
    game_id: str
    source: str


def _journaled_notes(path: Path) -> int:
    if not path.exists():
        return 0
    count = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            custom = (json.loads(line).get("msg") or {}).get("customMessage") or {}
        except ValueError:
            continue
        count += isinstance(custom, dict) and custom.get("type") == "broadcast"
    return count


def play_journaled(game: LiveGame, journal: Path, decisions: int, source: str,
                   decide: Callable[[Any], None] | None = None) -> Played:
    """Start ``game`` with its bridge journaling to ``journal``, play ``decisions`` decisions (fewer if the game
    ends) with ``decide(game)`` (default: ``game.play(game.pick())``, the harness's own choice, checked against the
    engine), and close it once every broadcast note the mod sent is in the journal."""
    game.bridge.journal = journal
    try:
        game.start()
        for _ in range(decisions):
            if game.over:
                break
            if decide is None:
                game.play(game.pick())
            else:
                decide(game)
        sent = [m for m in game.table.sent_custom if m.get("type") == "broadcast"]
        deadline = time.monotonic() + 20
        while _journaled_notes(journal) < len(sent) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _journaled_notes(journal) == len(sent), "the bridge did not journal every broadcast note in time"
        said = game.messages_to(None)
        seen, actions = set(), []
        for message in game.table.sent_custom:   # a request sent again (no reply in time) has the same id
            if message.get("type") == "legal" and message["id"] not in seen:
                seen.add(message["id"])
                actions.append(lua_json(message["body"])["action"])
        setups = len({m["id"] for m in game.table.sent_custom if m.get("type") == "setup"})
        game_id = next(m["game"] for m in game.table.sent_custom if m.get("type") not in (None, "hello"))
    finally:
        game.close()
    return Played(journal, list(game.colours), said, actions, setups, game_id, source)


def page_of(played: Played, repo: Path, out: Path) -> str:
    """``ttsmod replay JOURNAL --html OUT``, run as a user runs it; the page's text."""
    done = ttsmod("replay", str(played.journal), "--html", str(out), cwd=repo)
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8")


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def check_page(played: Played, page: str) -> None:
    """The page holds what the table told everyone, in order, each sentence under a ruling; every decision with
    the colour of the seat that made it, in the game's text form; a plot line per seat; standings per seat."""
    loaded = load(played.source)
    assert played.said, "the table said nothing"
    said = [_text(s) for s in re.findall(r'<li>(.*?)</li>', "".join(re.findall(r'<ul class="said[^"]*">(.*?)</ul>', page, re.S)))]
    assert said == played.said
    legal_steps = "".join(re.findall(r'<li class="step [^"]*" id="line-\d+" data-type="legal">(.*?)</li>', page, re.S))
    decisions = [_text(d) for d in re.findall(r'<p class="decision"[^>]*data-by="player">(.*?)</p>', legal_steps)]
    expected = []
    for action in played.actions:
        text = str(loaded.engine.action_from_json(loaded.data, action))
        expected.append(f"{played.colours[action['player']]}: {text}")
    assert decisions == expected
    if getattr(loaded.engine, "scores", None) is not None:
        assert page.count('<polyline class="score-line"') == len(played.colours)
    rows = re.findall(r'<tr[^>]*data-seat="(\d+)"><td>([^<]*)</td>', page)
    assert [name for _, name in rows] == played.colours


def check_rendered(played: Played, page_path: Path, work: Path) -> dict[str, Any]:
    """The page as Chromium lays it out: one game; a polyline per seat with a point per ruling, drawn across the
    plot; the legend, the sentences, the decisions and the standings as the table and the engine have them."""
    loaded = load(played.source)
    summary = rendered_summary(page_path, work)
    assert summary["scripts"] == 0
    (game,) = summary["games"]
    assert game["game"] == played.game_id
    rulings = game["rulings"]
    assert rulings == played.setups + len(played.actions) + _own_rulings(page_path)
    if getattr(loaded.engine, "scores", None) is not None:
        assert [line["player"] for line in game["lines"]] == played.colours
        assert all(line["points"] == rulings for line in game["lines"])
        assert all(line["width"] > 100 for line in game["lines"]) and game["plot"]["width"] > 300
        assert [item.split(" (")[0] for item in game["legend"]] == played.colours
    assert game["said"] == played.said
    assert len(game["decisions"]) >= len(played.actions)
    assert [row[0] for row in game["standings"]] == played.colours
    assert game["winners"]
    return game


def _own_rulings(page_path: Path) -> int:
    """Rulings of the game's own request types (an end-of-round ruling, say): those that carry no action."""
    page = page_path.read_text(encoding="utf-8")
    steps = re.findall(r'<li class="step ruling"[^>]*data-type="([^"]*)"', page)
    return sum(1 for kind in steps if kind not in ("setup", "legal", "apply"))
