"""Kill the Unicorns card faces, backs, boards and tokens, drawn from the game records and ``layouts.toml``.

Everything is drawn (no art files):

- a hunting card shows its value large and in both upper corners, and its character's name on a strip of the
  character's colour; each character has its own hunting back and trick back in its colour;
- a trick card shows its name on the character's colour, a red pin and the words "pinned …" when pinned, its
  text and its character;
- a unicorn shows its stars in the upper-left corner (icons for 1 to 5, a star and the number otherwise), its
  colour's name on a strip of its colour (legendary unicorns: a gold frame and "Legendary"), an emblem, its
  name, and a "Start" ribbon on start unicorns; all unicorns share one back;
- a character card (landscape tile): name, power name, when it may be used, its text;
- the scoring reference card: the order of scoring and the collection table built from the ``[rules]`` numbers
  (``collection_bonus`` up to ``collection_cap``, ``rainbow_bonus``), never from fixed numbers;
- the market board (each item as a market card: name, price, stock, where its token goes, text, places of its
  tokens), the market tokens, the first-player token, the hunting ground and one seat mat per seat colour.

Images (:meth:`Renderer.items`), all through :func:`tools.render.pipeline.render_art`:

- decks ``unicorns`` (the deck's unicorns) and ``start-unicorns`` with the back ``unicorn-back``;
  ``hunting-<character>`` with ``hunting-back:<character>``; ``tricks-<character>`` with
  ``trick-back:<character>``;
- singles ``character:<id>``, ``scoring``, ``token:<item>``, ``first-player``, ``ground``, ``market``,
  ``seat-mat:<Colour>``, and the thumbnail.

Cache keys hash what affects the pixels (not the record id), so identical copies share one cached image and
editing one card's text re-renders only the images that show it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property, lru_cache, partial
from pathlib import Path
from typing import Mapping

from PIL import Image, ImageDraw

from bridge.catalog import resolve_game_dir
from bridge.errors import DataError, InputError
from bridge.paths import assets_dir
from bridge.rules.game import LANGUAGES
from bridge.rules.kill_the_unicorns.records import STOCK_PER_PLAYER, KillTheUnicornsData
from tools.games.kill_the_unicorns import geometry
from tools.render.draw import SUPERSAMPLE, composite_icon, contrast, cover_fit, hatching, mix, star_icon
from tools.render.colour import to_hex
from tools.render.layout import Box, CardLayout, Layouts, load_layouts, parse_colour
from tools.render.pipeline import Art, DeckPlan, Progress, ThumbnailPlan, check_image_options, render_art
from tools.render.sizing import DrawsAtSize
from tools.render.templatedraw import PictureError, PictureRequest, TemplateCard, TemplateRenderer
from tools.render.text import draw_text, fit_text
from tools.save.objects import SEAT_COLOURS

RENDERER_VERSION = "7"
"""Bump when a drawing change must invalidate every cached image."""

LAYOUTS_FILE = "layouts.toml"
THUMBNAIL_SIZE = 256
GOLD = (224, 180, 40)

REQUIRED_BOXES: Mapping[str, Mapping[str, bool]] = {
    "ground": {"line": False, "label": True, "number": True},
    "seat_mat": {"catch_label": True, "catch": False, "hunt_discard": False, "hunt": False, "trick_discard": False,
                 "character": False, "title": True, "trick_deck": False, "spot_label": True},
    "market_board": {"title": True, "cards": False},
    "market_card": {"name": True, "price": True, "stock": True, "target": True, "text": True, "tokens": False},
}
"""Image kind → its boxes (``True``: a text box) that ``layouts.toml`` must define."""

REQUIRED_STRINGS = (
    "hunting", "trick", "pinned", "start", "legendary", "unicorn", "power", "price", "stock_per_player",
    "stock_fixed", "on_unicorn", "in_front", "black_market", "first_player", "scoring", "score_stars",
    "score_modifiers", "score_collections", "score_count", "score_points", "score_rainbow", "score_legendary",
    "score_tie", "catch", "hunt_area", "trick_deck", "trick_discard", "hunt_discard", "character", "above", "below",
    "card_back", "trick_back", "bag", "seat",
)
REQUIRED_COLOURS = ("background", "ink", "frame", "back_ink", "legendary", "board", "slot", "pin", "start",
                    "first_player", "token")
TEMPLATE_KINDS = ("hunting", "hunting_back", "trick", "trick_back", "character", "unicorn", "unicorn_back", "token",
                  "first_player", "scoring")
"""Layouts drawn from their layers in layouts.toml (tools.render.template), with fields this renderer gives and
the pictures it paints (:data:`PICTURES`: the unicorn emblem in the data's colours, a unicorn's row of stars,
the backs' hatchings, a band of every unicorn colour); the scoring card's collection table is a repeat group, a
column per collection size up to the rules' ``collection_cap``. The other kinds stay drawn here, because their
places are not the layout's to choose: the boards, whose card and token places are table geometry
(:mod:`tools.games.kill_the_unicorns.geometry`, which the table's snap points are computed from too): the hunting
ground (a column per unicorn of the day), the seat mats (a catch column per unicorn colour) and the black market
(a market card per item, each with a place per token of its stock; the market cards are drawn only there)."""


@dataclass(frozen=True)
class _Text:
    """A text with the place in the data it comes from (for error messages)."""

    text: str
    file: str
    entry: str | None
    field: str | None


def load_unicorn_layouts(game_dir: Path, data: KillTheUnicornsData | None = None) -> Layouts:
    """Read and validate ``game_dir/layouts.toml`` against what this renderer draws: every box it needs, the
    ground's and seat mat's boxes big enough for the cards lying there, a ``timing_<timing>`` string for every
    power timing of ``data``."""
    layouts = load_layouts(Path(game_dir) / LAYOUTS_FILE, fonts_dir=assets_dir() / "fonts", required=REQUIRED_BOXES,
                           required_strings=REQUIRED_STRINGS, required_colours=REQUIRED_COLOURS)
    for kind in TEMPLATE_KINDS:
        if kind not in layouts.layouts or layouts.layouts[kind].template is None:
            raise DataError(LAYOUTS_FILE, f'layout "{kind}"', "layers",
                            "missing: this layout is drawn from its layers (docs/data-format.md, Card templates)")
    columns = {"ground": 4, "seat_mat": 5}
    if data is not None:
        columns = {"ground": data.rules.unicorns_per_day, "seat_mat": len(catch_columns(data))}
        for character in data.characters:
            key = f"timing_{character.power.timing}"
            if key not in layouts.strings:
                raise DataError(LAYOUTS_FILE, f'string "{key}"', None,
                                f'missing (character "{character.id}" has a power used "{character.power.timing}")')
    for kind, count in columns.items():
        for box, problem in geometry.check_boxes(layouts.layouts[kind], count):
            raise DataError(LAYOUTS_FILE, f'layout "{kind}"', f"boxes.{box}.box", problem)
    return layouts


def catch_columns(data: KillTheUnicornsData) -> list[str]:
    """The catch area's columns: each unicorn colour in data order, then legendary unicorns."""
    return [*data.colour_ids, geometry.LEGENDARY]


def seat_colours(data: KillTheUnicornsData) -> tuple[str, ...]:
    """The seat colours the table is laid for: the first ``max_players`` of the game's colours."""
    return tuple(data.info.player_colours[:data.info.max_players])


class Renderer(DrawsAtSize):
    """Draws one image at a time from the records, at any size (:class:`DrawsAtSize`); holds no files open and
    writes nothing (picklable). The hunting ground's and seat mats' places are table geometry
    (:mod:`tools.games.kill_the_unicorns.geometry`, in design pixels): those boards are drawn at their design
    size only (:attr:`DESIGN_SIZE_ONLY`)."""

    BODY_BOXES = {"hunting": ("character",), "trick": ("text", "pinned"), "unicorn": ("name", "colour"),
                  "character": ("power", "timing", "text")}
    """The boxes of each deck face's body text: what a player reads on the card besides its big number."""
    DESIGN_SIZE_ONLY = ("ground", "seat_mat")
    """Boards whose card places are table geometry in design pixels."""

    def __init__(self, data: KillTheUnicornsData, layouts: Layouts, fonts_dir: Path, lang: str,
                 game_dir: Path | None = None):
        self.data = data
        self.layouts = layouts
        self.fonts_dir = fonts_dir
        self.lang = lang
        self.colours = layouts.colours
        self.game_dir = Path(game_dir) if game_dir is not None else resolve_game_dir(data.info.id)

    # -- naming and keys ---------------------------------------------------------------------------------

    def items(self) -> list[tuple[str, str]]:
        """Every image to render as ``(name, layout kind)``, in a stable order."""
        d = self.data
        out: list[tuple[str, str]] = []
        for c in d.characters:
            out += [(f"hunting:{card_id}", "hunting") for card_id, card in d.hunting_cards.items()
                    if card.character == c.id]
            out.append((f"hunting-back:{c.id}", "hunting_back"))
            out += [(f"trick:{card_id}", "trick") for card_id, card in d.trick_cards.items()
                    if card.character == c.id]
            out.append((f"trick-back:{c.id}", "trick_back"))
            out.append((f"character:{c.id}", "character"))
        out += [(f"unicorn:{u.id}", "unicorn") for u in d.unicorns] + [("unicorn-back", "unicorn_back")]
        out += [("scoring", "scoring"), ("first-player", "first_player"), ("ground", "ground"),
                ("market", "market_board")]
        out += [(f"token:{m.id}", "token") for m in d.market]
        out += [(f"seat-mat:{colour}", "seat_mat") for colour in seat_colours(d)]
        return out

    def _content(self, name: str) -> object:
        """What image ``name`` shows, without ids where copies look alike (they then share a cache entry); the
        kinds drawn from layers are keyed by their cards (:meth:`_card`)."""
        d = self.data
        head, _, ident = name.partition(":")
        if head == "ground":
            return d.rules.unicorns_per_day
        if head == "market":
            return (d.market, tuple(m.token_count for m in d.market))
        if head == "seat-mat":
            return (SEAT_COLOURS.get(ident), tuple(d.colours.values()), d.info.name)
        return d.info.name

    @cached_property
    def _font_hashes(self) -> Mapping[str, str]:
        fonts = {b.font for lay in self.layouts.layouts.values() for b in lay.boxes.values() if b.font}
        return {f: hashlib.sha256((self.fonts_dir / f).read_bytes()).hexdigest() for f in sorted(fonts)}

    def key(self, name: str, kind: str) -> str:
        """The cache key of image ``name``: a hash of everything that affects its pixels (for a kind drawn from
        its layers, the template drawer's key of its card: layout, fields, language and every file it draws)."""
        if kind in TEMPLATE_KINDS:
            digest = hashlib.sha256(f"{RENDERER_VERSION}\0{self._layers.card_key(self._card(name))}".encode())
            return digest.hexdigest()
        kinds = [kind, "market_card"] if kind == "market_board" else [kind]
        digest = hashlib.sha256()
        parts = [RENDERER_VERSION, self.lang, self.layouts.fingerprint()]
        for k in kinds:
            layout = self.layouts.layouts[k]
            parts += [k, layout.fingerprint()]
            parts += [self._font_hashes[f] for f in sorted({b.font for b in layout.boxes.values() if b.font})]
        parts.append(repr(self._content(name)))
        for part in parts:
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
        return digest.hexdigest()

    # -- texts -------------------------------------------------------------------------------------------

    def string(self, key: str, **values: object) -> _Text:
        text = self.layouts.string(key, self.lang)
        for name, value in values.items():
            text = text.replace("{" + name + "}", str(value))
        return _Text(text, LAYOUTS_FILE, f'string "{key}"', self.lang)

    def names(self, names, file: str, entry: str, field: str) -> _Text:
        return _Text(names.get(self.lang), file, entry, f"{field}.{self.lang}")

    def character_name(self, character_id: str) -> _Text:
        c = self.data.character_by_id[character_id]
        return self.names(c.name, "cards.toml", f'character "{c.id}"', "name")

    def _size(self, text: _Text, box: Box) -> int:
        """The largest size in ``box`` that keeps every word of ``text`` whole (the shared fitting would rather
        break a long word than shrink)."""
        words = text.text.split()
        size_max = box.size_max
        while True:
            fitted = fit_text(text.text, box, self.fonts_dir, file=text.file, entry=text.entry, field=text.field,
                              size_max=size_max)
            whole = [w for line in fitted.lines for w in line.split()] == words
            if whole or fitted.size <= box.size_min:
                return fitted.size
            size_max = fitted.size - 1

    def _text(self, draw: ImageDraw.ImageDraw, text: _Text, box: Box, colour=None) -> None:
        """Fit ``text`` to ``box`` with every word whole and draw it."""
        size = self._size(text, box)
        draw_text(draw, text.text, box, self.fonts_dir, file=text.file, entry=text.entry, field=text.field,
                  colour=colour, size_max=size)

    def texts(self):
        """Every text of the data and of ``layouts.toml`` drawn in a box of its own, with that box (for the
        checks before rendering: a bad text is reported before any image is drawn)."""
        d, L, lang = self.data, self.layouts.layouts, self.lang
        game = _Text(d.info.name.get(lang), "game.toml", "[game]", f"name.{lang}")
        for m in d.market:
            entry = f'market "{m.id}"'
            yield self.names(m.name, "cards.toml", entry, "name"), L["market_card"].box("name")
            yield self.names(m.text, "cards.toml", entry, "text"), L["market_card"].box("text")
            yield self.string("price", price=m.price), L["market_card"].box("price")
        for key, box in (("stock_per_player", "stock"), ("on_unicorn", "target"), ("in_front", "target")):
            yield self.string(key), L["market_card"].box(box)
        yield self.string("black_market"), L["market_board"].box("title")
        yield self.string("catch"), L["seat_mat"].box("catch_label")
        yield game, L["seat_mat"].box("title")

    def check_texts(self) -> None:
        """Raise :class:`DataError` for a text the font cannot draw or that cannot fit its box (for the layouts
        drawn from layers, :data:`TEMPLATE_KINDS`: a character the font cannot draw on any card, and a text that
        cannot fit by drawing each card with texts of its own once, at its design size; a unicorn's fit is named
        when it is drawn)."""
        for name, kind in self.items():
            if kind in TEMPLATE_KINDS:
                self._layers.check_glyphs(self._card(name))
        seen: set[tuple[str, str]] = set()
        for text, box in self.texts():
            if (text.text, repr(box)) in seen:
                continue
            seen.add((text.text, repr(box)))
            fit_text(text.text, box, self.fonts_dir, file=text.file, entry=text.entry, field=text.field)
        for c in self.data.characters:
            self.character(c.id)
        drawn: set[tuple[int, str]] = set()
        for card in self.data.hunting_cards.values():
            if (card.value, card.character) not in drawn:
                drawn.add((card.value, card.character))
                self.hunting(card.id)
        # every trick kind once and every character's name on a trick once: each text a trick card shows
        kinds: set[str] = set()
        characters: set[str] = set()
        for card_id, card in self.data.trick_cards.items():
            if card.kind not in kinds or card.character not in characters:
                kinds.add(card.kind)
                characters.add(card.character)
                self.trick(card_id)
        for item in self.data.market:
            self.token(item.id)
        for c in self.data.characters:
            self.hunting_back(c.id)
            self.trick_back(c.id)
        self.unicorn_back()
        self.first_player()
        self.scoring()

    # -- drawing -----------------------------------------------------------------------------------------

    def draw(self, name: str) -> Image.Image:
        """The RGB image called ``name`` (one of :meth:`items`) at the layouts' scale."""
        head, _, ident = name.partition(":")
        drawers = {
            "hunting": self.hunting, "hunting-back": self.hunting_back, "trick": self.trick,
            "trick-back": self.trick_back, "character": self.character, "unicorn": self.unicorn,
            "unicorn-back": lambda _: self.unicorn_back(), "scoring": lambda _: self.scoring(),
            "first-player": lambda _: self.first_player(), "ground": lambda _: self.ground(),
            "market": lambda _: self.market_board(), "token": self.token, "seat-mat": self.seat_mat,
        }
        if head not in drawers:
            raise DataError("render", None, None, f'no image called "{name}"')
        return drawers[head](ident)

    def _base(self, layout: CardLayout, fill, outline) -> tuple[Image.Image, ImageDraw.ImageDraw]:
        image = Image.new("RGB", (layout.width, layout.height), fill)
        draw = ImageDraw.Draw(image)
        frame = layout.params.get("frame", 0)
        if frame:
            draw.rectangle((0, 0, layout.width - 1, layout.height - 1), outline=outline, width=frame)
        return image, draw

    def _strip(self, draw: ImageDraw.ImageDraw, layout: CardLayout, box: Box, colour, pad: int = 16) -> None:
        """A band of ``colour`` across the card behind ``box`` (inside the frame); ``pad`` in design pixels."""
        frame = layout.params.get("frame", 0)
        pad, sliver = self.px(pad), self.px(24)
        top, bottom = box.y - pad, box.y + box.height + pad
        # A sliver of paper between the frame and the strip looks like a mistake: the strip meets the frame.
        top = frame if top - frame < sliver else top
        bottom = layout.height - 1 - frame if layout.height - 1 - frame - bottom < sliver else bottom
        draw.rectangle((frame, top, layout.width - 1 - frame, bottom), fill=colour)

    def hunting(self, card_id: str) -> Image.Image:
        """A hunting card, drawn from the layers of its layout with the card's value and its character's fields."""
        return self._from_layers(self._card(f"hunting:{card_id}"))

    def hunting_back(self, character_id: str) -> Image.Image:
        return self._from_layers(self._card(f"hunting-back:{character_id}"))

    def trick_back(self, character_id: str) -> Image.Image:
        return self._from_layers(self._card(f"trick-back:{character_id}"))

    def trick(self, card_id: str) -> Image.Image:
        """A trick card, drawn from the layers of its layout with its kind's fields and its character's."""
        return self._from_layers(self._card(f"trick:{card_id}"))

    def character(self, character_id: str) -> Image.Image:
        """A character card, drawn from the layers of its layout with the character's fields."""
        return self._from_layers(self._card(f"character:{character_id}"))

    def _card(self, name: str) -> TemplateCard:
        """Image ``name`` of a kind drawn from its layers (:data:`TEMPLATE_KINDS`) as a card of its layout with the
        fields the layout reads: the data's, and what this renderer adds to them (colours mixed from a character's,
        words of [strings], an initial). No id among them: copies that look alike share one cached image."""
        head, _, ident = name.partition(":")
        d = self.data
        if head == "hunting":
            card = d.hunting_card(ident)
            c = d.character_by_id[card.character]
            colour = parse_colour(c.colour)
            values = {"value": card.value, "name": c.name.to_json(), "colour": c.colour,
                      "tint": to_hex(mix(colour, self.colours["background"], 0.82)),
                      "name_ink": to_hex(contrast(colour))}
            return TemplateCard(name, "hunting", values, "cards.toml", f'character "{c.id}"')
        if head == "trick":
            card = d.trick_card(ident)
            kind = d.trick_by_id[card.kind]
            c = d.character_by_id[card.character]
            values = {"name": kind.name.to_json(), "text": kind.text.to_json(), "pinned": kind.pinned,
                      "pinned_words": self.string("pinned").text if kind.pinned else "",
                      "character": c.name.to_json(), "colour": c.colour,
                      "name_ink": to_hex(contrast(parse_colour(c.colour)))}
            return TemplateCard(name, "trick", values, "cards.toml", f'trick "{kind.id}"')
        if head == "character":
            c = d.character_by_id[ident]
            colour = parse_colour(c.colour)
            values = {"name": c.name.to_json(),
                      "power": {"name": c.power.name.to_json(), "text": c.power.text.to_json()},
                      "timing": self.string(f"timing_{c.power.timing}").text, "colour": c.colour,
                      "tint": to_hex(mix(colour, self.colours["background"], 0.85)),
                      "name_ink": to_hex(contrast(colour))}
            return TemplateCard(name, "character", values, "cards.toml", f'character "{c.id}"')
        if head == "token":
            item = d.market_by_id[ident]
            initial = self.names(item.name, "cards.toml", f'market "{item.id}"', "name").text[:1].upper()
            return TemplateCard(name, "token", {"name": item.name.to_json(), "letter": initial}, "cards.toml",
                                f'market "{item.id}"')
        if head in ("hunting-back", "trick-back"):
            c = d.character_by_id[ident]
            colour = parse_colour(c.colour)
            ink = contrast(colour)
            hunting = head == "hunting-back"
            hatch = mix(colour, (0, 0, 0), 0.15) if hunting else mix(colour, (255, 255, 255), 0.15)
            values = {"game": d.info.name.to_json(), "name": c.name.to_json(),
                      "kind_words": self.string("hunting" if hunting else "trick").text, "colour": c.colour,
                      "frame": to_hex(mix(colour, (0, 0, 0), 0.4)), "hatch": to_hex(hatch), "ink": to_hex(ink),
                      "emblem_outline": to_hex(mix(colour, ink, 0.5))}
            return TemplateCard(name, head.replace("-", "_"), values, "cards.toml", f'character "{c.id}"')
        if head == "unicorn":
            u = d.unicorn_by_id[ident]
            colour = self.unicorn_colour(u.colour)
            legendary = u.colour is None
            label = self.string("legendary").text if legendary else d.colours[u.colour].name.to_json()
            values = {"name": u.name.to_json(), "stars": u.stars,
                      "star_count": "" if 1 <= u.stars <= 5 else str(u.stars).replace("-", "\u2212"),
                      "label": label, "colour": to_hex(colour),
                      "paper": to_hex(mix(colour, self.colours["background"], 0.78)),
                      "frame": to_hex(GOLD if legendary else mix(colour, (0, 0, 0), 0.3)),
                      "badge": to_hex(mix(colour, (255, 255, 255), 0.75)), "ink": to_hex(contrast(colour)),
                      "head": to_hex(mix(colour, (255, 255, 255), 0.35)),
                      "head_outline": to_hex(mix(colour, (0, 0, 0), 0.45)), "start": u.start,
                      "start_words": self.string("start").text if u.start else "",
                      "start_ink": to_hex(contrast(self.colours["start"]))}
            return TemplateCard(name, "unicorn", values, "cards.toml", f'unicorn "{u.id}"')
        if head == "unicorn-back":
            base = mix(self.colours["frame"], (0, 0, 0), 0.2)
            values = {"game": d.info.name.to_json(), "words": self.string("unicorn").text, "base": to_hex(base),
                      "stripes": [to_hex(mix(base, parse_colour(c.hex), 0.35)) for c in d.colours.values()]}
            return TemplateCard(name, "unicorn_back", values, "game.toml", "[game]")
        if head == "first-player":
            values = {"words": self.string("first_player").text,
                      "ink": to_hex(contrast(self.colours["first_player"]))}
            return TemplateCard(name, "first_player", values, LAYOUTS_FILE, 'string "first_player"')
        if head == "scoring":
            return self._scoring_card()
        raise DataError("render", None, None, f'"{name}" is not drawn from layers')

    @cached_property
    def _layers(self) -> TemplateRenderer:
        """The drawer of the layouts with layers (it keeps no card: each is handed to it)."""
        return TemplateRenderer(self.layouts, [], game_dir=self.game_dir, bundled_fonts=self.fonts_dir,
                                lang=self.lang, pictures=PICTURES)

    def _from_layers(self, card: TemplateCard) -> Image.Image:
        """``card`` drawn from its layout's layers at this renderer's size of that layout."""
        layout = self.layouts.layouts[card.kind]
        return self._layers.draw(card, layout.template, (layout.width, layout.height))

    def unicorn_colour(self, colour_id: str | None) -> tuple[int, int, int]:
        if colour_id is None:
            return self.colours["legendary"]
        return parse_colour(self.data.colours[colour_id].hex)

    def unicorn(self, unicorn_id: str) -> Image.Image:
        """A unicorn, drawn from the layers of its layout with its fields and its colour's."""
        return self._from_layers(self._card(f"unicorn:{unicorn_id}"))

    def unicorn_back(self) -> Image.Image:
        return self._from_layers(self._card("unicorn-back"))

    def scoring(self) -> Image.Image:
        """The scoring reference card, drawn from the layers of its layout (:meth:`_scoring_card`)."""
        return self._from_layers(self._card("scoring"))

    def _scoring_card(self) -> TemplateCard:
        """The scoring card's fields: the strings ``score_*`` in the build's language (``{cap}`` and ``{bonus}``
        filled in from the rules), the tie break's words only when the rules break ties by most unicorns, and a
        column per collection size (its count, its bonus), each field told where in the data it comes from."""
        rules = self.data.rules
        words = {"title": ("scoring", {}), "stars": ("score_stars", {}), "modifiers": ("score_modifiers", {}),
                 "collections": ("score_collections", {"cap": rules.collection_cap}),
                 "rainbow": ("score_rainbow", {"bonus": rules.rainbow_bonus}),
                 "legendary": ("score_legendary", {}), "count_label": ("score_count", {}),
                 "points_label": ("score_points", {}), "tie": ("score_tie", {})}
        values: dict[str, object] = {field: self.string(key, **fill).text for field, (key, fill) in words.items()}
        if rules.tie_break != "most_unicorns":
            values["tie"] = ""
        origins: dict[str, tuple[str, ...]] = {field: (LAYOUTS_FILE, f'string "{key}"', self.lang)
                                               for field, (key, _) in words.items()}
        columns = []
        for number, count in enumerate(range(1, rules.collection_cap + 1), 1):
            bonus = rules.bonus(count)
            columns.append({"count": str(count), "points": f"+{bonus}" if bonus > 0 else str(bonus)})
            origins[f"columns.{number}.count"] = ("game.toml", "rules", "collection_cap")
            origins[f"columns.{number}.points"] = ("game.toml", "rules", "collection_bonus")
        values["columns"] = columns
        return TemplateCard("scoring", "scoring", values, LAYOUTS_FILE, 'layout "scoring"', origins)

    def token(self, item_id: str) -> Image.Image:
        """A market token, drawn from the layers of its layout with the item's name and initial."""
        return self._from_layers(self._card(f"token:{item_id}"))

    def first_player(self) -> Image.Image:
        return self._from_layers(self._card("first-player"))

    def _place(self, draw: ImageDraw.ImageDraw, centre: tuple[float, float], size: tuple[float, float],
               label: _Text | None, style: Box, *, fill=None, dashed: bool = False) -> None:
        """An empty card place: a rounded outline of ``size`` at ``centre`` with ``label`` inside."""
        w, h = size
        x, y = centre
        rect = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        outline = self.colours["frame"]
        draw.rounded_rectangle(rect, radius=round(w / 12), fill=fill or self.colours["slot"],
                               outline=None if dashed else outline, width=self.px(4))
        line = self.px(4)
        if dashed:
            dash = self.px(18)
            for t in range(0, round(w), 2 * dash):
                draw.line((rect[0] + t, rect[1], min(rect[2], rect[0] + t + dash), rect[1]), fill=outline, width=line)
                draw.line((rect[0] + t, rect[3], min(rect[2], rect[0] + t + dash), rect[3]), fill=outline, width=line)
            for t in range(0, round(h), 2 * dash):
                draw.line((rect[0], rect[1] + t, rect[0], min(rect[3], rect[1] + t + dash)), fill=outline, width=line)
                draw.line((rect[2], rect[1] + t, rect[2], min(rect[3], rect[1] + t + dash)), fill=outline, width=line)
        if label is not None:
            pad = self.px(10)
            box = Box(style.name, round(x - w / 2 + pad), round(y - h / 2 + pad), round(w - 2 * pad), round(h - 2 * pad),
                      style.font, style.size_min, style.size_max, "center", "middle", style.colour,
                      style.line_spacing)
            self._text(draw, label, box)

    def ground(self) -> Image.Image:
        layout = self.layouts.layouts["ground"]
        image, draw = self._base(layout, self.colours["board"], self.colours["frame"])
        cells = geometry.line_cells(layout, self.data.rules.unicorns_per_day)
        card = geometry.card_size_pixels()
        for row, centres in cells.items():
            for i, centre in enumerate(centres):
                if row == "unicorn":
                    number = _Text(str(i + 1), "game.toml", "rules", "unicorns_per_day")
                    self._place(draw, centre, card, number, layout.box("number"))
                else:
                    self._place(draw, centre, card, self.string(row), layout.box("label"), dashed=True)
        return image

    def seat_mat(self, colour_name: str) -> Image.Image:
        layout = self.layouts.layouts["seat_mat"]
        seat = parse_colour(SEAT_COLOURS.get(colour_name, "#b0b0b0"))
        image, draw = self._base(layout, mix(seat, self.colours["board"], 0.85), seat)
        b = layout.boxes
        style = b["spot_label"]
        card = geometry.card_size_pixels()
        self._text(draw, self.string("catch"), b["catch_label"])
        chip_h = geometry.catch_label_height(layout) - 8
        for column, (x, y) in geometry.catch_columns(layout, catch_columns(self.data)).items():
            fill = self.unicorn_colour(None if column == geometry.LEGENDARY else column)
            top = y - card[1] / 2
            draw.rounded_rectangle((x - card[0] / 2, top - chip_h - 4, x + card[0] / 2, top - 4), radius=8, fill=fill)
            # The column's room for later unicorns, each laid a step nearer the owner.
            catch = b["catch"]
            draw.rounded_rectangle((x - card[0] / 2, top, x + card[0] / 2, catch.y + catch.height), radius=12,
                                   fill=mix(fill, self.colours["board"], 0.88))
            self._place(draw, (x, y), card, None, style, fill=mix(fill, self.colours["board"], 0.7))
        for x, y in geometry.hunt_spots(layout):
            self._place(draw, (x, y), card, self.string("hunt_area"), style, dashed=True)
        spots = geometry.mat_spots(layout)
        for name in ("hunt_discard", "trick_discard", "trick_deck"):
            self._place(draw, spots[name], card, self.string(name), style)
        cw = geometry.CHARACTER_WIDTH * geometry.PX_PER_UNIT
        self._place(draw, spots["character"], (cw, cw * geometry.CARD_FACE[0] / geometry.CARD_FACE[1]),
                    self.string("character"), style)
        self._text(draw, _Text(self.data.info.name.get(self.lang), "game.toml", "[game]", f"name.{self.lang}"),
                   b["title"])
        return image

    def market_card(self, item) -> Image.Image:
        layout = self.layouts.layouts["market_card"]
        image, draw = self._base(layout, self.colours["background"], self.colours["frame"])
        b = layout.boxes
        entry = f'market "{item.id}"'
        dark = self.colours["frame"]
        self._strip(draw, layout, b["name"], dark, pad=6)
        self._text(draw, self.names(item.name, "cards.toml", entry, "name"), b["name"], contrast(dark))
        self._text(draw, self.string("price", price=item.price), b["price"])
        stock = (self.string("stock_per_player") if item.stock == STOCK_PER_PLAYER
                 else self.string("stock_fixed", stock=item.stock))
        self._text(draw, stock, b["stock"])
        self._text(draw, self.string("on_unicorn" if item.target == "own_unicorn" else "in_front"), b["target"])
        self._text(draw, self.names(item.text, "cards.toml", entry, "text"), b["text"])
        return image

    def market_board(self) -> Image.Image:
        layout = self.layouts.layouts["market_board"]
        card_layout = self.layouts.layouts["market_card"]
        image, draw = self._base(layout, self.colours["board"], self.colours["frame"])
        self._text(draw, self.string("black_market"), layout.box("title"))
        items = self.data.market
        rects = geometry.market_card_rects(layout, card_layout, len(items))
        for item, (left, top, scale) in zip(items, rects):
            # Drawn at the size it lies on the board, not drawn and resampled.
            size = (round(card_layout.width * scale), round(card_layout.height * scale))
            face = self.market_card(item) if scale == 1 else self.at(card_layout, size).market_card(item)
            image.paste(face, (round(left), round(top)))
        r = geometry.market_token_diameter_pixels(layout) / 2
        spots = geometry.market_token_spots(layout, card_layout, [m.token_count for m in items])
        for places in spots:
            for x, y in places:
                draw.ellipse((x - r, y - r, x + r, y + r), fill=self.colours["slot"], outline=self.colours["frame"],
                             width=self.px(3))
        return image


# -- pictures drawn in code -------------------------------------------------------------------------------

def _colours(request: PictureRequest, count: int) -> tuple[tuple[int, int, int], ...]:
    """The request's ``count`` colours, refused when it has another number."""
    if len(request.colours) != count:
        raise PictureError(f"takes {count} colours, not {len(request.colours)}")
    return request.colours


def paint_hatching(request: PictureRequest, *, rising: bool = False) -> Image.Image:
    """A back's hatching: lines in its one colour a tenth of the box's smaller side apart, falling from left to
    right (hunting backs) or ``rising`` (trick backs)."""
    (colour,) = _colours(request, 1)
    step = min(request.size) / 10
    return hatching(request.size, colour, step, max(1, round(step / 5)), rising=rising)


def paint_unicorn(request: PictureRequest) -> Image.Image:
    """The unicorn emblem (:func:`unicorn_icon`) in its three colours (head, outline, horn), centred in its box."""
    head, outline, horn = _colours(request, 3)
    image = Image.new("RGBA", request.size, (0, 0, 0, 0))
    composite_icon(image, unicorn_icon(head, outline, min(request.size), horn=horn),
                   (request.size[0] / 2, request.size[1] / 2))
    return image


def paint_stars(request: PictureRequest) -> Image.Image:
    """A unicorn's stars from the left of its box, each as high as the box or a fifth of its width: as many as
    the card's field ``stars`` from 1 to 5 in the first colour; otherwise one star (its number is a text of the
    layout), in the second colour for none or a penalty."""
    gold, grey = _colours(request, 2)
    stars = request.fields.get("stars")
    if not isinstance(stars, int) or isinstance(stars, bool):
        raise PictureError("must be a whole number of stars", field="stars")
    w, h = request.size
    image = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    size = max(1, min(h, w // 5))
    row = [gold] * stars if 1 <= stars <= 5 else [gold if stars > 0 else grey]
    for i, colour in enumerate(row):
        composite_icon(image, star_icon(colour, size), (size * (i + 0.5), h / 2))
    return image


def paint_colour_stripes(request: PictureRequest) -> Image.Image:
    """A band of each of its colours across its box, evenly down it (each 0.3 of its share of the height, starting
    a quarter of its share down): the unicorns' back shows every unicorn colour."""
    if not request.colours:
        raise PictureError("takes at least 1 colour, not 0")
    w, h = request.size
    image = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    band = h / (2 * len(request.colours))
    for i, colour in enumerate(request.colours):
        y = (2 * i + 0.5) * band
        draw.rectangle((0, y, w, y + band * 0.6), fill=(*colour, 255))
    return image


PICTURES = {"hatching": paint_hatching, "hatching_rising": partial(paint_hatching, rising=True),
            "unicorn": paint_unicorn, "stars": paint_stars, "colour_stripes": paint_colour_stripes}
"""The pictures the layouts' picture layers name (tools.render.templatedraw.PictureRequest): what a layer cannot
draw, painted at each size a card is drawn at."""


def unicorn_icon(colour: tuple[int, int, int], outline: tuple[int, int, int], size: int,
                 horn: tuple[int, int, int] = GOLD) -> Image.Image:
    """A unicorn's head in profile (head, muzzle, ear, eye, a striped horn) on a transparent square (RGBA)."""
    # Drawn once per colours and size in a process, then copied: the supersampled drawing and its resampling
    # cost some 50 ms, and a deck of unicorns and their backs asks for the same few icons dozens of times.
    return _unicorn_icon(tuple(colour), tuple(outline), size, tuple(horn)).copy()


@lru_cache(maxsize=64)
def _unicorn_icon(colour: tuple[int, int, int], outline: tuple[int, int, int], size: int,
                  horn: tuple[int, int, int]) -> Image.Image:
    s = size * SUPERSAMPLE
    layer = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    fill, line = tuple(colour) + (255,), tuple(outline) + (255,)
    width = max(2, s // 40)
    # horn: from the forehead up and to the right
    tip, base_l, base_r = (s * 0.86, s * 0.04), (s * 0.52, s * 0.3), (s * 0.64, s * 0.36)
    draw.polygon([tip, base_l, base_r], fill=tuple(horn) + (255,), outline=line)
    for t in (0.3, 0.5, 0.7):
        a = (base_l[0] + (tip[0] - base_l[0]) * t, base_l[1] + (tip[1] - base_l[1]) * t)
        b = (base_r[0] + (tip[0] - base_r[0]) * t, base_r[1] + (tip[1] - base_r[1]) * t)
        draw.line([a, b], fill=line, width=max(1, width // 2))
    # neck and head
    draw.polygon([(s * 0.18, s * 0.96), (s * 0.3, s * 0.45), (s * 0.5, s * 0.3), (s * 0.62, s * 0.62),
                  (s * 0.56, s * 0.96)], fill=fill, outline=line, width=width)
    draw.ellipse((s * 0.3, s * 0.26, s * 0.68, s * 0.6), fill=fill, outline=line, width=width)
    draw.ellipse((s * 0.5, s * 0.42, s * 0.9, s * 0.68), fill=fill, outline=line, width=width)
    draw.polygon([(s * 0.34, s * 0.34), (s * 0.3, s * 0.12), (s * 0.46, s * 0.28)], fill=fill, outline=line)
    eye = s * 0.035
    draw.ellipse((s * 0.55 - eye, s * 0.4 - eye, s * 0.55 + eye, s * 0.4 + eye), fill=line)
    nostril = s * 0.02
    draw.ellipse((s * 0.82 - nostril, s * 0.56 - nostril, s * 0.82 + nostril, s * 0.56 + nostril), fill=line)
    # mane
    for i in range(4):
        y = s * (0.36 + i * 0.14)
        draw.ellipse((s * (0.2 - i * 0.02), y, s * (0.34 - i * 0.02), y + s * 0.16), fill=line)
    return layer.resize((size, size), Image.Resampling.LANCZOS)


# -- the build ------------------------------------------------------------------------------------------

def deck_plans(data: KillTheUnicornsData) -> list[DeckPlan]:
    """The unicorn deck and the start unicorns (one back), and per character its hunting and trick decks."""
    plans = [DeckPlan("unicorns", tuple(f"unicorn:{u.id}" for u in data.deck_unicorns), "unicorn-back"),
             DeckPlan("start-unicorns", tuple(f"unicorn:{u.id}" for u in data.start_unicorns), "unicorn-back")]
    for c in data.characters:
        plans.append(DeckPlan(f"hunting-{c.id}", tuple(f"hunting:{card.id}" for card in data.hunting_cards.values()
                                                       if card.character == c.id), f"hunting-back:{c.id}"))
        plans.append(DeckPlan(f"tricks-{c.id}", tuple(f"trick:{card.id}" for card in data.trick_cards.values()
                                                      if card.character == c.id), f"trick-back:{c.id}"))
    return plans


SINGLE_HEADS = ("character", "scoring", "token", "first-player", "ground", "market", "seat-mat")


def render_game(data: KillTheUnicornsData, out_dir: Path, *, lang: str = "en", fmt: str = "jpg", quality: int = 90,
                use_cache: bool = True, jobs: int | None = None, progress: Progress | None = None,
                game_dir: Path | None = None, prune: bool = True) -> Art:
    """Render and pack every Kill the Unicorns image into ``out_dir/sheets/`` (see the module docstring).

    ``game_dir`` holds ``layouts.toml`` (default: the built-in game's folder).  Raises :class:`DataError` for bad
    layouts, missing glyphs and texts that cannot fit; :class:`InputError` for a bad ``lang``, ``fmt`` or
    ``quality``.
    """
    if lang not in LANGUAGES:
        raise InputError(f'language must be one of {", ".join(LANGUAGES)}, not "{lang}"')
    check_image_options(fmt, quality)
    game_dir = Path(game_dir) if game_dir is not None else resolve_game_dir(data.info.id)
    layouts = load_unicorn_layouts(game_dir, data)
    renderer = Renderer(data, layouts, assets_dir() / "fonts", lang, game_dir)
    renderer.check_texts()
    names = [name for name, _ in renderer.items()]
    singles = [n for n in names if n.split(":")[0] in SINGLE_HEADS]
    first = f"unicorn:{data.deck_unicorns[0].id}"
    return render_art(renderer, out_dir, decks=deck_plans(data), singles=singles,
                      thumbnail=ThumbnailPlan(first, _thumbnail), fmt=fmt, quality=quality,
                      use_cache=use_cache, jobs=jobs, progress=progress, prune=prune)


def _thumbnail(face: Image.Image) -> Image.Image:
    """The save's 256×256 preview: a unicorn, cover-fitted."""
    return cover_fit(face, (THUMBNAIL_SIZE, THUMBNAIL_SIZE))

