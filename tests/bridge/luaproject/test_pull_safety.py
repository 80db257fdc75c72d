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


# -- what pull may write: only names it makes itself ------------------------------------------------------


def _planting_ui(src: str, text: str) -> str:
    """A UI from TTS whose include markers name ``src``: what the issue found planting ``ttsmod.toml``."""
    return f'<Panel id="main"/>\n<!-- include {src} -->\n{text}\n<!-- include {src} -->\n'


@pytest.mark.parametrize("src", ["ttsmod.toml", "main.lua", "lib/util.lua", ".ssh/authorized_keys",
                                 "authorized_keys", "TTSMOD.TOML", "conf/ttsmod.toml"])
def test_a_ui_from_tts_cannot_make_pull_write_a_file_pull_would_not_name_itself(tmp_path, src):
    from tests.tools.threadtts import ThreadTTS
    from tools.cli import cli

    work = tmp_path / "work"
    (work / "lib").mkdir(parents=True)
    (work / "main.lua").write_text("-- my own main\n", encoding="utf-8")
    (work / "lib" / "util.lua").write_text("-- my own util\n", encoding="utf-8")
    mine = _files_under(tmp_path)
    ui = _planting_ui(src, '[lua]\npath = ["/home/ann/.ssh"]')
    with ThreadTTS([p.ScriptState("Global", "-1", "print(1)", ui)]) as tts:
        result = CliRunner().invoke(cli, ["pull", str(work), *tts.args()])
    assert result.exit_code == 0, result.output + result.stderr
    assert "Traceback" not in result.output + result.stderr
    written = _files_under(tmp_path) - mine
    # the object files, and at most the include's own .xml file (the editor plugins add .xml to a src without it)
    assert written - {work / "Global.-1.lua", work / "Global.-1.xml"} <= {work.joinpath(*f"{src}.xml".split("/"))}
    assert not any(path.name.lower() == "ttsmod.toml" for path in _files_under(tmp_path))
    assert (work / "main.lua").read_text(encoding="utf-8") == "-- my own main\n"
    assert (work / "lib" / "util.lua").read_text(encoding="utf-8") == "-- my own util\n"


def test_an_include_without_xml_goes_to_its_xml_file_as_the_editor_plugins_have_it(tmp_path):
    from bridge.luaproject.scriptfolder import pull_into, push_states

    ui = _planting_ui("conf/ttsmod.toml", "[lua]") + '<!-- include ui/seat -->\n<Text>Seat</Text>\n' \
        '<!-- include ui/seat -->\n'
    report = pull_into(tmp_path, [p.ScriptState("Global", "-1", "", ui)])
    assert report.includes == {"conf/ttsmod.toml": tmp_path / "conf" / "ttsmod.toml.xml",
                               "ui/seat": tmp_path / "ui" / "seat.xml"}
    assert (tmp_path / "ui" / "seat.xml").read_text(encoding="utf-8") == "<Text>Seat</Text>\n"
    assert not (tmp_path / "ttsmod.toml").exists() and not (tmp_path / "conf" / "ttsmod.toml").exists()
    assert '<Include src="ui/seat"/>' in (tmp_path / "Global.-1.xml").read_text(encoding="utf-8")
    assert [state.ui for state in push_states(tmp_path)] == [ui]      # push gives TTS the same UI back


@pytest.mark.parametrize("entry", ['"../elsewhere"', '"/etc"', '"src/../../elsewhere"'])
def test_a_search_folder_of_ttsmod_toml_outside_the_project_is_refused_by_pull_push_and_bundle(tmp_path, entry):
    from tests.tools.threadtts import ThreadTTS
    from tools.cli import cli
    from bridge.luaproject.bundle import bundle

    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "util.lua").write_text("-- someone's file\n", encoding="utf-8")
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "ttsmod.toml").write_text(f"[lua]\npath = [{entry}]\n", encoding="utf-8")
    (work / "src" / "util.lua").write_text("return 'from TTS'\n", encoding="utf-8")
    (work / "src" / "Global.-1.lua").write_text('local u = require("util")\n', encoding="utf-8")
    bundled = bundle(work / "src" / "Global.-1.lua", [work / "src"]).text
    runner = CliRunner()
    with ThreadTTS([p.ScriptState("Global", "-1", bundled, "")]) as tts:
        results = [runner.invoke(cli, ["pull", str(work / "src"), *tts.args()]),
                   runner.invoke(cli, ["push", str(work / "src"), *tts.args()]),
                   runner.invoke(cli, ["bundle", str(work / "src" / "Global.-1.lua")])]
        assert tts.tts.reloads == 0
    for result in results:
        errors = [line for line in result.stderr.strip().splitlines() if line.startswith("error: ")]
        assert result.exit_code == 2 and len(errors) == 1, result.output + result.stderr
        assert "Traceback" not in result.output + result.stderr
        assert "leads outside" in errors[0] and "--lua-path" in errors[0] and "ttsmod.toml" in errors[0]
    assert (tmp_path / "elsewhere" / "util.lua").read_text(encoding="utf-8") == "-- someone's file\n"


def test_a_folder_outside_the_project_given_on_the_command_line_is_used(tmp_path):
    from tools.cli import cli

    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "util.lua").write_text("return {}\n", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    (work / "ttsmod.toml").write_text('[lua]\npath = ["."]\n', encoding="utf-8")
    (work / "main.lua").write_text('local u = require("util")\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["bundle", str(work / "main.lua"), "--lua-path", str(shared), "--lua-path",
                                      str(work)])
    assert result.exit_code == 0, result.stderr
    assert '__bundle_register("util"' in result.stdout
