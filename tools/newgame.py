"""``ttsmod new``: a game folder that builds at once.

:func:`new_game` writes either a small card game drawn from data alone — ``game.toml``, its cards as a CSV
file, two images, an icon, card templates in ``layouts.toml`` and its table in ``table.toml``, no Python — or a
copy of a built-in game's folder (``--from GAME``: its data, layouts and art to edit; its rules, builder and Lua
stay ttsmod's, so the copy keeps the game's id and builds into ``build/<folder name>/``, never over the
built-in game's save). The folder is written whole or not at all: into a temporary folder beside it, renamed
into place last. docs/tutorial.md makes a game from it step by step.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

from bridge.catalog import resolve_game
from bridge.errors import InputError
from bridge.rules.reader import ID_PATTERN, MAX_ID_LENGTH

GAME_TOML = '''# {title}: a card game drawn from data alone, made by `ttsmod new` (docs/tutorial.md walks through it).
# Its cards are the rows of cards.csv, drawn by the card templates of layouts.toml; table.toml says where
# everything lies. No Python: the build draws, packs and lays it out (docs/data-format.md).

[game]
id = "{ident}"
name = {{ en = "{title}", uk = "{title}", ru = "{title}" }}
min_players = 2
max_players = 4
modes = ["standard"]
player_colours = ["White", "Red", "Blue", "Green"]
data_files = ["game.toml", "cards.toml"]

# The card list "cards" is read from cards.csv (one row a card; docs/data-format.md, "Card data from spreadsheets").
[sheets]
cards = {{ file = "cards.csv", into = "cards.toml" }}
'''

CARDS_CSV = (
    "id,title.en,title.uk,title.ru,text.en,text.uk,text.ru,power,count\n"
    "spark,Spark,Іскра,Искра,Deal **1** {icon:star} to a player.,Завдай **1** {icon:star} гравцеві.,"
    "Нанеси **1** {icon:star} игроку.,1,3\n"
    "flame,Flame,Полум'я,Пламя,Deal **2** {icon:star}. *Discard a card.*,Завдай **2** {icon:star}. "
    "*Скинь карту.*,Нанеси **2** {icon:star}. *Сбрось карту.*,2,2\n"
    "blaze,Blaze,Пожежа,Пожар,Deal **3** {icon:star} to every other player.,Завдай **3** {icon:star} "
    "кожному іншому гравцеві.,Нанеси **3** {icon:star} каждому другому игроку.,3,1\n"
)

LAYOUTS_TOML = '''# The card templates of {title} (docs/data-format.md, "Card templates"): lengths in millimetres, font sizes
# in points; each output (the TTS sheet, the print-and-play PDF) draws the cards at its own resolution.

[colours]
ink = "#2b2118"
accent = "#b0603c"

[layouts.card]
units = "mm"
size_mm = [63, 88]

[[layouts.card.layers]]
name = "background"
image = "art/front.png"
fit = "fill"

[[layouts.card.layers]]
name = "title"
text = "{{title}}"
box = [6, 5, 40, 10]
size = [9, 16]
colour = "ink"
valign = "middle"

[[layouts.card.layers]]
name = "power-disc"
shape = "ellipse"
box = [47, 4, 11, 11]
fill = "accent"
outline = "ink"
stroke = 0.5

[[layouts.card.layers]]
name = "power"
text = "{{power}}"
box = [48, 5, 9, 9]
size = [10, 16]
colour = "#ffffff"
align = "center"
valign = "middle"

[[layouts.card.layers]]
name = "text"
text = "{{text}}"
box = [7, 52, 49, 28]
size = [7, 12]
colour = "ink"
bold_font = "DejaVuSans-Bold.ttf"
italic_font = "DejaVuSans-Oblique.ttf"
body = true

[layouts.back]
units = "mm"
size_mm = [63, 88]

[[layouts.back.layers]]
image = "art/back.png"
fit = "fill"

[[layouts.back.layers]]
text = "{title}"
box = [6, 38, 51, 12]
size = [12, 22]
colour = "#ffffff"
align = "center"
valign = "middle"
'''

TABLE_TOML = '''# Where everything lies on the table (docs/data-format.md, "Table layouts"): positions are [x, z] in TTS
# units from the table's centre, the White seat's side at negative z.

[[decks]]
name = "cards"
cards = "cards"        # the card list (cards.csv)
layout = "card"        # faces drawn from [layouts.card]
back = "back"          # the back from [layouts.back]
count = "count"        # the column giving each card's copies
shuffle = true
position = [0, 0]
nickname = "{title}"

[[zones]]
name = "discard"
position = [5, 0]
size = [4, 6]

[[labels]]
text = {{ en = "Discard", uk = "Скид", ru = "Сброс" }}
position = [5, 4]
size = 48
'''

README = '''# {title}

A card game made with `ttsmod new`, drawn from data alone. Build it and install it into Tabletop Simulator:

    ttsmod build {folder}
    ttsmod install build/{folder}

Print it: `ttsmod pnp {folder} --out {folder}.pdf`. Edit `cards.csv` (the cards), `layouts.toml` (how a card
looks), `table.toml` (where things lie) and the images in `art/` and `icons/`, then build again.
'''


def game_id_for(folder: Path) -> str:
    """An id for a game kept in ``folder``: its name in lower case, other characters than letters and digits
    made ``-``. :class:`InputError` when nothing of the name is left."""
    ident = re.sub(r"[^a-z0-9]+", "-", folder.name.lower()).strip("-")[:MAX_ID_LENGTH]
    if not ident or not ID_PATTERN.match(ident):
        raise InputError(f"{folder.name!r} makes no game id: name the folder with letters or digits")
    return ident


def title_for(folder: Path) -> str:
    """The game's name from its folder's: ``my-card-game`` → ``My Card Game``."""
    return " ".join(part.capitalize() for part in re.split(r"[-_\s]+", folder.name) if part) or folder.name


def new_game(target: Path, *, from_game: str | None = None) -> Path:
    """Write a new game folder at ``target`` (which must not exist) and return it. ``from_game``: a built-in game
    id (or a game folder) to copy instead of the small template game. :class:`InputError` when ``target`` exists
    or is inside a game folder being copied."""
    target = Path(target)
    if target.exists() or target.is_symlink():
        raise InputError(f"{target} exists: ttsmod new writes a new folder and never writes into one")
    if not target.parent.is_dir():
        raise InputError(f"{target.parent} is not a folder")
    source = resolve_game(from_game).folder if from_game is not None else None
    if source is not None and target.resolve().is_relative_to(source.resolve()):
        raise InputError(f"{target} lies inside {source}, the folder it would copy")
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        work = staging / target.name
        if source is not None:
            shutil.copytree(source, work, symlinks=False,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".cache", "build"))
        else:
            _write_template(work)
        os.replace(work, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _write_template(folder: Path) -> None:
    ident, title = game_id_for(folder), title_for(folder)
    (folder / "art").mkdir(parents=True)
    (folder / "icons").mkdir()
    values = {"ident": ident, "title": title.replace('"', "'"), "folder": folder.name}
    for name, text in (("game.toml", GAME_TOML), ("layouts.toml", LAYOUTS_TOML), ("table.toml", TABLE_TOML),
                       ("README.md", README)):
        (folder / name).write_text(text.format(**values), encoding="utf-8")
    (folder / "cards.csv").write_text(CARDS_CSV, encoding="utf-8")
    _front().save(folder / "art" / "front.png", optimize=False)
    _back().save(folder / "art" / "back.png", optimize=False)
    _star().save(folder / "icons" / "star.png", optimize=False)


def _front() -> Image.Image:
    """A parchment card face with a frame and an art window (744 × 1039: 63 × 88 mm at 300 dpi)."""
    image = Image.new("RGB", (744, 1039), (243, 234, 214))
    draw = ImageDraw.Draw(image)
    draw.rectangle((18, 18, 725, 1020), outline=(91, 70, 54), width=10)
    for y in range(200, 590):   # the art window: a vertical gradient
        t = (y - 200) / 390
        draw.line((70, y, 673, y), fill=(round(201 - 80 * t), round(164 - 60 * t), round(58 + 40 * t)))
    draw.rectangle((70, 200, 673, 589), outline=(91, 70, 54), width=4)
    return image


def _back() -> Image.Image:
    """A dark back with diagonal stripes (their mirrored bleed shows in print)."""
    image = Image.new("RGB", (744, 1039), (61, 47, 79))
    draw = ImageDraw.Draw(image)
    for x in range(-1039, 744, 48):
        draw.line((x, 1039, x + 1039, 0), fill=(82, 66, 102), width=14)
    draw.rectangle((24, 24, 719, 1014), outline=(243, 234, 214), width=8)
    return image


def _star() -> Image.Image:
    """A five-pointed star icon with a transparent background."""
    import math

    image = Image.new("RGBA", (128, 128), (0, 0, 0, 0))
    points = [(64 + (58 if i % 2 == 0 else 24) * math.sin(i * math.pi / 5),
               64 - (58 if i % 2 == 0 else 24) * math.cos(i * math.pi / 5)) for i in range(10)]
    ImageDraw.Draw(image).polygon(points, fill=(214, 150, 32, 255), outline=(91, 70, 54, 255))
    return image
