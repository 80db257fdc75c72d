"""The one contract every game speaks: the snapshot envelope, the Lua JSON quirks and the shared requests.

Every request the bridge forwards and every ``ttsmod adjudicate`` call goes through :func:`answer`, so a
snapshot copied from a journal or a TTS log gets the same answer from either (docs/protocol.md):

1. **Lua JSON is undone** (:func:`lua_json`): whole floats (``2.0``) become integers everywhere in the body; an
   empty body (``[]`` or ``null``) is ``{}``. ``[]`` for an empty object inside a snapshot and ``false`` for an
   empty slot are read by the snapshot readers (:func:`bridge.rules.reader.table` and
   :func:`bridge.rules.reader.absent_as_none`), which know where an object or a slot is expected.
2. **The envelope is checked** (:func:`read_envelope`): ``"ttsmod_snapshot"`` is :data:`SNAPSHOT_FORMAT`,
   ``"game"`` the game's id, ``"mode"`` one of its modes; anything else is refused naming the key.
3. **Engine-written keys get their defaults** (:func:`prepare_snapshot`): a missing ``"rng"`` is seeded from the
   snapshot's content (:func:`content_seed`), and each key of the game's ``snapshot_defaults(data)`` that is
   missing is derived from the rest of the snapshot.
4. **The shared requests** are answered the same way for every game (:data:`SHARED_REQUEST_TYPES`):

   * ``setup`` ``{"players", "seed"?, "mode"?, …the game's own options}`` → ``{"snapshot", "events", "next"}``;
   * ``legal`` ``{"snapshot", "action"}`` → ``{"legal": false, "reason", "message"}`` or
     ``{"legal": true, **ruling}``;
   * ``apply`` ``{"snapshot", "actions": [...]}`` → the ruling of the actions applied in order;
   * ``score`` ``{"snapshot"}`` → the game's score panel (``game.score(data, state)``);
   * ``bot_move`` ``{"snapshot", "level", "seed"?}`` → ``{"player", "level", "action"}``.

   A *ruling* is ``{"events", "snapshot", "next", "game_over", "complete": true,
   **game.ruling_extras(state, events)}`` (the actions are done, so the ruling is complete: any further choice is
   the next action) and
   ``next`` is ``{"player", "legal": [every legal action as JSON], **game.next_extras(state)}``. An action is its
   JSON object or its text form (``"pass 1"``) wherever one is taken.

A game answers its own request types (and may answer a shared one its own way) through ``game.requests(data)``,
a mapping of type → ``handler(body)``; the body it gets has been through steps 1–3.

Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Callable, Mapping, Sequence

from bridge.rules.errors import IllegalAction, InvalidAction, SnapshotError, UnknownRequestType
from bridge.rules.random import SeededRandom
from bridge.rules import schema

SNAPSHOT_FORMAT = 1
"""The snapshot format version every game writes as ``"ttsmod_snapshot"`` and reads."""

SHARED_REQUEST_TYPES: tuple[str, ...] = ("setup", "legal", "apply", "score", "bot_move")
"""The requests every game answers, in the order every game lists them (after its own, if any)."""

ENVELOPE_KEYS: tuple[str, ...] = ("ttsmod_snapshot", "game", "mode")
"""The keys every snapshot carries, first in every snapshot a game writes."""

MAX_ACTIONS_PER_REQUEST = 200
"""Most actions one ``apply`` request may carry: a whole turn or day is far fewer; more is a runaway client."""

# Whole floats beyond this are not exact integers in a double; they are left as they came.
_EXACT = 2 ** 53


# ------------------------------------------------------------------------------------------------ Lua JSON

def _whole(value: float) -> int | float:
    if value.is_integer() and abs(value) <= _EXACT:
        return int(value)
    return value


def lua_json(value: Any) -> Any:
    """A copy of JSON data with every whole-number float as an ``int`` (``2.0`` → ``2``; ``2.5`` stays a float,
    which a reader of integers still refuses). TTS's Lua numbers are doubles, and its ``JSON.encode`` may write
    any number so. Iterative, so deeply nested input costs no Python recursion."""
    if isinstance(value, float):
        return _whole(value)
    if not isinstance(value, (dict, list)):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        if isinstance(source, dict):
            for key, item in source.items():
                target[key] = _converted(item, stack)
        else:
            append = target.append
            for item in source:
                append(_converted(item, stack))
    return root


def _converted(item: Any, stack: list[tuple[Any, Any]]) -> Any:
    """``item`` with a whole float as an int; a dict or list as an empty copy, queued on ``stack`` to fill."""
    kind = type(item)
    if kind is str or kind is int or kind is bool or item is None:
        return item
    if isinstance(item, float):
        return _whole(item)
    if isinstance(item, (dict, list)):
        copy: Any = {} if isinstance(item, dict) else []
        stack.append((item, copy))
        return copy
    return item


def request_object(body: Any) -> dict[str, Any]:
    """A request body as an object: ``[]`` and ``null`` (what Lua writes for an empty table) are ``{}``."""
    if body is None or body == []:
        return {}
    if not isinstance(body, Mapping):
        raise InvalidAction("the request body must be an object")
    return dict(body)


# ------------------------------------------------------------------------------------------------ the envelope

def read_envelope(game_id: str, modes: Sequence[str], snapshot: Any) -> str:
    """The mode of ``snapshot`` once its envelope is checked: ``"ttsmod_snapshot"`` must be
    :data:`SNAPSHOT_FORMAT`, ``"game"`` must be ``game_id`` and ``"mode"`` one of ``modes``. Each refusal is a
    :class:`SnapshotError` naming the key (a snapshot written before the contract carried ``"version"``)."""
    if snapshot == []:
        snapshot = {}
    if not isinstance(snapshot, Mapping):
        raise SnapshotError("snapshot", "must be an object (the table as docs/protocol.md describes it)")
    if "ttsmod_snapshot" not in snapshot:
        older = " (it has \"version\": a snapshot in the format of before ttsmod's one contract)" \
            if "version" in snapshot else ""
        raise SnapshotError("ttsmod_snapshot", f"is missing{older}: every snapshot carries "
                                               f"\"ttsmod_snapshot\": {SNAPSHOT_FORMAT}")
    version = snapshot["ttsmod_snapshot"]
    if version != SNAPSHOT_FORMAT or isinstance(version, bool):
        raise SnapshotError("ttsmod_snapshot", f"format {json.dumps(version, ensure_ascii=False)} {_NOT_READ} "
                                               f"(it reads {SNAPSHOT_FORMAT})")
    if "game" not in snapshot:
        raise SnapshotError("game", f"is missing: a {game_id} snapshot says \"game\": \"{game_id}\"")
    if snapshot["game"] != game_id:
        raise SnapshotError("game", f"{json.dumps(snapshot['game'], ensure_ascii=False)} is another game's "
                                    f"snapshot: this request is for {game_id}")
    if "mode" not in snapshot:
        raise SnapshotError("mode", f"is missing: one of {', '.join(modes)}")
    mode = snapshot["mode"]
    if not isinstance(mode, str) or mode not in modes:
        raise SnapshotError("mode", f"{json.dumps(mode, ensure_ascii=False)} is not a mode of {game_id} "
                                    f"({', '.join(modes)})")
    return mode


_NOT_READ = "is not one this ttsmod reads"


def envelope(game_id: str, modes: Sequence[str]) -> dict[str, schema.Field]:
    """The envelope's fields, first in every game's snapshot schema (:mod:`bridge.rules.schema`): what
    :func:`read_envelope` checks, declared (a game reads the envelope with :func:`read_envelope` first, for its
    messages, then the whole snapshot through its schema)."""
    return {
        "ttsmod_snapshot": schema.Field(schema.OneOf((SNAPSHOT_FORMAT,), f"format {SNAPSHOT_FORMAT}"),
                                        doc="the snapshot format"),
        "game": schema.Field(schema.OneOf((game_id,), f"{game_id}"), doc="the game id"),
        "mode": schema.Field(schema.OneOf(tuple(modes), f"a mode of {game_id}"), doc="the game's mode"),
    }


def is_older_format(message: str) -> bool:
    """Whether an error message of :func:`read_envelope` says the snapshot's format is not this ttsmod's (no
    ``"ttsmod_snapshot"``, or another version): what ``ttsmod replay`` tells apart from a changed ruling, as an
    error reply carries only its code and message."""
    return message.startswith("ttsmod_snapshot: is missing") or (
        message.startswith("ttsmod_snapshot: format") and _NOT_READ in message)


def content_seed(snapshot: Mapping[str, Any]) -> str:
    """The random state a snapshot without ``"rng"`` gets, as 16 hex digits: a digest of the rest of its content
    (keys sorted), so the same table always gets the same answer and ``ttsmod replay`` can re-check a journal."""
    rest = {key: value for key, value in snapshot.items() if key != "rng"}
    digest = hashlib.sha256(json.dumps(rest, sort_keys=True, ensure_ascii=False).encode()).digest()
    return SeededRandom(int.from_bytes(digest[:8], "big")).to_text()


Defaults = Mapping[str, Callable[[Mapping[str, Any]], Any]]
"""A game's engine-written snapshot keys that may be left out: key → its value derived from the snapshot."""


def snapshot_defaults(game: Any, data: Any) -> Defaults:
    """The game's ``snapshot_defaults(data)``, or none."""
    declared = getattr(game, "snapshot_defaults", None)
    return declared(data) if declared is not None else {}


def prepare_snapshot(game: Any, data: Any, snapshot: Any) -> dict[str, Any]:
    """``snapshot`` (Lua JSON already undone) with its envelope checked and every engine-written key it leaves
    out given its default: ``rng`` from :func:`content_seed` (taken of the snapshot as sent), then the game's
    :func:`snapshot_defaults` in their order, each derived from the snapshot as it stands. ``rng`` sent as ``null``
    or ``false`` counts as left out; any other key only when it is missing or ``null`` (a ``false`` may be its real
    value, and the game's reader takes Lua's ``false`` for an empty slot)."""
    read_envelope(game.id, game.meta(data).modes, snapshot)
    out = dict(snapshot)
    if out.get("rng") in (None, False):
        out["rng"] = content_seed(out)
    for key, derive in snapshot_defaults(game, data).items():
        if out.get(key, None) is None:
            out[key] = derive(out)
    return out


# ------------------------------------------------------------------------------------------------ answering

def answer(game: Any, data: Any, request_type: str, body: Any) -> dict[str, Any]:
    """The answer of ``game`` (with its parsed ``data``) to one request: the one path of the bridge and of
    ``ttsmod adjudicate``. Refusals raise :class:`~bridge.rules.errors.RulesError` subclasses (the bridge sends
    their ``code``; an unknown type is ``unknown_type``, anything else ``bad_request``)."""
    if request_type not in game.request_types:
        raise UnknownRequestType(f"{game.id} handles {', '.join(game.request_types)}, not {request_type!r}")
    body = lua_json(request_object(body))
    if request_type != "setup":
        if "snapshot" not in body:
            raise SnapshotError("snapshot", "is missing")
        body["snapshot"] = prepare_snapshot(game, data, body["snapshot"])
    own = getattr(game, "requests", None)
    handlers = own(data) if own is not None else {}
    if request_type in handlers:
        return handlers[request_type](body)
    if request_type == "setup":
        return setup(game, data, body)
    state = game.from_snapshot(data, body["snapshot"])
    if request_type == "legal":
        return legal(game, data, state, body.get("action"))
    if request_type == "apply":
        return apply(game, data, state, body.get("actions"))
    if request_type == "score":
        return game.score(data, state)
    if request_type == "bot_move":
        return bot_move(game, data, state, body)
    raise UnknownRequestType(f"{game.id} lists {request_type!r} but has no handler for it")


def read_action(game: Any, data: Any, value: Any) -> Any:
    """An action from its JSON object or its text form (``"pass 1"``); ``InvalidAction`` otherwise."""
    if isinstance(value, str):
        return game.action_from_text(data, value)
    if value is None:
        raise InvalidAction("the action is missing")
    return game.action_from_json(data, value)


def next_decision(game: Any, state: Any) -> dict[str, Any]:
    """``next``: the seat to move (``null`` once over or while nobody is to act), every legal action as JSON,
    and the game's own fields (``game.next_extras(state)``)."""
    extras = getattr(game, "next_extras", None)
    return {"player": state.to_move(), **(extras(state) if extras is not None else {}),
            "legal": [action.to_json() for action in state.legal_actions()]}


def ruling(game: Any, state: Any, events: Sequence[Any]) -> dict[str, Any]:
    """The ruling after ``events``: them as JSON, the table after them, ``next``, the outcome once the game is
    over (else ``null``), ``complete`` (true: the mod's stepper finishes a ruling only when it says so, and a
    choice the rules ask for next is the next action), and the game's own fields
    (``game.ruling_extras(state, events)``)."""
    outcome = state.outcome()
    extras = getattr(game, "ruling_extras", None)
    return {
        "events": [_event_json(event) for event in events],
        "snapshot": state.to_snapshot(),
        "next": next_decision(game, state),
        "game_over": outcome.to_json() if outcome is not None else None,
        "complete": True,
        **(extras(state, events) if extras is not None else {}),
    }


def _event_json(event: Any) -> Any:
    return event if isinstance(event, dict) else event.to_json()


def setup(game: Any, data: Any, body: Mapping[str, Any]) -> dict[str, Any]:
    """A new table: ``players`` (an integer the game takes), ``seed`` (an integer, 0 when absent), ``mode``
    (one of the game's, its first when absent) and the game's own options, read by its optional
    ``setup(data, players, mode=, seed=, options=)`` (else ``new_game``, with no events)."""
    players, seed = body.get("players"), body.get("seed", 0)
    meta = game.meta(data)
    if isinstance(players, bool) or not isinstance(players, int) or not meta.min_players <= players <= meta.max_players:
        # checked here, for every game: a game's own setup need not refuse a count its game.toml already bounds
        raise InvalidAction(f"players must be an integer from {meta.min_players} to {meta.max_players}, "
                            f"not {json.dumps(players)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
        raise InvalidAction(f"seed must be a whole number from 0 to 2^63-1, not {json.dumps(seed)}")
    modes = game.meta(data).modes
    mode = body.get("mode", None)
    if mode is None or mode is False:
        mode = modes[0]
    if mode not in modes:
        raise InvalidAction(f"mode must be one of {', '.join(modes)}, not {json.dumps(mode, ensure_ascii=False)}")
    own = getattr(game, "setup", None)
    if own is not None:
        state, events = own(data, players, mode=mode, seed=seed, options=body)
    else:
        state, events = game.new_game(data, players, mode=mode, seed=seed), []
    return {"snapshot": state.to_snapshot(), "events": [_event_json(e) for e in events],
            "next": next_decision(game, state)}


def refusal(exc: IllegalAction) -> dict[str, Any]:
    """The ``legal`` reply for a refused action: its reason code and the sentence shown to the player."""
    return {"legal": False, "reason": exc.reason, "message": str(exc)}


def legal(game: Any, data: Any, state: Any, value: Any) -> dict[str, Any]:
    """:func:`refusal` when ``state.check(action)`` refuses the action; else ``{"legal": true, **ruling}`` with
    it applied."""
    action = read_action(game, data, value)
    try:
        state.check(action)
    except IllegalAction as exc:
        return refusal(exc)
    return {"legal": True, **ruling(game, state, state.apply(action))}


def apply(game: Any, data: Any, state: Any, actions: Any) -> dict[str, Any]:
    """The ruling of ``actions`` (a non-empty list of at most :data:`MAX_ACTIONS_PER_REQUEST`) applied to
    ``state`` in order; a refused or malformed action raises, naming ``actions[i]``."""
    state, events = apply_each(lambda: state, actions, lambda value: read_action(game, data, value))
    return ruling(game, state, events)


def apply_each(make_state: Callable[[], Any], actions: Any, parse: Callable[[Any], Any]) -> tuple[Any, list[Any]]:
    """The state ``make_state()`` gives with ``actions`` (a non-empty list of at most
    :data:`MAX_ACTIONS_PER_REQUEST`, each read by ``parse``) applied in order, and the events of all of them. The
    list is checked before the state is made; a refused or malformed action raises, naming ``actions[i]``."""
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


def bot_move(game: Any, data: Any, state: Any, body: Mapping[str, Any]) -> dict[str, Any]:
    """A ``bot_move`` request on ``state``: the action the bot ``body["level"]`` chooses for the seat to move,
    seeded with ``body["seed"]`` (an integer, 0 when absent) so the same table and seed give the same move
    after a reload or a bridge restart.

    Reply: ``{"player": <the seat to move>, "level": <name>, "action": <the action's JSON form>}``.
    ``InvalidAction`` for an unknown level, a bad seed or a table where nobody is to move."""
    from bridge.rules.bots import BOT_NAMES, make_bot   # the search code loads only when a bot plays

    level = body.get("level")
    if level not in BOT_NAMES:
        raise InvalidAction(f"level must be one of {', '.join(BOT_NAMES)}, not {level!r}")
    seed = body.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
        raise InvalidAction(f"seed must be a whole number from 0 to 2^63-1, not {seed!r}")
    seat = state.to_move()
    if seat is None or state.is_over():
        raise InvalidAction("no seat is to move on this table: there is nothing for a bot to do")
    players = len(state.to_snapshot()["players"])
    bot = make_bot(level, game, data, players, seed=seed)
    action = bot.choose(state)
    return {"player": seat, "level": level, "action": action.to_json()}


class GameBase:
    """What every game's engine object shares: ``handle`` through the one contract (:func:`answer`), and no
    separate decisions by default. A game subclasses it and provides the rest of
    :class:`bridge.rules.game.Game`."""

    def handle(self, data: Any, request_type: str, body: Any) -> dict[str, Any]:
        """The contract's answer to one request (:func:`answer`)."""
        return answer(self, data, request_type, body)

    def choice_json(self, data: Any, player: int, answer: str) -> dict[str, Any]:
        """A game whose every choice is an action asks no separate decisions."""
        raise InvalidAction(f"{getattr(self, 'id', 'this game')} asks no separate decisions: "
                            "send every choice as an action (apply)")
