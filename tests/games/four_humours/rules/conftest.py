"""Fixtures for the Four Humours engine tests: the sample data, extra test cards, and a table builder.

``table(...)`` writes a snapshot the way the mod would read it off the table: it places the potions you name
and puts every other potion of each player in that player's bag, so the 20-potion accounting holds. Like the
mod's, it leaves out the bookkeeping the engine writes for itself (``rng``, ``pending``, …): ``ask`` sends it
through the one contract, as the bridge does, and ``read`` makes the state the contract would answer from.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bridge.rules.four_humours.records import (
    HUMOURS,
    Count,
    FourHumoursData,
    Goal,
    GoalPredicate,
    Names,
    Outcome,
    SceneCard,
    Slot,
    Step,
)
from bridge.catalog import load_game
from bridge.rules.contract import prepare_snapshot
from bridge.rules.four_humours.game import FOUR_HUMOURS
from bridge.rules.four_humours.state import GameState

SHORT = {"C": "choleric", "S": "sanguine", "M": "melancholic", "F": "phlegmatic"}


def names(text: str) -> Names:
    return Names(text, text, text)


def slot(citizen: str, a: str, b: str) -> Slot:
    return Slot(citizen, (a, b))


# A big test scene on the Mill cell: seven citizens, so every worked example's potions fit on one card.
MILL_FAIR = SceneCard(
    id="mill-fair",
    title=names("Mill Fair"),
    kind="location",
    zone="T1",
    cell="mill",
    slots=(
        slot("noble", "choleric", "sanguine"),
        slot("noble", "choleric", "sanguine"),
        slot("minstrel", "sanguine", "melancholic"),
        slot("nun", "melancholic", "phlegmatic"),
        slot("knight", "choleric", "phlegmatic"),
        slot("peasant", "sanguine", "phlegmatic"),
        slot("sorcerer", "choleric", "melancholic"),
    ),
)

# The per-card list of seed S0 (rules spec FH-5.7), on a card without melancholic citizens.
S0_LIST = (
    Step("choleric", Count("eq", 1), Outcome.WIN),
    Step("sanguine", Count("eq", 2), Outcome.WIN),
    Step("sanguine", Count("eq", 1), Outcome.SNEAK),
    Step("phlegmatic", Count("eq", 1), Outcome.WIN),
)
S0_CARD = SceneCard(
    id="mill-s0",
    title=names("Mill (S0 list)"),
    kind="location",
    zone="T1",
    cell="mill",
    slots=(
        slot("noble", "choleric", "sanguine"),
        slot("noble", "choleric", "sanguine"),
        slot("peasant", "sanguine", "phlegmatic"),
        slot("knight", "choleric", "phlegmatic"),
    ),
    resolution=S0_LIST,
)

WOLVES_T3 = SceneCard(
    id="wolves-t3",
    title=names("Wolves"),
    kind="animal",
    zone="T3",
    cell=None,
    slots=(slot("animal", "phlegmatic", "choleric"), slot("animal", "phlegmatic", "sanguine")),
)

TEST_GOALS = (
    Goal("any-potion", "kingdom", names("Any potion"), names("A potion on the map"), GoalPredicate("stack_on_cell", min=1)),
    Goal("two-stack", "kingdom", names("Two together"), names("Two potions on one cell"), GoalPredicate("stack_on_cell", min=2)),
)


@pytest.fixture(scope="session")
def sample() -> FourHumoursData:
    """The shipped sample data, unchanged."""
    return load_game("four-humours")


@pytest.fixture(scope="session")
def data(sample: FourHumoursData) -> FourHumoursData:
    """The sample data plus the test cards and goals above."""
    return dataclasses.replace(
        sample,
        scenes=sample.scenes + (MILL_FAIR, S0_CARD, WOLVES_T3),
        goals=sample.goals + TEST_GOALS,
    )


def potions(spec: str) -> list[tuple[int, str]]:
    """``"P1:C P2:S"`` → ``[(0, "choleric"), (1, "sanguine")]`` (players are 1-based in the rules text)."""
    result = []
    for word in spec.split():
        player, humour = word.split(":")
        result.append((int(player[1:]) - 1, SHORT[humour]))
    return result


def table(
    data: FourHumoursData,
    *,
    players: int = 4,
    mode: str = "kingdom",
    scenes: dict[str, list[tuple[int, str] | None]] | None = None,
    parties: dict[str, list[tuple[int, str] | None]] | None = None,
    boards: dict[str, dict[str, list[tuple[int, str]]]] | None = None,
    hands: dict[int, list[str]] | None = None,
    deck: list[str] | None = None,
    goals: list[str] | None = None,
    marked: dict[str, list[int]] | None = None,
    first_player: int = 0,
    active: int = 0,
    passes: int = 0,
    last_actor: int | None = None,
    bag_limit: dict[int, int] | None = None,
    phase: str = "placement",
    termination: str | None = None,
    round_no: int = 1,
    resolved: list[str] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    """A snapshot with the named potions placed and all others in their owners' bags.

    ``bag_limit`` caps a player's bag (the rest of their potions are put on the map, on the first cell,
    as if placed in earlier rounds) for the end-of-game examples.
    """
    scenes = scenes or {}
    parties = parties or {}
    boards = {b: {c: list(p) for c, p in cells.items()} for b, cells in (boards or {}).items()}
    hands = hands or {}
    composition = dict(data.rules.bag_composition)
    counts = [dict(composition) for _ in range(players)]

    def take(owner: int, humour: str) -> None:
        counts[owner][humour] -= 1
        assert counts[owner][humour] >= 0, f"player {owner + 1} has no {humour} left"

    for slots in list(scenes.values()) + list(parties.values()):
        for p in slots:
            if p is not None:
                take(*p)
    for cells in boards.values():
        for ps in cells.values():
            for p in ps:
                take(*p)
    for seat, hand in hands.items():
        for h in hand:
            take(seat, h)
    fiefs = [f.id for f in data.fiefs[:players]] if mode == "fief" else []
    for seat, limit in (bag_limit or {}).items():
        spare = sum(counts[seat].values()) - limit
        board = "kingdom" if mode == "kingdom" else fiefs[seat]
        cell = data.kingdom.cells[0].id if mode == "kingdom" else data.fief_by_id[board].cells[0].id
        for h in HUMOURS:
            while spare and counts[seat][h]:
                counts[seat][h] -= 1
                spare -= 1
                boards.setdefault(board, {}).setdefault(cell, []).append((seat, h))

    all_parties = [p.id for p in sorted(data.parties, key=lambda p: p.order)]
    mode_goals = goals or [g.id for g in data.goals_of_mode(mode)][:4]
    used = set(scenes)
    deck = deck if deck is not None else [s.id for s in data.scenes if s.id not in used][:12]

    def slot_json(p):
        return None if p is None else {"owner": p[0], "humour": p[1]}

    return {
        "ttsmod_snapshot": 1,
        "game": "four-humours",
        "mode": mode,
        "phase": phase,
        "round": round_no,
        "players": [
            {
                "seat": seat,
                "colour": data.info.player_colours[seat],
                "fief": fiefs[seat] if fiefs else None,
                "hand": list(hands.get(seat, [])),
                "bag": counts[seat],
            }
            for seat in range(players)
        ],
        "first_player": first_player,
        "active_player": active,
        "last_actor": last_actor,
        "consecutive_passes": passes,
        "termination": termination,
        "scene_deck": deck,
        "scenes": [
            {"card": card, "slots": [slot_json(p) for p in _pad(slots, data.scene_by_id[card])]}
            for card, slots in scenes.items()
        ],
        "parties": [
            {"party": party, "slots": [slot_json(p) for p in _pad(parties.get(party, []), data.party_by_id[party])]}
            for party in all_parties
            if party not in resolved
        ],
        "resolved_parties": list(resolved),
        "goals": [{"goal": g, "marked_by": list((marked or {}).get(g, []))} for g in mode_goals],
        "boards": {
            board: {cell: [slot_json(p) for p in ps] for cell, ps in cells.items()} for board, cells in boards.items()
        },
    }


def _pad(slots: list, card) -> list:
    return list(slots) + [None] * (len(card.slots) - len(slots))


def on_slots(card: SceneCard, spec: str) -> list[tuple[int, str] | None]:
    """Lay the potions of ``spec`` on the first free slots of ``card`` that accept their humours."""
    result: list[tuple[int, str] | None] = [None] * len(card.slots)
    for potion in potions(spec):
        for i, s in enumerate(card.slots):
            if result[i] is None and potion[1] in s.humours:
                result[i] = potion
                break
        else:
            raise AssertionError(f"no free slot on {card.id} takes {potion}")
    return result


def ask(data: FourHumoursData, request_type: str, body: Any) -> dict[str, Any]:
    """The answer to one request, as the bridge and ``ttsmod adjudicate`` give it (bridge/rules/contract.py)."""
    return FOUR_HUMOURS.handle(data, request_type, body)


def end_round(data: FourHumoursData, snap: dict[str, Any], choices: list[dict[str, Any]] = (),  # type: ignore[assignment]
              *, force: bool = False) -> dict[str, Any]:
    """The ``end_round`` ruling of the table ``snap`` with the cells chosen so far."""
    return ask(data, "end_round", {"snapshot": snap, "choices": list(choices), "force": force})


def read(data: FourHumoursData, snap: dict[str, Any]) -> GameState:
    """The state a request on ``snap`` is answered from: the contract fills in what the snapshot leaves out."""
    return GameState.from_snapshot(data, prepare_snapshot(FOUR_HUMOURS, data, snap))
