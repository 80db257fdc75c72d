"""``ttsmod build`` on hostile game data: deep nesting, huge ids and titles → one line naming file and entry."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge import catalog
from bridge.rules import reader
from bridge.rules.four_humours import data as gamedata
from tools.cli import cli
from bridge.paths import assets_dir


@pytest.fixture
def game_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "my-game"
    shutil.copytree(assets_dir() / "four_humours", folder)
    return folder


def build_error(game: Path, tmp_path: Path, monkeypatch) -> str:
    """Run ``ttsmod build`` on ``game``; assert exit 2 with one ``error:`` line and nothing rendered."""
    rendered: list[str] = []
    import tools.games.four_humours.render as render_module
    monkeypatch.setattr(render_module, "render_game", lambda *a, **k: rendered.append("render") or None)
    result = CliRunner().invoke(cli, ["build", str(game), "--out", str(tmp_path / "out"), "--jobs", "1"])
    assert result.exit_code == 2, (result.output, result.exception)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert len(lines[0]) < 400
    assert rendered == []  # the data is refused before any image is drawn
    assert not (tmp_path / "out").exists()
    return lines[0]


def replace_goal(game: Path, ident: str, **fields: str) -> None:
    """Replace fields of the goal ``ident`` in goals.toml with raw TOML values."""
    path = game / "goals.toml"
    text = path.read_text(encoding="utf-8")
    start = text.index(f'id = "{ident}"')
    end = text.find("[[goals]]", start)
    end = len(text) if end < 0 else end
    block = text[start:end]
    for key, value in fields.items():
        block = re.sub(rf"^{key} = .*$", lambda _m: f"{key} = {value}", block, count=1, flags=re.M)
    path.write_text(text[:start] + block + text[end:], encoding="utf-8")


def test_a_5000_deep_array_names_the_file_and_line(game_copy, tmp_path, monkeypatch):
    path = game_copy / "map.toml"
    path.write_text(path.read_text(encoding="utf-8") + "\n\ndeep = " + "[" * 5000 + "]" * 5000 + "\n",
                    encoding="utf-8")
    line_no = path.read_text(encoding="utf-8").count("\n")
    line = build_error(game_copy, tmp_path, monkeypatch)
    assert line.startswith("error: map.toml: ")
    assert f"line {line_no}:" in line and "nested too deeply" in line


def test_a_300_level_predicate_is_refused(game_copy, tmp_path, monkeypatch):
    deep = "{ all = [ " * 300 + "{ zones_covered = { min = 1 } }" + " ] }" * 300
    replace_goal(game_copy, "six-tiles", predicate=deep)
    line = build_error(game_copy, tmp_path, monkeypatch)
    assert line.startswith("error: goals.toml: ") and "nested too deeply" in line


def test_a_predicate_nested_past_the_limit_names_the_goal(game_copy, tmp_path, monkeypatch):
    levels = gamedata.MAX_PREDICATE_DEPTH + 1  # still readable by tomllib, refused by the loader
    deep = "{ all = [ " * levels + "{ zones_covered = { min = 1 } }" + " ] }" * levels
    replace_goal(game_copy, "six-tiles", predicate=deep)
    line = build_error(game_copy, tmp_path, monkeypatch)
    assert line.startswith('error: goals.toml: goal "six-tiles": predicate.all[0]')
    assert f"more than {gamedata.MAX_PREDICATE_DEPTH} levels" in line


def test_a_100k_character_id_is_refused_with_a_short_line(game_copy, tmp_path, monkeypatch):
    replace_goal(game_copy, "six-tiles", id='"' + "x" * 100_000 + '"')
    line = build_error(game_copy, tmp_path, monkeypatch)
    assert line.startswith("error: goals.toml: goals[0]") and "100000 characters" in line
    assert f"at most {reader.MAX_ID_LENGTH}" in line


def test_a_megabyte_title_fails_before_rendering(game_copy, tmp_path, monkeypatch):
    replace_goal(game_copy, "six-tiles", title='{ en = "' + "T" * 1_000_000 + '", uk = "т", ru = "т" }')
    line = build_error(game_copy, tmp_path, monkeypatch)
    assert line == (f'error: goals.toml: goal "six-tiles": title.en: 1000000 characters is too long '
                    f"(at most {reader.MAX_TEXT_LENGTH})")


def test_a_huge_data_file_is_refused_before_parsing(game_copy, tmp_path, monkeypatch):
    monkeypatch.setattr(catalog, "MAX_DATA_FILE_BYTES", 1024)
    line = build_error(game_copy, tmp_path, monkeypatch)
    assert line.startswith("error: game.toml: larger than")


def test_the_sample_data_is_within_every_limit():
    data = catalog.load_game("four-humours")
    assert data.info.id == "four-humours"
