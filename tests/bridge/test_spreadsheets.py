"""Card lists read from spreadsheets (bridge.spreadsheets): the flat form, the [sheets] table of game.toml, and errors
that name the spreadsheet, the sheet, the row and the column, for every game whose data files hold card lists
(``card_lists``: another skips, saying so)."""

from __future__ import annotations

import copy
import csv
import io
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bridge import spreadsheets
from bridge.catalog import load, resolve_game
from bridge.errors import DataError
from tests.everygame import documents, games_declaring
from tools.data_export import card_lists, csv_bytes, export, sheets_table, xlsx_bytes

game = games_declaring("card_lists")
"""The GAME argument of every game whose data files hold card lists (another skips the test, saying so)."""


def game_copy(tmp_path: Path, game: str, fmt: str = "csv") -> tuple[Path, list]:
    """A copy of GAME's folder whose game.toml reads every list from sheets exported into its sheets/ folder."""
    folder = tmp_path / "game"
    shutil.copytree(resolve_game(game).folder, folder)
    written = export(game, fmt, folder / "sheets")
    with (folder / "game.toml").open("a", encoding="utf-8") as handle:
        handle.write("\n" + sheets_table(written, "sheets/"))
    return folder, written


def read_csv(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline="")))


def write_csv(path: Path, rows: list[list[str]]) -> None:
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n").writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")


def id_list(folder: Path, written) -> tuple[Path, list[list[str]]]:
    """The first exported CSV whose first column is ``id`` and which has at least three rows; the calling test
    is skipped, saying so, for a game that has none."""
    for item in written:
        path = folder / "sheets" / item.file
        rows = read_csv(path)
        if rows[0][0] == "id" and len(rows) >= 4:
            return path, rows
    pytest.skip("no card list of three records or more whose first column is id")


def error_of(folder: Path) -> str:
    with pytest.raises(DataError) as caught:
        load(folder)
    return str(caught.value)


# --- the flat form --------------------------------------------------------------------------------------------


def test_a_record_flattens_to_dotted_numbered_and_joined_columns():
    record = {"id": "mill", "title": {"en": "Mill", "uk": "Млин"}, "slots": [
        {"citizen": "peasant", "humours": ["sanguine", "phlegmatic"]}, {"citizen": "nun"}], "tags": [], "n": 3}
    assert spreadsheets.flatten(record) == {
        "id": "mill", "title.en": "Mill", "title.uk": "Млин", "slots.1.citizen": "peasant",
        "slots.1.humours[]": "sanguine|phlegmatic", "slots.2.citizen": "nun", "tags[]": "[]", "n": 3}


@pytest.mark.parametrize("value", [3, -2, 0.25, True, False, "text", "3", "true", "'quoted", " spaced ", "1e5"])
def test_a_scalar_written_as_text_reads_back_as_itself(value):
    text = spreadsheets.format_scalar(value)
    back = spreadsheets.parse_text(text)
    assert back == value and type(back) is type(value)


def test_a_text_that_looks_like_a_number_is_written_with_a_leading_quote():
    assert spreadsheets.format_scalar("12") == "'12"
    assert spreadsheets.parse_text("'12") == "12"
    assert spreadsheets.parse_text("12") == 12


def test_a_list_of_lists_or_a_separator_inside_an_item_has_no_flat_form():
    with pytest.raises(spreadsheets.FlattenError, match="list of lists"):
        spreadsheets.flatten({"grid": [[1, 2], [3]]})
    with pytest.raises(spreadsheets.FlattenError, match=r"\|"):
        spreadsheets.flatten({"tags": ["a|b"]})


# --- every built-in game ----------------------------------------------------------------------------------------


def test_a_game_whose_lists_come_from_csv_loads_the_same_records(tmp_path, game):
    folder, written = game_copy(tmp_path, game)
    assert {item.name for item in written} == {name for _, name, _ in card_lists(documents(game))}
    assert load(folder).data == load(game).data


def test_a_bad_value_names_the_file_row_and_column(tmp_path, game):
    folder, written = game_copy(tmp_path, game)
    path, rows = id_list(folder, written)
    rows[2][0] = "not an id!"
    write_csv(path, rows)
    assert error_of(folder) == (f'sheets/{path.name}: row 3, column "id": "not an id!" is not a valid id '
                                "(letters, digits, - and _, not starting with - or _)")


def test_a_duplicate_id_names_the_row_of_its_second_use(tmp_path, game):
    folder, written = game_copy(tmp_path, game)
    path, rows = id_list(folder, written)
    rows[3][0] = rows[1][0]
    write_csv(path, rows)
    message = error_of(folder)
    assert message.startswith(f'sheets/{path.name}: row 4, column "id": duplicate '), message


def test_blank_rows_are_skipped_and_rows_keep_their_spreadsheet_numbers(tmp_path, game):
    folder, written = game_copy(tmp_path, game)
    path, rows = id_list(folder, written)
    rows.insert(2, [""] * len(rows[0]))   # a blank row 3: the second record is now on row 4
    rows[3][0] = "bad id!"
    write_csv(path, rows)
    assert error_of(folder).startswith(f'sheets/{path.name}: row 4, column "id": ')


def test_an_xlsx_error_names_the_sheet(tmp_path, game):
    import openpyxl

    folder, written = game_copy(tmp_path, game, "xlsx")
    item = next((item for item in written if item.records >= 3), None)
    if item is None:
        pytest.skip("no card list of three records or more")
    path = folder / "sheets" / item.file
    book = openpyxl.load_workbook(path)
    sheet = book[item.sheet]
    sheet.cell(row=3, column=1).value = "bad id!" if sheet.cell(row=1, column=1).value == "id" else None
    header = [cell.value for cell in sheet[1]]
    book.save(path)
    message = error_of(folder)
    assert message.startswith(f'sheets/{item.file}: sheet "{item.sheet}", row 3, column "{header[0]}": '), message


def test_a_data_file_holding_only_sheeted_lists_may_be_left_out(tmp_path, game):
    folder, written = game_copy(tmp_path, game)
    read = documents(str(folder))
    sheeted = {item.into for item in written}
    for name in sheeted:
        rest = {key for key in read[name] if key not in {i.name for i in written if i.into == name}}
        if not rest:
            (folder / name).unlink()
    assert load(folder).data == load(game).data


# --- the sheet itself -------------------------------------------------------------------------------------------


def sheet_game(tmp_path: Path, game: str, header: str) -> tuple[Path, Path]:
    """A copy of GAME whose first list comes from sheets/list.csv (header written here)."""
    folder, written = game_copy(tmp_path, game)
    first = written[0]
    path = folder / "sheets" / first.file
    rows = read_csv(path)
    path.write_text(header + "\n" + "\n".join(",".join(row) for row in rows[1:2]) + "\n", encoding="utf-8")
    return folder, path


def test_a_duplicate_column_is_refused(tmp_path, game):
    folder, path = sheet_game(tmp_path, game, "id,id")
    assert error_of(folder) == f'sheets/{path.name}: row 1, column 2: "id" is also column 1'


def test_a_bad_column_name_is_refused(tmp_path, game):
    folder, path = sheet_game(tmp_path, game, "id,title..en")
    assert f'sheets/{path.name}: row 1, column 2: "title..en" is not a column name' in error_of(folder)


def test_a_value_and_a_table_under_one_name_are_refused(tmp_path, game):
    folder, path = sheet_game(tmp_path, game, "title,title.en")
    assert 'column "title.en" makes it a table' in error_of(folder)


def test_a_value_under_an_unnamed_column_is_refused(tmp_path, game):
    folder, path = sheet_game(tmp_path, game, "id")
    path.write_text("id,\nx,y\n", encoding="utf-8")
    assert error_of(folder) == (f'sheets/{path.name}: row 2: a value ("y") in column 2, which has no name in '
                                "row 1")


def test_numbered_columns_must_run_without_a_gap(tmp_path, game):
    folder, path = sheet_game(tmp_path, game, "id")
    path.write_text("id,slots.1.a,slots.3.a\nx,1,2\n", encoding="utf-8")
    assert error_of(folder) == (f'sheets/{path.name}: row 2, column "slots.3.*": slots.2 is empty: fill the '
                                "numbered columns from 1 with no gap")


def test_an_empty_sheet_is_refused(tmp_path, game):
    folder, path = sheet_game(tmp_path, game, "")
    path.write_text("", encoding="utf-8")
    assert error_of(folder) == f"sheets/{path.name}: no header row (row 1 names the columns)"


def test_a_missing_sheet_file_or_xlsx_sheet_is_named(tmp_path, game):
    folder, written = game_copy(tmp_path, game, "xlsx")
    (folder / "sheets" / written[0].file).rename(folder / "sheets" / "gone.xlsx")
    assert error_of(folder).startswith(f"sheets/{written[0].file}: file not found in the game folder")
    folder, written = game_copy(tmp_path / "2", game, "xlsx")
    text = (folder / "game.toml").read_text(encoding="utf-8")
    first = f'{written[0].name} = {{ file = "sheets/{written[0].file}"'
    (folder / "game.toml").write_text(text.replace(first, first + ', sheet = "nope"'), encoding="utf-8")
    assert error_of(folder).startswith(f'sheets/{written[0].file}: no sheet "nope" (sheets: ')


@pytest.mark.parametrize("entry, message", [
    ('x = "a.csv"', 'game.toml: [sheets]: x: expected a table like { file = "x.csv" }, got "a.csv"'),
    ('x = { file = "a.txt" }', 'game.toml: [sheets]: x.file: "a.txt" is neither a .csv nor an .xlsx file'),
    ('x = { file = "a.csv", sheet = "s" }', "game.toml: [sheets]: x.sheet: a CSV file has no sheets: leave sheet out"),
    ('x = { file = "a.csv", colour = 1 }',
     "game.toml: [sheets]: x.colour: unknown field (expected file, sheet, into)"),
    ('x = { file = "a.csv", into = "nope.toml" }', 'game.toml: [sheets]: x.into: "nope.toml" is not one of'),
    ('x = { file = "../a.csv", into = "game.toml" }', "game.toml: [sheets]: x.into: "),
    ('x = { file = "a.csv" }', "game.toml: [sheets]: x.into: x.toml is not a data file of the game"),
])
def test_the_sheets_table_is_checked(tmp_path, game, entry, message):
    folder = tmp_path / "game"
    shutil.copytree(resolve_game(game).folder, folder)
    with (folder / "game.toml").open("a", encoding="utf-8") as handle:
        handle.write(f"\n[sheets]\n{entry}\n")
    assert error_of(folder).startswith(message)


def test_a_sheet_file_outside_the_game_folder_is_refused(tmp_path, game):
    folder, written = game_copy(tmp_path, game)
    text = (folder / "game.toml").read_text(encoding="utf-8")
    (folder / "game.toml").write_text(text.replace(f'"sheets/{written[0].file}"', '"../outside.csv"'),
                                      encoding="utf-8")
    assert error_of(folder) == (f'game.toml: [sheets]: {written[0].name}.file: "../outside.csv" leads outside '
                                "the game folder")


def test_a_csv_game_loads_without_importing_openpyxl(tmp_path, game):
    folder, _ = game_copy(tmp_path, game)
    code = ("import sys; from bridge.catalog import load; load(sys.argv[1]); "
            "print('openpyxl' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_the_cli_reports_a_sheet_error_as_one_line_with_exit_2(tmp_path, game):
    folder, written = game_copy(tmp_path, game)
    path, rows = id_list(folder, written)
    rows[2][0] = "bad id!"
    write_csv(path, rows)
    command = [sys.executable, "-c", "from tools.cli import main; main()", "simulate", str(folder), "--games", "1"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f'error: sheets/{path.name}: row 3, column "id": "bad id!" is not a valid id (letters, digits, - and _, '
        "not starting with - or _)"]


# --- export → import: every text back as it went out; nothing a spreadsheet program runs -----------------------

SPECS = {"csv": spreadsheets.SheetSpec("cards", "cards.csv", None, "cards.toml"),
         "xlsx": spreadsheets.SheetSpec("cards", "cards.xlsx", "cards", "cards.toml")}


def exported(folder: Path, fmt: str, records: list[dict]) -> Path:
    """``records`` written as ``data export`` writes a list, into FOLDER/cards.csv or cards.xlsx."""
    rows = [spreadsheets.flatten(record) for record in records]
    columns = spreadsheets.columns_of(rows)
    data = csv_bytes(columns, rows) if fmt == "csv" else xlsx_bytes([("cards", columns, rows)])
    path = folder / SPECS[fmt].file
    path.write_bytes(data)
    return path


def imported(folder: Path, fmt: str) -> list[dict]:
    """The records game.toml's [sheets] reads from FOLDER/cards.csv or cards.xlsx."""
    return spreadsheets.read_list(folder, SPECS[fmt])[0]


def sheet_error(folder: Path, fmt: str) -> str:
    with pytest.raises(DataError) as caught:
        imported(folder, fmt)
    return str(caught.value)


FORMULAS = ["=cmd|' /C calc'!A0", "=HYPERLINK(\"http://x\")", "+1+2", "-2+3", "@SUM(A1)", "\t=1", "\r=1",
            " =1+1"]


@pytest.mark.parametrize("text", FORMULAS)
def test_a_csv_text_a_spreadsheet_would_run_as_a_formula_is_written_behind_an_apostrophe(tmp_path, text):
    path = exported(tmp_path, "csv", [{"id": "a", "text": text}])
    cells = read_csv(path)[1]
    assert cells[1] == "'" + text
    assert imported(tmp_path, "csv") == [{"id": "a", "text": text}]


def test_a_csv_list_cell_never_begins_like_a_formula(tmp_path):
    records = [{"id": "a", "counts": [-2, 3]}, {"id": "b", "counts": ["=1+1", "-x"]}]
    path = exported(tmp_path, "csv", records)
    cells = [row[1] for row in read_csv(path)[1:]]
    assert cells == [" -2|3", "'=1+1|'-x"]
    assert imported(tmp_path, "csv") == records


@pytest.mark.parametrize("text", ["'quoted", "''twice", "'", "'=1", "12", "true", "", "   ", " padded "])
def test_a_text_beginning_with_an_apostrophe_or_not_reading_as_itself_comes_back_exactly(tmp_path, text):
    for fmt in ("csv", "xlsx"):
        exported(tmp_path, fmt, [{"id": "a", "text": text}, {"id": "b", "tags": [text, "x"]}])
        assert imported(tmp_path, fmt) == [{"id": "a", "text": text}, {"id": "b", "tags": [text, "x"]}], fmt


def test_a_bare_carriage_return_inside_a_csv_cell_is_quoted_and_survives(tmp_path):
    path = exported(tmp_path, "csv", [{"id": "a", "text": "one\rtwo"}, {"id": "b", "text": "three"}])
    assert b'a,"one\rtwo"\n' in path.read_bytes()
    assert imported(tmp_path, "csv") == [{"id": "a", "text": "one\rtwo"}, {"id": "b", "text": "three"}]


def test_csv_export_starts_with_a_utf8_bom_and_import_reads_it_with_or_without(tmp_path):
    records = [{"id": "mill", "title": {"uk": "Млин"}}]
    path = exported(tmp_path, "csv", records)
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbfid,title.uk\n")
    assert imported(tmp_path, "csv") == records
    path.write_bytes(data[3:])
    assert imported(tmp_path, "csv") == records


def test_an_xlsx_text_beginning_with_equals_is_a_string_cell_not_a_formula(tmp_path):
    import openpyxl

    records = [{"id": "a", "text": "=Beginning", "tags": ["=x", "y"]}, {"id": "b", "text": "=1+1"}]
    path = exported(tmp_path, "xlsx", records)
    book = openpyxl.load_workbook(path)
    cells = [cell for row in book["cards"].iter_rows(min_row=2) for cell in row if cell.value is not None]
    assert {cell.data_type for cell in cells} == {"s"}
    assert "<f>" not in zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml").decode()
    assert imported(tmp_path, "xlsx") == records


def test_xlsx_text_holding_what_xml_cannot_is_escaped_as_excel_does_and_read_back(tmp_path):
    import openpyxl

    records = [{"id": "a", "text": "bell\x07 cr\r nul\x00 \uffff"}, {"id": "b", "text": "_x0041_ stays"}]
    path = exported(tmp_path, "xlsx", records)
    stored = openpyxl.load_workbook(path)["cards"]
    assert stored["B2"].value == "bell_x0007_ cr_x000D_ nul_x0000_ _xFFFF_"
    assert stored["B3"].value == "_x005F_x0041_ stays"
    assert imported(tmp_path, "xlsx") == records


TEXTS = st.text()
ITEMS = st.text().filter(lambda text: spreadsheets.SEPARATOR not in text)


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS, items=st.lists(ITEMS, max_size=4))
def test_export_then_import_gives_back_every_text(tmp_path, fmt, text, items):
    records = [{"text": text, "items": items}]
    exported(tmp_path, fmt, records)
    assert imported(tmp_path, fmt) == records


# --- bombs: what a sheet unpacks to is capped while it is unpacked -------------------------------------------


WORKBOOK_PARTS = {
    "[Content_Types].xml":
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    "_rels/.rels":
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Target="xl/workbook.xml" Type="http://schemas.openxmlformats.org/'
        'officeDocument/2006/relationships/officeDocument"/></Relationships>',
    "xl/workbook.xml":
        '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
        '<sheet name="cards" sheetId="1" r:id="rId1"/></sheets></workbook>',
    "xl/_rels/workbook.xml.rels":
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Target="worksheets/sheet1.xml" Type="http://schemas.openxmlformats.org/'
        'officeDocument/2006/relationships/worksheet"/></Relationships>',
}
HEADER_ROW = '<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c></row>'


def workbook(path: Path, rows: str, repeat: int = 1, then: str = "", dimension: str = "") -> Path:
    """A one-sheet workbook ("cards") whose sheet holds the header row, ``rows`` ``repeat`` times, then
    ``then``, compressed as hard as zip can (written in chunks: the sheet itself is never in memory whole); the
    sheet states its size (``<dimension ref>``) when ``dimension`` is given."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, text in WORKBOOK_PARTS.items():
            archive.writestr(name, text)
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as sheet:
            sheet.write(b'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/'
                        b'spreadsheetml/2006/main">'
                        + (f'<dimension ref="{dimension}"/>' if dimension else "").encode()
                        + b"<sheetData>" + HEADER_ROW.encode())
            chunk, left = rows.encode() * 10_000, repeat
            while left >= 10_000:
                sheet.write(chunk)
                left -= 10_000
            sheet.write(rows.encode() * left + then.encode() + b"</sheetData></worksheet>")
    return path


def test_a_small_workbook_is_read_as_before(tmp_path):
    workbook(tmp_path / "cards.xlsx", '<row><c t="inlineStr"><is><t>a</t></is></c></row>', 3)
    assert imported(tmp_path, "xlsx") == [{"id": "a"}] * 3


def test_a_zip_bomb_of_two_million_rows_stops_early_with_one_clear_error(tmp_path):
    path = workbook(tmp_path / "cards.xlsx", "<row><c><v>1</v></c></row>", 2_000_000)
    assert path.stat().st_size < 200_000   # it unpacks to 52 MB, under the byte cap: its rows stop it
    started = time.monotonic()
    message = sheet_error(tmp_path, "xlsx")
    assert message == ('cards.xlsx: "xl/worksheets/sheet1.xml" holds more than 100,000 rows: a card list is far '
                       "shorter")
    assert time.monotonic() - started < 5


def test_a_workbook_unpacking_past_the_byte_cap_is_refused(tmp_path, monkeypatch):
    path = workbook(tmp_path / "cards.xlsx", "<row><c><v>1</v></c></row>", 50_000)
    monkeypatch.setattr(spreadsheets, "MAX_UNPACKED_BYTES", 512 * 1024)
    assert sum(member.file_size for member in zipfile.ZipFile(path).infolist()) > 512 * 1024
    assert sheet_error(tmp_path, "xlsx") == "cards.xlsx: unpacks to more than 0.5 MB: not a card list (a zip bomb?)"


def test_the_byte_cap_counts_what_comes_out_not_what_the_headers_claim(tmp_path, monkeypatch):
    workbook(tmp_path / "cards.xlsx", "<row><c><v>1</v></c></row>", 50_000)
    monkeypatch.setattr(spreadsheets, "MAX_UNPACKED_BYTES", 512 * 1024)

    class ClaimingOneByte(zipfile.ZipFile):
        """Every member's header claims one byte; its data still unpacks to what it holds."""

        def infolist(self):
            claimed = [copy.copy(member) for member in super().infolist()]
            for member in claimed:
                member.file_size = 1
            return claimed

        def open(self, member, *args, **kwargs):
            return super().open(member.filename, *args, **kwargs)

    monkeypatch.setattr(spreadsheets.zipfile, "ZipFile", ClaimingOneByte)
    assert sheet_error(tmp_path, "xlsx") == "cards.xlsx: unpacks to more than 0.5 MB: not a card list (a zip bomb?)"


def test_a_sheet_of_too_many_cells_or_of_one_far_row_is_refused(tmp_path):
    workbook(tmp_path / "cards.xlsx", "<row>" + "<c/>" * 16_000 + "</row>", 70)
    assert sheet_error(tmp_path, "xlsx") == ('cards.xlsx: "xl/worksheets/sheet1.xml" holds more than 1,000,000 '
                                             "cells: a card list is far smaller")
    far = '<row r="1048576"><c r="A1048576" t="inlineStr"><is><t>z</t></is></c></row>'
    workbook(tmp_path / "cards.xlsx", "", 0, far)
    assert sheet_error(tmp_path, "xlsx") == ('cards.xlsx: sheet "cards": more than 100,000 rows (blank rows '
                                             "count): a card list is far shorter")


def test_a_csv_of_too_many_rows_is_refused(tmp_path):
    (tmp_path / "cards.csv").write_bytes(b"id\n" + b"a\n" * 100_000)
    assert sheet_error(tmp_path, "csv") == ("cards.csv: more than 100,000 rows (blank rows count): a card list "
                                            "is far shorter")


def test_a_damaged_sheet_is_one_clear_error(tmp_path):
    # Without a stated size the reader parses the sheet when the workbook is opened, with one while reading rows.
    workbook(tmp_path / "cards.xlsx", "<row><c><v>1</v></c></row>", 3, "<row><c>")
    assert sheet_error(tmp_path, "xlsx") == "cards.xlsx: not a readable XLSX workbook (ParseError)"
    workbook(tmp_path / "cards.xlsx", "<row><c><v>1</v></c></row>", 3, "<row><c>", dimension="A1:A5")
    assert sheet_error(tmp_path, "xlsx") == 'cards.xlsx: sheet "cards": not a readable XLSX sheet (ParseError)'
