"""``ttsmod adjudicate`` answers every game as the bridge does (docs/protocol.md, "ttsmod adjudicate GAME FILE"):
the documented bodies as they are, the game's first type by default, Lua's JSON undone, text-form actions."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bridge.catalog import builtin_games, load
from bridge.games import default_registry
from bridge.session import Dispatcher
from tests.everygame import GAMES
from tests.luajson import as_lua
from tools.cli import cli


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    return load(request.param)


def argument(game) -> str:
    """The GAME argument a user gives: a built-in game's id, another game's folder."""
    return game.meta.id if game.meta.id in builtin_games() else str(game.folder)


def adjudicate(tmp_path, game, document, *options):
    path = tmp_path / "request.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    done = CliRunner().invoke(cli, ["adjudicate", argument(game), str(path), *options])
    return done.exit_code, done.output


def bridge_answer(game, request_type, body):
    reply = Dispatcher(default_registry({game.meta.id: argument(game)})).reply({"ttsmod": 1, "id": 1, "type": request_type, "game": game.meta.id,
                                                  "body": body})
    return reply["body"] if reply["ok"] else reply["error"]


def test_setup_takes_the_documented_body_as_it_is(tmp_path, game):
    body = {"players": game.meta.min_players, "seed": 7}
    code, out = adjudicate(tmp_path, game, body, "--type", "setup")
    assert code == 0, out
    dealt = json.loads(out)
    assert set(dealt) == {"snapshot", "events", "next"} and dealt["next"]["legal"]
    assert dealt == bridge_answer(game, "setup", body)
    assert dealt["snapshot"]["ttsmod_snapshot"] == 1 and dealt["snapshot"]["game"] == game.meta.id


def test_the_default_type_is_the_first_the_game_lists(tmp_path, game):
    body = {"players": game.meta.min_players, "seed": 7}
    snapshot = bridge_answer(game, "setup", body)["snapshot"]
    first = game.engine.request_types[0]
    document = body if first == "setup" else snapshot
    code, out = adjudicate(tmp_path, game, document)
    explicit = adjudicate(tmp_path, game, document, "--type", first)
    assert (code, out) == explicit


def test_a_table_as_lua_writes_it_gets_the_bridges_answer(tmp_path, game):
    dealt = bridge_answer(game, "setup", {"players": game.meta.max_players, "seed": 3})
    action = dealt["next"]["legal"][0]
    body = {"snapshot": as_lua(dealt["snapshot"]), "action": as_lua(action)}
    code, out = adjudicate(tmp_path, game, body, "--type", "legal")
    assert code == 0, out
    ruled = json.loads(out)
    assert ruled["legal"] is True
    assert ruled == bridge_answer(game, "legal", body) == bridge_answer(game, "legal",
                                                                         {"snapshot": dealt["snapshot"],
                                                                          "action": action})
    code, scored = adjudicate(tmp_path, game, as_lua(dealt["snapshot"]), "--type", "score")
    assert code == 0 and json.loads(scored) == bridge_answer(game, "score", {"snapshot": dealt["snapshot"]})


def test_an_action_in_its_text_form_is_the_same_action(tmp_path, game):
    dealt = bridge_answer(game, "setup", {"players": game.meta.min_players, "seed": 11})
    action = dealt["next"]["legal"][-1]
    text = str(game.engine.action_from_json(game.data, action))
    by_text = adjudicate(tmp_path, game, {"snapshot": dealt["snapshot"], "actions": [text]}, "--type", "apply")
    by_json = adjudicate(tmp_path, game, {"snapshot": dealt["snapshot"], "actions": [action]}, "--type", "apply")
    assert by_text[0] == 0 and by_text == by_json


def test_another_games_snapshot_is_refused_naming_the_key(tmp_path, game):
    snapshot = bridge_answer(game, "setup", {"players": game.meta.min_players, "seed": 1})["snapshot"]
    code, out = adjudicate(tmp_path, game, {**snapshot, "game": "another-game"}, "--type", "score")
    assert code == 2 and 'game: "another-game" is another game\'s snapshot' in out and "Traceback" not in out
    code, out = adjudicate(tmp_path, game, {**snapshot, "ttsmod_snapshot": 2}, "--type", "score")
    assert code == 2 and "ttsmod_snapshot: format 2 is not one this ttsmod reads" in out


def test_a_new_tables_body_sent_to_a_type_that_takes_a_table_is_pointed_to_setup(tmp_path, game):
    others = [kind for kind in game.engine.request_types if kind != "setup"]
    code, out = adjudicate(tmp_path, game, {"players": game.meta.min_players, "seed": 7}, "--type", others[0])
    assert code == 2 and "snapshot: is missing" in out and "--type setup" in out and "Traceback" not in out
