"""The Four Humours snapshot (docs/games/four_humours/protocol.md): its schema, declared once, the state written to
it, and a snapshot checked (the state is built from the checked tree by ``state.py``, which imports this module;
this one imports nothing of it).

:func:`schema` declares every key and what it must be (:mod:`bridge.rules.schema`): reading through it checks each
value, names the path of what is wrong and takes what Lua writes (``[]`` for an empty object, ``false`` for an
empty slot, keys left out). What one value cannot say is checked here, on the tree read: a seat listed in its
place, a slot's humour its citizen takes, a card's slots all listed, goals and boards of the snapshot's mode, a
potion only on its owner's fief, a pending potion's cells on its owner's board, and above all the potion
accounting (every player's potions somewhere, the bag composition of ``game.toml``).

The engine-written keys (``turn``, ``rng``, ``pending``, …) have no default here: the contract fills in those a
table leaves out (:func:`bridge.rules.contract.prepare_snapshot`, the game's ``snapshot_defaults``), so a
snapshot read without it is refused where one is missing.
"""

from __future__ import annotations

from typing import Any

from bridge.rules import schema as s
from bridge.rules.contract import SNAPSHOT_FORMAT, envelope, read_envelope
from bridge.rules.four_humours.records import GAME_ID, HUMOURS, Board, FourHumoursData, Phase, Termination

_HI = {h: i for i, h in enumerate(HUMOURS)}

_SCHEMAS: dict[int, tuple[FourHumoursData, s.Record]] = {}


def schema(data: FourHumoursData) -> s.Record:
    """The snapshot's schema for this game data (its cards, tiles, goals and boards), made once per data."""
    found = _SCHEMAS.get(id(data))
    if found is None or found[0] is not data:
        if len(_SCHEMAS) > 16:  # a long-lived bridge reloading data: keep the table small
            _SCHEMAS.clear()
        found = _SCHEMAS[id(data)] = (data, _schema(data))
    return found[1]


def _schema(data: FourHumoursData) -> s.Record:
    info = data.info
    F = s.Field
    seat = s.Seat()
    humour = s.OneOf(frozenset(HUMOURS), "a humour")
    potion = s.Record({"owner": F(seat, doc="the seat that owns it"), "humour": F(humour, doc="its humour")})
    slots = F(s.Nullable(s.ListOf(s.Nullable(potion), what="slots")), None,
              doc="every slot of the card in data order, null when empty; left out: all empty")
    scene_ids = frozenset(data.scene_by_id)
    party_ids = frozenset(data.party_by_id)
    goal_ids = frozenset(data.goal_by_id)
    board_ids = frozenset(("kingdom", *data.fief_by_id))
    cell_ids = frozenset(c.id for board in (data.kingdom, *data.fiefs) for c in board.cells)
    pile_card = s.Unique(s.OneOf(scene_ids, "a known card"), "scenes")
    pile = s.ListOf(pile_card, what="cards")
    player = s.Record({
        "seat": F(s.Nullable(seat), None, doc="its seat (players are listed in seat order)"),
        "colour": F(s.Nullable(s.Text()), None, doc="its TTS colour; left out: the game's colour of the seat"),
        "fief": F(s.Nullable(s.Unique(s.OneOf(frozenset(data.fief_by_id), "a fief board"), "fiefs")), None,
                  doc="its fief board (fief mode), else null"),
        "hand": F(s.ListOf(humour, what="potions"), [], doc="the humours in hand"),
        "bag": F(s.MapOf(humour, s.Integer(0)), {}, doc="humour → count in the bag"),
    })
    scene = s.Record({"card": F(s.Unique(s.OneOf(scene_ids, "a scene card"), "scenes"), doc="the scene card"),
                      "slots": slots})
    party = s.Record({"party": F(s.Unique(s.OneOf(party_ids, "an unresolved party"), "parties"),
                                 doc="the party tile"),
                      "slots": slots})
    goal = s.Record({"goal": F(s.Unique(s.OneOf(goal_ids, "a goal of this game"), "goals"), doc="the goal card"),
                     "marked_by": F(s.ListOf(seat, what="seats"), [], doc="the seats that marked it, in order")})
    target = s.Record({"kind": F(s.OneOf(("scene", "party"), "a target kind (scene or party)")),
                       "card": F(s.Text()), "slot": F(s.Integer(0))})
    pending = s.Record({
        "owner": F(seat, doc="the seat that owns it"),
        "humour": F(humour, doc="its humour"),
        "from": F(target, doc="the slot it left"),
        "reason": F(s.OneOf(("win", "sneak"), "a reason (win or sneak)"), doc="why it moves"),
        "board": F(s.Nullable(s.OneOf(board_ids, "a board of this game")), None,
                   doc="the board it goes to (its owner's)"),
        "cells": F(s.ListOf(s.OneOf(cell_ids, "a cell"), what="cells"), [],
                   doc="where it may go (none: back to the bag)"),
    })
    queued = s.Record({"player": F(seat, doc="the seat that completed it"),
                       "goal": F(s.OneOf(goal_ids, "a goal of this game"), doc="the goal")})
    return s.Record({
        **envelope(GAME_ID, info.modes),
        "phase": F(s.OneOf(tuple(phase.value for phase in Phase), "a phase (placement, resolution or ended)"),
                   "placement",
                   doc="placement, resolution (mid-ruling) or ended"),
        "round": F(s.Integer(0), 1, doc="the round's number, from 1"),
        "turn": F(s.Integer(0), doc="turns taken this round"),
        "players": F(s.ListOf(player, min_length=info.min_players, max_length=info.max_players,
                              count_as="players", what="players"), doc="the seats, in seat order"),
        "first_player": F(seat, 0, doc="the game's first player (FH-2.6)"),
        "active_player": F(s.Nullable(seat), None, doc="the seat whose turn it is; left out: the first player"),
        "round_starter": F(seat, doc="the seat that took the round's first turn"),
        "last_actor": F(s.Nullable(seat), doc="the seat that took the last turn, or null"),
        "consecutive_passes": F(s.Integer(0, lambda reading: reading.count("players")), 0,
                                doc="passes since the last placement (FH-4.2)"),
        "passed_this_round": F(s.ListOf(seat, what="seats"), doc="the seats that passed this round"),
        "round_end_reason": F(s.Nullable(s.Text()), doc="why the round's placement ended, or null"),
        "termination": F(s.Nullable(s.OneOf(tuple(end.value for end in Termination), "a termination")),
                         doc="why the game ended, or null"),
        "scene_deck": F(pile, [], doc="the scene deck, top card first"),
        "scene_discard": F(pile, doc="scene cards of earlier rounds, in the order they left"),
        "scenes": F(s.ListOf(scene, what="scenes"), [], doc="the face-up scenes, in display order"),
        "parties": F(s.ListOf(party, what="parties"), [], doc="the unresolved party tiles, in row order"),
        "resolved_parties": F(s.ListOf(s.Unique(s.OneOf(party_ids, "a resolved party"), "parties"),
                                       what="parties"), doc="the party tiles resolved, in row order"),
        "goals": F(s.ListOf(goal, what="goals"), [], doc="the goals in play and who marked each"),
        "boards": F(s.MapOf(s.OneOf(board_ids, "a board of this game"),
                            s.MapOf(s.OneOf(cell_ids, "a cell of that board"), s.ListOf(potion, what="potions"))),
                    {}, doc="board → cell → the potions on it"),
        "pending": F(s.ListOf(pending, what="potions"), doc="revealed potions on their way to a board"),
        "goal_queue": F(s.ListOf(queued, what="completions"), doc="goal completions not yet marked, in order"),
        "rng": F(s.Hex(16), doc="the random state"),
    })


# ------------------------------------------------------------------------------------------------ writing

def write(state: Any) -> dict[str, Any]:
    """The whole state as its snapshot (hidden information included), keys in the schema's order."""

    def potion(p: tuple[int, str] | None) -> dict[str, Any] | None:
        return None if p is None else {"owner": p[0], "humour": p[1]}

    fief_mode = state.mode == "fief"
    return s.write(schema(state.data), {
        "ttsmod_snapshot": SNAPSHOT_FORMAT,
        "game": GAME_ID,
        "mode": state.mode,
        "phase": state.phase.value,
        "round": state.round_no,
        "turn": state.turn_no,
        "players": [
            {
                "seat": seat,
                "colour": state.colours[seat],
                "fief": state.fiefs[seat] if fief_mode else None,
                "hand": [h for i, h in enumerate(HUMOURS) for _ in range(state.hands[seat][i])],
                "bag": state.bag(seat),
            }
            for seat in range(state.num_players)
        ],
        "first_player": state.first_player,
        "active_player": state.active,
        "round_starter": state.round_starter,
        "last_actor": state.last_actor,
        "consecutive_passes": state.passes,
        "passed_this_round": sorted(state.passed_this_round),
        "round_end_reason": state.round_end_reason,
        "termination": state.termination.value if state.termination else None,
        "scene_deck": list(state.scene_deck),
        "scene_discard": list(state.scene_discard),
        "scenes": [{"card": c, "slots": [potion(p) for p in state.scene_slots[c]]} for c in state.scenes],
        "parties": [{"party": t, "slots": [potion(p) for p in state.party_slots[t]]} for t in state.parties],
        "resolved_parties": list(state.resolved_parties),
        "goals": [{"goal": g, "marked_by": list(state.marks[g])} for g in state.goals],
        "boards": {
            board: {cell: [potion(p) for p in potions] for cell, potions in cells.items() if potions}
            for board, cells in state.boards.items()
        },
        "pending": [p.to_json() for p in state.pending],
        "goal_queue": [{"player": seat, "goal": goal} for seat, goal in state.goal_queue],
        "rng": state.rng.to_text(),
    })


# ------------------------------------------------------------------------------------------------ reading

def _at(*keys: str | int) -> Any:
    """The place of ``keys`` from the top (made only for an error: reading a snapshot makes none)."""
    at = s.r.At.snapshot()
    for key in keys:
        at = at.sub(key)
    return at


def board(data: FourHumoursData, board_id: str) -> Board:
    """The board of ``board_id``: the kingdom map, or a fief board."""
    return data.kingdom if board_id == "kingdom" else data.fief_by_id[board_id]


def read(data: FourHumoursData, snapshot: Any) -> dict[str, Any]:
    """``snapshot`` checked: its envelope, every key through :func:`schema`, then what spans keys. The checked
    tree, from which :meth:`GameState.from_snapshot` builds the state; :class:`~bridge.rules.errors.SnapshotError`
    naming the path of the first problem."""
    if type(snapshot) is dict:   # anything else is refused by the schema, at the top
        read_envelope(GAME_ID, data.info.modes, snapshot)
    tree = s.read(schema(data), snapshot)
    mode = tree["mode"]
    # Each seat's potions found so far (humours in HUMOURS order), for the count checked last.
    counts = _check_players(data, mode, tree["players"])
    fiefs = [entry["fief"] for entry in tree["players"]] if mode == "fief" else None
    by_id = data.scene_by_id
    for i, entry in enumerate(tree["scenes"]):
        _check_slots(("scenes", i), entry["slots"], by_id[entry["card"]].slots, counts)
    by_id = data.party_by_id
    for i, entry in enumerate(tree["parties"]):
        _check_slots(("parties", i), entry["slots"], by_id[entry["party"]].slots, counts)
    _check_goals(data, mode, tree["goals"])
    _check_boards(data, fiefs, tree["boards"], counts)
    for i, entry in enumerate(tree["pending"]):
        owner = entry["owner"]
        board_id = "kingdom" if fiefs is None else fiefs[owner]
        cells = board(data, board_id).cell_by_id
        for j, cell in enumerate(entry["cells"]):
            if cell not in cells:
                raise _at("pending", i, "cells", j).error(f"{s.show(cell)} is not a cell of {board_id}")
        counts[owner][_HI[entry["humour"]]] += 1
    in_play = {entry["goal"] for entry in tree["goals"]}
    for i, entry in enumerate(tree["goal_queue"]):
        if entry["goal"] not in in_play:
            raise _at("goal_queue", i, "goal").error(f"{s.show(entry['goal'])} is not a goal in play")
    _check_potion_count(data, counts)
    return tree


def _check_players(data: FourHumoursData, mode: str, entries: list[dict[str, Any]]) -> list[list[int]]:
    """Every seat listed in its place, with a colour (its own or the game's for the seat) and, in fief mode, a
    fief board; the potions of each seat's hand and bag (humours in :data:`HUMOURS` order)."""
    default_colours = len(data.info.player_colours)
    fief_mode = mode == "fief"
    counts = []
    for seat, entry in enumerate(entries):
        if entry["seat"] is not None and entry["seat"] != seat:
            raise _at("players", seat, "seat").error(f"must be {seat} (players are listed in seat order)")
        if entry["colour"] is None and seat >= default_colours:
            raise _at("players", seat, "colour").error("is missing")
        hand, bag = entry["hand"], entry["bag"]
        counts.append([hand.count(humour) + bag.get(humour, 0) for humour in HUMOURS])
        if fief_mode and entry["fief"] is None:
            raise _at("players", seat, "fief").error("null is not a fief board")
    return counts


def _check_slots(where: tuple[str, int], slots: list[Any] | None, card_slots: tuple[Any, ...],
                 counts: list[list[int]]) -> None:
    """A card's slots (``where``: its list and index): every slot listed (or none: all empty), one potion or none
    each, every potion of a humour its citizen takes (and counted in ``counts``)."""
    if slots is None:
        return
    if len(slots) != len(card_slots):
        raise _at(*where, "slots").error(f"must list {len(card_slots)} slots (null for an empty one)")
    for j, (potion, slot) in enumerate(zip(slots, card_slots)):
        if potion is not None:
            humour = potion["humour"]
            if humour not in slot.humours:
                raise _at(*where, "slots", j, "humour").error(f"this {slot.citizen} cannot hold {humour}")
            counts[potion["owner"]][_HI[humour]] += 1


def _check_goals(data: FourHumoursData, mode: str, goals: list[dict[str, Any]]) -> None:
    """The goals in play are of the snapshot's mode, and each marked by a player at most once."""
    goal_by_id = data.goal_by_id
    for i, entry in enumerate(goals):
        goal, marked = entry["goal"], entry["marked_by"]
        if goal_by_id[goal].mode != mode:
            raise _at("goals", i, "goal").error(f"{s.show(goal)} is not a {mode} goal")
        if len(set(marked)) != len(marked):
            raise _at("goals", i, "marked_by").error("a player marks a goal at most once")


def _check_boards(data: FourHumoursData, fiefs: list[str] | None, boards: dict[str, dict[str, list[Any]]],
                  counts: list[list[int]]) -> None:
    """The boards of the game (the kingdom map, or each player's fief: ``fiefs``), their cells, and a potion only
    on its owner's fief (each counted in ``counts``)."""
    expected = ("kingdom",) if fiefs is None else fiefs
    for board_id, cells in boards.items():
        if board_id not in expected:
            raise _at("boards", board_id).error("is not a board of this game")
        known = board(data, board_id).cell_by_id
        for cell, potions in cells.items():
            if cell not in known:
                raise _at("boards", board_id, cell).error("is not a cell of that board")
            for j, potion in enumerate(potions):
                owner = potion["owner"]
                if fiefs is not None and fiefs[owner] != board_id:
                    raise _at("boards", board_id, cell, j).error("a potion lies only on its owner's fief")
                counts[owner][_HI[potion["humour"]]] += 1


def _check_potion_count(data: FourHumoursData, counts: list[list[int]]) -> None:
    """Every player's potions must all be somewhere: bag, hand, cards, parties, boards, in transit (``counts``:
    what each seat has there)."""
    expected = [data.rules.bag_composition.get(h, 0) for h in HUMOURS]
    for seat, found in enumerate(counts):
        if found != expected:
            found_text = ", ".join(f"{h} {c}" for h, c in zip(HUMOURS, found))
            want = ", ".join(f"{h} {c}" for h, c in zip(HUMOURS, expected))
            raise _at("players", seat).error(f"potions on the table are {found_text}; a player owns {want}")
