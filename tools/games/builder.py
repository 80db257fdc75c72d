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

What a game may declare beyond that is asked here too: :data:`BUILD_CAPABILITIES` are the optional parts read from
its folder (the tool tables of its ``game.toml``, printed sizes, card lists), and :func:`capabilities` gives every
capability a loaded game declares, its engine's included (:data:`CAPABILITIES`), from the very declarations the
tools read (``ttsmod data export``'s card lists, ``ttsmod pnp``'s layouts). A shared test asks it and skips, with
the reason, what a game does not declare; docs/development.md ("The game interface") says what such a game loses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Protocol, runtime_checkable

from bridge.catalog import LoadedGame, assets_dir, import_game_module, load_documents, read_toml
from bridge.rules.game import ENGINE_CAPABILITIES, TOOL_TABLES, Capability, GameMeta, engine_capabilities
from bridge.rules.reader import At, show
from tools.data_export import card_lists
from tools.render.layout import load_layouts
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
    """Import the module ``meta.builder`` names and return the builder it registered under ``meta.id``; a game
    that names none is drawn from its data (:class:`tools.tablegame.TableBuilder`).

    The builder must be defined in that module or a submodule of it.  A module that cannot be imported or
    registers no builder for the game raises
    :class:`bridge.errors.DataError` at ``game.toml: [game]: builder``.
    """
    at = At.data("game.toml", "[game]")
    if meta.builder is None:   # a game drawn from data alone: its layouts' templates and its table.toml
        from tools.tablegame import table_builder

        return table_builder(meta.id)
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


# ------------------------------------------------------------------------------------------ optional capabilities

BUILD_CAPABILITIES: tuple[Capability, ...] = (
    Capability("selftest", "[selftest] table of game.toml"),
    Capability("benchmark", "[benchmark] table of game.toml"),
    Capability("scripts", "[scripts] table of game.toml"),
    Capability("print_sizes", "size_mm of the layouts in layouts.toml"),
    Capability("card_lists", "arrays of tables at the top of the data files"),
)
"""The optional parts of a game read from its folder, beside its engine's (``ENGINE_CAPABILITIES``)."""

CAPABILITIES: tuple[Capability, ...] = ENGINE_CAPABILITIES + BUILD_CAPABILITIES
"""Every optional capability a game may declare, each under a name of its own."""


def capability(name: str) -> Capability:
    """The capability called ``name`` (``KeyError`` for a name :data:`CAPABILITIES` does not hold)."""
    for known in CAPABILITIES:
        if known.name == name:
            return known
    raise KeyError(name)


def print_sizes(folder: Path) -> dict[str, tuple[float, float]]:
    """The printed size, in millimetres, of each layout of ``folder/layouts.toml`` that gives one (``size_mm``):
    what ``ttsmod pnp`` prints each deck and component at. Empty for a folder without the file; a bad file raises
    :class:`bridge.errors.DataError`."""
    path = folder / "layouts.toml"
    if not path.is_file():
        return {}
    layouts = load_layouts(path, fonts_dir=assets_dir() / "fonts").layouts
    return {kind: layout.size_mm for kind, layout in layouts.items() if layout.size_mm is not None}


def capabilities(game: LoadedGame) -> frozenset[str]:
    """The names of :data:`CAPABILITIES` that ``game`` declares: its engine's optional members, the tool tables
    of its ``game.toml`` (``[selftest]``, ``[benchmark]``, ``[scripts]``), ``print_sizes`` when its layouts give
    any and ``card_lists`` when its data files hold a list ``ttsmod data export`` writes."""
    found = set(engine_capabilities(game.engine))
    found.update(table for table in TOOL_TABLES if table in read_toml(game.folder, "game.toml"))
    if print_sizes(game.folder):
        found.add("print_sizes")
    if card_lists(load_documents(game.folder, game.meta)):
        found.add("card_lists")
    return frozenset(found)
