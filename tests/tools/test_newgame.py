"""``ttsmod new`` and a game drawn from data alone (tools/newgame.py, tools/tablegame.py): the folder it writes
builds at once into a complete save, prints, names bad data by its spreadsheet row, refuses what needs rules, and
a copy of a built-in game builds beside it without touching the built-in game's folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from bridge import __version__
from bridge.catalog import builtin_games, load
from tools.buildstamp import default_out_dir
from tools.cli import cli
from tools.newgame import new_game


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def made(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    result = run("new", "my-card-game")
    assert result.exit_code == 0, result.output
    return tmp_path / "my-card-game"


def build_json(folder: str, *options: str) -> dict:
    result = run("build", folder, "--json", *options)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_new_game_is_data_and_art_only_and_builds_a_complete_table(made):
    files = sorted(p.relative_to(made).as_posix() for p in made.rglob("*") if p.is_file())
    assert files == ["README.md", "art/back.png", "art/front.png", "cards.csv", "game.toml", "icons/star.png",
                     "layouts.toml", "table.toml"]
    report = build_json("my-card-game")
    assert Path(report["save"]) == (made.parent / "build" / "my-card-game" / "MyCardGame.json").resolve()
    save = json.loads(Path(report["save"]).read_text(encoding="utf-8"))
    kinds = [o["Name"] for o in save["ObjectStates"]]
    assert kinds == ["Deck", "ScriptingTrigger", "3DText"] + ["HandTrigger"] * 4
    deck = save["ObjectStates"][0]
    assert deck["Nickname"] == "My Card Game" and len(deck["ContainedObjects"]) == 3 + 2 + 1   # the count column
    assert sorted(c["Nickname"] for c in deck["ContainedObjects"]) == ["blaze"] + ["flame"] * 2 + ["spark"] * 3
    assert "no rules are enforced" in save["LuaScript"] and 'MOD_GAME = "my-card-game"' in save["LuaScript"]
    (cards,) = report["decks"]
    assert cards["text_height"] >= 24        # the body text layer is legible on the sheet


def test_a_new_game_builds_to_the_same_bytes_twice(made, tmp_path):
    first = build_json("my-card-game", "--out", "one")
    second = build_json("my-card-game", "--out", "two", "--no-cache")
    assert Path(first["save"]).read_text(encoding="utf-8").replace("/one/", "/two/") == \
        Path(second["save"]).read_text(encoding="utf-8")
    assert [Path(p).read_bytes() for p in first["images"]] == [Path(p).read_bytes() for p in second["images"]]


def test_print_and_play_prints_every_copy(made):
    result = run("pnp", "my-card-game", "--out", "cards.pdf")
    assert result.exit_code == 0, result.output
    assert "6 card(s)" in result.output and (made.parent / "cards.pdf").is_file()


def test_a_card_that_does_not_fit_is_named_by_its_spreadsheet_row_and_column(made):
    csv = made / "cards.csv"
    lines = csv.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace("to every other player.", "to every other player" + " and more" * 80 + ".", 1)
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("build", "my-card-game")
    assert result.exit_code == 2
    assert 'cards.csv: row 4, column "text.en": text does not fit layer "text"' in result.output
    assert not (made.parent / "build" / "my-card-game").exists() or \
        not list((made.parent / "build" / "my-card-game").glob("*.json"))


def test_commands_that_need_rules_say_the_game_has_none(made):
    for args in (("simulate", "my-card-game", "--games", "1"),
                 ("adjudicate", "my-card-game", str(made / "game.toml")),
                 ("arena", "my-card-game", "--games", "1", "--bots", "random,random")):
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "has no rules engine" in result.output and "Traceback" not in result.output


def test_new_never_writes_into_an_existing_folder(made):
    (made / "cards.csv").write_text("mine\n", encoding="utf-8")
    result = run("new", "my-card-game")
    assert result.exit_code == 2 and "exists" in result.output
    assert (made / "cards.csv").read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize("game", sorted(builtin_games()))
def test_a_copy_of_a_built_in_game_keeps_its_rules_and_builds_into_its_own_folder(tmp_path, game):
    copy = new_game(tmp_path / "my-copy", from_game=game)
    original = builtin_games()[game]
    assert sorted(p.name for p in copy.iterdir() if p.is_file()) == \
        sorted(p.name for p in original.iterdir() if p.is_file() and p.suffix != ".pyc")
    loaded = load(copy)
    assert loaded.meta.id == game and loaded.meta.engine is not None      # the same game, its own data
    assert default_out_dir(game, copy) == Path("build") / "my-copy"       # not build/<game id>/
    assert default_out_dir(game, original) == Path("build") / game


def tutorial_blocks(kind: str) -> list[str]:
    import re

    page = (Path(__file__).resolve().parents[2] / "docs" / "tutorial.md").read_text(encoding="utf-8")
    return re.findall(rf"```{kind}\n(.*?)```", page, re.S)


def test_the_tutorial_shows_the_cards_and_the_layer_ttsmod_new_writes(made):
    import tomllib

    (csv,) = tutorial_blocks("csv")
    assert csv == (made / "cards.csv").read_text(encoding="utf-8")
    (layer,) = tutorial_blocks("toml")
    shown = tomllib.loads(layer)["layouts"]["card"]["layers"][0]
    written = tomllib.loads((made / "layouts.toml").read_text(encoding="utf-8"))["layouts"]["card"]["layers"]
    assert shown in written


def test_the_tables_global_script_greets_the_players_on_the_headless_table(made):
    from tools.headless.table import Table

    report = build_json("my-card-game")
    table = Table.load(report["save"])
    table.boot()
    assert [message for message, _ in table.broadcasts] == [
        f"My Card Game (built by ttsmod {__version__}): no rules are enforced, play as on a real table."]
    (deck,) = [obj for obj in table.objects if obj.name == "Deck"]
    assert len(deck.data["ContainedObjects"]) == 6


def test_print_with_bleed_draws_each_face_with_its_bleed_once(made):
    result = run("pnp", "my-card-game", "--bleed", "3", "--out", "bled.pdf")
    assert result.exit_code == 0, result.output
    prints = sorted(p.name for p in (made.parent / "build" / "my-card-game" / ".cache" / "print").iterdir())
    assert len([p for p in prints if p.endswith("-744x1039-b35.jpg")]) == 3     # the three faces, with 3 mm
    first = (made.parent / "bled.pdf").read_bytes()
    again = run("pnp", "my-card-game", "--bleed", "3", "--out", "bled.pdf")
    assert (made.parent / "bled.pdf").read_bytes() == first          # the same inputs, the same bytes
    assert again.exit_code == 0 and sorted(
        p.name for p in (made.parent / "build" / "my-card-game" / ".cache" / "print").iterdir()) == prints


def test_a_token_cut_out_by_transparency_is_written_as_a_png_that_keeps_it(made):
    with open(made / "layouts.toml", "a", encoding="utf-8") as f:
        f.write('\n[layouts.coin]\nsize = [128, 128]\ntransparent = true\n\n'
                '[[layouts.coin.layers]]\nshape = "ellipse"\nfill = "#d0a020"\n')
    with open(made / "table.toml", "a", encoding="utf-8") as f:
        f.write('\n[[objects]]\nname = "coin"\ntype = "token"\nlayout = "coin"\nposition = [10, 0]\n'
                '\n[[objects]]\nname = "star"\ntype = "token"\nimage = "icons/star.png"\nposition = [14, 0]\n'
                '\n[[objects]]\nname = "picture"\ntype = "tile"\nimage = "art/front.png"\nposition = [18, 0]\n')
    report = build_json("my-card-game")
    save = json.loads(Path(report["save"]).read_text(encoding="utf-8"))
    urls = {o["Nickname"] or o["Name"]: o["CustomImage"]["ImageURL"] for o in save["ObjectStates"]
            if o["Name"] in ("Custom_Token", "Custom_Tile")}
    assert set(urls) == {"coin", "star", "picture"}, urls
    for name in ("coin", "star"):
        assert urls[name].endswith(".png"), urls[name]
        with Image.open(Path(urls[name].removeprefix("file://"))) as image:
            assert image.mode == "RGBA" and image.getpixel((0, 0))[3] == 0
    assert urls["picture"].endswith(".jpg")    # an opaque picture keeps the build's format


def test_the_build_report_counts_only_the_images_the_save_uses(made):
    """sheets/ also holds the renderer's copy of the thumbnail, which no URL of the save names: a cold build's
    report listed it among the images written (one more than the save's images, issue #28)."""
    report = build_json("my-card-game")
    sheets = Path(report["sheets_dir"])
    save_text = Path(report["save"]).read_text(encoding="utf-8")
    unused = [p for p in sheets.iterdir() if p.is_file() and p.name not in save_text]
    assert unused and all(p.name.startswith("thumbnail") for p in unused)   # the copy is there, not used
    assert report["images_written"] == report["images"]                    # a cold build: all of them, no more
    assert all(Path(p).name in save_text for p in report["images_written"])
    text = run("build", "my-card-game", "--no-cache").stdout
    count = len(report["images"])
    assert f"{count} image(s), {count} written this build" in text
