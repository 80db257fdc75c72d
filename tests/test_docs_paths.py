"""Every file the documents and the data's comments name is in the repository (issue #28).

A user's clone must not point at files it does not have: docs that named ``tools/render/<game>.py`` after the
renderer had moved, or ``rules-spec.md``, a document kept outside the repository, sent a reader looking for
nothing. Checked, in ``README.md``, every ``docs/**/*.md`` and the ``#`` comments of ``assets/**/*.toml``:

- a repository path (``tools/…``, ``bridge/…``, ``docs/…``, ``assets/…``, ``mod/…``, ``tests/…``,
  ``benchmarks/…``) exists, from the repository root; one with a placeholder (``docs/games/<game>/``,
  ``mod/<game>/``, ``…``, ``*``) is a pattern, not a file, and is left alone;
- a relative Markdown link exists, from the linking document's folder;
- a document named by its bare file name (``data-format.md``) is one the repository has, somewhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

TOP_FOLDERS = ("assets", "benchmarks", "bridge", "docs", "mod", "tests", "tools")
REPO_PATH = re.compile(r"(?<![\w./~-])((?:" + "|".join(TOP_FOLDERS) + r")/[\w.\-/]*[\w/])")
PLACEHOLDER_AFTER = ("<", "*", "{", "…", "[")
DOCUMENT_NAME = re.compile(r"(?<![\w./~<>-])([\w-]+\.md)\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")

NOT_IN_A_CHECKOUT = {
    "bridge/_bundled/": "made inside a wheel by setup.py (docs/development.md says so where it names it)",
}
"""Paths a document names on purpose that a checkout does not hold, each with why."""


def sources(root: Path = REPO_ROOT) -> list[tuple[Path, str]]:
    """(file, the text to check): the documents whole, the data files' comments only."""
    found = [(path, path.read_text(encoding="utf-8"))
             for path in sorted([root / "README.md", *(root / "docs").rglob("*.md")]) if path.is_file()]
    for path in sorted((root / "assets").rglob("*.toml")):
        comments = [line.split("#", 1)[1] for line in path.read_text(encoding="utf-8").splitlines() if "#" in line]
        found.append((path, "\n".join(comments)))
    return found


def dangling(path: Path, text: str, root: Path = REPO_ROOT, documents: set[str] | None = None) -> list[str]:
    """Every file name in ``text`` (from ``path``) that the repository at ``root`` does not have, one line each."""
    if documents is None:
        documents = {p.name for p in root.rglob("*.md") if ".git" not in p.parts}
    where = path.relative_to(root)
    missing: list[str] = []
    for match in REPO_PATH.finditer(text):
        name = match.group(1)
        if text[match.end():match.end() + 1] in PLACEHOLDER_AFTER or name in NOT_IN_A_CHECKOUT:
            continue
        if not (root / name).exists():
            missing.append(f"{where}: names {name}, which is not in the repository")
    links = []
    for match in LINK.finditer(text):
        target = match.group(1)
        links.append(match.span(1))
        if "://" in target or target.startswith(("mailto:", "#")):
            continue
        if not (path.parent / target.split("#", 1)[0]).exists():
            missing.append(f"{where}: links to {target}, which is not in the repository")
    for match in DOCUMENT_NAME.finditer(text):
        if any(start <= match.start() < end for start, end in links):
            continue   # a link's target: checked above, from the linking document's folder
        if match.group(1) not in documents:
            missing.append(f"{where}: names the document {match.group(1)}, which is not in the repository")
    return missing


def test_every_file_the_documents_and_data_comments_name_exists():
    documents = {p.name for p in REPO_ROOT.rglob("*.md") if ".git" not in p.parts}
    missing = [line for path, text in sources() for line in dangling(path, text, documents=documents)]
    assert not missing, "\n".join(missing)


def test_the_sources_cover_the_game_pages_and_the_data_files():
    checked = {path.relative_to(REPO_ROOT).as_posix() for path, _ in sources()}
    assert "README.md" in checked and "docs/development.md" in checked
    assert any(name.startswith("docs/games/") and name.endswith("/rules.md") for name in checked)
    assert any(name.startswith("assets/") and name.endswith("/game.toml") for name in checked)


@pytest.mark.parametrize("text, found", [
    ("the renderer is `tools/render/toy_game.py`.", "names tools/render/toy_game.py"),
    ("Rule ids: rules-spec.md section 2.5.", "names the document rules-spec.md"),
    ("see [the format](no-such-page.md#cards)", "links to no-such-page.md#cards"),
])
def test_a_dangling_name_is_reported_with_its_file(tmp_path, text, found):
    (tmp_path / "docs").mkdir()
    (tmp_path / "tools" / "render").mkdir(parents=True)
    (tmp_path / "tools" / "render" / "layout.py").write_text("")
    page = tmp_path / "docs" / "page.md"
    page.write_text(text, encoding="utf-8")
    (line,) = dangling(page, text, root=tmp_path)
    assert line.startswith("docs/page.md: ") and found in line


def test_what_exists_or_is_a_pattern_is_not_reported(tmp_path):
    (tmp_path / "docs" / "games" / "toy").mkdir(parents=True)
    (tmp_path / "tools" / "render").mkdir(parents=True)
    (tmp_path / "tools" / "render" / "layout.py").write_text("")
    (tmp_path / "docs" / "games" / "toy" / "rules.md").write_text("")
    text = ("`tools/render/layout.py`, `tools/render/`, `docs/games/<game>/rules.md`, `mod/<game>/global.lua`, "
            "[rules](games/toy/rules.md#flags), rules.md, https://example.org/tools/x.py, [top](#top)")
    page = tmp_path / "docs" / "page.md"
    page.write_text(text, encoding="utf-8")
    assert dangling(page, text, root=tmp_path) == []
