"""The requests the bridge forwards from the table to the Four Humours engine (docs/games/four-humours/protocol.md).

Each request carries a snapshot of the table; the engine is stateless between requests, so a restarted
bridge carries on where the table is.  All functions are pure: JSON-shaped values in, JSON-shaped values out.

* ``end_round`` — ``{"snapshot": S, "choices": [{"player": 0, "cell": "abbey"}, …], "force": false}`` →
  the ruling (:func:`resolve_round`).
* ``legal`` — ``{"snapshot": S, "action": A}`` → whether the action is allowed, why not, and what follows
  (:func:`check_action`).
* ``score`` — ``{"snapshot": S}`` → standings and leaders (:func:`score`).
* ``bot_move`` — ``{"snapshot": S, "level": L, "seed": n}`` (with ``"choices"`` as ``end_round`` takes them when
  a ruling waits for a cell) → the seat to move, its colour and the action its bot takes (:func:`bot_move`).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from bridge.rules import service as shared
from bridge.rules.errors import IllegalAction, InvalidAction, SnapshotError, UnknownRequestType
from bridge.rules.four_humours import events as ev
from bridge.rules.four_humours.actions import Action, Choose
from bridge.rules.four_humours.records import FourHumoursData
from bridge.rules.four_humours.state import GAME_ID, GameState, Phase
from bridge.rules.game import registered_game

REQUEST_TYPES: tuple[str, ...] = ("end_round", "legal", "score", "bot_move")


def handle_request(data: FourHumoursData, request_type: str, body: Any) -> dict[str, Any]:
    """Answer one bridge request; raises a :class:`~bridge.rules.errors.RulesError` on a bad request."""
    if request_type not in REQUEST_TYPES:
        raise UnknownRequestType(f"four-humours handles {', '.join(REQUEST_TYPES)}, not {request_type!r}")
    if not isinstance(body, Mapping):
        raise InvalidAction("the request body must be an object")
    if "snapshot" not in body:
        raise SnapshotError("snapshot", "is missing")
    if request_type == "end_round":
        choices = body.get("choices", [])
        if not isinstance(choices, list):
            raise InvalidAction("choices must be a list")
        return resolve_round(data, body["snapshot"], choices, force=bool(body.get("force", False)))
    if request_type == "legal":
        return check_action(data, body["snapshot"], body.get("action"))
    if request_type == "bot_move":
        return bot_move(data, body["snapshot"], body)
    return score(data, body["snapshot"])


def resolve_round(
    data: FourHumoursData, snapshot: Any, choices: Sequence[Any] = (), *, force: bool = False
) -> dict[str, Any]:
    """The ruling for the end of a round: ``snapshot`` is the table when placement stopped.

    ``choices`` answer, in order, the decisions earlier rulings asked for (``awaiting``); the ruling runs as
    far as the rules go without a player and says who must choose next, or that the round is complete.
    ``force`` ends the round even when no round-end condition holds (a host's decision).
    """
    state, round_no, reason, events = _resolving(data, snapshot, choices, force)
    return _ruling(state, round_no, reason, events)


def _resolving(data: FourHumoursData, snapshot: Any, choices: Sequence[Any], force: bool
               ) -> tuple[GameState, int, str | None, list[ev.Event]]:
    """The state :func:`resolve_round` rules from: ``snapshot``'s round ended and ``choices`` applied; with the
    round's number, why it ended and the events on the way."""
    state = GameState.from_snapshot(data, snapshot)
    events: list[ev.Event] = []
    if state.phase is Phase.ENDED:
        raise IllegalAction("the game is over", "game_over")
    round_no = state.round_no
    reason = state.round_end_reason  # a snapshot taken mid-resolution says why its round ended
    if state.phase is Phase.PLACEMENT:
        reason = state.round_over_reason()
        if reason is None:
            if not force:
                raise IllegalAction(
                    "the round is not over: no two scenes are full, not everyone passed, someone can still place",
                    "round_not_over",
                )
            reason = "forced"
        events += state.end_round(reason)
    for index, value in enumerate(choices):
        if not isinstance(value, Mapping):
            raise InvalidAction(f"choices[{index}] must be an object with player and cell")
        try:
            action = Action.from_json({"action": "choose", **value})
            events += state.apply(action)
        except IllegalAction as exc:
            raise IllegalAction(f"choices[{index}]: {exc}", exc.reason) from None
        except InvalidAction as exc:
            raise InvalidAction(f"choices[{index}]: {exc}") from None
    return state, round_no, reason, events


def _ruling(state: GameState, round_no: int, reason: str | None, events: list[ev.Event]) -> dict[str, Any]:
    scenes, parties, moves, goals = [], [], [], []
    next_round = None
    for event in events:
        if isinstance(event, ev.CardResolved):
            (scenes if event.card_kind == "scene" else parties).append(event.to_json())
        elif isinstance(event, (ev.PotionMoved, ev.PotionReturned)):
            moves.append(event.to_json())
        elif isinstance(event, ev.GoalMarked):
            goals.append({"player": event.player, "goal": event.goal})
        elif isinstance(event, ev.RoundStarted):
            next_round = {"round": event.round, "scenes": list(event.scenes), "starter": event.starter, "draws": []}
        elif isinstance(event, ev.PotionsDrawn) and next_round is not None:
            next_round["draws"].append({"player": event.player, "count": event.count})
    awaiting = state.awaiting()
    outcome = state.outcome()
    return {
        "round": round_no,
        "round_end_reason": reason,
        "scenes": scenes,
        "moves": moves,
        "goals_marked": goals,
        "parties": parties,
        "awaiting": awaiting.to_json() if awaiting else None,
        "complete": awaiting is None,
        "next_round": next_round,
        "game_over": outcome.to_json() if outcome else None,
        "events": [e.to_json() for e in events],
    }


def check_action(data: FourHumoursData, snapshot: Any, action: Any) -> dict[str, Any]:
    """Whether ``action`` (JSON form) is allowed on the table ``snapshot`` (taken before the action).

    Allowed: ``{"legal": true, "round_over": bool, "round_end_reason": str|null, "next_player": seat|null}``.
    Not allowed: ``{"legal": false, "reason": <code>, "message": <sentence>}``.
    """
    state = GameState.from_snapshot(data, snapshot)
    parsed = Action.from_json(action)
    try:
        state.check(parsed)
    except IllegalAction as exc:
        return shared.refusal(exc)
    if isinstance(parsed, Choose) or state.phase is not Phase.PLACEMENT:
        return {"legal": True, "round_over": False, "round_end_reason": None, "next_player": state.to_move()}
    trial = state.copy()
    ended = [e for e in trial.apply(parsed) if isinstance(e, ev.RoundEnded)]
    return {
        "legal": True,
        "round_over": bool(ended),
        "round_end_reason": ended[0].reason if ended else None,
        "next_player": None if ended else trial.active,
    }


def bot_move(data: FourHumoursData, snapshot: Any, body: Mapping[str, Any]) -> dict[str, Any]:
    """The decision the bot ``body["level"]`` (seeded with ``body["seed"]``) takes for the seat to move:
    :func:`bridge.rules.service.bot_reply`'s reply plus ``"seat"``, that seat's colour.

    Without ``choices`` the table ``snapshot`` is in placement and the bot places, passes or redraws for the
    active player. With ``choices`` (a list, as ``end_round`` takes it) the round of ``snapshot`` is ended and
    the choices so far applied, as :func:`resolve_round` does, and the bot chooses the cell of the potion the
    ruling waits for. ``InvalidAction`` when nobody is to decide (a round over in placement, a ruling that waits
    for nobody, the game over)."""
    game = registered_game(GAME_ID)   # registered by game.py, which imports this module
    choices = body.get("choices")
    if choices is None:
        state = GameState.from_snapshot(data, snapshot)
        if state.phase is Phase.PLACEMENT and state.round_over_reason() is not None:
            raise InvalidAction("the round is over: the table waits for end_round, not for a seat")
    else:
        if not isinstance(choices, list):
            raise InvalidAction("choices must be a list")
        state = _resolving(data, snapshot, choices, bool(body.get("force", False)))[0]
    reply = shared.bot_reply(game, data, state, state.num_players, body)
    return {**reply, "seat": state.colours[reply["player"]]}


def score(data: FourHumoursData, snapshot: Any) -> dict[str, Any]:
    """Standings now (goals and FH-10.4 tie-break figures), the current leaders and each goal's markers."""
    state = GameState.from_snapshot(data, snapshot)
    return {
        "round": state.round_no,
        "phase": state.phase.value,
        "standings": [s.to_json() for s in state.standings()],
        "leaders": list(state.leaders()),
        "goals": [{"goal": g, "marked_by": list(state.marks[g])} for g in state.goals],
    }
