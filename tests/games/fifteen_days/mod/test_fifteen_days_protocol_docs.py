"""The named JSON examples of docs/games/fifteen_days/protocol.md, run through the 15 Days engine: the setup
request deals a table the engine reads back, the refused requests on that table get the documented replies, and
every action example is an action the engine accepts."""

from __future__ import annotations

from bridge.rules.fifteen_days.actions import Action, Take
from bridge.rules.fifteen_days.game import FIFTEEN_DAYS
from bridge.rules.fifteen_days.state import GameState
from tests.games.fifteen_days.mod.test_fifteen_days_setup import _data
from tests.mod.luasrc import REPO_ROOT
from tests.test_docs_json import named_examples

DOC = REPO_ROOT / "docs" / "games" / "fifteen_days" / "protocol.md"


def test_the_setup_example_deals_a_table_the_engine_reads_back():
    examples = named_examples(DOC)
    data = _data()
    reply = FIFTEEN_DAYS.handle(data, "setup", examples["setup request"])
    state = GameState.from_snapshot(data, reply["snapshot"])
    assert len(state.seats) == 2 and reply["next"]["player"] == state.active


def test_every_action_example_is_an_engine_action_that_round_trips():
    examples = named_examples(DOC)
    actions = {name: body for name, body in examples.items() if name.endswith(" action")}
    assert set(actions) == {"draw action", "take action", "take discard action", "play action", "pay action",
                            "discard action", "wild action", "put-wild action", "feather action"}
    for name, body in actions.items():
        if name == "take discard action":
            # Lua's false for "no column" is the engine's null: the take from the discard pile
            assert Action.from_json(body) == Take(0, None)
            continue
        assert Action.from_json(body).to_json() == body, name


def test_the_refusal_examples_are_answered_as_documented():
    examples = named_examples(DOC)
    data = _data()
    table = FIFTEEN_DAYS.handle(data, "setup", examples["setup request"])["snapshot"]
    for name in ("refused draw", "refused pass"):
        request = examples[f"{name} request"]
        assert request["snapshot"] == "S"
        assert FIFTEEN_DAYS.handle(data, "legal", {**request, "snapshot": table}) == examples[f"{name} reply"], name


def test_the_text_forms_the_page_names_are_engine_actions():
    text = DOC.read_text(encoding="utf-8")
    for form in ("draw 0 1", "take 0 discard", "play 0 summer-3 0", "pass 1"):
        assert f"`{form}`" in text
        assert str(Action.from_text(form)) == form
