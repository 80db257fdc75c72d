"""Pebble Race's builder: one deck of pebble cards, one track board, a hand per seat — through the shared
pipeline (tools.render.pipeline, tools.save) and nothing that names another game."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable

from PIL import Image, ImageDraw

from bridge.luaproject.bundle import lua_string
from pebble_race.engine import GAME_ID, PebbleData, new_game
from tools.games.builder import register_builder
from tools.render.pipeline import Art, DeckPlan, Progress, ThumbnailPlan, render_art
from tools.save import DeckSheet, Save, at, card, custom_tile, deck, hand_trigger

CARD = (200, 280)
BOARD = (600, 200)
COLOURS = {1: (181, 168, 140), 2: (120, 120, 128), 3: (70, 62, 60)}


class PebbleFaces:
    """Draws the pebble cards, their back and the track (picklable: the pipeline renders in processes)."""

    def __init__(self, data: PebbleData, lang: str) -> None:
        self.data, self.lang = data, lang

    def items(self) -> list[tuple[str, str]]:
        return [(f"pebble:{p.id}", "card") for p in self.data.pebbles] + [("back", "card"), ("track", "board")]

    def key(self, name: str, kind: str) -> str:
        title = next((p.title.get(self.lang) for p in self.data.pebbles if f"pebble:{p.id}" == name), name)
        return hashlib.sha256(json.dumps([name, kind, title, 1]).encode()).hexdigest()[:24]

    def render(self, name: str) -> Image.Image:
        if name == "track":
            image = Image.new("RGB", BOARD, (214, 196, 150))
            draw = ImageDraw.Draw(image)
            for step in range(13):
                draw.line([(20 + step * track_step(), 40), (20 + step * track_step(), 160)], fill=(90, 70, 40))
            return image
        if name == "back":
            return Image.new("RGB", CARD, (40, 70, 110))
        pebble = next(p for p in self.data.pebbles if f"pebble:{p.id}" == name)
        image = Image.new("RGB", CARD, (245, 240, 228))
        draw = ImageDraw.Draw(image)
        draw.ellipse([40, 60, 160, 180], fill=COLOURS.get(pebble.value, (0, 0, 0)))
        for dot in range(pebble.value):
            draw.rectangle([50 + dot * 40, 220, 70 + dot * 40, 240], fill=(30, 30, 30))
        return image


def track_step() -> int:
    """Pixels between two steps of the track."""
    return 46


class PebbleBuilder:
    id = GAME_ID

    def render(self, data: PebbleData, out_dir: Path, *, lang: str, fmt: str, quality: int, use_cache: bool,
               jobs: int | None, progress: Progress | None, game_dir: Path, prune: bool = True,
               max_pixels: int | None = None) -> Art:
        faces = tuple(f"pebble:{p.id}" for p in data.pebbles for _ in range(p.copies))
        return render_art(PebbleFaces(data, lang), out_dir, decks=[DeckPlan("pebbles", faces, "back")],
                          singles=["track"], thumbnail=ThumbnailPlan("track", lambda im: im.resize((256, 256))),
                          fmt=fmt, quality=quality, use_cache=use_cache, jobs=jobs, progress=progress,
                          prune=prune)

    def compose(self, data: PebbleData, art: Art, *, mode: str, lang: str, url_for: Callable[[Path], str],
                game_dir: Path, lua_script: str, xml_ui: str) -> Save:
        packed = art.decks["pebbles"]
        back = url_for(packed.back_path)
        sheets = [DeckSheet(url_for(s.path), back, s.columns, s.rows, back_is_hidden=packed.back_is_hidden)
                  for s in packed.sheets]
        names = [p for p in data.pebbles for _ in range(p.copies)]
        cards = [card(f"pebbles/{i}", sheet_no + 1, index, sheets[sheet_no], nickname=pebble.title.get(lang),
                      tags=("ttsmod", "pr-pebble"), memo=json.dumps({"role": "pebble", "pebble": pebble.id}),
                      transform=at(0, -8, 1.2, face_down=True))
                 for i, (pebble, (sheet_no, index)) in enumerate(zip(names, packed.placement))]
        objects = [
            deck("pebbles", cards, nickname="Pebbles", tags=("ttsmod", "pr-deck"), memo=json.dumps({"role": "deck"}),
                 transform=at(0, -8, 1.2, face_down=True)),
            custom_tile("track", url_for(art.images["track"]), nickname="Track", tags=("ttsmod", "pr-track"),
                        memo=json.dumps({"role": "track"}), locked=True, transform=at(0, 4, 1.0, scale=(6, 1, 6))),
        ]
        for seat, colour in enumerate(data.info.player_colours[:data.info.max_players]):
            objects.append(hand_trigger(f"hand:{colour}", colour, tags=("ttsmod", "pr-pebble"),
                                        memo=json.dumps({"role": "hand", "owner": colour}),
                                        transform=at(-12 + 12 * seat, -20, 3.0, scale=(10, 5, 3))))
        return Save(data.info.name.get(lang), objects, lua_script=lua_script, xml_ui=xml_ui,
                    player_counts=(data.info.min_players, data.info.max_players),
                    turn_order=data.info.player_colours[:data.info.max_players])

    def mod_module(self, data: PebbleData, mode: str) -> str:
        start = json.dumps(new_game(data, data.info.min_players, seed=1).to_snapshot(), separators=(",", ":"))
        return (f"return {{ game = {lua_string(data.info.id)}, mode = {lua_string(mode)}, "
                f"start = JSON.decode({lua_string(start)}) }}\n")


PEBBLE_BUILDER = register_builder(PebbleBuilder())
