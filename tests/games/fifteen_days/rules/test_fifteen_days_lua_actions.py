"""Actions as the Lua mod writes them: Lua cannot hold null, so "no column" (take from the discard pile) comes
as false (docs/protocol.md, empty slots), and the engine reads it as the discard take."""

from __future__ import annotations

import pytest

from bridge.catalog import load_game
from bridge.rules.errors import InvalidAction
from bridge.rules.fifteen_days.actions import Action, Take
from bridge.rules.fifteen_days.game import FIFTEEN_DAYS
from bridge.rules.fifteen_days.state import new_game


def test_a_take_with_column_false_is_the_take_from_the_discard_pile():
    assert Action.from_json({"action": "take", "player": 1, "column": False}) == Take(1, None)


def test_the_bridge_rules_a_discard_take_sent_with_column_false():
    data = load_game("fifteen-days")
    state = new_game(data, 2, seed=3)
    top = state.t.ids[state.discard[-1]]
    reply = FIFTEEN_DAYS.handle(data, "legal", {"snapshot": state.to_snapshot(),
                                                "action": {"action": "take", "player": state.active, "column": False}})
    assert reply["legal"] is True
    assert top in reply["snapshot"]["players"][state.active]["hand"]
    taken = [e for e in reply["events"] if e["event"] == "card_taken"]
    assert [(e["column"], e["card"]) for e in taken] == [(None, top)]


@pytest.mark.parametrize("column", [True, "x", 1.5])
def test_other_non_integer_columns_are_still_refused(column):
    with pytest.raises(InvalidAction, match="column must be an integer"):
        Action.from_json({"action": "take", "player": 0, "column": column})
