"""``ttsmod data export``: every card list of every game that has them (``card_lists``: another skips, saying so)
written as CSV files or XLSX workbooks, and read back through game.toml's [sheets] to the same records."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.catalog import builtin_games, load, load_documents, resolve_game
from tests import everygame
from tools.cli import cli
from tools.data_export import card_lists

GAMES = sorted(builtin_games())
game = everygame.games_declaring("card_lists")
"""The GAME argument of every game whose data files hold card lists (another skips the test, saying so)."""


def run_export(game: str, fmt: str, out: Path):
    return CliRunner().invoke(cli, ["data", "export", game, "--to", fmt, str(out)])


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_export_then_import_gives_the_same_records(tmp_path, game, fmt):
    folder = tmp_path / "game"
    shutil.copytree(resolve_game(game).folder, folder)
    result = run_export(str(folder), fmt, folder / "sheets")
    assert result.exit_code == 0, result.output
    table = result.stdout
    assert table.startswith("[sheets]\n")
    with (folder / "game.toml").open("a", encoding="utf-8") as handle:
        handle.write("\n" + table)
    original = everygame.documents(game)
    from_sheets = load_documents(folder, resolve_game(folder).meta)
    lists = card_lists(original)
    assert lists, game
    for into, name, records in lists:
        assert from_sheets[into][name] == records, (into, name)
        assert f'{name} = {{ file = "sheets/' in table
    assert load(folder).data == load(game).data


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_the_same_data_gives_the_same_bytes(tmp_path, game, fmt):
    assert run_export(game, fmt, tmp_path / "a").exit_code == 0
    assert run_export(game, fmt, tmp_path / "b").exit_code == 0
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir()) and names
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_csv_export_writes_a_file_per_list_with_a_header_row(tmp_path, game):
    assert run_export(game, "csv", tmp_path).exit_code == 0
    for _, name, records in card_lists(everygame.documents(game)):
        lines = (tmp_path / f"{name}.csv").read_text(encoding="utf-8-sig").splitlines()
        assert len(lines) == len(records) + 1
        assert lines[0].split(",")[0] == next(iter(records[0])) or "." in lines[0].split(",")[0]


def test_xlsx_export_writes_a_workbook_per_data_file_with_a_sheet_per_list(tmp_path, game):
    import openpyxl

    assert run_export(game, "xlsx", tmp_path).exit_code == 0
    for into, name, records in card_lists(everygame.documents(game)):
        book = openpyxl.load_workbook(tmp_path / into.replace(".toml", ".xlsx"), read_only=True)
        assert book[name].max_row == len(records) + 1
        book.close()


def test_export_outside_the_game_folder_says_to_copy_the_sheets_in(tmp_path, game):
    result = run_export(game, "csv", tmp_path / "out")
    assert result.exit_code == 0
    assert "copy them into the game folder" in result.stderr
    assert 'file = "sheets/' not in result.stdout and '{ file = "' in result.stdout


def test_an_unknown_game_is_one_line_with_exit_2(tmp_path):
    result = run_export("no-such-game", "csv", tmp_path / "out")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: no-such-game: not a built-in game ({', '.join(GAMES)}) nor a game folder"]
    assert not (tmp_path / "out").exists()


def test_an_unknown_format_is_refused_by_the_option(tmp_path, game):
    result = run_export(game, "ods", tmp_path / "out")
    assert result.exit_code == 2 and "'ods' is not one of 'csv', 'xlsx'" in result.stderr


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_json_reports_every_list_written_as_the_documented_example_does(tmp_path, game, fmt):
    import json
    import re

    folder = tmp_path / "game"
    shutil.copytree(resolve_game(game).folder, folder)
    plain = run_export(str(folder), fmt, folder / "plain")
    result = CliRunner().invoke(cli, ["data", "export", str(folder), "--to", fmt, str(folder / "sheets"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)            # stdout is the JSON object alone
    text = (Path(__file__).resolve().parents[2] / "docs" / "data-format.md").read_text(encoding="utf-8")
    (documented,) = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S) if '"in_game_folder"' in b]
    assert set(report) == set(documented) and [set(item) for item in report["lists"]] == \
        [set(documented["lists"][0])] * len(report["lists"])
    assert report["dir"] == str((folder / "sheets").absolute()) and report["format"] == fmt
    assert report["in_game_folder"] is True
    assert [item["name"] for item in report["lists"]] == [name for _, name, _ in card_lists(
        load_documents(folder, load(str(folder)).meta))]
    assert all(Path(item["file"]).is_file() and item["records"] > 0 for item in report["lists"])
    assert all((item["sheet"] is None) == (fmt == "csv") for item in report["lists"])
    # the table is the one the plain run prints, for the other folder
    assert report["sheets"] == plain.stdout.replace('"plain/', '"sheets/')
