"""The one contract every game speaks (docs/protocol.md), checked on seeded random playouts of every game.

A game gets this suite by being registered (a built-in game, or a folder of ``tests/games/``: :mod:`tests.everygame`),
as OpenSpiel's ``random_sim_test``: nothing is copied per game. A playout is played through the requests
themselves — ``setup`` deals the table, ``apply`` plays a legal action chosen from ``next.legal`` — and at every
step:

- the snapshot starts with the envelope (``ttsmod_snapshot``, ``game``, ``mode``) and snapshot → state →
  snapshot is the identity (through JSON text); it is exactly what the game's declared schema
  (``snapshot_schema``, :mod:`bridge.rules.schema`) reads and writes back; ``next`` is who moves and every legal
  action;

and every few steps, for every request type the game lists:

- the request is answered, with plain JSON;
- the same request written as TTS's Lua writes it (whole numbers as floats, ``[]`` for empty objects, keys in
  another order, the engine-written keys left out where they hold their default) gets the identical answer;
- a snapshot without ``rng`` gets the answer of the snapshot with the contract's content seed;
- another game's snapshot, another format version and a snapshot without the envelope are refused by name;
- ``bot_move`` answers one of ``next.legal``;
- a refused action (a legal one sent for another seat, one that was legal earlier) carries one of the game's
  ``refusal_reasons``, never a catch-all.

Every value the schema declares, put wrong in a real snapshot of the game, is refused naming its own path.

Last, the game's protocol page documents every field of every answer seen, every event and event field, and
exactly the game's refusal reasons (tables whose first header cell is ``field``, ``event`` or ``reason``;
docs/protocol.md documents the shared fields once), and its ``snapshot key`` table lists exactly the schema's
top-level keys.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

from bridge.catalog import LoadedGame, load
from bridge.rules.contract import ENVELOPE_KEYS, SHARED_REQUEST_TYPES, SNAPSHOT_FORMAT, answer, content_seed
from bridge.rules.contract import snapshot_defaults
from bridge.rules import schema
from bridge.rules.errors import RulesError, SnapshotError
from bridge.rules.playout import chooser_for, play_random_game
from tests.everygame import game_sources, source_id   # every built-in game and every folder of tests/games/
from tests.luajson import as_lua

REPO = Path(__file__).resolve().parents[3]

SEED = 5
CHECK_EVERY = 9          # steps between two full checks of every request type: enough tables, a short run
MAX_STEPS = 400          # a playout longer than this is cut (every game here ends well before)
SHARED_DOCS = REPO / "docs" / "protocol.md"


@dataclass
class Seen:
    """What the playouts of one game met: answer field paths, event paths, refusal reasons."""

    fields: dict[str, str] = field(default_factory=dict)      # path → the request type it was first seen in
    events: set[str] = field(default_factory=set)
    reasons: set[str] = field(default_factory=set)


@pytest.fixture(scope="module", params=game_sources(), ids=source_id)
def game(request) -> LoadedGame:
    return load(request.param)


@pytest.fixture(scope="module")
def seen(game: LoadedGame) -> Seen:
    """Every playout of the game (each mode, its fewest and most players), checked step by step."""
    found = Seen()
    counts = sorted({game.meta.min_players, game.meta.max_players})
    for mode in game.meta.modes:
        for players in counts:
            check_playout(game, mode, players, found)
    return found


def ask(game: LoadedGame, request_type: str, body: Any) -> dict[str, Any]:
    reply = answer(game.engine, game.data, request_type, body)
    assert_plain_json(reply, f"the {request_type} answer")
    return reply


# ------------------------------------------------------------------------------------------------ the playouts

def check_playout(game: LoadedGame, mode: str, players: int, found: Seen) -> None:
    setup = ask(game, "setup", {"players": players, "seed": SEED, "mode": mode})
    assert set(setup) == {"snapshot", "events", "next"}, "setup answers {snapshot, events, next}"
    record(found, "setup", setup)
    assert setup["snapshot"]["mode"] == mode
    snapshot, next_ = setup["snapshot"], setup["next"]
    chooser = chooser_for(SEED * 100 + players)
    earlier: list[Any] = []
    for step in range(MAX_STEPS):
        check_table(game, snapshot, next_)
        if not next_["legal"]:
            break
        action = next_["legal"][chooser.randbelow(len(next_["legal"]))]
        if step % CHECK_EVERY == 0:
            check_every_request(game, snapshot, next_, action, step, found)
            check_refusals(game, snapshot, next_, earlier, found)
            check_envelope_refused(game, snapshot)
        earlier = [a for a in next_["legal"] if a not in earlier][:5] + earlier[:20]
        ruling = ask(game, "apply", {"snapshot": snapshot, "actions": [action]})
        record(found, "apply", ruling)
        snapshot, next_ = ruling["snapshot"], ruling["next"]
    else:
        pytest.fail(f"{game.meta.id} {mode} {players}p: no end after {MAX_STEPS} actions")


def check_table(game: LoadedGame, snapshot: dict[str, Any], next_: dict[str, Any]) -> None:
    assert list(snapshot)[:3] == list(ENVELOPE_KEYS), "a snapshot starts with its envelope"
    assert snapshot["ttsmod_snapshot"] == SNAPSHOT_FORMAT and snapshot["game"] == game.meta.id
    state = game.engine.from_snapshot(game.data, json.loads(json.dumps(snapshot)))
    assert state.to_snapshot() == snapshot, "snapshot → state → snapshot is the identity"
    declared = game.engine.snapshot_schema(game.data)
    assert json.dumps(schema.write(declared, schema.read(declared, snapshot))) == json.dumps(snapshot), \
        "the snapshot is what its declared schema reads and writes back, key for key and in order"
    assert next_["player"] == state.to_move()
    assert next_["legal"] == [a.to_json() for a in state.legal_actions()], "next lists every legal action"


def bodies(game: LoadedGame, snapshot: dict[str, Any], action: Any, step: int) -> dict[str, dict[str, Any]]:
    """A request body for every type the game lists (its own types get just the snapshot)."""
    shared = {"legal": {"snapshot": snapshot, "action": action},
              "apply": {"snapshot": snapshot, "actions": [action]},
              "score": {"snapshot": snapshot},
              "bot_move": {"snapshot": snapshot, "level": "random", "seed": step}}
    return {kind: shared.get(kind, {"snapshot": snapshot}) for kind in game.engine.request_types if kind != "setup"}


def answer_or_refusal(game: LoadedGame, request_type: str, body: Any) -> tuple[str, Any]:
    """("ok", answer) or ("refused", the error's code and message): a listed type is always answered one way."""
    try:
        return "ok", ask(game, request_type, body)
    except RulesError as exc:
        return "refused", (exc.code, str(exc))


def check_every_request(game: LoadedGame, snapshot: dict[str, Any], next_: dict[str, Any], action: Any,
                        step: int, found: Seen) -> None:
    defaults = snapshot_defaults(game.engine, game.data)
    for request_type, body in bodies(game, snapshot, action, step).items():
        kind, reply = answer_or_refusal(game, request_type, body)
        if kind == "ok":
            record(found, request_type, reply)
        as_lua = lua_written(body, drop=droppable(snapshot, defaults), seed=step)
        assert answer_or_refusal(game, request_type, as_lua) == (kind, reply), \
            f"{request_type}: the same request as TTS's Lua writes it gets another answer"
        if request_type == "legal" and kind == "ok":
            assert reply["legal"] is True, "an action from next.legal is legal"
        if request_type == "bot_move" and kind == "ok":
            assert reply["action"] in next_["legal"], "bot_move answers one of next.legal"
            assert reply["player"] == next_["player"]
    unseeded = {key: value for key, value in snapshot.items() if key != "rng"}
    seeded = {**unseeded, "rng": content_seed(unseeded)}
    assert answer_or_refusal(game, "score", {"snapshot": unseeded}) == \
        answer_or_refusal(game, "score", {"snapshot": seeded})
    assert answer_or_refusal(game, "apply", {"snapshot": unseeded, "actions": [action]}) == \
        answer_or_refusal(game, "apply", {"snapshot": seeded, "actions": [action]}), \
        "a snapshot without rng is seeded from its content"


def check_refusals(game: LoadedGame, snapshot: dict[str, Any], next_: dict[str, Any], earlier: list[Any],
                   found: Seen) -> None:
    players = len(snapshot["players"])
    tries = [a for a in earlier if a not in next_["legal"]][:4]
    for action in next_["legal"][:3]:
        if isinstance(action, dict) and isinstance(action.get("player"), int):
            other = {**action, "player": (action["player"] + 1) % players}
            if other not in next_["legal"]:
                tries.append(other)
    for action in tries:
        kind, reply = answer_or_refusal(game, "legal", {"snapshot": snapshot, "action": action})
        if kind == "refused":
            continue         # an action that cannot even be read here (a seat or a card this table lacks)
        assert reply["legal"] is False, f"{action} is not in next.legal, yet it is legal"
        assert set(reply) == {"legal", "reason", "message"}
        assert reply["reason"] in game.engine.refusal_reasons, \
            f"refusal reason {reply['reason']!r} ({reply['message']}) is not in {game.meta.id}'s refusal_reasons"
        assert reply["message"]
        found.reasons.add(reply["reason"])


def check_envelope_refused(game: LoadedGame, snapshot: dict[str, Any]) -> None:
    wrong = {
        "game": {**snapshot, "game": "another-game"},
        "ttsmod_snapshot": {**snapshot, "ttsmod_snapshot": SNAPSHOT_FORMAT + 1},
        "mode": {**snapshot, "mode": "no-such-mode"},
    }
    for key in ENVELOPE_KEYS:
        wrong[f"{key} left out"] = {k: v for k, v in snapshot.items() if k != key}
    for what, bad in wrong.items():
        with pytest.raises(SnapshotError) as refused:
            answer(game.engine, game.data, "score", {"snapshot": bad})
        assert refused.value.code == "bad_request"
        assert refused.value.path == what.split()[0], f"the refusal of a bad {what} names the key"


# ------------------------------------------------------------------------------------------------ Lua's JSON

def droppable(snapshot: dict[str, Any], defaults) -> set[str]:
    """The engine-written keys of ``snapshot`` that hold the default the contract would give them."""
    out = set()
    for key, derive in defaults.items():
        rest = {k: v for k, v in snapshot.items() if k != key}
        if key in snapshot and derive(rest) == snapshot[key]:
            out.add(key)
    return out


def lua_written(body: dict[str, Any], *, drop: set[str], seed: int) -> dict[str, Any]:
    """A request body as TTS's ``JSON.encode`` may write it (:func:`tests.luajson.as_lua`): every integer a float,
    every empty object ``[]``, every ``null`` of the snapshot ``false``, every object's keys in another order; and
    the snapshot without the keys of ``drop``."""
    chooser = chooser_for(seed)
    keys = list(body)
    chooser.shuffle(keys)
    return {key: as_lua(body[key], nulls=key == "snapshot", chooser=chooser, drop=drop if key == "snapshot" else ())
            for key in keys}


def assert_plain_json(value: Any, what: str) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            assert all(isinstance(k, str) for k in item), f"{what}: an object key that is not a string"
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float):
            assert math.isfinite(item), f"{what}: a number JSON cannot hold"
        else:
            assert item is None or isinstance(item, (str, int, bool)), f"{what}: {type(item).__name__} in JSON"


# ------------------------------------------------------------------------------------------------ what is seen

OPAQUE = ("snapshot", "next.legal", "action", "events")
"""Answer fields whose inside is documented elsewhere: the snapshot, actions, events (by event name)."""


def record(found: Seen, request_type: str, reply: dict[str, Any]) -> None:
    for path in field_paths(reply):
        found.fields.setdefault(path, request_type)
    for event in reply.get("events", []):
        found.events.update(event_paths(event))


def field_paths(value: Any, prefix: str = "") -> Iterator[str]:
    """Every key path of an answer: ``standings[].score``; the inside of :data:`OPAQUE` fields is not walked."""
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            yield path
            if path not in OPAQUE:
                yield from field_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            yield from field_paths(item, f"{prefix}[]")


def event_paths(event: dict[str, Any]) -> Iterator[str]:
    name = event["event"]
    yield name
    for key, item in event.items():
        if key != "event":
            yield f"{name}.{key}"
            yield from field_paths(item, f"{name}.{key}")


# ------------------------------------------------------------------------------------------------ the schema

def test_the_schema_declares_the_envelope_first(game: LoadedGame):
    declared = game.engine.snapshot_schema(game.data)
    assert isinstance(declared, schema.Record)
    assert schema.top_fields(declared)[:3] == tuple(ENVELOPE_KEYS)


def concrete_paths(value: Any, path: tuple) -> Iterator[tuple]:
    """The paths of ``value`` a schema leaf's path (``None``: any key or index) stands for: its first match."""
    if not path:
        yield ()
        return
    key, rest = path[0], path[1:]
    if key is None:
        keys = list(value)[:1] if isinstance(value, dict) else [0] if isinstance(value, list) and value else []
    else:
        keys = [key] if isinstance(value, dict) and key in value else []
    for k in keys:
        for tail in concrete_paths(value[k], rest):
            yield (k, *tail)


def spelt(path: tuple) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else f".{key}" if out else str(key)
    return out


def test_every_declared_value_put_wrong_is_refused_by_its_path(game: LoadedGame):
    """Each leaf of the schema, in the first snapshot of a random playout that holds it: its wrong value there is
    refused naming that path (the reader never crashes, never takes it, never blames another key)."""
    declared = game.engine.snapshot_schema(game.data)
    snapshots: list[dict[str, Any]] = []
    play_random_game(game.engine, game.data, game.meta.max_players, seed=SEED,
                     on_step=lambda state, *_: snapshots.append(state.to_snapshot()))
    tried = 0
    for path, leaf in schema.leaves(declared):
        for snapshot in snapshots:
            places = list(concrete_paths(snapshot, path))
            if places:
                break
        else:
            continue            # no table of the playout holds such a value (an empty hand, nothing pending)
        place = places[0]
        bad = json.loads(json.dumps(snapshot))
        node = bad
        for key in place[:-1]:
            node = node[key]
        if isinstance(node, dict) and isinstance(leaf, schema.Integer) and path[-1] is None:
            continue            # a map's key is its number: its value is the leaf
        node[place[-1]] = leaf.wrong()
        with pytest.raises(SnapshotError) as refused:
            game.engine.from_snapshot(game.data, bad)
        assert refused.value.path == spelt(place), (
            f"{game.meta.id}: {leaf.wrong()!r} at {spelt(place)} was refused as {refused.value}")
        tried += 1
    every = len(list(schema.leaves(declared)))
    assert tried * 2 >= every, f"{game.meta.id}: the playout's snapshots hold {tried} of the schema's {every} values"


# ------------------------------------------------------------------------------------------------ the docs

def protocol_page(game: LoadedGame) -> Path:
    """The game's protocol page: ``protocol.md`` in its folder, else ``docs/games/<mod>/protocol.md`` (the module
    name, ``GameMeta.mod``)."""
    own = Path(game.folder) / "protocol.md"
    return own if own.is_file() else REPO / "docs" / "games" / game.meta.mod / "protocol.md"


def documented(page: Path, first_cell: str) -> set[str]:
    """The backticked names in the first column of every table of ``page`` whose header starts ``first_cell``."""
    names: set[str] = set()
    taking = False
    for line in page.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
        if not cells:
            taking = False
        elif cells[0].lower() == first_cell:
            taking = True
        elif taking and not set(cells[0]) <= set("-: "):
            names.update(re.findall(r"`([^`]+)`", cells[0]))
    return names


def undocumented(seen_paths: set[str], names: set[str]) -> list[str]:
    """The paths no name covers; a name's ``*`` stands for any one key (a key that varies with the data)."""
    patterns = [re.compile(re.escape(name).replace(r"\*", r"[^.\[\]]+") + r"\Z") for name in names if "*" in name]
    return sorted(p for p in seen_paths if p not in names and not any(pat.match(p) for pat in patterns))


def test_every_request_type_is_listed_in_the_shared_order(game: LoadedGame):
    types = tuple(game.engine.request_types)
    own = types[:len(types) - len(SHARED_REQUEST_TYPES)]
    assert types[len(own):] == SHARED_REQUEST_TYPES, \
        f"{game.meta.id} lists its own types first, then {', '.join(SHARED_REQUEST_TYPES)} in that order"
    assert not set(own) & set(SHARED_REQUEST_TYPES)


def test_playouts_through_the_requests_keep_the_contract(game: LoadedGame, seen: Seen):
    assert seen.fields and seen.events, f"{game.meta.id}: playouts answered requests and told events"


def test_refusals_carry_the_games_own_reasons(game: LoadedGame, seen: Seen):
    reasons = game.engine.refusal_reasons
    assert "illegal" not in reasons, "a refusal names its cause, not a catch-all"
    assert seen.reasons, f"{game.meta.id}: the playouts met refusals"
    assert all(isinstance(text, str) and text for text in reasons.values())


def test_the_protocol_page_documents_every_answer_field_event_and_reason(game: LoadedGame, seen: Seen):
    page = protocol_page(game)
    assert page.is_file(), f"{game.meta.id} has no protocol page at {page.relative_to(REPO)}"
    shared = documented(SHARED_DOCS, "field")
    fields = undocumented(set(seen.fields), documented(page, "field") | shared)
    assert not fields, (f"{page.relative_to(REPO)} documents no row for these answer fields (a `field` table; "
                        f"a key that varies with the data is written *): "
                        + ", ".join(f"{p} ({seen.fields[p]})" for p in fields))
    events = undocumented(seen.events, documented(page, "event"))
    assert not events, f"{page.relative_to(REPO)} documents no row for these events or event fields (an `event` " \
                       f"table): {', '.join(events)}"
    reasons = documented(page, "reason")
    assert reasons == set(game.engine.refusal_reasons), \
        f"{page.relative_to(REPO)}'s `reason` table lists {sorted(reasons)}; the engine's refusal_reasons are " \
        f"{sorted(game.engine.refusal_reasons)}"


def test_the_protocol_page_lists_the_schemas_top_level_keys(game: LoadedGame):
    page = protocol_page(game)
    listed = {name.removesuffix("[]") for name in documented(page, "snapshot key")}
    declared = set(schema.top_fields(game.engine.snapshot_schema(game.data)))
    assert listed == declared, (f"{page.relative_to(REPO)}'s `snapshot key` table lists {sorted(listed)}; the "
                                f"snapshot schema declares {sorted(declared)}")


def test_the_protocol_page_lists_the_requests_in_the_games_order(game: LoadedGame):
    text = protocol_page(game).read_text(encoding="utf-8")
    places = [text.find(f"`{kind}`") for kind in game.engine.request_types]
    assert all(place >= 0 for place in places), "every request type is named on the protocol page"
    assert places == sorted(places), \
        f"the page names the requests first in the order {', '.join(game.engine.request_types)}"


def test_setup_takes_every_player_count_the_game_declares_and_refuses_the_rest(game: LoadedGame):
    low, high = game.meta.min_players, game.meta.max_players
    for players in range(low, high + 1):
        assert len(ask(game, "setup", {"players": players, "seed": SEED})["snapshot"]["players"]) == players
    for players in (low - 1, high + 1, 0, -1, 1000, True, 2.5, "3", None):
        verdict, refusal = answer_or_refusal(game, "setup", {"players": players, "seed": SEED})
        assert verdict == "refused", f"setup with players {players!r} was answered"
        assert refusal == ("bad_request", f"players must be an integer from {low} to {high}, "
                                          f"not {json.dumps(players)}"), refusal
