"""``ttsmod simulate`` and ``ttsmod adjudicate`` as a user runs them."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from bridge.rules.four_humours import new_game
from tools.cli import cli
from bridge.catalog import load, load_game
from bridge.paths import assets_dir

TIMING = {"seconds", "games_per_second"}


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input)


def test_simulate_json_is_the_same_for_the_same_seed_apart_from_timing():
    first = run("simulate", "four-humours", "--games", "12", "--seed", "3", "--json")
    second = run("simulate", "four-humours", "--games", "12", "--seed", "3", "--json", "--jobs", "2")
    assert first.exit_code == 0, first.output
    a, b = json.loads(first.output), json.loads(second.output)
    for key in ("games", "games_per_second", "mean_rounds", "win_rate_by_seat", "goal_completion_rate"):
        assert key in a
    assert {k: v for k, v in a.items() if k not in TIMING} == {k: v for k, v in b.items() if k not in TIMING}
    assert a["games"] == 12 and abs(sum(a["win_rate_by_seat"]) - 1) < 0.5


def test_simulate_fief_mode_and_a_report():
    result = run("simulate", "four-humours", "--games", "5", "--players", "3", "--mode", "fief")
    assert result.exit_code == 0, result.output
    assert "5 fief games, 3 players" in result.output and "games/s" in result.output


def test_simulate_refuses_a_player_count_the_game_does_not_take():
    result = run("simulate", "four-humours", "--players", "9")
    assert result.exit_code == 2 and "2 to 6 players" in result.output


def test_a_data_folder_with_an_error_exits_2_naming_file_entry_field(tmp_path):
    folder = tmp_path / "my_humours"
    shutil.copytree(assets_dir() / "four_humours", folder)
    scenes = folder / "scenes.toml"
    scenes.write_text(scenes.read_text(encoding="utf-8").replace('{ citizen = "peasant" },', '{ citizen = "baker" },', 1),
                      encoding="utf-8")
    result = run("simulate", str(folder), "--games", "1")
    assert result.exit_code == 2
    assert 'scenes.toml: scene "mill": slots[1].citizen' in result.output
    assert "Traceback" not in result.output


def test_adjudicate_prints_the_ruling_for_a_snapshot_on_stdin():
    data = load_game("four-humours")
    state = new_game(data, 4, seed=11)
    snap = state.to_snapshot()
    snap["consecutive_passes"] = 4
    result = run("adjudicate", "four-humours", "-", input=json.dumps(snap))
    assert result.exit_code == 0, result.output
    ruling = json.loads(result.output)
    assert ruling["round"] == 1 and ruling["round_end_reason"] == "all_passed"


def test_adjudicate_takes_an_end_round_body_from_a_file(tmp_path):
    data = load_game("four-humours")
    snap = new_game(data, 2, seed=4).to_snapshot()
    path = tmp_path / "body.json"
    path.write_text(json.dumps({"snapshot": snap, "force": True}), encoding="utf-8")
    result = run("adjudicate", "four-humours", str(path))
    assert result.exit_code == 0 and json.loads(result.output)["round_end_reason"] == "forced"


def test_adjudicate_bad_input_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "snap.json"
    path.write_text("{not json", encoding="utf-8")
    result = run("adjudicate", "four-humours", str(path))
    assert result.exit_code == 2 and "not JSON" in result.output and "Traceback" not in result.output
    envelope = {"ttsmod_snapshot": 1, "game": "four-humours", "mode": "kingdom"}
    path.write_text(json.dumps({**envelope, "players": [{"hand": ["bile"]}, {}]}), encoding="utf-8")
    result = run("adjudicate", "four-humours", str(path))
    assert result.exit_code == 2 and 'players[0].hand[0]: "bile" is not a humour' in result.output
    path.write_text(json.dumps({**envelope, "game": "another-game"}), encoding="utf-8")
    result = run("adjudicate", "four-humours", str(path))
    assert result.exit_code == 2 and "game: \"another-game\" is another game's snapshot" in result.output


def test_simulate_plays_the_games_first_mode_by_default_and_refuses_an_unknown_one():
    result = run("simulate", "four-humours", "--games", "3", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["mode"] == load("four-humours").meta.default_mode and report["players"] == 4
    refused = run("simulate", "four-humours", "--games", "3", "--mode", "chess")
    assert refused.exit_code == 2 and "this game has modes kingdom, fief" in refused.output


def test_simulate_report_prints_every_figure_of_the_game():
    report = json.loads(run("simulate", "four-humours", "--games", "4", "--seed", "1", "--json").output)
    text = run("simulate", "four-humours", "--games", "4", "--seed", "1").output
    assert "win rate by seat" in text and "seat 0: " in text
    for goal, rate in report["goal_completion_rate"].items():
        assert f"{goal:<24} {rate:.1%}" in text
    for termination, count in report["terminations"].items():
        assert f"{termination:<24} {count}" in text
    assert f"mean rounds      {report['mean_rounds']}" in text


def test_adjudicate_answers_another_request_type_of_the_game():
    data = load_game("four-humours")
    snap = new_game(data, 3, seed=2).to_snapshot()
    result = run("adjudicate", "four-humours", "-", "--type", "score", input=json.dumps(snap))
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["round"] == 1 and len(answer["standings"]) == 3
    legal = run("adjudicate", "four-humours", "-", "--type", "legal",
                input=json.dumps({"snapshot": snap, "action": {"action": "pass", "player": snap["active_player"]}}))
    assert legal.exit_code == 0, legal.output
    assert json.loads(legal.output)["legal"] is True


def test_adjudicate_deals_a_table_and_applies_text_form_actions(tmp_path):
    body = tmp_path / "setup.json"
    body.write_text(json.dumps({"players": 2, "seed": 7}), encoding="utf-8")
    dealt = run("adjudicate", "four-humours", str(body), "--type", "setup")
    assert dealt.exit_code == 0, dealt.output
    table = json.loads(dealt.output)
    assert table["snapshot"] == new_game(load_game("four-humours"), 2, seed=7).to_snapshot()
    seat = table["next"]["player"]
    applied = run("adjudicate", "four-humours", "-", "--type", "apply",
                  input=json.dumps({"snapshot": table["snapshot"], "actions": [f"pass {seat}"]}))
    assert applied.exit_code == 0, applied.output
    ruling = json.loads(applied.output)
    assert ruling["events"] == [{"event": "passed", "player": seat}] and ruling["next_player"] == 1 - seat


def test_adjudicate_refuses_a_request_type_or_a_choice_it_cannot_read():
    snap = json.dumps(new_game(load_game("four-humours"), 2, seed=2).to_snapshot())
    result = run("adjudicate", "four-humours", "-", "--type", "teleport", input=snap)
    assert result.exit_code == 2 and "four-humours answers end_round, setup, legal, apply, score, bot_move" \
        in result.output
    result = run("adjudicate", "four-humours", "-", "--choice", "harbour", input=snap)
    assert result.exit_code == 2 and "'harbour' is not PLAYER:ANSWER" in result.output
