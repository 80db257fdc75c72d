"""``ttsmod data export``: a game's card lists written as CSV files or XLSX workbooks in the flat form of
:mod:`bridge.spreadsheets`, so that a designer starts from the shipped sample and points ``game.toml`` at the sheets.

Every top-level array of tables of the game's data files is a list: CSV writes ``<list>.csv`` each; XLSX writes
one workbook per data file (``cards.xlsx``), a sheet per list. The ``[sheets]`` table that reads them back is
returned, to print. Writes are atomic (:mod:`bridge.fsio`) and byte-identical for the same data.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from bridge import spreadsheets
from bridge.catalog import load_documents, resolve_game
from bridge.errors import DataError
from bridge.fsio import atomic_write_bytes

FIXED_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""Every member of a written workbook carries this time, and the workbook's properties a fixed date, so that
the same data gives the same bytes."""


@dataclass(frozen=True)
class ExportedList:
    """One list written: its name, the data file it came from, the file (and sheet) it went to, its size."""

    name: str
    into: str
    file: str
    sheet: str | None
    records: int


def card_lists(documents: dict[str, dict[str, Any]]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(data file, list name, records) of every top-level non-empty array of tables, in file order."""
    found = []
    for file, document in documents.items():
        for key, value in document.items():
            if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
                found.append((file, key, value))
    return found


def flat_rows(file: str, name: str, records: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """The columns and rows of a list; a record with no flat form raises :class:`DataError` naming it."""
    rows = []
    for index, record in enumerate(records):
        try:
            rows.append(spreadsheets.flatten(record))
        except spreadsheets.FlattenError as exc:
            raise DataError(file, f"{name}[{index}]", None, f"{exc}") from None
    return spreadsheets.columns_of(rows), rows


def csv_bytes(columns: list[str], rows: list[dict[str, Any]]) -> bytes:
    """A CSV file of the header and the rows: UTF-8 after a BOM (Excel reads a file without one in the
    system's code page), a line feed ending each row, each cell as :func:`bridge.spreadsheets.csv_cell` writes it."""
    lines = [_csv_line(columns)]
    for row in rows:
        lines.append(_csv_line(["" if column not in row else spreadsheets.csv_cell(column, row[column])
                                for column in columns]))
    return (spreadsheets.CSV_BOM + "".join(lines)).encode("utf-8")


_NEEDS_QUOTES = re.compile(r'[,"\r\n]')


def _csv_line(cells: list[str]) -> str:
    # Quoted when a cell holds a comma, a quote or either line break: csv.writer leaves a bare \r unquoted
    # unless it ends every line with one, and a reader splits the row there.
    return ",".join(f'"{cell.replace(chr(34), chr(34) * 2)}"' if _NEEDS_QUOTES.search(cell) else cell
                    for cell in cells) + "\n"


def xlsx_bytes(tables: list[tuple[str, list[str], list[dict[str, Any]]]]) -> bytes:
    """A workbook with a sheet per (name, columns, rows); text cells kept as text, values as numbers/booleans."""
    import datetime

    import openpyxl   # only when a workbook is written

    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, columns, rows in tables:
        sheet = book.create_sheet(name)
        for position, column in enumerate(columns, 1):
            _text_cell(sheet, 1, position, column)
        for number, row in enumerate(rows, 2):
            for position, column in enumerate(columns, 1):
                if column in row:
                    _text_cell(sheet, number, position, spreadsheets.xlsx_cell(column, row[column]))
        sheet.freeze_panes = "A2"
    fixed = datetime.datetime(2000, 1, 1)
    book.properties.created = fixed
    raw = io.BytesIO()
    book.save(raw)
    # openpyxl stamps each zip member with the current time: rewrite them with a fixed one.
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw.getvalue())) as source, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            member = zipfile.ZipInfo(info.filename, FIXED_ZIP_TIME)
            member.compress_type = zipfile.ZIP_DEFLATED
            member.external_attr = 0o644 << 16
            data = source.read(info.filename)
            if info.filename == "docProps/core.xml":   # openpyxl sets "modified" to the time of saving
                data = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2000-01-01T00:00:00Z", data)
            target.writestr(member, data)
    return out.getvalue()


def _text_cell(sheet: Any, row: int, column: int, value: Any) -> None:
    cell = sheet.cell(row=row, column=column, value=value)
    if isinstance(value, str):
        cell.data_type = "s"   # openpyxl takes a text beginning with = for a formula: a text stays a text


def export(game: str, fmt: str, out_dir: Path,
           progress: Callable[[str], None] = lambda name: None) -> list[ExportedList]:
    """Write GAME's card lists into ``out_dir`` as ``fmt`` (csv | xlsx); the lists written, in order."""
    if fmt not in spreadsheets.FORMATS:
        raise DataError(fmt, None, None, f"not a sheet format ({', '.join(spreadsheets.FORMATS)})")
    found = resolve_game(game)
    documents = load_documents(found.folder, found.meta)
    lists = card_lists(documents)
    if not lists:
        raise DataError(found.meta.id, None, None, "this game's data files hold no list of tables to export")
    files: dict[str, bytes] = {}
    written: list[ExportedList] = []
    if fmt == "csv":
        for into, name, records in lists:
            columns, rows = flat_rows(into, name, records)
            files[f"{name}.csv"] = csv_bytes(columns, rows)
            written.append(ExportedList(name, into, f"{name}.csv", None, len(records)))
            progress(name)
    else:
        by_file: dict[str, list[tuple[str, list[str], list[dict[str, Any]]]]] = {}
        for into, name, records in lists:
            columns, rows = flat_rows(into, name, records)
            workbook = into.removesuffix(".toml") + ".xlsx"
            by_file.setdefault(workbook, []).append((name, columns, rows))
            written.append(ExportedList(name, into, workbook, name, len(records)))
            progress(name)
        for workbook, tables in by_file.items():
            files[workbook] = xlsx_bytes(tables)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        atomic_write_bytes(out_dir / name, data)
    return written


def sheets_table(written: list[ExportedList], prefix: str = "") -> str:
    """The ``[sheets]`` table of game.toml that reads ``written`` back (files under ``prefix``)."""
    lines = ["[sheets]"]
    for item in written:
        fields = [f'file = "{prefix}{item.file}"']
        if item.sheet is not None and item.sheet != item.name:
            fields.append(f'sheet = "{item.sheet}"')
        if item.into != f"{item.name}.toml":
            fields.append(f'into = "{item.into}"')
        lines.append(f"{item.name} = {{ {', '.join(fields)} }}")
    return "\n".join(lines) + "\n"


def card_lists_count(game: str) -> int:
    """How many lists :func:`export` writes for GAME (for a progress bar)."""
    found = resolve_game(game)
    return len(card_lists(load_documents(found.folder, found.meta)))
