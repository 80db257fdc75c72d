"""Four Humours card faces, boards and tokens, rendered from the game records and ``layouts.toml``: the scene
and goal cards, the backs, the tokens and the party tiles drawn from the layers of their layouts
(:data:`TEMPLATE_KINDS`; a scene's and a party tile's slots and resolution are repeat groups of them), the boards
in code (that docstring says why).

Entry point for the build::

    render_game(data, out_dir, *, lang="en", fmt="jpg", quality=90, use_cache=True, jobs=None,
                progress=None, game_dir=None) -> GameArt

It writes every image into ``out_dir/sheets/`` (file names carry a content hash, so a changed image gets a
new URL) and keeps its cache in ``out_dir/.cache/`` (delete the folder, or pass ``use_cache=False``, for a
cold build):

- ``GameArt.decks``: ``"scenes"`` (faces in ``data.scenes`` order), ``"goals"`` (``data.goals`` order) and
  ``"parties"`` (``data.parties`` order), each a :class:`tools.sheets.PackedDeck` whose hidden cell shows
  the deck's back.
- ``GameArt.images``: ``"kingdom"`` (the map board), ``"fief:<board id>"``, ``"potion:<humour>"`` (token
  front), ``"potion-back:<Colour>"`` (per ``data.info.player_colours``), ``"party:<party id>"`` (one party
  tile), ``"goal-marker:<Colour>"``, ``"scene-marker"`` and ``"thumbnail"`` (a 256 × 256 PNG).  Tokens and
  markers are square RGB images meant for round tiles (TTS ``Custom_Tile`` type 2, circle).
- Boards keep the data's coordinates: the board is its tiles' grid (``tile_size`` × columns/rows) and a
  cell at ``pos`` ``(x, y)`` is drawn centred at ``(x * width, y * height)``; :func:`cell_positions` gives
  the positions used (``pos`` or, when absent, a ring inside the cell's tile).
- ``GameArt.rendered`` counts the images rendered this run, ``GameArt.repacked`` names the files written
  into ``sheets/`` this run (sheets, backs and single images), so an unchanged rebuild reports 0 and ``()``.

Incremental rebuilds: each image has a key, the SHA-256 of everything that affects its pixels — the record
(its ``repr``), the shared context (humours, citizens, tiles, default resolution, game info), the layout and
palette, the bytes of the fonts, the language and :data:`RENDERER_VERSION`; an image of a kind drawn from layers
hashes the template drawer's key of its card instead (its layout, fields, language, files — a scene's or goal's art
among them — and pictures' painters).  Rendered
images are cached as ``.cache/faces/<key>.png``; only missing keys are rendered, in parallel over ``jobs``
processes (all cores by default; 1 renders in-process).  A sheet is re-packed only when one of its faces'
keys changed (``.cache/manifest.json``).  Files this renderer wrote before and no longer uses are deleted.
That machinery is shared by every game (:func:`tools.render.pipeline.render_art`); this module names the
images, keys them and draws them (:class:`Renderer`).

Before anything is drawn every text is checked against its font (a missing glyph is a :class:`DataError`
naming file, entry and field); a text that cannot fit its box even at the minimum size is one too. The keys of
the images whose texts passed are kept in ``.cache/texts-checked.txt`` (:class:`tools.render.text.CheckedKeys`):
a rebuild checks the texts of images with a new key only (a key fixes the image's texts and fonts).
"""

from __future__ import annotations

import hashlib
import json
import math
from functools import cached_property, lru_cache, partial
from pathlib import Path
from typing import Callable, Collection, Iterator, Mapping, NamedTuple

from PIL import Image, ImageDraw

from bridge.rules.four_humours.records import (
    HUMOURS,
    Board,
    Count,
    FourHumoursData,
    PartyTile,
    SceneCard,
    Slot,
    Step,
    Tile,
)
from bridge.catalog import resolve_game_dir
from bridge.errors import DataError, InputError
from bridge.paths import assets_dir
from bridge.rules.game import LANGUAGES
from tools.entrykeys import EntryKeys
from tools.games.four_humours.icons import humour_icon
from tools.render.colour import to_hex
from tools.render.draw import (
    composite_icon, contrast, cover_fit, find_art, hatching, mix, paste_icon, placeholder, star_icon,
)
from tools.render.layout import Box, CardLayout, Layouts, load_layouts
from tools.render.pipeline import Art, DeckPlan, ThumbnailPlan, check_image_options, render_art
from tools.render.sizing import DrawsAtSize
from tools.render.template import Repeat
from tools.render.templatedraw import PictureError, PictureRequest, TemplateCard, TemplateRenderer
from tools.render.text import CheckedKeys, check_glyphs, draw_fitted, draw_text, fit_text

RENDERER_VERSION = "4"
"""Bump when a drawing change must invalidate every cached image."""

LAYOUTS_FILE = "layouts.toml"
CHECKED_TEXTS = "texts-checked.txt"
IMAGE_KEYS = "image-keys.json"
"""The file of ``out_dir/.cache/`` keeping each scene's image key by its entry's fingerprint (:meth:`Renderer.keys`)."""
"""The file of ``out_dir/.cache/`` keeping the keys of images whose texts passed the glyph check."""
THUMBNAIL_SIZE = 256

REQUIRED_BOXES: Mapping[str, Mapping[str, bool]] = {
    "kingdom": {"tile_name": True, "cell_name": True},
    "fief": {"tile_name": True, "cell_name": True},
}
"""Card kind → its boxes (``True``: a text box) that ``layouts.toml`` must define."""

TEMPLATE_KINDS = ("scene", "party", "goal", "scene_back", "goal_back", "party_back", "potion", "potion_back",
                  "goal_marker", "scene_marker")
"""Layouts drawn from their layers in layouts.toml (tools.render.template), with fields this renderer gives and
the pictures it paints (:data:`PICTURES`: the backs' crossed hatching, a humour's potion in its colour, the goal
markers' star). A scene card's and a party tile's slot panels and resolution rows are repeat groups over the
fields ``slots`` and ``steps`` this renderer gives (:meth:`Renderer._card`), a panel's humour icons a group inside
its group. The boards stay drawn here: their cells lie where the data's coordinates put them
(:func:`cell_positions`), with a path or a bridge along each edge, as many as the map has: table geometry, not a
layout's boxes."""

class _Origins(Mapping):
    """A scene's or party's :attr:`TemplateCard.origins`, its steps' (shared by the cards showing the same
    steps) and its slots' names', made into one mapping only when an error asks (a big game makes 10,000)."""

    def __init__(self, steps: Mapping[str, tuple[str, ...]], slots: tuple[tuple[str, ...], ...]) -> None:
        self._steps, self._slots, self._whole = steps, slots, None

    def _all(self) -> dict[str, tuple[str, ...]]:
        if self._whole is None:
            self._whole = {**self._steps, **{f"slots.{n}.name": o for n, o in enumerate(self._slots, 1)}}
        return self._whole

    def __getitem__(self, key: str) -> tuple[str, ...]:
        return self._all()[key]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._steps) + len(self._slots)


BODY_GROUPS = {"scene": ("resolution", "slots"), "party": ("slots", "resolution")}
"""The repeat groups a scene card's and a party tile's layouts must have, by name: ``steps`` and ``slots`` are
what they repeat over, their texts are the faces' body text (:attr:`Renderer.BODY_BOXES`), and the table's snap
points lie on the slots group's box split into equal columns (:mod:`tools.games.four_humours.table`)."""

BACK_WORDS = {"scene_back": "scenes", "goal_back": "goals", "party_back": "parties"}
"""Each back's layout → the string naming its deck on it."""

REQUIRED_STRINGS = ("win", "discard", "sneak", "kingdom", "fief", "party", "animal", "scenes", "goals", "parties")
REQUIRED_COLOURS = ("background", "ink", "frame", "back", "back_ink", "slot", "path", "bridge", "cell", "zones")


GameArt = Art
"""What :func:`render_game` returns (see the module docstring for the keys)."""


def cell_positions(board: Board) -> dict[str, tuple[float, float]]:
    """Cell id → centre ``(x, y)`` in board units (0..1 from the top-left): the cell's ``pos``, or for cells
    without one a ring around the centre of the cell's tile."""
    columns = max((t.col for t in board.tiles), default=0) + 1
    rows = max((t.row for t in board.tiles), default=0) + 1
    tiles = {t.id: t for t in board.tiles}
    result: dict[str, tuple[float, float]] = {}
    for tile_id, cell_ids in board.cells_of_tile.items():
        loose = [c for c in cell_ids if board.cell_by_id[c].pos is None]
        tile = tiles.get(tile_id)
        cx = ((tile.col if tile else 0) + 0.5) / columns
        cy = ((tile.row if tile else 0) + 0.5) / rows
        for i, cell_id in enumerate(loose):
            angle = -math.pi / 2 + 2 * math.pi * i / len(loose)
            radius = 0.3 if len(loose) > 1 else 0.0
            result[cell_id] = (cx + radius * math.cos(angle) / columns, cy + radius * math.sin(angle) / rows)
    for cell in board.cells:
        if cell.pos is not None:
            result[cell.id] = (float(cell.pos[0]), float(cell.pos[1]))
    return result


def count_text(count: Count) -> str:
    """A short printed form of a count predicate: ``1``, ``2+``, ``≤2``, ``2–3``."""
    if count.op == "eq":
        return str(count.low)
    if count.op == "gte":
        return f"{count.low}+"
    if count.op == "lte":
        return f"≤{count.low}"
    return f"{count.low}–{count.high}"


class _Text(NamedTuple):
    """A text with the place in the data it comes from (for error messages)."""

    text: str
    file: str
    entry: str | None
    field: str | None


class Renderer(DrawsAtSize):
    """Draws one image at a time from the records, at any size (:class:`DrawsAtSize`); holds no files open and
    writes nothing."""

    BODY_BOXES = {"scene": ("resolution", "slots"), "party": ("slots", "resolution"), "goal": ("text",)}
    """The boxes of each deck face's body text: a scene's and a party tile's steps and citizen names, a goal's
    text (the build reports their height on the sheets)."""

    def __init__(self, data: FourHumoursData, layouts: Layouts, game_dir: Path, fonts_dir: Path, lang: str,
                 max_pixels: int | None = None):
        self.max_pixels = max_pixels  # art larger than this is refused (None: tools.imageio's default)
        self.data = data
        self.layouts = layouts
        self.game_dir = game_dir
        self.fonts_dir = fonts_dir
        self.lang = lang
        self.colours = layouts.colours
        # Asked for once per card of a big game, made once: the default resolution's lines, each step's line,
        # the map tiles by id, each layout's part of an image key (_kind_part).
        self._default_steps: tuple[tuple[Step, _Text], ...] | None = None
        self._step_texts: dict[Step, str] = {}
        self._kingdom_tiles: dict[str, Tile] | None = None
        self._kind_parts: dict[str, bytes] = {}

    # -- naming and keys ---------------------------------------------------------------------------------

    def items(self) -> list[tuple[str, str]]:
        """Every image to render as ``(name, layout kind)``, in a stable order."""
        d = self.data
        out = [(f"scene:{s.id}", "scene") for s in d.scenes]
        out += [(f"goal:{g.id}", "goal") for g in d.goals]
        out += [(f"party:{p.id}", "party") for p in d.parties]
        out += [("scene-back", "scene_back"), ("goal-back", "goal_back"), ("party-back", "party_back")]
        out += [("kingdom", "kingdom")] + [(f"fief:{f.id}", "fief") for f in d.fiefs]
        out += [(f"potion:{h.id}", "potion") for h in d.humours]
        out += [(f"potion-back:{c}", "potion_back") for c in d.info.player_colours]
        out += [(f"goal-marker:{c}", "goal_marker") for c in d.info.player_colours]
        out += [("scene-marker", "scene_marker")]
        return out

    def _record(self, name: str) -> object:
        """The record image ``name`` is drawn from in code, a board (the kinds drawn from layers are keyed by their
        cards)."""
        d = self.data
        head, _, ident = name.partition(":")
        if head == "fief":
            return (d.fiefs.index(d.fief_by_id[ident]), d.fief_by_id[ident])
        return d.kingdom

    @cached_property
    def _context(self) -> str:
        d = self.data
        return repr((d.info, d.humours, d.citizens, d.kingdom.tiles, d.rules.default_resolution,
                     d.rules.per_card_resolution))

    @cached_property
    def _font_hashes(self) -> Mapping[str, str]:
        fonts = {b.font for lay in self.layouts.layouts.values() for b in lay.boxes.values() if b.font}
        return {f: hashlib.sha256((self.fonts_dir / f).read_bytes()).hexdigest() for f in sorted(fonts)}

    def _kind_part(self, kind: str) -> bytes:
        """What every image of layout ``kind`` hashes between its name and its record (see :meth:`key`)."""
        part = self._kind_parts.get(kind)
        if part is None:
            layout = self.layouts.layouts[kind]
            fonts = sorted({b.font for b in layout.boxes.values() if b.font})
            part = self._kind_parts[kind] = b"".join(
                text.encode("utf-8") + b"\0" for text in (layout.fingerprint(), self.layouts.fingerprint(),
                                                          *(self._font_hashes[f] for f in fonts), self._context))
        return part

    _kept_cards: dict[str, TemplateCard] | None = None
    """Image name → its card (:meth:`_card`) while a build's keys and glyph check run (:func:`render_game`)."""

    _kept_keys: Mapping[str, str] | None = None
    """Image name → key while a build runs (:func:`render_game`): the glyph check and the pipeline ask for the
    same keys, made once. Outside a build each key is made when asked (an art file may have come since)."""

    def key(self, name: str, kind: str) -> str:
        """The cache key of image ``name``: a hash of everything that affects its pixels (for a kind drawn from
        its layers, the template drawer's key of its card: layout, fields, language and every file it draws)."""
        kept = self._kept_keys
        if kept is not None:
            found = kept.get(name)
            if found is not None:
                return found
        if kind in TEMPLATE_KINDS:
            card_key = self._layers.card_key(self._card(name))
            return hashlib.sha256(f"{RENDERER_VERSION}\0{card_key}".encode()).hexdigest()
        # The parts, each followed by a NUL: what every image of a kind shares first (its layout, fonts and the
        # game's context: 6 KB in Four Humours), hashed once per kind and copied, then the image's own.
        digest = self._kind_hash(kind).copy()
        digest.update(b"".join((name.encode("utf-8"), b"\0", repr(self._record(name)).encode("utf-8"))))
        return digest.hexdigest()

    def _kind_hash(self, kind: str):
        hashes = self.__dict__.setdefault("_kind_hashes", {})
        found = hashes.get(kind)
        if found is None:
            found = hashes[kind] = hashlib.sha256(self._key_head + self._kind_part(kind))
        return found

    def keys(self, entries: EntryKeys | None = None) -> dict[str, str]:
        """Every image's key (name → :meth:`key`), in :meth:`items` order.

        With ``entries`` (a build's, :mod:`tools.entrykeys`), a scene's key is taken from the last build's when
        its entry's fingerprint is the same (``.cache/`` :data:`IMAGE_KEYS`): the scenes of a big game are what its
        keys cost (each record written out and hashed). A scene's record is made from its entry and the rest of
        the data only (bridge.rules.four_humours.data ``_parse_scenes``), and its key from the record, the kind's
        layout, fonts and the game's context, the language, the art file and :data:`RENDERER_VERSION`: the
        fingerprint covers every input file and option, and the kind's part of the key and the language are
        checked beside it."""
        kept = self._memo_keys(entries)
        if kept is None:
            return {name: self.key(name, kind) for name, kind in self.items()}
        fingerprints, known = kept
        out: dict[str, str] = {}
        fresh: dict[str, list[str]] = {}
        scenes = self.data.scenes
        for index, (name, kind) in enumerate(self.items()):
            if index < len(scenes):   # the scenes come first (items)
                fingerprint = fingerprints[index].hex()
                found = known.get(fingerprint)
                if not (type(found) is list and len(found) == 2 and found[0] == name and type(found[1]) is str):
                    found = [name, self.key(name, kind)]
                fresh[fingerprint] = found
                out[name] = found[1]
            else:
                out[name] = self.key(name, kind)
        if fresh != known:
            entries.keep(IMAGE_KEYS, json.dumps({"context": self._memo_context(), "keys": fresh},
                                                separators=(",", ":")).encode("utf-8"))
        return out

    def _memo_context(self) -> str:
        return self._kind_hash("scene").hexdigest()   # the kind's layout, fonts and game context, the language

    def _memo_keys(self, entries: EntryKeys | None) -> tuple[tuple[bytes, ...], dict] | None:
        """The scenes' fingerprints and the keys kept by them (empty when none are), or None without them."""
        fingerprints = entries.fingerprints("scenes.toml", "scenes") if entries is not None else None
        if fingerprints is None or len(fingerprints) != len(self.data.scenes):
            return None
        raw = entries.read(IMAGE_KEYS)
        try:
            stored = json.loads(raw) if raw is not None else {}
            known = stored["keys"] if stored.get("context") == self._memo_context() else {}
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            known = {}
        return fingerprints, known if isinstance(known, dict) else {}

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state.pop("_kept_keys", None)   # a worker draws; it asks for no key
        state.pop("_kept_cards", None)
        state.pop("_kind_hashes", None)   # hash objects do not pickle
        return state

    @cached_property
    def _key_head(self) -> bytes:
        return RENDERER_VERSION.encode("utf-8") + b"\0" + self.lang.encode("utf-8") + b"\0"

    # -- texts -------------------------------------------------------------------------------------------

    def citizen_name(self, slot: Slot, file: str, entry: str, index: int) -> _Text:
        if slot.label is not None:
            return _Text(slot.label.get(self.lang), file, entry, f"slots[{index}].label.{self.lang}")
        citizen = self.data.citizen_by_id.get(slot.citizen)
        if citizen is None:
            raise DataError(file, entry, f"slots[{index}].citizen", f'"{slot.citizen}" is not a citizen type')
        return _Text(citizen.name.get(self.lang), "game.toml", f'citizen "{citizen.id}"', f"name.{self.lang}")

    def string(self, key: str) -> _Text:
        return _Text(self.layouts.string(key, self.lang), LAYOUTS_FILE, f'string "{key}"', self.lang)

    def steps_of(self, card: SceneCard | PartyTile, file: str, entry: str) -> list[tuple[Step, _Text]]:
        own = card.resolution is not None and self.data.rules.per_card_resolution
        if not own and self._default_steps is not None:
            return list(self._default_steps)   # every card without its own list shows the same steps
        steps = self.data.resolution_for(card)
        result = []
        for i, step in enumerate(steps):
            where = (file, entry, f"resolution[{i}]") if own else ("game.toml", "rules", f"default_resolution[{i}]")
            result.append((step, _Text(self._step_text(step), *where)))
        if not own:
            self._default_steps = tuple(result)
        return result

    def _step_text(self, step: Step) -> str:
        text = self._step_texts.get(step)
        if text is None:
            text = self._step_texts[step] = f"{count_text(step.count)} → {self.string(step.outcome.value).text}"
        return text

    def tile(self, tile_id: str, file: str, entry: str) -> Tile:
        """The map tile ``tile_id`` (a scene's zone); :class:`DataError` naming ``zone`` when there is none."""
        tiles = self._kingdom_tiles
        if tiles is None:
            tiles = self._kingdom_tiles = {}
            for tile in self.data.kingdom.tiles:
                tiles.setdefault(tile.id, tile)   # the first of a repeated id, as a search in order finds
        tile = tiles.get(tile_id)
        if tile is None:
            raise DataError(file, entry, "zone", f'"{tile_id}" is not a map tile')
        return tile

    def texts(self) -> Iterator[tuple[_Text, str]]:
        """Every text drawn in code (the boards', not on the kinds of :data:`TEMPLATE_KINDS`) and the strings of
        the steps' outcomes, with the font file each is drawn in (for the glyph check before rendering)."""
        for _, texts in self._text_groups():
            yield from texts

    def _text_groups(self) -> Iterator[tuple[str | None, Iterator[tuple[_Text, str]]]]:
        """The texts of :meth:`texts` in the same order, each with the image it is drawn on (its name), or None
        for texts shared by many images (the layouts' strings, the citizens' names): each group is made only when
        read, so an image whose texts need no check costs nothing but its name."""
        d, L, lang = self.data, self.layouts.layouts, self.lang

        def font(kind: str, box: str) -> str:
            return L[kind].boxes[box].font or ""

        def strings() -> Iterator[tuple[_Text, str]]:
            # Each string in every font a step's text is drawn in, so a glyph missing from an outcome's words is
            # named by its string, not by the step of the first card that prints it.
            for key in REQUIRED_STRINGS:
                for path in self._step_fonts:
                    yield self.string(key), path

        yield None, strings()

        def board(board: Board, kind: str, file: str) -> Iterator[tuple[_Text, str]]:
            for t in board.tiles:
                yield _Text(t.name.get(lang), file, f'tile "{t.id}"', f"name.{lang}"), font(kind, "tile_name")
            for c in board.cells:
                yield _Text(c.name.get(lang), file, f'cell "{c.id}"', f"name.{lang}"), font(kind, "cell_name")

        yield "kingdom", board(d.kingdom, "kingdom", "map.toml")
        for f in d.fiefs:
            yield f"fief:{f.id}", board(f, "fief", "fiefs.toml")

    def check_texts(self, passed: Collection[str] = frozenset(), keys: Mapping[str, str] | None = None) -> None:
        """Raise :class:`DataError` (file/entry/field) for the first text whose font lacks one of its glyphs.

        ``passed``: image keys whose texts passed before (:class:`tools.render.text.CheckedKeys`) and ``keys``
        each image's key (name → :meth:`key`): an image whose key passed is not checked again, its key fixing
        its texts and their fonts (the first failing text is still the same, none of them being on such an
        image). Shared texts are always checked. The kinds drawn from layers are checked by the template drawer
        (:meth:`TemplateRenderer.check_glyphs`: a character its layer's font cannot draw), likewise once per key."""
        # A big game checks well over 100,000 texts in a handful of fonts, most of them the same few names and
        # steps again: each font's path is made once, and each text is checked once per font (a text that
        # passed once passes again; the first failing one is still reported with its own place).
        for name, kind in self.items():
            if kind in TEMPLATE_KINDS and not (passed and keys is not None and keys.get(name) in passed):
                self._layers.check_glyphs(self._card(name))
        paths: dict[str, str] = {}
        done_by_font: dict[str, set[str]] = {}
        for name, texts in self._text_groups():
            if name is not None and passed and keys is not None and keys.get(name) in passed:
                continue
            for text, font in texts:
                done = done_by_font.get(font)
                if done is None:
                    done = done_by_font[font] = set()
                    paths[font] = str(self.fonts_dir / font)
                elif text.text in done:
                    continue
                check_glyphs(text.text, paths[font], file=text.file, entry=text.entry, field=text.field)
                done.add(text.text)

    # -- drawing helpers ---------------------------------------------------------------------------------

    def zone_colour(self, tile_id: str) -> tuple[int, int, int]:
        ids = [t.id for t in self.data.kingdom.tiles]
        palette = self.layouts.zone_colours
        return palette[ids.index(tile_id) % len(palette)] if tile_id in ids else self.colours["frame"]

    def humour_colour(self, humour: str) -> tuple[int, int, int]:
        for h in self.data.humours:
            if h.id == humour:
                return _hex(h.colour)
        return self.colours["ink"]

    def _text(self, draw: ImageDraw.ImageDraw, text: _Text, box: Box, colour=None, size_max=None) -> None:
        draw_text(draw, text.text, box, self.fonts_dir, file=text.file, entry=text.entry, field=text.field,
                  colour=colour, size_max=size_max)

    # -- images ------------------------------------------------------------------------------------------

    def draw(self, name: str) -> Image.Image:
        """The RGB image called ``name`` (one of :meth:`items`) at the layouts' scale."""
        head, _, ident = name.partition(":")
        d = self.data
        if head == "scene":
            return self.scene(d.scene_by_id[ident])
        if head == "goal":
            return self._from_layers(self._card(name))
        if head == "party":
            return self.party(d.party_by_id[ident])
        if head in ("scene-back", "goal-back", "party-back"):
            return self._from_layers(self._card(name))
        if head == "kingdom":
            return self.board(d.kingdom, "kingdom", 0)
        if head == "fief":
            board = d.fief_by_id[ident]
            return self.board(board, "fief", d.fiefs.index(board))
        if head in ("potion", "potion-back", "goal-marker", "scene-marker"):
            return self._from_layers(self._card(name))
        raise KeyError(name)

    def scene(self, card: SceneCard) -> Image.Image:
        """A scene card, drawn from the layers of its layout (frame, title, zone, art, resolution and slots)."""
        return self._from_layers(self._card(f"scene:{card.id}"))

    def party(self, tile: PartyTile) -> Image.Image:
        """A party tile, drawn from the layers of its layout (frame, title, subtitle, slots and resolution)."""
        return self._from_layers(self._card(f"party:{tile.id}"))

    def _body(self, card: SceneCard | PartyTile, file: str, entry: str) -> tuple[dict, dict]:
        """The fields ``steps`` and ``slots`` of a scene card or party tile (its repeat groups' lists), and where
        each text of theirs comes from (:attr:`TemplateCard.origins`): a step's its card's resolution or the
        rules' default one, a slot's name its own label or its citizen's name."""
        own = card.resolution is not None and self.data.rules.per_card_resolution
        shared = None if own else self.__dict__.get("_default_body_steps")
        if shared is None:
            steps, step_origins = [], {}
            for number, (step, text) in enumerate(self.steps_of(card, file, entry), 1):
                steps.append({"text": text.text, "humour": step.humour, "colour": self._humour_hex(step.humour)})
                step_origins[f"steps.{number}.text"] = (text.file, text.entry, text.field)
            shared = (steps, step_origins)
            if not own:   # every card without its own list shows the same steps: made once (and never changed)
                self.__dict__["_default_body_steps"] = shared
        slots, slot_origins = [], []
        kept = self.__dict__.setdefault("_body_slots", {})
        for number, slot in enumerate(card.slots, 1):
            found = kept.get(slot) if slot.label is None else None
            if found is None:
                name = self.citizen_name(slot, file, entry, number - 1)
                found = ({"name": name.text, "humours": [{"id": h, "colour": self._humour_hex(h)}
                                                          for h in slot.humours]}, (name.file, name.entry, name.field))
                if slot.label is None and len(kept) < 4096:   # a citizen's slot looks alike on every card
                    kept[slot] = found
            slots.append(found[0])
            slot_origins.append(found[1])
        return {"steps": shared[0], "slots": slots}, _Origins(shared[1], tuple(slot_origins))

    def _humour_hex(self, humour: str) -> str:
        return to_hex(self.humour_colour(humour))

    @cached_property
    def _step_fonts(self) -> tuple[str, ...]:
        """The font files a step's text is drawn in: the text layers of the scene's and party's groups
        ``resolution``."""
        found = [str(layer.font.path(self.game_dir, self.fonts_dir)) for kind in ("scene", "party")
                 for layer in body_group(self.layouts.layouts[kind], "resolution").layers if layer.kind == "text"]
        return tuple(dict.fromkeys(found))

    def _card(self, name: str) -> TemplateCard:
        """Image ``name`` of a kind drawn from its layers (:data:`TEMPLATE_KINDS`) as a card of its layout with the
        fields the layout reads: the data's, and what this renderer adds to them (colours mixed from the layouts',
        words of [strings]). No id among them: copies that look alike share one cached image."""
        kept = self._kept_cards
        if kept is not None:
            found = kept.get(name)
            if found is None:
                found = kept[name] = self._new_card(name)
            return found
        return self._new_card(name)

    def _new_card(self, name: str) -> TemplateCard:
        head, _, ident = name.partition(":")
        d = self.data
        if head == "scene":
            scene = d.scene_by_id[ident]
            file, entry = "scenes.toml", f'scene "{scene.id}"'
            body, origins = self._body(scene, file, entry)
            values = {"title": scene.title.to_json(), "zone": self.tile(scene.zone, file, entry).name.to_json(),
                      "animal": self.string("animal").text if scene.is_animal else "",
                      "art": self._art_file(scene.id, file, entry), **self._zone_colours(scene.zone), **body}
            return TemplateCard(name, "scene", values, file, entry, origins)
        if head == "party":
            tile = d.party_by_id[ident]
            estate = d.citizen_by_id.get(tile.estate) if tile.estate else None
            file, entry = "parties.toml", f'party "{tile.id}"'
            body, origins = self._body(tile, file, entry)
            values = {"title": tile.title.to_json(), "party": f"{self.string('party').text} {tile.order + 1}",
                      "estate": estate.name.to_json() if estate is not None else "",
                      "line": self._frame_line, **body}
            return TemplateCard(name, "party", values, file, entry, origins)
        if head == "goal":
            goal = d.goal_by_id[ident]
            file, entry = "goals.toml", f'goal "{goal.id}"'
            zones = self.layouts.zone_colours
            values = {"title": goal.title.to_json(), "text": goal.text.to_json(),
                      "mode_words": self.string(goal.mode).text, "art": self._art_file(goal.id, file, entry),
                      "art_colour": to_hex(zones[0] if goal.mode == "kingdom" else zones[-1]),
                      "line": self._frame_line}
            return TemplateCard(name, "goal", values, file, entry)
        if head == "potion":
            humour = next(h for h in d.humours if h.id == ident)
            return TemplateCard(name, "potion", {"humour": humour.id, "colour": humour.colour}, "game.toml",
                                f"humours.{humour.id}")
        if head == "potion-back":
            colour = self.player_colour(ident)
            values = {"colour": to_hex(colour), "ink": to_hex(contrast(colour))}
            return TemplateCard(name, "potion_back", values, LAYOUTS_FILE, "player_colours")
        if head == "goal-marker":
            colour = self.player_colour(ident)
            values = {"colour": to_hex(colour), "paper": to_hex(mix(colour, (255, 255, 255), 0.55))}
            return TemplateCard(name, "goal_marker", values, LAYOUTS_FILE, "player_colours")
        if head == "scene-marker":
            return TemplateCard(name, "scene_marker", {}, LAYOUTS_FILE, 'layout "scene_marker"')
        if head in ("scene-back", "goal-back", "party-back"):
            kind = head.replace("-", "_")
            back, ink = self.colours["back"], self.colours["back_ink"]
            values = {"name": d.info.name.to_json(), "words": self.string(BACK_WORDS[kind]).text,
                      "hatch": to_hex(mix(back, (255, 255, 255), 0.08)), "line": to_hex(mix(ink, (0, 0, 0), 0.35)),
                      "humours": [h.id for h in d.humours], "humour_colours": [h.colour for h in d.humours]}
            return TemplateCard(name, kind, values, "game.toml", "game")
        raise DataError("render", None, None, f'"{name}" is not drawn from layers')

    def _zone_colours(self, zone: str) -> dict[str, str]:
        """A scene's fields of its zone's colours: ``zone_colour`` and ``line`` (it darkened), made once a zone."""
        known = self.__dict__.setdefault("_zone_hex", {})
        found = known.get(zone)
        if found is None:
            colour = self.zone_colour(zone)
            found = known[zone] = {"zone_colour": to_hex(colour), "line": to_hex(mix(colour, (0, 0, 0), 0.35))}
        return found

    @cached_property
    def _frame_line(self) -> str:
        """The inner line of a card's frame: the frame's colour darkened (as the backs darken their ink)."""
        return to_hex(mix(self.colours["frame"], (0, 0, 0), 0.35))

    def _art_file(self, card_id: str, file: str, entry: str) -> str:
        """The art file of card ``card_id`` relative to the game folder (``art/<id>.png``, ``.jpg`` or ``.jpeg``), or
        ``art/<id>.png`` when it has none (its image layer then draws its stand-in)."""
        path = find_art(self.game_dir, card_id, file=file, entry=entry)
        if path is None:
            return f"art/{card_id}.png"
        return path.relative_to(Path(self.game_dir).resolve()).as_posix()

    @cached_property
    def _layers(self) -> TemplateRenderer:
        """The drawer of the layouts with layers (it keeps no card: each is handed to it)."""
        return TemplateRenderer(self.layouts, [], game_dir=self.game_dir, bundled_fonts=self.fonts_dir,
                                lang=self.lang, max_pixels=self.max_pixels, pictures=PICTURES)

    def _from_layers(self, card: TemplateCard) -> Image.Image:
        """``card`` drawn from its layout's layers at this renderer's size of that layout."""
        layout = self.layouts.layouts[card.kind]
        return self._layers.draw(card, layout.template, (layout.width, layout.height))

    def player_colour(self, name: str) -> tuple[int, int, int]:
        if name not in self.layouts.player_colours:
            raise DataError(LAYOUTS_FILE, "player_colours", name,
                            "no colour for this seat colour of game.toml player_colours")
        return self.layouts.player_colours[name]

    def board(self, board: Board, kind: str, index: int) -> Image.Image:
        """The kingdom map or a fief board: tiles in their grid, edges, then cells with their names."""
        layout = self.layouts.layouts[kind]
        file = "map.toml" if kind == "kingdom" else "fiefs.toml"
        lang = self.lang
        tw, th = layout.width, layout.height
        columns = max((t.col for t in board.tiles), default=0) + 1
        rows = max((t.row for t in board.tiles), default=0) + 1
        width, height = columns * tw, rows * th
        if width > 4096 or height > 4096:
            raise DataError(LAYOUTS_FILE, f'layout "{kind}"', "tile_size",
                            f"the {columns}x{rows} board would be {width}x{height} px (at most 4096)")
        image = Image.new("RGB", (width, height), self.colours["background"])
        draw = ImageDraw.Draw(image)
        palette = self.layouts.zone_colours
        for i, tile in enumerate(board.tiles):
            colour = self.zone_colour(tile.id) if kind == "kingdom" else palette[index % len(palette)]
            x0, y0 = tile.col * tw, tile.row * th
            image.paste(placeholder((tw, th), mix(colour, (255, 255, 255), 0.35)), (x0, y0))
            draw.rectangle((x0, y0, x0 + tw - 1, y0 + th - 1), outline=mix(colour, (0, 0, 0), 0.4), width=self.px(6))
        positions = {k: (x * width, y * height) for k, (x, y) in cell_positions(board).items()}
        for edge in board.edges:
            if edge.a in positions and edge.b in positions:
                self._edge(draw, positions[edge.a], positions[edge.b], edge.kind)
        for tile in board.tiles:  # names over the edges that cross them
            self._label(draw, _Text(tile.name.get(lang), file, f'tile "{tile.id}"', f"name.{lang}"),
                        layout.boxes["tile_name"].moved(tile.col * tw, tile.row * th))
        radius = layout.params.get("cell_radius", self.px(50))
        name_box = layout.boxes["cell_name"]
        for cell in board.cells:
            cx, cy = positions[cell.id]
            draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=self.colours["cell"],
                         outline=self.colours["ink"], width=max(self.px(2), radius // 9))
            citizen = self.data.citizen_by_id.get(cell.citizen) if cell.citizen else None
            if citizen is not None and citizen.humours:
                icon = round(radius * 0.8)
                for j, humour in enumerate(citizen.humours):
                    paste_icon(image, humour_icon(humour, self.humour_colour(humour), icon),
                               (cx + (j - 0.5) * icon * 1.1, cy))
            else:
                dot = radius * 0.3
                draw.ellipse((cx - dot, cy - dot, cx + dot, cy + dot), fill=self.colours["frame"])
            self._label(draw, _Text(cell.name.get(lang), file, f'cell "{cell.id}"', f"name.{lang}"),
                        name_box.moved(round(cx), round(cy)))
        return image

    def _label(self, draw: ImageDraw.ImageDraw, text: _Text, box: Box) -> None:
        """A fitted text on a rounded pale plate hugging its ink (board names stay legible over lines)."""
        fitted = fit_text(text.text, box, self.fonts_dir, file=text.file, entry=text.entry, field=text.field)
        left, top, right, bottom = fitted.ink
        pad = self.px(6)
        draw.rounded_rectangle((box.x + left - pad, box.y + top - pad, box.x + right + pad, box.y + bottom + pad),
                               radius=self.px(8), fill=mix(self.colours["cell"], self.colours["background"], 0.5))
        draw_fitted(draw, fitted, box, self.fonts_dir)

    def _edge(self, draw: ImageDraw.ImageDraw, a, b, kind: str) -> None:
        (x1, y1), (x2, y2) = a, b
        length = math.hypot(x2 - x1, y2 - y1)
        if length < 1:
            return
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        if kind == "bridge":
            colour = self.colours["bridge"]
            draw.line([a, b], fill=colour, width=self.px(30))
            plank = mix(colour, (255, 255, 255), 0.45)
            nx, ny = -uy, ux
            half, inset, pitch = 12 * self.scale, 10 * self.scale, 18 * self.scale
            t = inset
            while t < length - inset:
                px, py = x1 + ux * t, y1 + uy * t
                draw.line([(px - nx * half, py - ny * half), (px + nx * half, py + ny * half)], fill=plank,
                          width=self.px(5))
                t += pitch
        else:  # a dashed path
            colour = self.colours["path"]
            t = 0.0
            while t < length:
                end = min(length, t + 28 * self.scale)
                draw.line([(x1 + ux * t, y1 + uy * t), (x1 + ux * end, y1 + uy * end)], fill=colour,
                          width=self.px(10))
                t += 44 * self.scale


def _hex(text: str) -> tuple[int, int, int]:
    text = text.lstrip("#")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


# -- pictures drawn in code ---------------------------------------------------------------------------

def _colours(request: PictureRequest, count: int) -> tuple[tuple[int, int, int], ...]:
    """The request's colours, refused unless there are exactly ``count``."""
    if len(request.colours) != count:
        raise PictureError(f"takes {count} colour{'s' if count > 1 else ''}, not {len(request.colours)}")
    return request.colours


def paint_crosshatch(request: PictureRequest) -> Image.Image:
    """The backs' hatching: lines both ways at 45 degrees in its one colour, a fourteenth of the box's smaller side
    apart (16 design pixels at least), a fifth of that wide."""
    (colour,) = _colours(request, 1)
    step = max(16 * request.scale, min(request.size) / 14)
    width = max(1, round(step / 5))
    image = hatching(request.size, colour, step, width)
    image.alpha_composite(hatching(request.size, colour, step, width, rising=True))
    return image


def paint_star(request: PictureRequest) -> Image.Image:
    """A five-pointed star in its one colour with an outline that reads on it
    (:func:`tools.render.draw.star_icon`), as large as the box's smaller side, centred in it."""
    (colour,) = _colours(request, 1)
    image = Image.new("RGBA", request.size, (0, 0, 0, 0))
    composite_icon(image, star_icon(colour, min(request.size)), (request.size[0] / 2, request.size[1] / 2))
    return image


def paint_humour(humour: str, request: PictureRequest) -> Image.Image:
    """``humour``'s potion (:func:`tools.games.four_humours.icons.humour_icon`) in its one colour, as large as the
    box's smaller side, at its left end (centred in a square box; a resolution row's icon leads its row)."""
    (colour,) = _colours(request, 1)
    return _humour_picture(humour, colour, tuple(request.size))


@lru_cache(maxsize=512)
def _humour_picture(humour: str, colour: tuple[int, int, int], size: tuple[int, int]) -> Image.Image:
    # kept: the same few icons at the same few sizes are on every scene card (the drawer does not modify it)
    image = Image.new("RGBA", size, (0, 0, 0, 0))
    side = min(size)
    composite_icon(image, humour_icon(humour, colour, side), (side / 2, size[1] / 2))
    return image


PICTURES = {"crosshatch": paint_crosshatch, "star": paint_star,
            **{humour: partial(paint_humour, humour) for humour in HUMOURS}}
"""The pictures the layouts' picture layers name (tools.render.templatedraw.PictureRequest): the backs' hatching,
the goal markers' star, and each humour's potion by the humour's id (a layer names one with a field:
``picture = "{humours.1}"``)."""


# -- the build ------------------------------------------------------------------------------------------

def load_four_humours_layouts(game_dir: Path) -> Layouts:
    """Read and validate ``game_dir/layouts.toml`` against what this renderer draws: every box it needs, and the
    layouts of :data:`TEMPLATE_KINDS` with their layers."""
    layouts = load_layouts(game_dir / LAYOUTS_FILE, fonts_dir=assets_dir() / "fonts", required=REQUIRED_BOXES,
                           required_strings=REQUIRED_STRINGS, required_colours=REQUIRED_COLOURS)
    for kind in TEMPLATE_KINDS:
        if kind not in layouts.layouts or layouts.layouts[kind].template is None:
            raise DataError(LAYOUTS_FILE, f'layout "{kind}"', "layers",
                            "missing: this layout is drawn from its layers (docs/data-format.md, Card templates)")
    for kind in BODY_GROUPS:
        old = f"{kind}_body"
        if old in layouts.layouts:   # a layouts.toml written before the body became groups of the card's layers
            raise DataError(LAYOUTS_FILE, f'layout "{old}"', None,
                            f'is no longer read: the slots and resolution are repeat groups of layout "{kind}" '
                            '(docs/games/four_humours/data-format.md); `ttsmod new NAME --from four-humours` '
                            'writes a layouts.toml that has them, to copy from')
        for group in BODY_GROUPS[kind]:
            body_group(layouts.layouts[kind], group)
    return layouts


def body_group(layout: CardLayout, name: str) -> Repeat:
    """The repeat group ``name`` of a scene's or party's ``layout`` (:data:`BODY_GROUPS`); :class:`DataError` naming
    the layout when it has none."""
    template = layout.template
    found = next((layer for layer in template.layers if layer.name == name), None) if template else None
    if not isinstance(found, Repeat):
        lists = {"resolution": "steps", "slots": "slots"}
        raise DataError(LAYOUTS_FILE, f'layout "{layout.kind}"', "layers",
                        f'needs a repeat group named "{name}" (repeat = "{lists[name]}"): the card\'s '
                        f'{"slot panels" if name == "slots" else "resolution rows"} (docs/games/four_humours/'
                        'data-format.md)')
    return found


def slots_box(layout: CardLayout) -> tuple[tuple[int, int, int, int], tuple[int, int]]:
    """Where the slot panels of a scene's or party's ``layout`` lie, in its design pixels, and that size: the box of
    its group ``slots``, which the panels share in equal columns."""
    x, y, w, h = body_group(layout, "slots").box
    width, height = layout.template.design_size
    sx, sy = width / layout.template.width, height / layout.template.height
    return (round(x * sx), round(y * sy), round(w * sx), round(h * sy)), (width, height)


def render_game(
    data: FourHumoursData,
    out_dir: Path,
    *,
    lang: str = "en",
    fmt: str = "jpg",
    quality: int = 90,
    use_cache: bool = True,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    game_dir: Path | None = None,
    prune: bool = True,
    max_pixels: int | None = None,
    entries: EntryKeys | None = None,
) -> GameArt:
    """Render and pack every Four Humours image into ``out_dir/sheets/`` (see the module docstring).

    ``game_dir`` is the folder with ``layouts.toml`` and ``art/`` (default: the folder of the built-in game
    ``data.info.id``).  ``progress(done, total)`` is called as images finish rendering (total = images to
    render this run).  With ``prune=False`` files of earlier runs that this run no longer uses are left in
    place and listed in ``GameArt.stale``, so a caller can delete them once its own output is written (the
    build does, so a failure after rendering leaves the previous save's images intact).  Art over
    ``max_pixels`` (default :data:`tools.imageio.DEFAULT_MAX_PIXELS`) is refused as a likely decompression
    bomb. ``entries`` (a build's): the scenes' keys are kept by their entries (:meth:`Renderer.keys`).  Raises
    :class:`DataError` for bad layouts, missing glyphs, texts that cannot fit, art paths escaping the game folder;
    :class:`InputError` for a bad ``lang``, ``fmt`` or ``quality``.
    """
    if lang not in LANGUAGES:
        raise InputError(f'language must be one of {", ".join(LANGUAGES)}, not "{lang}"')
    check_image_options(fmt, quality)
    game_dir = Path(game_dir) if game_dir is not None else resolve_game_dir(data.info.id)
    layouts = load_four_humours_layouts(game_dir)
    renderer = Renderer(data, layouts, game_dir, assets_dir() / "fonts", lang, max_pixels)
    # The keys and the glyph check read each card's fields: made once for both (only while they run: an art file
    # may come before a later key is asked for)
    renderer._kept_cards = {}
    try:
        keys = renderer.keys(entries if use_cache else None)
        checked_path = Path(out_dir) / ".cache" / CHECKED_TEXTS
        checked = CheckedKeys.load(checked_path) if use_cache else CheckedKeys()
        renderer.check_texts(checked.known, keys)
        checked.save(checked_path, set(keys.values()))
    finally:
        renderer._kept_cards = None

    names = [name for name, _ in renderer.items()]
    decks = [DeckPlan(deck, tuple(n for n in names if n.startswith(prefix + ":")), back)
             for deck, prefix, back in (("scenes", "scene", "scene-back"), ("goals", "goal", "goal-back"),
                                        ("parties", "party", "party-back"))]
    singles = [n for n in names if n == "kingdom" or n.split(":")[0] in
               ("fief", "potion", "potion-back", "party", "goal-marker", "scene-marker")]
    renderer._kept_keys = keys
    try:
        return render_art(renderer, out_dir, decks=decks, singles=singles,
                          thumbnail=ThumbnailPlan("kingdom", lambda image: _thumbnail(renderer, image)),
                          fmt=fmt, quality=quality, use_cache=use_cache, jobs=jobs, progress=progress, prune=prune)
    finally:
        renderer._kept_keys = None   # the art keeps its renderer (print_faces): later keys are made anew


def _thumbnail(renderer: Renderer, kingdom: Image.Image) -> Image.Image:
    """The save's 256×256 preview: the map, cover-fitted, with the four humour potions along the bottom."""
    size = THUMBNAIL_SIZE
    image = cover_fit(kingdom, (size, size))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, size - 64, size - 1, size - 1), fill=renderer.colours["back"])
    humours = renderer.data.humours
    for i, humour in enumerate(humours):
        x = size * (i + 0.5) / max(1, len(humours))
        paste_icon(image, humour_icon(humour.id, _hex(humour.colour), 48), (x, size - 32))
    return image
