"""The 15 Days snapshot (docs/games/fifteen_days/protocol.md): its schema, declared once, the state written to
it, and a snapshot checked (the state is built from the checked tree by ``state.py``, which imports this
module; this one imports nothing of it).

:func:`schema` declares every key and what it must be (:mod:`bridge.rules.schema`): reading through it checks
each value, names the path of what is wrong and takes what Lua writes (``[]`` for an empty object, ``false`` for
none, keys left out). What one value cannot say is checked by :func:`read` on the tree: a card in one place only
(the schema's ``Unique``), every card somewhere, a corner's cards of one season and distinct values, the wilds
and feathers adding up to the box's.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping, Sequence

from bridge.rules import schema as s
from bridge.rules.contract import envelope, read_envelope
from bridge.rules.fifteen_days.records import FifteenDaysData

END_NOT_YET: Mapping[str, Any] = MappingProxyType(
    {"trigger": None, "final_turns_left": None, "bonus_given": False, "complete_at_end": False})
"""The snapshot's ``end`` before anything ends the game (FD-9): no draw pile emptied (no trigger, no last turns
counted, no bonus wild given) and no complete sets waiting for the end of the turn."""
PENDING_KINDS = ("draw", "take", "refill", "play", "wild")
OVER_REASONS = ("complete_sets", "draw_pile")

_SCHEMAS: dict[int, tuple[FifteenDaysData, s.Record]] = {}


def schema(data: FifteenDaysData) -> s.Record:
    """The snapshot's schema for this game data (its cards, animals and rule flags), made once per data."""
    found = _SCHEMAS.get(id(data))
    if found is None or found[0] is not data:
        found = _SCHEMAS[id(data)] = (data, _schema(data))
    return found[1]


def _schema(data: FifteenDaysData) -> s.Record:
    rules, info = data.rules, data.info
    card = s.Unique(s.OneOf(frozenset(c.id for c in data.cards), "a season card of this game"), "cards")
    cards = s.ListOf(card, what="cards")
    count = s.Integer(0)
    seat = s.Nullable(s.Seat())
    F = s.Field
    corner = s.Record({"cards": F(cards, doc="its real cards by value, lowest first"),
                       "wild": F(s.Nullable(s.OneOf(frozenset(rules.values), "a value of this game")),
                                 doc="the value its wild stands for, or null")}, closed=True)
    player = s.Record({
        "hand": F(cards, doc="the cards in the hand"),
        "feathers": F(count, doc="feathers not yet spent"),
        "corners": F(s.ListOf(corner, what="corners"), doc="the board's corners, in board order"),
        "wilds_played": F(s.Nullable(count), None, doc="wilds placed this game (AMB-FD-13); left out: those out "
                                                       "of the supply"),
    }, closed=True)
    play = {"total": F(count), "discount": F(count), "placed": F(count), "paid": F(count),
            "paying": F(s.Boolean())}
    pending = s.Tagged("kind", {
        "draw": s.Record({"left": F(count), "extra": F(count)}),
        "take": s.Record({"left": F(count), "extra": F(count)}),
        "refill": s.Record({"column": F(s.Integer(0, rules.market_columns - 1)), "left": F(count),
                            "take_left": F(count), "take_extra": F(count)}),
        "play": s.Record(play),
        "wild": s.Record({"why": F(s.OneOf(("action", "move", "bonus"), "a reason for the wild")),
                          "from": F(s.Nullable(s.Integer(0)), None),
                          "play": F(s.Nullable(s.Record(play)), None)}),
    }, "a pending decision")
    animals = tuple(a.id for a in data.animals)
    animal = s.Nullable(s.OneOf(animals, "an animal"))
    end = s.Record({"trigger": F(seat, None), "final_turns_left": F(s.Nullable(count), None),
                    "bonus_given": F(s.Boolean(), False), "complete_at_end": F(s.Boolean(), False)}, closed=True)
    return s.Record({
        **envelope("fifteen-days", info.modes),
        "rng": F(s.Hex(16), doc="the random state"),
        "active": F(s.Seat(), doc="the seat whose turn it is"),
        "turn": F(s.Integer(1), doc="the turn's number, from 1"),
        "actions_left": F(s.Integer(0, rules.actions_per_turn), doc="actions left this turn"),
        "pending": F(s.Nullable(pending), None, doc="the decision an action waits for, or null"),
        "boost": F(animal, None, doc="the power lent by a feather for the next action"),
        "power": F(animal, None, doc="the power the action in progress has"),
        "otter_turn": F(s.Boolean(), doc="whether a feather raised this turn's hand limit"),
        "fresh_discards": F(s.ListOf(s.OneOf(frozenset(c.id for c in data.cards), "a season card of this game")),
                            doc="cards the active seat discarded this turn (on the discard pile)"),
        "draw_piles": F(s.ListOf(cards, length=rules.draw_piles, what="draw piles"), doc="bottom to top"),
        "market": F(s.ListOf(cards, length=rules.market_columns, what="columns"), doc="columns, bottom to top"),
        "discard": F(cards, doc="the discard pile, bottom to top"),
        "removed": F(cards, [], doc="cards out of the game (2 players)"),
        "wild_supply": F(count, doc="wilds in the supply"),
        "feather_supply": F(count, doc="feathers in the supply"),
        "feathers_out": F(count, doc="feathers spent"),
        "animals": F(s.Record({a: F(seat, None) for a in animals}, closed=True),
                     doc="each animal's owner; left out or null: in the supply"),
        "players": F(s.ListOf(player, min_length=info.min_players, max_length=info.max_players,
                              count_as="players", what="players"), doc="the seats, in seat order"),
        "end": F(end, dict(END_NOT_YET), doc="the end of the game (FD-9)"),
        "over": F(s.Nullable(s.OneOf(OVER_REASONS, "why the game ended")), None, doc="why it ended, or null"),
    })


# ------------------------------------------------------------------------------------------------ writing

def write(state: Any) -> dict[str, Any]:
    """The whole state as its snapshot (hidden cards included), keys in the schema's order."""
    ids = state.t.ids

    def cards(seq: Sequence[int]) -> list[str]:
        return [ids[c] for c in seq]

    return s.write(schema(state.data), {
        "ttsmod_snapshot": 1,
        "game": "fifteen-days",
        "mode": state.mode,
        "rng": state.rng.to_text(),
        "active": state.active,
        "turn": state.turn,
        "actions_left": state.actions_left,
        "pending": _pending_json(state),
        "boost": state.boost,
        "power": state.power,
        "otter_turn": state.otter_turn,
        "fresh_discards": cards(state.fresh_discards),
        "draw_piles": [cards(p) for p in state.piles],
        "market": [cards(c) for c in state.market],
        "discard": cards(state.discard),
        "removed": cards(state.removed),
        "wild_supply": state.wild_supply,
        "feather_supply": state.feather_supply,
        "feathers_out": state.feathers_out,
        "animals": {a: state.owner[a] for a in state.t.animals},
        "players": [{
            "hand": cards(seat.hand),
            "feathers": seat.feathers,
            "corners": [{"cards": [ids[c.cards[v]] for v in sorted(c.cards)], "wild": c.wild}
                        for c in seat.corners],
            "wilds_played": seat.wilds_played,
        } for seat in state.seats],
        "end": {"trigger": state.trigger, "final_turns_left": state.final_left, "bonus_given": state.bonus_done,
                "complete_at_end": state.complete_at_end},
        "over": state.over,
    })


def _pending_json(state: Any) -> dict[str, Any] | None:
    kind = state.pending
    if kind is None:
        return None
    if kind == "draw":
        return {"kind": kind, "left": state.draw_left, "extra": state.draw_extra}
    if kind == "take":
        return {"kind": kind, "left": state.take_left, "extra": state.take_extra}
    if kind == "refill":
        return {"kind": kind, "column": state.refill_column, "left": state.refill_left,
                "take_left": state.take_left, "take_extra": state.take_extra}
    play = {"total": state.play_total, "discount": state.play_discount, "placed": state.play_placed,
            "paid": state.play_paid, "paying": state.paying}
    if kind == "play":
        return {"kind": kind, **play}
    return {"kind": kind, "why": state.wild_why, "from": state.wild_from,
            "play": play if state.wild_why == "move" else None}


# ------------------------------------------------------------------------------------------------ reading

def read(data: FifteenDaysData, snapshot: Any) -> dict[str, Any]:
    """``snapshot`` checked: its envelope, every key through :func:`schema`, then what spans keys (a corner's
    cards of one season, distinct values listed lowest first, its wild a missing value; one corner a season;
    every card somewhere; the fresh discards on the discard pile; each seat's ``wilds_played`` at least its wilds
    out of the supply, filled in where left out; feathers and wilds adding up to the box's). The checked tree,
    from which :meth:`GameState.from_snapshot` builds the state; :class:`~bridge.rules.errors.SnapshotError`
    naming the path of the first problem."""
    read_envelope(data.info.id, data.info.modes, snapshot)
    reading = s.Reading(data)
    tree = s.read(schema(data), snapshot, reading)
    at = s.r.At.snapshot()
    face = _faces(data)
    players_at = at.sub("players")
    wilds_on_boards = []
    for seat_no, entry in enumerate(tree["players"]):
        corners_at = players_at.sub(seat_no).sub("corners")
        directions = data.board_of_seat(seat_no).corners
        if len(entry["corners"]) != len(directions):
            raise corners_at.error(f"must list {len(directions)} corners")
        seasons = []
        for k, corner in enumerate(entry["corners"]):
            cards_at = corners_at.sub(k).sub("cards")
            season, values = None, []
            for i, card in enumerate(corner["cards"]):
                card_season, value = face[card]
                if season is not None and card_season != season:
                    raise cards_at.sub(i).error(f"a {card_season} card in the {season} corner")
                if value in values:
                    raise cards_at.sub(i).error(f"a second {value} in one corner")
                season = card_season
                values.append(value)
            if values != sorted(values):
                raise cards_at.error("cards must be listed by value, lowest first")
            if corner["wild"] is not None and corner["wild"] in values:
                raise corners_at.sub(k).sub("wild").error(f"{corner['wild']} is not a missing value of this corner")
            if season is not None:
                seasons.append(season)
        if len(seasons) != len(set(seasons)):
            raise corners_at.error("two corners hold the same season (FD-3.2)")
        wilds_on_boards.append(sum(corner["wild"] is not None for corner in entry["corners"]))
    seen = reading.seen.get("cards", {})
    if len(seen) != len(face):
        missing = sorted(card for card in face if card not in seen)
        raise at.error(f"{len(missing)} season card(s) are nowhere, e.g. {missing[0]!r}")
    on_discard = set(tree["discard"])
    for i, item in enumerate(tree["fresh_discards"]):
        if item not in on_discard:
            raise at.sub("fresh_discards").sub(i).error(f"{s.show(item)} is not on the discard pile")
    pending = tree["pending"]
    moving = tree["active"] if pending is not None and pending["kind"] == "wild" and pending["why"] == "move" \
        else None
    for seat_no, (entry, on_board) in enumerate(zip(tree["players"], wilds_on_boards)):
        # AMB-FD-13: at least the wilds the seat has out of the supply (on its board, its displaced one awaiting
        # a place); a snapshot without the count (a table saved before it was kept) has played just those.
        least = on_board + (seat_no == moving)
        if entry["wilds_played"] is None:
            entry["wilds_played"] = least
        elif entry["wilds_played"] < least:
            raise players_at.sub(seat_no).sub("wilds_played").error(
                f"{entry['wilds_played']}, fewer than the {least} wild(s) this player has out of the supply")
    n = len(tree["players"])
    feathers = sum(entry["feathers"] for entry in tree["players"]) + tree["feather_supply"] + tree["feathers_out"]
    if feathers > data.feather_total:
        raise at.sub("feather_supply").error(f"{feathers} feathers in play, the box has {data.feather_total}")
    awaiting = 1 if pending is not None and pending["kind"] == "wild" else 0
    box = data.wild_total - min(data.rules.wild_supply_per_player * n, data.wild_total)
    if tree["wild_supply"] + sum(wilds_on_boards) + awaiting + box != data.wild_total:
        raise at.sub("wild_supply").error(
            f"{tree['wild_supply']} in the supply, {sum(wilds_on_boards)} on boards and {awaiting} awaiting a "
            f"place do not add up to the {data.wild_total - box} wilds of a {n}-player game")
    return tree


_FACES: dict[int, tuple[FifteenDaysData, dict[str, tuple[str, int]]]] = {}


def _faces(data: FifteenDaysData) -> dict[str, tuple[str, int]]:
    """Each card id's face (season, value), made once per data."""
    found = _FACES.get(id(data))
    if found is None or found[0] is not data:
        found = _FACES[id(data)] = (data, {card.id: (card.season, card.value) for card in data.cards})
    return found[1]

