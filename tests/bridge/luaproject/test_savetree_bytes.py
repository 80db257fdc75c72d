"""``ttsmod unpack`` → ``ttsmod pack`` gives the save's own bytes back, and an edit changes only what was edited:
number spellings, key order, the save file's layout, CRLF scripts and a BOM, on saves written here and on every
reference save; and ``unpack --round``."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import tempfile

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

from bridge.luaproject.jsontext import SpelledFloat, detect_layout, dumps, loads
from bridge.luaproject.rounding import round_rotation, round_save
from bridge.luaproject.savetree import pack, read_save, save_from_tree, unpack
from tests.bridge.luaproject.test_savetree import _save as generated_save_strategy
from tests.shared import require_shared
from tools.cli import cli

# A save as TTS writes it (2-space indent, LF, no final newline), with what a round trip must keep: numbers spelled
# as .NET spells them and as a person might (1E+09, 0.00006786421, -0, 2.50), keys in no sorted order (GUID last,
# as old TTS versions write), CRLF in scripts and UI, a JSON script state and a text one, and objects nested in a
# bag, in states (ids not in sorted order) and attached as children.
TTS_TEXT = """{
  "SaveName": "Round trip",
  "VersionNumber": "v13.2.2",
  "Gravity": 0.5,
  "PlayArea": 1E+09,
  "Note": "caf\u00e9 \u00e9t\u00e9 \\"quoted\\" tab\\tend",
  "TabStates": {},
  "LuaScript": "-- Global\\r\\nfunction onLoad()\\r\\n  print('hi')\\r\\nend\\r\\n",
  "LuaScriptState": "{\\"round\\":2}",
  "XmlUI": "<Panel>\\r\\n  <Text>Hi</Text>\\r\\n</Panel>",
  "ObjectStates": [
    {
      "Name": "Custom_Tile",
      "Transform": {
        "posX": -1.250435E-05,
        "posY": 0.00006786421,
        "posZ": -0,
        "rotX": 359.999985,
        "rotY": 180.0,
        "rotZ": 2.50,
        "scaleX": 1.0,
        "scaleY": 1,
        "scaleZ": 1.0
      },
      "Nickname": "Board",
      "ColorDiffuse": {
        "r": 0.713235259,
        "g": 0.713235259,
        "b": 0.713235259
      },
      "Tags": [],
      "LuaScript": "function onLoad()\\r\\n  self.setName('Board')\\r\\nend",
      "LuaScriptState": "not json {",
      "XmlUI": "",
      "GUID": "a1b2c3"
    },
    {
      "Name": "Bag",
      "Transform": {
        "posX": 2.5E-07,
        "posY": 1.0,
        "posZ": 3.0
      },
      "Nickname": "Bag",
      "ContainedObjects": [
        {
          "Name": "Card",
          "Transform": {
            "posX": 1.0E-3,
            "posY": 7.0
          },
          "Nickname": "Card",
          "CardID": 100,
          "GUID": "c0ffee"
        },
        {
          "Name": "Card",
          "Transform": {
            "posX": 0.1,
            "posY": 7.0
          },
          "Nickname": "Card",
          "CardID": 101,
          "LuaScript": "print(1)",
          "GUID": "c0ffee"
        }
      ],
      "GUID": "b2c3d4",
      "States": {
        "3": {
          "Name": "Die_6",
          "Nickname": "Three",
          "GUID": "d3d3d3",
          "ChildObjects": [
            {
              "Name": "BlockSquare",
              "Nickname": "Attached",
              "GUID": "e4e4e4"
            }
          ]
        },
        "2": {
          "Name": "Die_6",
          "Nickname": "Two",
          "GUID": "d2d2d2"
        }
      }
    }
  ],
  "DecalPallet": []
}"""

BOARD = "objects/Board.a1b2c3"


def tree_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(folder).parts}


def round_trip(tmp_path: Path, data: bytes, name: str = "save") -> tuple[Path, Path, bytes]:
    """Write ``data`` as a save, unpack it, pack the tree: (save, tree, packed bytes)."""
    save = tmp_path / f"{name}.json"
    save.write_bytes(data)
    tree = tmp_path / f"{name}-tree"
    result = unpack(save, tree)
    assert result.exact, name
    return save, tree, pack(tree, tmp_path / f"{name}-packed.json")[1]


def changed_lines(before: bytes, after: bytes) -> list[str]:
    """The lines that differ, as a unified diff's - and + lines."""
    return [line for line in difflib.unified_diff(before.decode("utf-8-sig").splitlines(),
                                                   after.decode("utf-8-sig").splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


# ------------------------------------------------------------------------------------------------ exact bytes


def test_a_tts_save_with_odd_spellings_crlf_and_unsorted_keys_comes_back_byte_for_byte(tmp_path):
    data = TTS_TEXT.encode("utf-8")
    _, tree, packed = round_trip(tmp_path, data)
    assert packed == data
    files = tree_of(tree)
    # the tree keeps what TTS wrote: spellings in the object's file, keys in its order, CRLF in the script
    board = files[f"{BOARD}/object.json"].decode("utf-8")
    assert '"posX": -1.250435E-05,' in board and '"posY": 0.00006786421,' in board and '"posZ": -0,' in board
    assert '"rotZ": 2.50,' in board
    assert [line.split('"')[1] for line in board.splitlines()[1:] if line.startswith('  "')] == \
        ["Name", "Transform", "Nickname", "ColorDiffuse", "Tags", "XmlUI", "GUID"]
    assert files[f"{BOARD}/script.lua"] == b"function onLoad()\r\n  self.setName('Board')\r\nend"
    assert files["script.lua"].count(b"\r\n") == 4 and files["ui.xml"].count(b"\r\n") == 2
    assert b'"PlayArea": 1E+09,' in files["save.json"]
    # the states keep their order ("3" before "2"), and the packed save is the same JSON value as before
    assert list(json.loads(files["objects/Bag.b2c3d4/states/order.json"])) == ["3", "2"]
    assert json.loads(packed) == json.loads(data)
    # unpacking the packed save gives the same tree
    unpack(tmp_path / "save-packed.json", tmp_path / "again")
    assert tree_of(tmp_path / "again") == files


@pytest.mark.parametrize("variant", ["bom", "crlf", "crlf-bom", "final-newline", "indent-4", "tabs", "compact",
                                     "compact-spaces", "ascii-escapes"])
def test_the_save_files_layout_comes_back_as_it_was(tmp_path, variant):
    value = loads(TTS_TEXT)
    text = {"crlf": TTS_TEXT.replace("\n", "\r\n"), "crlf-bom": "\ufeff" + TTS_TEXT.replace("\n", "\r\n"),
            "bom": "\ufeff" + TTS_TEXT, "final-newline": TTS_TEXT + "\n",
            "indent-4": json.dumps(json.loads(TTS_TEXT), indent=4, ensure_ascii=False),
            "tabs": json.dumps(json.loads(TTS_TEXT), indent="\t", ensure_ascii=False),
            "compact": json.dumps(json.loads(TTS_TEXT), separators=(",", ":"), ensure_ascii=False),
            "compact-spaces": json.dumps(json.loads(TTS_TEXT), ensure_ascii=False),
            "ascii-escapes": json.dumps(json.loads(TTS_TEXT), indent=2)}[variant]
    assert text.count("\r\n") == (text.count("\n") if "crlf" in variant else 0)
    data = text.encode("utf-8")
    _, tree, packed = round_trip(tmp_path, data, variant)
    assert packed == data
    assert json.loads(packed.decode("utf-8-sig")) == json.loads(TTS_TEXT) == value
    # the tree itself is laid out the same way whatever the save's layout: only format.json says how
    if variant in ("bom", "crlf", "final-newline"):
        _, plain, _ = round_trip(tmp_path, TTS_TEXT.encode("utf-8"), "plain")
        different = {k for k, v in tree_of(tree).items() if tree_of(plain).get(k) != v}
        assert different == {"format.json"}


def test_every_reference_save_comes_back_byte_for_byte(tmp_path):
    folder = require_shared("reference-saves")
    saves = sorted(folder.glob("*.json"))
    assert saves, f"no saves in {folder.name}/"
    for save in saves:
        tree = tmp_path / save.stem
        result = unpack(save, tree)
        assert result.exact, save.name
        assert pack(tree, tmp_path / save.name)[1] == save.read_bytes(), save.name


def test_an_edited_script_in_a_reference_save_changes_only_its_line(tmp_path):
    folder = require_shared("reference-saves")
    save = min(folder.glob("*.json"), key=lambda path: path.stat().st_size)     # the smallest: quick
    unpack(save, tmp_path / "tree")
    script = tmp_path / "tree" / "script.lua"
    script.write_bytes(script.read_bytes() + b"\n-- edited")
    changed = changed_lines(save.read_bytes(), pack(tmp_path / "tree", "-")[1])
    assert [line[:16] for line in changed] == ['-  "LuaScript": ', '+  "LuaScript": ']
    assert changed[1].endswith('\\n-- edited",')


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_save_strategy)
def test_generated_saves_in_tts_layout_come_back_byte_for_byte(save):
    with tempfile.TemporaryDirectory() as tmp:
        data = json.dumps(save, indent=2, ensure_ascii=False).encode("utf-8")
        source = Path(tmp) / "s.json"
        source.write_bytes(data)
        assert unpack(source, Path(tmp) / "tree").exact
        assert pack(Path(tmp) / "tree", "-")[1] == data


def test_json_numbers_keep_their_spelling_and_equal_their_value():
    value = loads('{"a": 1E+09, "b": 0.00006786421, "c": -0, "d": 1.5, "e": 7, "f": [2.50, 1e400]}')
    assert value == {"a": 1e9, "b": 6.786421e-05, "c": 0, "d": 1.5, "e": 7, "f": [2.5, float("inf")]}
    assert type(value["d"]) is float and type(value["e"]) is int       # spelled as Python would: plain
    assert isinstance(value["a"], SpelledFloat) and value["a"].text == "1E+09"
    assert dumps(value, detect_layout('{"a": 1}', {"a": 1})[0]) == \
        '{"a": 1E+09, "b": 0.00006786421, "c": -0, "d": 1.5, "e": 7, "f": [2.50, 1e400]}'
    # a number changed by code is written as Python's shortest text for it
    value["a"] = value["a"] * 2
    assert '"a": 2000000000.0' in dumps(value)


def test_a_save_laid_out_unevenly_is_reported_and_packs_to_the_same_value(tmp_path):
    save = tmp_path / "odd.json"
    save.write_text('{ "SaveName" : "odd",\n"ObjectStates":[ {"GUID": "a1b2c3", "Name": "Card"} ] }',
                    encoding="utf-8")
    result = CliRunner().invoke(cli, ["unpack", str(save), str(tmp_path / "tree")])
    assert result.exit_code == 0 and "pack gives back the same JSON value" in result.stderr
    report = json.loads(CliRunner().invoke(cli, ["unpack", str(save), str(tmp_path / "tree"), "--json"]).stdout)
    assert report["exact"] is False
    assert json.loads(pack(tmp_path / "tree", "-")[1]) == read_save(save)


# ------------------------------------------------------------------------------------------------ edits


def test_an_edited_script_changes_only_that_scripts_value(tmp_path):
    data = TTS_TEXT.encode("utf-8")
    _, tree, _ = round_trip(tmp_path, data)
    script = tree / BOARD / "script.lua"
    script.write_bytes(script.read_bytes().replace(b"'Board'", b"'Score board'"))
    packed = pack(tree, "-")[1]
    assert changed_lines(data, packed) == [
        '-      "LuaScript": "function onLoad()\\r\\n  self.setName(\'Board\')\\r\\nend",',
        '+      "LuaScript": "function onLoad()\\r\\n  self.setName(\'Score board\')\\r\\nend",']


def test_a_crlf_script_that_an_editor_or_git_made_lf_keeps_crlf_in_the_save(tmp_path):
    data = TTS_TEXT.encode("utf-8")
    _, tree, _ = round_trip(tmp_path, data)
    for name in ("script.lua", "ui.xml", f"{BOARD}/script.lua"):
        path = tree / name
        path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n"))
    assert pack(tree, "-")[1] == data
    # a line added with a bare LF to a CRLF script gets CRLF too
    path = tree / "script.lua"
    path.write_bytes(path.read_bytes() + b"-- added\n")
    assert changed_lines(data, pack(tree, "-")[1])[1].endswith('end\\r\\n-- added\\r\\n",')


def test_an_edited_value_in_an_object_file_changes_only_that_line(tmp_path):
    data = TTS_TEXT.encode("utf-8")
    _, tree, _ = round_trip(tmp_path, data)
    card = tree / "objects" / "Bag.b2c3d4" / "contents" / "Card.c0ffee~2" / "object.json"
    before = card.read_bytes()
    card.write_bytes(before.replace(b'"posX": 0.1,', b'"posX": 0.25,'))
    assert changed_lines(before, card.read_bytes()) == ['-    "posX": 0.1,', '+    "posX": 0.25,']
    packed = pack(tree, "-")[1]
    assert changed_lines(data, packed) == ['-            "posX": 0.1,', '+            "posX": 0.25,']
    # a new key goes where it is written, and a removed one takes only its line
    board = tree / BOARD / "object.json"
    board.write_bytes(board.read_bytes().replace(b'  "Tags": [],\n', b'  "Locked": true,\n'))
    assert changed_lines(packed, pack(tree, "-")[1]) == ['-      "Tags": [],', '+      "Locked": true,']


def test_a_script_added_to_an_object_adds_one_line(tmp_path):
    data = TTS_TEXT.encode("utf-8")
    _, tree, _ = round_trip(tmp_path, data)
    (tree / "objects" / "Bag.b2c3d4" / "contents" / "Card.c0ffee" / "script.lua").write_bytes(b"print(2)")
    assert changed_lines(data, pack(tree, "-")[1]) == ['+          "LuaScript": "print(2)",']


def test_a_tree_without_format_json_still_packs_to_the_same_value(tmp_path):
    _, tree, _ = round_trip(tmp_path, TTS_TEXT.encode("utf-8"))
    (tree / "format.json").unlink()
    packed = pack(tree, "-")[1]
    assert json.loads(packed) == json.loads(TTS_TEXT)
    assert packed.startswith(b'{\n  "SaveName": "Round trip",\n')      # TTS's layout


@pytest.mark.parametrize("content, message", [
    (b"[]", "format.json: not a JSON object"),
    (b'{"layout": {"newline": "\\r"}}', "format.json: layout: newline cannot be '\\r'"),
    (b'{"layout": {"indent": "x"}}', "format.json: layout: indent cannot be 'x'"),
    (b'{"kept_keys": {"LuaScript": "Tags"}}', "format.json: kept_keys must map each key"),
    (b'{"crlf": "script.lua"}', "format.json: crlf must be a list"),
])
def test_a_bad_format_json_is_one_line_exit_2(tmp_path, content, message):
    _, tree, _ = round_trip(tmp_path, TTS_TEXT.encode("utf-8"))
    (tree / "format.json").write_bytes(content)
    result = CliRunner().invoke(cli, ["pack", str(tree), str(tmp_path / "out.json")])
    assert result.exit_code == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.json").exists()


# ------------------------------------------------------------------------------------------------ --round


def test_round_quantises_positions_rotations_scales_and_colours_only(tmp_path):
    save = tmp_path / "save.json"
    save.write_text(TTS_TEXT, encoding="utf-8")
    result = CliRunner().invoke(cli, ["unpack", "--round", str(save), str(tmp_path / "tree"), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["rounded"] > 0
    packed = json.loads(pack(tmp_path / "tree", "-")[1])
    board = packed["ObjectStates"][0]
    assert board["Transform"] == {"posX": 0.0, "posY": 0.0, "posZ": 0, "rotX": 0.0, "rotY": 180.0, "rotZ": 2.5,
                                  "scaleX": 1.0, "scaleY": 1, "scaleZ": 1.0}
    assert board["ColorDiffuse"] == {"r": 0.7132, "g": 0.7132, "b": 0.7132}
    assert packed["ObjectStates"][1]["ContainedObjects"][0]["Transform"]["posX"] == 0.001
    # nothing else changes: not the play area, not scripts
    original = json.loads(TTS_TEXT)
    assert {k: v for k, v in packed.items() if k != "ObjectStates"} == \
        {k: v for k, v in original.items() if k != "ObjectStates"}
    # an unchanged number keeps its spelling (2.50 is 2.5 to the rule, so it stays 2.50)
    assert '"rotZ": 2.50,' in (tmp_path / "tree" / BOARD / "object.json").read_text(encoding="utf-8")
    # without --round nothing is rounded
    plain = CliRunner().invoke(cli, ["unpack", str(save), str(tmp_path / "plain"), "--json"])
    assert "rounded" not in json.loads(plain.stdout)
    assert save_from_tree(tmp_path / "plain") == original


@pytest.mark.parametrize("value, rounded", [(359.999985, 0.0), (-0.04, 0.0), (90.049, 90.0), (89.94, 89.94),
                                            (180.000001, 180.0), (12.3456, 12.35), (270.06, 270.06),
                                            (-90.01, -90.0), (359.996, 0.0)])
def test_rotations_snap_to_multiples_of_90_else_a_hundredth(value, rounded):
    assert round_rotation(value) == rounded


def test_round_reaches_objects_at_any_depth_snap_points_and_hands():
    save = {"ObjectStates": [{"Transform": {"posX": 1.23456}, "ContainedObjects": [
        {"Transform": {"posY": 2.00049}, "States": {"2": {"Transform": {"scaleX": 0.123456}}},
         "AttachedSnapPoints": [{"Position": {"x": 0.33333, "y": 0, "z": 1}, "Rotation": {"y": 89.97}}]}]}],
        "Hands": {"HandTransforms": [{"Color": "Red", "Transform": {"rotY": 179.9999}}]},
        "Turns": {"Colour": {"r": 0.5, "g": 0.123456, "b": 1.0, "a": 0.99999}}, "Other": {"x": 1.23456}}
    assert round_save(save) == 8
    inner = save["ObjectStates"][0]["ContainedObjects"][0]
    assert save["ObjectStates"][0]["Transform"]["posX"] == 1.235 and inner["Transform"]["posY"] == 2.0
    assert inner["States"]["2"]["Transform"]["scaleX"] == 0.1235
    assert inner["AttachedSnapPoints"][0] == {"Position": {"x": 0.333, "y": 0, "z": 1}, "Rotation": {"y": 90.0}}
    assert save["Hands"]["HandTransforms"][0]["Transform"]["rotY"] == 180.0
    assert save["Turns"]["Colour"] == {"r": 0.5, "g": 0.1235, "b": 1.0, "a": 1.0}
    assert save["Other"] == {"x": 1.23456}      # not a position: untouched
