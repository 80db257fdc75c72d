"""The 15 Days builder (:class:`tools.games.builder.GameBuilder`), registered on import.

``render`` draws the cards, backs, boards and tokens (:mod:`.render`); ``table`` lays them out (:mod:`.table`,
from the folder's ``table.toml``); ``payload`` is the mod's ``generated.game`` module (:mod:`.payload`);
:mod:`.geometry` is where things lie on a board and in the market, shared by the drawing and the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from bridge.rules.fifteen_days.records import FifteenDaysData
from tools.games.builder import register_builder
from tools.games.fifteen_days import payload, render, table
from tools.render.pipeline import Art, Progress
from tools.save import Save

GAME_ID = "fifteen-days"


class FifteenDaysBuilder:
    """Season decks (one per back), wilds, feathers, animals, player boards and overview cards; one table."""

    id = GAME_ID

    def render(self, data: FifteenDaysData, out_dir: Path, *, lang: str, fmt: str, quality: int, use_cache: bool,
               jobs: int | None, progress: Progress | None, game_dir: Path, prune: bool = True,
               max_pixels: int | None = None) -> Art:
        # Everything is drawn, no art file is read, so max_pixels has nothing to limit.
        return render.render_game(data, out_dir, lang=lang, fmt=fmt, quality=quality, use_cache=use_cache,
                                  jobs=jobs, progress=progress, game_dir=game_dir, prune=prune)

    def compose(self, data: FifteenDaysData, art: Art, *, mode: str, lang: str, url_for: Callable[[Path], str],
                game_dir: Path, lua_script: str, xml_ui: str) -> Save:
        return table.compose_table(data, art, mode=mode, lang=lang, url_for=url_for,
                                   layouts=render.load_fifteen_days_layouts(game_dir), lua_script=lua_script,
                                   xml_ui=xml_ui, game_dir=game_dir)

    def mod_module(self, data: FifteenDaysData, mode: str) -> str:
        return payload.generated_game_module(data, mode)


register_builder(FifteenDaysBuilder())
