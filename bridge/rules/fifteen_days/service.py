"""The bridge requests of 15 Days: JSON in, JSON out (docs/games/fifteen-days/protocol.md).

Every request carries the table as a snapshot (:meth:`GameState.to_snapshot`: card ids in every pile, column,
hand and corner, bottom card first; the pending decision; supplies, animals, feathers, the end trigger and the
random state). The engine keeps nothing between requests, so a restarted bridge carries on from the table.

* ``setup`` — ``{"players": 2..4, "seed": int}`` → ``{"snapshot": S, "events": [...], "next": N}``: the dealt
  table of FD-1 (the mod lays it out card by card from S).
* ``legal`` — ``{"snapshot": S, "action": A}`` → when refused ``{"legal": false, "reason": <code>, "message":
  <sentence>}`` (the mod shows the message to that player and puts the table back); when allowed
  ``{"legal": true, **ruling}``: the ruling the mod applies step by step.
* ``apply`` — ``{"snapshot": S, "actions": [A, ...]}`` → the ruling of the actions applied in order; a refused
  one raises (the bridge answers with its code and message, naming ``actions[i]``).
* ``score`` — ``{"snapshot": S}`` → ``{"turn", "over", "standings": [{player, score, runs, animals,
  empty_corners, hand, wilds}], "leaders": [seats], "decided_by": "score"|"hand"|"wilds"|"shared"}``: the
  score panel after every action, with the FD-9.4 tie-break figures.
* ``bot_move`` — ``{"snapshot": S, "level": random|heuristic|easy|normal|hard, "seed": int}`` → ``{"player":
  seat, "level": name, "action": A}``: the decision a bot of that level takes for the seat to move (the mod
  performs it on the table, then sends it as ``legal`` like a player's); the same table and seed give the same
  action. Refused (``invalid_action``) for an unknown level, a bad seed or a game that is over.

A *ruling* is ``{"events": [E, ...], "snapshot": S', "next": N, "game_over": O|null}``: the events
(:mod:`bridge.rules.fifteen_days.events`, in order; none names a hidden face), the table after them, and
``N = {"player": seat|null, "pending": P|null, "actions_left": int, "legal": [A, ...]}``: who decides next,
which decision is open (``pending``: ``draw``, ``take``, ``refill``, ``play``, ``wild`` or null) and every
legal action as JSON; ``O`` is the outcome (reason, winners, decided_by, standings) once the game is over.
Actions (``A``) are the JSON forms of :mod:`bridge.rules.fifteen_days.actions`.
"""

from __future__ import annotations

from typing import Any

from bridge.rules import service as shared
from bridge.rules.errors import InvalidAction, SnapshotError
from bridge.rules.fifteen_days.actions import Action
from bridge.rules.fifteen_days.records import FifteenDaysData
from bridge.rules.fifteen_days.state import GAME_ID, GameState, decide, new_game

REQUEST_TYPES: tuple[str, ...] = ("legal", "apply", "score", "setup", "bot_move")


def handle_request(data: FifteenDaysData, request_type: str, body: Any) -> dict[str, Any]:
    """Answer one bridge request; raises a :class:`~bridge.rules.errors.RulesError` on a bad request."""
    body = shared.request_body(GAME_ID, REQUEST_TYPES, request_type, body)
    if request_type == "setup":
        return setup(data, body.get("players"), body.get("seed", 0))
    if "snapshot" not in body:
        raise SnapshotError("snapshot", "is missing")
    if request_type == "legal":
        return check_action(data, body["snapshot"], body.get("action"))
    if request_type == "apply":
        return apply_actions(data, body["snapshot"], body.get("actions"))
    if request_type == "bot_move":
        return bot_move(data, body["snapshot"], body)
    return score(data, body["snapshot"])


def setup(data: FifteenDaysData, players: Any, seed: Any) -> dict[str, Any]:
    """A new table for ``players`` seats dealt with ``seed``."""
    if isinstance(players, bool) or not isinstance(players, int):
        raise InvalidAction("players must be an integer")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidAction("seed must be an integer")
    state = new_game(data, players, seed=seed)
    return {"snapshot": state.to_snapshot(), "events": [], "next": next_decision(state)}


def next_decision(state: GameState) -> dict[str, Any]:
    """Who decides next, on which open decision, and every legal action (JSON)."""
    return {
        "player": state.to_move(),
        "pending": state.pending,
        "actions_left": state.actions_left,
        "legal": [a.to_json() for a in state.legal_actions()],
    }


def ruling(state: GameState, events: list[Any]) -> dict[str, Any]:
    outcome = state.outcome()
    return {
        "events": [e.to_json() for e in events],
        "snapshot": state.to_snapshot(),
        "next": next_decision(state),
        "game_over": outcome.to_json() if outcome else None,
    }


def check_action(data: FifteenDaysData, snapshot: Any, action: Any) -> dict[str, Any]:
    """Whether ``action`` (JSON) is allowed on the table ``snapshot`` (taken before it), and its ruling."""
    return shared.check_then_apply(GameState.from_snapshot(data, snapshot), Action.from_json(action), ruling)


def apply_actions(data: FifteenDaysData, snapshot: Any, actions: Any) -> dict[str, Any]:
    """The ruling of ``actions`` (JSON, in order) applied to ``snapshot``; a refused one raises naming it."""
    return ruling(*shared.apply_each(lambda: GameState.from_snapshot(data, snapshot), actions, Action.from_json))


def bot_move(data: FifteenDaysData, snapshot: Any, body: Any) -> dict[str, Any]:
    """The action the bot ``body["level"]`` (seeded with ``body["seed"]``) takes for the seat to move on the table
    ``snapshot``: :func:`bridge.rules.service.bot_reply`'s reply."""
    from bridge.rules.game import registered_game   # the engine registered by fifteen_days.game (which imports us)

    state = GameState.from_snapshot(data, snapshot)
    return shared.bot_reply(registered_game(GAME_ID), data, state, state.players, body)


def score(data: FifteenDaysData, snapshot: Any) -> dict[str, Any]:
    """Standings now (FD-9.3) with the tie-break figures (FD-9.4) and the current leaders."""
    state = GameState.from_snapshot(data, snapshot)
    standings = state.standings()
    leaders, decided_by = decide(standings)
    return {
        "turn": state.turn,
        "active": state.to_move(),
        "over": state.over,
        "standings": [s.to_json() for s in standings],
        "leaders": list(leaders),
        "decided_by": decided_by,
    }
