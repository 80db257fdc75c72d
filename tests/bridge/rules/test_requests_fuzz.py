"""Every game answers any request a hostile or broken mod can send with a result or a refusal, never an engine
failure: requests made from real tables of the game (each mode, its fewest and most players, several points of
a seeded random playout), with values at random places replaced by random JSON or left out, get a reply body or
a :class:`~bridge.rules.errors.RulesError` whose code is not ``internal`` — what the bridge sends as ``bad_request``
(or ``unknown_type``) and ``ttsmod adjudicate`` prints in one line, exit status 2.

A game gets this test by being registered (:mod:`tests.everygame`). Hypothesis draws deterministically
(``derandomize``), so a run in CI finds what a run here finds; a failure prints the request that broke the engine.
"""

from __future__ import annotations

import copy
import json
import math
import traceback
from functools import lru_cache
from types import SimpleNamespace
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.catalog import LoadedGame, load
from bridge.rules.contract import SHARED_REQUEST_TYPES
from bridge.rules.errors import RulesError
from bridge.rules.random import SeededRandom
from bridge.session import ERROR_CODES
from tests.everygame import game_sources, source_id

PLAYOUT_STEPS = 120      # a table is taken every TAKE_EVERY steps of a playout this long (or until it ends)
TAKE_EVERY = 7
EXAMPLES = 400           # requests per game: a few seconds each
CHEAP_BOTS = ("random", "heuristic")   # the searching bots answer the same reading of the table, only slower

Path = tuple[Any, ...]


def answer(game: LoadedGame, request_type: str, body: Any) -> str:
    """What the bridge replies: ``"ok"`` or the error code; an engine failure is this test's failure, with the
    traceback and the request."""
    try:
        reply = game.engine.handle(game.data, request_type, copy.deepcopy(body))
    except RulesError as exc:
        if exc.code in ERROR_CODES and exc.code != "internal":
            return exc.code
        failure = traceback.format_exc()
    except Exception:
        failure = traceback.format_exc()
    else:
        if isinstance(reply, dict):
            json.dumps(reply, allow_nan=False)    # the reply must be sendable too
            return "ok"
        failure = f"the reply is a {type(reply).__name__}, not an object"
    raise AssertionError(f"{game.meta.id} {request_type} failed inside the engine:\n{failure}\nrequest body: "
                         f"{json.dumps(body, ensure_ascii=False, default=repr)[:4000]}")


@lru_cache(maxsize=None)
def loaded(source: str) -> LoadedGame:
    return load(source)


@lru_cache(maxsize=None)
def tables(source: str) -> tuple[tuple[dict[str, Any], tuple[Any, ...]], ...]:
    """Tables of the game as setup deals them and as a seeded random playout goes on: (snapshot, legal actions)."""
    game = loaded(source)
    found = []
    rng = SeededRandom(11)
    for mode in game.meta.modes:
        for players in sorted({game.meta.min_players, game.meta.max_players}):
            body = game.engine.handle(game.data, "setup", {"players": players, "seed": 3, "mode": mode})
            snapshot, legal = body["snapshot"], body["next"]["legal"]
            for step in range(PLAYOUT_STEPS):
                if step % TAKE_EVERY == 0:
                    found.append((snapshot, tuple(legal)))
                if not legal:
                    break
                action = rng.choice(legal)
                ruling = game.engine.handle(game.data, "apply", {"snapshot": snapshot, "actions": [action]})
                snapshot, legal = ruling["snapshot"], ruling["next"]["legal"]
            found.append((snapshot, tuple(legal)))
    return tuple(found)


def request_body(game: LoadedGame, request_type: str, snapshot: dict[str, Any], legal: tuple[Any, ...],
                 pick: int, seed: int) -> dict[str, Any]:
    """A well-formed body of ``request_type`` on the table ``snapshot`` (its ``pick``-th legal action)."""
    if request_type == "setup":
        return {"players": len(snapshot.get("players", [])) or game.meta.min_players, "seed": seed,
                "mode": snapshot.get("mode")}
    action = legal[pick % len(legal)] if legal else {"action": "pass", "player": 0}
    return {"snapshot": snapshot, "action": action, "actions": [action], "level": CHEAP_BOTS[pick % 2],
            "seed": seed, "force": bool(pick % 2)}


def paths(value: Any, here: Path = ()) -> Iterator[Path]:
    """Every place in ``value`` (the root excluded): each key of an object, each index of a list."""
    stack = [(value, here)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, dict):
            children = item.items()
        elif isinstance(item, list):
            children = enumerate(item)
        else:
            continue
        for key, child in children:
            yield (*at, key)
            stack.append((child, (*at, key)))


def strings_of(value: Any) -> list[str]:
    """The strings a table holds (ids, phases, names): put in the wrong place, they reach further than noise."""
    return sorted({item for at in paths(value) if isinstance(item := get(value, at), str)} |
                  {key for at in paths(value) for key in [at[-1]] if isinstance(key, str)})


def get(value: Any, at: Path) -> Any:
    for key in at:
        value = value[key]
    return value


CONFUSIONS = (None, False, True, [], {}, [[]], [{}], "", 0, -1, 1.5, 2 ** 64, [0, 0])
"""Values that are the wrong kind almost everywhere: tried first and often."""


def json_values(words: list[str]) -> st.SearchStrategy[Any]:
    """Random JSON as TTS could send it: :data:`CONFUSIONS`, numbers (huge, infinite: ``1e999`` reads as one),
    text, the table's own words, and small lists and objects of them."""
    scalars = st.one_of(
        st.none(), st.booleans(),
        st.integers(-3, 12), st.integers(-2 ** 70, 2 ** 70), st.sampled_from([2 ** 53 + 1, 10 ** 30]),
        st.floats(allow_nan=False), st.sampled_from([0.5, -0.0, 2.0, math.inf, -math.inf, 1e308]),
        st.text(max_size=8), st.sampled_from(words or [""]),
    )
    nested = st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(words or ["k"]), inner, max_size=3)),
        max_leaves=8)
    return st.one_of(st.sampled_from(CONFUSIONS), st.sampled_from(words or [""]), nested)


def kind_of(at: Path) -> Path:
    """A place with its list indices left out: ``snapshot.players.*.hand.*`` names every card of every hand."""
    return tuple("*" if isinstance(key, int) else key for key in at)


def mutated(body: dict[str, Any], data: st.DataObject, values: st.SearchStrategy[Any]) -> dict[str, Any]:
    """``body`` with one to three places replaced by one of ``values`` (or, for an object's key, left out).

    A kind of place is drawn first (:func:`kind_of`), then a place of that kind: a snapshot has hundreds of cards
    in hands and piles and a single ``hunt.sums``, and each is as likely to be what a broken mod gets wrong."""
    body = copy.deepcopy(body)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        kinds: dict[Path, list[Path]] = {}
        for at in paths(body):
            kinds.setdefault(kind_of(at), []).append(at)
        if not kinds:
            break
        ordered = sorted(kinds, key=repr)
        places = kinds[ordered[data.draw(st.integers(0, len(ordered) - 1), label="kind of place")]]
        at = places[data.draw(st.integers(0, len(places) - 1), label="place")]
        parent = get(body, at[:-1])
        if isinstance(parent, dict) and data.draw(st.integers(0, 4), label="leave out") == 0:
            del parent[at[-1]]
        else:
            parent[at[-1]] = copy.deepcopy(data.draw(values, label="value"))   # CONFUSIONS are shared
    return body


@pytest.mark.parametrize("source", game_sources(), ids=source_id)
def test_any_request_made_from_a_real_table_gets_a_result_or_a_refusal_never_an_engine_failure(source):
    game = loaded(source)
    found = tables(source)
    request_types = tuple(dict.fromkeys((*game.engine.request_types, *SHARED_REQUEST_TYPES)))
    values = json_values(strings_of([table for table, _legal in found[:6]]))

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.data())
    def fuzz(data: st.DataObject) -> None:
        snapshot, legal = found[data.draw(st.integers(0, len(found) - 1), label="table")]
        request_type = request_types[data.draw(st.integers(0, len(request_types) - 1), label="type")]
        pick, seed = data.draw(st.integers(0, 50), label="pick"), data.draw(st.integers(0, 9), label="seed")
        body = mutated(request_body(game, request_type, snapshot, legal, pick, seed), data, values)
        answer(game, request_type, body)

    fuzz()


def test_a_failure_inside_an_engine_fails_this_test():
    # the check itself: an engine that raises anything but a refusal is caught, naming the request
    class Broken:
        def handle(self, data, request_type, body):
            return {}["missing"]

    broken = SimpleNamespace(engine=Broken(), data=None, meta=SimpleNamespace(id="broken"))
    with pytest.raises(AssertionError, match="broken legal failed inside the engine"):
        answer(broken, "legal", {"snapshot": {}})
