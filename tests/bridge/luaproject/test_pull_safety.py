"""``pull`` on a hostile game: object names and GUIDs cannot place files outside the target folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge import protocol as p
from bridge.luaproject.editor import read_script_files, write_script_files
from bridge.errors import TtsmodError

HOSTILE_NAMES = ["../../x", "/etc/x", "a\\b", "CON", "nul.txt", "Ж" * 300, "x" * 300, "Колода зілля", "..", ""]


def _files_under(root: Path) -> set[Path]:
    return {path for path in root.rglob("*") if path.is_file()}


def test_hostile_names_are_written_as_safe_files_inside_the_folder_and_read_back(tmp_path):
    out = tmp_path / "deep" / "out"
    states = [p.ScriptState("Global", "-1", "-- global", "")]
    states += [p.ScriptState(name, f"g{index:05d}", f"-- script {index}", f"<Text>{index}</Text>")
               for index, name in enumerate(HOSTILE_NAMES)]
    written = write_script_files(out, states)
    assert len(written) == 1 + 2 * len(HOSTILE_NAMES)
    assert _files_under(tmp_path) == set(written)
    assert all(path.parent == out.resolve() for path in written)
    assert all(len(path.name.encode("utf-8")) < 200 for path in written)
    names = {path.name for path in written}
    assert "CON_.g00003.lua" in names and "Колода зілля.g00007.lua" in names
    back = {state.guid: state for state in read_script_files(out)}
    for index in range(len(HOSTILE_NAMES)):
        assert back[f"g{index:05d}"].script == f"-- script {index}"
        assert back[f"g{index:05d}"].ui == f"<Text>{index}</Text>"


@pytest.mark.parametrize("guid", ["../../x", "/etc/x", "a\\b", "a.b", "x" * 300, "ev\nil"])
def test_an_object_whose_guid_cannot_be_a_file_name_is_skipped_with_a_warning(tmp_path, guid):
    out = tmp_path / "out"
    warnings: list[str] = []
    states = [p.ScriptState("Global", "-1", "-- global", ""), p.ScriptState("Evil", guid, "os.execute()", "<x/>")]
    written = write_script_files(out, states, warn=warnings.append)
    assert [path.name for path in written] == ["Global.-1.lua"]
    assert _files_under(tmp_path) == {out.resolve() / "Global.-1.lua"}
    assert len(warnings) == 1 and "cannot be part of a file name" in warnings[0] and "\n" not in warnings[0]


def test_a_second_object_with_the_same_guid_does_not_overwrite_the_first(tmp_path):
    warnings: list[str] = []
    states = [p.ScriptState("A", "abc123", "-- first", ""), p.ScriptState("B", "abc123", "-- second", "")]
    written = write_script_files(tmp_path, states, warn=warnings.append)
    assert [path.read_text(encoding="utf-8") for path in written] == ["-- first"]
    assert len(warnings) == 1 and "abc123" in warnings[0]


def test_a_write_failure_is_one_sentence_naming_the_file(tmp_path):
    blocker = tmp_path / "out"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    with pytest.raises(TtsmodError) as info:
        write_script_files(blocker, [p.ScriptState("Global", "-1", "-- g", "")])
    assert "Global.-1.lua" in str(info.value) and "\n" not in str(info.value)


def test_pull_command_warns_and_writes_only_inside_its_folder(tmp_path, monkeypatch):
    from tools.cli import cli
    from tools import live

    async def hostile_states(bridge, *, timeout):
        return [
            p.ScriptState("Global", "-1", "-- global", ""),
            p.ScriptState("../../../planted", "a1b2c3", "-- planted?", "<x/>"),
            p.ScriptState("Board", "../../../planted", "-- planted?", ""),
            p.ScriptState("y" * 300, "d4e5f6", "-- long", ""),
        ]

    monkeypatch.setattr(live, "pull_scripts", hostile_states)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["pull", "scripts"])
    assert result.exit_code == 0, result.output + result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert "warning: skipped the object '../../../planted'" in result.stderr
    assert "pulled 4 object(s) into scripts (4 file(s))" in result.stdout
    assert {path.parent for path in _files_under(tmp_path)} == {(tmp_path / "scripts").resolve()}
