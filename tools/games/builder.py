"""The builder interface: what a game gives the generic build (:mod:`tools.build`), and the registry of builders.

A game's engine (rules, records) lives in ``bridge/rules/<game>/``; everything the build needs beyond it lives in
the game's builder package ``tools/games/<game>/`` (Pillow allowed there), named by ``[game] builder`` in its
``game.toml``.  Importing that module registers the builder with :func:`register_builder`, as importing the engine
module registers the engine (:func:`bridge.rules.game.register_game`); :func:`builder_of` does the import and the
look-up, as :func:`bridge.catalog.engine_of` does for engines.

A builder provides three things, all taking the game's own records (``LoadedGame.data``):

- **the decks and their renderer** — :meth:`GameBuilder.render` draws every card face, back, board and token
  into ``out_dir/sheets/`` and returns a :class:`tools.render.pipeline.Art`.  The shared machinery does the rest: the per-image
  cache and manifest, parallel rendering and sheet packing (:mod:`tools.render.pipeline`, :mod:`tools.sheets`),
  text fitting and layouts (:mod:`tools.render.text`, :mod:`tools.render.layout`), art helpers
  (:mod:`tools.render.draw`);
- **the table composer** — :meth:`GameBuilder.compose` lays every object (records + art → :class:`tools.save.Save`)
  with the geometry helpers of :mod:`tools.save.geometry`;
- **the mod's payload** — :meth:`GameBuilder.mod_module`, the Lua source of the ``generated.game`` module the
  game's ``mod/<mod>/global.lua`` requires.  The build bundles it with ``generated.ttsmod`` (ttsmod's own: version,
  protocol, game id, mode), which no builder writes.

The build checks the composed save with :mod:`tools.check` and writes it; a builder writes nothing but images.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Protocol, runtime_checkable

from bridge.catalog import import_game_module
from bridge.rules.game import GameMeta
from bridge.rules.reader import At, show
from tools.render.pipeline import Art, Progress
from tools.save import Save

@runtime_checkable
class GameBuilder(Protocol):
    """What a game's builder module registers (one object per game)."""

    id: str  # the game id, as in ``[game] id``

    def render(self, data: Any, out_dir: Path, *, lang: str, fmt: str, quality: int, use_cache: bool,
               jobs: int | None, progress: Progress | None, game_dir: Path, prune: bool = True,
               max_pixels: int | None = None) -> Art:
        """Render and pack every image of the game into ``out_dir/sheets/`` (cache in ``out_dir/.cache/``).

        ``game_dir`` holds the layouts and art; ``lang`` is one of the game's languages, ``fmt`` ``jpg`` or
        ``png``.  Bad layouts, missing glyphs or art raise :class:`bridge.errors.DataError`.
        """

    def compose(self, data: Any, art: Art, *, mode: str, lang: str, url_for: Callable[[Path], str],
                game_dir: Path, lua_script: str, xml_ui: str) -> Save:
        """The whole table as a :class:`tools.save.Save`; ``url_for`` turns an image file into its URL."""

    def mod_module(self, data: Any, mode: str) -> str:
        """The Lua source of the ``generated.game`` module: the game data the mod needs."""


_BUILDERS: dict[str, GameBuilder] = {}


def register_builder(builder: GameBuilder) -> GameBuilder:
    """Make ``builder`` findable by its game id (done once, in the game's builder module). Returns it."""
    if not isinstance(builder, GameBuilder):
        raise TypeError(f"{builder!r} does not provide the GameBuilder interface")
    _BUILDERS[builder.id] = builder
    return builder


def builder_of(meta: GameMeta, folder: Path | None = None) -> GameBuilder:
    """Import the module ``meta.builder`` names and return the builder it registered under ``meta.id``.

    The builder must be defined in that module or a submodule of it.  A module that cannot be imported or
    registers no builder for the game raises
    :class:`bridge.errors.DataError` at ``game.toml: [game]: builder``.
    """
    at = At.data("game.toml", "[game]")
    try:
        import_game_module(meta.builder, folder)
    except ImportError as exc:
        raise at.sub("builder").error(f"{show(meta.builder)} cannot be imported: {exc}") from None
    builder = _BUILDERS.get(meta.id)
    # The builder registered under the id must be this module's (or its package's): a game folder naming a
    # module that registers nothing must not quietly get the builder some other module registered.
    home = type(builder).__module__ if builder is not None else ""
    if builder is None or not (home == meta.builder or home.startswith(meta.builder + ".")):
        raise at.sub("builder").error(f"{show(meta.builder)} registers no builder for {show(meta.id)}")
    return builder
