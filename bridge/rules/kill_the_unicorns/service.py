"""The bridge requests of Kill the Unicorns: JSON in, JSON out (docs/games/kill-the-unicorns/protocol.md).

Every request carries the table as a snapshot; the engine keeps nothing between requests.

* ``setup`` — ``{"players": K, "seed": s, "characters": [ids] | null}`` → ``{"snapshot", "events", "next"}``.
* ``legal`` — ``{"snapshot", "action"}`` → ``{"legal": false, "reason", "message"}`` or ``{"legal": true,
  **ruling}``.
* ``apply`` — ``{"snapshot", "actions": [...]}`` → the ruling of the actions in order (a refused one raises,
  naming ``actions[i]``).
* ``score`` — ``{"snapshot"}`` → ``{"day", "over", "standings", "leaders", "decided_by"}``.

A ruling is ``{"events", "snapshot", "next", "game_over"}``; ``next`` = ``{"player", "decision", "legal"}``.
"""

from __future__ import annotations

from typing import Any, Mapping

from bridge.rules.errors import IllegalAction, InvalidAction, SnapshotError, UnknownRequestType
from bridge.rules.kill_the_unicorns.actions import Action
from bridge.rules.kill_the_unicorns.records import KillTheUnicornsData
from bridge.rules.kill_the_unicorns.scoring import decide
from bridge.rules.kill_the_unicorns.state import GameState, start_game

REQUEST_TYPES: tuple[str, ...] = ("legal", "apply", "score", "setup")
MAX_ACTIONS_PER_REQUEST = 200
"""Most actions one ``apply`` may carry: a whole day is far fewer; more is a runaway client."""


def handle_request(data: KillTheUnicornsData, request_type: str, body: Any) -> dict[str, Any]:
    """Answer one bridge request; raises a :class:`~bridge.rules.errors.RulesError` on a bad request."""
    if request_type not in REQUEST_TYPES:
        raise UnknownRequestType(f"kill-the-unicorns handles {', '.join(REQUEST_TYPES)}, not {request_type!r}")
    if not isinstance(body, Mapping):
        raise InvalidAction("the request body must be an object")
    if request_type == "setup":
        return setup(data, body.get("players"), body.get("seed", 0), body.get("characters"))
    if "snapshot" not in body:
        raise SnapshotError("snapshot", "is missing")
    if request_type == "legal":
        return check_action(data, body["snapshot"], body.get("action"))
    if request_type == "apply":
        return apply_actions(data, body["snapshot"], body.get("actions"))
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
    state = GameState.from_snapshot(data, snapshot)
    parsed = Action.from_json(action)
    try:
        state.check(parsed)
    except IllegalAction as exc:
        return {"legal": False, "reason": exc.reason, "message": str(exc)}
    events = state.apply(parsed)
    return {"legal": True, **ruling(state, events)}


def apply_actions(data: KillTheUnicornsData, snapshot: Any, actions: Any) -> dict[str, Any]:
    if not isinstance(actions, list) or not actions:
        raise InvalidAction("actions must be a non-empty list of actions")
    if len(actions) > MAX_ACTIONS_PER_REQUEST:
        raise InvalidAction(f"{len(actions)} actions in one request (at most {MAX_ACTIONS_PER_REQUEST})")
    state = GameState.from_snapshot(data, snapshot)
    events: list[Any] = []
    for index, value in enumerate(actions):
        try:
            events += state.apply(Action.from_json(value))
        except IllegalAction as exc:
            raise IllegalAction(f"actions[{index}]: {exc}", exc.reason) from None
        except InvalidAction as exc:
            raise InvalidAction(f"actions[{index}]: {exc}") from None
    return ruling(state, events)


def score(data: KillTheUnicornsData, snapshot: Any) -> dict[str, Any]:
    """The score panel: every standing (KU-7 on the unicorns caught so far), the leaders and what decides."""
    state = GameState.from_snapshot(data, snapshot)
    standings = state.standings()
    leaders, decided_by = decide(standings, data.rules)
    return {"day": state.day, "over": state.is_over(), "standings": [s.to_json() for s in standings],
            "leaders": list(leaders), "decided_by": decided_by}
