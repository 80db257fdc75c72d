"""Kill the Unicorns game data: parsed TOML documents → validated, frozen records (:class:`KillTheUnicornsData`).

Pure: :func:`parse_kill_the_unicorns` reads no files (:mod:`bridge.catalog` does). Every problem raises
:class:`bridge.rules.errors.DataError` naming the file, the entry and the field, e.g.::

    cards.toml: trick "decoy": effect.type: "vanish" is not an effect type (hunt_sum_delta, …)

The files are documented in docs/games/kill_the_unicorns/data-format.md.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import Any, Mapping

from bridge.rules import reader as r
from bridge.rules.game import TOOL_TABLES, GameMeta, parse_game_meta, read_names
from bridge.rules.kill_the_unicorns import effects as fx
from bridge.rules.kill_the_unicorns.records import (
    MODES, RULE_CHOICES, STOCK_PER_PLAYER, TARGETS, Character, Colour, Effect, KillTheUnicornsData, MarketItem,
    Power, Rules, TrickKind, Unicorn)

__all__ = ["KILL_THE_UNICORNS_FILES", "parse_kill_the_unicorns"]

KILL_THE_UNICORNS_FILES: tuple[str, ...] = ("game.toml", "cards.toml")
COLOUR_COUNT = 4
LEGENDARY_COUNT = 4
MARKET_ITEMS: tuple[str, ...] = ("pate", "fake_horn", "cotton_candy", "fairy_dust")
_HEX = re.compile(r"#[0-9a-fA-F]{6}\Z")
_RULE_MINIMUMS = {"days": 1, "unicorns_per_day": 1, "tricks_drawn": 1, "max_hunt_cards": 1,
                  "power_uses_per_day": 0, "collection_cap": 1, "rainbow_bonus": 0}


def parse_kill_the_unicorns(documents: Mapping[str, Any]) -> KillTheUnicornsData:
    """The records of one game folder from its TOML documents (file name → parsed TOML)."""
    for name in KILL_THE_UNICORNS_FILES:
        if name not in documents:
            raise r.At.data(name).error("file missing")
    game = documents["game.toml"]
    info = _parse_info(game)
    top = r.top("game.toml", game, ("game", "colours", "rules"), TOOL_TABLES)
    colours = _parse_colours(top["colours"])
    rules = _parse_rules(top["rules"])
    cards = r.top("cards.toml", documents["cards.toml"], ("characters", "tricks", "unicorns", "market"))
    tricks = _parse_tricks(cards["tricks"], colours)
    characters = _parse_characters(cards["characters"], tricks, rules, colours)
    used = Counter(kind for c in characters for kind in set(c.tricks))
    tricks = tuple(dataclasses.replace(t, common=used[t.id] > 1) for t in tricks)
    unicorns = _parse_unicorns(cards["unicorns"], colours, rules, info)
    market = _parse_market(cards["market"], colours)
    if len(characters) < info.max_players:
        raise r.At.data("cards.toml", None, "characters").error(
            f"{len(characters)} characters for up to {info.max_players} players ([game] max_players)")
    return KillTheUnicornsData(info, rules, colours, characters, tricks, unicorns, market)


# ------------------------------------------------------------------------------------------------ game.toml

def _parse_info(doc: Any) -> GameMeta:
    meta = parse_game_meta(doc)
    at = r.At.data("game.toml", "[game]").sub("modes")
    for index, mode in enumerate(meta.modes):
        r.choice(at.sub(index), mode, MODES, "a mode")
    return meta


def _hex(at: r.At, value: Any) -> str:
    text = r.string(at, value)
    if not _HEX.match(text):
        raise at.error(f"{r.show(text)} is not a colour like #rrggbb")
    return text


def _parse_colours(value: Any) -> dict[str, Colour]:
    at = r.At.data("game.toml", "[colours]")
    found = r.table(at, value)
    if len(found) != COLOUR_COUNT:
        raise at.error(f"{len(found)} colours, expected {COLOUR_COUNT} (rules spec KU-7.3: a rainbow has four)")
    colours: dict[str, Colour] = {}
    for key, item in found.items():
        entry = r.At.data("game.toml", f'colour "{key}"')
        r.ident(entry, key)
        if key == fx.OWNER_CHOICE:
            raise entry.error(f"{r.show(key)} is reserved (set_colour's owner choice)")
        table = r.table(entry, item)
        r.keys(entry, table, ("name", "hex"))
        colours[key] = Colour(key, read_names(entry.sub("name"), table["name"]), _hex(entry.sub("hex"), table["hex"]))
    return colours


def _int_list(at: r.At, value: Any, minimum: int | None = None) -> tuple[int, ...]:
    items = r.array(at, value, non_empty=True)
    return tuple(r.integer(at.sub(i), item, minimum) for i, item in enumerate(items))


def _parse_rules(value: Any) -> Rules:
    at = r.At.data("game.toml", "[rules]")
    parsed = r.rule_flags(at, value, Rules(), _RULE_MINIMUMS, RULE_CHOICES, special={
        "hunting_values": lambda field_at, v: _int_list(field_at, v, 0),
        "collection_bonus": lambda field_at, v: _int_list(field_at, v)})
    rules = Rules(**parsed)
    if len(rules.hunting_values) < rules.max_hunt_cards:
        raise at.sub("max_hunt_cards").error(
            f"{rules.max_hunt_cards} is more than the {len(rules.hunting_values)} hunting cards of a hand")
    if len(rules.collection_bonus) != rules.collection_cap + 1:
        raise at.sub("collection_bonus").error(
            f"{len(rules.collection_bonus)} entries; expected collection_cap + 1 = {rules.collection_cap + 1} "
            f"(index = unicorns of one colour, 0 … collection_cap)")
    return rules


# ------------------------------------------------------------------------------------------------ cards.toml

def _parse_effect(at: r.At, value: Any, colours: Mapping[str, Colour], timings: tuple[str, ...]) -> Effect:
    """One effect table; ``timings`` are those allowed where it is written (a trick, a power, a market item)."""
    table = r.table(at, value)
    kind = r.choice(at.sub("type"), table.get("type", r.MISSING), tuple(fx.EFFECT_TYPES), "an effect type")
    spec = fx.EFFECT_TYPES[kind]
    r.keys(at, table, ("type",) + spec.required, spec.optional + ("timing",))
    allowed = tuple(t for t in spec.timings if t in timings)
    if not allowed:
        raise at.sub("type").error(f"a {kind} effect acts {' or '.join(spec.timings)}: it cannot be used here "
                                   f"(here: {', '.join(timings)})")
    timing = allowed[0]
    if "timing" in table:
        timing = r.choice(at.sub("timing"), table["timing"], allowed, f"a timing of {kind} here")
    params: dict[str, Any] = {}
    if "target" in table:
        params["target"] = r.choice(at.sub("target"), table["target"], fx.HUNT_TARGETS, "a hunt target")
    if "rule" in table:
        params["rule"] = r.choice(at.sub("rule"), table["rule"], fx.WINNER_RULES, "a change_winner rule")
    if "colour" in table:
        params["colour"] = r.choice(at.sub("colour"), table["colour"], tuple(colours) + (fx.OWNER_CHOICE,),
                                    "a colour of game.toml or owner_choice")
    if "delta" in table:
        params["delta"] = r.integer(at.sub("delta"), table["delta"])
        if params["delta"] == 0:
            raise at.sub("delta").error("0 changes nothing")
    if "points" in table:
        params["points"] = r.integer(at.sub("points"), table["points"])
    if "max_stars" in table:
        params["max_stars"] = r.integer(at.sub("max_stars"), table["max_stars"])
    return Effect(kind, timing, **params)


def _entries(file: str, kind: str, plural: str, value: Any) -> list[tuple[r.At, dict[str, Any]]]:
    items = r.array(r.At.data(file, None, plural), value, non_empty=True)
    out = []
    for index, item in enumerate(items):
        at = r.At.data(file, r.entry_name(kind, plural, item, index))
        out.append((at, r.table(at, item)))
    return out


def _parse_tricks(value: Any, colours: Mapping[str, Colour]) -> tuple[TrickKind, ...]:
    tricks, ats = [], []
    for at, item in _entries("cards.toml", "trick", "tricks", value):
        r.keys(at, item, ("id", "name", "text", "pinned", "effect"))
        pinned = r.boolean(at.sub("pinned"), item["pinned"])
        timings = (fx.ON_REVEAL, fx.AT_SCORING) if pinned else (fx.ON_REVEAL,)
        effect = _parse_effect(at.sub("effect"), item["effect"], colours, timings)
        tricks.append(TrickKind(r.ident(at.sub("id"), item["id"]), read_names(at.sub("name"), item["name"]),
                                read_names(at.sub("text"), item["text"]), pinned, effect))
        ats.append(at)
    r.check_unique(ats, [t.id for t in tricks], "trick", "tricks")
    return tuple(tricks)


def _parse_characters(value: Any, tricks: tuple[TrickKind, ...], rules: Rules,
                      colours: Mapping[str, Colour]) -> tuple[Character, ...]:
    kinds = {t.id for t in tricks}
    characters, ats = [], []
    per_character = len(rules.hunting_values)
    for at, item in _entries("cards.toml", "character", "characters", value):
        r.keys(at, item, ("id", "name", "colour", "promo", "tricks", "power"))
        ident = r.ident(at.sub("id"), item["id"])
        tricks_at = at.sub("tricks")
        listed = r.array(tricks_at, item["tricks"])
        if len(listed) != per_character:
            raise tricks_at.error(f"{len(listed)} trick cards; a character has {per_character} (one per hunting card)")
        if len(listed) < rules.days * rules.tricks_drawn:
            raise tricks_at.error(f"{len(listed)} trick cards cannot last {rules.days} days of "
                                  f"{rules.tricks_drawn} draws")
        kinds_of = []
        for i, kind in enumerate(listed):
            kind = r.ident(tricks_at.sub(i), kind)
            if kind not in kinds:
                raise tricks_at.sub(i).error(f"{r.show(kind)} is not a trick of [[tricks]]")
            kinds_of.append(kind)
        power_at = at.sub("power")
        power = r.table(power_at, item["power"])
        r.keys(power_at, power, ("name", "text", "timing", "effect"))
        timing = r.choice(power_at.sub("timing"), power["timing"], fx.POWER_TIMINGS, "a power timing")
        effect = _parse_effect(power_at.sub("effect"), power["effect"], colours, (timing,))
        if effect.type == "change_winner":
            # A power acts after the reveal, before the provisional winner exists: there is no winner to change.
            raise power_at.sub("effect").sub("type").error(
                "a power acts before the provisional winner is found: use hunt_sum_delta or runs_away")
        characters.append(Character(
            ident, read_names(at.sub("name"), item["name"]), _hex(at.sub("colour"), item["colour"]),
            r.boolean(at.sub("promo"), item["promo"]), tuple(kinds_of),
            Power(read_names(power_at.sub("name"), power["name"]), read_names(power_at.sub("text"), power["text"]),
                  timing, effect)))
        ats.append(at)
    r.check_unique(ats, [c.id for c in characters], "character", "characters")
    return tuple(characters)


def _parse_unicorns(value: Any, colours: Mapping[str, Colour], rules: Rules, info: GameMeta) -> tuple[Unicorn, ...]:
    unicorns, ats = [], []
    for at, item in _entries("cards.toml", "unicorn", "unicorns", value):
        r.keys(at, item, ("id", "name", "stars", "start", "tags"), ("colour",))
        colour = None
        if "colour" in item:
            colour = r.choice(at.sub("colour"), item["colour"], tuple(colours), "a colour of game.toml [colours]")
        tags_at = at.sub("tags")
        tags = tuple(r.ident(tags_at.sub(i), t) for i, t in enumerate(r.array(tags_at, item["tags"])))
        unicorns.append(Unicorn(r.ident(at.sub("id"), item["id"]), read_names(at.sub("name"), item["name"]), colour,
                                r.integer(at.sub("stars"), item["stars"]), r.boolean(at.sub("start"), item["start"]),
                                tags))
        ats.append(at)
    r.check_unique(ats, [u.id for u in unicorns], "unicorn", "unicorns")
    at = r.At.data("cards.toml", None, "unicorns")
    starts = [u for u in unicorns if u.start]
    if len(starts) < info.min_players:
        raise at.error(f"{len(starts)} start unicorns for {info.min_players} players")
    deck = [u for u in unicorns if not u.start]
    # Players beyond the start unicorns (7 players, 6 start unicorns) take theirs from the deck (rules.md).
    needed = rules.days * rules.unicorns_per_day + max(0, info.max_players - len(starts))
    if len(deck) < needed:
        raise at.error(f"{len(deck)} unicorns in the deck; {rules.days} days of {rules.unicorns_per_day} and "
                       f"{info.max_players} players need {needed} (AMB-KU-03)")
    per_colour = Counter(u.colour for u in deck if u.colour is not None)
    counts = {c: per_colour.get(c, 0) for c in colours}
    if len(set(counts.values())) != 1:
        shown = ", ".join(f"{c} {n}" for c, n in counts.items())
        raise at.error(f"the deck must hold the same number of unicorns of each colour (S3-25): {shown}")
    legendary = sum(1 for u in deck if u.colour is None)
    if legendary != LEGENDARY_COUNT:
        raise at.error(f"{legendary} legendary (colourless) unicorns in the deck, expected {LEGENDARY_COUNT}")
    return tuple(unicorns)


def _parse_market(value: Any, colours: Mapping[str, Colour]) -> tuple[MarketItem, ...]:
    items, ats = [], []
    for at, item in _entries("cards.toml", "market item", "market", value):
        r.keys(at, item, ("id", "name", "text", "price", "stock", "target", "effect"))
        ident = r.ident(at.sub("id"), item["id"])
        stock: str | int
        if isinstance(item["stock"], str):
            stock = r.choice(at.sub("stock"), item["stock"], (STOCK_PER_PLAYER,), 'a stock ("per_player" or a number)')
        else:
            stock = r.integer(at.sub("stock"), item["stock"], 1)
        target = r.choice(at.sub("target"), item["target"], TARGETS, "a token target")
        effect = _parse_effect(at.sub("effect"), item["effect"], colours, (fx.WHEN_BOUGHT, fx.AT_SCORING))
        if target == "player_area" and effect.type in ("stars_delta", "set_colour"):
            raise at.sub("target").error(f'a {effect.type} token goes on a unicorn: target must be "own_unicorn"')
        if target == "own_unicorn" and effect.type == "remove_own_unicorn":
            raise at.sub("target").error('a token that turns in its unicorn stays in front of the buyer: '
                                         'target must be "player_area"')
        items.append(MarketItem(ident, read_names(at.sub("name"), item["name"]),
                                read_names(at.sub("text"), item["text"]), r.integer(at.sub("price"), item["price"], 0),
                                stock, target, effect))
        ats.append(at)
    r.check_unique(ats, [m.id for m in items], "market item", "market")
    return tuple(items)
