"""A small Four Humours data set built from the records directly, and a game folder with the real layouts."""

from __future__ import annotations

import shutil

import pytest

from bridge.rules.game import GameMeta
from bridge.rules.four_humours.records import (
    Board,
    Cell,
    CitizenType,
    Count,
    Edge,
    FourHumoursData,
    Goal,
    GoalPredicate,
    HumourInfo,
    Names,
    Outcome,
    PartyTile,
    Rules,
    SceneCard,
    Slot,
    Step,
    Tile,
)


def names(en: str, uk: str | None = None, ru: str | None = None) -> Names:
    return Names(en=en, uk=uk or f"{en} укр", ru=ru or f"{en} рус")


def small_game() -> FourHumoursData:
    humours = (
        HumourInfo("choleric", names("Choleric", "Холерик", "Холерик"), "#e3b81c"),
        HumourInfo("sanguine", names("Sanguine", "Сангвінік", "Сангвиник"), "#b3202a"),
        HumourInfo("melancholic", names("Melancholic", "Меланхолік", "Меланхолик"), "#1c1c1f"),
        HumourInfo("phlegmatic", names("Phlegmatic", "Флегматик", "Флегматик"), "#f1efe6"),
    )
    citizens = (
        CitizenType("noble", names("Noble", "Шляхтич", "Дворянин"), ("choleric", "sanguine")),
        CitizenType("nun", names("Nun", "Черниця", "Монахиня"), ("melancholic", "phlegmatic")),
    )
    default = (
        Step("choleric", Count("eq", 1), Outcome.WIN),
        Step("sanguine", Count("gte", 2), Outcome.WIN),
        Step("melancholic", Count("eq", 1), Outcome.SNEAK),
        Step("phlegmatic", Count("gte", 1), Outcome.DISCARD),
    )
    tiles = (Tile("T1", names("Vale", "Долина", "Долина"), 0, 0), Tile("T2", names("Hills", "Пагорби", "Холмы"), 1, 0))
    cells = (
        Cell("mill", names("Mill", "Млин", "Мельница"), "T1", pos=(0.2, 0.5)),
        Cell("ford", names("Ford", "Брід", "Брод"), "T1", pos=(0.4, 0.3)),
        Cell("abbey", names("Abbey", "Абатство", "Аббатство"), "T2", pos=(0.75, 0.5)),
        Cell("well", names("Well", "Криниця", "Колодец"), "T2"),  # no pos: placed inside its tile
    )
    kingdom = Board("kingdom", names("Kingdom"), tiles,
                    cells, (Edge("mill", "ford", "path"), Edge("ford", "abbey", "bridge")))
    fief = Board("fief-1", names("Fief"), (Tile("F1", names("Estate", "Маєток", "Поместье"), 0, 0),),
                 (Cell("manor", names("Manor", "Садиба", "Усадьба"), "F1", "noble", (0.3, 0.3)),
                  Cell("chapel", names("Chapel", "Каплиця", "Часовня"), "F1", "nun", (0.7, 0.7))),
                 (Edge("manor", "chapel", "path"),))
    scenes = tuple(
        SceneCard(f"scene-{i}", names(f"Scene {i}", f"Сцена {i}", f"Сцена {i}"), "location",
                  "T1" if i % 2 else "T2", ("mill", "abbey")[i % 2],
                  (Slot("noble", ("choleric", "sanguine")), Slot("nun", ("melancholic", "phlegmatic"),
                                                                 names("Abbess", "Абатиса", "Аббатиса"))))
        for i in range(5)
    ) + (SceneCard("wolves", names("Wolves", "Вовки", "Волки"), "animal", "T2", None,
                   (Slot("animal", ("choleric", "melancholic"), names("Wolf", "Вовк", "Волк")),),
                   (Step("choleric", Count("between", 1, 2), Outcome.WIN),)),)
    parties = (PartyTile("ball", names("Ball", "Бал", "Бал"), 0, "noble", (Slot("noble", ("choleric", "sanguine")),)),)
    goals = (Goal("tour", "kingdom", names("Tour", "Мандрівка", "Путешествие"),
                  names("Have a potion on each tile.", "Майте зілля на кожному фрагменті.", "Зелье на каждом участке."),
                  GoalPredicate("zones_covered", min=2)),
             Goal("line", "fief", names("Line"), names("Three in a row."), GoalPredicate("fief_line", length=3)))
    info = GameMeta("four-humours", names("Four Humours", "Чотири темпераменти", "Четыре зелья"), 2, 6,
                    ("kingdom", "fief"), ("White", "Red"), ("en", "uk", "ru"), ("game.toml",),
                    "bridge.rules.four_humours", "tools.games.four_humours", "four_humours")
    return FourHumoursData(info, Rules(default_resolution=default), humours, citizens, scenes, parties, goals,
                           kingdom, (fief,))


@pytest.fixture
def game() -> FourHumoursData:
    return small_game()


@pytest.fixture
def game_dir(tmp_path, repo_root):
    """A game folder holding a copy of the shipped layouts.toml (and an empty art/ folder)."""
    folder = tmp_path / "game"
    (folder / "art").mkdir(parents=True)
    shutil.copy(repo_root / "assets" / "four_humours" / "layouts.toml", folder / "layouts.toml")
    return folder
