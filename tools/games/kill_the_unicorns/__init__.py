"""The Kill the Unicorns builder (:class:`tools.games.builder.GameBuilder`), registered on import.

``render`` draws the cards, backs, boards and tokens (:mod:`.render`); ``table`` lays them out (:mod:`.table`,
from the folder's ``table.toml``); ``payload`` is the mod's ``generated.game`` module (:mod:`.payload`);
:mod:`.geometry` is where things lie on the boards and on the table, shared by the drawing and the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from bridge.rules.kill_the_unicorns.records import KillTheUnicornsData
from tools.games.builder import register_builder
from tools.games.kill_the_unicorns import geometry, payload, render, table
from tools.render.pipeline import Art, Progress
from tools.save import Save

GAME_ID = "kill-the-unicorns"


def mod_layout(data: KillTheUnicornsData) -> dict:
    """The table geometry of ``generated.game`` (``layout``): numbers that do not depend on ``layouts.toml`` (the
    mod finds every place from the zones and snap points themselves; see the table contract)."""
    card_w, card_d = geometry.card_size_units()
    return {
        "card": [card_w, card_d],
        "catch_columns": render.catch_columns(data),
        "catch_step": geometry.CATCH_STEP,
        "catch_lift": geometry.CATCH_LIFT,
        "pinned_offset": list(geometry.PINNED_OFFSET),
        "token_offset": list(geometry.TOKEN_OFFSET),
        "hunt_spots": geometry.HUNT_SPOTS,
        "token_size": geometry.TOKEN_SIZE,
    }


class KillTheUnicornsBuilder:
    """Per character a hunting deck and a trick deck (own backs) and a character card; the unicorns; the
    market, tokens, first-player token, scoring card; the ground and seat mats; one table."""

    id = GAME_ID

    def render(self, data: KillTheUnicornsData, out_dir: Path, *, lang: str, fmt: str, quality: int,
               use_cache: bool, jobs: int | None, progress: Progress | None, game_dir: Path, prune: bool = True,
               max_pixels: int | None = None) -> Art:
        # Everything is drawn, no art file is read, so max_pixels has nothing to limit.
        return render.render_game(data, out_dir, lang=lang, fmt=fmt, quality=quality, use_cache=use_cache,
                                  jobs=jobs, progress=progress, game_dir=game_dir, prune=prune)

    def compose(self, data: KillTheUnicornsData, art: Art, *, mode: str, lang: str, url_for: Callable[[Path], str],
                game_dir: Path, lua_script: str, xml_ui: str) -> Save:
        return table.compose_table(data, art, mode=mode, lang=lang, url_for=url_for,
                                   layouts=render.load_unicorn_layouts(game_dir, data), lua_script=lua_script,
                                   xml_ui=xml_ui, game_dir=game_dir)

    def mod_module(self, data: KillTheUnicornsData, mode: str) -> str:
        return payload.generated_game_module(data, mode, mod_layout(data))


register_builder(KillTheUnicornsBuilder())
