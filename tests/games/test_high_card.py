"""The guide's "Adding a game" followed for a small example game kept in the tests: High Card
(tests/games/high_card/: data, engine, builder, protocol page and Lua in one folder).

It touches no shared file (nothing outside its folder and this test names it), `build` writes a save that
`check` passes, its Lua is the shared play loop (mod/lib/play.lua) and under 100 lines of its own, and a whole
game plays on the headless table against a real `ttsmod bridge --game FOLDER`: Setup deals, players drop cards in
the play zone, a drop out of turn is refused and the card goes back to its hand, each ruling lays the cards where
the engine has them, and the end shows the winners on the status line and the score panel. The shared suites
(the conformance suites among them) play it too: they find every game folder of tests/games/.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bridge.catalog import load
from bridge.rules.contract import lua_json
from tests.livebridge import Bridge, free_port
from tools.headless import Fidelity, HObject, Table, Vec
from tools.headless.geometry import inside_box

GAME = Path(__file__).resolve().parent / "high_card"
COLOURS = ["White", "Red", "Blue"]       # three players: 15 cards dealt, 5 set aside
NAMES = re.compile(r"high[_ -]?card", re.IGNORECASE)


def ttsmod(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from tools.cli import main; main()", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def built(tmp_path_factory, repo_root) -> dict:
    out = tmp_path_factory.mktemp("high-card")
    done = ttsmod("build", str(GAME), "--out", str(out), "--jobs", "1", cwd=repo_root)
    assert done.returncode == 0, done.stderr
    checked = ttsmod("check", str(out / "HighCard.json"), cwd=repo_root)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    return json.loads((out / "HighCard.json").read_text(encoding="utf-8"))


def test_no_file_outside_its_folder_names_it(repo_root):
    """The game is its folder (and this test): no shared code, test or Lua names it. The guide's pages that point
    to it as the model of a new game are docs, not code."""
    own = {GAME, Path(__file__).resolve()}
    offenders = []
    for top in ("bridge", "tools", "mod", "tests", "benchmarks"):
        for path in sorted((repo_root / top).rglob("*")):
            if path.suffix not in {".py", ".lua", ".xml", ".toml", ".md"} or "__pycache__" in path.parts:
                continue
            if any(path == mine or mine in path.parents for mine in own):
                continue
            if NAMES.search(path.read_text(encoding="utf-8", errors="replace")):
                offenders.append(str(path.relative_to(repo_root)))
    assert offenders == []


def test_its_lua_is_the_shared_play_loop_and_under_100_lines(built):
    lua = sorted((GAME / "mod").rglob("*.lua"))
    assert [p.name for p in lua] == ["global.lua"]
    assert len(lua[0].read_text(encoding="utf-8").splitlines()) < 100
    modules = re.findall(r'__bundle_register\("([^"]+)"', built["LuaScript"])
    assert {"__root", "generated.game", "generated.ttsmod", "lib.play", "lib.pieces", "lib.wiring"} <= set(modules)
    assert not [m for m in modules if m.startswith("high_card")]    # nothing of its own beside global.lua


def test_build_lays_the_deck_the_zones_and_the_hands(built):
    objects = built["ObjectStates"]
    (deck,) = [o for o in objects if o["Name"] == "Deck"]
    assert sorted(json.loads(c["Memo"])["value"] for c in deck["ContainedObjects"]) == list(range(1, 21))
    zones = sorted(json.loads(o["Memo"])["role"] for o in objects if o["Name"] == "ScriptingTrigger")
    assert zones == ["play", "stock", "won", "won", "won", "won"]
    assert [o["Name"] for o in objects].count("HandTrigger") == 4
    assert 'id="setupButton"' in built["XmlUI"] and 'id="scoreRow1"' in built["XmlUI"]   # lib/play.xml included


def test_simulate_and_adjudicate_take_its_folder(repo_root):
    done = ttsmod("simulate", str(GAME), "--games", "20", "--players", "4", "--seed", "2", "--json", cwd=repo_root)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["games"] == 20 and len(report["win_rate_by_seat"]) == 4 and report["mean_most_tricks"] >= 2
    game = load(GAME)
    snapshot = game.engine.new_game(game.data, 2, seed=5).to_snapshot()
    scored = subprocess.run([sys.executable, "-c", "from tools.cli import main; main()", "adjudicate", str(GAME), "-",
                             "--type", "score"], cwd=repo_root, capture_output=True, text=True, timeout=120,
                            input=json.dumps(snapshot))
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout) == {"standings": [{"player": 0, "score": 0}, {"player": 1, "score": 0}],
                                         "leaders": [0, 1]}


# ------------------------------------------------------------------------------------------------- a whole game

def card_of(obj: HObject) -> str | None:
    return obj.memo_json().get("id")


class Game:
    """The built save on a headless table, three players seated, a real bridge serving the game folder."""

    def __init__(self, save: dict, repo: Path, fidelity: Fidelity) -> None:
        port = free_port()
        self.table = Table.load(save, seed=3, bridge_port=port, listen_port=0, fidelity=fidelity)
        self.bridge = Bridge(repo, port, self.table.endpoint.port, extra=("--game", str(GAME)))

    def start(self) -> None:
        self.bridge.start()
        self.table.seat(*COLOURS)
        self.table.boot()
        assert self.table.run_until(lambda: "bridge connected" in self.status("bridgeStatus"), max_seconds=20)
        self.table.click("setupButton", "White")
        self.wait_ready()

    def close(self) -> None:
        self.bridge.stop()
        self.table.close()

    def status(self, element: str = "turnStatus") -> str:
        return self.table.ui_value(element)

    def ledger(self) -> dict:
        return lua_json(json.loads(self.table.call_global("onSave"))["ledger"])

    def ready(self) -> bool:
        waiting = self.status().endswith("to play: drop a card in the middle") or self.status().startswith("Game over")
        return waiting and self.table.settled and not any(o.in_motion for o in self.table.objects)

    def wait_ready(self) -> None:
        assert self.table.run_until(self.ready, max_seconds=60), (self.status(), self.table.errors[-3:])

    def zone(self, role: str, owner: str | None = None) -> HObject:
        return next(z for z in self.table.with_tag("hc-zone") if z.memo_json().get("role") == role
                    and z.memo_json().get("owner") == owner)

    def drop_in_play(self, colour: str, card: str) -> None:
        """``colour`` picks the card up from their hand and drops it in the middle of the play zone."""
        obj = next(o for o in self.table.hand(colour) if card_of(o) == card)
        self.table.pick_up(obj, colour)
        self.table.drop(obj, colour, position=self.zone("play").position + Vec(1.0, 0.0, 0.5))
        self.wait_ready()

    def on_table(self) -> dict:
        """Where each card lies, as the players see it: hands, the trick, the won piles, the cards set aside
        (face up or down), loose or in the decks they merged into."""
        def ids(objs):
            inside = [c for o in objs for c in ([o] if not o.contents else o.contents)]
            return sorted(card_of(o) for o in inside)

        def lying_in(zone):     # by where they lie: a deck merged on the table carries no tag of its cards
            return [o for o in self.table.objects if o.name in ("Card", "Deck") and self.table.in_hand(o) is None
                    and inside_box(o.position, zone.position, zone.rotation, zone.scale)]

        return {"hands": {c: ids(self.table.hand(c)) for c in COLOURS},
                "trick": ids(lying_in(self.zone("play"))),
                "won": {c: ids(lying_in(self.zone("won", c))) for c in COLOURS},
                "stock": ids(lying_in(self.zone("stock"))),
                "face_up": sorted(card_of(o) for o in self.table.with_tag("hc-card")
                                  if o.name == "Card" and not o.face_down and self.table.in_hand(o) is None)}

    @staticmethod
    def expected(snapshot: dict) -> dict:
        players = snapshot["players"]
        return {"hands": {c: sorted(p["hand"]) for c, p in zip(COLOURS, players)},
                "trick": sorted(p["card"] for p in snapshot["trick"]),
                "won": {c: sorted(p["won"]) for c, p in zip(COLOURS, players)},
                "stock": sorted(snapshot["stock"]),
                "face_up": sorted(p["card"] for p in snapshot["trick"])}


@pytest.fixture(params=[Fidelity.faithful(), Fidelity.slow()], ids=["faithful", "slow"])
def game(built, repo_root, request):
    live = Game(built, repo_root, request.param)
    try:
        live.start()
        yield live
    finally:
        live.close()


@pytest.mark.e2e      # a whole game on the headless table against a real bridge, as the e2e folders' tests are
def test_a_whole_game_is_dealt_played_refused_ruled_and_won_on_the_table(game):
    engine = load(GAME)
    ledger = game.ledger()
    assert ledger["colours"] == COLOURS and ledger["phase"] == "play"
    (setup,) = [m["body"] for m in game.table.sent_custom if m["type"] == "setup"]
    assert lua_json(setup)["players"] == 3
    state = engine.engine.from_snapshot(engine.data, ledger["snapshot"])
    assert game.on_table() == game.expected(state.to_snapshot())       # dealt: five cards a hand, five aside
    assert game.status() == "White to play: drop a card in the middle"
    assert game.status("scoreRow1") == "White: 0 trick(s)"

    # Red drops a card out of turn: refused, and the card goes back to Red's hand
    red_card = sorted(state.hands[1])[0]
    told = len(game.table.broadcasts)
    game.drop_in_play("Red", red_card)
    assert red_card in game.on_table()["hands"]["Red"]
    assert ("Not allowed: seat 0 is to play.", "Red") in game.table.broadcasts[told:]
    assert game.ledger()["snapshot"] == state.to_snapshot()

    # everybody plays in turn, the highest card of their hand, until the hands are empty
    while not state.is_over():
        seat = state.to_move()
        colour = COLOURS[seat]
        assert game.status() == f"{colour} to play: drop a card in the middle"
        card = max(state.hands[seat], key=engine.data.values.__getitem__)
        game.drop_in_play(colour, card)
        state.apply(engine.engine.action_from_text(engine.data, f"play {seat} {card}"))
        assert game.ledger()["snapshot"] == state.to_snapshot()
        assert game.on_table() == game.expected(state.to_snapshot())

    winners = " and ".join(COLOURS[s] for s in state.outcome().winners)
    assert game.status() == f"Game over · {winners} won"
    assert game.status("scoreRound") == f"Final scores · {winners} won"
    assert [game.status(f"scoreRow{i}") for i in (1, 2, 3)] == \
        [f"{c}: {n} trick(s)" for c, n in zip(COLOURS, state.tricks())]
    assert (f"Game over: {winners} won (decided by tricks).", None) in game.table.broadcasts
    assert not game.table.errors
