"""Pebble Race: the toy game of the tests, on the shared game interface and nothing else.

Each player holds a hand of pebble cards. On their turn a player plays one (their runner moves its value along
the track, and they draw a new card while the deck lasts) or passes. The game ends when every player has passed
in a row or no one holds a card; the runners furthest along win. Hands and the deck are hidden.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

from bridge.rules import reader as r
from bridge.rules import schema
from bridge.rules.contract import SHARED_REQUEST_TYPES, GameBase, envelope
from bridge.rules.errors import IllegalAction, InvalidAction, SnapshotError
from bridge.rules.game import TOOL_TABLES, GameMeta, Names, parse_game_meta, read_names, register_game
from bridge.rules.playout import seat_figures
from bridge.rules.random import SeededRandom

GAME_ID = "pebble-race"


# ------------------------------------------------------------------------------------------------------ data

@dataclass(frozen=True)
class Pebble:
    id: str
    value: int
    copies: int
    title: Names


@dataclass(frozen=True)
class PebbleData:
    info: GameMeta
    hand_size: int
    pebbles: tuple[Pebble, ...]

    def value(self, pebble: str) -> int:
        return next(p.value for p in self.pebbles if p.id == pebble)

    def deck(self) -> list[str]:
        return [p.id for p in self.pebbles for _ in range(p.copies)]


def parse(documents: Mapping[str, Any]) -> PebbleData:
    info = parse_game_meta(documents["game.toml"])
    game = r.top("game.toml", documents["game.toml"], ("game", "rules"), TOOL_TABLES)
    rules_at = r.At.data("game.toml", "[rules]")
    rules = r.table(rules_at, game["rules"])
    r.keys(rules_at, rules, ("hand_size",))
    hand_size = r.integer(rules_at.sub("hand_size"), rules["hand_size"], 1)
    doc = r.top("pebbles.toml", documents["pebbles.toml"], ("pebbles",))
    items = r.array(r.At.data("pebbles.toml", None, "pebbles"), doc["pebbles"], non_empty=True)
    pebbles, ats = [], []
    for index, item in enumerate(items):
        at = r.At.data("pebbles.toml", r.entry_name("pebble", "pebbles", item, index))
        found = r.table(at, item)
        r.keys(at, found, ("id", "value", "copies", "title"))
        pebbles.append(Pebble(r.ident(at.sub("id"), found["id"]), r.integer(at.sub("value"), found["value"], 1),
                              r.integer(at.sub("copies"), found["copies"], 1),
                              read_names(at.sub("title"), found["title"])))
        ats.append(at)
    r.check_unique(ats, [p.id for p in pebbles], "pebble", "pebbles")
    total = sum(p.copies for p in pebbles)
    if total < hand_size * info.max_players:
        raise r.At.data("pebbles.toml").error(f"{total} cards cannot fill {info.max_players} hands of {hand_size}")
    return PebbleData(info, hand_size, tuple(pebbles))


# ------------------------------------------------------------------------------------------------------ actions

@dataclass(frozen=True)
class Play:
    name: ClassVar[str] = "play"
    player: int
    pebble: str

    def __str__(self) -> str:
        return f"play {self.player} {self.pebble}"

    def to_json(self) -> dict[str, Any]:
        return {"action": "play", "player": self.player, "pebble": self.pebble}


@dataclass(frozen=True)
class Pass:
    name: ClassVar[str] = "pass"
    player: int

    def __str__(self) -> str:
        return f"pass {self.player}"

    def to_json(self) -> dict[str, Any]:
        return {"action": "pass", "player": self.player}


def _seat(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidAction(f"a player is a seat number, not {value!r}")
    return value


def action_from_json(value: Any) -> Play | Pass:
    if not isinstance(value, dict):
        raise InvalidAction("an action must be a JSON object")
    kind, player = value.get("action"), _seat(value.get("player"))
    if kind == "play" and isinstance(value.get("pebble"), str):
        return Play(player, value["pebble"])
    if kind == "pass":
        return Pass(player)
    raise InvalidAction(f"cannot read action {value!r}")


def action_from_text(text: str) -> Play | Pass:
    words = text.split()
    if len(words) == 3 and words[0] == "play" and words[1].isdigit():
        return Play(int(words[1]), words[2])
    if len(words) == 2 and words[0] == "pass" and words[1].isdigit():
        return Pass(int(words[1]))
    raise InvalidAction(f"cannot read action {text!r}")


# ------------------------------------------------------------------------------------------------------ state

@dataclass(frozen=True)
class Outcome:
    winners: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners)}


class PebbleState:
    """A game of Pebble Race."""

    def __init__(self, data: PebbleData, deck: list[str], hands: list[list[str]],
                 played: list[tuple[int, str]] | None = None, active: int = 0, passes: int = 0) -> None:
        self.data, self.deck, self.hands = data, deck, hands
        self.played = played if played is not None else []     # the track: (seat, pebble) in play order
        self.active, self.passes = active, passes

    @property
    def tracks(self) -> list[int]:
        """How far each runner is along the track: the values of the pebbles its player played."""
        out = [0] * len(self.hands)
        for seat, pebble in self.played:
            out[seat] += self.data.value(pebble)
        return out

    # -- the shared interface
    def to_move(self) -> int | None:
        return None if self.is_over() else self.active

    def is_over(self) -> bool:
        return self.passes >= len(self.hands) or not any(self.hands)

    def legal_actions(self) -> list[Play | Pass]:
        if self.is_over():
            return []
        seat = self.active
        return [Play(seat, p) for p in sorted(set(self.hands[seat]))] + [Pass(seat)]

    def check(self, action: Any) -> None:
        """Raise :class:`IllegalAction`, with its reason, unless ``action`` may be played now."""
        if not isinstance(action, (Play, Pass)):
            raise InvalidAction(f"not a Pebble Race action: {action!r}")
        if self.is_over():
            raise IllegalAction("the game is over", "game_over")
        if action.player != self.active:
            raise IllegalAction(f"it is seat {self.active}'s turn", "not_your_turn")
        if isinstance(action, Play) and action.pebble not in self.hands[action.player]:
            raise IllegalAction(f"seat {action.player} holds no {action.pebble}", "not_in_hand")

    def apply(self, action: Any) -> list[dict[str, Any]]:
        self.check(action)
        events: list[dict[str, Any]] = []
        if isinstance(action, Play):
            hand = self.hands[action.player]
            hand.remove(action.pebble)
            self.played.append((action.player, action.pebble))
            self.passes = 0
            events.append({"event": "played", "player": action.player, "pebble": action.pebble,
                           "track": self.tracks[action.player]})
            if self.deck:
                hand.append(self.deck.pop(0))
                events.append({"event": "drew", "player": action.player})
        else:
            self.passes += 1
            events.append({"event": "passed", "player": action.player})
        self.active = (self.active + 1) % len(self.hands)
        if self.is_over():
            events.append({"event": "game_ended", "winners": list(self.outcome().winners)})
        return events

    def outcome(self) -> Outcome | None:
        if not self.is_over():
            return None
        best = max(self.tracks)
        return Outcome(tuple(s for s, t in enumerate(self.tracks) if t == best))

    def view(self, player: int) -> dict[str, Any]:
        tracks = self.tracks
        return {"players": [{"seat": s, "hand": sorted(h) if s == player else None, "hand_size": len(h),
                             "track": tracks[s]} for s, h in enumerate(self.hands)],
                "played": [[s, p] for s, p in self.played], "deck_size": len(self.deck), "active": self.active,
                "passes": self.passes}

    def to_snapshot(self) -> dict[str, Any]:
        return schema.write(snapshot_schema(self.data), {
            "ttsmod_snapshot": 1, "game": GAME_ID, "mode": "standard", "deck": self.deck,
            "players": [{"seat": s, "hand": h} for s, h in enumerate(self.hands)],
            "played": [{"player": s, "pebble": p} for s, p in self.played],
            "active": self.active, "passes": self.passes})

    def copy(self) -> "PebbleState":
        return PebbleState(self.data, list(self.deck), [list(h) for h in self.hands], list(self.played),
                           self.active, self.passes)


def snapshot_schema(data: PebbleData) -> schema.Record:
    """The snapshot: the deck, each seat's hand, the pebbles played (by whom), whose move it is, the passes."""
    pebble = schema.OneOf(tuple(sorted({p.id for p in data.pebbles})), "a pebble")
    pebbles = schema.ListOf(pebble, what="pebbles")
    F = schema.Field
    return schema.Record({
        **envelope(GAME_ID, data.info.modes),
        "deck": F(pebbles, doc="the draw deck"),
        "players": F(schema.ListOf(schema.Record({"seat": F(schema.Integer(0), None), "hand": F(pebbles)}),
                                   min_length=data.info.min_players, max_length=data.info.max_players,
                                   count_as="players", what="players"), doc="the seats, in seat order"),
        "played": F(schema.ListOf(schema.Record({"player": F(schema.Seat()), "pebble": F(pebble)})),
                    doc="the pebbles played, in order"),
        "active": F(schema.Seat(), doc="the seat to move"),
        "passes": F(schema.Integer(0), doc="passes in a row"),
    })


def from_snapshot(data: PebbleData, snapshot: Any) -> PebbleState:
    """The state of a snapshot read through :func:`snapshot_schema`; every pebble must be somewhere."""
    tree = schema.read(snapshot_schema(data), snapshot)
    deck, hands = tree["deck"], [entry["hand"] for entry in tree["players"]]
    played = [(entry["player"], entry["pebble"]) for entry in tree["played"]]
    if Counter(deck + [p for h in hands for p in h] + [p for _, p in played]) != Counter(data.deck()):
        raise SnapshotError("", "the cards on the table are not the deck's cards")
    return PebbleState(data, deck, hands, played, tree["active"], tree["passes"])


def new_game(data: PebbleData, players: int, *, mode: str | None = None, seed: int = 0) -> PebbleState:
    if not data.info.min_players <= players <= data.info.max_players:
        raise InvalidAction(f"{players} players (this game takes {data.info.min_players} to "
                            f"{data.info.max_players})")
    if mode not in (None, *data.info.modes):
        raise InvalidAction(f"no mode {mode!r}")
    deck = data.deck()
    SeededRandom(seed).shuffle(deck)
    hands = [deck[i * data.hand_size:(i + 1) * data.hand_size] for i in range(players)]
    return PebbleState(data, deck[players * data.hand_size:], hands)


# ------------------------------------------------------------------------------------------------------ the game

class PebbleRace(GameBase):
    id = GAME_ID
    request_types = SHARED_REQUEST_TYPES
    refusal_reasons = {
        "game_over": "the game is over",
        "not_your_turn": "another seat is to move",
        "not_in_hand": "the player holds no such pebble",
    }

    def parse(self, documents: Mapping[str, Any]) -> PebbleData:
        return parse(documents)

    def meta(self, data: PebbleData) -> GameMeta:
        return data.info

    def new_game(self, data: PebbleData, players: int, *, mode: str | None = None, seed: int = 0) -> PebbleState:
        return new_game(data, players, mode=mode, seed=seed)

    def from_snapshot(self, data: PebbleData, snapshot: Any) -> PebbleState:
        return from_snapshot(data, snapshot)

    def snapshot_schema(self, data: PebbleData) -> schema.Record:
        return snapshot_schema(data)

    def score(self, data: PebbleData, state: PebbleState) -> dict[str, Any]:
        """How far each runner is, and who leads."""
        best = max(state.tracks)
        return {"standings": [{"player": s, "track": t} for s, t in enumerate(state.tracks)],
                "leaders": [s for s, t in enumerate(state.tracks) if t == best]}

    def snapshot_defaults(self, data: PebbleData) -> dict[str, Any]:
        """``passes`` in a row is the engine's count: none yet when the mod does not know it."""
        return {"passes": lambda snapshot: 0}

    def action_from_json(self, data: PebbleData, value: Any) -> Play | Pass:
        return action_from_json(value)

    def action_from_text(self, data: PebbleData, text: str) -> Play | Pass:
        return action_from_text(text)

    def components(self, state: PebbleState) -> Mapping[str, int]:
        """Every pebble card, in the deck, in a hand or on the track."""
        return dict(Counter(state.deck + [p for h in state.hands for p in h] + [p for _, p in state.played]))

    def redeal_hidden(self, state: PebbleState, player: int, seed: int) -> PebbleState | None:
        """The other hands and the deck dealt anew from one sorted pool: the world depends only on what
        ``player`` sees and ``seed`` (the bots' search samples its worlds with it, docs/bots.md)."""
        others = [s for s in range(len(state.hands)) if s != player]
        pool = sorted(list(state.deck) + [p for s in others for p in state.hands[s]])
        if not pool:
            return None
        SeededRandom(seed).shuffle(pool)
        twin = state.copy()
        for s in others:
            n = len(state.hands[s])
            twin.hands[s], pool = pool[:n], pool[n:]
        twin.deck = pool
        return twin

    def summary(self, state: PebbleState, actions: Sequence[Any]) -> dict[str, Any]:
        outcome = state.outcome()
        return {"winners": list(outcome.winners) if outcome else [], "best_track": max(state.tracks),
                "passes": sum(1 for a in actions if isinstance(a, Pass))}

    def aggregate(self, summaries: Sequence[dict[str, Any]], players: int) -> dict[str, Any]:
        n = max(1, len(summaries))
        return {**seat_figures([s["winners"] for s in summaries], players),
                "mean_best_track": round(sum(s["best_track"] for s in summaries) / n, 2),
                "mean_passes": round(sum(s["passes"] for s in summaries) / n, 2)}


PEBBLE_RACE = register_game(PebbleRace())
