"""The bridge requests of Kill the Unicorns: JSON in, JSON out (docs/games/kill-the-unicorns/protocol.md).

Every request carries the table as a snapshot; the engine keeps nothing between requests.

* ``setup`` — ``{"players": K, "seed": s, "characters": [ids] | null}`` → ``{"snapshot", "events", "next"}``.
* ``legal`` — ``{"snapshot", "action"}`` → ``{"legal": false, "reason", "message"}`` or ``{"legal": true,
  **ruling}``.
* ``apply`` — ``{"snapshot", "actions": [...]}`` → the ruling of the actions in order (a refused one raises,
  naming ``actions[i]``).
* ``score`` — ``{"snapshot"}`` → ``{"day", "over", "standings", "leaders", "decided_by"}``.
* ``bot_move`` — ``{"snapshot", "level", "seed"}`` → ``{"player", "level", "action"}``: the move a bot plays for
  the seat that owes the table's pending decision (any decision: a trick to place, a hunt to open or join, a
  power, a blind trick choice, a purchase), seen only through that seat's view
  (:func:`bridge.rules.service.bot_reply`).

A ruling is ``{"events", "snapshot", "next", "game_over"}``; ``next`` = ``{"player", "decision", "legal"}``.
"""

from __future__ import annotations

from typing import Any

from bridge.rules import service as shared
from bridge.rules.errors import InvalidAction, SnapshotError
from bridge.rules.kill_the_unicorns.actions import Action
from bridge.rules.kill_the_unicorns.records import KillTheUnicornsData
from bridge.rules.kill_the_unicorns.scoring import decide
from bridge.rules.kill_the_unicorns.state import GAME_ID, GameState, start_game

REQUEST_TYPES: tuple[str, ...] = ("legal", "apply", "score", "setup", "bot_move")


def handle_request(data: KillTheUnicornsData, request_type: str, body: Any) -> dict[str, Any]:
    """Answer one bridge request; raises a :class:`~bridge.rules.errors.RulesError` on a bad request."""
    body = shared.request_body(GAME_ID, REQUEST_TYPES, request_type, body)
    if request_type == "setup":
        return setup(data, body.get("players"), body.get("seed", 0), body.get("characters"))
    if "snapshot" not in body:
        raise SnapshotError("snapshot", "is missing")
    if request_type == "legal":
        return check_action(data, body["snapshot"], body.get("action"))
    if request_type == "apply":
        return apply_actions(data, body["snapshot"], body.get("actions"))
    if request_type == "bot_move":
        return bot_move(data, body["snapshot"], body)
    return score(data, body["snapshot"])


def setup(data: KillTheUnicornsData, players: Any, seed: Any, characters: Any = None) -> dict[str, Any]:
    """A new table for ``players`` seats dealt with ``seed``; ``characters`` in seat order, or dealt at random."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidAction("seed must be an integer")
    if characters is False:
        characters = None
    if characters is not None and (not isinstance(characters, list)
                                   or not all(isinstance(c, str) for c in characters)):
        raise InvalidAction("characters must be a list of character ids or null")
    state, events = start_game(data, players, seed=seed, characters=characters)
    return {"snapshot": state.to_snapshot(), "events": [e.to_json() for e in events], "next": next_decision(state)}


def next_decision(state: GameState) -> dict[str, Any]:
    """Who decides next, which decision, and every legal action (JSON; card choices canonical)."""
    return {"player": state.to_move(), "decision": state.pending_decision,
            "legal": [a.to_json() for a in state.legal_actions()]}


def ruling(state: GameState, events: list[Any]) -> dict[str, Any]:
    outcome = state.outcome()
    return {"events": [e.to_json() for e in events], "snapshot": state.to_snapshot(),
            "next": next_decision(state), "game_over": outcome.to_json() if outcome else None}


def check_action(data: KillTheUnicornsData, snapshot: Any, action: Any) -> dict[str, Any]:
    """Whether ``action`` is allowed on ``snapshot``, and its ruling when it is."""
    return shared.check_then_apply(GameState.from_snapshot(data, snapshot), Action.from_json(action), ruling)


def apply_actions(data: KillTheUnicornsData, snapshot: Any, actions: Any) -> dict[str, Any]:
    return ruling(*shared.apply_each(lambda: GameState.from_snapshot(data, snapshot), actions, Action.from_json))


def bot_move(data: KillTheUnicornsData, snapshot: Any, body: Any) -> dict[str, Any]:
    """The action the bot ``body["level"]`` (seeded with ``body["seed"]``) plays for the seat whose decision the
    table waits for: ``{"player", "level", "action"}``, the action in the JSON form ``legal`` takes."""
    from bridge.rules.game import registered_game   # the registered engine (this module is imported by it)

    state = GameState.from_snapshot(data, snapshot)
    return shared.bot_reply(registered_game(GAME_ID), data, state, state.players, body)


def score(data: KillTheUnicornsData, snapshot: Any) -> dict[str, Any]:
    """The score panel: every standing (KU-7 on the unicorns caught so far), the leaders and what decides."""
    state = GameState.from_snapshot(data, snapshot)
    standings = state.standings()
    leaders, decided_by = decide(standings, data.rules)
    return {"day": state.day, "over": state.is_over(), "standings": [s.to_json() for s in standings],
            "leaders": list(leaders), "decided_by": decided_by}
