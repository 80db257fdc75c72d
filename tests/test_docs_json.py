"""Every JSON example in docs/ parses (a document, or JSON lines). Named examples (``<!-- json: NAME -->`` on
the line before the block) are read by name: each game's docs test runs its own through its engine."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
DOCS = REPO_ROOT / "docs"
BLOCK = re.compile(r"(?:<!-- json: ([^>]*?) -->\n)?```json\n(.*?)```", re.S)


def _blocks(path: Path) -> list[tuple[str | None, str]]:
    return [(name, body) for name, body in BLOCK.findall(path.read_text(encoding="utf-8"))]


def named_examples(path: Path) -> dict[str, object]:
    named = {}
    for name, body in _blocks(path):
        if name:
            assert name not in named, f"{path.name}: two examples named {name!r}"
            named[name] = json.loads(body)
    return named


@pytest.mark.parametrize("path", sorted(DOCS.rglob("*.md")), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_json_example_parses(path):
    for name, body in _blocks(path):
        try:
            json.loads(body)
        except json.JSONDecodeError:
            # a block of JSON lines (journal records, envelopes): every line is one document
            for line in body.splitlines():
                json.loads(line)
