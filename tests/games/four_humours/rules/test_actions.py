"""Actions are values whose text and JSON forms round-trip, and malformed ones are refused by name."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.rules.errors import InvalidAction
from bridge.rules.four_humours.actions import Action, Choose, Pass, Place, Redraw, Target
from bridge.rules.four_humours.records import HUMOURS

ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-0123456789", min_size=1, max_size=12)
actions = st.one_of(
    st.builds(Place, st.integers(0, 5), st.sampled_from(HUMOURS),
              st.builds(Target, st.sampled_from(["scene", "party"]), ids, st.integers(0, 9))),
    st.builds(Pass, st.integers(0, 5)),
    st.builds(Redraw, st.integers(0, 5)),
    st.builds(Choose, st.integers(0, 5), ids),
)


@given(actions)
def test_text_form_round_trips(action):
    assert Action.from_text(str(action)) == action


@given(actions)
def test_json_form_round_trips(action):
    assert Action.from_json(action.to_json()) == action


def test_text_forms_read_like_the_rules():
    assert str(Place(0, "choleric", Target("scene", "mill", 2))) == "place 0 choleric scene:mill/2"
    assert str(Choose(3, "abbey")) == "choose 3 abbey"


@pytest.mark.parametrize(
    "text",
    ["", "place 0 bile scene:mill/2", "place 0 choleric mill/2", "place x choleric scene:mill/2",
     "pass", "jump 1", "place 0 choleric tavern:mill/1"],
)
def test_malformed_text_is_an_invalid_action(text):
    with pytest.raises(InvalidAction):
        Action.from_text(text)


@pytest.mark.parametrize(
    "value",
    [[], {"action": "place", "player": 0, "humour": "choleric"}, {"action": "pass", "player": True},
     {"action": "choose", "player": 1}, {"action": "dance", "player": 0}],
)
def test_malformed_json_is_an_invalid_action(value):
    with pytest.raises(InvalidAction):
        Action.from_json(value)
