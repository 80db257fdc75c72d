"""What each seat keeps for legal_actions, updated move by move, always says what the hand and corners as they
are say: the board (its plays by face, as the rules read from the corners; wild places and complete sets, as a
board made afresh), and the hand's face counts, the faces on the board and the hand cards that match them;
under the default rules and the flags that change where cards and wilds may go."""

from __future__ import annotations

import dataclasses

import pytest

from bridge.rules.fifteen_days import FIFTEEN_DAYS
from bridge.rules.fifteen_days.actions import Play
from bridge.rules.fifteen_days.state import Board, GameState, Seat, placement_cost
from bridge.rules.playout import play_random_game


def expected_plays(state: GameState, p: int, i: int) -> tuple:
    """Face number ``i``'s plays on seat ``p``'s board read from the rules: into its season's corner unless that
    holds its value, else into every corner without a season (FD-3.2); those costing 1 (FD-4)."""
    seat, face = state.seats[p], state.t.faces[i]
    own = [k for k, corner in enumerate(seat.corners) if corner.season == face.season]
    if own:
        targets = [] if face.value in seat.corners[own[0]].cards else own
    else:
        targets = [k for k, corner in enumerate(seat.corners) if corner.season is None]
    every = tuple(Play(p, face, k) for k in targets)
    ones = tuple(Play(p, face, k) for k in targets
                 if placement_cost(seat.directions[k], seat.corners[k], face.value) == 1)
    return every, ones


def fresh_view(state: GameState, p: int) -> tuple:
    board = Board(state.t, state.rules, state.seats[p], p)
    plays = tuple(expected_plays(state, p, i) for i in range(len(state.t.faces)))
    return plays, board.wild_spot, board.complete


def view_of(board: Board) -> tuple:
    return tuple(board.plays(i) for i in range(len(board.made))), board.wild_spot, board.complete


def hand_view(seat: Seat) -> tuple:
    return tuple(seat.hand), tuple(seat.count), tuple(seat.faces), tuple(seat.on_board), seat.matched


def fresh_hand_view(state: GameState, p: int) -> tuple:
    """What a seat keeps of its hand and board, read afresh: copies of each face in hand, the faces in hand,
    the faces with a real card on the board, and how many hand cards have their face on the board."""
    seat, face_id = state.seats[p], state.t.face_id
    count = [0] * len(state.t.faces)
    for card in seat.hand:
        count[face_id[card]] += 1
    on_board = [False] * len(state.t.faces)
    for corner in seat.corners:
        for card in corner.cards.values():
            on_board[face_id[card]] = True
    matched = sum(1 for card in seat.hand if on_board[face_id[card]])
    return (tuple(seat.hand), tuple(count), tuple(i for i, n in enumerate(count) if n), tuple(on_board),
            matched)


@pytest.mark.parametrize("flags", [{}, {"wild_needs_real_card": False}, {"wilds_count_for_animals": True}],
                         ids=lambda f: next(iter(f), "default"))
def test_the_kept_board_matches_one_made_afresh_after_every_move(fd_data, flags):
    data = dataclasses.replace(fd_data, rules=dataclasses.replace(fd_data.rules, **flags))
    checked = 0

    def check(state, action, _events):
        nonlocal checked
        for p, seat in enumerate(state.seats):
            assert hand_view(seat) == fresh_hand_view(state, p), f"seat {p} after {action}"
            if seat.board is not None:
                assert view_of(seat.board) == fresh_view(state, p), f"seat {p} after {action}"
                checked += 1
        assert state.legal_actions() == state.copy().legal_actions(), str(action)

    for players, seed in ((4, 11), (3, 12), (2, 13)):
        play_random_game(FIFTEEN_DAYS, data, players, seed=seed, on_step=check)
    assert checked > 300
