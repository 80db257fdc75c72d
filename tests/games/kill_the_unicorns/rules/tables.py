"""Build Kill the Unicorns tables for the worked examples: deal a game, then put named cards where a test wants
them (taking each from wherever it is, so every card stays exactly once on the table) and re-read the state from
its snapshot, so each table is one the mod could send. Seats are 0-based: the spec's P1 is seat 0."""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable

from bridge.catalog import load_game
from bridge.rules.kill_the_unicorns.actions import Decline
from bridge.rules.kill_the_unicorns.records import KillTheUnicornsData
from bridge.rules.kill_the_unicorns.state import GameState, new_game

CHARACTERS = ("princess", "knight", "wizard", "huntress", "black_mage", "shaman", "bard")


def sample_data() -> KillTheUnicornsData:
    return load_game("kill-the-unicorns")


def with_rules(data: KillTheUnicornsData, **flags: Any) -> KillTheUnicornsData:
    """The data with some rule flags changed."""
    return dataclasses.replace(data, rules=dataclasses.replace(data.rules, **flags))


def hunt(seat: int, *values: int, character: str | None = None) -> list[str]:
    """Hunting card ids of ``CHARACTERS[seat]`` with the given values (sample values 0,1,1,2,2,3,3,4)."""
    ids = {0: [1], 1: [2, 3], 2: [4, 5], 3: [6, 7], 4: [8]}
    used: dict[int, int] = {}
    out = []
    name = character or CHARACTERS[seat]
    for v in values:
        out.append(f"{name}-hunt-{ids[v][used.get(v, 0)]}")
        used[v] = used.get(v, 0) + 1
    return out


def trick_of(data: KillTheUnicornsData, character: str, kind: str) -> str:
    """The first trick card of ``character`` of ``kind``."""
    index = data.character_by_id[character].tricks.index(kind) + 1
    return f"{character}-trick-{index}"


def _take(snap: dict[str, Any], card: str) -> None:
    for p in snap["players"]:
        for key in ("hand", "played", "hunt_discard", "trick_deck", "trick_hand", "trick_discard"):
            if card in p[key]:
                p[key].remove(card)
                return
    for pair in snap["slots"]:
        for s in (0, 1):
            if pair[s] == card:
                pair[s] = None
                return
    raise AssertionError(f"{card} is nowhere")


def at_hunt(data: KillTheUnicornsData, players: int, *, first: int = 0, slots: dict | None = None,
            hands: dict[int, Iterable[str]] | None = None, index: int = 0) -> GameState:
    """Day 1, the trick phase over (drawn tricks discarded), hunt ``index`` starting with ``first`` holding the
    token; ``slots`` {(unicorn, "above"|"below"): trick id}; ``hands`` {seat: the only cards left in hand}."""
    state = new_game(data, players, seed=1, characters=list(CHARACTERS[:players]))
    snap = state.to_snapshot()
    for p in snap["players"]:
        p["trick_discard"] += p["trick_hand"]
        p["trick_hand"] = []
    for (i, slot), card in (slots or {}).items():
        _take(snap, card)
        snap["slots"][i][("above", "below").index(slot)] = card
    for seat, keep in (hands or {}).items():
        p = snap["players"][seat]
        keep = list(keep)
        p["hunt_discard"] += [c for c in p["hand"] if c not in keep]
        p["hand"] = [c for c in p["hand"] if c in keep]
    for i in range(index):
        snap["unicorn_discard"].append(snap["line"][i])
        snap["line"][i] = None
    snap["phase"], snap["first"] = "hunt", first
    snap["hunt"] = {"index": index, "holder": first, "opener": None, "n": None, "passed": [], "declined": [],
                    "joined": [], "to_decide": first, "step": "open", "sums": None, "winner": None}
    snap["pending"] = {"player": first, "decision": "open"}
    return GameState.from_snapshot(data, snap)


def play(state: GameState, *actions) -> list[dict[str, Any]]:
    """Apply ``actions`` in order, declining every power on the way (and after); the events as JSON."""
    events: list[Any] = []

    def decline() -> None:
        while state.pending_decision == "power":
            events.extend(state.apply(Decline(state.pending_player)))

    for action in actions:
        decline()
        events.extend(state.apply(action))
    decline()
    return [e.to_json() for e in events]


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["event"] for e in events]


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == kind]
