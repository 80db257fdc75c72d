"""The request handling every game's service shares (bridge/rules/service.py), on the toy game's rules."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from bridge.rules import service
from bridge.rules.errors import IllegalAction, InvalidAction, UnknownRequestType


@dataclass
class Counter:
    """A state that takes "+n" actions up to a total of 10 and refuses the rest."""

    total: int = 0
    log: list[int] = field(default_factory=list)

    def check(self, n: int) -> None:
        if self.total + n > 10:
            raise IllegalAction(f"{self.total} + {n} is over 10", "too_much")

    def apply(self, n: int) -> list[str]:
        self.check(n)
        self.total += n
        return [f"added {n}"]


def parse(value):
    if not isinstance(value, int):
        raise InvalidAction("an action is a whole number")
    return value


def test_an_unknown_request_or_a_body_that_is_not_an_object_is_refused_by_name():
    with pytest.raises(UnknownRequestType, match="toy handles legal, apply, not 'score'"):
        service.request_body("toy", ("legal", "apply"), "score", {})
    with pytest.raises(InvalidAction, match="must be an object"):
        service.request_body("toy", ("legal",), "legal", [1])


def test_legal_gives_the_refusal_with_its_reason_or_the_ruling_of_the_applied_action():
    refused = service.check_then_apply(Counter(8), 3, lambda s, e: {"events": e})
    assert refused == {"legal": False, "reason": "too_much", "message": "8 + 3 is over 10"}
    state = Counter(8)
    assert service.check_then_apply(state, 2, lambda s, e: {"events": e, "total": s.total}) == \
        {"legal": True, "events": ["added 2"], "total": 10}


def test_apply_applies_in_order_and_names_the_refused_action():
    state, events = service.apply_each(Counter, [3, 4], parse)
    assert (state.total, events) == (7, ["added 3", "added 4"])
    with pytest.raises(IllegalAction, match=r"actions\[1\]: 7 \+ 9 is over 10"):
        service.apply_each(lambda: Counter(7), [0, 9], parse)
    with pytest.raises(InvalidAction, match=r"actions\[0\]: an action is a whole number"):
        service.apply_each(Counter, ["x"], parse)


@pytest.mark.parametrize("actions", [[], None, {"0": 1}, [0] * (service.MAX_ACTIONS_PER_REQUEST + 1)])
def test_apply_needs_a_bounded_non_empty_list_before_it_reads_the_state(actions):
    def unreadable():
        raise AssertionError("the state was read although the action list is bad")
    with pytest.raises(InvalidAction):
        service.apply_each(unreadable, actions, parse)


# ---- bot_reply: the move a bot seat plays, as the bridge answers a table's bot_move request

def _builtin_ids():
    from bridge.catalog import builtin_games

    return sorted(builtin_games())


@pytest.fixture(scope="module", params=_builtin_ids())
def opening(request):
    """A 3-player game of each built-in game at its first decision, rebuilt from its snapshot as the table sends it."""
    from bridge.catalog import load

    loaded = load(request.param)
    state = loaded.engine.new_game(loaded.data, 3, seed=5)
    return loaded, loaded.engine.from_snapshot(loaded.data, state.to_snapshot())


@pytest.mark.parametrize("level", ["random", "heuristic"])
def test_bot_reply_names_a_legal_action_of_the_seat_to_move(opening, level):
    from bridge.rules.service import bot_reply

    loaded, state = opening
    reply = bot_reply(loaded.engine, loaded.data, state, 3, {"level": level, "seed": 3})
    assert reply["player"] == state.to_move() and reply["level"] == level
    action = loaded.engine.action_from_json(loaded.data, reply["action"])
    state.check(action)   # raises IllegalAction if the bot chose a move the table would refuse
    assert reply == bot_reply(loaded.engine, loaded.data, state, 3, {"level": level, "seed": 3}), "same seed, same move"


@pytest.mark.parametrize("body, words", [
    ({"level": "grandmaster"}, "level must be one of"),
    ({"level": "easy", "seed": -1}, "seed must be"),
    ({"level": "easy", "seed": 1.5}, "seed must be"),
    ({"level": "easy", "seed": True}, "seed must be"),
])
def test_bot_reply_refuses_an_unknown_level_or_a_bad_seed(opening, body, words):
    from bridge.rules.errors import InvalidAction
    from bridge.rules.service import bot_reply

    loaded, state = opening
    with pytest.raises(InvalidAction, match=words):
        bot_reply(loaded.engine, loaded.data, state, 3, body)
