"""A 15 Days bot seat whose decision the bridge refuses, on a hand-made table (tests/games/fifteen_days/mod/handmade.py)
where the test answers the mod's requests as the bridge would: the mod moves the bot's cards where a player
would drop them and asks `legal` with them counted in the bot's hand; a refusal puts them back in its hand, the
bot is asked once more with another seed, and a second refusal switches the seat's bot off, with a message to
everyone (docs/bots-at-the-table.md). The moves a bot makes that the bridge allows are played end to end with a
real bridge by tests/games/fifteen_days/e2e/test_fifteen_days_bots.py."""

from __future__ import annotations

from tests.games.fifteen_days.mod.handmade import table
from tests.mod.handtable import answer, connect
from tools.headless import Table

SEED_WHERE_RED_BEGINS = 5
REFUSAL = {"legal": False, "reason": "wrong_season", "message": "corner 0 is the spring corner (FD-3.2)"}


def _still(t: Table) -> bool:
    return t.settled and not any(o.in_motion for o in t.objects)


def _red_to_play() -> Table:
    """White seated, an easy bot given to Red with its seat button, Setup pressed: Red (the bot) begins."""
    t = table(["White"], seed=SEED_WHERE_RED_BEGINS)
    connect(t)
    t.click("bot_Red", "White")
    t.click("setupButton", "White")
    assert t.run_until(lambda: t.ui_value("turnStatus") == "Red to play" and _still(t), max_seconds=20)
    return t


def _requests(t: Table, kind: str) -> list[dict]:
    return [m["body"] for m in t.sent_custom if m["type"] == kind]


def _bot_asks(t: Table, count: int) -> dict:
    assert t.run_until(lambda: len(_requests(t, "bot_move")) == count, max_seconds=5)
    return _requests(t, "bot_move")[-1]


def _face(card) -> dict:
    m = card.memo_json()
    return {"season": m["season"], "value": m["value"]}


def _on_point(t: Table, card, colour: str, corner: int, value: int) -> bool:
    board = next(o for o in t.objects if "fd-board" in o.tags and o.memo_json()["owner"] == colour)
    for i, sp in enumerate(board.snap_points):
        if f"fd-corner:{corner}" in sp.tags and f"fd-value:{value}" in sp.tags:
            p = board.snap_world(i)
            return ((p.x - card.position.x) ** 2 + (p.z - card.position.z) ** 2) ** 0.5 < 0.6
    raise AssertionError(f"no card point {corner}/{value}")


def test_a_refused_play_goes_back_to_the_bots_hand_then_the_bot_is_asked_again_then_switched_off():
    with _red_to_play() as t:
        card = sorted(t.hand("Red"), key=lambda o: o.guid)[0]
        face = _face(card)
        play = {"action": "play", "player": 1, "card": face, "corner": 1}
        first = _bot_asks(t, 1)
        assert first["level"] == "easy" and first["snapshot"]["active"] == 1
        since = len(t.broadcasts)
        answer(t, "bot_move", {"player": 1, "level": "easy", "action": play})
        assert (f"Red (bot, easy) plays the {face['season']} {face['value']} into corner 2.", None) \
            in t.broadcasts[since:]
        # the card is moved onto the card point as a player drops it, then asked about, counted in Red's hand
        assert t.run_until(lambda: _requests(t, "legal"), max_seconds=5)
        asked = _requests(t, "legal")[-1]
        assert asked["action"] == play
        assert asked["snapshot"]["players"][1]["hand"][0] == card.memo_json()["card"]
        assert len(asked["snapshot"]["players"][1]["hand"]) == 2
        assert _on_point(t, card, "Red", 1, face["value"])
        answer(t, "legal", REFUSAL)
        assert t.run_until(lambda: _still(t) and card in t.hand("Red"), max_seconds=5)

        # asked once more, with another seed; refused again: back in the hand, and the seat's bot is off
        second = _bot_asks(t, 2)
        assert second["seed"] != first["seed"] and second["snapshot"]["players"] == first["snapshot"]["players"]
        answer(t, "bot_move", {"player": 1, "level": "easy", "action": play})
        assert t.run_until(lambda: len(_requests(t, "legal")) == 2, max_seconds=5)
        answer(t, "legal", REFUSAL)
        assert t.run_until(lambda: _still(t) and card in t.hand("Red"), max_seconds=5)
        told = [m for m, c in t.broadcasts if c is None]
        assert any(m.startswith("Red's bot is off: the rules refused its move twice") for m in told), told
        assert t.ui_value("bot_Red") == "Red: no bot" and t.ui_value("turnStatus") == "Red to play"
        t.advance(2)
        assert len(_requests(t, "bot_move")) == 2


def test_a_refused_wild_takes_both_offered_cards_back_to_the_bots_hand():
    with _red_to_play() as t:
        cards = sorted(t.hand("Red"), key=lambda o: o.guid)
        faces = [_face(c) for c in cards]
        wild = {"action": "wild", "player": 1, "cards": faces}
        _bot_asks(t, 1)
        answer(t, "bot_move", {"player": 1, "level": "easy", "action": wild})
        # the two cards are dropped on the wild supply one after the other; the second sends the decision
        assert t.run_until(lambda: _requests(t, "legal"), max_seconds=8)
        asked = _requests(t, "legal")[-1]
        assert asked["action"] == wild
        assert sorted(asked["snapshot"]["players"][1]["hand"]) == sorted(c.memo_json()["card"] for c in cards)
        supply = t.object("wsup")
        assert all(abs(c.position.x - supply.position.x) < 1.5 and abs(c.position.z - supply.position.z) < 2
                   for c in cards)
        answer(t, "legal", REFUSAL)
        assert t.run_until(lambda: _still(t) and all(c in t.hand("Red") for c in cards), max_seconds=5)
