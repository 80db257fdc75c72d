"""End to end: taking a face-up card and drawing face down by dragging the card into one's hand.

A player who drags the top card of a market column or of the discard pile into their own hand takes it (FD-2.B),
and one who drags the top card of a draw pile there draws it (FD-2.A), exactly as the buttons do: the mod asks
the bridge with the same decision and applies its ruling, and the harness checks the table against the engine
after each. A drag the rules do not allow (not a column's top card, out of turn, no take left this turn) or one
dropped anywhere but the hand puts the card back where it was, and the player is told why.
"""

from __future__ import annotations

from bridge.rules.fifteen_days.actions import Draw, EndTurn, Take
from tests.games.fifteen_days.e2e.tableview import REMOVED, inside, physical, zone
from tests.games.fifteen_days.e2e.conftest import start as _start


def test_takes_and_draws_by_dragging_into_the_hand_are_ruled_like_the_buttons(games, save, data, repo_root):
    game = _start(games, save, data, repo_root, ("White", "Red"), seed=11)
    game.drag_takes = True
    wanted = {("fd-market-column", 0), ("fd-market-column", 1), ("fd-market-column", 2), ("fd-discard", None),
              ("fd-draw-pile", 0), ("fd-draw-pile", 1)}
    weights = {Take: 8.0, Draw: 8.0}
    for _ in range(150):
        if wanted <= set(game.drags) or game.over:
            break
        game.play(game.pick(weights))      # each checked against the engine's state after the same decision
    assert wanted <= set(game.drags), set(game.drags)
    # draw pile 0 is still the deck the cards were dealt from: its top card was grabbed out of the deck
    assert game.table.with_tag("fd-season-deck")
    assert game.table.errors == []


def _column_cards(game, column):
    z = zone(game.table, "fd-market-column", column)
    cards = [o for o in game.table.with_tag("fd-season") if o.held_by is None and not o.has_tag(REMOVED)
             and inside(z, o)]
    return sorted(cards, key=lambda o: (round(o.position.y, 3), o.guid))


def _put_back(game, card, tag, index, colour, since, phrase, before):
    game.wait_ready()
    # back on a pile, the card may have joined the deck lying there (TTS: a card onto a deck joins it): it lies
    # where that deck lies, on its top
    lies = card.container if card.container is not None else card
    assert lies is card or lies.contents[0] is card
    assert inside(zone(game.table, tag, index), lies) and card not in game.table.hand(colour)
    assert physical(game.read()) == before
    told = game.messages_to(colour, since)
    assert any(phrase in m for m in told), told


def test_drags_the_rules_refuse_are_put_back_and_explained(games, save, data, repo_root):
    game = _start(games, save, data, repo_root, ("White", "Red", "Yellow"), seed=12)
    table = game.table
    state = game.state()
    active = game.colours[state.active]
    waiting = next(c for c in game.colours if c != active)
    before = physical(game.read())

    # a card under the top of a market column
    under = _column_cards(game, 1)[0]
    since = len(table.broadcasts)
    game.drag_to_hand(under, active)
    _put_back(game, under, "fd-market-column", 1, active, since,
              "Not allowed: only the top card of market column 2 can be taken.", before)
    assert _column_cards(game, 1)[0] is under

    # out of turn: the top of a column, the discard pile and a draw pile
    for tag, index, phrase in (("fd-market-column", 0, "Not allowed: it is player"),
                               ("fd-discard", None, "Not allowed: it is player"),
                               ("fd-draw-pile", 1, "Not allowed: it is player")):
        card = game.top_card(tag, index)
        since = len(table.broadcasts)
        game.drag_to_hand(card, waiting)
        _put_back(game, card, tag, index, waiting, since, phrase, before)
        assert game.top_card(tag, index) is card
    assert table.turns["turn_color"] == active

    # dropped anywhere but the hand: back, with how to take it
    card = game.top_card("fd-market-column", 2)
    since = len(table.broadcasts)
    table.pick_up(card, active)
    table.drop(card, active, position=zone(table, "fd-wild-supply").position)
    _put_back(game, card, "fd-market-column", 2, active, since,
              "To take a card from market column 3, drag it into your hand", before)

    # once both actions are made no take is allowed: the engine's reason is told, the card goes back
    for _ in range(40):
        state = game.state()
        if state.actions_left == 0 and state.pending is None and not state.is_over():
            break
        legal = [a for a in state.legal_actions() if not isinstance(a, EndTurn)]
        game.play(game.rng.choice(legal or state.legal_actions()))
    assert state.actions_left == 0 and state.pending is None
    colour = game.colours[state.active]
    action = Take(state.active, 0)
    reason = _why(game, action)
    before = physical(game.read())
    card = game.top_card("fd-market-column", 0)
    since = len(table.broadcasts)
    game.drag_to_hand(card, colour)
    _put_back(game, card, "fd-market-column", 0, colour, since, f"Not allowed: {reason}.", before)
    # and play goes on from the same table, a drag take among the next decisions
    game.drag_takes = True
    for _ in range(6):
        game.play(game.pick({Take: 20.0, Draw: 20.0}))
    assert game.drags


def _why(game, action):
    from bridge.rules.errors import IllegalAction
    try:
        game.state().check(action)
    except IllegalAction as exc:
        return str(exc)
    raise AssertionError(f"{action} is legal")
