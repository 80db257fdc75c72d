"""``ttsmod replay --html``: the page of a played game (tools/replay_html.py) for every game, on journals the
bridge's own journal writer wrote from a short game played through the bridge's dispatcher
(tests/playedjournal.py); and ``ttsmod replay --json``. The page of a game played by the real mod on the
headless table, with the sentences it broadcast, checked in a real browser, is each game's end-to-end test
(tests/games/<game>/e2e/test_<game>_replay_page.py)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.catalog import load
from bridge.journal import Journal, read_journal
from bridge.session import Dispatcher
from bridge.games import default_registry
from tests.everygame import GAMES
from tests.playedjournal import HOSTILE, play_journal
from tools.cli import cli
from tools.replay_html import engine_of, read_games, render


@pytest.fixture(scope="module", params=GAMES)
def played(request, tmp_path_factory):
    """A short game of each game (its fewest players), journaled, with its page."""
    loaded = load(request.param)
    if loaded.meta.engine is None:
        pytest.skip(f"{loaded.meta.id} has no rules engine: nothing is adjudicated, so no journal")
    path = tmp_path_factory.mktemp("journal") / "bridge-journal.jsonl"
    facts = play_journal(path, request.param, loaded.meta.min_players)
    engine = engine_of(loaded)
    games = read_games(read_journal(path), lambda game_id: engine if game_id == loaded.meta.id else None)
    return {"loaded": loaded, "path": path, "facts": facts, "engine": engine, "games": games,
            "page": render(games, title=path.name)}


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def test_the_page_holds_every_request_ruling_decision_and_sentence_in_order(played):
    facts, page, engine = played["facts"], played["page"], played["engine"]
    (game,) = played["games"]
    assert game.game == facts["game"] and game.started
    assert len(game.rulings) == facts["rulings"] == page.count('<li class="step ruling"')
    assert len(re.findall(r'<li class="step refused"', page)) == facts["refused"] >= 1
    # each action sent, in order, in the game's text form, by the seat that made it
    decisions = [_text(d) for d in re.findall(r'<p class="decision"[^>]*data-by="player">(.*?)</p>', page)]
    expected = [f"{game.name(seat)}: {engine.action_text(action)}" for seat, action in facts["decisions"]]
    refused = [d for d in decisions if d not in expected]
    assert [d for d in decisions if d in expected] == expected and len(refused) == facts["refused"]
    # the bot's choice, with its seat and level
    bot = [_text(d) for d in re.findall(r'<p class="decision"[^>]*data-by="bot">(.*?)</p>', page)]
    assert len(bot) == 1 and "(bot, random): chooses " in bot[0]
    # what the table said, in order, each under the ruling it followed, as text
    said = [_text(s) for s in re.findall(r"<ul class=\"said\">(.*?)</ul>", page, re.S)]
    assert said == facts["said"]
    assert [s for step in game.rulings for s in step.said] == facts["said"]


def test_the_page_is_self_contained_and_escapes_what_the_table_sent(played):
    page = played["page"]
    assert HOSTILE not in page and html.escape(HOSTILE, quote=True) in page
    assert "<script" not in page.lower()
    for outside in ("src=", "<link", "@import", "url(", "@font-face"):
        assert outside not in page
    # the one URL is the SVG namespace (when there is a plot), which nothing fetches
    assert set(re.findall(r"https?://[^\"' ]+", page)) <= {"http://www.w3.org/2000/svg"}


def test_the_plot_has_a_line_per_player_and_a_point_per_ruling(played):
    page, loaded = played["page"], played["loaded"]
    (game,) = played["games"]
    players = loaded.meta.min_players
    if getattr(loaded.engine, "scores", None) is None:
        assert "No plot: this game" in page and "<polyline" not in page
        return
    lines = re.findall(r'<polyline class="score-line"[^>]*points="([^"]*)"', page)
    assert len(lines) == players
    assert all(len(points.split()) == len(game.rulings) for points in lines)
    # the points follow the engine's scores: a seat that scored more than another is drawn higher (smaller y)
    state = loaded.engine.from_snapshot(loaded.data, game.rulings[-1].body["snapshot"])
    final = list(loaded.engine.scores(state))
    ys = [float(points.split()[-1].split(",")[1]) for points in lines]
    for a in range(players):
        for b in range(players):
            if final[a] > final[b]:
                assert ys[a] < ys[b]
            elif final[a] == final[b]:
                assert ys[a] == ys[b]
    legend = re.findall(r'<ul class="legend">(.*?)</ul>', page, re.S)[0]
    assert legend.count("<li") == players


def test_the_final_standings_are_the_games_score_panel_after_the_last_ruling(played):
    page, loaded = played["page"], played["loaded"]
    (game,) = played["games"]
    panel = loaded.engine.handle(loaded.data, "score", {"snapshot": game.rulings[-1].body["snapshot"]})
    assert game.standings == panel
    rows = re.findall(r'<table class="standings">.*?<tbody>(.*?)</tbody>', page, re.S)
    standings = panel.get("standings")
    if isinstance(standings, list):
        assert rows and rows[0].count("<tr") == len(standings)
    assert "The journal ends before the game does" in page or "Game over:" in page


@pytest.mark.parametrize("source", GAMES)
def test_a_game_played_to_its_end_names_its_winners(source, tmp_path):
    loaded = load(source)
    if loaded.meta.engine is None:
        pytest.skip(f"{loaded.meta.id} has no rules engine")
    path = tmp_path / "j.jsonl"
    facts = play_journal(path, source, loaded.meta.min_players, moves=2000)
    over = facts["last"].get("game_over")
    if not over:
        pytest.skip(f"{loaded.meta.id}: 2000 random moves did not end the game")
    engine = engine_of(loaded)
    (game,) = read_games(read_journal(path), lambda _: engine)
    page = render([game], title="j")
    names = ", ".join(game.name(w) for w in over["winners"]) or "nobody"
    assert f"Game over: {html.escape(names)} won." in page
    assert page.count('<tr class="winner"') == len(over["winners"])


def _record(journal: Journal, kind: str, game: str, request_id, body, reply_body=None, ok=True):
    request = {"ttsmod": 1, "id": request_id, "type": kind, "game": game, "body": body}
    journal.record("in", {"messageID": 4, "customMessage": request})
    if reply_body is not None:
        reply = {"ttsmod": 1, "re": request_id, "type": kind, "ok": ok,
                 **({"body": reply_body} if ok else {"error": reply_body})}
        journal.record("out", {"messageID": 2, "customMessage": reply})


def _say(journal: Journal, game: str, text: str, seats=None):
    body = {"text": text, **({"seats": seats} if seats is not None else {})}
    journal.record("in", {"messageID": 4, "customMessage": {"ttsmod": 1, "type": "broadcast", "game": game, "body": body}})


def test_games_resends_refusals_and_hostile_names_of_a_game_nobody_knows(tmp_path):
    """Two games of an unknown id (no engine: no plot nor standings) in one journal: each setup ruling begins a
    game; a request sent twice with the same id and body (the mod's retry) is one request; a request never
    answered and an error are said so; the seats are named as the broadcast notes name them; every name from
    the table is escaped, attributes included."""
    path = tmp_path / "j.jsonl"
    hostile = '"><img src=x onerror=alert(1)>'
    snap = {"players": [{}, {}]}
    with Journal(path) as journal:
        _record(journal, "setup", hostile, 1, {"players": 2}, {"snapshot": snap, "events": [], "next": {}})
        _say(journal, hostile, "Red begins.", seats=["Red", hostile])
        _record(journal, "legal", hostile, 2, {"snapshot": snap, "action": {"player": 1, "go": hostile}})
        _record(journal, "legal", hostile, 2, {"snapshot": snap, "action": {"player": 1, "go": hostile}},
                {"legal": True, "snapshot": snap, "events": [{"event": hostile}], "next": {}, "complete": True})
        _say(journal, hostile, "<i>moved</i>")
        _record(journal, "legal", hostile, 3, {"snapshot": snap, "action": {"player": 0}},
                {"code": "bad_request", "message": hostile}, ok=False)
        _record(journal, "setup", hostile, 4, {"players": 2}, {"snapshot": snap, "events": [], "next": {}})
        _record(journal, "legal", hostile, 5, {"snapshot": snap, "action": {"player": 0}})
    games = read_games(read_journal(path))
    assert [len(g.steps) for g in games] == [3, 2]
    first, second = games
    assert first.names == ["Red", hostile] and second.names == ["Seat 1", "Seat 2"]
    assert first.steps[1].resends == 1 and first.steps[1].said == ["<i>moved</i>"]
    assert first.steps[0].said == ["Red begins."]
    assert first.steps[2].outcome().startswith("error bad_request")
    assert second.steps[1].outcome() == "no answer recorded"
    page = render(games, title=hostile)
    assert hostile not in page and "<img" not in page and "<i>moved" not in page
    assert page.count("sent 2 times") == 1 and page.count('<section class="game"') == 2
    assert "No plot: this game&#x27;s engine gives no scores here" in page
    assert "No standings" in page


def test_a_journal_without_requests_is_a_page_that_says_so(tmp_path):
    path = tmp_path / "j.jsonl"
    with Journal(path) as journal:
        journal.record("in", {"messageID": 4, "customMessage": {"ttsmod": 1, "id": 1, "type": "hello", "body": {}}})
    page = render(read_games(read_journal(path)), title="j")
    assert 'id="no-games"' in page


# ------------------------------------------------------------------------------------------------ the command

def _one(played_source: str, tmp_path: Path) -> tuple[Path, dict, list[str]]:
    """A three-move journal of GAME ``played_source``, and the ``--game FOLDER`` options naming it when it is a
    folder (as ``ttsmod bridge`` is told of such a game)."""
    path = tmp_path / "bridge-journal.jsonl"
    facts = play_journal(path, played_source, load(played_source).meta.min_players, moves=3)
    return path, facts, [] if Path(played_source).name == played_source else ["--game", played_source]


@pytest.fixture(scope="module", params=GAMES)
def journal(request, tmp_path_factory):
    """A three-move journal of each game, for the command's tests."""
    if load(request.param).meta.engine is None:
        pytest.skip(f"{request.param} has no rules engine: nothing is adjudicated, so no journal")
    return _one(request.param, tmp_path_factory.mktemp("command"))


def test_replay_html_writes_the_page_atomically_and_says_what_it_holds(journal, tmp_path):
    path, facts, known = journal
    out = tmp_path / "game.html"
    out.write_text("old", encoding="utf-8")
    done = CliRunner().invoke(cli, ["replay", str(path), "--html", str(out), *known])
    assert done.exit_code == 0, done.output
    assert done.output.strip() == f"wrote {out}: 1 game(s), {3 * 2 + 1 + 1 + 1} request(s), {facts['rulings']} ruling(s)"
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count('<li class="step ruling"') == facts["rulings"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.html"]   # no temporary file left


def test_replay_html_json_summarises_the_page(journal, tmp_path):
    path, facts, known = journal
    out = tmp_path / "game.html"
    done = CliRunner().invoke(cli, ["replay", str(path), "--html", str(out), "--json", *known])
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert report["schema_version"] == 1 and report["exit_status"] == 0 and report["html"] == str(out)
    (game,) = report["games"]
    assert game["game"] == facts["game"] and game["rulings"] == facts["rulings"]
    assert game["said"] == len(facts["said"]) and game["decisions"] == len(facts["decisions"]) + 1 + facts["refused"]
    assert len(game["scores"] or [None] * facts["rulings"]) == facts["rulings"]


def test_replay_html_into_a_folder_that_cannot_hold_it_is_an_error(journal, tmp_path):
    path, _, known = journal
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    done = CliRunner().invoke(cli, ["replay", str(path), "--html", str(blocker / "game.html"), *known])
    assert done.exit_code == 1 and "cannot write" in done.output


def test_replay_json_counts_the_rulings_and_leaves_broadcast_notes_out(journal):
    path, facts, known = journal
    done = CliRunner().invoke(cli, ["replay", str(path), "--json", *known])
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    requests = facts["rulings"] + facts["refused"] + 1 + (facts["rulings"] - 1)   # + bot_move + a score each move
    assert report == {"schema_version": 1, "journal": str(path), "exit_status": 0,
                      "counts": {"replayed": requests, "differ": 0, "unanswered": 0, "older_format": 0},
                      "differences": [], "warnings": []}


def test_replay_json_lists_a_ruling_that_differs(journal, tmp_path):
    path, _, known = journal
    changed = tmp_path / "changed.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        record = json.loads(line)
        custom = (record.get("msg") or {}).get("customMessage") or {}
        if record["dir"] == "out" and custom.get("type") == "score":
            custom["body"] = {"edited": True}
            lines[i] = json.dumps(record)
            break
    changed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = CliRunner().invoke(cli, ["replay", str(changed), "--json", *known])
    assert done.exit_code == 1
    report = json.loads(done.output)
    assert report["exit_status"] == 1 and report["counts"]["differ"] == 1
    (difference,) = report["differences"]
    assert difference["type"] == "score" and difference["recorded"]["body"] == {"edited": True}
    assert difference["now"]["body"] != {"edited": True}


def test_the_bridge_never_answers_a_broadcast_note():
    dispatcher = Dispatcher(default_registry())
    note = {"ttsmod": 1, "type": "broadcast", "game": "anything", "body": {"text": "White passes."}}
    assert dispatcher.check(note) == (None, None) and dispatcher.reply(note) is None


# ------------------------------------------------------------------------------------------------ the docs

DOCS = Path(__file__).resolve().parents[2] / "docs" / "bridge.md"


def test_the_documented_json_objects_have_the_commands_shape(journal, tmp_path):
    from tests.test_docs_json import named_examples

    examples = named_examples(DOCS)
    path, _, known = journal
    replayed = json.loads(CliRunner().invoke(cli, ["replay", str(path), "--json", *known]).output)
    assert set(replayed) == set(examples["replay-json"])
    assert set(replayed["counts"]) == set(examples["replay-json"]["counts"])
    paged = json.loads(CliRunner().invoke(cli, ["replay", str(path), "--html", str(tmp_path / "p.html"),
                                                "--json", *known]).output)
    documented = examples["replay-html-json"]
    assert set(paged) == set(documented)
    assert set(paged["games"][0]) == set(documented["games"][0])


def test_the_documented_command_runs_and_says_what_the_docs_show(journal, tmp_path, monkeypatch):
    """docs/bridge.md's console example (not run by the docs' sh test: it needs a played game), run on a journal."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"```console\n\$ (ttsmod replay \S+ --html (\S+))\n(.*?)\n```", text, re.S)
    assert block, "docs/bridge.md shows no ttsmod replay --html example"
    command, out, shown = block.group(1).split(), block.group(2), block.group(3)
    path, _, known = journal
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(cli, [*command[1:2], str(path), *command[3:], *known])
    assert done.exit_code == 0, done.output
    shape = re.escape(shown).replace(r"1\ game", r"\d+\ game").replace("9", r"\d+").replace("4", r"\d+")
    assert re.fullmatch(shape, done.output.strip()), (shown, done.output)
    assert (tmp_path / out).is_file()


def test_answers_a_ruling_asked_for_are_decisions_once_each_and_a_late_resend_is_no_new_request(tmp_path):
    """A game's own ruling that stops for decisions is asked again with the answers so far appended: each answer
    is one decision, by its seat; a request sent again after its reply came is still the same request."""
    path = tmp_path / "j.jsonl"
    snap = {"players": [{}, {}]}
    stop = {"snapshot": snap, "events": [{"event": "decision_required"}], "next": {}, "complete": False}
    with Journal(path) as journal:
        _record(journal, "resolve", "g", 1, {"snapshot": snap, "choices": []}, stop)
        _record(journal, "resolve", "g", 1, {"snapshot": snap, "choices": []}, stop)   # late resend
        _record(journal, "resolve", "g", 2, {"snapshot": snap, "choices": [{"player": 1, "cell": "harbour"}]}, stop)
        _record(journal, "resolve", "g", 3, {"snapshot": snap, "choices": [{"player": 1, "cell": "harbour"},
                                                                            {"player": 0, "cell": "mill"}]},
                {**stop, "complete": True})
        # the next round asks again from no answers
        _record(journal, "resolve", "g", 4, {"snapshot": snap, "choices": [{"player": 0, "cell": "gate"}]}, stop)
    (game,) = read_games(read_journal(path))
    assert [s.resends for s in game.steps] == [1, 0, 0, 0]
    assert [(d.seat, d.text) for s in game.steps for d in s.decisions] == [
        (1, "chooses harbour"), (0, "chooses mill"), (0, "chooses gate")]
    page = render([game], title="j")
    assert "Seat 2: chooses harbour" in page and page.count("waits for a decision") == 3


def test_an_unreadable_journal_writes_no_page_and_exits_2(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a journal\n", encoding="utf-8")
    out = tmp_path / "game.html"
    done = CliRunner().invoke(cli, ["replay", str(bad), "--html", str(out)])
    assert done.exit_code == 2 and "bad.jsonl: line 1: not a JSON journal record" in done.output
    assert not out.exists()
