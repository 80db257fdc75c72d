"""The engine of a game without rules: a table drawn from data alone (no ``engine`` in its ``[game]`` table).

Such a game is cards, boards and tokens on a table, built from its data files, ``layouts.toml`` (card
templates) and ``table.toml`` by :mod:`tools.tablegame`; the players play it as on a real table, and no bridge
adjudicates it. Its engine parses the data files into :class:`TableData` (the documents as they are: the card
lists a template draws) and answers nothing: every command that needs rules (``simulate``, ``adjudicate``, a
bridge request, …) stops with :class:`bridge.rules.errors.NoRulesError` saying so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from bridge.rules import reader as r
from bridge.rules.errors import NoRulesError, UnknownRequestType
from bridge.rules.game import GameMeta, parse_game_meta, register_game, registered_game


@dataclass(frozen=True)
class TableData:
    """A table-only game's data: its ``[game]`` table and every data file's document, by file name."""

    info: GameMeta
    documents: Mapping[str, Any]

    def card_list(self, name: str) -> tuple[tuple[str, int, Mapping[str, Any]], ...]:
        """The entries of the data files' top-level array of tables ``name`` (``[[name]]``, or a spreadsheet's
        rows): ``(file, position from 1, entry)`` each; empty when no file has it."""
        found = []
        for file, document in self.documents.items():
            entries = document.get(name) if isinstance(document, Mapping) else None
            if isinstance(entries, list) and all(isinstance(e, Mapping) for e in entries):
                found += [(file, index + 1, entry) for index, entry in enumerate(entries)]
        return tuple(found)


class TableOnlyGame:
    """The engine registered for a game whose ``[game]`` table names no engine."""

    request_types: tuple[str, ...] = ()
    refusal_reasons: Mapping[str, str] = {}

    def __init__(self, game_id: str) -> None:
        self.id = game_id

    def _none(self, what: str) -> NoRulesError:
        return NoRulesError(f"{self.id} has no rules engine (its game.toml names no [game] engine), so it cannot "
                            f"{what}: it is a table to play by hand. Build it with ttsmod build, print it with "
                            "ttsmod pnp; docs/development.md (Adding a game) says how to add rules.")

    def parse(self, documents: Mapping[str, Any]) -> TableData:
        info = parse_game_meta(documents["game.toml"])
        for file, document in documents.items():
            r.table(r.At.data(file), document)
        return TableData(info, dict(documents))

    def meta(self, data: TableData) -> GameMeta:
        return data.info

    def new_game(self, data: Any, players: int, *, mode: str | None = None, seed: int = 0) -> Any:
        raise self._none("start a game")

    def from_snapshot(self, data: Any, snapshot: Any) -> Any:
        raise self._none("read a snapshot")

    def snapshot_schema(self, data: Any) -> Any:
        raise self._none("declare a snapshot")

    def handle(self, data: Any, request_type: str, body: Any) -> dict[str, Any]:
        raise UnknownRequestType(f"{self.id} has no rules engine: it answers no requests, not {request_type!r}")

    def score(self, data: Any, state: Any) -> dict[str, Any]:
        raise self._none("score a game")

    def choice_json(self, data: Any, player: int, answer: str) -> dict[str, Any]:
        raise self._none("read a decision")

    def action_from_json(self, data: Any, value: Any) -> Any:
        raise self._none("read an action")

    def action_from_text(self, data: Any, text: str) -> Any:
        raise self._none("read an action")

    def components(self, state: Any) -> Mapping[str, int]:
        raise self._none("count its components")

    def redeal_hidden(self, state: Any, player: int, seed: int) -> Any:
        raise self._none("deal")

    def summary(self, state: Any, actions: Sequence[Any]) -> dict[str, Any]:
        raise self._none("sum up a game")

    def aggregate(self, summaries: Sequence[dict[str, Any]], players: int) -> dict[str, Any]:
        raise self._none("sum up games")


def table_only_engine(game_id: str) -> TableOnlyGame:
    """The table-only engine of ``game_id``, registered the first time it is asked for."""
    try:
        found = registered_game(game_id)
    except KeyError:
        return register_game(TableOnlyGame(game_id))   # type: ignore[return-value]
    if not isinstance(found, TableOnlyGame):
        raise NoRulesError(f"{game_id} names no engine, but another game folder registered an engine under "
                           "the same id: give this game an id of its own")
    return found
