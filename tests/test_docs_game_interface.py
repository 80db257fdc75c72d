"""docs/development.md, "The game interface", lists the interface as the code declares it: every member of the
``Game`` and ``GameState`` protocols (bridge/rules/game.py), and every optional capability of the query
(``tools.games.builder.CAPABILITIES``) with what declares it — no more, no fewer, in the code's order for the
capabilities — so the page cannot drift from the code."""

from __future__ import annotations

import re

import pytest

from bridge.catalog import load
from bridge.rules.game import Game, GameState
from tests.everygame import GAME_FOLDERS, require
from tools.games.builder import CAPABILITIES


def section(repo_root) -> str:
    text = (repo_root / "docs" / "development.md").read_text(encoding="utf-8")
    start = text.index("\n## The game interface\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def tables(text: str, first_header: str) -> list[list[list[str]]]:
    """The rows (cells, stripped) of every table of ``text`` whose header's first cell is ``first_header``."""
    found, rows = [], None
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells is None:
            rows = None
        elif rows is None and cells[0] == first_header:
            rows = []
            found.append(rows)
        elif rows is not None and not set(cells[0]) <= set("-:"):
            rows.append(cells)
    return found


def protocol_members(protocol: type) -> list[str]:
    """The members a protocol class requires: its annotated attributes and its public methods and properties."""
    names = list(vars(protocol).get("__annotations__", {}))
    names += [name for name, value in vars(protocol).items()
              if not name.startswith("_") and (callable(value) or isinstance(value, property)) and name not in names]
    return names


def listed(rows: list[list[str]]) -> list[str]:
    """The member each row names: the identifier its first cell starts with (``new_game(data, …)`` → new_game)."""
    return [re.match(r"`([A-Za-z_][A-Za-z0-9_]*)", row[0]).group(1) for row in rows]


def test_the_page_lists_every_member_of_the_game_and_state_protocols(repo_root):
    engine, state = tables(section(repo_root), "member")
    assert sorted(listed(engine)) == sorted(protocol_members(Game))
    assert sorted(listed(state)) == sorted(protocol_members(GameState))
    assert "check" in listed(state)        # the contract's legal asks it of every state


def test_the_page_lists_every_capability_of_the_query_with_what_declares_it(repo_root):
    (rows,) = tables(section(repo_root), "capability")
    assert [(row[0], row[1]) for row in rows] == [(f"`{c.name}`", f"`{c.declared_by}`") for c in CAPABILITIES]
    assert all(row[2] for row in rows), "each row says what a game without the capability loses"


def test_the_skip_reason_the_page_quotes_is_the_one_a_test_gives(repo_root):
    toy = load(next(folder for folder in GAME_FOLDERS if folder.name == "pebble_race"))
    with pytest.raises(pytest.skip.Exception) as skipped:
        require(toy, "print_sizes")
    assert f"`{skipped.value.msg}`" in section(repo_root)
