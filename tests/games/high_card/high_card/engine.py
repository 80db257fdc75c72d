"""High Card: the tests' example game, on the shared game interface and nothing else.

Every player is dealt a hand of numbered cards; the rest of the deck is set aside unseen. A round is one trick:
from its leader on, each player in turn plays one card of their hand; the highest card wins the trick, its cards
go to its winner, who leads the next. When the hands are empty the players with the most tricks win. The hands
and the cards set aside are hidden.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from bridge.rules import reader as r
from bridge.rules import schema
from bridge.rules.contract import SHARED_REQUEST_TYPES, GameBase, envelope
from bridge.rules.errors import IllegalAction, InvalidAction, SnapshotError
from bridge.rules.game import TOOL_TABLES, GameMeta, parse_game_meta, register_game
from bridge.rules.playout import seat_figures
from bridge.rules.random import SeededRandom
from bridge.rules.values import frozen_value

GAME_ID = "high-card"


# ------------------------------------------------------------------------------------------------------ data

@dataclass(frozen=True)
class HighCardData:
    info: GameMeta
    hand_size: int
    values: Mapping[str, int]     # card id → its number, in deck order (lowest first)

    def deck(self) -> list[str]:
        return list(self.values)


def card_id(number: int) -> str:
    """The id of the card showing ``number`` (``c7``)."""
    return f"c{number}"


def parse(documents: Mapping[str, Any]) -> HighCardData:
    """``game.toml`` (its ``[game]`` table; the tool tables are ttsmod's) and ``cards.toml``'s ``[deck]``: the
    lowest and highest number, and how many cards each player is dealt (the deck must fill max_players hands)."""
    info = parse_game_meta(documents["game.toml"])
    r.top("game.toml", documents["game.toml"], ("game",), TOOL_TABLES)
    at = r.At.data("cards.toml", "[deck]")
    deck = r.table(at, r.top("cards.toml", documents["cards.toml"], ("deck",))["deck"])
    r.keys(at, deck, ("lowest", "highest", "hand_size"))
    lowest = r.integer(at.sub("lowest"), deck["lowest"], 0)
    numbers = range(lowest, r.integer(at.sub("highest"), deck["highest"], lowest) + 1)
    hand_size = r.integer(at.sub("hand_size"), deck["hand_size"], 1)
    if len(numbers) < hand_size * info.max_players:
        raise at.sub("hand_size").error(f"{len(numbers)} cards cannot fill {info.max_players} hands of {hand_size}")
    return HighCardData(info, hand_size, {card_id(n): n for n in numbers})


# ------------------------------------------------------------------------------------------------------ actions

@frozen_value
class Play:
    """The one action: a seat plays a card of its hand onto the trick."""

    player: int
    card: str

    def __str__(self) -> str:
        return f"play {self.player} {self.card}"

    def to_json(self) -> dict[str, Any]:
        return {"action": "play", **self.__dict__}


def action_from_json(_data: HighCardData, value: Any) -> Play:
    """``{"action": "play", "player": seat, "card": id}``."""
    if not isinstance(value, dict) or value.get("action") != "play":
        raise InvalidAction(f"a High Card action is a play, not {value!r}")
    seat, card = value.get("player"), value.get("card")
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0 or not isinstance(card, str):
        raise InvalidAction(f"a play names a seat number and a card id, not {value!r}")
    return Play(seat, card)


def action_from_text(_data: HighCardData, text: str) -> Play:
    """``play 0 c7``."""
    match text.split():
        case ["play", seat, card] if seat.isdigit():
            return Play(int(seat), card)
    raise InvalidAction(f"cannot read action {text!r} (play SEAT CARD)")


# ------------------------------------------------------------------------------------------------------ state

@dataclass(frozen=True)
class Outcome:
    winners: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "decided_by": "tricks"}


def most(counts: Sequence[int]) -> tuple[int, ...]:
    """The seats whose count is the highest."""
    return tuple(seat for seat, n in enumerate(counts) if n == max(counts))


class HighCardState:
    """A game of High Card: the hands, the cards each seat has won, the trick on the table (seat, card in the
    order played), the trick's leader and the cards set aside."""

    def __init__(self, data: HighCardData, hands: list[list[str]], won: list[list[str]],
                 trick: list[tuple[int, str]], leader: int, stock: list[str]) -> None:
        self.data, self.hands, self.won, self.trick, self.leader, self.stock = data, hands, won, trick, leader, stock

    def tricks(self) -> list[int]:
        """The tricks each seat has won (a trick is one card of every seat)."""
        return [len(cards) // len(self.hands) for cards in self.won]

    # -- the shared interface
    def to_move(self) -> int | None:
        return None if self.is_over() else (self.leader + len(self.trick)) % len(self.hands)

    def is_over(self) -> bool:
        return not self.trick and not any(self.hands)

    def legal_actions(self) -> list[Play]:
        seat = self.to_move()
        if seat is None:
            return []
        return [Play(seat, card) for card in sorted(self.hands[seat], key=self.data.values.__getitem__)]

    def check(self, action: Any) -> None:
        """Raise :class:`IllegalAction`, with its reason, unless ``action`` may be played now."""
        if not isinstance(action, Play):
            raise InvalidAction(f"not a High Card action: {action!r}")
        seat = self.to_move()
        if seat is None:
            raise IllegalAction("the game is over", "game_over")
        if action.player != seat:
            raise IllegalAction(f"seat {seat} is to play", "not_your_turn")
        if action.card not in self.hands[seat]:
            raise IllegalAction(f"seat {seat} holds no card {action.card}", "not_in_hand")

    def apply(self, action: Any) -> list[dict[str, Any]]:
        self.check(action)
        self.hands[action.player].remove(action.card)
        self.trick.append((action.player, action.card))
        events: list[dict[str, Any]] = [{"event": "played", "player": action.player, "card": action.card,
                                         "value": self.data.values[action.card]}]
        if len(self.trick) == len(self.hands):
            winner, _ = max(self.trick, key=lambda played: self.data.values[played[1]])
            cards = [card for _, card in self.trick]
            self.won[winner] += cards
            self.trick, self.leader = [], winner
            events.append({"event": "trick_won", "player": winner, "cards": cards,
                           "tricks": self.tricks()[winner]})
            if not any(self.hands):
                events.append({"event": "game_ended", "winners": list(most(self.tricks()))})
        return events

    def outcome(self) -> Outcome | None:
        return Outcome(most(self.tricks())) if self.is_over() else None

    def view(self, player: int) -> dict[str, Any]:
        return {"players": [{"seat": s, "hand": sorted(hand) if s == player else None, "hand_size": len(hand),
                             "won": list(self.won[s])} for s, hand in enumerate(self.hands)],
                "trick": [[s, card] for s, card in self.trick], "leader": self.leader, "stock_size": len(self.stock)}

    def to_snapshot(self) -> dict[str, Any]:
        return schema.write(snapshot_schema(self.data), {
            "ttsmod_snapshot": 1, "game": GAME_ID, "mode": self.data.info.default_mode,
            "players": [{"seat": s, "hand": hand, "won": self.won[s]} for s, hand in enumerate(self.hands)],
            "trick": [{"player": s, "card": card} for s, card in self.trick],
            "leader": self.leader, "stock": self.stock})

    def copy(self) -> "HighCardState":
        return HighCardState(self.data, [list(h) for h in self.hands], [list(w) for w in self.won], list(self.trick),
                             self.leader, list(self.stock))


def snapshot_schema(data: HighCardData) -> schema.Record:
    """The snapshot: each seat's hand and won cards, the trick so far (who played what), its leader, the stock."""
    card = schema.OneOf(tuple(data.values), "a card")
    cards = schema.ListOf(card, what="cards")
    F = schema.Field
    seat = schema.Record({"seat": F(schema.Integer(0), None), "hand": F(cards), "won": F(cards)})
    return schema.Record({
        **envelope(GAME_ID, data.info.modes),
        "players": F(schema.ListOf(seat, min_length=data.info.min_players, max_length=data.info.max_players,
                                   count_as="players", what="seats"), doc="the seats, in seat order"),
        "trick": F(schema.ListOf(schema.Record({"player": F(schema.Seat()), "card": F(card)})),
                   doc="the cards played to the trick, in order"),
        "leader": F(schema.Seat(), doc="the seat that leads the trick"),
        "stock": F(cards, doc="the cards set aside"),
    })


def from_snapshot(data: HighCardData, snapshot: Any) -> HighCardState:
    """The state of a snapshot read through :func:`snapshot_schema`; what spans keys is checked here."""
    tree = schema.read(snapshot_schema(data), snapshot)
    seats, leader = len(tree["players"]), tree["leader"]
    trick = []
    for index, entry in enumerate(tree["trick"]):
        if entry["player"] != (leader + index) % seats or index + 1 >= seats:
            raise SnapshotError(f"trick[{index}].player",
                                f"seat {entry['player']} cannot play card {index + 1} of a trick led by {leader}")
        trick.append((entry["player"], entry["card"]))
    hands = [entry["hand"] for entry in tree["players"]]
    won = [entry["won"] for entry in tree["players"]]
    stock = tree["stock"]
    if Counter(stock + [c for h in hands for c in h] + [c for w in won for c in w] + [c for _, c in trick]) \
            != Counter(data.deck()):
        raise SnapshotError("", "the cards on the table are not the deck: each card lies in one place")
    return HighCardState(data, hands, won, trick, leader, stock)


SEATS_TAKEN = "a game is for min_players to max_players of game.toml"


def seats_taken(data: HighCardData, players: int) -> bool:
    """Whether a game may have ``players`` seats (:data:`SEATS_TAKEN`)."""
    return data.info.min_players <= players <= data.info.max_players


def new_game(data: HighCardData, players: int, *, mode: str | None = None, seed: int = 0) -> HighCardState:
    """A new game: the deck shuffled with ``seed``, a hand dealt to each seat, the rest set aside."""
    if not seats_taken(data, players) or mode not in (None, *data.info.modes):
        raise InvalidAction(f"High Card is played by {data.info.min_players} to {data.info.max_players} in mode "
                            f"{' or '.join(data.info.modes)}, not by {players} in {mode!r}")
    deck = data.deck()
    SeededRandom(seed).shuffle(deck)
    size = data.hand_size
    hands = [deck[seat * size:(seat + 1) * size] for seat in range(players)]
    return HighCardState(data, hands, [[] for _ in hands], [], 0, deck[players * size:])


# ------------------------------------------------------------------------------------------------------ the game

class HighCard(GameBase):
    id = GAME_ID
    request_types = SHARED_REQUEST_TYPES
    refusal_reasons = {
        "game_over": "the game is over",
        "not_your_turn": "another seat is to play",
        "not_in_hand": "the player holds no such card",
    }

    # the engine's functions are this module's: parse(documents), new_game(data, players, mode=, seed=),
    # from_snapshot(data, snapshot), snapshot_schema(data), action_from_json(data, value), action_from_text(data, text)
    parse = staticmethod(parse)
    new_game = staticmethod(new_game)
    from_snapshot = staticmethod(from_snapshot)
    snapshot_schema = staticmethod(snapshot_schema)
    action_from_json = staticmethod(action_from_json)
    action_from_text = staticmethod(action_from_text)

    def meta(self, data: HighCardData) -> GameMeta:
        return data.info

    def score(self, data: HighCardData, state: HighCardState) -> dict[str, Any]:
        """The tricks each seat has won (``score``), and who has the most."""
        tricks = state.tricks()
        return {"standings": [{"player": s, "score": n} for s, n in enumerate(tricks)], "leaders": list(most(tricks))}

    def components(self, state: HighCardState) -> Mapping[str, int]:
        """Every card: in a hand, won, in the trick or set aside."""
        return Counter(state.stock + [c for h in state.hands for c in h] + [c for w in state.won for c in w]
                       + [c for _, c in state.trick])

    def redeal_hidden(self, state: HighCardState, player: int, seed: int) -> HighCardState | None:
        """The other hands and the cards set aside dealt anew from one sorted pool (the world depends only on what
        ``player`` sees and ``seed``)."""
        others = [s for s in range(len(state.hands)) if s != player]
        pool = sorted(state.stock + [c for s in others for c in state.hands[s]])
        if not pool:
            return None
        SeededRandom(seed).shuffle(pool)
        twin = state.copy()
        for s in others:
            twin.hands[s] = [pool.pop() for _ in state.hands[s]]
        twin.stock = pool
        return twin

    def summary(self, state: HighCardState, actions: Sequence[Any]) -> dict[str, Any]:
        outcome = state.outcome()
        return {"winners": list(outcome.winners) if outcome else [], "most_tricks": max(state.tricks()),
                "plays": len(actions)}

    def aggregate(self, summaries: Sequence[dict[str, Any]], players: int) -> dict[str, Any]:
        games = max(1, len(summaries))
        return {**seat_figures([s["winners"] for s in summaries], players),
                "mean_most_tricks": round(sum(s["most_tricks"] for s in summaries) / games, 2)}


HIGH_CARD = register_game(HighCard())
