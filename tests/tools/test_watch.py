"""``ttsmod watch`` and the spreadsheets of ``[sheets]``: an edited CSV or XLSX card list rebuilds the game like an
edited ``cards.toml``, on the real file-system watcher; a spreadsheet program's lock files do not. A game folder
deleted and made again is noticed, warned about and watched again; ``watch --journal`` journals where it is told."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

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


# --- a watched folder deleted and made again -----------------------------------------------------------------


class Recorder:
    """A watcher's batches and reports, with a bounded wait for a batch holding a given file."""

    def __init__(self) -> None:
        self.batches: list[frozenset[Path]] = []
        self.reports: list[tuple[str, str]] = []
        self._cond = threading.Condition()

    def on_batch(self, paths: frozenset[Path]) -> None:
        with self._cond:
            self.batches.append(frozenset(Path(p).resolve() for p in paths))
            self._cond.notify_all()

    def report(self, kind: str, text: str) -> None:
        with self._cond:
            self.reports.append((kind, text))
            self._cond.notify_all()

    def acted_on(self, path: Path, timeout: float = 10.0) -> bool:
        """Whether a batch holding ``path`` arrives within ``timeout`` seconds."""
        with self._cond:
            return self._cond.wait_for(lambda: any(path.resolve() in batch for batch in self.batches), timeout)

    def reported(self, kind: str, timeout: float = 10.0) -> list[str]:
        with self._cond:
            self._cond.wait_for(lambda: any(k == kind for k, _ in self.reports), timeout)
            return [text for k, text in self.reports if k == kind]


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    game, mod = tmp_path / "game", tmp_path / "mod"
    game.mkdir()
    mod.mkdir()
    (game / "cards.toml").write_text('[[cards]]\nid = "a"\n', encoding="utf-8")
    return game.resolve(), mod.resolve()


def test_a_game_folder_deleted_and_made_again_is_warned_about_and_watched_again(tmp_path):
    game, mod = _folders(tmp_path)
    seen = Recorder()
    watcher = Watcher([game, mod], seen.on_batch, quiet=0.05, recheck=None, report=seen.report).start()
    try:
        shutil.rmtree(game)
        watcher.check_folders()
        watcher.check_folders()   # warned once, not at every check
        assert seen.reports == [("warning", f"{game} is gone (deleted or moved away): nothing in it is watched "
                                            "until a folder is there again")]
        assert watcher.wait_idle(timeout=10)
        assert not any(path.is_relative_to(game) for batch in seen.batches for path in batch)   # nothing to build
        game.mkdir()
        (game / "cards.toml").write_text('[[cards]]\nid = "b"\n', encoding="utf-8")   # made while unwatched
        watcher.check_folders()
        assert seen.reports[1:] == [("info", f"watching {game} again; every file in it counts as changed")]
        assert seen.acted_on(game / "cards.toml")
        (game / "later.toml").write_text("x = 1\n", encoding="utf-8")   # an edit after it is watched again
        assert seen.acted_on(game / "later.toml")
    finally:
        watcher.stop()


def test_a_folder_replaced_before_any_check_is_watched_again(tmp_path):
    # Deleted and made again at once (git checkout, a copy over it): the folder at the path is another, or the
    # same inode again whose file-system watch has ended with the old one; either way the next check sees it.
    game, mod = _folders(tmp_path)
    seen = Recorder()
    watcher = Watcher([game, mod], seen.on_batch, quiet=0.05, recheck=None, report=seen.report).start()
    try:
        shutil.rmtree(game)
        game.mkdir()
        for _ in range(100):   # the file-system watcher ends the old watch on its own thread
            watcher.check_folders()
            if any(kind == "info" for kind, _ in seen.reports):
                break
            threading.Event().wait(0.02)
        # The deletion's own event may have had the folders checked while none was there: then a warning first.
        assert seen.reports[-1] == ("info", f"watching {game} again; every file in it counts as changed")
        assert [kind for kind, _ in seen.reports] in (["info"], ["warning", "info"])
        (game / "cards.toml").write_text('[[cards]]\nid = "c"\n', encoding="utf-8")
        assert seen.acted_on(game / "cards.toml")
    finally:
        watcher.stop()


def test_the_watch_loop_checks_its_folders_by_itself(tmp_path):
    game, mod = _folders(tmp_path)
    seen = Recorder()
    watcher = Watcher([game, mod], seen.on_batch, quiet=0.05, recheck=0.1, report=seen.report).start()
    try:
        shutil.rmtree(game)
        assert seen.reported("warning") == [f"{game} is gone (deleted or moved away): nothing in it is watched "
                                            "until a folder is there again"]
        game.mkdir()
        assert seen.reported("info") == [f"watching {game} again; every file in it counts as changed"]
        (game / "edited.toml").write_text("x = 2\n", encoding="utf-8")
        assert seen.acted_on(game / "edited.toml")
    finally:
        watcher.stop()


def test_a_folder_missing_when_the_watch_starts_is_watched_once_it_exists(tmp_path):
    game, mod = _folders(tmp_path)
    later = tmp_path / "later"
    seen = Recorder()
    watcher = Watcher([game, mod, later], seen.on_batch, quiet=0.05, recheck=None, report=seen.report).start()
    try:
        assert seen.reports == [("warning", f"{later.resolve()} does not exist: it is watched once it does")]
        later.mkdir()
        watcher.check_folders()
        (later / "a.lua").write_text("-- a\n", encoding="utf-8")
        assert seen.acted_on(later / "a.lua")
    finally:
        watcher.stop()


def test_a_folder_that_cannot_be_watched_again_is_said_once_and_tried_at_each_check(tmp_path, monkeypatch):
    game, mod = _folders(tmp_path)
    seen = Recorder()
    watcher = Watcher([game, mod], seen.on_batch, quiet=0.05, recheck=None, report=seen.report).start()
    try:
        shutil.rmtree(game)
        watcher.check_folders()
        schedule = watcher._observer.schedule

        def out_of_watches(*args, **kwargs):
            raise OSError(28, "inotify watch limit reached")

        monkeypatch.setattr(watcher._observer, "schedule", out_of_watches)
        game.mkdir()
        watcher.check_folders()
        watcher.check_folders()
        assert seen.reports[1:] == [("warning", f"cannot watch {game}: inotify watch limit reached")]
        monkeypatch.setattr(watcher._observer, "schedule", schedule)
        watcher.check_folders()
        assert seen.reports[2:] == [("info", f"watching {game} again; every file in it counts as changed")]
        (game / "edited.toml").write_text("x = 3\n", encoding="utf-8")
        assert seen.acted_on(game / "edited.toml")
    finally:
        watcher.stop()


# --- watch --journal ------------------------------------------------------------------------------------------


HELLO = {"ttsmod": 1, "id": 1, "type": "hello", "game": "some-game", "body": {"mod": "0.1.0"}}


@pytest.mark.skipif(sys.platform.startswith("win"), reason="POSIX signals")
def test_watch_journals_into_the_file_its_journal_option_names(tmp_path, repo_root):
    from bridge.catalog import builtin_games
    from bridge.faketts import FakeTTS
    from bridge.journal import read_journal

    game = sorted(builtin_games())[0]

    journal, stderr_path, data_home = tmp_path / "watch.jsonl", tmp_path / "stderr.txt", tmp_path / "data"
    env = {**os.environ, "XDG_DATA_HOME": str(data_home), "HOME": str(tmp_path)}

    async def scenario():
        async with FakeTTS() as tts:
            with open(stderr_path, "wb") as stderr:
                process = await asyncio.create_subprocess_exec(
                    sys.executable, "-c", "from tools.cli import main; main()", "watch", game, "--port", "0",
                    "--tts-port", str(tts.port), "--journal", str(journal), cwd=repo_root, env=env,
                    stdout=asyncio.subprocess.DEVNULL, stderr=stderr)
            try:
                async with asyncio.timeout(60):
                    while not (match := re.search(r"listening on 127\.0\.0\.1:(\d+)",
                                                  stderr_path.read_text(encoding="utf-8", errors="replace"))):
                        assert process.returncode is None, "watch exited before listening"
                        await asyncio.sleep(0.05)
                tts.bridge_port = int(match.group(1))
                await tts.send_custom(HELLO)
                reply = await tts.next_custom(timeout=20)
            finally:
                process.send_signal(signal.SIGTERM)
                async with asyncio.timeout(30):
                    await process.wait()
            return reply

    reply = asyncio.run(scenario())
    stderr = stderr_path.read_text(encoding="utf-8")
    assert reply["ok"] is True, stderr
    assert f"journal: {journal}" in stderr
    assert {"messageID": 4, "customMessage": HELLO} in [entry.message for entry in read_journal(journal)]
    assert not data_home.exists()   # nothing went to the default journal in the user's data folder
