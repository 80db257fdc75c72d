"""The ``bot_move`` examples of docs/games/kill_the_unicorns/protocol.md, run through the engine: the body shown,
sent with the setup snapshot shown, gets exactly the reply shown, and that reply's action is legal there."""

from __future__ import annotations

from bridge.catalog import load_game
from bridge.rules.kill_the_unicorns import KILL_THE_UNICORNS
from tests.mod.luasrc import REPO_ROOT
from tests.test_docs_json import named_examples

DOC = REPO_ROOT / "docs" / "games" / "kill_the_unicorns" / "protocol.md"


def test_the_bot_move_example_is_what_the_bridge_answers():
    examples = named_examples(DOC)
    data = load_game("kill-the-unicorns")
    body = {"snapshot": examples["setup snapshot"], **examples["bot_move body"]}
    reply = KILL_THE_UNICORNS.handle(data, "bot_move", body)
    assert reply == examples["bot_move reply"]
    assert KILL_THE_UNICORNS.handle(data, "legal", {"snapshot": body["snapshot"], "action": reply["action"]})["legal"]
