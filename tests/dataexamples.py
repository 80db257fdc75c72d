"""The examples of a game's card lists its own data-format page shows, made from the game's data.

A card list is what ``ttsmod data export`` writes as one spreadsheet: every top-level array of tables of the
game's data files (:func:`tools.data_export.card_lists`, asked of the game's own documents, so no game is
named here). Its example is the list's first :data:`EXAMPLE_ROWS` records in the flat form of
``docs/data-format.md`` ("Card data from spreadsheets"), with only the columns those rows fill — the CSV the
export writes for them.

A game's page (:func:`page_of`: ``docs/games/<mod>/data-format.md`` for a built-in game, ``<mod>`` its module
name ``GameMeta.mod``; ``data-format.md`` in the folder of a game kept outside ttsmod) holds the examples between
:data:`BEGIN` and :data:`END`; ``tests/test_docs_data_format.py`` fails when they are not what the data gives.
After a change to a game's card lists, or for a new game, write them with ``python -m tests.dataexamples [GAME
...]`` (default: every built-in game): the examples are replaced, or added at the end of the page under their own
heading (the page is made when missing). No shared page holds a game's examples, so a new game edits none.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

from bridge.catalog import builtin_games, load_documents, resolve_game
from bridge.fsio import atomic_write_text
from tools.data_export import card_lists, csv_bytes, flat_rows

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_ROWS = 2
BEGIN = "<!-- card-list examples: made from the data by python -m tests.dataexamples; do not edit by hand -->"
END = "<!-- end of card-list examples -->"
HEADING = "## The card lists as spreadsheet rows"
LIST = re.compile(r"<!-- list: (\S+) in (\S+) -->\n```csv\n(.*?)```", re.S)
"""One example in a page: the list's name, its data file, the CSV."""


def page_of(game: str) -> Path:
    """The data-format page of ``game`` (a built-in id or a game folder): ``data-format.md`` in the folder of a
    game kept outside ttsmod (as its ``protocol.md``), else ``docs/games/<mod>/data-format.md``."""
    found = resolve_game(game)
    if found.folder.resolve() in {folder.resolve() for folder in builtin_games().values()}:
        return REPO_ROOT / "docs" / "games" / found.meta.mod / "data-format.md"
    return found.folder / "data-format.md"


def lists_of(game: str) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(data file, list name, records) of each card list of ``game``, as ``ttsmod data export`` finds them."""
    found = resolve_game(game)
    return card_lists(load_documents(found.folder, found.meta))


def example_csv(into: str, name: str, records: list[dict[str, Any]]) -> str:
    """The CSV of the list's first rows, only the columns they fill."""
    return csv_bytes(*flat_rows(into, name, records[:EXAMPLE_ROWS])).decode("utf-8-sig")


def examples(game: str) -> str:
    """What the page of ``game`` holds between :data:`BEGIN` and :data:`END`."""
    shared = Path(os.path.relpath(REPO_ROOT / "docs" / "data-format.md", page_of(game).parent)).as_posix()
    intro = (f"The first {EXAMPLE_ROWS} cards of each card list as spreadsheet rows, in the flat form of "
             f"[Card data from spreadsheets]({shared}#card-data-from-spreadsheets) (only the columns "
             "these rows fill; `ttsmod data export` writes every column of a list). Made from the data by "
             "`python -m tests.dataexamples`: `tests/test_docs_data_format.py` fails when they differ from it.")
    # Wrapped as the pages are, never inside a `code span`.
    kept = re.sub(r"`[^`]*`", lambda m: m.group(0).replace(" ", "\0"), intro)
    wrapped = textwrap.fill(kept, 115, break_long_words=False, break_on_hyphens=False).replace("\0", " ")
    parts = [f"\n{wrapped}\n"]
    for into, name, records in lists_of(game):
        parts.append(f"\n`{name}` ({into}):\n\n<!-- list: {name} in {into} -->\n```csv\n"
                     f"{example_csv(into, name, records)}```\n")
    return "".join(parts) + "\n"


def shown(text: str) -> str | None:
    """What ``text`` (a page) holds between :data:`BEGIN` and :data:`END`, or None without both (in order)."""
    start = text.find(BEGIN)
    end = text.find(END, start + 1) if start >= 0 else -1
    return text[start + len(BEGIN):end] if end >= 0 else None


def shown_lists(text: str) -> list[tuple[str, str, str]]:
    """(list name, data file, CSV) of each example a page shows between its markers."""
    return LIST.findall(shown(text) or "")


def write(game: str) -> Path:
    """Write the examples of ``game`` into its page (see the module docstring); returns the page."""
    page = page_of(game)
    made = examples(game)
    text = page.read_text(encoding="utf-8") if page.is_file() else \
        f"# {resolve_game(game).meta.name.en}: the data files\n"
    old = shown(text)
    if old is None:
        text = f"{text.rstrip()}\n\n{HEADING}\n\n{BEGIN}{made}{END}\n"
    else:
        start = text.index(BEGIN) + len(BEGIN)
        text = text[:start] + made + text[start + len(old):]
    page.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(page, text)
    return page


if __name__ == "__main__":
    for name in sys.argv[1:] or sorted(builtin_games()):
        print(write(name))
