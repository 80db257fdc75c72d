"""Every shell command in README.md and docs/ runs as written; the JSON reports match the docs.

The documents show ttsmod with its first game, Four Humours, so this file belongs to that game's tests.

The commands run in a temporary copy of the documents and game data with a temporary HOME (holding a TTS data
folder, as on a machine where TTS has run once), so nothing is written into the repository or the real home.
Commands that need a running Tabletop Simulator, or that install the project, are skipped by the explicit lists
below, each with its reason.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from bridge.catalog import builtin_games
from tests.shared import REPO_ROOT
from tests.sharedbuild import copy_of, shared_art, shared_build_folder
from tools.cli import cli

DOCUMENTS = sorted([REPO_ROOT / "README.md", *(REPO_ROOT / "docs").rglob("*.md")])

# ttsmod commands that talk to a running TTS (or a web server), each with why it cannot run here.
NEEDS_TTS = {
    "bridge": "serves TTS until stopped (the bridge tests and each game's e2e tests run it against the headless table)",
    "watch": "a bridge that watches files, serving TTS until stopped",
    "push": "sends scripts to a running TTS",
    "pull": "reads scripts from a running TTS",
    "exec": "runs Lua in a running TTS",
    "console": "runs Lua typed or piped in a running TTS "
               "(tests/bridge/luaproject/test_console.py drives it against the fake TTS)",
    "selftest": "probes a running TTS "
                "(tests/games/four_humours/commands/test_selftest.py runs it against the headless table)",
    "publish": "uploads to a web server (tests/tools/test_publish.py uses a local one)",
}
# Whole lines that are not ttsmod commands run here, with why.
NOT_RUN_HERE = {
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/ttsmod build four-humours":
        "creates a venv and installs the project: tests/test_wheel_install.py installs a wheel and builds",
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest -q -n auto":
        "the test command itself (CI runs it through .ci/run)",
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]'": "installs the project (CI does this)",
    ".venv/bin/python -m pytest -q -n auto": "the test command itself",
}


def shell_commands(document: Path) -> list[tuple[int, str]]:
    """(line number, command) for each command in the document's ```sh blocks; ``\\`` continues a line."""
    commands: list[tuple[int, str]] = []
    in_block, pending, start = False, "", 0
    for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            in_block = line.strip() in {"```sh", "```bash", "```shell"} if not in_block else False
            continue
        if not in_block or (not pending and not line.strip()):
            continue
        start = start if pending else number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        commands.append((start, (pending + line).strip()))
        pending = ""
    return commands


def skip_reason(command: str) -> str | None:
    if command in NOT_RUN_HERE:
        return NOT_RUN_HERE[command]
    words = command.split("#")[0].split()   # a trailing "# comment" is the document's, not the command's
    if words[:2] == ["pip", "install"]:
        return "installs ttsmod or its extras onto a user's machine (CI installs the test extra, which includes sim)"
    if words[:1] == ["dask"] or "--cluster" in words and any(w.startswith("tcp://") for w in words):
        return "starts or uses a Dask cluster of other machines (tests/tools/test_sweep.py runs a local one)"
    if words[:1] == ["ttsmod"] and len(words) > 1 and words[1] in NEEDS_TTS:
        return NEEDS_TTS[words[1]]
    return None


def documented_builds() -> dict[str, bool]:
    """Each built-in game a command of the documents builds or prints by its id (into build/<game id>/), and
    whether one prints it (``ttsmod pnp``)."""
    games: dict[str, bool] = {}
    for document in DOCUMENTS:
        for _, command in shell_commands(document):
            if skip_reason(command):
                continue
            for part in command.split("#")[0].split("&&"):
                words = part.split()
                if words[:2] in (["ttsmod", "build"], ["ttsmod", "pnp"]) and len(words) > 2 \
                        and words[2] in builtin_games():
                    games[words[2]] = games.get(words[2], False) or words[1] == "pnp"
    return dict(sorted(games.items()))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> tuple[Path, dict[str, str], set[tuple[str, ...]]]:
    """A copy of the documents and game data to run in, a HOME with a TTS data folder, and placeholder inputs;
    and the commands that ran in it (each ``&&`` part of a line that succeeded, as its words)."""
    root = tmp_path_factory.mktemp("docs-commands")
    work = root / "ttsmod"
    work.mkdir()
    shutil.copy2(REPO_ROOT / "README.md", work / "README.md")
    for folder in ("docs", "assets"):
        shutil.copytree(REPO_ROOT / folder, work / folder)
    home = root / "home"
    (home / ".local" / "share" / "Tabletop Simulator").mkdir(parents=True)  # TTS has run once (Linux)
    (home / "Library" / "Tabletop Simulator").mkdir(parents=True)  # ... or on macOS
    # Inputs a user brings that the documents name: card faces and a back, a designer's copy of the data.
    (work / "faces").mkdir()
    for index, colour in enumerate(["red", "green", "blue"]):
        Image.new("RGB", (250, 350), colour).save(work / "faces" / f"card{index}.png")
    Image.new("RGB", (250, 350), "grey").save(work / "back.png")
    shutil.copytree(REPO_ROOT / "assets" / "four_humours", work / "my_humours")
    # The built-in games the documents build (and print) into their default folders, build/<game id>/, start
    # from a copy of this run's one build of each (with its print faces for a game they print): the commands
    # still run as written, but draw no image another test of the run drew already. A cold `ttsmod build` of
    # each game is tests/test_wheel_install.py's (the installed command) and this run's shared build itself.
    for game, printed in documented_builds().items():
        seed = shared_art(tmp_path_factory, REPO_ROOT, game).out_dir if printed else \
            shared_build_folder(tmp_path_factory, REPO_ROOT, game)
        copy_of(seed, work / "build" / game)
    env = {k: v for k, v in os.environ.items()
           if k not in {"XDG_DATA_HOME", "TTSMOD_ASSETS", "TTSMOD_MOD", "PYTHONPATH"}}
    env["HOME"] = str(home)
    # docs/modding.md commits an unpacked save: git as a modder has it set up, with a name and an address
    env.update({"GIT_AUTHOR_NAME": "Ann Modder", "GIT_AUTHOR_EMAIL": "ann@example.com",
                "GIT_COMMITTER_NAME": "Ann Modder", "GIT_COMMITTER_EMAIL": "ann@example.com",
                "GIT_CONFIG_NOSYSTEM": "1"})
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return work, env, set()


def test_documents_have_commands_and_every_skip_is_still_used():
    every = [command for document in DOCUMENTS for _, command in shell_commands(document)]
    assert any(c.startswith("ttsmod build") for c in every) and any(c.startswith("ttsmod adjudicate") for c in every)
    for line in NOT_RUN_HERE:
        assert line in every, f"NOT_RUN_HERE names a command no document has: {line}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_shell_commands_run_as_written(document, workspace):
    work, env, ran = workspace
    for number, command in shell_commands(document):
        if skip_reason(command):
            continue
        result = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True,
                                timeout=300)
        where = f"{document.relative_to(REPO_ROOT)}:{number}: {command}"
        assert result.returncode == 0, f"{where}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        assert "Traceback" not in result.stderr, where
        ran.update(tuple(part.split()) for part in command.split("#")[0].split("&&"))


def test_build_paths_named_in_documents_are_the_ones_the_build_writes(workspace):
    work, env, ran = workspace

    def ttsmod(*words: str) -> None:
        """``ttsmod WORDS`` here, unless a document's line ran exactly it in this workspace already: the same
        command in the same folder writes the same files (and rewriting a PDF costs seconds)."""
        if ("ttsmod", *words) not in ran:
            subprocess.run(["ttsmod", *words], cwd=work, env=env, capture_output=True, check=True, timeout=300)
            ran.add(("ttsmod", *words))

    mentioned = {match.group(0).rstrip("/.")
                 for document in DOCUMENTS
                 # relative paths only: an example's /home/ann/.../build/... is a user's machine, not this run
                 for match in re.finditer(r"(?<![\w/.-])build/[\w.-]+(?:/[\w.-]+)*/?",
                                          document.read_text(encoding="utf-8"))}
    assert mentioned
    # each built-in game whose build folder a document names is built here (its default output folder is
    # build/<game id>/), whatever else ran in this workspace before
    built = {path.split("/")[1] for path in mentioned if path.count("/") >= 1} & set(builtin_games())
    assert "four-humours" in built
    for game in sorted(built):
        ttsmod("build", game)
        if any(path.startswith(f"build/{game}/") and path.endswith(".pdf") for path in mentioned):
            # a print-and-play PDF named in the docs is what ttsmod pnp writes by default, beside the build
            ttsmod("pnp", game)
    # each game folder a document makes with ttsmod new, and names the build folder of, is made and built here
    made = {command.split()[2] for document in DOCUMENTS for _, command in shell_commands(document)
            if command.startswith("ttsmod new ") and len(command.split()) >= 3}
    for folder in sorted(made & {path.split("/")[1] for path in mentioned if path.count("/") >= 1}):
        if not (work / folder).exists():
            ttsmod("new", folder)
        ttsmod("build", folder)
    for path in sorted(mentioned):
        assert (work / path).exists(), f"documents name {path}, which neither ttsmod build nor ttsmod pnp writes"


def test_adjudicate_example_snapshot_gives_a_ruling_and_takes_choices():
    example = REPO_ROOT / "docs" / "games" / "four_humours" / "end-round.json"
    result = CliRunner().invoke(cli, ["adjudicate", "four-humours", str(example)])
    assert result.exit_code == 0, result.output
    ruling = json.loads(result.output)
    assert ruling["round"] == 1 and ruling["round_end_reason"] == "two_scenes_full"
    assert ruling["awaiting"]["owner"] == 1 and "harbour" in ruling["awaiting"]["cells"]
    answered = CliRunner().invoke(cli, ["adjudicate", "four-humours", str(example), "--choice", "1:harbour"])
    assert answered.exit_code == 0, answered.output
    assert json.loads(answered.output)["events"] != ruling["events"]


def documented_json(document: str, key: str) -> dict:
    """The ```json example in ``document`` that has ``key``: it must parse."""
    text = (REPO_ROOT / document).read_text(encoding="utf-8")
    examples = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]
    found = [e for e in examples if isinstance(e, dict) and key in e]
    assert len(found) == 1, f"{document}: one JSON example with {key!r} expected"
    return found[0]


def test_build_json_reports_what_was_written_as_documented(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["build", "four-humours", "--out", "out", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report) == set(documented_json("docs/building.md", "images_written"))
    out = (tmp_path / "out").resolve()
    assert Path(report["save"]) == out / "FourHumours.json" and Path(report["save"]).is_file()
    assert Path(report["thumbnail"]).is_file() and Path(report["sheets_dir"]) == out / "sheets"
    # the table from above, beside the save
    assert Path(report["preview"]) == out / "preview.png"
    with Image.open(report["preview"]) as preview:
        assert preview.format == "PNG" and max(preview.size) == 800
    assert report["images"] and all(Path(p).is_file() and Path(p).parent == out / "sheets" for p in report["images"])
    # A cold build writes every image the save uses (and counts nothing else), then a rebuild writes none.
    assert report["images"] == report["images_written"] and report["save_written"] is True
    assert all(Path(p).is_file() and Path(p).parent == out / "sheets" for p in report["images_written"])
    assert report["local_urls"] is True
    # each deck's cells and the height of its body text there, as the documented example lists them
    documented = documented_json("docs/building.md", "images_written")["decks"]
    assert [d["name"] for d in report["decks"]] == ["scenes", "goals", "parties"]
    for deck in report["decks"]:
        assert set(deck) == set(documented[0]) and deck["sheets"] >= 1 and len(deck["cell"]) == 2
        assert deck["text_height"] >= 24
    again = json.loads(CliRunner().invoke(cli, ["build", "four-humours", "--out", "out", "--json"]).stdout)
    assert again["images_written"] == [] and again["save_written"] is False and again["preview"] == report["preview"]
    assert again["decks"] == report["decks"]   # a no-op rebuild reports them from its stamp


def test_install_json_matches_the_documented_shape(tmp_path):
    tts = tmp_path / "tts"
    tts.mkdir()
    save = tmp_path / "FourHumours.json"
    save.write_text('{"SaveName": "Four Humours", "ObjectStates": []}', encoding="utf-8")
    result = CliRunner().invoke(cli, ["install", str(save), "--tts-dir", str(tts), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    documented = documented_json("docs/building.md", "tts_dir")
    assert set(report) == set(documented)
    assert {k: type(v) for k, v in report.items() if v is not None} == \
        {k: type(v) for k, v in documented.items() if k in report and report[k] is not None}
