"""Each game's data-format page shows every card list of its data as spreadsheet rows made from that data
(``tests/dataexamples.py``: the lists are those ``ttsmod data export`` finds in the game's own data files; a
game without card lists skips, saying so), each example reads back through the spreadsheet reader as the list's
first cards, and the shared page (docs/data-format.md) holds no game's examples: a new game documents its lists
in its own page only."""

from __future__ import annotations

from bridge import spreadsheets
from tests import everygame
from tests.dataexamples import (BEGIN, EXAMPLE_ROWS, HEADING, REPO_ROOT, examples, lists_of, page_of,
                                shown, shown_lists, write)

game = everygame.games_declaring("card_lists")
"""The GAME argument of every game whose data files hold card lists (another skips the test, saying so)."""


def test_the_games_page_shows_its_card_lists_as_its_data_gives_them(game):
    page = page_of(game)
    rewrite = f"write them with: python -m tests.dataexamples {game}"
    assert page.is_file(), f"{game} has card lists but no page {page}; {rewrite}"
    text = shown(page.read_text(encoding="utf-8"))
    assert text is not None, f"{page} shows no card-list examples; {rewrite}"
    assert text == examples(game), f"{page}: the examples differ from the data; {rewrite}"


def test_each_example_reads_back_as_the_first_cards_of_its_list(game, tmp_path):
    lists = {(name, into): records for into, name, records in lists_of(game)}
    found = shown_lists(page_of(game).read_text(encoding="utf-8"))
    assert sorted((name, into) for name, into, _ in found) == sorted(lists)
    for name, into, body in found:
        (tmp_path / f"{name}.csv").write_text(body, encoding="utf-8")
        records, read = spreadsheets.read_list(tmp_path, spreadsheets.SheetSpec(name, f"{name}.csv", None, into))
        assert records == lists[(name, into)][:EXAMPLE_ROWS], (name, into)
        assert read.rows == list(range(2, 2 + len(records)))


def test_the_shared_page_shows_no_games_card_lists():
    text = (REPO_ROOT / "docs" / "data-format.md").read_text(encoding="utf-8")
    assert BEGIN not in text and "<!-- list:" not in text and "```csv" not in text


GAME_TOML = """[game]
id = "tiny-deck"
name = { en = "Tiny Deck", uk = "Крихітна колода", ru = "Крошечная колода" }
min_players = 2
max_players = 2
modes = ["standard"]
player_colours = ["White", "Red"]
data_files = ["game.toml", "cards.toml"]
engine = "tiny_deck.engine"
builder = "tiny_deck.builder"
"""
CARDS_TOML = """[[cards]]
id = "one"
title = { en = "One", uk = "Один", ru = "Один" }

[[cards]]
id = "two"
value = 2
title = { en = "Two", uk = "Два", ru = "Два" }

[[cards]]
id = "three"
title = { en = "Three", uk = "Три", ru = "Три" }
"""


def test_the_examples_are_written_into_a_new_games_page_and_rewritten_after_an_edit(tmp_path):
    # A new game kept outside ttsmod (its data only: the card lists are read from the files, no code runs): its
    # page is made in its folder, with the first two cards and only the columns they fill.
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "game.toml").write_text(GAME_TOML, encoding="utf-8")
    (folder / "cards.toml").write_text(CARDS_TOML, encoding="utf-8")
    assert page_of(str(folder)) == folder / "data-format.md"
    write(str(folder))
    page = (folder / "data-format.md").read_text(encoding="utf-8")
    assert page.startswith("# Tiny Deck: the data files\n") and HEADING in page
    csv = "id,title.en,title.uk,title.ru,value\none,One,Один,Один,\ntwo,Two,Два,Два,2\n"
    assert shown_lists(page) == [("cards", "cards.toml", csv)]
    # a hand-written part stays; an edited card changes the examples, and writing them again follows the data
    (folder / "data-format.md").write_text(page.replace(HEADING, f"Written by hand.\n\n{HEADING}"), encoding="utf-8")
    (folder / "cards.toml").write_text(CARDS_TOML.replace('en = "Two"', 'en = "Deux"'), encoding="utf-8")
    assert shown((folder / "data-format.md").read_text(encoding="utf-8")) != examples(str(folder))
    write(str(folder))
    again = (folder / "data-format.md").read_text(encoding="utf-8")
    assert shown(again) == examples(str(folder)) and "Written by hand.\n" in again and again.count(BEGIN) == 1
    assert "two,Deux,Два,Два,2\n" in shown(again)
