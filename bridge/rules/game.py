"""The interface every game implements, its metadata, and the registry of games.

A game is data plus a pure engine (OpenSpiel's split between a game type and its states):

- **Metadata is data**: the ``[game]`` table of ``assets/<game>/game.toml`` (:class:`GameMeta`, read by
  :func:`parse_game_meta`): id, names in the three card languages, player counts, modes, languages, the data
  files, and the Python modules of its engine and builder.
- **An engine** is an object following :class:`Game`; it registers itself next to its own code with
  :func:`register_game` when its module (the ``engine`` of the metadata) is imported, as OpenSpiel's
  ``register_game`` does. :func:`registered_game` finds it by id.
- **A state** follows :class:`GameState`, the same for every game: ``to_move``, ``legal_actions``, ``check``
  (a refusal with its reason), ``apply`` (returning events), ``is_over``, ``outcome``, ``view``,
  ``to_snapshot``, a cheap ``copy``; and optionally ``apply_trusted`` (:func:`trusted_apply` finds it, or falls
  back to ``apply``) and ``apply_quiet``, the same without events (:func:`quiet_apply` finds it, or falls back
  to :func:`trusted_apply`'s choice).
- **Optional capabilities** of an engine are named in :data:`ENGINE_CAPABILITIES`; :func:`engine_capabilities`
  says which a game provides (the build side's, read from the game folder, are
  :data:`tools.games.builder.BUILD_CAPABILITIES`). A shared test asks these, and skips with a reason what a
  game does not declare.

Finding a game folder by id or path and loading its files is I/O and lives in :mod:`bridge.catalog`; this
module is pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence, runtime_checkable

from bridge.rules import reader as r
from bridge.rules.values import plain_repr
from bridge.rules.random import SeededRandom

LANGUAGES: tuple[str, ...] = ("en", "uk", "ru")
"""The card languages every game's texts come in."""

TTS_SEAT_COLOURS: tuple[str, ...] = (
    "White", "Brown", "Red", "Orange", "Yellow", "Green", "Teal", "Blue", "Purple", "Pink",
)
"""The seat colours of Tabletop Simulator, in its own order."""


TOOL_TABLES: tuple[str, ...] = ("selftest", "benchmark", "scripts")
"""Tables of a game's ``game.toml`` that ttsmod's tools read and no engine does: ``[selftest]`` (which objects
``ttsmod selftest`` probes, docs/selftest.md), ``[benchmark]`` (how ``benchmarks/largegame.py`` grows the game
into a large one) and ``[scripts]`` (the Lua file the build gives the objects of each tag, docs/building.md).
Every engine accepts them beside its own tables."""


@plain_repr
@dataclass(frozen=True)
class Names:
    """A text in the three card languages."""

    en: str
    uk: str
    ru: str

    def get(self, lang: str) -> str:
        """The text in ``lang`` (one of :data:`LANGUAGES`)."""
        return getattr(self, lang)

    def to_json(self) -> dict[str, str]:
        return {"en": self.en, "uk": self.uk, "ru": self.ru}


def read_names(at: r.At, value: Any) -> Names:
    """A ``{ en = …, uk = …, ru = … }`` table."""
    if type(value) is dict and len(value) == 3:
        # What the checks below accept, seen at once (a 10,000-card game reads 20,000 of these); anything else
        # takes the checks, which name what is wrong.
        en, uk, ru = value.get("en"), value.get("uk"), value.get("ru")
        if r.is_text(en) and r.is_text(uk) and r.is_text(ru):
            return Names(en, uk, ru)
    found = r.table(at, value)
    for key in found:
        if key not in LANGUAGES:
            raise at.sub(key).error(f"unknown language (expected {', '.join(LANGUAGES)})")
    for lang in LANGUAGES:
        if lang not in found:
            raise at.error(f'missing language "{lang}"')
    return Names(**{lang: r.string(at.sub(lang), found[lang]) for lang in LANGUAGES})


@dataclass(frozen=True)
class GameMeta:
    """The ``[game]`` table of a game's ``game.toml``: what every game declares about itself."""

    id: str
    name: Names
    min_players: int
    max_players: int
    modes: tuple[str, ...]             # the first one is the default
    player_colours: tuple[str, ...]    # TTS seat colours, in seat order
    languages: tuple[str, ...]         # card languages the data has texts in
    data_files: tuple[str, ...]        # the TOML files of the game folder the engine parses, game.toml first
    engine: str | None                 # Python module of the engine (it calls register_game); None: no rules
    builder: str | None                # Python module of the builder (decks, table, mod payload); None: from data
    mod: str                           # folder of the game's Lua under mod/
    sample_data: bool = False

    @property
    def default_mode(self) -> str:
        return self.modes[0]

    @property
    def player_counts(self) -> range:
        """Every player count the game takes, ``min_players`` to ``max_players``: what a test or a tool picks a
        count from (never a number of its own)."""
        return range(self.min_players, self.max_players + 1)


_META_REQUIRED = ("id", "name", "min_players", "max_players", "modes", "player_colours", "data_files")
_META_OPTIONAL = ("engine", "builder", "languages", "mod", "sample_data")
_MODULE = r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z"


def _distinct(at: r.At, values: list[Any], read) -> tuple[str, ...]:
    out: list[str] = []
    for value in values:
        text = read(value)
        if text in out:
            raise at.error(f"{r.show(text)} is listed twice")
        out.append(text)
    return tuple(out)


def parse_game_meta(document: Any, file: str = "game.toml") -> GameMeta:
    """The :class:`GameMeta` of a parsed ``game.toml`` (other tables of the file are the game's own)."""
    import re

    found = r.table(r.At.data(file), document)
    at = r.At.data(file, "[game]")
    meta = r.table(at, found.get("game", r.MISSING))
    r.keys(at, meta, _META_REQUIRED, _META_OPTIONAL)
    ident = r.ident(at.sub("id"), meta["id"])
    name = read_names(at.sub("name"), meta["name"])
    min_players = r.integer(at.sub("min_players"), meta["min_players"], 1)
    max_players = r.integer(at.sub("max_players"), meta["max_players"], 1)
    if max_players < min_players:
        raise at.sub("max_players").error(f"{max_players} is less than min_players ({min_players})")
    modes_at = at.sub("modes")
    modes = _distinct(modes_at, r.array(modes_at, meta["modes"], non_empty=True), lambda v: r.ident(modes_at, v))
    colours_at = at.sub("player_colours")
    colours = _distinct(colours_at, r.array(colours_at, meta["player_colours"]),
                        lambda v: r.choice(colours_at, v, TTS_SEAT_COLOURS, "a TTS seat colour"))
    if len(colours) < max_players:
        raise colours_at.error(f"{len(colours)} colours for up to {max_players} players")
    langs_at = at.sub("languages")
    languages = _distinct(langs_at, r.array(langs_at, meta.get("languages", list(LANGUAGES)), non_empty=True),
                          lambda v: r.choice(langs_at, v, LANGUAGES, "a card language"))
    files_at = at.sub("data_files")
    files = _distinct(files_at, r.array(files_at, meta["data_files"], non_empty=True),
                      lambda v: r.string(files_at, v))
    for index, name_ in enumerate(files):
        if "/" in name_ or "\\" in name_ or not name_.endswith(".toml"):
            raise files_at.sub(index).error(f"{r.show(name_)} is not a TOML file name in the game folder")
    if file not in files:
        raise files_at.error(f"must list {file} itself")
    modules: dict[str, str | None] = {}
    for key in ("engine", "builder"):
        if key not in meta:   # a game drawn from data: no rules (bridge.rules.tableonly), the data's builder
            modules[key] = None
            continue
        text = r.string(at.sub(key), meta[key])
        if not re.match(_MODULE, text):
            raise at.sub(key).error(f"{r.show(text)} is not a Python module name")
        modules[key] = text
    mod = r.ident(at.sub("mod"), meta.get("mod", ident.replace("-", "_")))
    sample = r.boolean(at.sub("sample_data"), meta.get("sample_data", False))
    return GameMeta(ident, name, min_players, max_players, modes, colours, languages, files, modules["engine"],
                    modules["builder"], mod, sample)


# ------------------------------------------------------------------------------------------------ the interface

@runtime_checkable
class Action(Protocol):
    """A move as a value: immutable, comparable, with a text and a JSON form that round-trip."""

    @property
    def player(self) -> int: ...

    def to_json(self) -> dict[str, Any]: ...


class Outcome(Protocol):
    """How a game ended: the winning seats (ties share) and a JSON form."""

    @property
    def winners(self) -> tuple[int, ...]: ...

    def to_json(self) -> dict[str, Any]: ...


@runtime_checkable
class GameState(Protocol):
    """A game in progress, the same for every game."""

    def to_move(self) -> int | None:
        """The seat that acts next (``None`` when the game is over)."""

    def legal_actions(self) -> Sequence[Any]:
        """Every action allowed now, in a stable order."""

    def check(self, action: Any) -> None:
        """Return when ``action`` may be played now, else raise :class:`bridge.rules.errors.IllegalAction` with
        one of the game's ``refusal_reasons`` (the contract's ``legal`` answers with it) or ``InvalidAction``
        for what is no action of the game. It changes nothing."""

    def apply(self, action: Any) -> list[Any]:
        """Play ``action`` and return the events it caused; raise a ``RulesError`` for a refused one."""

    def is_over(self) -> bool: ...

    def outcome(self) -> Outcome | None:
        """The result once :meth:`is_over`, else ``None``."""

    def view(self, player: int) -> dict[str, Any]:
        """What ``player`` may know, as JSON (never another player's secrets)."""

    def to_snapshot(self) -> dict[str, Any]:
        """The whole state as the JSON snapshot the mod sends (``from_snapshot`` reads it back)."""

    def copy(self) -> "GameState":
        """An independent copy, cheap enough for search."""

    # Optional (not part of the runtime check, so a game without it still conforms):
    #
    #   def apply_trusted(self, action) -> list:
    #       """Play ``action``, which the caller took from ``legal_actions()`` of this very state (unchanged
    #       since), without checking it again: the same events and the same state as ``apply(action)``; an
    #       action that is not legal now leaves the state undefined. Random playouts and search use it."""
    #
    # :func:`trusted_apply` returns it, or ``apply`` for a state that has none.
    #
    #   def apply_quiet(self, action) -> None:
    #       """``apply_trusted(action)`` without making the events: the same state after, nothing returned.
    #       Random playouts that read no events use it (making events is a good part of a playout's cost)."""
    #
    # :func:`quiet_apply` returns it, or :func:`trusted_apply`'s choice for a state that has none.


class Policy(Protocol):
    """A way to pick a move, for whichever seat is to move: ``policy(state, legal, rng)`` returns one of ``legal``
    (``state.legal_actions()``), drawing any randomness from ``rng`` (the caller's, never the game's). It may read
    only what ``state.to_move()`` may know (that seat's :meth:`GameState.view`): bots call it on the real game.
    A game's heuristic policy (the optional :meth:`Game.heuristic`) is the bots' "easy" level and their search's
    playout policy."""

    def __call__(self, state: Any, legal: Sequence[Any], rng: SeededRandom) -> Any: ...


def random_policy(state: Any, legal: Sequence[Any], rng: SeededRandom) -> Any:
    """The uniform :class:`Policy`: any legal action, all equally likely."""
    return legal[rng.randbelow(len(legal))]


def heuristic_policy(game: "Game", data: Any) -> Policy:
    """The game's heuristic :class:`Policy` (its optional ``heuristic(data)``), or :func:`random_policy`."""
    make = getattr(game, "heuristic", None)
    return make(data) if make is not None else random_policy


def determinize(game: "Game", state: Any, player: int, seed: int) -> Any:
    """A world ``player`` cannot tell from ``state``: the game's optional ``determinize`` when it has one, else its
    ``redeal_hidden`` (or a plain copy when that hides nothing). Its chance stream (a state's ``rng``, when it has
    one) is reseeded from ``seed`` too, so a search never foresees a draw."""
    sample = getattr(game, "determinize", None)
    other = sample(state, player, seed) if sample is not None else game.redeal_hidden(state, player, seed)
    if other is None:
        other = state.copy()
    if isinstance(getattr(other, "rng", None), SeededRandom):
        other.rng = SeededRandom(SeededRandom(seed ^ 0xD1CE).next_u64())
    return other


def own_actions(legal: Sequence[Any], seat: int | None) -> list[Any]:
    """The actions of ``legal`` that ``seat`` takes (a game may list another seat's optional action beside the
    mover's, as a redraw any seat may ask for); all of them when none names its player."""
    mine = [a for a in legal if getattr(a, "player", seat) == seat]
    return mine or list(legal)


def trusted_apply(state: GameState) -> Callable[[Any], list[Any]]:
    """``state.apply_trusted`` when the game provides it, else ``state.apply``: the fastest way to play actions
    taken from ``state.legal_actions()`` (the optional method is described on :class:`GameState`)."""
    return getattr(state, "apply_trusted", None) or state.apply


def quiet_apply(state: GameState) -> Callable[[Any], Any]:
    """``state.apply_quiet`` when the game provides it, else :func:`trusted_apply`'s: the fastest way to play
    actions taken from ``state.legal_actions()`` when nobody reads the events (what it returns is not used)."""
    return getattr(state, "apply_quiet", None) or trusted_apply(state)


@runtime_checkable
class Game(Protocol):
    """What a game's engine provides; one object per game, registered with :func:`register_game`.

    ``Data`` is the game's own frozen records; ``meta(data)`` is their :class:`GameMeta`. Requests are answered
    by the one contract (:func:`bridge.rules.contract.answer`) over the hooks below;
    :class:`bridge.rules.contract.GameBase` gives a game ``handle`` (that answer) and ``choice_json``'s default.
    """

    id: str
    request_types: tuple[str, ...]
    """The request types the game answers: its own first (an end-of-round ruling, say), then every one of
    :data:`bridge.rules.contract.SHARED_REQUEST_TYPES` in that order. The first is ``ttsmod adjudicate``'s
    default."""

    refusal_reasons: Mapping[str, str]
    """Every ``reason`` code a refused action may carry (``legal``'s ``{"legal": false, "reason"}``), each with
    the cause it names; each game's protocol page lists them."""

    def parse(self, documents: Mapping[str, Any]) -> Any:
        """TOML documents by file name (every :attr:`GameMeta.data_files`) → the game's records; errors name
        file, entry and field (:class:`bridge.rules.errors.DataError`)."""

    def meta(self, data: Any) -> GameMeta: ...

    def new_game(self, data: Any, players: int, *, mode: str | None = None, seed: int = 0) -> GameState: ...

    def from_snapshot(self, data: Any, snapshot: Any) -> GameState:
        """A state from a snapshot whose envelope the contract has checked and whose engine-written keys it has
        filled in; a bad one raises :class:`bridge.rules.errors.SnapshotError` with its path. Its
        ``to_snapshot()`` gives the snapshot back (keys in the engine's order)."""

    def snapshot_schema(self, data: Any) -> Any:
        """The snapshot's declared shape (a :class:`bridge.rules.schema.Record`, the envelope's fields first:
        :func:`bridge.rules.contract.envelope`): ``from_snapshot`` reads and ``to_snapshot`` writes through it, so
        every key it declares is checked by path and every snapshot written reads back. The protocol page's
        ``snapshot key`` table lists its top-level keys."""

    def handle(self, data: Any, request_type: str, body: Any) -> dict[str, Any]:
        """Answer one bridge request (JSON in, JSON out): :func:`bridge.rules.contract.answer`, which
        :class:`bridge.rules.contract.GameBase` provides."""

    def score(self, data: Any, state: Any) -> dict[str, Any]:
        """The ``score`` answer: the score panel of ``state`` (standings, leaders, what decides), as JSON."""

    def choice_json(self, data: Any, player: int, answer: str) -> dict[str, Any]:
        """An answer of seat ``player`` to a decision a ruling asked for (``ttsmod adjudicate --choice
        PLAYER:ANSWER``), as the JSON entry of a request's ``choices``; ``InvalidAction`` when the game asks no
        such decisions or ``answer`` cannot be one."""

    def action_from_json(self, data: Any, value: Any) -> Any: ...

    def action_from_text(self, data: Any, text: str) -> Any: ...

    def components(self, state: Any) -> Mapping[str, int]:
        """Counts of the physical components, which no action changes (conservation)."""

    def redeal_hidden(self, state: Any, player: int, seed: int) -> Any:
        """A copy of ``state`` in which what ``player`` cannot see is dealt anew (same counts); ``None`` when
        nothing is hidden from ``player``. A view, and the events that follow, must not tell the two apart, and the
        copy depends only on what ``player`` sees and ``seed`` (deal from sorted pools): the search samples its
        worlds with it when the game has no ``determinize``, and must not learn what is hidden from the order."""

    # Optional hooks of the contract (bridge/rules/contract.py), each named in ENGINE_CAPABILITIES:
    #
    #   def setup(self, data, players, *, mode, seed, options) -> (state, events):
    #       """A new game for ``setup``; ``options`` is the request body (the game's own options beside
    #       players, seed and mode). Default: ``new_game``, no events."""
    #
    #   def snapshot_defaults(self, data) -> Mapping[str, Callable[[dict], Any]]:
    #       """The engine-written keys a snapshot may leave out, each with its value derived from the snapshot
    #       (``rng`` is the contract's own). Default: none."""
    #
    #   def next_extras(self, state) -> dict:        # fields of ``next`` beside player and legal
    #   def ruling_extras(self, state, events) -> dict:   # fields of a ruling beside the shared ones
    #   def requests(self, data) -> Mapping[str, Callable[[dict], dict]]:
    #       """Handlers of the game's own request types (and of a shared one it answers its own way)."""
    #
    # Optional (not part of the runtime check), for the bots (docs/bots.md), each named in ENGINE_CAPABILITIES
    # with search_levels (a mapping of bot level to search iterations) and scores(state) (each seat's score):
    #
    #   def determinize(self, state, player, seed):
    #       """A copy of ``state`` with everything ``player`` cannot see dealt anew, consistently with what they
    #       see (face-down pieces included, unlike ``redeal_hidden``, which keeps what ``player``'s next action
    #       could reveal), and a function of ``player``'s view and ``seed`` alone: two states with the same view
    #       give the same world. Search samples its worlds with it (:func:`determinize`)."""
    #
    #   def heuristic(self, data) -> Policy:
    #       """The game's heuristic :class:`Policy`: the "heuristic"/"easy" bot and the search's playouts."""

    def summary(self, state: Any, actions: Sequence[Any]) -> dict[str, Any]:
        """Figures of one finished game for balance runs (``ttsmod simulate``), as JSON: ``state`` is the game at
        its end, ``actions`` every action applied from the start, in order."""

    def aggregate(self, summaries: Sequence[dict[str, Any]], players: int) -> dict[str, Any]:
        """The figures of many games (their :meth:`summary`), as JSON, in the order ``ttsmod simulate`` prints
        them after its own run fields; :func:`bridge.rules.playout.seat_figures` gives the win figures."""


# ------------------------------------------------------------------------------------------ optional capabilities

@dataclass(frozen=True)
class Capability:
    """An optional part of the game interface: its ``name`` (what a test or a tool asks for) and what a game
    provides to have it (``declared_by``). docs/development.md ("The game interface") says what a game without it
    loses."""

    name: str
    declared_by: str


ENGINE_CAPABILITIES: tuple[Capability, ...] = (
    Capability("setup", "Game.setup(data, players, *, mode, seed, options)"),
    Capability("snapshot_defaults", "Game.snapshot_defaults(data)"),
    Capability("next_extras", "Game.next_extras(state)"),
    Capability("ruling_extras", "Game.ruling_extras(state, events)"),
    Capability("requests", "Game.requests(data)"),
    Capability("heuristic", "Game.heuristic(data)"),
    Capability("determinize", "Game.determinize(state, player, seed)"),
    Capability("search_levels", "Game.search_levels"),
    Capability("scores", "Game.scores(state)"),
)
"""The optional members of a game's engine object, each named as the engine defines it (the contract, the bots
and ``ttsmod arena`` look each up by that name and fall back when it is absent)."""


def engine_capabilities(game: Game) -> frozenset[str]:
    """The names of :data:`ENGINE_CAPABILITIES` that ``game`` provides (defines, not as ``None``)."""
    return frozenset(c.name for c in ENGINE_CAPABILITIES if getattr(game, c.name, None) is not None)


_GAMES: dict[str, Game] = {}


def register_game(game: Game) -> Game:
    """Make ``game`` findable by its id (done once, where the game's engine is defined). Returns it."""
    if not isinstance(game, Game):
        raise TypeError(f"{game!r} does not provide the Game interface")
    _GAMES[game.id] = game
    return game


def registered_game(game_id: str) -> Game:
    """The engine registered under ``game_id``; ``KeyError`` when none is."""
    return _GAMES[game_id]


def registered_games() -> Iterable[str]:
    """Ids of the engines registered so far (those whose module has been imported), sorted."""
    return sorted(_GAMES)
