"""The layers of ttsmod, checked statically over the source:

(a) ``bridge`` never imports ``tools`` (``tools`` is built on ``bridge``, never the reverse), counting imports
    inside functions;
(b) no import cycle among the modules of ``bridge`` and ``tools``, counting imports inside functions (only
    ``if TYPE_CHECKING:`` blocks are left out: they never run);
(c) outside a built-in game's own folders no source file names the game: adding or removing a game touches only
    its folders, its tests' one folder ``tests/games/<mod>/`` among them (a test named for the game anywhere else
    is a shared file naming it). The game's names and folders come from its ``[game]`` metadata
    (``bridge.catalog``), so this test names no game itself;
(d) no module of ``bridge/rules`` imports a module outside ``bridge.rules`` and the standard library, counting
    imports inside functions (the engines are pure: no files, sockets, click, Pillow, nor the rest of the bridge);
(e) a path spells a built-in game by its module name (``[game] mod``), never by its id: no file or folder of the
    repository holds a built-in game's hyphenated id in its path (the id is the game's name, the GAME argument and
    the envelope's ``"game"``), so ``docs/games/<mod>/`` sits beside ``mod/<mod>/``.

Each failure lists every offending file and line.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest

from bridge.catalog import builtin_games, resolve_game

REPO_ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bridge", "tools")
SKIPPED_DIRS = {"__pycache__", "_bundled", ".pytest_cache", ".hypothesis"}


# ------------------------------------------------------------------------------------------------ import graph

def _python_files(package: str) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(REPO_ROOT / package):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        found.extend(Path(folder) / name for name in sorted(files) if name.endswith(".py"))
    return found


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    """Module name → file, for every module of :data:`PACKAGES`."""
    return {_module_name(path): path for package in PACKAGES for path in _python_files(package)}


@dataclass(frozen=True)
class Import:
    importer: str
    target: str       # the module imported, as written (absolute)
    names: tuple[str, ...]
    line: int


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(module: str, path: Path) -> list[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for other in child.orelse:
                    visit_node(other)
                continue
            visit_node(child)

    def visit_node(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.extend(Import(module, alias.name, (), node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append(Import(module, target, tuple(alias.name for alias in node.names), node.lineno))
        visit(node)

    visit(tree)
    return found


def import_edges(modules: dict[str, Path]) -> dict[str, dict[str, int]]:
    """Importer → {imported project module → line of the first such import}.

    ``import a.b.c`` depends on the longest prefix that is a project module; ``from a.b import c`` on ``a.b.c``
    when that is a module, else on ``a.b``. The implicit import of parent packages is left out: every module
    would otherwise depend on its package's ``__init__``.
    """
    edges: dict[str, dict[str, int]] = {name: {} for name in modules}
    for name, path in modules.items():
        for imp in _imports(name, path):
            targets = []
            submodules = [f"{imp.target}.{n}" for n in imp.names if f"{imp.target}.{n}" in modules]
            if submodules:
                targets.extend(submodules)
            if len(submodules) < len(imp.names) or not imp.names:
                parts = imp.target.split(".")
                while parts and ".".join(parts) not in modules:
                    parts.pop()
                if parts:
                    targets.append(".".join(parts))
            for target in targets:
                if target != name:
                    edges[name].setdefault(target, imp.line)
    return edges


def find_cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle (``[a, b, …, a]``) through each strongly connected component of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0

    def connect(start: str) -> None:   # Tarjan's algorithm, iterative (the graph has a few hundred modules)
        nonlocal counter
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            connect(node)
    cycles = []
    for component in components:
        members = set(component)
        # the shortest way back to the component's first module, by breadth-first search inside it
        start = component[0]
        previous: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in previous:
            following = []
            for node in frontier:
                for child in sorted(edges[node]):
                    if child in members and child not in previous:
                        previous[child] = node
                        following.append(child)
            frontier = following
        path = [start]
        node = previous[start]
        while node != start:
            path.append(node)
            node = previous[node]
        path.append(start)
        cycles.append(path[::-1] if len(path) > 2 else path)
    return cycles


def _where(modules: dict[str, Path], module: str, line: int) -> str:
    return f"{modules[module].relative_to(REPO_ROOT).as_posix()}:{line}"


def test_bridge_never_imports_tools():
    modules = project_modules()
    offenders = [
        f"{_where(modules, name, imp.line)}: imports {imp.target}"
        for name, path in modules.items() if name.split(".")[0] == "bridge"
        for imp in _imports(name, path) if imp.target == "tools" or imp.target.startswith("tools.")
    ]
    assert not offenders, "bridge/ must not import tools/ (tools is built on bridge):\n" + "\n".join(offenders)


def test_no_import_cycle_among_the_project_modules():
    modules = project_modules()
    edges = import_edges(modules)
    cycles = find_cycles(edges)
    described = []
    for cycle in cycles:
        steps = [f"{a} → {b} ({_where(modules, a, edges[a][b])})" for a, b in zip(cycle, cycle[1:])]
        described.append("cycle: " + "; ".join(steps))
    assert not cycles, "import cycles (move the shared part into a module both import):\n" + "\n".join(described)


def test_the_import_graph_sees_imports_inside_functions_and_finds_a_cycle(tmp_path):
    """The checker itself: a function-level import closes a cycle; a TYPE_CHECKING import does not."""
    (tmp_path / "a.py").write_text("import b\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("def f():\n    from a import x\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a\n",
                                   encoding="utf-8")
    (tmp_path / "d.py").write_text("import c\n", encoding="utf-8")
    modules = {"a": tmp_path / "a.py", "b": tmp_path / "b.py", "c": tmp_path / "c.py", "d": tmp_path / "d.py"}
    edges = import_edges(modules)
    assert edges == {"a": {"b": 1}, "b": {"a": 2}, "c": {}, "d": {"c": 1}}
    assert find_cycles(edges) == [["a", "b", "a"]]
    assert find_cycles({"x": {"y": 1}, "y": {"z": 1}, "z": {"x": 1}}) == [["x", "y", "z", "x"]]


RULES_PACKAGE = "bridge.rules"


def _in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def imports_leaving_the_rules(modules: dict[str, Path]) -> list[str]:
    """``path:line: imports <module>`` for every import, in a module of :data:`RULES_PACKAGE`, of a module that is
    neither in that package nor in the standard library (``sys.stdlib_module_names``), inside functions too."""
    offenders = []
    for name, path in modules.items():
        if not _in_package(name, RULES_PACKAGE):
            continue
        for imp in _imports(name, path):
            if _in_package(imp.target, RULES_PACKAGE) or imp.target.split(".")[0] in sys.stdlib_module_names:
                continue
            offenders.append(f"{_where(modules, name, imp.line)}: imports {imp.target}")
    return offenders


def test_the_rules_import_only_themselves_and_the_standard_library():
    offenders = imports_leaving_the_rules(project_modules())
    assert not offenders, (
        "bridge/rules/ imports only the standard library and bridge.rules (the engines are pure; what they "
        "need lives in bridge/rules/):\n" + "\n".join(offenders)
    )


def test_the_rules_check_reports_file_and_line(tmp_path, monkeypatch):
    """The checker itself: imports of the rest of the bridge and of third-party packages are reported, at the top
    or inside a function, relative or absolute; the standard library and bridge.rules are not; modules outside
    bridge.rules may import anything."""
    import tests.test_layering as layering

    files = {
        "bridge/rules/__init__.py": "",
        "bridge/rules/reader.py": "import json\nfrom bridge.errors import DataError\n",
        "bridge/rules/toy/__init__.py": "from ..reader import At\nfrom . import state\n",
        "bridge/rules/toy/state.py": "from __future__ import annotations\nimport click\n"
                                     "def move():\n    from bridge.session import Session\n"
                                     "    from ... import errors\n",
        "bridge/session.py": "import click\nfrom bridge.rules import reader\n",
    }
    monkeypatch.setattr(layering, "REPO_ROOT", tmp_path)
    modules = {}
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
        modules[_module_name(tmp_path / relative)] = tmp_path / relative
    assert imports_leaving_the_rules(modules) == [
        "bridge/rules/reader.py:2: imports bridge.errors",
        "bridge/rules/toy/state.py:2: imports click",
        "bridge/rules/toy/state.py:4: imports bridge.session",
        "bridge/rules/toy/state.py:5: imports bridge",
    ]


# ------------------------------------------------------------------------------------------------ game names

SOURCE_ROOTS = ("bridge", "tools", "mod", "benchmarks", "tests")
SOURCE_SUFFIXES = (".py", ".lua", ".xml", ".toml")
TOP_LEVEL_FILES = ("pyproject.toml",)


@dataclass(frozen=True)
class GameFootprint:
    """How a game is spelled, and the folders that are its own (its tests among them: ``tests/games/<mod>/``)."""

    names: tuple[str, ...]
    own_folders: tuple[str, ...]       # repository paths (posix), whole subtrees


def _module_folder(module: str) -> str:
    return module.replace(".", "/")


def footprint(game_id: str) -> GameFootprint:
    found = resolve_game(game_id)
    meta = found.meta
    english = meta.name.en
    names = {meta.id, meta.mod, english, re.sub(r"[^0-9A-Za-z]", "", english)}
    folders = {
        f"assets/{found.folder.name}",
        _module_folder(meta.engine),
        _module_folder(meta.builder),
        f"mod/{meta.mod}",
        f"docs/games/{meta.mod}",
        f"tests/games/{meta.mod}",
    }
    return GameFootprint(tuple(sorted(names, key=str.lower)), tuple(sorted(folders)))


def _is_own(path: PurePosixPath, game: GameFootprint) -> bool:
    text = path.as_posix()
    return any(text == folder or text.startswith(folder + "/") for folder in game.own_folders)


def source_files() -> list[PurePosixPath]:
    found = [PurePosixPath(name) for name in TOP_LEVEL_FILES if (REPO_ROOT / name).is_file()]
    for root in SOURCE_ROOTS:
        for folder, dirs, files in os.walk(REPO_ROOT / root):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    found.append(PurePosixPath(Path(folder, name).relative_to(REPO_ROOT).as_posix()))
    return found


def names_of_games_outside_their_folders(games: list[GameFootprint]) -> list[str]:
    """``path:line: names <spelling>: <line text>`` for every line outside a game's folders that names it."""
    offenders = []
    for path in source_files():
        games_here = [g for g in games if not _is_own(path, g)]
        if not games_here:
            continue
        patterns = [(re.compile(re.escape(name), re.IGNORECASE), name) for g in games_here for name in g.names]
        text = (REPO_ROOT / path).read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            hits = sorted({name for pattern, name in patterns if pattern.search(line)})
            if hits:
                offenders.append(f"{path}:{number}: names {', '.join(hits)}: {line.strip()[:100]}")
    return offenders


def test_every_builtin_game_has_a_footprint():
    """The name check below is only as good as the games it knows: there is at least one, with its names."""
    games = builtin_games()
    assert games, "no built-in game found under assets/"
    for game_id in games:
        game = footprint(game_id)
        assert game_id in game.names and game.own_folders


def test_no_source_file_outside_a_game_folder_names_the_game():
    games = [footprint(game_id) for game_id in builtin_games()]
    offenders = names_of_games_outside_their_folders(games)
    assert not offenders, (
        f"{len(offenders)} line(s) outside the games' own folders name a built-in game (shared code must reach a "
        "game through bridge.catalog and its metadata):\n" + "\n".join(offenders)
    )


def test_the_name_check_reports_file_and_line(tmp_path, monkeypatch):
    """The checker itself: a shared file naming a game is reported with its line; the game's folder is not."""
    import tests.test_layering as layering

    (tmp_path / "tools" / "games" / "toy_quest").mkdir(parents=True)
    (tmp_path / "tools" / "games" / "toy_quest" / "deck.py").write_text("NAME = 'Toy Quest'\n", encoding="utf-8")
    (tmp_path / "tools" / "shared.py").write_text("x = 1\nif game == 'toy-quest':\n    pass\n", encoding="utf-8")
    (tmp_path / "tests" / "games" / "toy_quest" / "rules").mkdir(parents=True)
    (tmp_path / "tests" / "games" / "toy_quest" / "rules" / "test_it.py").write_text("ToyQuest()\n", encoding="utf-8")
    (tmp_path / "tests" / "tools").mkdir(parents=True)
    (tmp_path / "tests" / "tools" / "test_toy_quest.py").write_text("ToyQuest()\n", encoding="utf-8")
    (tmp_path / "tests" / "test_shared.py").write_text("# TOYQUEST rules\n", encoding="utf-8")
    monkeypatch.setattr(layering, "REPO_ROOT", tmp_path)
    toy = GameFootprint(("toy-quest", "toy_quest", "Toy Quest", "ToyQuest"),
                        ("tests/games/toy_quest", "tools/games/toy_quest"))
    assert names_of_games_outside_their_folders([toy]) == [
        "tools/shared.py:2: names toy-quest: if game == 'toy-quest':",
        "tests/test_shared.py:1: names ToyQuest: # TOYQUEST rules",
        "tests/tools/test_toy_quest.py:1: names ToyQuest: ToyQuest()",
    ]


# ------------------------------------------------------------------------------------------------ path spelling

def repository_paths() -> list[PurePosixPath]:
    """Every path of the repository as git lists it: the tracked files and the untracked ones it does not ignore
    (a new game's folders count before their first commit). Skips the test outside a git checkout."""
    try:
        done = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                              cwd=REPO_ROOT, capture_output=True, timeout=60)
    except FileNotFoundError:
        pytest.skip("git is not installed: the repository's paths cannot be listed")
    if done.returncode != 0:
        pytest.skip(f"not a git checkout: {done.stderr.decode(errors='replace').strip()}")
    return sorted({PurePosixPath(name) for name in done.stdout.decode("utf-8").split("\0") if name})


def paths_spelling_game_ids(paths: list[PurePosixPath], modules: dict[str, str]) -> list[str]:
    """``path: spells <id> (the module name is <mod>)`` for every path with a folder or file name that holds a
    game's hyphenated id (``modules``: id → module name), case-insensitively."""
    spelled = {game_id: re.compile(re.escape(game_id), re.IGNORECASE)
               for game_id, mod in modules.items() if "-" in game_id and game_id != mod}
    return [f"{path}: spells {game_id} (the module name is {modules[game_id]})"
            for path in paths for game_id, pattern in spelled.items()
            if any(pattern.search(part) for part in path.parts)]


def test_no_path_spells_a_builtin_game_by_its_id():
    modules = {game_id: resolve_game(game_id).meta.mod for game_id in builtin_games()}
    assert any("-" in game_id for game_id in modules), "no built-in game has a hyphenated id: the check checks nothing"
    offenders = paths_spelling_game_ids(repository_paths(), modules)
    assert not offenders, (
        f"{len(offenders)} path(s) spell a built-in game by its id; every path names a game by its module name "
        "([game] mod: docs/games/<mod>/ as mod/<mod>/):\n" + "\n".join(offenders)
    )


def test_the_spelling_check_reports_every_path_and_leaves_the_module_name_alone():
    """The checker itself: the id in a folder's or a file's name is reported, in any case; the module name and
    a game whose id is its module name are not."""
    paths = [PurePosixPath(name) for name in (
        "docs/games/toy-quest/rules.md", "docs/games/toy_quest/rules.md", "docs/examples/Toy-Quest-end.json",
        "tests/games/toy_quest/test_it.py", "mod/chess/global.lua", "README.md",
    )]
    assert paths_spelling_game_ids(paths, {"toy-quest": "toy_quest", "chess": "chess"}) == [
        "docs/games/toy-quest/rules.md: spells toy-quest (the module name is toy_quest)",
        "docs/examples/Toy-Quest-end.json: spells toy-quest (the module name is toy_quest)",
    ]
