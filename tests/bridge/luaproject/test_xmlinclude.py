"""XML ``<Include src="…"/>``: expanded with the editor plugins' ``<!-- include … -->`` markers on push and build,
folded back into the tag and its file on pull; an include and a require survive pull → push → pull."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.luaproject.bundle import bundle
from bridge.protocol import ScriptState
from bridge.luaproject.xmlinclude import IncludeError, expand, fold
from tests.tools.threadtts import ThreadTTS
from tools.cli import cli

FILES = {
    "score.xml": '<Text id="score">0</Text>\n',
    "ui/seat.xml": '<HorizontalLayout>\n  <Text>Seat</Text>\n  <Include src="score.xml"/>\n</HorizontalLayout>\n',
}

UI = '<Panel id="main">\n  <Include src="ui/seat.xml"/>\n</Panel>\n<Include src="score.xml" />\n'

# What the Atom and VS Code plugins send for UI (literal): the path in a comment on each side, the included text
# indented like the tag, nested includes expanded in place.
EXPANDED = (
    '<Panel id="main">\n'
    "  <!-- include ui/seat.xml -->\n"
    "  <HorizontalLayout>\n"
    "    <Text>Seat</Text>\n"
    "    <!-- include score.xml -->\n"
    '    <Text id="score">0</Text>\n'
    "    <!-- include score.xml -->\n"
    "  </HorizontalLayout>\n"
    "  <!-- include ui/seat.xml -->\n"
    "</Panel>\n"
    "<!-- include score.xml -->\n"
    '<Text id="score">0</Text>\n'
    "<!-- include score.xml -->\n"
)


def read(src: str) -> str:
    try:
        return FILES[src]
    except KeyError:
        raise IncludeError(f"{src}: not found") from None


def test_expand_writes_the_plugins_markers_indented_like_the_tag():
    assert expand(UI, read) == EXPANDED


def test_fold_gives_back_the_tags_and_each_files_text():
    folded = fold(EXPANDED)
    assert folded.text == UI.replace('<Include src="score.xml" />', '<Include src="score.xml"/>')
    assert folded.files == FILES and folded.conflicts == [] and folded.refused == []
    assert expand(folded.text, read) == EXPANDED


def test_fold_reads_markers_written_without_indentation_or_with_other_spacing():
    # as an older Atom plugin leaves them: flush left, extra spaces inside the comment
    atom = ("<Panel>\n<!--  include  buttons.xml  -->\n<Button>Go</Button>\n<Button>Stop</Button>\n"
            "<!-- include buttons.xml -->\n</Panel>")
    folded = fold(atom)
    assert folded.text == '<Panel>\n<Include src="buttons.xml"/>\n</Panel>'
    assert folded.files == {"buttons.xml": "<Button>Go</Button>\n<Button>Stop</Button>\n"}


def test_a_marker_without_its_twin_and_a_hostile_path_are_left_as_they_are():
    text = ("<!-- include ../../etc/passwd -->\nx\n<!-- include ../../etc/passwd -->\n"
            "<!-- include lonely.xml -->\n<Text/>")
    folded = fold(text)
    assert folded.text == text and folded.files == {} and folded.refused == ["../../etc/passwd"]


@pytest.mark.parametrize("src", ["../x.xml", "/etc/x.xml", "a\\b.xml", "con.xml", "a//b.xml", ""])
def test_an_include_path_that_is_not_plain_is_refused(src):
    with pytest.raises(IncludeError, match="not a plain relative path"):
        expand(f'<Include src="{src}"/>', read)


def test_a_file_that_includes_itself_is_one_clear_error():
    files = {"a.xml": '<Include src="b.xml"/>', "b.xml": '<Include src="a.xml"/>'}
    with pytest.raises(IncludeError, match="a.xml includes itself"):
        expand('<Include src="a.xml"/>', files.__getitem__)


# ---------------------------------------------------------------------------------------- live: pull, push

def files_under(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output + result.stderr
    return result


def test_an_include_and_a_require_survive_pull_push_pull(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "Global.-1.lua").write_text('local greet = require("greet")\nprint(greet())\n', encoding="utf-8")
    (src / "greet.lua").write_text('return function() return "hi" end\n', encoding="utf-8")
    table = [ScriptState("Global", "-1", bundle(src / "Global.-1.lua", [src]).text, expand(UI, read)),
             ScriptState("Board", "b0a2d1", "", expand('<Include src="score.xml"/>', read))]
    pulled = tmp_path / "pulled"
    with ThreadTTS(table) as tts:
        result = invoke("pull", str(pulled), *tts.args(), "--json")
        assert result.exit_code == 0, result.output + result.stderr
        assert sorted(json.loads(result.stdout)["includes"]) == ["score.xml", "ui/seat.xml"]
        first = files_under(pulled)
        assert first == {
            "Global.-1.lua": b'local greet = require("greet")\nprint(greet())\n',
            "greet.lua": b'return function() return "hi" end\n',
            "Global.-1.xml": UI.replace('" />', '"/>').encode(), "Board.b0a2d1.xml": b'<Include src="score.xml"/>',
            "score.xml": FILES["score.xml"].encode(), "ui/seat.xml": FILES["ui/seat.xml"].encode()}
        (pulled / "score.xml").write_text('<Text id="score">10</Text>\n', encoding="utf-8")
        edited = files_under(pulled)
        assert invoke("push", str(pulled), *tts.args()).exit_code == 0
        scripts = tts.scripts()
        assert scripts["b0a2d1"].ui == '<!-- include score.xml -->\n<Text id="score">10</Text>\n<!-- include score.xml -->'
        assert '    <Text id="score">10</Text>\n' in scripts["-1"].ui
        assert invoke("pull", str(pulled), *tts.args()).exit_code == 0
        assert files_under(pulled) == edited


def test_push_of_a_missing_include_is_one_line_exit_2(tmp_path):
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "Global.-1.lua").write_text("print(1)\n", encoding="utf-8")
    (folder / "Global.-1.xml").write_text('<Include src="nowhere.xml"/>', encoding="utf-8")
    with ThreadTTS([ScriptState("Global", "-1", "print(1)", "")]) as tts:
        result = invoke("push", str(folder), *tts.args())
        assert tts.tts.reloads == 0
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and 'Global\'s UI: <Include src="nowhere.xml">: no such file' in lines[0]


def test_an_include_that_would_be_read_as_an_objects_file_stays_expanded(tmp_path):
    ui = '<!-- include Board.b0a2d1.xml -->\n<Text>planted</Text>\n<!-- include Board.b0a2d1.xml -->'
    with ThreadTTS([ScriptState("Global", "-1", "print(1)", ui)]) as tts:
        result = invoke("pull", str(tmp_path / "p"), *tts.args())
    assert result.exit_code == 0
    assert "left the includes of Global's UI expanded" in result.stderr
    assert files_under(tmp_path / "p") == {"Global.-1.lua": b"print(1)", "Global.-1.xml": ui.encode()}


# ---------------------------------------------------------------------------------------- build

def test_the_build_expands_includes_of_a_games_ui(tmp_path, repo_root):
    from tools.build import bundle_scripts

    game = tmp_path / "pebble_race"
    shutil.copytree(repo_root / "tests" / "games" / "pebble_race", game,
                    ignore=shutil.ignore_patterns("__pycache__"))
    mod = game / "mod" / "pebble_race"
    (mod / "ui.xml").write_text('<Panel>\n  <Include src="parts/track.xml"/>\n</Panel>\n', encoding="utf-8")
    (mod / "parts").mkdir()
    (mod / "parts" / "track.xml").write_text('<Text id="track"/>\n', encoding="utf-8")
    ui = bundle_scripts(str(game))["-1"]["XmlUI"]
    assert ui == ('<Panel>\n  <!-- include parts/track.xml -->\n  <Text id="track"/>\n'
                  "  <!-- include parts/track.xml -->\n</Panel>\n")
    (mod / "ui.xml").write_text('<Include src="parts/gone.xml"/>', encoding="utf-8")
    with pytest.raises(IncludeError, match=r"ui.xml: <Include src=\"parts/gone.xml\">: no such file"):
        bundle_scripts(str(game))


# ---------------------------------------------------------------------------------------- bombs and chains


def bomb(files: int) -> dict[str, str]:
    """Each file including the next twice: ``files`` files of 60 bytes expand to 2**files copies of the last."""
    texts = {f"f{i}.xml": f'<Panel>\n  <Include src="f{i + 1}.xml"/>\n  <Include src="f{i + 1}.xml"/>\n</Panel>\n'
             for i in range(files - 1)}
    texts[f"f{files - 1}.xml"] = "<Text>boom</Text>\n"
    return texts


def chain(files: int) -> dict[str, str]:
    texts = {f"c{i}.xml": f'<Include src="c{i + 1}.xml"/>\n' for i in range(files - 1)}
    texts[f"c{files - 1}.xml"] = "<Text>end</Text>\n"
    return texts


def test_an_include_bomb_stops_at_the_size_cap_naming_the_file():
    from bridge.luaproject.limits import MAX_EXPANDED_UI_CHARS

    files = bomb(18)
    with pytest.raises(IncludeError, match=f"the UI expanded would be longer than {MAX_EXPANDED_UI_CHARS:,} "
                                           r"characters") as info:
        expand('<Include src="f0.xml"/>', files.__getitem__)
    assert str(info.value).startswith("f") and "\n" not in str(info.value)


def test_a_chain_of_a_thousand_includes_is_one_clear_error_not_a_recursion_error():
    from bridge.luaproject.limits import MAX_INCLUDE_DEPTH

    files = chain(1000)
    with pytest.raises(IncludeError, match=f"includes nested more than {MAX_INCLUDE_DEPTH} deep") as info:
        expand('<Include src="c0.xml"/>', files.__getitem__)
    assert str(info.value).startswith(f"c{MAX_INCLUDE_DEPTH}.xml: ") and "c0.xml → c1.xml → c2.xml → …" in str(info.value)


def test_a_chain_as_deep_as_the_limit_expands_and_folds_back():
    from bridge.luaproject.limits import MAX_INCLUDE_DEPTH

    files = chain(MAX_INCLUDE_DEPTH)
    expanded = expand('<Include src="c0.xml"/>', files.__getitem__)
    assert expanded.count("<!-- include ") == 2 * MAX_INCLUDE_DEPTH and "<Text>end</Text>" in expanded
    folded = fold(expanded)
    assert folded.text == '<Include src="c0.xml"/>' and folded.files == files


def test_push_of_an_include_bomb_or_a_long_chain_is_one_line_exit_2_and_sends_nothing(tmp_path):
    for name, files in (("bomb", bomb(18)), ("chain", chain(1000))):
        folder = tmp_path / name
        folder.mkdir()
        for src, text in files.items():
            (folder / src).write_text(text, encoding="utf-8")
        (folder / "Global.-1.lua").write_text("print(1)\n", encoding="utf-8")
        (folder / "Global.-1.xml").write_text(f'<Include src="{next(iter(files))}"/>', encoding="utf-8")
        with ThreadTTS([ScriptState("Global", "-1", "print(1)", "")]) as tts:
            result = invoke("push", str(folder), *tts.args())
            assert tts.tts.reloads == 0
        lines = result.stderr.strip().splitlines()
        assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: Global's UI: ")
        assert ("longer than" if name == "bomb" else "nested more than") in lines[0]


def test_pull_of_markers_nested_deeper_than_the_limit_leaves_that_ui_expanded(tmp_path):
    from bridge.luaproject.limits import MAX_INCLUDE_DEPTH

    ui = "<Text>bottom</Text>"
    for level in range(1000):
        ui = f"<!-- include n{level}.xml -->\n{ui}\n<!-- include n{level}.xml -->"
    with ThreadTTS([ScriptState("Global", "-1", "print(1)", ui)]) as tts:
        result = invoke("pull", str(tmp_path / "p"), *tts.args())
    assert result.exit_code == 0, result.stderr
    assert "left the includes of Global's UI expanded: " in result.stderr
    assert f"nested more than {MAX_INCLUDE_DEPTH} deep" in result.stderr
    assert files_under(tmp_path / "p") == {"Global.-1.lua": b"print(1)", "Global.-1.xml": ui.encode()}


def test_markers_without_their_twins_are_left_as_they_are_however_many():
    ui = "".join(f"<!-- include lone{i}.xml -->\n" for i in range(20000)) + \
        "<!-- include a.xml -->\n<Text/>\n<!-- include a.xml -->"
    folded = fold(ui)
    assert folded.text.endswith('<Include src="a.xml"/>') and folded.text.count("<!-- include lone") == 20000
    assert folded.files == {"a.xml": "<Text/>\n"}


@pytest.mark.parametrize("src, file", [("score", "score.xml"), ("ui/seat", "ui/seat.xml"),
                                       ("ttsmod.toml", "ttsmod.toml.xml"), ("main.lua", "main.lua.xml"),
                                       ("Panel.XML", "Panel.XML")])
def test_an_include_names_an_xml_file_xml_added_as_the_editor_plugins_do(src, file):
    from bridge.luaproject.xmlinclude import check_src

    assert "/".join(check_src(src)) == file
    expanded = expand(f'<Include src="{src}"/>', {src: "<X/>\n"}.__getitem__)
    assert expanded == f"<!-- include {src} -->\n<X/>\n<!-- include {src} -->"
    assert fold(expanded).files == {src: "<X/>\n"}
