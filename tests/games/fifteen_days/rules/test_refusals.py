"""Why a refused 15 Days action is refused: each cause has its own reason code (``REFUSALS``, the ``reason``
table of docs/games/fifteen_days/protocol.md), never a catch-all, and ``legal`` answers it with a sentence for
the player. One table per cause below, built as the rule it names describes; then random games, where every
action of every kind that is not legal is refused with one of the codes."""

from __future__ import annotations

from itertools import combinations
from typing import Any, Callable

import pytest

from bridge.rules.errors import IllegalAction
from bridge.rules.fifteen_days.actions import (
    Discard, Done, Draw, EndTurn, Feather, Pass, Pay, Play, PutWild, Refill, Take, TakeWild)
from bridge.rules.fifteen_days.game import FIFTEEN_DAYS
from bridge.rules.fifteen_days.state import REFUSALS, GameState
from bridge.rules.playout import chooser_for
from tests.games.fifteen_days.rules.tables import Table, face
from tests.games.fifteen_days.rules.test_rule_flags import with_rules

Case = Callable[[Any], tuple[Any, GameState, Any]]
CASES: dict[str, Case] = {}


def case(code: str) -> Callable[[Case], Case]:
    """A table on which seat 0 (to move) tries an action refused for ``code``'s cause: (data, state, action)."""
    def register(build: Case) -> Case:
        CASES[code] = build
        return build
    return register


def played(state: GameState, *actions: Any) -> GameState:
    for action in actions:
        state.apply(action)
    return state


def edited(data: Any, state: GameState, change: Callable[[dict[str, Any]], None]) -> GameState:
    """``state`` with its snapshot changed as ``change`` does, read back (a table the mod could send)."""
    snapshot = state.to_snapshot()
    change(snapshot)
    return GameState.from_snapshot(data, snapshot)


# ------------------------------------------------------------------------------------------------ who and when

@case("game_over")
def _game_over(data):
    return data, edited(data, Table(data).state, lambda s: s.update(over="draw_pile")), Draw(0, 0)


@case("not_your_turn")
def _not_your_turn(data):
    return data, Table(data).state, Draw(1, 0)


@case("decision_pending")
def _decision_pending(data):                       # the second card of the draw comes first (FD-2.A)
    return data, played(Table(data).state, Draw(0, 0)), Take(0, 0)


@case("no_actions_left")
def _no_actions_left(data):
    return data, edited(data, Table(data).state, lambda s: s.update(actions_left=0)), Draw(0, 0)


@case("actions_left")
def _actions_left(data):
    return data, Table(data).state, EndTurn(0)


@case("nothing_open")
def _nothing_open(data):
    return data, Table(data).state, Done(0)


@case("can_act")
def _can_act(data):
    return data, Table(data).state, Pass(0)


# ------------------------------------------------------------------------------------------------ drawing, taking

@case("no_such_pile")
def _no_such_pile(data):
    return data, Table(data).state, Draw(0, 2)


@case("pile_empty")
def _pile_empty(data):
    return data, Table(data).pile(1, 0).state, Draw(0, 1)


@case("no_such_column")
def _no_such_column(data):
    return data, Table(data).state, Take(0, 3)


@case("column_empty")
def _column_empty(data):
    return data, Table(data).column(0, 0).state, Take(0, 0)


@case("discard_empty")
def _discard_empty(data):
    def under_the_draw_pile(s):
        s["draw_piles"][0][:0], s["discard"] = s["discard"], []
    return data, edited(data, Table(data).state, under_the_draw_pile), Take(0, None)


@case("own_discard")
def _own_discard(data):                            # AMB-FD-10 read the other way
    data = with_rules(data, take_own_discard=False)
    return data, edited(data, Table(data).state, lambda s: s.update(fresh_discards=s["discard"][-1:])), \
        Take(0, None)


@case("draws_left")
def _draws_left(data):
    return data, played(Table(data).state, Draw(0, 0)), Done(0)


@case("takes_left")
def _takes_left(data):
    data = with_rules(data, take_count=2)
    return data, played(Table(data).state, Take(0, 0)), Done(0)


# ------------------------------------------------------------------------------------------------ playing, paying

@case("not_in_hand")
def _not_in_hand(data):
    return data, Table(data).hand(0, ["autumn-1"]).state, Play(0, face("summer-1"), 0)


@case("no_such_corner")
def _no_such_corner(data):
    return data, Table(data).hand(0, ["summer-1", "autumn-1"]).state, Play(0, face("summer-1"), 4)


@case("season_elsewhere")
def _season_elsewhere(data):                       # FD-3.2: summer has corner 0
    state = Table(data).corner(0, 0, ["summer-1"]).hand(0, ["summer-2", "autumn-1"]).state
    return data, state, Play(0, face("summer-2"), 1)


@case("wrong_season")
def _wrong_season(data):
    state = Table(data).corner(0, 0, ["summer-1"]).hand(0, ["autumn-2", "autumn-1"]).state
    return data, state, Play(0, face("autumn-2"), 0)


@case("duplicate_value")
def _duplicate_value(data):                        # FD-3.3
    state = Table(data).corner(0, 0, ["summer-3"]).hand(0, ["summer-3", "autumn-1"]).state
    return data, state, Play(0, face("summer-3"), 0)


@case("cannot_pay")
def _cannot_pay(data):                             # FD-4: a placed card cannot pay for itself
    return data, Table(data).hand(0, ["summer-1"]).state, Play(0, face("summer-1"), 0)


@case("paying")
def _paying(data):
    state = Table(data).hand(0, ["summer-5", "autumn-2", "winter-3", "autumn-1", "spring-1"]).state
    played(state, Play(0, face("summer-5"), 0), Play(0, face("autumn-2"), 1), Pay(0, face("winter-3")))
    return data, state, Play(0, face("autumn-1"), 1)


@case("one_card_per_play")
def _one_card_per_play(data):                      # AMB-FD-04 read the other way
    data = with_rules(data, play_many_cards=False)
    state = played(Table(data).hand(0, ["summer-5", "autumn-2", "winter-3"]).state, Play(0, face("summer-5"), 0))
    return data, state, Play(0, face("autumn-2"), 1)


@case("payment_owed")
def _payment_owed(data):
    state = played(Table(data).hand(0, ["summer-5", "autumn-2"]).state, Play(0, face("summer-5"), 0))
    return data, state, Done(0)


@case("nothing_owed")
def _nothing_owed(data):                           # the frog's discount pays the one card (FD-6.3)
    state = Table(data).hand(0, ["summer-5", "autumn-2"]).owner("frog", 0).state
    return data, played(state, Play(0, face("summer-5"), 0)), Pay(0, face("autumn-2"))


# ------------------------------------------------------------------------------------------------ wilds

def _wild_table(data) -> Table:
    """Seat 0 with summer 1 in corner 0 and two more summer 1s in hand: what a wild costs (FD-2.C)."""
    return Table(data).corner(0, 0, ["summer-1"]).hand(0, ["summer-1", "summer-1"])


def _awaiting_wild(data) -> GameState:
    return played(_wild_table(data).state, TakeWild(0, (face("summer-1"), face("summer-1"))))


@case("no_wild_in_supply")
def _no_wild_in_supply(data):                      # seat 1 holds the four wilds of a 2-player game
    table = _wild_table(data)
    for k, season in enumerate(("spring", "summer", "autumn", "winter")):
        table.corner(1, k, [f"{season}-6"], wild=5)
    return data, table.state, TakeWild(0, (face("summer-1"), face("summer-1")))


@case("wild_card_count")
def _wild_card_count(data):
    return data, _wild_table(data).state, TakeWild(0, (face("summer-1"),))


@case("not_on_board")
def _not_on_board(data):
    state = Table(data).corner(0, 0, ["summer-1"]).hand(0, ["summer-1", "autumn-2"]).state
    return data, state, TakeWild(0, (face("autumn-2"), face("summer-1")))


@case("no_wild_place")
def _no_wild_place(data):                          # a complete set and three empty corners (FD-5.1)
    state = (Table(data).corner(0, 0, [f"summer-{v}" for v in range(1, 7)])
             .hand(0, ["summer-1", "summer-2"]).state)
    return data, state, TakeWild(0, (face("summer-1"), face("summer-2")))


@case("bad_value")
def _bad_value(data):
    return data, _awaiting_wild(data), PutWild(0, 0, 7)


@case("corner_has_wild")
def _corner_has_wild(data):
    state = (Table(data).corner(0, 0, ["summer-1"], wild=3).corner(0, 1, ["autumn-1"])
             .hand(0, ["summer-1", "autumn-1"]).state)
    return data, played(state, TakeWild(0, (face("autumn-1"), face("summer-1")))), PutWild(0, 0, 4)


@case("empty_corner")
def _empty_corner(data):                           # wild_needs_real_card (AMB-FD-05)
    return data, _awaiting_wild(data), PutWild(0, 2, 3)


@case("wild_left_corner")
def _wild_left_corner(data):                       # AMB-FD-11 read the other way: summer 3 displaces the wild
    data = with_rules(data, displaced_wild_to="other_corner")
    state = (Table(data).corner(0, 0, ["summer-1", "summer-2"], wild=3).corner(0, 1, ["autumn-1"])
             .hand(0, ["summer-3", "winter-5"]).state)
    return data, played(state, Play(0, face("summer-3"), 0)), PutWild(0, 0, 4)


# ------------------------------------------------------------------------------------------------ end of turn

def _turn_end(data, hand: list[str]) -> GameState:
    return edited(data, Table(data).hand(0, hand).state, lambda s: s.update(actions_left=0))


@case("hand_limit")
def _hand_limit(data):                             # FD-8: six cards, a limit of five
    return data, _turn_end(data, [f"spring-{v}" for v in range(1, 7)]), EndTurn(0)


@case("within_hand_limit")
def _within_hand_limit(data):
    return data, _turn_end(data, ["spring-1", "spring-2"]), Discard(0, face("spring-1"))


# ------------------------------------------------------------------------------------------------ feathers

def _two_feathers(data) -> GameState:
    def one_more(s):
        s["players"][0]["feathers"] += 1
        s["feather_supply"] -= 1
    return edited(data, Table(data).state, one_more)


@case("no_feathers")
def _no_feathers(data):
    def spent(s):
        s["players"][0]["feathers"] = 0
        s["feather_supply"] += 1
    return data, edited(data, Table(data).state, spent), Feather(0, "frog")


@case("power_waiting")
def _power_waiting(data):                          # one lent power at a time (FD-2.E)
    return data, played(_two_feathers(data), Feather(0, "frog")), Feather(0, "squirrel")


@case("own_animal")
def _own_animal(data):
    return data, Table(data).owner("frog", 0).state, Feather(0, "frog")


@case("otter_feather_off")
def _otter_feather_off(data):                      # AMB-FD-09 read the other way
    data = with_rules(data, feather_otter_raises_limit=False)
    return data, Table(data).state, Feather(0, "otter")


@case("limit_raised")
def _limit_raised(data):
    return data, played(_two_feathers(data), Feather(0, "otter")), Feather(0, "otter")


# ------------------------------------------------------------------------------------------------ the tests

def test_every_reason_code_has_its_table_here_and_none_is_a_catch_all():
    assert set(CASES) == set(REFUSALS) == set(FIFTEEN_DAYS.refusal_reasons)
    assert "illegal" not in REFUSALS


@pytest.mark.parametrize("code", sorted(CASES))
def test_a_refused_action_names_its_cause(fd_data, code):
    data, state, action = CASES[code](fd_data)
    assert action not in state.legal_actions()
    reply = FIFTEEN_DAYS.handle(data, "legal", {"snapshot": state.to_snapshot(), "action": action.to_json()})
    assert reply["legal"] is False and reply["reason"] == code, reply
    assert reply["message"] and "illegal" not in reply["message"]


def test_a_refusal_without_a_sentence_of_its_own_says_its_cause(fd_data):
    data, state, action = CASES["pile_empty"](fd_data)
    with pytest.raises(IllegalAction) as refused:
        state.check(action)
    assert str(refused.value) == f"{action} is not allowed now: {REFUSALS['pile_empty']}"


def candidates(state: GameState) -> list[Any]:
    """Actions of every kind for the seat to move and the next one: each draw pile, market column and the discard
    pile (and one beyond), the faces in hand (and one that is not) into every corner (and one beyond), paid and
    discarded, wilds of two hand faces, a wild into every place, every feather, done, end and pass."""
    t = state.t
    out: list[Any] = []
    for p in (state.active, (state.active + 1) % state.players):
        faces = sorted({t.face[c] for c in state.seats[p].hand} | {t.faces[0]})
        out += [Draw(p, i) for i in range(3)] + [Refill(p, i) for i in range(3)]
        out += [Take(p, i) for i in range(4)] + [Take(p, None), Done(p), EndTurn(p), Pass(p)]
        out += [Play(p, f, k) for f in faces for k in range(5)]
        out += [Pay(p, f) for f in faces] + [Discard(p, f) for f in faces]
        out += [TakeWild(p, pair) for pair in combinations(faces, 2)] + [TakeWild(p, (faces[0],))]
        out += [PutWild(p, k, v) for k in range(5) for v in range(8)]
        out += [Feather(p, animal) for animal in t.animals]
    return out


@pytest.mark.parametrize("flags", [{}, {"play_many_cards": False, "take_own_discard": False,
                                        "feather_otter_raises_limit": False, "displaced_wild_to": "other_corner"}],
                         ids=["shipped flags", "other readings"])
def test_in_random_games_every_action_not_legal_is_refused_with_a_code(fd_data, flags):
    data = with_rules(fd_data, **flags)
    seen: set[str] = set()
    for seed in (1, 2):
        state = FIFTEEN_DAYS.new_game(data, 3, seed=seed)
        chooser = chooser_for(seed)
        for step in range(2000):
            legal = state.legal_actions()
            if step % 3 == 0:
                for action in candidates(state):
                    if action in legal:
                        continue
                    with pytest.raises(IllegalAction) as refused:
                        state.check(action)
                    assert refused.value.reason in REFUSALS, (action, refused.value)
                    seen.add(refused.value.reason)
            if not legal:
                break
            state.apply(legal[chooser.randbelow(len(legal))])
    assert len(seen) >= len(REFUSALS) // 2, sorted(set(REFUSALS) - seen)
