"""Card lists kept in spreadsheets: a CSV file or an XLSX sheet per list, read into the TOML tables they replace.

A game's ``game.toml`` may name, in a ``[sheets]`` table, a sheet for any list of its data files (a top-level
array of tables such as ``scenes`` or ``unicorns``)::

    [sheets]
    scenes = { file = "scenes.xlsx", sheet = "scenes" }
    cards = { file = "cards.csv" }
    unicorns = { file = "cards.xlsx", into = "cards.toml" }

``file`` is relative to the game folder (``.csv`` or ``.xlsx``); ``sheet`` is the XLSX sheet (default: the list's
name); ``into`` is the data file the list belongs to (default: ``<list>.toml``). The rows become the same list of
tables the TOML array would give, so every engine validates them unchanged; the sheet replaces an array of the
same name in the TOML file, and a data file that only held sheeted lists may be left out.

The flat form (docs/data-format.md, "Card data from spreadsheets") is one rule for every game: a row is a card; a
column is the dotted path of one value (``title.en``); a list of tables is numbered from 1 (``slots.2.citizen``);
a list of plain values is one cell, ``|``-separated, in a column whose name ends in ``[]`` (``tags[]``, ``[]``
for an empty list). A text cell reads as an integer, a number or true/false when it looks like one; a leading
``'`` keeps it text. An empty cell is a value left out.

Writing is the exact inverse of reading (:func:`csv_cell`, :func:`xlsx_cell`): every text comes back as it went
out. A text that would not read back as itself — a number's look, a leading ``'``, only spaces — or that begins
with a character a spreadsheet program takes for a formula (:data:`FORMULA_STARTS`, OWASP's list) is written
behind one ``'``, which reading takes off again; XLSX text is stored as a string cell, never a formula.

Reading is bounded: a file of at most :data:`MAX_SHEET_BYTES`, at most :data:`MAX_SHEET_ROWS` rows, and an XLSX
workbook whose members unpack to at most :data:`MAX_UNPACKED_BYTES` with at most :data:`MAX_SHEET_ROWS` rows and
:data:`MAX_SHEET_CELLS` cells in any (counted while they are unpacked, so a zip bomb stops early:
:func:`check_workbook_size`).

Errors name the spreadsheet, the sheet, the row and the column: the engine's error (file, entry, field) is mapped
back through the rows read (:meth:`Origins.locate`). openpyxl is imported only when an XLSX file is read or
written. Pure of the engines: nothing here names a game.
"""

from __future__ import annotations

import csv
import io
import math
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Callable, Iterable

from bridge.errors import DataError
from bridge.rules.reader import show

MAX_SHEET_BYTES = 16 * 1024 * 1024
"""Largest spreadsheet read: a deck of a few hundred cards is well under a megabyte."""
MAX_SHEET_ROWS = 100_000
"""Most rows read from a sheet, the header and blank rows included (an XLSX sheet's gaps count as rows)."""
MAX_UNPACKED_BYTES = 64 * 1024 * 1024
"""Most bytes the members of an XLSX workbook may unpack to, all members together."""
MAX_SHEET_CELLS = 1_000_000
"""Most cells an XLSX sheet may hold (a deck of a thousand cards of fifty columns holds 50,000)."""
MAX_XLSX_MEMBERS = 10_000
"""Most members an XLSX workbook may hold (a workbook of a few sheets has about a dozen)."""

FORMATS = ("csv", "xlsx")
LIST_SUFFIX = "[]"
SEPARATOR = "|"
EMPTY_LIST = "[]"
TEXT_MARK = "'"
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""The characters that make a spreadsheet program read a cell beginning with one as a formula (OWASP, "CSV
Injection"): a text beginning with one, after any spaces, is written behind :data:`TEXT_MARK`."""
CSV_BOM = "\ufeff"
"""Written at the start of every CSV file so that Excel reads it as UTF-8; reading accepts a file with or
without it."""
_XLSX_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")
"""OOXML's escape of a character an XML file cannot hold (``_x000D_`` is a carriage return)."""
_XLSX_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0d\x0e-\x1f\ufffe\uffff]|_(?=x[0-9A-Fa-f]{4}_)")
"""What :func:`xlsx_cell` escapes: what XML cannot hold, a carriage return (an XML reader turns it into a line
feed) and the ``_`` of a text that looks like an escape."""

_INT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT = re.compile(r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][+-]?[0-9]+)?\Z")
_SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z|[1-9][0-9]*\Z")
_INDEXED_ENTRY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)\[([0-9]+)\]")
_NAMED_ENTRY = re.compile(r'([A-Za-z_][A-Za-z0-9_ -]*?) "(.*)"\Z')
_FIELD_INDEX = re.compile(r"\[([0-9]+)\]")


# ---------------------------------------------------------------------------------------------------------------
# [sheets] of game.toml


@dataclass(frozen=True)
class SheetSpec:
    """One list read from a spreadsheet: ``name`` (the list's key), ``file``, ``sheet`` (XLSX only) and ``into``
    (the data file it belongs to)."""

    name: str
    file: str
    sheet: str | None
    into: str

    def where(self) -> str:
        """How errors name the sheet: ``sheet "scenes"`` for an XLSX file, nothing for a CSV file."""
        return f'sheet "{self.sheet}"' if self.sheet is not None else ""


def sheet_specs(game_document: dict[str, Any], data_files: Iterable[str], file: str = "game.toml") -> list[SheetSpec]:
    """The ``[sheets]`` table of a parsed ``game.toml``, checked (none: an empty list)."""
    raw = game_document.get("sheets")
    if raw is None:
        return []
    files = tuple(data_files)
    if not isinstance(raw, dict):
        raise DataError(file, "[sheets]", None, f"expected a table, got {show(raw)}")
    specs = []
    for name, value in raw.items():
        def fail(message: str, key: str | None = None) -> DataError:
            return DataError(file, "[sheets]", f"{name}.{key}" if key else name, message)
        if not _SEGMENT.match(name) or name[0].isdigit():
            raise fail("not a list name (letters, digits, - and _)")
        if not isinstance(value, dict):
            raise fail(f'expected a table like {{ file = "{name}.csv" }}, got {show(value)}')
        for key in value:
            if key not in ("file", "sheet", "into"):
                raise fail("unknown field (expected file, sheet, into)", key)
        path = value.get("file")
        if not isinstance(path, str) or not path.strip():
            raise fail("missing" if path is None else f"expected a file name, got {show(path)}", "file")
        suffix = Path(path).suffix.lower()
        if suffix not in (".csv", ".xlsx"):
            raise fail(f"{show(path)} is neither a .csv nor an .xlsx file", "file")
        sheet = value.get("sheet")
        if suffix == ".csv" and sheet is not None:
            raise fail("a CSV file has no sheets: leave sheet out", "sheet")
        if suffix == ".xlsx":
            if sheet is None:
                sheet = name
            elif not isinstance(sheet, str) or not sheet.strip():
                raise fail(f"expected a sheet name, got {show(sheet)}", "sheet")
        into = value.get("into", f"{name}.toml")
        if into not in files or into == file:
            if "into" in value:
                others = ", ".join(name_ for name_ in files if name_ != file)
                raise fail(f"{show(into)} is not one of the game's data files ({others})", "into")
            raise fail(f"{name}.toml is not a data file of the game: say which file the list belongs to, "
                       f"e.g. into = {show(files[-1])}", "into")
        specs.append(SheetSpec(name, path, sheet, into))
    return specs


# ---------------------------------------------------------------------------------------------------------------
# Cells


def parse_text(text: str) -> Any:
    """A text cell's value: true/false, an integer, a number, or the text (a leading ``'`` keeps it text)."""
    if text.startswith(TEXT_MARK):
        return text[1:]
    stripped = text.strip()
    if stripped in ("true", "false", "TRUE", "FALSE", "True", "False"):
        return stripped.lower() == "true"
    if _INT.match(stripped):
        return int(stripped)
    if _FLOAT.match(stripped):
        return float(stripped)
    return text


def format_scalar(value: Any) -> str:
    """The text of a value such that :func:`parse_text` gives it back, marked with a leading ``'`` when it would
    not read back as itself, would be an empty cell (only spaces) or begins with a formula's character."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    back = parse_text(text)
    if not isinstance(back, str) or back != text or not text.strip() or _looks_like_formula(text):
        return TEXT_MARK + text
    return text


def _looks_like_formula(text: str) -> bool:
    return text[:1] in FORMULA_STARTS or text.lstrip(" ")[:1] in FORMULA_STARTS


def parse_item(text: str) -> Any:
    """One item of a list cell: spaces around it do not count; after a leading ``'`` the rest is the text, as
    it stands (spaces included)."""
    stripped = text.lstrip()
    if stripped.startswith(TEXT_MARK):
        return stripped[1:]
    return parse_text(text.strip())


def format_item(value: Any) -> str:
    """The text of one item of a list such that :func:`parse_item` gives it back (a text that would not, or
    that is blank or reads as the empty list ``[]``, or begins with a formula's character, behind a ``'``)."""
    if not isinstance(value, str):
        return format_scalar(value)
    if (parse_item(value) != value or not value.strip() or value.strip() == EMPTY_LIST
            or _looks_like_formula(value)):
        return TEXT_MARK + value
    return value


def csv_cell(column: str, value: Any) -> str:
    """The text a CSV file holds for ``value`` (a :func:`flatten` cell) in ``column``: a scalar as
    :func:`format_scalar` writes it; a list cell as it is, unless it begins with a formula's character (only a
    negative number can, the items' texts being marked): then after a space, which reading ignores."""
    if not column.endswith(LIST_SUFFIX):
        return format_scalar(value)
    return " " + value if _looks_like_formula(value) else value


def xlsx_cell(column: str, value: Any) -> Any:
    """The value an XLSX sheet holds for ``value`` (a :func:`flatten` cell) in ``column``: numbers and booleans
    as they are; a text behind a ``'`` when it begins with one or holds only spaces (a list cell's items are
    marked already), then with what XML cannot hold escaped as OOXML does (``_x000D_``). The writer must store
    it as a string cell: a text beginning with ``=`` is not a formula."""
    if not isinstance(value, str):
        return value
    if not column.endswith(LIST_SUFFIX) and (value.startswith(TEXT_MARK) or not value.strip()):
        value = TEXT_MARK + value
    return _XLSX_UNSAFE.sub(lambda m: f"_x{ord(m.group(0)):04X}_", value)


def xlsx_text(stored: str) -> str:
    """The text an XLSX string cell stands for: OOXML's ``_xHHHH_`` escapes undone (a surrogate's code is left
    as it stands: no text holds a lone one)."""
    if "_x" not in stored:
        return stored

    def unescape(match: re.Match) -> str:
        code = int(match.group(1), 16)
        return match.group(0) if 0xD800 <= code <= 0xDFFF else chr(code)
    return _XLSX_ESCAPED.sub(unescape, stored)


# ---------------------------------------------------------------------------------------------------------------
# Flattening: records ↔ rows


class FlattenError(ValueError):
    """A record that has no flat form (a list of lists, a ``|`` inside a list item)."""


def flatten(record: dict[str, Any]) -> dict[str, Any]:
    """One record as column → cell value (a scalar; a list of plain values as one ``|``-joined text)."""
    cells: dict[str, Any] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            for index, item in enumerate(value, 1):
                walk(item, f"{path}.{index}")
        elif isinstance(value, list):
            texts = []
            for item in value:
                if isinstance(item, (dict, list)):
                    raise FlattenError(f"{path}: a list of lists or of mixed tables and values has no flat form")
                text = format_item(item)
                if SEPARATOR in text:
                    raise FlattenError(f"{path}: {show(item)} holds {SEPARATOR}, the list separator")
                texts.append(text)
            cells[path + LIST_SUFFIX] = SEPARATOR.join(texts) if texts else EMPTY_LIST
        else:
            cells[path] = value

    walk(record, "")
    return cells


def columns_of(rows: list[dict[str, Any]]) -> list[str]:
    """Every column of ``rows`` in first-seen order, numbered groups kept together (``slots.1.*`` … ``slots.4.*``)."""
    order: dict[str, None] = {}
    for row in rows:
        for column in row:
            order.setdefault(column, None)
    names = list(order)

    def key(column: str) -> tuple:
        # Sort by the first appearance of each path prefix with its numbers taken out, then by those numbers.
        parts = column.removesuffix(LIST_SUFFIX).split(".")
        shape = ".".join("#" if part.isdigit() else part for part in parts)
        return (first_shape.setdefault(_group(shape), len(first_shape)),
                [int(part) if part.isdigit() else 0 for part in parts], names.index(column))

    first_shape: dict[str, int] = {}
    for column in names:
        parts = column.removesuffix(LIST_SUFFIX).split(".")
        first_shape.setdefault(_group(".".join("#" if p.isdigit() else p for p in parts)), len(first_shape))
    return sorted(names, key=key)


def _group(shape: str) -> str:
    return shape.split(".#", 1)[0] if ".#" in shape else shape


@dataclass(frozen=True)
class ReadList:
    """A list read from a sheet: its spec, its columns, and each record's row number and ``id`` (if any)."""

    spec: SheetSpec
    columns: list[str]
    rows: list[int]
    ids: list[Any]


@dataclass
class Origins:
    """Where each record of the sheeted lists came from, to turn an engine's error into a row and a column."""

    lists: dict[tuple[str, str], ReadList] = field(default_factory=dict)

    def locate(self, error: DataError) -> DataError:
        """``error`` (file, entry, field of the TOML form) naming the spreadsheet, sheet, row and column instead,
        when it is about a sheeted list; otherwise ``error`` itself."""
        mine = {name: found for (into, name), found in self.lists.items() if into == error.file}
        if not mine:
            return error
        entry, path = error.entry or "", error.field or ""
        target: tuple[str, int | None] | None = None
        indexed = _INDEXED_ENTRY.fullmatch(entry.split(" (", 1)[0]) if entry else None
        named = _NAMED_ENTRY.match(entry) if entry else None
        if indexed and indexed.group(1) in mine:
            target = (indexed.group(1), int(indexed.group(2)))
        elif named:
            target = _by_id(mine, named.group(1), named.group(2))
        elif not entry and path:
            head = re.match(r"([A-Za-z_][A-Za-z0-9_-]*)(?:\[([0-9]+)\])?(?:\.(.*))?\Z", path)
            if head and head.group(1) in mine:
                index = int(head.group(2)) if head.group(2) is not None else None
                target = (head.group(1), index)
                path = (head.group(3) or "") if index is not None else ""
        if target is None:
            return error
        name, index = target
        found = mine[name]
        parts = [found.spec.where()] if found.spec.where() else []
        if index is not None and 0 <= index < len(found.rows):
            parts.append(f"row {found.rows[index]}")
            if path:
                parts.append(f'column "{column_of(path, found.columns)}"')
        return DataError(found.spec.file, ", ".join(parts) or None, None, error.message)


def _by_id(mine: dict[str, ReadList], kind: str, ident: str) -> tuple[str, int] | None:
    """The list and index of the record with id ``ident``: in the list named like ``kind`` (``scene`` →
    ``scenes``) first; the last of equal ids, since a duplicate is reported at its second use."""
    ranked = sorted(mine, key=lambda name: not name.startswith(kind[:max(3, len(kind) - 1)]))
    for name in ranked:
        ids = mine[name].ids
        for index in range(len(ids) - 1, -1, -1):
            if ids[index] == ident:
                return name, index
    return None


def column_of(path: str, columns: list[str]) -> str:
    """The column an engine's field path (``slots[2].humours``, 0-based) is read from (``slots.3.humours[]``)."""
    dotted = _FIELD_INDEX.sub(lambda m: f".{int(m.group(1)) + 1}", path)
    candidate = dotted
    while candidate:
        if candidate in columns:
            return candidate
        if candidate + LIST_SUFFIX in columns:
            return candidate + LIST_SUFFIX
        if any(column.startswith(candidate + ".") for column in columns):
            return candidate + ".*"
        head, _, last = candidate.rpartition(".")
        if not last.isdigit():
            break
        candidate = head   # an item of a list of plain values: the list's column
    return dotted


# ---------------------------------------------------------------------------------------------------------------
# Reading


def read_cells(folder: Path, spec: SheetSpec) -> tuple[list[Any], list[tuple[int, list[Any]]]]:
    """The header and the non-empty rows (row number, cells) of ``spec``'s sheet; header is row 1."""
    path = _inside(folder, spec)
    if not path.is_file():
        raise DataError(spec.file, None, None, f"file not found in the game folder {Path(folder).name}/ "
                                               f"(named by game.toml [sheets] {spec.name})")
    try:
        if path.stat().st_size > MAX_SHEET_BYTES:
            raise DataError(spec.file, None, None, f"larger than {MAX_SHEET_BYTES // (1024 * 1024)} MB")
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(spec.file, None, None, f"cannot read: {exc.strerror or exc}") from None
    table = _xlsx_rows(spec, raw) if spec.sheet is not None else _csv_rows(spec, raw)
    if not table or not any(_filled(cell) for cell in table[0]):
        raise DataError(spec.file, spec.where() or None, None, "no header row (row 1 names the columns)")
    header = table[0]
    rows = [(number, cells) for number, cells in enumerate(table[1:], 2) if any(_filled(c) for c in cells)]
    return header, rows


def _inside(folder: Path, spec: SheetSpec) -> Path:
    """The sheet's file: a relative path with / separators that stays inside the game folder."""
    def fail(message: str) -> DataError:
        return DataError("game.toml", "[sheets]", f"{spec.name}.file", f"{show(spec.file)} {message}")
    if "\\" in spec.file:
        raise fail("uses \\: separate folders with /")
    if PurePosixPath(spec.file).is_absolute() or PureWindowsPath(spec.file).drive:
        raise fail("must be relative to the game folder")
    base = Path(folder).resolve()
    path = (base / spec.file).resolve()
    if not path.is_relative_to(base):
        raise fail("leads outside the game folder")
    return path


def _capped_rows(spec: SheetSpec, rows: Iterable[Any]) -> list[list[Any]]:
    """``rows`` as lists, stopping with an error at the row past :data:`MAX_SHEET_ROWS`."""
    table = []
    for row in rows:
        if len(table) == MAX_SHEET_ROWS:
            raise DataError(spec.file, spec.where() or None, None,
                            f"more than {MAX_SHEET_ROWS:,} rows (blank rows count): a card list is far shorter")
        table.append(list(row))
    return table


def _csv_rows(spec: SheetSpec, raw: bytes) -> list[list[Any]]:
    try:
        text = raw.decode("utf-8-sig")   # Excel writes a BOM before UTF-8; other programs do not
    except UnicodeDecodeError:
        raise DataError(spec.file, None, None, "not UTF-8 text (save the CSV as UTF-8)") from None
    try:
        return _capped_rows(spec, csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as exc:
        raise DataError(spec.file, None, None, f"invalid CSV: {exc}") from None


def check_workbook_size(file: str, raw: bytes) -> None:
    """Refuse, naming ``file``, an XLSX workbook (a zip archive) of more than :data:`MAX_XLSX_MEMBERS` members,
    whose members unpack to more than :data:`MAX_UNPACKED_BYTES`, or a part of which holds more than
    :data:`MAX_SHEET_ROWS` rows or :data:`MAX_SHEET_CELLS` cells. Every member is unpacked and its bytes and
    its row and cell elements counted as they come (what a member's header claims is not trusted), stopping
    at the first past a cap: the workbook reader is never handed a bomb (it parses a sheet without a stated
    size twice, once to size it). A file that is no zip archive is left for the workbook reader to report; a
    damaged member is refused."""
    def refuse(message: str) -> DataError:
        return DataError(file, None, None, message)
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError):
        return
    with archive:
        members = archive.infolist()
        if len(members) > MAX_XLSX_MEMBERS:
            raise refuse(f"a workbook of {len(members):,} parts (at most {MAX_XLSX_MEMBERS:,})")
        too_large = f"unpacks to more than {MAX_UNPACKED_BYTES / 2 ** 20:g} MB: not a card list (a zip bomb?)"
        if sum(member.file_size for member in members) > MAX_UNPACKED_BYTES:
            raise refuse(too_large)   # what the headers claim is already too much: no need to unpack
        unpacked = 0
        for member in members:
            rows = cells = 0
            tail = b""
            try:
                with archive.open(member) as stream:
                    while chunk := stream.read(1024 * 1024):
                        unpacked += len(chunk)
                        if unpacked > MAX_UNPACKED_BYTES:
                            raise refuse(too_large)
                        # An element's start cut by the chunk's start is found in the tail kept from the last
                        # chunk; one wholly inside that tail was counted with it.
                        window = tail + chunk
                        for found in _SHEET_ELEMENT.finditer(window):
                            if found.end() > len(tail):
                                if found.group(1) == b"row":
                                    rows += 1
                                else:
                                    cells += 1
                        tail = window[-_TAIL:]
                        if rows > MAX_SHEET_ROWS:
                            raise refuse(f"{show(member.filename)} holds more than {MAX_SHEET_ROWS:,} rows: a "
                                         "card list is far shorter")
                        if cells > MAX_SHEET_CELLS:
                            raise refuse(f"{show(member.filename)} holds more than {MAX_SHEET_CELLS:,} cells: a "
                                         "card list is far smaller")
            except DataError:
                raise
            except (zipfile.BadZipFile, zlib.error, NotImplementedError, ValueError, OSError, EOFError,
                    RuntimeError) as exc:
                # Damaged, encrypted or of an unknown compression. Refused here, whichever part it is: a part
                # left uncounted could hide a bomb in a later one.
                raise refuse(f"not a readable XLSX workbook ({type(exc).__name__} in {show(member.filename)})") \
                    from None


_SHEET_ELEMENT = re.compile(rb"<(?:[A-Za-z_][A-Za-z0-9_.-]{0,63}:)?(row|c)[\s/>]")
"""The start of a row or a cell element of a sheet's XML (its prefix, if any, left open)."""
_TAIL = 128
"""Bytes of a chunk kept to find an element cut by the next chunk's start (longer than any element's start)."""


def _xlsx_rows(spec: SheetSpec, raw: bytes) -> list[list[Any]]:
    import openpyxl   # only for XLSX files: importing it costs a noticeable fraction of a second

    check_workbook_size(spec.file, raw)
    try:
        book = openpyxl.load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception as exc:   # openpyxl raises zipfile, KeyError and its own errors for a damaged file
        raise DataError(spec.file, None, None, f"not a readable XLSX workbook ({type(exc).__name__})") from None
    try:
        if spec.sheet not in book.sheetnames:
            raise DataError(spec.file, None, None, f"no sheet {show(spec.sheet)} (sheets: "
                                                   f"{', '.join(book.sheetnames)})")
        rows = book[spec.sheet].iter_rows(values_only=True)
        try:
            table = _capped_rows(spec, rows)
        except DataError:
            raise
        except Exception as exc:   # the sheet's XML is damaged: openpyxl meets it only while reading rows
            raise DataError(spec.file, spec.where(), None,
                            f"not a readable XLSX sheet ({type(exc).__name__})") from None
        return [[xlsx_text(cell) if isinstance(cell, str) else cell for cell in row] for row in table]
    finally:
        book.close()


def _filled(cell: Any) -> bool:
    return cell is not None and not (isinstance(cell, str) and not cell.strip())


def read_list(folder: Path, spec: SheetSpec) -> tuple[list[dict[str, Any]], ReadList]:
    """The records of ``spec``'s sheet, as the TOML array would give them, and where each came from."""
    header, rows = read_cells(folder, spec)
    columns = _columns(spec, header)
    records, numbers = [], []
    for number, cells in rows:
        record: dict[str, Any] = {}
        for position, cell in enumerate(cells):
            if not _filled(cell):
                continue
            if position >= len(columns) or columns[position] is None:
                raise _cell_error(spec, number, None, f"a value ({show(cell)}) in column {position + 1}, "
                                                      "which has no name in row 1")
            name, parts = columns[position]
            value = _cell_value(spec, number, name, cell)
            _put(record, parts, value)
        records.append(_lists(spec, number, record, ""))
        numbers.append(number)
    ids = [record.get("id") for record in records]
    names = [column[0] if column else "" for column in columns]
    return records, ReadList(spec, names, numbers, ids)


def _cell_error(spec: SheetSpec, row: int, column: str | None, message: str) -> DataError:
    parts = [spec.where()] if spec.where() else []
    parts.append(f"row {row}")
    if column:
        parts.append(f'column "{column}"')
    return DataError(spec.file, ", ".join(parts), None, message)


def _columns(spec: SheetSpec, header: list[Any]) -> list[tuple[str, list[str | int]] | None]:
    """Each header cell as (column name, path parts: keys and 1-based indexes); None for an unnamed column."""
    where = ([spec.where()] if spec.where() else []) + ["row 1"]
    found: list[tuple[str, list[str | int]] | None] = []
    seen: dict[str, int] = {}
    for position, cell in enumerate(header, 1):
        if not _filled(cell):
            found.append(None)
            continue
        name = str(cell).strip()
        base = name.removesuffix(LIST_SUFFIX)
        segments = base.split(".")
        if not all(_SEGMENT.match(part) for part in segments) or segments[0].isdigit():
            raise DataError(spec.file, ", ".join(where + [f"column {position}"]), None,
                            f"{show(name)} is not a column name (dotted keys and numbers from 1, e.g. "
                            "title.en, slots.2.citizen, tags[])")
        if name in seen:
            raise DataError(spec.file, ", ".join(where + [f"column {position}"]), None,
                            f"{show(name)} is also column {seen[name]}")
        seen[name] = position
        parts: list[str | int] = [int(part) if part.isdigit() else part for part in segments]
        if name.endswith(LIST_SUFFIX):
            parts.append(LIST_SUFFIX)
        found.append((name, parts))
    for name, position in seen.items():   # a path may not be both a value and a table (title and title.en)
        base = name.removesuffix(LIST_SUFFIX)
        for other in seen:
            if other != name and other.startswith(base + "."):
                raise DataError(spec.file, ", ".join(where + [f"column {position}"]), None,
                                f"{show(name)} is a value, but column {show(other)} makes it a table")
    return found


def _cell_value(spec: SheetSpec, row: int, column: str, cell: Any) -> Any:
    if column.endswith(LIST_SUFFIX):
        text = format_scalar(cell) if not isinstance(cell, str) else cell
        if text.strip() == EMPTY_LIST:
            return []
        return [parse_item(item) for item in text.split(SEPARATOR)]
    if isinstance(cell, str):
        if spec.sheet is None:
            return parse_text(cell)
        return cell[len(TEXT_MARK):] if cell.startswith(TEXT_MARK) else cell
    if isinstance(cell, float) and not math.isfinite(cell):
        raise _cell_error(spec, row, column, f"{cell!r} is not a number a card can hold")
    if hasattr(cell, "isoformat"):
        raise _cell_error(spec, row, column, f"a date or time ({cell}); format the column as text or number")
    return cell


def _put(record: dict, parts: list[str | int], value: Any) -> None:
    """Store ``value`` at ``parts`` (list indexes kept as int keys; :func:`_lists` turns them into lists)."""
    node = record
    keys = [part for part in parts if part != LIST_SUFFIX]
    for part in keys[:-1]:
        node = node.setdefault(part, {})
    node[keys[-1]] = value


def _lists(spec: SheetSpec, row: int, node: Any, path: str) -> Any:
    """The tables whose keys are numbers, as lists; numbers must run 1, 2, … with no gap."""
    if not isinstance(node, dict):
        return node
    if node and all(isinstance(key, int) for key in node):
        numbers = sorted(node)
        for expected, number in enumerate(numbers, 1):
            if number != expected:
                raise _cell_error(spec, row, f"{path}.{number}.*",
                                  f"{path}.{expected} is empty: fill the numbered columns from 1 with no gap")
        return [_lists(spec, row, node[number], f"{path}.{number}") for number in numbers]
    if any(isinstance(key, int) for key in node):
        raise _cell_error(spec, row, path, "mixes numbered and named columns")
    return {key: _lists(spec, row, value, f"{path}.{key}" if path else key) for key, value in node.items()}


def apply_sheets(folder: Path, game_file: str, documents: dict[str, dict[str, Any]],
                 read_toml: Callable[[Path, str], dict[str, Any]], data_files: Iterable[str]) -> Origins:
    """Replace, in ``documents`` (data file → parsed TOML, game.toml read), each list that game.toml's
    ``[sheets]`` names with its sheet's records; a data file left out that holds only sheeted lists is read as
    empty. ``[sheets]`` is taken out of game.toml's document. Returns where each record came from."""
    files = tuple(data_files)
    game = documents[game_file]
    specs = sheet_specs(game, files, game_file)
    origins = Origins()
    if not specs:
        return origins
    documents[game_file] = {key: value for key, value in game.items() if key != "sheets"}
    targets = {spec.into for spec in specs}
    for name in files:
        if name not in documents:
            documents[name] = ({} if name in targets and not (Path(folder) / name).exists()
                               else read_toml(folder, name))
    for spec in specs:
        records, found = read_list(folder, spec)
        documents[spec.into] = {**documents[spec.into], spec.name: records}
        origins.lists[(spec.into, spec.name)] = found
    return origins
