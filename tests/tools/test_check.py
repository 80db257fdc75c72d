"""The save checker: findings on hand-made broken saves, the reference saves, exit codes, JSON output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from tools.check import check_data, check_file
from tools.cli import cli
from tools.save import DeckSheet, Save, bag, card, custom_token, deck

BUNDLE = '-- Bundled by luabundle {"version":"1.6.0"}\n' \
         '__bundle_register("__root", function(require, _LOADED, __bundle_register, __bundle_modules)\n' \
         'print(1)\nend)\nreturn __bundle_require("__root")'


def image(path: Path, size=(64, 64), mode="RGB") -> str:
    Image.new(mode, size).save(path)
    return path.resolve().as_uri()


def good_save(tmp_path: Path) -> dict:
    face, back = image(tmp_path / "face.png"), image(tmp_path / "back.png")
    sheet = DeckSheet(face, back, 2, 2)
    cards = [card(f"c{i}", 3, i, sheet) for i in range(3)]
    tokens = [custom_token(f"t{i}", image(tmp_path / "t.png", mode="RGBA")) for i in range(2)]
    return Save("Good", [deck("deck", cards), bag("bag", tokens)], lua_script=BUNDLE).to_json()


def codes(report) -> set[str]:
    return {f.code for f in report.findings}


def test_a_consistent_save_has_only_the_local_url_info(tmp_path):
    report = check_data(good_save(tmp_path))
    assert [(f.severity, f.code) for f in report.findings] == [("info", "local-url")]
    assert report.exit_status == 0


def test_card_and_deck_inconsistencies(tmp_path):
    data = good_save(tmp_path)
    d = data["ObjectStates"][0]
    d["DeckIDs"] = list(reversed(d["DeckIDs"]))
    d["ContainedObjects"][0]["CardID"] = 999  # key 9: nowhere
    d["CustomDeck"]["3"]["NumWidth"] = 11
    report = check_data(data)
    assert {"deck-ids", "card-id", "sheet-grid"} <= codes(report)
    assert report.exit_status == 1
    assert any(f.severity == "error" and "ContainedObjects[0]" in f.where for f in report.findings)


def test_stale_inner_custom_deck_is_info_as_tts_writes_it(tmp_path):
    data = good_save(tmp_path)
    c = data["ObjectStates"][0]["ContainedObjects"][1]
    c["CustomDeck"] = {"7": c["CustomDeck"]["3"]}
    report = check_data(data)
    stale = [f for f in report.findings if f.code == "card-stale-custom-deck"]
    assert len(stale) == 1 and stale[0].severity == "info"
    assert report.exit_status == 0


def test_card_index_outside_its_sheet(tmp_path):
    data = good_save(tmp_path)
    data["ObjectStates"][0]["ContainedObjects"][2]["CardID"] = 304  # 2 x 2 sheet: 0..3
    data["ObjectStates"][0]["DeckIDs"][2] = 304
    assert "card-index" in codes(check_data(data))


def test_guid_shape_and_duplicates(tmp_path):
    data = good_save(tmp_path)
    objs = data["ObjectStates"]
    objs[1]["GUID"] = objs[0]["GUID"]  # two top-level objects
    objs[1]["ContainedObjects"][1]["GUID"] = objs[1]["ContainedObjects"][0]["GUID"]  # inside a bag
    objs[0]["ContainedObjects"][0]["GUID"] = "PlayerBag"
    objs[0]["ContainedObjects"][1]["GUID"] = 7
    found = {(f.severity, f.code) for f in check_data(data).findings}
    assert ("error", "guid-duplicate") in found
    assert ("info", "guid-duplicate-contained") in found
    assert ("info", "guid-name") in found                # a name a mod gives on purpose: legal
    assert ("warning", "guid-shape") in found            # not a string at all


def test_empty_guids_inside_containers_are_what_tts_writes_and_are_not_findings(tmp_path):
    data = good_save(tmp_path)
    for obj in data["ObjectStates"]:
        for inner in obj.get("ContainedObjects", []):
            inner["GUID"] = ""                           # as TTS saves the cards of a deck and a bag's contents
    findings = check_data(data).findings
    assert [f for f in findings if f.code.startswith("guid")] == []
    data["ObjectStates"][0]["GUID"] = ""
    assert [(f.severity, f.code) for f in check_data(data).findings if f.code.startswith("guid")] == \
        [("info", "guid-empty")]


def test_local_images_missing_cmyk_and_oversized(tmp_path):
    data = good_save(tmp_path)
    cmyk = tmp_path / "cmyk.jpg"
    Image.new("CMYK", (8, 8)).save(cmyk)
    big = image(tmp_path / "big.png", size=(4100, 10))
    token = data["ObjectStates"][1]["ContainedObjects"]
    token[0]["CustomImage"]["ImageURL"] = cmyk.resolve().as_uri()
    token[1]["CustomImage"]["ImageURL"] = big
    data["ObjectStates"][0]["CustomDeck"]["3"]["BackURL"] = (tmp_path / "gone.png").resolve().as_uri()
    found = {(f.severity, f.code) for f in check_data(data).findings}
    assert {("error", "image-mode"), ("warning", "image-size"), ("error", "image-missing")} <= found


def test_a_url_memo_changes_no_finding_and_cannot_hide_a_file_deleted_since(tmp_path):
    from tools.save import dumps
    from tools.save.save import ObjectTexts

    data = good_save(tmp_path)
    plain = check_data(data)
    first = ObjectTexts()
    dumps(data, known=first)
    assert check_data(data, memo=first).findings == plain.findings
    # The next build's memo gives every card's URLs back without walking the cards ...
    later = ObjectTexts.from_bytes(first.to_bytes())
    again = good_save(tmp_path)
    dumps(again, known=later)
    cards = again["ObjectStates"][0]["ContainedObjects"]
    assert all(later.urls(c) == [("FaceURL", c["CustomDeck"]["3"]["FaceURL"]),
                                 ("BackURL", c["CustomDeck"]["3"]["BackURL"])] for c in cards)
    # ... and each URL is still looked up: a face deleted since is missing (reported once, as without a memo).
    (tmp_path / "face.png").unlink()
    found = check_data(again, memo=later).findings
    assert found == check_data(again).findings
    assert [f.code for f in found].count("image-missing") == 1 and check_data(again).exit_status == 1


def checked(data, path, texts):
    """check_data with the verdicts kept in ``path`` and object names from ``texts`` (a build's caches)."""
    from tools.check import CleanObjects
    from tools.save import dumps

    dumps(data, known=texts)
    clean = CleanObjects.load(path)
    report = check_data(data, memo=texts, clean=clean)
    clean.save(path)
    return report, clean


def test_kept_verdicts_change_no_finding_and_an_object_edited_since_is_checked_again(tmp_path):
    from tools.save.save import ObjectTexts

    path = tmp_path / ".cache" / "check-clean.bin"
    texts = ObjectTexts()
    first, clean = checked(good_save(tmp_path), path, texts)
    assert first.findings == check_data(good_save(tmp_path)).findings and len(clean.used) == 5   # 3 cards, 2 tokens
    again, clean = checked(good_save(tmp_path), path, texts)
    assert again.findings == first.findings and clean.used == clean.known   # every card answered from the file
    # an edited card has another value, so it is checked: its index outside the sheet is found with the verdicts
    edited = good_save(tmp_path)
    edited["ObjectStates"][0]["ContainedObjects"][2]["CardID"] = 307
    found, clean = checked(edited, path, texts)
    assert found.findings == check_data(edited).findings and "card-index" in codes(found)
    assert len(clean.used) == 4   # the card with a finding is not kept: it is checked at every build
    found, _ = checked(edited, path, texts)
    assert found.findings == check_data(edited).findings


def test_a_card_read_against_its_deck_is_never_kept_and_verdicts_of_another_version_are_forgotten(tmp_path,
                                                                                                   monkeypatch):
    import bridge
    from tools.check import CleanObjects
    from tools.save.save import ObjectTexts

    path = tmp_path / "check-clean.bin"
    data = good_save(tmp_path)
    stale = data["ObjectStates"][0]["ContainedObjects"][1]
    stale["CustomDeck"] = {"7": stale["CustomDeck"]["3"]}   # its CardID's sheet only in its deck's CustomDeck
    report, clean = checked(data, path, ObjectTexts())
    assert "card-stale-custom-deck" in codes(report) and len(clean.used) == 4
    # its deck losing the sheet makes it an error, found although the card itself is unchanged
    del data["ObjectStates"][0]["CustomDeck"]["3"]
    report, _ = checked(data, path, ObjectTexts())
    assert report.findings == check_data(data).findings and "card-id" in codes(report)
    assert len(CleanObjects.load(path).known) == 4
    monkeypatch.setattr(bridge, "__version__", "another")
    assert CleanObjects.load(path).known == frozenset()
    path.write_bytes(path.read_bytes()[:-1])   # a torn file: none kept
    monkeypatch.undo()
    assert CleanObjects.load(path).known == frozenset()


def test_a_url_memo_gives_nothing_for_an_object_it_did_not_encode(tmp_path):
    from tools.save.save import ObjectTexts

    memo = ObjectTexts()
    card_data = good_save(tmp_path)["ObjectStates"][0]["ContainedObjects"][0]
    memo.remember(card_data, [("FaceURL", "file:///elsewhere.png")])
    assert memo.urls(card_data) is None and not memo.changed


def test_scripts_empty_global_and_unbundled_require(tmp_path):
    data = good_save(tmp_path)
    data["LuaScript"] = ""
    data["ObjectStates"][1]["LuaScript"] = 'local x = require("lib.x")\n'
    report = check_data(data)
    assert ("warning", "global-script-empty") in {(f.severity, f.code) for f in report.findings}
    assert ("error", "require-unbundled") in {(f.severity, f.code) for f in report.findings}
    data["ObjectStates"][1]["LuaScript"] = '-- require("x") only in a comment\nlocal s = "require(y)"\n'
    assert "require-unbundled" not in codes(check_data(data))


def test_saves_tts_wrote_itself_check_clean(reference_saves):
    for name, path in reference_saves.items():
        report = check_file(path)
        assert report.exit_status == 0, (name, [str(f) for f in report.findings if f.severity != "info"])
    arknova = check_file(reference_saves["arknova"])
    assert "card-stale-custom-deck" in codes(arknova)
    assert "guid-duplicate-contained" in codes(arknova)


def test_cli_exit_codes_and_json(tmp_path, reference_saves):
    runner = CliRunner()
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps(good_save(tmp_path)), encoding="utf-8")
    result = runner.invoke(cli, ["check", str(clean)])
    assert result.exit_code == 0, result.output
    assert "file:///" in result.output

    result = runner.invoke(cli, ["check", "--json", str(reference_saves["arknova"])])
    assert result.exit_code == 0
    payload = json.loads(result.output)
    assert payload["schema_version"] == 2 and payload["counts"]["info"] > 0 and payload["exit_status"] == 0

    broken = tmp_path / "broken.json"
    broken.write_text("{ not json", encoding="utf-8")
    result = runner.invoke(cli, ["check", str(broken)])
    assert result.exit_code == 2
    assert "not valid JSON" in result.output
    result = runner.invoke(cli, ["check", str(tmp_path / "missing.json")])
    assert result.exit_code == 2


def test_not_a_save_is_unreadable_input(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(Exception, match="not a TTS save"):
        check_file(path)


def test_kept_image_probes_change_no_finding_and_cannot_hide_an_image_rewritten_since(tmp_path):
    import os

    from tools.check import ImageProbes

    data = good_save(tmp_path)
    plain = check_data(data)
    # Files probed long enough ago to be kept (a fresh file's time could still hide a same-size rewrite).
    old = 1_600_000_000_000_000_000
    for name in ("face.png", "back.png", "t.png"):
        os.utime(tmp_path / name, ns=(old, old))
    first = ImageProbes()
    assert check_data(data, probes=first).findings == plain.findings
    assert len(first.used) == 3
    first.save(tmp_path / "probes.json")
    later = ImageProbes.load(tmp_path / "probes.json")
    assert later.known == first.used
    assert check_data(data, probes=later).findings == plain.findings
    # The face sheet rewritten as CMYK (another size on disk, another time): probed again, and found.
    Image.new("CMYK", (64, 64)).save(tmp_path / "face.png", format="JPEG")
    assert ("error", "image-mode") in {(f.severity, f.code)
                                       for f in check_data(data, probes=ImageProbes.load(tmp_path / "probes.json"))
                                       .findings}
    # A damaged file of kept probes only means probing again.
    (tmp_path / "probes.json").write_bytes(b"\x00not json")
    assert ImageProbes.load(tmp_path / "probes.json").known == {}


def test_an_image_url_repeated_by_many_objects_is_reported_once_at_its_first_and_counted_each_time(tmp_path):
    gone = (tmp_path / "gone.png").resolve().as_uri()
    face = image(tmp_path / "face.png")
    sheet = DeckSheet(gone, face, 2, 2)
    cards = [card(f"c{i}", 3, i, sheet) for i in range(3)]
    data = Save("Repeats", [deck("deck", cards)], lua_script=BUNDLE).to_json()
    report = check_data(data)
    missing = [f for f in report.findings if f.code == "image-missing"]
    assert len(missing) == 1 and missing[0].where.startswith("ObjectStates[0] Deck")
    # the deck's and each card's CustomDeck entry: FaceURL and BackURL each
    local = [f for f in report.findings if f.code == "local-url"]
    assert len(local) == 1 and local[0].message.startswith("8 file:/// URL(s) or local paths in 1 object(s) "
                                                           "(ObjectStates[0] Deck")
    assert local[0].where == "save"      # a finding about the whole save, not blamed on its first object
