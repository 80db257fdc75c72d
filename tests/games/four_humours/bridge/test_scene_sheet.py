"""Four Humours' scene deck read from an XLSX sheet: the issue's example error, and a nested slot field."""

from __future__ import annotations

import shutil

import openpyxl
import pytest

from bridge.catalog import builtin_games, load
from bridge.errors import DataError
from tools.data_export import export, sheets_table


def scenes_workbook(tmp_path):
    folder = tmp_path / "game"
    shutil.copytree(builtin_games()["four-humours"], folder)
    written = [item for item in export(str(folder), "xlsx", folder) if item.name == "scenes"]
    with (folder / "game.toml").open("a", encoding="utf-8") as handle:
        handle.write("\n" + sheets_table(written))
    (folder / "scenes.toml").unlink()   # the deck now lives in scenes.xlsx alone
    return folder, folder / "scenes.xlsx"


def edit(path, row, column, value):
    book = openpyxl.load_workbook(path)
    sheet = book["scenes"]
    header = [cell.value for cell in sheet[1]]
    sheet.cell(row=row, column=header.index(column) + 1).value = value
    book.save(path)


def test_a_scene_sheet_without_its_toml_loads_the_same_deck(tmp_path):
    folder, _ = scenes_workbook(tmp_path)
    assert load(folder).data == load("four-humours").data


def test_an_unknown_zone_names_sheet_row_and_column(tmp_path):
    folder, path = scenes_workbook(tmp_path)
    edit(path, 14, "zone", "Atlantis")
    with pytest.raises(DataError) as caught:
        load(folder)
    assert str(caught.value).startswith('scenes.xlsx: sheet "scenes", row 14, column "zone": "Atlantis" is not')


def test_a_bad_humour_in_a_slot_names_the_slot_column(tmp_path):
    folder, path = scenes_workbook(tmp_path)
    edit(path, 2, "slots.1.humours[]", "sanguine|bile")
    with pytest.raises(DataError) as caught:
        load(folder)
    assert str(caught.value) == 'scenes.xlsx: sheet "scenes", row 2, column "slots.1.humours[]": "bile" is not a humour'
