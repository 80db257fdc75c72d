"""The bridge's game registry built from the catalog: every built-in game, designers' folders, lazy loading."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from bridge.catalog import builtin_games, load
from bridge.games import GameUnavailable, default_registry
from bridge.session import Dispatcher


@pytest.fixture(params=sorted(builtin_games()))
def builtin(request) -> tuple[str, Path]:
    """Every built-in game's id and folder (what the default registry serves)."""
    return request.param, builtin_games()[request.param]


def a_request_body(game_id: str) -> tuple[str, dict]:
    """The first request type of a built-in game with a body holding a fresh game's snapshot."""
    loaded = load(game_id)
    state = loaded.engine.new_game(loaded.data, loaded.meta.min_players, seed=3)
    return loaded.engine.request_types[0], {"snapshot": state.to_snapshot()}


def test_every_builtin_game_is_registered_under_its_id():
    registry = default_registry()
    assert registry.ids() == sorted(builtin_games())
    for game_id in builtin_games():
        service = registry.get(game_id)
        assert tuple(service.request_types) == tuple(load(game_id).engine.request_types)


def test_a_service_answers_like_the_engine_itself(builtin):
    game_id, _ = builtin
    request_type, body = a_request_body(game_id)
    loaded = load(game_id)
    try:
        expected = loaded.engine.handle(loaded.data, request_type, body)
    except ValueError as exc:
        with pytest.raises(type(exc), match=str(exc)[:20]):
            default_registry().get(game_id).handle(request_type, body)
        return
    assert default_registry().get(game_id).handle(request_type, body) == expected


def test_a_designers_folder_replaces_the_builtin_game(tmp_path, builtin):
    game_id, folder = builtin
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    registry = default_registry({game_id: str(copy)})
    assert registry.ids() == sorted(builtin_games())
    assert registry.get(game_id).data == load(game_id).data


def test_broken_data_makes_the_game_unavailable_with_one_line(tmp_path, builtin):
    game_id, folder = builtin
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    meta = load(game_id).meta
    broken = meta.data_files[-1]     # game.toml itself for a game of one data file
    (copy / broken).write_text("this is = = not toml\n", encoding="utf-8")
    registry = default_registry({game_id: copy})
    assert game_id in registry  # registering reads nothing: the data is loaded on the first request
    with pytest.raises(GameUnavailable) as info:
        registry.get(game_id)
    message = str(info.value)
    assert message.startswith(f"{game_id}: game data failed to load: {broken}: invalid TOML")
    assert "\n" not in message


def test_a_folder_holding_another_game_is_refused_for_that_id(builtin):
    game_id, folder = builtin
    registry = default_registry({"someone-else": folder})
    assert "someone-else" in registry
    with pytest.raises(GameUnavailable, match=f"holds the game '{game_id}', not 'someone-else'"):
        registry.get("someone-else")


def test_the_bridge_answers_unavailable_data_with_an_internal_error_naming_the_game(tmp_path, builtin):
    game_id, folder = builtin
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    (copy / "game.toml").write_text("[game\n", encoding="utf-8")
    dispatcher = Dispatcher(default_registry({game_id: copy}))
    request_type, _ = a_request_body(game_id)
    reply = dispatcher.reply({"ttsmod": 1, "id": 1, "type": request_type, "game": game_id, "body": {}})
    assert reply["ok"] is False and reply["error"]["code"] == "internal"
    assert reply["error"]["message"].startswith(f"{game_id}: game data failed to load: game.toml: invalid TOML")


def test_an_idle_registry_imports_no_engine(builtin):
    game_id, _ = builtin
    engine_module = load(game_id).meta.engine
    saved = {name: module for name, module in sys.modules.items()
             if name == engine_module or name.startswith(engine_module + ".")}
    for name in saved:
        del sys.modules[name]
    try:
        registry = default_registry()
        assert game_id in registry.ids()
        assert engine_module not in sys.modules
    finally:
        sys.modules.update(saved)
