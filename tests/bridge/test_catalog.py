"""bridge.catalog: a GAME argument (built-in id or folder) → folder, metadata, engine and validated data.

Checked on every built-in game and on copies of their folders, as a designer works on a copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bridge.catalog import asset_path, builtin_games, load, load_game, resolve_game, resolve_game_dir
from bridge.errors import DataError
from bridge.paths import assets_dir

BUILTIN = sorted(builtin_games())


@pytest.fixture(params=BUILTIN)
def game_id(request) -> str:
    return request.param


@pytest.fixture
def game_copy(tmp_path: Path, game_id: str) -> Path:
    folder = tmp_path / "my-game"
    shutil.copytree(builtin_games()[game_id], folder)
    return folder


def test_there_is_a_builtin_game():
    assert BUILTIN


def test_a_builtin_id_resolves_to_its_assets_folder(game_id: str):
    folder = builtin_games()[game_id]
    assert folder.parent == assets_dir().resolve()
    assert resolve_game_dir(game_id) == folder
    assert resolve_game(game_id).meta.id == game_id


def test_a_copied_folder_loads_identically(game_id: str, game_copy: Path):
    builtin = load_game(game_id)
    assert resolve_game_dir(game_copy) == game_copy.resolve()
    assert load_game(game_copy) == builtin
    assert load_game(str(game_copy)) == builtin
    loaded = load(game_copy)
    assert loaded.folder == game_copy.resolve() and loaded.meta.id == game_id
    assert loaded.engine.meta(loaded.data) == loaded.meta


def test_an_unknown_game_names_the_argument(tmp_path: Path):
    with pytest.raises(DataError) as info:
        resolve_game_dir("no-such-game")
    assert str(info.value) == f"no-such-game: not a built-in game ({', '.join(builtin_games())}) nor a game folder"
    with pytest.raises(DataError, match="this folder has no game.toml"):
        resolve_game_dir(tmp_path)


def test_a_folder_whose_engine_registers_another_game_is_refused(game_id: str, game_copy: Path):
    path = game_copy / "game.toml"
    text = path.read_text(encoding="utf-8")
    assert f'id = "{game_id}"' in text
    path.write_text(text.replace(f'id = "{game_id}"', 'id = "chess"', 1), encoding="utf-8")
    engine = resolve_game(game_copy).meta.engine
    with pytest.raises(DataError) as info:
        load_game(game_copy)
    assert str(info.value) == f'game.toml: [game]: engine: "{engine}" registers no game "chess"'


def test_an_engine_that_cannot_be_imported_is_named(game_id: str, game_copy: Path):
    path = game_copy / "game.toml"
    engine = resolve_game(game_copy).meta.engine
    path.write_text(path.read_text(encoding="utf-8").replace(f'"{engine}"', '"no_such_engine"', 1), encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_game(game_copy)
    assert str(info.value).startswith('game.toml: [game]: engine: "no_such_engine" cannot be imported: ')


def test_a_missing_data_file_is_named(game_id: str, game_copy: Path):
    missing = next(name for name in resolve_game(game_copy).meta.data_files if name != "game.toml")
    (game_copy / missing).unlink()
    with pytest.raises(DataError) as info:
        load_game(game_copy)
    assert info.value.file == missing
    assert str(info.value) == f"{missing}: file not found in the game folder my-game/"


def test_a_toml_syntax_error_names_file_and_line(game_id: str, game_copy: Path):
    name = resolve_game(game_copy).meta.data_files[-1]
    path = game_copy / name
    text = path.read_text(encoding="utf-8").rstrip("\n") + "\nbroken = = 2\n"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_game(game_copy)
    assert info.value.file == name
    assert f"line {text.count(chr(10))}" in str(info.value)


def test_asset_paths_stay_inside_the_game_folder(game_copy: Path, tmp_path: Path):
    where = dict(file="cards.toml", entry='card "mill"', field="art")
    assert asset_path(game_copy, "art/mill.png", **where) == game_copy.resolve() / "art" / "mill.png"
    assert asset_path(game_copy, "art/../game.toml", **where) == game_copy.resolve() / "game.toml"
    for escaping in ("../secret.png", "art/../../secret.png", "/etc/passwd", "C:/Windows/win.ini", "art\\mill.png", ""):
        with pytest.raises(DataError) as info:
            asset_path(game_copy, escaping, **where)
        assert str(info.value).startswith('cards.toml: card "mill": art: ')
    outside = tmp_path / "outside"
    outside.mkdir()
    (game_copy / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(DataError, match="leads outside the game folder"):
        asset_path(game_copy, "link/face.png", **where)
