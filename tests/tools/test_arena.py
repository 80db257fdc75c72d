"""``ttsmod arena`` and ``simulate --bots``: the JSON a study reads, seats rotated, exit codes 0/1/2."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bridge.catalog import load
from bridge.rules.playout import PlayoutDidNotEnd
from tests.everygame import GAMES, declares
from tools import arena as arena_module
from tools.arena import arena, seat_bots, wilson
from tools.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_seats_rotate_so_every_bot_sits_everywhere():
    bots = ["a", "b", "c"]
    seatings = [seat_bots(bots, i) for i in range(3)]
    assert seatings == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    for seat in range(3):
        assert sorted(s[seat] for s in seatings) == [0, 1, 2]


@pytest.mark.parametrize("source", GAMES)
def test_arena_json_has_the_figures_of_each_bot(source):
    game = load(source)
    players = game.meta.min_players
    bots = ["heuristic"] + ["random"] * (players - 1)
    report = arena(game.engine, game.data, bots, games=2 * players, seed=4)
    assert report["games"] == 2 * players and report["bots"] == bots
    for key in ("win_share", "win_share_ci", "seconds_per_move", "fair_share"):
        assert set(report[key]) == {"heuristic", "random"}, key
    if declares(game, "scores"):   # a game that keeps no score has no mean to give
        assert set(report["mean_score"]) == {"heuristic", "random"}
    else:
        assert report["mean_score"] is None
    assert sum(report["win_share"].values()) == pytest.approx(1.0, abs=1e-3)
    for name, (low, high) in report["win_share_ci"].items():
        assert 0 <= low <= report["win_share"][name] <= high <= 1
    assert report["fair_share"]["heuristic"] == round(1 / players, 4)
    assert len(report["win_share_by_seat"]) == players
    again = arena(game.engine, game.data, bots, games=2 * players, seed=4)
    timing = ("seconds_per_move", "seconds")
    assert {k: v for k, v in again.items() if k not in timing} == {k: v for k, v in report.items() if k not in timing}


@pytest.mark.parametrize("source", GAMES)
def test_the_same_bot_in_every_seat_wins_every_game(source):
    game = load(source)
    players = game.meta.min_players
    report = arena(game.engine, game.data, ["random"] * players, games=3, seed=1)
    assert report["win_share"] == {"random": 1.0}
    assert report["fair_share"] == {"random": 1.0}


def test_wilson_interval():
    assert wilson(0.5, 100) == [0.4038, 0.5962]
    assert wilson(1.0, 10)[1] == 1.0 and wilson(0.0, 10)[0] == 0.0


@pytest.mark.parametrize("source", GAMES)
def test_arena_cli_prints_json_and_exits_0(source):
    game = load(source)
    bots = ",".join(["easy"] + ["random"] * (game.meta.min_players - 1))
    result = run("arena", source, "--bots", bots, "--games", "2", "--seed", "3", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["bots"] == bots.split(",") and report["games"] == 2
    text = run("arena", source, "--bots", bots, "--games", "2")
    assert text.exit_code == 0 and "wins" in text.output


def line_up(players: int, last: str = "random") -> str:
    """``--bots`` for ``players`` seats: random bots, the last one ``last``."""
    return ",".join(["random"] * (players - 1) + [last])


@pytest.mark.parametrize("source", GAMES)
def test_arena_cli_bad_input_exits_2(source):
    meta = load(source).meta
    seats = line_up(meta.min_players)
    for args, message in [
        (["--bots", line_up(meta.min_players, "grandmaster")], "unknown bot 'grandmaster'"),
        (["--bots", line_up(meta.max_players + 1)], f"{meta.max_players + 1} bots for a game of"),
        (["--bots", seats, "--mode", "nonsense"], "modes"),
        (["--bots", seats, "--games", "0"], "--games"),
    ]:
        result = run("arena", source, *args)
        assert result.exit_code == 2, args
        assert message in result.output, args


def test_arena_cli_unknown_game_exits_2():
    result = run("arena", "no-such-game", "--bots", "random,random")
    assert result.exit_code == 2 and "no-such-game" in result.output


@pytest.mark.parametrize("source", GAMES)
def test_arena_cli_game_that_never_ends_exits_1(monkeypatch, source):
    def endless(*_args, **_kwargs):
        raise PlayoutDidNotEnd("game with seed 5 did not end within 20000 actions")

    monkeypatch.setattr(arena_module, "play_one", endless)
    result = run("arena", source, "--bots", line_up(load(source).meta.min_players), "--games", "1")
    assert result.exit_code == 1
    assert "did not end" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("source", GAMES)
def test_simulate_takes_bots_one_for_all_or_one_per_seat(source):
    meta = load(source).meta
    fewest, most = meta.min_players, meta.max_players
    one = run("simulate", source, "--games", "2", "--players", str(fewest), "--bots", "heuristic", "--json")
    assert one.exit_code == 0, one.output
    assert json.loads(one.output)["bots"] == ["heuristic"] * fewest
    each = run("simulate", source, "--games", "2", "--bots", ",".join(["heuristic"] + ["random"] * (most - 1)),
               "--json")
    assert each.exit_code == 0, each.output
    report = json.loads(each.output)
    assert report["players"] == most and report["bots"] == ["heuristic"] + ["random"] * (most - 1)
    assert run("simulate", source, "--bots", "nobody").exit_code == 2
    assert run("simulate", source, "--players", str(fewest), "--bots", line_up(fewest + 1)).exit_code == 2
