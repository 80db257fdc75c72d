"""``ttsmod watch`` and the spreadsheets of ``[sheets]``: an edited CSV or XLSX card list rebuilds the game like an
edited ``cards.toml``, on the real file-system watcher; a spreadsheet program's lock files do not."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

from bridge.session import ExecResult
from tools.buildstamp import sheet_files
from tools.watch import BuildHooks, GameUpdater, Watcher, classify

GAME_TOML = """[game]
id = "sheet-game"

[sheets]
cards = { file = "sheets/cards.csv" }
scenes = { file = "scenes.xlsx", sheet = "scenes" }
goals = { file = "cache/goals.csv" }     # a folder name the watcher ignores otherwise
"""


def _game(tmp_path: Path) -> tuple[Path, Path]:
    game, mod = tmp_path / "game", tmp_path / "mod"
    (game / "sheets").mkdir(parents=True)
    (game / "cache").mkdir()
    mod.mkdir()
    (game / "game.toml").write_text(GAME_TOML, encoding="utf-8")
    (game / "cards.toml").write_text('[[cards]]\nid = "a"\n', encoding="utf-8")
    (game / "sheets" / "cards.csv").write_text("id,title.en\na,Mill\n", encoding="utf-8")
    (game / "scenes.xlsx").write_bytes(b"PK workbook 1")
    (game / "cache" / "goals.csv").write_text("id\ng\n", encoding="utf-8")
    return game, mod


def test_sheet_files_are_the_files_of_the_sheets_table_inside_the_game_folder(tmp_path):
    game, _ = _game(tmp_path)
    assert sheet_files(game) == {(game / "sheets" / "cards.csv").resolve(), (game / "scenes.xlsx").resolve(),
                                 (game / "cache" / "goals.csv").resolve()}
    (game / "game.toml").write_text('[sheets]\nx = { file = "../outside.csv" }\ny = "z"\n', encoding="utf-8")
    assert sheet_files(game) == frozenset()
    (game / "game.toml").write_text("[sheets\n", encoding="utf-8")   # the build reports a bad game.toml
    assert sheet_files(game) == frozenset()


def test_a_sheet_in_an_ignored_folder_is_an_asset_change_and_office_lock_files_are_not(tmp_path):
    game, mod = _game(tmp_path)
    change = classify([game / "cache" / "goals.csv", game / "cache" / "face.png", game / "~$scenes.xlsx",
                       game / ".~lock.scenes.xlsx#", game / "sheets" / "cards.csv"], mod, game)
    assert change.assets == {(game / "cache" / "goals.csv").resolve(), (game / "sheets" / "cards.csv").resolve()}


def test_editing_a_csv_or_xlsx_card_list_rebuilds_as_editing_cards_toml_does(tmp_path):
    game, mod = _game(tmp_path)
    builds: list[int] = []
    changes = []
    reports: list[tuple[str, str]] = []

    def build(name, **options):
        builds.append(1)
        return SimpleNamespace(save={"ObjectStates": []}, changed_sheets=[], sheets=[])

    updater = GameUpdater("sheet-game", BuildHooks(lambda name: {}, build), lambda states: None,
                          lambda lua: ExecResult(True), lambda kind, text: reports.append((kind, text)))

    def on_batch(paths):
        change = classify(paths, mod, game)
        changes.append(change)
        updater.apply(change)

    watcher = Watcher([game, mod], on_batch, quiet=0.5).start()

    def settle(batches: int) -> None:
        """Wait (bounded) until the watcher has acted on ``batches`` bursts and is idle again."""
        for _ in range(200):
            if watcher.batches >= batches and watcher.wait_idle(timeout=10):
                break
            threading.Event().wait(0.05)
        assert watcher.wait_idle(timeout=10) and watcher.batches == batches

    try:
        (game / "cards.toml").write_text('[[cards]]\nid = "b"\n', encoding="utf-8")
        settle(1)
        (game / "sheets" / "cards.csv").write_text("id,title.en\na,Mil\n", encoding="utf-8")
        settle(2)
        # a spreadsheet program saving a workbook: its lock file beside it, a temporary file renamed over it
        (game / "~$scenes.xlsx").write_bytes(b"owner")
        (game / ".~lock.scenes.xlsx#").write_text("owner", encoding="utf-8")
        (game / "lu1234.tmp").write_bytes(b"PK workbook 2")
        (game / "lu1234.tmp").replace(game / "scenes.xlsx")
        settle(3)
        (game / "cache" / "goals.csv").write_text("id\nh\n", encoding="utf-8")
        settle(4)
        # opening and closing a workbook without saving it: lock files come and go, nothing to rebuild
        (game / "~$scenes.xlsx").unlink()
        (game / ".~lock.scenes.xlsx#").unlink()
        (game / "cards.toml").write_text('[[cards]]\nid = "c"\n', encoding="utf-8")
        settle(5)
    finally:
        watcher.stop()
    assert [sorted(p.name for p in change.assets) for change in changes] == \
        [["cards.toml"], ["cards.csv"], ["scenes.xlsx"], ["goals.csv"], ["cards.toml"]]
    assert len(builds) == 5 and all(kind == "info" for kind, _ in reports)


def test_a_sheet_in_a_hidden_folder_is_an_input_of_the_build_stamp_so_its_edit_is_rebuilt(tmp_path):
    # The watcher acts on such a sheet; the build it starts must not take the edit for a no-op.
    from tools.buildstamp import fingerprint_inputs

    game, _ = _game(tmp_path)
    (game / ".sheets").mkdir()
    (game / ".sheets" / "tricks.csv").write_text("id\nt\n", encoding="utf-8")
    with open(game / "game.toml", "a", encoding="utf-8") as handle:
        handle.write('tricks = { file = ".sheets/tricks.csv" }\n')
    inputs = fingerprint_inputs(game, tmp_path / "out")
    assert str((game / ".sheets" / "tricks.csv").resolve()) in inputs
    assert str((game / "cache" / "goals.csv").resolve()) in inputs
