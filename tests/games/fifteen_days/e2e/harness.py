"""End-to-end harness for 15 Days: the built save on the headless table, talking to a real `ttsmod bridge`.

:class:`Game` plays as scripted players would: it seats them, presses Setup, and for every decision asks the
engine for the legal actions of the table as it lies (:meth:`Game.state`: the table read in Python by
``tableview.read_table`` plus the engine's bookkeeping the mod keeps in its saved ledger, lib.play's ``snapshot``),
picks one, and performs it
the way a player does — a button click, or a hand card dragged onto a board's card point, the discard pile or
the wild supply (with ``drag_takes``, takes and draws are the top card dragged into the hand instead). Once the
mod has asked the bridge and applied the ruling, :meth:`Game.check` compares the table
with what the engine makes of the same action on the same table: every hand, pile, column, corner, wild, animal,
feather and supply, the mod's bookkeeping, whose turn it is, and the score panel. The life cycle (build, bridge,
start, reload) is :class:`tests.e2e.harness.LiveGame`'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge.rules.fifteen_days.actions import (
    Action, Discard, Done, Draw, EndTurn, Feather, Pass, Pay, Play, PutWild, Refill, Take, TakeWild)
from bridge.rules.contract import lua_json as whole_numbers
from bridge.rules.contract import prepare_snapshot
from bridge.rules.fifteen_days.game import FIFTEEN_DAYS
from bridge.rules.fifteen_days.state import GameState
from tests.games.fifteen_days.e2e.tableview import (
    REMOVED, board_of, card_points, decks, inside, physical, read_table, zone)
from tests.e2e.harness import LiveGame, diff, lua_nulls
from tools.headless import Fidelity, HObject, Vec

BOOKKEEPING = ("active", "turn", "actions_left", "pending", "boost", "power", "otter_turn", "fresh_discards",
               "end", "over")



def bookkeeping(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What the mod keeps in its ledger of a snapshot: the turn keys (null and false alike) and each seat's wilds
    played (which the table cannot show once a wild went back to the supply)."""
    return {**{key: lua_nulls(snapshot.get(key)) for key in BOOKKEEPING},
            "wilds_played": [player.get("wilds_played") for player in snapshot["players"]]}


def engine_state(data: Any, snapshot: dict[str, Any]) -> GameState:
    """The engine's state of a snapshot as the mod sends it, read as every request reads one
    (:func:`bridge.rules.contract.prepare_snapshot`: the bookkeeping the mod leaves out gets its default)."""
    return GameState.from_snapshot(data, prepare_snapshot(FIFTEEN_DAYS, data, whole_numbers(snapshot)))


class Game(LiveGame):
    """Scripted players at a headless 15 Days table with a live bridge (see the module docstring)."""

    def __init__(self, save: dict, data: Any, repo: Path, colours: list[str], *, seed: int = 1,
                 fidelity: Fidelity | None = None) -> None:
        super().__init__(save, repo, colours, seed=seed, fidelity=fidelity)
        self.data = data
        self.actions_checked = 0
        self.kinds: dict[str, int] = {}
        self.outcome: Any = None
        self.last: dict[str, Any] | None = None   # the table as last checked (equal to the engine's state)
        # with drag_takes, takes and draws are made by dragging the card into the hand instead of a button;
        # drags lists (zone tag, zone index) of every such drag
        self.drag_takes = False
        self.drags: list[tuple[str, int | None]] = []

    def reloaded(self) -> None:
        self.last = None

    # ------------------------------------------------------------------ what players see
    def waiting(self, s: str) -> bool:
        return s.endswith(" to play") or " places a wild" in s or s.startswith("Game over")

    def read(self) -> dict[str, Any]:
        return read_table(self.table, self.colours, tuple(self.data.rules.values))

    def snapshot(self) -> dict[str, Any]:
        """The table as the mod's snapshot: the envelope, what lies on the table, and the bookkeeping the mod
        keeps (its turn keys, and each seat's wilds played)."""
        ledger = self.ledger()
        snap = {"ttsmod_snapshot": 1, "game": "fifteen-days", "mode": ledger["mode"], **self.read()}
        kept = ledger["snapshot"]
        for key, value in kept.items():
            if key != "players":
                snap[key] = value
        for player, entry in zip(snap["players"], kept.get("players") or []):
            player["wilds_played"] = entry.get("wilds_played") if isinstance(entry, dict) else None
        return whole_numbers(snap)

    def state(self) -> GameState:
        return engine_state(self.data, self.last or self.snapshot())

    # ------------------------------------------------------------------ player actions
    def hand_card(self, colour: str, face) -> HObject:
        return next(o for o in sorted(self.table.hand(colour), key=lambda o: o.memo_json().get("card", ""))
                    if o.has_tag("fd-season") and o.memo_json()["season"] == face.season
                    and o.memo_json()["value"] == face.value)

    def awaiting_wild(self, colour: str) -> HObject:
        found = [o for o in self.table.hand(colour) if o.has_tag("fd-wild")]
        assert len(found) == 1, f"{colour} should hold exactly the wild awaiting a place: {found}"
        return found[0]

    def drag_to_point(self, obj: HObject, colour: str, corner: int, value: int) -> None:
        board = board_of(self.table, colour)
        index, _ = card_points(board)[(corner, value)]
        self.move(obj, colour, snap=(board, index))

    def drag_to_zone(self, obj: HObject, colour: str, tag: str) -> None:
        self.move(obj, colour, position=zone(self.table, tag).position)

    def top_card(self, tag: str, index: int | None = None) -> HObject:
        """The top card of a market column, the discard pile or a draw pile as a player grabs it: the highest
        loose card there, else the top of the deck lying there (grabbing it takes it out of the deck, as in TTS)."""
        z = zone(self.table, tag, index)
        loose = [o for o in self.table.with_tag("fd-season") if o.held_by is None and not o.has_tag(REMOVED)
                 and inside(z, o)]
        if loose:
            return max(loose, key=lambda o: (round(o.position.y, 3), o.guid))
        # the deck lying there: the season deck, or one the pile's cards formed (it carries no tags)
        deck = max((d for d in decks(self.table) if inside(z, d)), key=lambda d: (round(d.position.y, 3), d.guid))
        # grabbed off the deck's top, where the deck lies (takeObject's default would put it 2 units aside)
        return self.table.take_out(deck, position=Vec(deck.position.x, deck.position.y + 0.1, deck.position.z))

    def offer_spot(self, k: int) -> Vec:
        """Where a player drops the ``k``-th card offered for a wild: the table snap point of that offer spot,
        beside the wild deck (docs/games/fifteen_days/table-contract.md)."""
        (point,) = [p["Position"] for p in self.table.save_data.get("SnapPoints") or []
                    if f"fd-offer-slot:{k}" in p.get("Tags", [])]
        return Vec(point["x"], point["y"] + 1.0, point["z"])

    def drag_to_hand(self, obj: HObject, colour: str) -> None:
        """``colour`` picks ``obj`` up where it lies and drops it into their own hand zone."""
        self.move(obj, colour, position=self.table.hand_zone(colour).position)

    def drag_take(self, action: Take | Draw) -> None:
        colour = self.colours[action.player]
        if isinstance(action, Draw):
            where: tuple[str, int | None] = ("fd-draw-pile", action.pile)
        elif action.column is None:
            where = ("fd-discard", None)
        else:
            where = ("fd-market-column", action.column)
        self.drag_to_hand(self.top_card(*where), colour)
        self.drags.append(where)

    BUTTONS = {Done: "done", EndTurn: "endTurn", Pass: "passAction"}

    def begin(self, action: Action) -> HObject | None:
        """The player performs ``action`` (a click or a drag) without waiting for the table; returns the card
        the engine should take for it (the one dragged), if any."""
        colour = self.colours[action.player]
        t = self.table
        if self.drag_takes and isinstance(action, (Draw, Take)):
            self.drag_take(action)
        elif isinstance(action, (Draw, Refill)):
            t.click(f"drawPile{action.pile + 1}", colour)
        elif isinstance(action, Take):
            t.click("takeDiscard" if action.column is None else f"takeColumn{action.column + 1}", colour)
        elif isinstance(action, Feather):
            t.click("feather" + action.animal.capitalize(), colour)
        elif type(action) in self.BUTTONS:
            t.click(self.BUTTONS[type(action)], colour)
        elif isinstance(action, Play):
            card = self.hand_card(colour, action.card)
            self.drag_to_point(card, colour, action.corner, action.card.value)
            return card
        elif isinstance(action, (Pay, Discard)):
            card = self.hand_card(colour, action.card)
            self.drag_to_zone(card, colour, "fd-discard")
            return card
        elif isinstance(action, TakeWild):
            cards = []
            for k, face in enumerate(action.cards):
                card = next(o for o in sorted(t.hand(colour), key=lambda o: o.memo_json().get("card", ""))
                            if o.has_tag("fd-season") and o not in cards and o.memo_json()["season"] == face.season
                            and o.memo_json()["value"] == face.value)
                cards.append(card)
                self.move(card, colour, position=self.offer_spot(k))
                t.run_until(self.still, max_seconds=5)
                if k < len(action.cards) - 1:
                    # on its offer spot it joined neither the wild deck nor the card offered before it
                    assert card in t.objects and not card.destroyed, f"{card!r} offered for a wild merged"
            return None
        elif isinstance(action, PutWild):
            self.drag_to_point(self.awaiting_wild(colour), colour, action.corner, action.value)
        else:
            raise AssertionError(f"no way to play {action}")
        return None

    def expected(self, before: dict[str, Any], action: Action, dragged: HObject | None) -> GameState:
        """The engine's state after ``action`` on the table ``before`` (the dragged copy of a face first in hand,
        as the mod sends it)."""
        state = engine_state(self.data, before)
        if dragged is not None:
            card = dragged.memo_json()["card"]
            hand = state.seats[action.player].hand
            index = state.t.index[card]
            hand.remove(index)
            hand.insert(0, index)
        state.apply(action)
        return state

    def play(self, action: Action) -> GameState:
        """Perform ``action``, wait for the ruling to be applied, check the table against the engine."""
        before = self.last or self.snapshot()
        self.last = None
        dragged = self.begin(action)
        self.wait_ready()
        state = self.expected(before, action, dragged)
        self.check(state)
        self.kinds[action.name] = self.kinds.get(action.name, 0) + 1
        return state

    def check(self, state: GameState) -> None:
        """The table is the engine's ``state``: what lies where, the bookkeeping, the turn, the panels."""
        engine = state.to_snapshot()
        table = self.snapshot()
        assert physical(table) == physical(engine), diff(physical(table), physical(engine))
        assert bookkeeping(table) == bookkeeping(engine)
        self.last = table
        if state.is_over():
            self.outcome = state.outcome()
            winners = [self.colours[s] for s in self.outcome.winners]
            final = [m for m in self.messages_to(None) if m.startswith("Game over")]
            assert final and final[-1] == (f"Game over: {' and '.join(winners)} won (decided by "
                                           f"{self.outcome.decided_by}).")
            assert self.status == "Game over · " + " and ".join(winners) + " won"
        else:
            colour = self.colours[state.active]
            assert self.table.turns["turn_color"] == colour
            if state.pending == "wild":
                assert self.status == f"{colour} places a wild"
            else:
                assert self.status == f"{colour} to play"
        self.check_scores(state)
        self.actions_checked += 1

    def check_scores(self, state: GameState) -> None:
        for row in state.standings():
            shown = self.table.ui_value(f"scoreRow{row.player + 1}")
            colour = self.colours[row.player]
            assert shown.startswith(f"{colour}: {row.score} "), shown

    # ------------------------------------------------------------------ choosing
    WEIGHTS = {Play: 6.0, TakeWild: 4.0, PutWild: 1.0, Pay: 1.0, Feather: 0.3, Done: 0.5}

    def pick(self, weights: dict[type, float] | None = None) -> Action:
        """A legal action of the player to move, chosen at random by kind ``weights`` (by default games move
        on: plays and wilds preferred, feathers and done rarer)."""
        state = self.state()
        legal = state.legal_actions()
        assert legal, "no legal action on a game not over"
        table = {**self.WEIGHTS, **(weights or {})}
        return self.rng.choices(legal, [table.get(type(a), 1.0) for a in legal])[0]

