"""End-to-end harness for Four Humours: the built save on the headless table, talking to a real `ttsmod bridge`
(the life cycle is :class:`tests.e2e.harness.LiveGame`'s).

:class:`Game` drives the Four Humours mod as scripted players would: it seats them, presses Setup, drops potions on slots, clicks Pass, drops a potion
the ruling waits for on a cell — and after every round compares the table with the engine's own state
(:meth:`Game.check_round`): the snapshot the mod sent with ``end_round`` must be what lies on the table, and the
table after the ruling must be what the engine's ``end_round`` makes of that snapshot and the same choices.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Callable

from bridge.rules.four_humours.actions import Choose, Pass, Place
from bridge.rules.four_humours.records import HUMOURS
from bridge.rules.contract import prepare_snapshot
from bridge.rules.four_humours import FOUR_HUMOURS
from bridge.rules.four_humours.state import GameState, Phase
from tests.games.four_humours.e2e.tableview import (
    bag_of, boards, goal_cards, party_tiles, physical, read_table, scene_cards, snaps,
)
from tests.e2e.harness import LiveGame, flat
from tools.headless import Fidelity, HObject

SHORT = {"choleric": "C", "sanguine": "S", "melancholic": "M", "phlegmatic": "P"}



class Game(LiveGame):
    """Scripted players at a headless Four Humours table with a live bridge (see the module docstring)."""

    def __init__(self, save: dict, data: Any, repo: Path, colours: list[str], *, seed: int = 1,
                 mode: str = "kingdom", fidelity: Fidelity | None = None, bots: dict[str, str] | None = None) -> None:
        super().__init__(save, repo, colours, seed=seed, fidelity=fidelity, bots=bots)
        self.data, self.mode = data, mode
        self.fiefs = [f.id for f in data.fiefs[:len(colours)]] if mode == "fief" else None
        self._seen_requests = 0
        self.round_start: dict | None = None     # the end_round snapshot of the round being resolved
        self.choices: list[dict] = []           # the choices the players made in that round
        self.rounds_checked = 0
        self.decisions = 0
        self.refused_choices = 0
        self.outcome: Any = None

    def reloaded(self) -> None:
        self._seen_requests = 0

    # ------------------------------------------------------------------ what players see
    def waiting(self, s: str) -> bool:
        return s.endswith(" to play") or "chooses a cell" in s or s.startswith("Game over")

    def deciding(self) -> str | None:
        """The colour the status line says the table waits for ("Round 2 · Red to play", "… · Red chooses a
        cell …"); None while a move is checked, a round resolved, or once the game is over."""
        s = self.status
        if self.over or "·" not in s:
            return None
        words = s.split("·", 1)[1].split()
        if s.endswith(" to play") or "chooses a cell" in s:
            return words[0]
        return None

    @property
    def to_play(self) -> str:
        return self.table.turns["turn_color"]

    def seat_of(self, colour: str) -> int:
        return self.colours.index(colour)

    def read(self) -> dict:
        return read_table(self.table, self.colours, mode=self.mode, fiefs=self.fiefs)

    def state(self) -> GameState:
        """The engine's view of the table as it lies (placement phase)."""
        return self.state_of(self.read())

    def state_of(self, snapshot: dict) -> GameState:
        """The state a request on ``snapshot`` is answered from (the contract fills in what the mod leaves out)."""
        return GameState.from_snapshot(self.data, prepare_snapshot(FOUR_HUMOURS, self.data, snapshot))

    # ------------------------------------------------------------------ running the clock
    def _requests(self, kind: str) -> list[dict]:
        return [m for m in self.sent if m.get("type") == kind]

    def _new_round_end(self) -> dict | None:
        sent = self.sent
        for message in sent[self._seen_requests:]:
            if message.get("type") == "end_round" and not message["body"].get("choices") \
                    and message["body"]["snapshot"] != (self.round_start or {}).get("snapshot"):
                return message
        return None

    def run(self, predicate: Callable[[], bool], max_seconds: float = 120.0) -> bool:
        """Run the clock until ``predicate`` holds. A round that ends on the way is caught as the mod sends
        ``end_round``: the snapshot it sends must be the table as it lies (its ruling is not applied yet)."""
        for _ in range(200):
            ok = super().run(lambda: predicate() or self._new_round_end() is not None, max_seconds)
            message = self._new_round_end()
            if message is None:
                return ok
            self._seen_requests = self.sent.index(message) + 1
            self._round_ended(message["body"]["snapshot"])
        raise AssertionError("too many round ends in one wait")

    def wait_ready(self, max_seconds: float = 120.0) -> None:
        """Run the clock until the table waits for a player; a round whose ruling has been applied by then is
        checked against the engine (:meth:`check_round`)."""
        super().wait_ready(max_seconds)
        self._seen_requests = len(self.sent)
        if self.round_start is not None and "chooses a cell" not in self.status:
            self.check_round()

    def _round_ended(self, snapshot: dict) -> None:
        # the ruling is not applied yet: the snapshot the mod sent must be the table as it lies
        assert physical(snapshot) == physical(self.read()), "the mod's end_round snapshot is not the table"
        self.round_start = {"snapshot": snapshot}
        self.choices = []

    # ------------------------------------------------------------------ player actions
    def host_and_slot(self, kind: str, card: str, slot: int) -> tuple[HObject, int]:
        if kind == "scene":
            host = next(c for c in scene_cards(self.table) if c.memo_json()["card"] == card)
        else:
            host = next(t for t in party_tiles(self.table) if t.memo_json()["party"] == card)
        return host, snaps(host, "fh-slot:")[str(slot)][0]

    def drop_potion(self, colour: str, humour: str, kind: str, card: str, slot: int) -> HObject:
        """``colour`` takes a potion of ``humour`` from their hand and drops it on a slot; the table settles."""
        potion = next(p for p in self.table.hand(colour) if p.memo_json()["humour"] == humour)
        self.move(potion, colour, snap=self.host_and_slot(kind, card, slot))
        self.wait_ready()
        return potion

    def place(self, action: Place) -> HObject:
        colour = self.colours[action.player]
        t = action.target
        return self.drop_potion(colour, action.humour, t.kind, t.card, t.slot)

    def pass_turn(self, colour: str) -> None:
        self.table.click(f"pass_{colour}", colour)
        self.wait_ready()

    def pick_action(self, pass_rate: float = 0.08, prefer: Callable[[Place], bool] | None = None):
        """A legal action for the player to play, chosen by the engine from the table as it lies."""
        state = self.state()
        assert self.colours[state.active] == self.to_play
        actions = [a for a in state.legal_actions() if a.player == state.active]
        places = [a for a in actions if isinstance(a, Place)]
        if prefer is not None and any(prefer(a) for a in places) and self.rng.random() < 0.7:
            places = [a for a in places if prefer(a)]
        if places and self.rng.random() >= pass_rate:
            return self.rng.choice(places)
        return next(a for a in actions if isinstance(a, Pass))

    def begin(self, action) -> HObject | None:
        """A player starts ``action`` (drops the potion, clicks Pass) without waiting for the table."""
        colour = self.colours[action.player]
        if not isinstance(action, Place):
            self.table.click(f"pass_{colour}", colour)
            return None
        potion = next(p for p in self.table.hand(colour) if p.memo_json()["humour"] == action.humour)
        self.move(potion, colour, snap=self.host_and_slot(action.target.kind, action.target.card, action.target.slot))
        return potion

    def play(self, action) -> None:
        if isinstance(action, Place):
            self.place(action)
        else:
            self.pass_turn(self.colours[action.player])

    def ends_round(self, action) -> bool:
        """Whether the engine ends the round with ``action`` on the table as it lies."""
        trial = self.state()
        trial.apply(action)
        return trial.phase is not Phase.PLACEMENT

    # ------------------------------------------------------------------ decisions
    def awaited(self) -> tuple[HObject, str, HObject, list[str]]:
        """The glowing potion, its owner, its board and the outlined cells."""
        glowing = [o for o in self.table.with_tag("fh-potion") if o.highlight]
        assert len(glowing) == 1, glowing
        potion = glowing[0]
        owner = potion.memo_json()["owner"]
        for board in boards(self.table).values():
            lines = board.data.get("AttachedVectorLines") or []
            if not lines:
                continue
            cells = []
            for line in lines:
                points = line["points"]
                cx = sum(p[0] for p in points[:4]) / 4
                cz = sum(p[2] for p in points[:4]) / 4
                for i, sp in enumerate(board.snap_points):
                    if abs(sp.position.x - cx) < 1e-6 and abs(sp.position.z - cz) < 1e-6:
                        cells += [t.split(":", 1)[1] for t in sp.tags if t.startswith("fh-cell:")]
            return potion, owner, board, cells
        raise AssertionError("no cells are outlined")

    def choose(self, try_wrong_cell: bool = False) -> str:
        """The owner of the glowing potion drops it on an outlined cell (first elsewhere if asked)."""
        potion, owner, board, cells = self.awaited()
        assert owner == self.colours[self.seat_of(owner)]
        cell_snaps = snaps(board, "fh-cell:")
        if try_wrong_cell:
            wrong = sorted(c for c in cell_snaps if c not in cells)
            if wrong:
                before = potion.position
                since = len(self.table.broadcasts)
                self.move(potion, owner, snap=(board, cell_snaps[wrong[0]][0]))
                self.table.run_until(lambda: self.ready(), max_seconds=5)
                assert flat(potion.position, before) < 0.6, "a potion dropped on a cell not allowed stayed there"
                assert any("may only go on one of" in m for m in self.messages_to(owner, since))
                assert potion.highlight and "chooses a cell" in self.status
                self.refused_choices += 1
        cell = self.rng.choice(sorted(cells))
        self.move(potion, owner, snap=(board, cell_snaps[cell][0]))
        self.choices.append({"player": self.seat_of(owner), "cell": cell})
        self.decisions += 1
        self.wait_ready()
        return cell

    # ------------------------------------------------------------------ one turn, one round, a game
    def step(self, **policy: Any) -> None:
        """Whatever the table waits for: a choice, or the active player's action."""
        if "chooses a cell" in self.status:
            self.choose(try_wrong_cell=policy.pop("try_wrong_cell", False) and self.refused_choices == 0)
        else:
            policy.pop("try_wrong_cell", None)
            self.play(self.pick_action(**policy))

    # ------------------------------------------------------------------ the table against the engine
    def last_reply(self, kind: str) -> dict:
        ids = {m["id"] for m in self._requests(kind)}
        replies = [m["customMessage"] for m in self.table.endpoint.received
                   if m.get("messageID") == 2 and m.get("customMessage", {}).get("re") in ids]
        return replies[-1]

    def check_round(self) -> None:
        """After a ruling is applied: the table is what the engine makes of the round's snapshot and choices."""
        start = self.round_start["snapshot"]
        if self.bots:
            # bot seats chose cells too: the round's choices are those of the last end_round the mod sent for it
            last = self._requests("end_round")[-1]["body"]
            assert last["snapshot"] == start
            assert [c for c in last["choices"] if self.colours[c["player"]] in self.humans] == self.choices
            self.choices = list(last["choices"])
        self.round_start = None
        reply = self.last_reply("end_round")
        if not reply["ok"]:
            # FH-4.3 on the table's own draws: the engine's trial said nobody could place, the hands drawn on the
            # table say otherwise; the engine refuses to end the round and play goes on with the next player
            assert "round is not over" in reply["error"]["message"], reply
            state = self.state_of(start)
            assert state.round_over_reason() is None
            assert self.to_play == self.colours[(state.last_actor + 1) % len(self.colours)]
            return
        ruling = FOUR_HUMOURS.handle(self.data, "end_round", {"snapshot": start, "choices": self.choices})
        assert ruling["complete"]
        assert reply["body"] == ruling, "the bridge's ruling is not the engine's"
        sent = self._requests("end_round")[-1]["body"]
        assert sent["choices"] == self.choices and sent["snapshot"] == start
        state = self.state_of(start)
        state.end_round(state.round_over_reason())
        for choice in self.choices:
            state.apply(Choose(choice["player"], choice["cell"]))
        assert state.phase is not Phase.RESOLUTION
        table = physical(self.read(), hands=False)
        engine = physical(state.to_snapshot(), hands=False)
        for key in ("players", "boards", "goals", "resolved_parties", "parties", "scenes", "scene_deck"):
            assert table[key] == engine[key], f"{key} differ after round {ruling['round']}"
        tiles = {t.memo_json()["party"]: t for t in party_tiles(self.table)}
        for party in state.resolved_parties:
            assert tiles[party].position.x > 24, f"resolved party {party} still lies in the party strip"
        self.check_scoreboard(state)
        if state.phase is Phase.ENDED:
            self.outcome = state.outcome()
            winners = [self.colours[s] for s in self.outcome.winners]
            final = [m for m, c in self.table.broadcasts if c is None and m.startswith("Game over")]
            assert final and all(w in final[-1] for w in winners), final
            assert self.status == "Game over · " + " and ".join(winners) + " won" or len(winners) > 2
        else:
            # a bot seat's turn is not handed to anybody in TTS's turn order: the status line names it
            assert (self.deciding() if self.bots else self.to_play) == self.colours[state.active]
            self.check_scene_markers()
        self.rounds_checked += 1

    def check_scoreboard(self, state: GameState) -> None:
        leaders = state.leaders()
        for row in state.standings():
            colour = self.colours[row.player]
            shown = self.table.ui_value(f"scoreRow{row.player + 1}")
            assert self.table.ui_visible(f"scoreRow{row.player + 1}")
            figures = " ".join(f"{SHORT[h]}{n}" for h, n in zip(HUMOURS, row.by_humour))
            goals = f"{row.goals} goal" + ("" if row.goals == 1 else "s")
            star = "★ " if row.player in leaders else ""
            assert shown == f"{star}{colour}: {goals} · {row.placed} placed ({figures})", shown

    def check_scene_markers(self) -> None:
        if self.mode != "kingdom":
            return
        markers = self.table.with_tag("fh-scene-marker")
        kingdom = boards(self.table)["kingdom"]
        cells = snaps(kingdom, "fh-cell:")
        for card in scene_cards(self.table):
            scene = self.data.scene_by_id[card.memo_json()["card"]]
            if scene.cell:
                p = cells[scene.cell][1]
                assert any(flat(m.position, p) < 1.0 for m in markers), f"no marker on {scene.cell}"

    # ------------------------------------------------------------------ small helpers for tests
    def hand_humours(self, colour: str) -> Counter:
        return Counter(p.memo_json()["humour"] for p in self.table.hand(colour))

    def bag_size(self, colour: str) -> int:
        return len(bag_of(self.table, colour).contents)

    def goal_titles(self) -> list[str]:
        return [c.nickname for c in goal_cards(self.table)]

    # ------------------------------------------------------------------ bot seats
    def wait_for_humans(self, max_seconds: float = 120.0) -> None:
        """Run the clock while the bots play (each of their rounds checked against the engine as the players'
        are, :meth:`wait_ready`) until the table waits for a seated player or the game is over."""
        for _ in range(1000):
            if self.over or self.deciding() in self.humans:
                return
            status, asked = self.status, len(self.requests("bot_move"))
            assert self.run(lambda: self.status != status, max_seconds), \
                f"the bot did not play; status {status!r}; bot_move requests {len(self.requests('bot_move')) - asked}"
            self.wait_ready(max_seconds)
        raise AssertionError("the bots played on and on")

    def play_with_bots(self, max_actions: int = 2000, **policy: Any) -> None:
        """The seated players play what the engine picks, the bots the rest, to the end of the game."""
        for _ in range(max_actions):
            self.wait_for_humans()
            if self.over:
                return
            self.step(**policy)
        raise AssertionError("the game did not end")
