"""The three readings of rules spec §3.4 the rule text leaves open, each a flag of game.toml ``[rules]``, at its
default and at its alternative:

- AMB-FD-11 ``displaced_wild_to`` (FD-5.3): a wild displaced by its real card moves to any legal missing value,
  the corner it left included ("any_corner"), or to another corner only ("other_corner"); with no place it
  goes back to the supply (FD-E13).
- AMB-FD-12 ``steal_check`` (FD-6.2): the equal-count steal is checked for the season whose count just changed
  ("changed_season"), or for every season after any change ("every_season").
- AMB-FD-13 ``wild_tiebreak`` (FD-9.4): the last tie-break counts the wilds played during the game ("played":
  counted when placed, a displaced wild that went back to the supply still counts), or the wilds on the board
  at the end ("on_board") (FD-E18).

Seats are 0-based (the spec's P1 is seat 0); corners 0-1 are ascending, 2-3 descending (the sample boards).
"""

from __future__ import annotations

import copy

import pytest

from bridge.errors import DataError
from bridge.paths import assets_dir
from bridge.rules.errors import SnapshotError
from bridge.rules.fifteen_days import events as ev
from bridge.rules.fifteen_days.actions import Pay, Play, PutWild, TakeWild
from bridge.rules.fifteen_days.data import parse_fifteen_days
from bridge.rules.fifteen_days.game import FIFTEEN_DAYS
from bridge.rules.fifteen_days.state import GameState
from tests.games.fifteen_days.rules.tables import Table, face
from tests.games.fifteen_days.rules.test_data import read_documents
from tests.games.fifteen_days.rules.test_rule_flags import with_rules

SUMMER_WITHOUT_4 = ["summer-2", "summer-3", "summer-5", "summer-6"]


def of(events, kind):
    return [e for e in events if isinstance(e, kind)]


def spots(state):
    """The (corner, value) places the wild awaiting one may take."""
    return {(a.corner, a.value) for a in state.legal_actions() if isinstance(a, PutWild)}


def pay_all(state, seat):
    out = []
    while state.pending == "play" and state.owed() > 0:
        out += state.apply(Pay(seat, state.t.face[state.seats[seat].hand[0]]))
    return out


# ------------------------------------------------------------------------------------------------ the flags

def test_the_shipped_flags_are_the_spec_defaults(fd_data):
    rules = fd_data.rules
    assert (rules.displaced_wild_to, rules.steal_check, rules.wild_tiebreak) == (
        "any_corner", "changed_season", "played")


@pytest.mark.parametrize("flag, value, allowed", [
    ("displaced_wild_to", "any_season", "any_corner, other_corner"),
    ("steal_check", "always", "changed_season, every_season"),
    ("wild_tiebreak", "most", "played, on_board"),
])
def test_a_reading_outside_the_allowed_ones_is_one_line_naming_the_flag(flag, value, allowed):
    docs = read_documents(assets_dir() / "fifteen_days")
    for other in allowed.split(", "):        # every allowed reading parses
        docs["game.toml"]["rules"][flag] = other
        assert getattr(parse_fifteen_days(copy.deepcopy(docs)).rules, flag) == other
    docs["game.toml"]["rules"][flag] = value
    with pytest.raises(DataError) as refused:
        parse_fifteen_days(docs)
    assert str(refused.value) == f'game.toml: [rules]: {flag}: "{value}" is not a {flag} rule ({allowed})'


# ------------------------------------------------------------------------------------------------ AMB-FD-11

def _fd_e13(data, *, summer=SUMMER_WITHOUT_4, winter=("winter-3",)):
    """FD-E13: asc Summer {2,3,W4,5,6} in corner 0, Winter in corner 3, Autumn {5, W2} in corner 1 (a season
    that already has its wild); seat 0 plays the real Summer 4."""
    table = Table(data).corner(0, 0, summer, wild=4).corner(0, 1, ["autumn-5"], wild=2)
    if winter:
        table.corner(0, 3, winter)
    state = table.hand(0, ["summer-4", "spring-1", "spring-2"]).state
    events = state.apply(Play(0, face("summer-4"), 0))
    return state, events


def test_FD_E13_the_displaced_wild_may_take_summer_1_in_the_corner_it_left(fd_data):
    state, events = _fd_e13(fd_data)
    played = of(events, ev.CardPlayed)[0]
    assert played.cost == 2 and played.replaced_wild          # 5 and 6 are higher
    assert state.pending == "wild" and state.seats[0].corners[0].wild is None
    # Summer 1 in its own corner, or a missing value of another season with a real card and no wild; not the
    # autumn corner (it has a wild) nor the empty corner 2 (no real card).
    assert spots(state) == {(0, 1)} | {(3, v) for v in (1, 2, 4, 5, 6)}
    events = state.apply(PutWild(0, 0, 1))
    assert of(events, ev.WildPlaced) == [ev.WildPlaced(0, 0, 1, 0)]
    assert state.seats[0].corners[0].wild == 1 and state.pending == "play"
    assert state.corner_complete(state.seats[0].corners[0])


def test_FD_E13_with_other_corner_the_wild_may_not_go_back_to_its_corner(fd_data):
    state, _ = _fd_e13(with_rules(fd_data, displaced_wild_to="other_corner"))
    assert spots(state) == {(3, v) for v in (1, 2, 4, 5, 6)}
    assert PutWild(0, 0, 1) not in state.legal_actions()


def test_FD_E13_with_other_corner_and_no_other_place_the_wild_returns_though_summer_1_is_open(fd_data):
    data = with_rules(fd_data, displaced_wild_to="other_corner")
    before = Table(data).corner(0, 0, SUMMER_WITHOUT_4, wild=4).corner(0, 1, ["autumn-5"], wild=2).state
    state, events = _fd_e13(data, winter=())
    assert of(events, ev.WildReturned) == [ev.WildReturned(0, 0)]
    assert state.wild_supply == before.wild_supply + 1 and state.pending == "play"
    assert state.seats[0].corners[0].values() == {2, 3, 4, 5, 6}


def test_FD_E13_with_no_legal_spot_anywhere_the_wild_goes_back_to_the_supply(fd_data):
    state, events = _fd_e13(fd_data, summer=["summer-1", *SUMMER_WITHOUT_4], winter=())
    assert of(events, ev.WildReturned) == [ev.WildReturned(0, 0)]
    assert state.pending == "play" and not spots(state)
    assert state.seats[0].wilds() == 1                         # the autumn wild stays


# ------------------------------------------------------------------------------------------------ AMB-FD-12

def _tied_autumn(data):
    """Seat 0 owns the squirrel with 3 autumn; seat 1, to play, has 3 autumn too (level, not yet checked)."""
    return (Table(data, active=1).corner(0, 1, ["autumn-1", "autumn-2", "autumn-3"]).owner("squirrel", 0)
            .corner(1, 1, ["autumn-1", "autumn-2", "autumn-3"]).corner(1, 2, ["winter-5"])
            .hand(1, ["winter-4", "autumn-4", "spring-1", "spring-2"]))


def test_changed_season_a_level_player_does_not_take_the_animal_with_an_unrelated_card(fd_data):
    state = _tied_autumn(fd_data).state
    events = state.apply(Play(1, face("winter-4"), 2))
    assert not of(events, ev.AnimalTaken) and state.owner["squirrel"] == 0
    events = state.apply(Play(1, face("autumn-4"), 1))          # a card of that season does (FD-E9)
    assert of(events, ev.AnimalTaken) == [ev.AnimalTaken(1, "squirrel", 0, 4)]


def test_every_season_a_level_player_takes_the_animal_with_any_card(fd_data):
    table = _tied_autumn(with_rules(fd_data, steal_check="every_season"))
    state = table.state
    feathers = state.seats[0].feathers
    events = state.apply(Play(1, face("winter-4"), 2))
    assert of(events, ev.AnimalTaken) == [ev.AnimalTaken(1, "squirrel", 0, 3)]
    assert state.owner["squirrel"] == 1 and state.seats[0].feathers == feathers + 1
    pay_all(state, 1)
    # ... and back: seat 0, level at 3, takes it on its next play of any season.
    table.state = state
    state.active, state.pending, state.actions_left = 0, None, 2
    table._settle()
    state = table.corner(0, 0, ["summer-1"]).hand(0, ["summer-2", "spring-3"]).state
    events = state.apply(Play(0, face("summer-2"), 0))
    assert of(events, ev.AnimalTaken) == [ev.AnimalTaken(0, "squirrel", 1, 3)]


def test_every_season_checks_after_a_wild_is_placed_too(fd_data):
    data = with_rules(fd_data, steal_check="every_season")
    state = _tied_autumn(data).hand(1, ["winter-5", "autumn-1"]).state
    state.apply(TakeWild(1, (face("autumn-1"), face("winter-5"))))
    assert state.owner["squirrel"] == 0
    events = state.apply(PutWild(1, 2, 1))
    assert of(events, ev.AnimalTaken) == [ev.AnimalTaken(1, "squirrel", 0, 3)]
    same = _tied_autumn(fd_data).hand(1, ["winter-5", "autumn-1"]).state
    same.apply(TakeWild(1, (face("autumn-1"), face("winter-5"))))
    assert not of(same.apply(PutWild(1, 2, 1)), ev.AnimalTaken) and same.owner["squirrel"] == 0


# ------------------------------------------------------------------------------------------------ AMB-FD-13

def _take_and_place_wild(state, seat, corner, value):
    """Take a wild (the first TakeWild offered) and place it at ``corner`` as ``value``; the events."""
    take = next(a for a in state.legal_actions() if isinstance(a, TakeWild))
    return state.apply(take) + state.apply(PutWild(seat, corner, value))


def test_a_wild_counts_as_played_when_placed_and_not_again_when_it_moves(fd_data):
    table = (Table(fd_data).corner(0, 0, SUMMER_WITHOUT_4).corner(0, 3, ["winter-3"])
             .hand(0, ["summer-2", "winter-3"]))
    state = table.state
    assert state.seats[0].wilds_played == 0
    _take_and_place_wild(state, 0, 0, 4)
    assert state.seats[0].wilds_played == 1 and state.to_snapshot()["players"][0]["wilds_played"] == 1
    table.state = state
    state = table.hand(0, ["summer-4", "spring-1", "spring-2"]).state
    state.apply(Play(0, face("summer-4"), 0))
    state.apply(PutWild(0, 3, 1))                              # the displaced wild moves: the same play
    assert state.seats[0].wilds_played == 1


def test_a_displaced_wild_that_went_back_to_the_supply_still_counts_as_played(fd_data):
    def after_return(data):
        state, events = _fd_e13(data, summer=["summer-1", *SUMMER_WITHOUT_4], winter=())
        assert of(events, ev.WildReturned)
        return state

    state = after_return(fd_data)
    assert state.seats[0].wilds() == 1 and state.seats[0].wilds_played == 2    # autumn's, and the returned one
    assert state.standing(0).wilds == 2
    assert after_return(with_rules(fd_data, wild_tiebreak="on_board")).standing(0).wilds == 1


def _equal_scores(data, hands):
    """FD-E18: both seats score 6 - 3 x 2 + 2 = 2 (Summer 1-6, three empty corners, one animal: seat 0 takes the
    frog with its Summer 4, seat 1 is given the rabbit); seat 0 played a wild that a real card displaced back to
    the supply, so neither has a wild on the board."""
    table = (Table(data).corner(0, 0, ["summer-1", *SUMMER_WITHOUT_4], wild=4)
             .hand(0, ["summer-4", "winter-1", "winter-2"]))
    state = table.state
    events = state.apply(Play(0, face("summer-4"), 0)) + pay_all(state, 0)
    assert of(events, ev.WildReturned)
    table.state = state
    table.corner(1, 0, [f"summer-{v}" for v in range(1, 7)]).owner("rabbit", 1)
    table.hand(0, hands[0]).hand(1, hands[1])
    return FIFTEEN_DAYS.score(data, table.state)


def test_FD_E18_equal_scores_the_larger_hand_wins(fd_data):
    result = _equal_scores(fd_data, (["spring-1", "spring-2", "spring-3"], ["spring-4", "spring-5"]))
    assert [s["score"] for s in result["standings"]] == [2, 2]
    assert result["leaders"] == [0] and result["decided_by"] == "hand"
    # Hands come before wilds: the larger hand wins though the other seat played more wilds.
    result = _equal_scores(fd_data, (["spring-1", "spring-2"], ["spring-4", "spring-5", "spring-3"]))
    assert [s["wilds"] for s in result["standings"]] == [1, 0]
    assert result["leaders"] == [1] and result["decided_by"] == "hand"


def test_FD_E18_equal_hands_the_wilds_played_decide_a_returned_wild_included(fd_data):
    result = _equal_scores(fd_data, (["spring-1", "spring-2"], ["spring-4", "spring-5"]))
    assert [(s["score"], s["hand"], s["wilds"]) for s in result["standings"]] == [(2, 2, 1), (2, 2, 0)]
    assert result["leaders"] == [0] and result["decided_by"] == "wilds"


def test_FD_E18_on_board_the_returned_wild_does_not_count_and_the_tie_is_shared(fd_data):
    data = with_rules(fd_data, wild_tiebreak="on_board")
    result = _equal_scores(data, (["spring-1", "spring-2"], ["spring-4", "spring-5"]))
    assert [s["wilds"] for s in result["standings"]] == [0, 0]
    assert result["leaders"] == [0, 1] and result["decided_by"] == "shared"


# ------------------------------------------------------------------------------------------------ the count kept

def test_wilds_played_round_trips_through_the_snapshot(fd_data):
    state = Table(fd_data).corner(0, 0, SUMMER_WITHOUT_4, wild=4).state
    state.seats[1].wilds_played = 3                            # wilds that went back to the supply
    snapshot = state.to_snapshot()
    assert [p["wilds_played"] for p in snapshot["players"]] == [1, 3]
    again = GameState.from_snapshot(fd_data, snapshot)
    assert [s.wilds_played for s in again.seats] == [1, 3] and again.to_snapshot() == snapshot


def test_an_older_snapshot_without_the_count_has_played_the_wilds_on_its_board(fd_data):
    state = Table(fd_data).corner(0, 0, SUMMER_WITHOUT_4, wild=4).corner(1, 2, ["winter-5"], wild=1).state
    snapshot = state.to_snapshot()
    for entry in snapshot["players"]:
        del entry["wilds_played"]
    assert [s.wilds_played for s in GameState.from_snapshot(fd_data, snapshot).seats] == [1, 1]
    # A displaced wild awaiting its place is off the board but was played.
    moving = Table(fd_data).corner(0, 0, SUMMER_WITHOUT_4, wild=4).corner(0, 3, ["winter-3"])
    state = moving.hand(0, ["summer-4", "spring-1", "spring-2"]).state
    state.apply(Play(0, face("summer-4"), 0))
    snapshot = state.to_snapshot()
    assert snapshot["pending"]["why"] == "move"
    for entry in snapshot["players"]:
        del entry["wilds_played"]
    assert [s.wilds_played for s in GameState.from_snapshot(fd_data, snapshot).seats] == [1, 0]


def test_a_count_below_the_wilds_a_player_has_out_is_refused_naming_where(fd_data):
    snapshot = Table(fd_data).corner(0, 0, SUMMER_WITHOUT_4, wild=4).state.to_snapshot()
    snapshot["players"][0]["wilds_played"] = 0
    with pytest.raises(SnapshotError) as refused:
        GameState.from_snapshot(fd_data, snapshot)
    assert refused.value.path == "players[0].wilds_played"
    snapshot["players"][0]["wilds_played"] = "one"
    with pytest.raises(SnapshotError) as refused:
        GameState.from_snapshot(fd_data, snapshot)
    assert refused.value.path == "players[0].wilds_played"


def test_copies_and_the_fast_paths_keep_the_count_as_apply_does(fd_data):
    state = (Table(fd_data).corner(0, 0, SUMMER_WITHOUT_4).corner(0, 3, ["winter-3"])
             .hand(0, ["summer-2", "winter-3"]).state)
    take = next(a for a in state.legal_actions() if isinstance(a, TakeWild))
    put = PutWild(0, 0, 4)
    quiet, trusted = state.copy(), state.copy()
    state.apply(take)
    state.apply(put)
    for action in (take, put):
        quiet.apply_quiet(action)
        trusted.apply_trusted(action)
    assert quiet.seats[0].wilds_played == trusted.seats[0].wilds_played == state.seats[0].wilds_played == 1
    assert quiet.to_snapshot() == trusted.to_snapshot() == state.to_snapshot()
    other = state.copy()
    other.seats[0].wilds_played += 1
    assert state.seats[0].wilds_played == 1 and other.copy().seats[0].wilds_played == 2


def test_the_rules_page_documents_the_three_readings():
    page = " ".join((assets_dir().parent / "docs" / "games" / "fifteen_days" / "rules.md")
                    .read_text(encoding="utf-8").split())
    for text in ("AMB-FD-11", "AMB-FD-12", "AMB-FD-13", "the corner it left included", '`"other_corner"`',
                 '`"every_season"`', '`"on_board"`'):
        assert text in page, text
    # The rule text and the list of engine rulings no longer tell FD-5.3 and FD-6.2 two ways.
    assert "a corner other than the one it left" not in page
