"""The builder of a game drawn from data alone: its ``[game]`` table names no ``builder``.

Its cards are drawn from the card templates of its ``layouts.toml`` (:mod:`tools.render.templatedraw`) with the
values of its card lists (data files or spreadsheets), and its table is laid out by its ``table.toml``
(:mod:`tools.table`): the same pipeline, sheets and checks as any game, with no Python of the game's own. Its
Global script is its own ``mod/<mod>/global.lua`` when it has one, else ttsmod's ``mod/lib/table_only.lua``
(the table greets its players; no bridge adjudicates a game without an engine).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from PIL import Image, ImageOps

from bridge.catalog import asset_path, read_documents
from bridge.errors import DataError
from bridge.luaproject.bundle import lua_string
from bridge.paths import assets_dir
from bridge.rules.tableonly import TableData
from tools.imageio import ImageError, open_image
from tools.render.layout import Layouts, load_layouts
from tools.render.pipeline import Art, DeckPlan, Progress, ThumbnailPlan, render_art
from tools.render.templatedraw import TemplateCard, TemplateRenderer, _file_digest
from tools.save import DeckSheet, Save
from tools.table import FILE as TABLE_FILE, PlacedDeck, TableSpec, compose_objects, load_table, table_names

LAYOUTS_FILE = "layouts.toml"
THUMBNAIL_SIZE = 256


@dataclass(frozen=True)
class FileImage:
    """An object's image taken from a file of the game folder as it is (a board's picture, say)."""

    name: str
    path: Path
    file: str
    entry: str


class TableRenderer(TemplateRenderer):
    """The template renderer, with the objects whose image is a file of the game folder beside the cards."""

    def __init__(self, layouts: Layouts, cards: Sequence[TemplateCard], files: Sequence[FileImage], **options):
        super().__init__(layouts, cards, **options)
        self.files = {f.name: f for f in files}

    def items(self) -> list[tuple[str, str]]:
        return super().items() + [(name, "file") for name in self.files]

    def _picture(self, name: str) -> Image.Image:
        found = self.files[name]
        try:
            image = open_image(found.path, max_pixels=self.max_pixels)
        except ImageError as exc:
            raise DataError(found.file, found.entry, "image", exc.reason) from None
        # a picture with transparency keeps it: a token's or tile's outline is its alpha in TTS
        if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
            return image.convert("RGBA")
        return image.convert("RGB")

    def design_size(self, name: str) -> tuple[int, int]:
        if name in self.files:
            with Image.open(self.files[name].path) as image:
                return image.size
        return super().design_size(name)

    def body_boxes(self, name: str) -> tuple[str, ...]:
        return () if name in self.files else super().body_boxes(name)

    def key(self, name: str, kind: str) -> str:
        if name in self.files:
            return f"file-{_file_digest(str(self.files[name].path)).hex()[:32]}"
        return super().key(name, kind)

    def render(self, name: str, size: tuple[int, int] | None = None, bleed: int = 0) -> Image.Image:
        if name in self.files:
            image = self._picture(name)
            image = image if size is None or tuple(size) == image.size else \
                image.resize(tuple(size), Image.Resampling.LANCZOS)
            if bleed > 0:
                from tools.render.draw import mirror_pad

                return mirror_pad(image, bleed)
            return image
        return super().render(name, size, bleed)


@dataclass(frozen=True)
class TablePlan:
    """What a table-only game draws: the renderer, its decks (each card once, with its copies), its singles."""

    renderer: TableRenderer
    decks: tuple[DeckPlan, ...]
    copies: Mapping[str, Mapping[str, int]]     # deck name → card image name → copies in the deck
    singles: tuple[str, ...]
    table: TableSpec
    items: Mapping[str, Mapping[str, Mapping[str, Any]]]   # deck name → face image name → the card's data
    layouts: Layouts


def plan(data: TableData, game_dir: Path, *, lang: str, max_pixels: int | None = None) -> TablePlan:
    """Read ``table.toml`` and ``layouts.toml`` and make the cards, backs and objects to draw."""
    table = load_table(game_dir)
    if not table.decks and not table.objects:
        raise DataError(TABLE_FILE, None, None, "places no deck and no object: a table needs at least one "
                                               "[[decks]] or [[objects]] entry")
    layouts = load_layouts(Path(game_dir) / LAYOUTS_FILE, fonts_dir=assets_dir() / "fonts")
    cards: list[TemplateCard] = []
    files: list[FileImage] = []
    decks: list[DeckPlan] = []
    copies: dict[str, dict[str, int]] = {}
    items: dict[str, dict[str, Mapping[str, Any]]] = {}
    for index, spec in enumerate(table.decks):
        at = f"decks[{index}]"
        if spec.back is None or "cards" in spec.templates:
            raise DataError(TABLE_FILE, at, "sheet" if spec.back is None else "cards",
                            "a game drawn from data draws its decks from a card list and layouts (give cards a "
                            "list's name, and back); a deck the renderer packed is a builder's")
        for kind, field in ((spec.layout, "layout"), (spec.back, "back")):
            if kind not in layouts.layouts or layouts.layouts[kind].template is None:
                raise DataError(TABLE_FILE, at, field, f'"{kind}" is not a layout with layers in {LAYOUTS_FILE}')
        entries = data.card_list(spec.cards)
        if not entries:
            raise DataError(TABLE_FILE, at, "cards", f'no data file has a card list "{spec.cards}" ([[{spec.cards}]] '
                                                    "or a [sheets] entry)")
        faces: list[str] = []
        counts: dict[str, int] = {}
        data_of: dict[str, Mapping[str, Any]] = {}
        for file, position, entry in entries:
            ident = str(entry.get("id", position))
            label = f'{spec.cards} "{ident}"'
            name = f"{spec.name}:{ident}"
            if name in counts:
                raise DataError(file, label, "id", f'"{ident}" is the id of another card of {spec.cards} too')
            count = 1
            if spec.count is not None:
                count = entry.get(spec.count, 1)
                if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 1000:
                    raise DataError(file, label, spec.count, f"must be a whole number of copies 0..1000, not {count!r}")
            counts[name] = count
            data_of[name] = {"id": ident, **entry}
            if count:
                faces.append(name)
                cards.append(TemplateCard(name, spec.layout, entry, file, label))
        if not faces:
            raise DataError(TABLE_FILE, at, "cards", f'the card list "{spec.cards}" gives this deck no card')
        back = f"{spec.name}:back"
        cards.append(TemplateCard(back, spec.back, {}, TABLE_FILE, at))
        decks.append(DeckPlan(spec.name, tuple(faces), back))
        copies[spec.name] = counts
        items[spec.name] = data_of
    singles: list[str] = []
    for index, spec in enumerate(table.objects):
        at = f"objects[{index}]"
        name = f"object:{spec.name}"
        for field in ("art", "back_art"):
            if field in spec.given:
                raise DataError(TABLE_FILE, at, field, "names an image of a game's renderer; a game drawn from data "
                                                       "gives image (a file of its folder) or layout")
        if spec.layout is not None:
            if spec.layout not in layouts.layouts or layouts.layouts[spec.layout].template is None:
                raise DataError(TABLE_FILE, at, "layout", f'"{spec.layout}" is not a layout with layers in '
                                                          f"{LAYOUTS_FILE}")
            cards.append(TemplateCard(name, spec.layout, spec.values, TABLE_FILE, at))
        else:
            path = asset_path(game_dir, spec.image, file=TABLE_FILE, entry=at, field="image")
            if not path.is_file():
                raise DataError(TABLE_FILE, at, "image", f"{spec.image}: no such file in the game folder")
            files.append(FileImage(name, path, TABLE_FILE, at))
        singles.append(name)
    renderer = TableRenderer(layouts, cards, files, game_dir=Path(game_dir), bundled_fonts=assets_dir() / "fonts",
                             lang=lang, max_pixels=max_pixels)
    return TablePlan(renderer, tuple(decks), copies, tuple(singles), table, items, layouts)


def _image_size(path: Path) -> tuple[int, int]:
    with Image.open(path) as image:
        return image.size


def _thumbnail(image: Image.Image) -> Image.Image:
    return ImageOps.pad(image.convert("RGB"), (THUMBNAIL_SIZE, THUMBNAIL_SIZE), color=(40, 40, 40))


class TableBuilder:
    """:class:`tools.games.builder.GameBuilder` of a table-only game (one per game id)."""

    def __init__(self, game_id: str) -> None:
        self.id = game_id

    def render(self, data: TableData, out_dir: Path, *, lang: str, fmt: str, quality: int, use_cache: bool,
               jobs: int | None, progress: Progress | None, game_dir: Path, prune: bool = True,
               max_pixels: int | None = None) -> Art:
        try:
            made = plan(data, game_dir, lang=lang, max_pixels=max_pixels)
            source = made.decks[0].back if made.decks else made.singles[0]
            return render_art(made.renderer, out_dir, decks=list(made.decks), singles=list(made.singles),
                              thumbnail=ThumbnailPlan(source, _thumbnail), fmt=fmt, quality=quality,
                              use_cache=use_cache, jobs=jobs, progress=progress, prune=prune)
        except DataError as exc:
            # a card read from a spreadsheet is named by its spreadsheet, row and column
            raise read_documents(Path(game_dir), data.info)[1].locate(exc) from None

    def compose(self, data: TableData, art: Art, *, mode: str, lang: str, url_for: Callable[[Path], str],
                game_dir: Path, lua_script: str, xml_ui: str) -> Save:
        made = plan(data, game_dir, lang=lang)
        placed: dict[str, PlacedDeck] = {}
        for deck_plan in made.decks:
            packed = art.decks[deck_plan.name]
            back = url_for(packed.back_path)
            sheets = [DeckSheet(url_for(s.path), back, s.columns, s.rows, back_is_hidden=packed.back_is_hidden)
                      for s in packed.sheets]
            order = []
            for face, (sheet, index) in zip(deck_plan.faces, packed.placement):
                order += [(face, sheet, index)] * made.copies[deck_plan.name][face]
            placed[deck_plan.name] = PlacedDeck(order, sheets, packed.sideways, made.items[deck_plan.name])
        info = data.info
        colours = list(info.player_colours[:info.max_players])
        objects, snaps = compose_objects(
            made.table, placed, lambda name: url_for(Path(art.images[f"object:{name}"])), seat_colours=colours,
            lang=lang, game_id=info.id, mode=mode, names=table_names(info, made.layouts),
            art_size=lambda name: _image_size(Path(art.images[name])))
        return Save(info.name.get(lang), objects, lua_script=lua_script, xml_ui=xml_ui, snap_points=snaps,
                    player_counts=(info.min_players, info.max_players), turn_order=colours)

    def print_copies(self, data: TableData, game_dir: Path) -> Mapping[str, Mapping[str, int]]:
        """Deck name → face image name → its copies in the deck (``ttsmod pnp`` prints each copy)."""
        return plan(data, game_dir, lang=data.info.languages[0]).copies

    def mod_module(self, data: TableData, mode: str) -> str:
        """generated.game: the id, the mode, and (as JSON, lib.util.decode reads it) the name and seat colours."""
        info = data.info
        payload = json.dumps({"name": info.name.en, "player_colours": list(info.player_colours[:info.max_players]),
                              "min_players": info.min_players, "max_players": info.max_players},
                             ensure_ascii=False, separators=(",", ":"))
        return (f"return {{ game = {lua_string(info.id)}, mode = {lua_string(mode)}, "
                f"data = {lua_string(payload)} }}\n")


def table_builder(game_id: str) -> TableBuilder:
    return TableBuilder(game_id)
