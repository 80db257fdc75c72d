"""Scene records for the tests of tools.table and tools.tablememo: what a game's data gives a table's
expressions (an id, a title in the three languages, a mode)."""

from __future__ import annotations

from dataclasses import dataclass

from bridge.rules.game import Names


@dataclass(frozen=True)
class Scene:
    id: str
    title: Names
    mode: str


SCENES = (Scene("mill", Names("Mill", "Млин", "Мельница"), "a"), Scene("inn", Names("Inn", "Корчма", "Трактир"), "b"),
          Scene("well", Names("Well", "Криниця", "Колодец"), "a"), Scene("ford", Names("Ford", "Брід", "Брод"), "b"))
