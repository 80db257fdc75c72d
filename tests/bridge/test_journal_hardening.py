"""The journal after crashes, full disks and huge messages; replay reads it line by line."""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge import protocol as p
from bridge.journal import Journal, iter_rulings, read_journal, replay
from bridge.session import Dispatcher


def _pair(journal: Journal, request: dict, reply: dict) -> None:
    journal.record("in", {"messageID": 4, "customMessage": request})
    journal.record("out", {"messageID": 2, "customMessage": reply})


def _toy_journal(kit, path, count: int = 2) -> None:
    with Journal(path) as journal:
        for n in range(count):
            _pair(journal, kit.request(n, "double", {"n": n}), {"ttsmod": 1, "re": n, "type": "double", "ok": True, "body": {"n": 2 * n}})


def _cut_record(text: str = "Жовч") -> bytes:
    """The first bytes of a record, cut in the middle of a two-byte UTF-8 character."""
    line = json.dumps({"t": "2026-01-01T00:00:00.000+00:00", "dir": "in", "msg": {"messageID": 2, "message": text}},
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    cut = line.index("Ж".encode("utf-8")) + 1
    return line[:cut]


def test_replay_skips_a_last_line_cut_inside_a_utf8_character_with_a_warning(kit, tmp_path, monkeypatch):
    from tools.cli import cli

    path = tmp_path / "j.jsonl"
    _toy_journal(kit, path)
    with open(path, "ab") as handle:
        handle.write(_cut_record())
    report = replay(path, Dispatcher(kit.toy_registry()).reply)
    assert len(report.rulings) == 2 and report.differing == []
    assert len(report.warnings) == 1 and "line 5" in report.warnings[0] and "cut short" in report.warnings[0]

    monkeypatch.setattr("bridge.games.default_registry", kit.toy_registry)
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "warning: j.jsonl: line 5: a record cut short" in result.stderr
    assert "2 ruling(s) replayed, 0 differ" in result.stdout


def test_a_restarted_journal_starts_on_a_new_line_after_a_cut_record(kit, tmp_path):
    path = tmp_path / "j.jsonl"
    _toy_journal(kit, path, count=1)
    with open(path, "ab") as handle:
        handle.write(_cut_record())
    with Journal(path) as journal:  # the bridge started again
        _pair(journal, kit.request(5, "double", {"n": 5}), {"ttsmod": 1, "re": 5, "type": "double", "ok": True, "body": {"n": 10}})
    warnings: list[str] = []
    entries = list(read_journal(path, warn=warnings.append))
    assert [e.line for e in entries] == [1, 2, 4, 5]
    assert entries[2].message["customMessage"]["id"] == 5
    assert len(warnings) == 1 and "line 3" in warnings[0]
    assert [r.request["id"] for r in replay(path, Dispatcher(kit.toy_registry()).reply).rulings] == [0, 5]


def test_garbage_in_the_middle_is_still_refused(tmp_path):
    from bridge.errors import InputError

    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"t":"x","dir":"in"}\nnot a record\n{"t":"y","dir":"in"}\n')
    with pytest.raises(InputError, match="line 2"):
        list(read_journal(path))


def _failing_journal(tmp_path) -> Journal:
    """A journal whose disk is full: /dev/full where it exists, else a file object that fails like it."""
    if os.path.exists("/dev/full"):
        return Journal("/dev/full")
    journal = Journal(tmp_path / "j.jsonl")

    class Full:
        closed = False

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def close(self):
            self.closed = True

    journal._file.close()
    journal._file = Full()
    return journal


def test_a_full_disk_is_reported_once_and_recording_goes_on_without_raising(tmp_path, caplog):
    journal = _failing_journal(tmp_path)
    with caplog.at_level(logging.ERROR, logger="ttsmod.bridge"):
        for n in range(5):
            journal.record("in", {"messageID": 2, "message": f"print {n}"})
        journal.close()
    assert journal.failures == 5
    reports = [r.getMessage() for r in caplog.records]
    assert len([m for m in reports if "cannot write the journal" in m]) == 1
    assert "No space left on device" in reports[0] and "keeps serving" in reports[0]
    assert any("missed 5 record(s)" in m for m in reports)


def test_a_record_over_the_cap_is_journaled_truncated_with_its_size(tmp_path):
    path = tmp_path / "j.jsonl"
    big = "ж" * 50_000
    with Journal(path, record_limit=4096) as journal:
        journal.record("in", {"messageID": 2, "message": big})
        journal.record("in", {"messageID": 2, "message": "small"})
    lines = path.read_bytes().splitlines()
    assert all(len(line) < 4096 for line in lines)
    entries = list(read_journal(path))
    truncated = entries[0].raw["truncated"]
    assert entries[0].message is None
    assert truncated["messageID"] == 2
    assert truncated["size"] == len(json.dumps({"messageID": 2, "message": big}, ensure_ascii=False, separators=(",", ":")).encode())
    assert truncated["head"].startswith('{"messageID":2,"message":"жжж')
    assert entries[1].message == {"messageID": 2, "message": "small"}


def test_a_lone_surrogate_from_tts_is_journaled_and_read_back(tmp_path):
    path = tmp_path / "j.jsonl"
    with Journal(path) as journal:
        journal.record("in", {"messageID": 2, "message": "bad \ud800 text"})
        journal.record("in", {"messageID": 2, "message": "next"})
    assert [e.message["message"] for e in read_journal(path)] == ["bad \ud800 text", "next"]


def test_a_huge_print_is_echoed_truncated_with_its_size(kit):
    shown: list[tuple[str, str]] = []

    async def scenario():
        tts, bridge = await kit.start_pair(console=lambda kind, text: shown.append((kind, text)), echo_limit=100)
        try:
            await tts.send(p.PrintMessage(message="x" * 10_000))
            await tts.send(p.PrintMessage(message="short"))
            await kit.wait_for(lambda: bridge.session.stats["received"] == 2)
        finally:
            await kit.stop_pair(tts, bridge)

    kit.run(scenario())
    prints = [text for kind, text in shown if kind == "print"]
    assert prints[1] == "short"
    assert prints[0].startswith("x" * 100 + "…") and "10000 characters" in prints[0] and len(prints[0]) < 200


def test_replay_reads_a_large_journal_in_small_memory(kit, tmp_path):
    path = tmp_path / "big.jsonl"
    filler = {"messageID": 2, "message": "p" * 8000}
    with Journal(path) as journal:
        for n in range(1000):
            journal.record("in", filler)
            if n % 100 == 0:
                _pair(journal, kit.request(n, "double", {"n": n}), {"ttsmod": 1, "re": n, "type": "double", "ok": True, "body": {"n": 2 * n}})
    assert path.stat().st_size > 8_000_000
    reply = Dispatcher(kit.toy_registry()).reply
    tracemalloc.start()
    try:
        rulings = sum(1 for _ in iter_rulings(path, reply))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rulings == 10
    assert peak < 1_000_000  # a few lines at a time, never the file


def test_the_journal_lines_in_the_docs_parse_and_the_truncated_one_matches_what_the_journal_writes(tmp_path):
    text = (Path(__file__).resolve().parents[2] / "docs" / "bridge.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```json\n(.*?)```", text, re.S) if '"truncated"' in b)
    documented = [json.loads(line) for line in block.splitlines() if line.strip()]
    assert all(set(record) >= {"t", "dir"} for record in documented)
    example = next(record for record in documented if "truncated" in record)
    path = tmp_path / "j.jsonl"
    with Journal(path, record_limit=2048) as journal:
        journal.record("in", {"messageID": 2, "message": "x" * 10_000})
    written = next(read_journal(path)).raw
    assert set(written) == set(example) and set(written["truncated"]) == set(example["truncated"])
