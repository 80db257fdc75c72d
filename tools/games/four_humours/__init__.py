"""The Four Humours builder (:class:`tools.games.builder.GameBuilder`), registered on import.

``render`` draws the cards, boards and tokens (:mod:`.render`, humour icons in :mod:`.icons`); ``table`` lays
them out (:mod:`.table`, from the folder's ``table.toml``); ``payload`` is the mod's ``generated.game`` module
(:mod:`.payload`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from bridge.rules.four_humours.game import GAME_ID
from bridge.rules.four_humours.records import FourHumoursData
from tools.entrykeys import EntryKeys
from tools.games.builder import register_builder
from tools.games.four_humours import payload, render, table
from tools.render.pipeline import Art, Progress
from tools.save import Save


class FourHumoursBuilder:
    """Decks (scenes, goals, parties), boards, potions and markers; kingdom or fief table."""

    id = GAME_ID
    takes_entries = True   # the scenes' image keys and cards are kept by their entries (tools.entrykeys)

    def render(self, data: FourHumoursData, out_dir: Path, *, lang: str, fmt: str, quality: int,
               use_cache: bool, jobs: int | None, progress: Progress | None, game_dir: Path, prune: bool = True,
               max_pixels: int | None = None, entries: EntryKeys | None = None) -> Art:
        # Looked up on the module at call time, so a test can stand in for the drawing.
        return render.render_game(data, out_dir, lang=lang, fmt=fmt, quality=quality, use_cache=use_cache,
                                  jobs=jobs, progress=progress, game_dir=game_dir, prune=prune,
                                  max_pixels=max_pixels, entries=entries)

    def compose(self, data: FourHumoursData, art: Art, *, mode: str, lang: str, url_for: Callable[[Path], str],
                game_dir: Path, lua_script: str, xml_ui: str, entries: EntryKeys | None = None) -> Save:
        return table.compose_table(data, art, mode=mode, url_for=url_for, lang=lang,
                                   slot_layouts=table.slot_layouts_of(art, game_dir), lua_script=lua_script,
                                   xml_ui=xml_ui, game_dir=game_dir, entries=entries)

    def mod_module(self, data: FourHumoursData, mode: str) -> str:
        return payload.generated_game_module(data, mode)


register_builder(FourHumoursBuilder())
