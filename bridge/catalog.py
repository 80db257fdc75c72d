"""GAME argument → game folder → its metadata, its engine and its validated records.

A GAME is a built-in game id (a folder under :func:`bridge.paths.assets_dir` whose ``game.toml`` has that
``[game] id``) or the path of any folder laid out the same way, so a designer can work on a copy of the data —
or a new game can live anywhere (a test folder, a designer's repository). The ``[game]`` table names the
engine's module; importing it registers the engine (:func:`bridge.rules.game.register_game`).

This is the I/O edge of the rules: it reads files and imports modules; the engines' ``parse`` stays pure.
Every problem raises :class:`bridge.errors.DataError` naming the file (and entry and field), e.g.
``scenes.toml: scene "mill": slots[2].humours: "bile" is not a humour``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import sys
import tomllib
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Mapping

from bridge import spreadsheets
from bridge.errors import DataError
from bridge.fsio import atomic_write_bytes
from bridge.paths import assets_dir
from bridge.rules.game import Game, GameMeta, parse_game_meta, registered_game
from bridge.rules.reader import At, show

MAX_DATA_FILE_BYTES = 16 * 1024 * 1024
"""Largest game data file read: the sample files are a few kilobytes."""

MAX_TOML_NESTING = 100  # well under what tomllib survives (~150 levels of inline tables)


@dataclass(frozen=True)
class GameFolder:
    """A game folder and its ``[game]`` metadata."""

    folder: Path
    meta: GameMeta

    def engine(self) -> Game:
        """The game's engine: its module imported (which registers it), then found by id."""
        return engine_of(self.meta, self.folder)


@dataclass(frozen=True)
class EntryList:
    """A list of a data file read entry by entry (:func:`parse_toml_cached`): the file holds a head and then
    ``[[table]]`` entries of this one list only. ``head`` is the digest of the head's text, ``digests`` that of each
    entry's exact text, in the file's order (the list's order)."""

    file: str
    table: str
    head: str
    digests: tuple[str, ...]


@dataclass(frozen=True)
class LoadedGame:
    """A game folder with its engine and its validated records.

    ``entries``: (file, list) → :class:`EntryList` for each list whose entries a load with a cache read one by one
    and that the records were made from as read (no spreadsheet replaced it); empty without a cache."""

    folder: Path
    meta: GameMeta
    engine: Game
    data: Any
    entries: Mapping[tuple[str, str], EntryList] = field(default_factory=dict)


def builtin_games() -> dict[str, Path]:
    """Built-in game id → its folder, for every folder of :func:`assets_dir` holding a readable ``game.toml``."""
    root = assets_dir()
    found: dict[str, Path] = {}
    if not root.is_dir():
        return found
    for folder in sorted(p for p in root.iterdir() if (p / "game.toml").is_file()):
        try:
            meta = parse_game_meta(read_toml(folder, "game.toml"))
        except DataError:
            continue   # a broken built-in folder is reported when it is asked for by path, not here
        found.setdefault(meta.id, folder.resolve())
    return found


def resolve_game(game: str | os.PathLike[str]) -> GameFolder:
    """The folder and metadata of GAME: a built-in id (which wins over a same-named folder) or a folder path."""
    if isinstance(game, str):
        builtin = builtin_games().get(game)
        if builtin is not None:
            return GameFolder(builtin, parse_game_meta(read_toml(builtin, "game.toml")))
    path = Path(game)
    if path.is_dir():
        if (path / "game.toml").is_file():
            folder = path.resolve()
            return GameFolder(folder, parse_game_meta(read_toml(folder, "game.toml")))
        raise DataError(str(game), None, None, "this folder has no game.toml")
    known = ", ".join(builtin_games()) or "none"
    raise DataError(str(game), None, None, f"not a built-in game ({known}) nor a game folder")


def resolve_game_dir(game: str | os.PathLike[str]) -> Path:
    """The absolute folder of GAME (see :func:`resolve_game`)."""
    return resolve_game(game).folder


def import_game_module(module: str, folder: Path | None) -> None:
    """Import ``module``, a game's engine or builder: an installed module (the built-in games'), or one kept in
    the game folder itself (``folder`` is appended to ``sys.path``, so it never shadows another module). A game
    folder's Python is code like any plugin's: load only folders you trust."""
    if folder is not None and str(folder) not in sys.path:
        sys.path.append(str(folder))
    importlib.import_module(module)


def engine_of(meta: GameMeta, folder: Path | None = None) -> Game:
    """Import the engine module ``meta.engine`` names (see :func:`import_game_module`) and return the engine it
    registered under ``meta.id``; a game that names none gets :class:`bridge.rules.tableonly.TableOnlyGame`."""
    at = At.data("game.toml", "[game]")
    if meta.engine is None:   # a table drawn from data alone: an engine that answers nothing
        from bridge.rules.tableonly import table_only_engine

        return table_only_engine(meta.id)
    try:
        import_game_module(meta.engine, folder)
    except ImportError as exc:
        raise at.sub("engine").error(f"{show(meta.engine)} cannot be imported: {exc}") from None
    try:
        return registered_game(meta.id)
    except KeyError:
        raise at.sub("engine").error(f"{show(meta.engine)} registers no game {show(meta.id)}") from None


def load_documents(folder: Path, meta: GameMeta) -> dict[str, Any]:
    """Every data file of the game, parsed: file name → TOML document (lists game.toml's ``[sheets]`` names read
    from their spreadsheets: :mod:`bridge.spreadsheets`)."""
    return read_documents(folder, meta)[0]


def read_documents(folder: Path, meta: GameMeta, *,
                   cache: TomlCache | None = None) -> tuple[dict[str, Any], spreadsheets.Origins]:
    """:func:`load_documents`, and where each record read from a spreadsheet came from. ``cache``: see
    :func:`read_toml`."""
    first = "game.toml"   # parse_game_meta makes every game list it
    read = partial(read_toml, cache=cache) if cache is not None else read_toml
    documents = {first: read(folder, first)}
    origins = spreadsheets.apply_sheets(folder, first, documents, read, meta.data_files)
    for name in meta.data_files:
        if name not in documents:
            documents[name] = read(folder, name)
    return {name: documents[name] for name in meta.data_files}, origins


def load(game: str | os.PathLike[str], *, cache: TomlCache | None = None) -> LoadedGame:
    """Resolve GAME, import its engine and parse its data files into its records; an error about a record read
    from a spreadsheet names its file, sheet, row and column. ``cache`` (a build's) gives the parsed entries of
    long data files kept by an earlier load and takes this load's (:func:`read_toml`); the records are the
    same."""
    found = resolve_game(game)
    engine = found.engine()
    documents, origins = read_documents(found.folder, found.meta, cache=cache)
    try:
        data = engine.parse(documents)
    except DataError as exc:
        raise origins.locate(exc) from None
    entries: dict[tuple[str, str], EntryList] = {}
    for name, (entry_list, listed) in (cache.entries if cache is not None else {}).items():
        # the very list read entry by entry, not one a spreadsheet put in its place
        if documents.get(name, {}).get(entry_list.table) is listed:
            entries[(name, entry_list.table)] = entry_list
    return LoadedGame(found.folder, found.meta, engine, data, entries)


def require_rules(meta: GameMeta, command: str) -> None:
    """:class:`bridge.rules.errors.NoRulesError` when the game has no rules engine (a table drawn from data):
    ``command`` (``simulate``, ``adjudicate``, …) needs one."""
    if meta.engine is None:
        from bridge.rules.errors import NoRulesError

        raise NoRulesError(f"{meta.id} has no rules engine (its game.toml names no [game] engine): ttsmod "
                           f"{command} needs one. It is a table to play by hand: build it with ttsmod build, print "
                           "it with ttsmod pnp; docs/development.md (Adding a game) says how to add rules.")


def load_game(game: str | os.PathLike[str]) -> Any:
    """The validated records of GAME (``load(game).data``)."""
    return load(game).data


def read_toml(folder: Path, name: str, *, cache: TomlCache | None = None) -> dict[str, Any]:
    """``folder/name`` parsed as TOML; a missing, huge, unreadable, too deeply nested or invalid file raises
    :class:`DataError` naming it.

    With ``cache``, a file made of many ``[[table]]`` entries is parsed entry by entry, each entry's value kept
    in the cache under the hash of its exact text (:func:`parse_toml_cached`): after one entry is edited only
    that entry is parsed again. The document is the same as a whole parse gives; any doubt means a whole
    parse, so every error is the whole parse's error.
    """
    path = Path(folder) / name
    if not path.is_file():
        raise DataError(name, None, None, f"file not found in the game folder {Path(folder).name}/")
    text = ""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_DATA_FILE_BYTES + 1)
        if len(raw) > MAX_DATA_FILE_BYTES:
            raise DataError(name, None, None, f"larger than {MAX_DATA_FILE_BYTES // (1024 * 1024)} MB; game data "
                                              "files are a few kilobytes")
        text = raw.decode("utf-8")
        if cache is not None:
            cache.entries.pop(name, None)
            found: dict[str, Any] = {}
            cached = parse_toml_cached(text, cache.file_for(name), cache.pending, entries=found)
            if cached is not None:
                if found:
                    cache.entries[name] = (EntryList(name, found["table"], found["head"], found["digests"]),
                                           cached[found["table"]])
                return cached
        return tomllib.loads(text)
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively: a few hundred levels exhaust the stack.
        line = deep_nesting_line(text, MAX_TOML_NESTING)
        where = f"line {line}: " if line else ""
        raise DataError(name, None, None, f"{where}arrays or inline tables nested too deeply to read "
                                          f"(more than {MAX_TOML_NESTING} levels)") from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(name, None, None, f"invalid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise DataError(name, None, None, "not UTF-8 text") from None
    except OSError as exc:
        raise DataError(name, None, None, f"cannot read: {exc.strerror or exc}") from None


TOML_CACHE = "data"
"""The folder of a cache directory that holds the parsed entries of the data files (:func:`parse_toml_cached`)."""

TOML_CACHE_MIN_ENTRIES = 64
"""Files with fewer ``[[table]]`` entries are parsed whole: the cache would not pay for itself."""

TOML_CACHE_SLACK = 0.005
"""The share of a file's entries that may be parsed again at each load (new since its cache was written) before
the cache is written again: 50 of 10,000 entries are 50 ms of parsing, the rewrite about as much."""

_ENTRY_HEADER = re.compile(r"^\[\[([A-Za-z0-9_-]+)\]\][ \t]*\r?$", re.M)
_CACHE_FORMAT = f"ttsmod toml entries 1, python {sys.version_info[0]}.{sys.version_info[1]}"


class TomlCache:
    """The parsed entries of long data files, kept between loads in ``folder/data/`` (a build's ``.cache/``).

    A load reads what earlier loads kept and leaves what it parsed in :attr:`pending`; :meth:`save` writes it,
    which the build does only once it has written its save (a failed build leaves no new file). :attr:`entries`:
    each file read entry by entry whose entries are all of one list → its :class:`EntryList` and the list read
    (:attr:`LoadedGame.entries`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder) / TOML_CACHE
        self.pending: dict[Path, bytes] = {}
        self.entries: dict[str, tuple[EntryList, list]] = {}

    def file_for(self, name: str) -> Path:
        return self.folder / f"{hashlib.sha256(name.encode('utf-8')).hexdigest()[:24]}.json"

    def save(self) -> None:
        """Write the pending cache files (each atomically); a file that cannot be written is left out."""
        for path, raw in self.pending.items():
            _write_cache_file(path, raw)
        self.pending.clear()


def _write_cache_file(path: Path, raw: bytes) -> None:
    try:
        atomic_write_bytes(path, raw, durable=False)   # makes the folder when missing
    except OSError:
        pass   # a cache: the next load parses the file again


def parse_toml_cached(text: str, cache_file: Path, pending: dict[Path, bytes] | None = None, *,
                      entries: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """``tomllib.loads(text)`` for a TOML text made of a head and many ``[[name]]`` entries, parsed piece by piece
    with each piece's value looked up first in ``cache_file`` (by the hash of its exact text), which is then
    rewritten to hold this text's pieces; None when the text is not such a file or anything is in doubt (the
    caller then parses it whole, which also gives any error its place in the whole file). With ``pending``, the
    new cache file's bytes are put there under ``cache_file`` instead of written.

    Why the pieces give the whole parse's document: a piece starts at a line that is exactly ``[[name]]`` and
    must parse to ``{name: [one table]}``; every table header is a full path, so nothing in it depends on what
    came before, and its ``[name.…]`` sub-tables belong to its own entry. A cut inside a multi-line string or
    array leaves the piece before it unterminated, which fails to parse (so: a whole parse). The head must not
    define any of the entry names (a whole parse would refuse the ``[[name]]`` that follows). Values are kept as
    JSON, which returns strings, numbers (floats exactly), booleans, lists and tables as they were; a file with
    dates or times is not cached.

    ``entries``: when the entries are all of one list, it gets ``table`` (the list's name), ``head`` (the head's
    digest) and ``digests`` (each entry's, in order): the digest of a piece names its exact text.
    """
    headers = list(_ENTRY_HEADER.finditer(text))
    if len(headers) < TOML_CACHE_MIN_ENTRIES:
        return None
    starts = [m.start() for m in headers] + [len(text)]
    pieces = [("", text[:starts[0]])] + [(m.group(1), text[starts[i]:starts[i + 1]]) for i, m in enumerate(headers)]
    try:
        stored = json.loads(cache_file.read_bytes())
        known = stored["pieces"] if stored.get("format") == _CACHE_FORMAT else {}
        if not isinstance(known, dict):
            known = {}
    except (OSError, ValueError, AttributeError, KeyError, TypeError, RecursionError):
        known = {}
    names = {name for name, _ in pieces[1:]}
    kept: dict[str, Any] = {}
    values = []
    digests: list[str] = []
    for name, piece in pieces:
        digest = hashlib.blake2b(piece.encode("utf-8"), digest_size=16).hexdigest()
        value = known.get(digest)
        if value is None:
            try:
                value = tomllib.loads(piece)
            except (tomllib.TOMLDecodeError, RecursionError, ValueError):
                return None
        if not name:
            ok = isinstance(value, dict) and names.isdisjoint(value)
        else:
            listed = value.get(name) if isinstance(value, dict) and len(value) == 1 else None
            ok = isinstance(listed, list) and len(listed) == 1 and isinstance(listed[0], dict)
        if not ok:
            return None
        kept[digest] = value
        values.append((name, value))
        digests.append(digest)
    document: dict[str, Any] = {}
    for name, value in values:
        if name:
            document.setdefault(name, []).append(value[name][0])
        else:
            document.update(value)
    if entries is not None and len(names) == 1:
        entries.update(table=next(iter(names)), head=digests[0], digests=tuple(digests[1:]))
    if worth_rewriting(kept.keys(), known.keys()):
        try:
            raw = json.dumps({"format": _CACHE_FORMAT, "pieces": kept}, ensure_ascii=False,
                             separators=(",", ":")).encode("utf-8")
        except (TypeError, ValueError):   # dates and times have no JSON form: this file is not cached
            raw = None
        if raw is not None and pending is not None:
            pending[cache_file] = raw
        elif raw is not None:
            _write_cache_file(cache_file, raw)
    return document


def worth_rewriting(kept, known, share: float = TOML_CACHE_SLACK) -> bool:
    """Whether a cache file holding the entries ``known`` (a set of keys) is rewritten to hold the ``kept`` ones.

    Rewriting is encoding every entry again (megabytes of JSON for a 10,000-card file): after an edit of a few
    entries it cost more than working those out again at each load until more add up. So a few new entries
    (at most ``share`` of the entries, and at least 8) are left out of it, and as many entries no longer used
    are left in it; past that, or when nothing was kept yet, it is rewritten whole. The parsed-entry cache uses
    it, and so does a table's card-values memo (:meth:`tools.tablememo.CardMemo.worth_keeping`)."""
    if kept == known:
        return False
    slack = max(8, int(len(kept) * share))
    return not known or len(kept - known) > slack or len(known - kept) > slack


def deep_nesting_line(text: str, limit: int) -> int | None:
    """The line where ``[``/``{`` nesting first goes past ``limit``, skipping strings and comments; or None.

    Only used to point at the place once tomllib has given up; a rough scan of TOML's lexical rules is enough.
    """
    depth, line, i, n = 0, 1, 0, len(text)
    while i < n:
        char = text[i]
        if char == "\n":
            line += 1
        elif char == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif char in "\"'":
            quote = char * 3 if text.startswith(char * 3, i) else char
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if text[j] == "\\" and char == '"':
                    j += 1
                elif text[j] == "\n":
                    line += 1
                j += 1
            i = j + len(quote)
            continue
        elif char in "[{":
            depth += 1
            if depth > limit:
                return line
        elif char in "]}":
            depth -= 1
        i += 1
    return None


def asset_path(folder: Path, relative: str, *, file: str, entry: str | None, field: str | None) -> Path:
    """The absolute path of ``relative`` (an art file named in the data) inside the game ``folder``.

    ``relative`` must be a non-empty path with ``/`` separators, relative to ``folder``; after resolving ``..``
    and symbolic links it must still lie inside ``folder``.  Otherwise :class:`DataError` (``file``, ``entry``,
    ``field``) is raised.  Whether the file exists is not checked here.
    """
    at = At.data(file, entry, field)
    if not isinstance(relative, str) or not relative.strip():
        raise at.error(f"expected a relative file path, got {show(relative)}")
    if "\\" in relative:
        raise at.error(f"{show(relative)}: use / to separate folders")
    if PurePosixPath(relative).is_absolute() or PureWindowsPath(relative).drive:
        raise at.error(f"{show(relative)} must be relative to the game folder")
    base = Path(folder).resolve()
    target = (base / relative).resolve()
    if not target.is_relative_to(base):
        raise at.error(f"{show(relative)} leads outside the game folder")
    return target
