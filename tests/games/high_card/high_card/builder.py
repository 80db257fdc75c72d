"""High Card's builder: one deck of numbered cards set aside face down, the zones the play loop lays cards in (the
trick in the middle, each seat's won cards before it) and a hand per seat — through the shared pipeline
(tools.render.pipeline, tools.save) and nothing that names another game.

The table (docs/table-contract.md): every card carries the tags ``ttsmod`` and ``hc-card`` and the memo
``{"role": "card", "id": "c7", "value": 7}``; the zones carry ``hc-zone`` and the memo ``{"role": "play"}``,
``{"role": "stock"}`` or ``{"role": "won", "owner": colour}``; the hands are the seats' hand zones.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable

from PIL import Image, ImageDraw

from bridge.luaproject.bundle import lua_string
from bridge.paths import assets_dir
from high_card.engine import GAME_ID, HighCardData
from tools.games.builder import register_builder
from tools.render.pipeline import Art, DeckPlan, Progress, ThumbnailPlan, render_art
from tools.render.text import load_font
from tools.save import DeckSheet, Save, at, card, deck, hand_trigger, scripting_trigger

CARD = (250, 350)
FONT = "DejaVuSans-Bold.ttf"
TAGS = ("ttsmod", "hc-card")
ZONE_TAGS = ("ttsmod", "hc-zone")


class NumberFaces:
    """Draws each card's number and the common back (picklable: the pipeline renders in processes)."""

    def __init__(self, data: HighCardData) -> None:
        self.values = dict(data.values)

    def items(self) -> list[tuple[str, str]]:
        return [(f"card:{card_id}", "card") for card_id in self.values] + [("back", "card")]

    def key(self, name: str, kind: str) -> str:
        return hashlib.sha256(json.dumps([name, kind, FONT, 1]).encode()).hexdigest()[:24]

    def render(self, name: str) -> Image.Image:
        if name == "back":
            image = Image.new("RGB", CARD, (120, 30, 40))
            ImageDraw.Draw(image).rectangle([20, 20, CARD[0] - 20, CARD[1] - 20], outline=(230, 200, 120), width=8)
            return image
        image = Image.new("RGB", CARD, (250, 246, 236))
        draw = ImageDraw.Draw(image)
        draw.rectangle([6, 6, CARD[0] - 6, CARD[1] - 6], outline=(120, 30, 40), width=4)
        font = load_font(str(assets_dir() / "fonts" / FONT), 130)
        draw.text((CARD[0] / 2, CARD[1] / 2), str(self.values[name.split(":", 1)[1]]), fill=(30, 30, 30),
                  font=font, anchor="mm")
        return image


def zone(key: str, memo: dict, x: float, z: float, size: tuple[float, float]) -> object:
    """A scripting zone of the play loop at table position (x, z), ``size`` wide and deep."""
    return scripting_trigger(key, nickname=key, tags=ZONE_TAGS, memo=json.dumps(memo),
                             transform=at(x, z, 1.5, scale=(size[0], 2.0, size[1])))


class HighCardBuilder:
    id = GAME_ID

    def render(self, data: HighCardData, out_dir: Path, *, lang: str, fmt: str, quality: int, use_cache: bool,
               jobs: int | None, progress: Progress | None, game_dir: Path, prune: bool = True,
               max_pixels: int | None = None) -> Art:
        faces = tuple(f"card:{card_id}" for card_id in data.values)
        return render_art(NumberFaces(data), out_dir, decks=[DeckPlan("cards", faces, "back")], singles=[],
                          thumbnail=ThumbnailPlan("back", lambda im: im.resize((256, 256))), fmt=fmt,
                          quality=quality, use_cache=use_cache, jobs=jobs, progress=progress, prune=prune)

    def compose(self, data: HighCardData, art: Art, *, mode: str, lang: str, url_for: Callable[[Path], str],
                game_dir: Path, lua_script: str, xml_ui: str) -> Save:
        packed = art.decks["cards"]
        back = url_for(packed.back_path)
        sheets = [DeckSheet(url_for(s.path), back, s.columns, s.rows, back_is_hidden=packed.back_is_hidden)
                  for s in packed.sheets]
        cards = [card(f"cards/{card_id}", sheet_no + 1, index, sheets[sheet_no], nickname=str(value), tags=TAGS,
                      memo=json.dumps({"role": "card", "id": card_id, "value": value}),
                      transform=at(0, 9, 1.2, face_down=True))
                 for (card_id, value), (sheet_no, index) in zip(data.values.items(), packed.placement)]
        colours = data.info.player_colours[:data.info.max_players]
        objects = [deck("deck", cards, nickname="Cards", tags=TAGS, memo=json.dumps({"role": "deck"}),
                        transform=at(0, 9, 1.2, face_down=True)),
                   zone("play", {"role": "play"}, 0, 0, (12, 5)),
                   zone("stock", {"role": "stock"}, 0, 9, (4, 5))]
        for seat, colour in enumerate(colours):
            x = -15 + 10 * seat
            objects.append(zone(f"won:{colour}", {"role": "won", "owner": colour}, x, -9, (9, 4)))
            objects.append(hand_trigger(f"hand:{colour}", colour, tags=TAGS, memo=json.dumps({"role": "hand",
                                        "owner": colour}), transform=at(x, -18, 3.0, scale=(9, 5, 3))))
        return Save(data.info.name.get(lang), objects, lua_script=lua_script, xml_ui=xml_ui,
                    player_counts=(data.info.min_players, data.info.max_players), turn_order=colours)

    def mod_module(self, data: HighCardData, mode: str) -> str:
        """generated.game: the id, the mode, and as a JSON string (lib.wiring.load decodes it) what the play loop
        reads: the seat colours and player counts."""
        payload = json.dumps({"player_colours": list(data.info.player_colours[:data.info.max_players]),
                              "min_players": data.info.min_players, "max_players": data.info.max_players},
                             separators=(",", ":"))
        return (f"return {{ game = {lua_string(data.info.id)}, mode = {lua_string(mode)}, "
                f"data = {lua_string(payload)} }}\n")


HIGH_CARD_BUILDER = register_builder(HighCardBuilder())
