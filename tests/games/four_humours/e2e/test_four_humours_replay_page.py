"""End to end: a short Four Humours game played by the real mod on the headless table against a bridge that
journals, then ``ttsmod replay --html`` of that journal, read as text and in headless Chromium
(tests/e2e/replaypage.py): the sentences the table told everyone, every decision by its seat's colour, the plot
and the standings."""

from __future__ import annotations

import pytest

from tests.e2e.replaypage import check_page, check_rendered, page_of, play_journaled
from tests.games.four_humours.e2e.harness import Game


@pytest.fixture(scope="module")
def played(tmp_path_factory, kingdom_save, data, repo_root):
    game = Game(kingdom_save, data, repo_root, ["White", "Red"], seed=4)
    return play_journaled(game, tmp_path_factory.mktemp("replay") / "bridge-journal.jsonl", 8, "four-humours",
                          decide=lambda g: g.step())


@pytest.fixture(scope="module")
def page(played, repo_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("page") / "game.html"
    return out, page_of(played, repo_root, out)


def test_the_page_of_a_played_game_holds_what_the_table_said_and_who_decided(played, page):
    check_page(played, page[1])


def test_the_page_renders_in_a_real_browser(played, page, tmp_path):
    check_rendered(played, page[0], tmp_path)
