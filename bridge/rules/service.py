"""What every game's bridge service does the same way with a snapshot and actions (each game's ``service``
module keeps the requests and replies that are its own).

* :func:`request_body` — the preamble of every request: a known request type and a JSON object body.
* :func:`refusal` — a refused action as the ``legal`` reply tells it: ``{"legal": false, "reason", "message"}``.
* :func:`check_then_apply` — a ``legal`` request: the refusal, or the action applied and its ruling.
* :func:`apply_each` — an ``apply`` request: a bounded list of actions applied in order; a refused one raises,
  naming ``actions[i]``.

Pure: no I/O.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from bridge.rules.errors import IllegalAction, InvalidAction, UnknownRequestType

MAX_ACTIONS_PER_REQUEST = 200
"""Most actions one ``apply`` request may carry: a whole turn or day is far fewer; more is a runaway client."""


def request_body(game_id: str, request_types: Sequence[str], request_type: str, body: Any) -> Mapping[str, Any]:
    """``body`` when ``request_type`` is one of the game's and ``body`` an object; else the error the bridge sends."""
    if request_type not in request_types:
        raise UnknownRequestType(f"{game_id} handles {', '.join(request_types)}, not {request_type!r}")
    if not isinstance(body, Mapping):
        raise InvalidAction("the request body must be an object")
    return body


def refusal(exc: IllegalAction) -> dict[str, Any]:
    """The ``legal`` reply for a refused action: its reason code and the sentence shown to the player."""
    return {"legal": False, "reason": exc.reason, "message": str(exc)}


def check_then_apply(state: Any, action: Any, ruling: Callable[[Any, list], dict[str, Any]]) -> dict[str, Any]:
    """:func:`refusal` when ``state.check(action)`` refuses it; else ``{"legal": true, **ruling(state, events)}``
    with the action applied to ``state``."""
    try:
        state.check(action)
    except IllegalAction as exc:
        return refusal(exc)
    return {"legal": True, **ruling(state, state.apply(action))}


def apply_each(make_state: Callable[[], Any], actions: Any, parse: Callable[[Any], Any]) -> tuple[Any, list[Any]]:
    """The state ``make_state()`` gives with ``actions`` (JSON, a non-empty list of at most
    :data:`MAX_ACTIONS_PER_REQUEST`, each read by ``parse``) applied in order, and the events of all of them. The
    list is checked before the state is read; a refused or malformed action raises, naming ``actions[i]``."""
    if not isinstance(actions, list) or not actions:
        raise InvalidAction("actions must be a non-empty list of actions")
    if len(actions) > MAX_ACTIONS_PER_REQUEST:
        raise InvalidAction(f"{len(actions)} actions in one request (at most {MAX_ACTIONS_PER_REQUEST})")
    state = make_state()
    events: list[Any] = []
    for index, value in enumerate(actions):
        try:
            events += state.apply(parse(value))
        except IllegalAction as exc:
            raise IllegalAction(f"actions[{index}]: {exc}", exc.reason) from None
        except InvalidAction as exc:
            raise InvalidAction(f"actions[{index}]: {exc}") from None
    return state, events


def bot_reply(game: Any, data: Any, state: Any, players: int, body: Mapping[str, Any]) -> dict[str, Any]:
    """A ``bot_move`` request: the action the bot ``body["level"]`` (a :data:`bridge.bots.BOT_NAMES` name) chooses
    for the seat to move in ``state``, seeded with ``body["seed"]`` (an integer, 0 when absent) so the same table
    and seed give the same move after a reload or a bridge restart.

    Reply: ``{"player": <index of the seat to move>, "level": <name>, "action": <the action's JSON form, as the
    game's legal and apply requests take it>}``. ``InvalidAction`` for an unknown level, a bad seed or a table where
    nobody is to move (the game is over, or it waits for a reveal rather than a seat)."""
    from bridge.bots import BOT_NAMES, make_bot   # the search code loads only when a bot plays

    level = body.get("level")
    if level not in BOT_NAMES:
        raise InvalidAction(f"level must be one of {', '.join(BOT_NAMES)}, not {level!r}")
    seed = body.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
        raise InvalidAction(f"seed must be a whole number from 0 to 2^63-1, not {seed!r}")
    seat = state.to_move()
    if seat is None or state.is_over():
        raise InvalidAction("no seat is to move on this table: there is nothing for a bot to do")
    bot = make_bot(level, game, data, players, seed=seed)
    action = bot.choose(state)
    return {"player": seat, "level": level, "action": action.to_json()}
