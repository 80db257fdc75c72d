"""15 Days on the shared game interface (:class:`bridge.rules.game.Game`), registered under its id.

Its requests are the shared ones of :mod:`bridge.rules.contract` (docs/games/fifteen_days/protocol.md); what is
its own is here: ``next`` says which decision is open and the actions left in the turn, ``score`` is the score
panel with the tie-break figures, and the bookkeeping keys a snapshot may leave out get their defaults.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from bridge.rules.contract import SHARED_REQUEST_TYPES, GameBase
from bridge.rules.fifteen_days import bot, snapshot
from bridge.rules.fifteen_days.actions import Action
from bridge.rules.fifteen_days.data import parse_fifteen_days
from bridge.rules.fifteen_days.records import FifteenDaysData
from bridge.rules.fifteen_days.state import END_NOT_YET, GAME_ID, REFUSALS, GameState, decide, new_game
from bridge.rules.game import GameMeta, register_game
from bridge.rules.schema import Record
from bridge.rules.playout import seat_figures
from bridge.rules.random import SeededRandom


class FifteenDays(GameBase):
    """The 15 Days engine: one mode (``standard``), 2–4 players; every choice is an action."""

    id = GAME_ID
    request_types = SHARED_REQUEST_TYPES
    refusal_reasons = REFUSALS

    def parse(self, documents: Mapping[str, Any]) -> FifteenDaysData:
        return parse_fifteen_days(documents)

    def meta(self, data: FifteenDaysData) -> GameMeta:
        return data.info

    def new_game(self, data: FifteenDaysData, players: int, *, mode: str | None = None,
                 seed: int = 0) -> GameState:
        return new_game(data, players, mode=mode, seed=seed)

    def from_snapshot(self, data: FifteenDaysData, snapshot: Any) -> GameState:
        return GameState.from_snapshot(data, snapshot)

    def snapshot_schema(self, data: FifteenDaysData) -> Record:
        return snapshot.schema(data)

    def snapshot_defaults(self, data: FifteenDaysData) -> Mapping[str, Callable[[Mapping[str, Any]], Any]]:
        """The engine's bookkeeping a snapshot may leave out: ``feathers_out`` is what the box holds beyond the
        supply and the players' feathers; the rest are their values before anything happened in the turn
        (``turn`` 1, every action left, nothing pending, no feather's power, no fresh discard) and in the game
        (no end trigger, not over). With the host beginning (``first_player = "host"``) ``active`` follows from
        ``turn``; a random first player cannot be derived, so the snapshot must say whose turn it is."""
        rules = data.rules
        defaults: dict[str, Callable[[Mapping[str, Any]], Any]] = {
            "turn": lambda snap: 1,
            "actions_left": lambda snap: rules.actions_per_turn,
            "pending": lambda snap: None,
            "boost": lambda snap: None,
            "power": lambda snap: None,
            "otter_turn": lambda snap: False,
            "fresh_discards": lambda snap: [],
            "feathers_out": lambda snap: _feathers_out(data, snap),
            "end": lambda snap: dict(END_NOT_YET),
            "over": lambda snap: None,
        }
        if rules.first_player == "host":
            defaults["active"] = _host_turn_seat
        return defaults

    def next_extras(self, state: GameState) -> dict[str, Any]:
        """``next.pending``: the open decision of the action in progress (``draw``, ``take``, ``refill``,
        ``play``, ``wild``, or null between actions); ``next.actions_left``: the actions left in the turn."""
        return {"pending": state.pending, "actions_left": state.actions_left}

    def score(self, data: FifteenDaysData, state: GameState) -> dict[str, Any]:
        """The score panel: the turn, the seat to move (null once over), how the game ended (null while it
        goes on), every standing (FD-9.3) with the tie-break figures (FD-9.4), the leaders now and what
        decided between them."""
        standings = state.standings()
        leaders, decided_by = decide(standings)
        return {
            "turn": state.turn,
            "active": state.to_move(),
            "over": state.over,
            "standings": [s.to_json() for s in standings],
            "leaders": list(leaders),
            "decided_by": decided_by,
        }

    def action_from_json(self, data: FifteenDaysData, value: Any) -> Action:
        return Action.from_json(value)

    def action_from_text(self, data: FifteenDaysData, text: str) -> Action:
        return Action.from_text(text)

    def components(self, state: GameState) -> Mapping[str, int]:
        """Season cards (how many are anywhere, and how many distinct), wilds (supply, boards, one awaiting a
        place, the box), feathers (players, supply, spent out of the game) and animals."""
        snap = state.to_snapshot()
        places = (snap["draw_piles"] + snap["market"] + [snap["discard"], snap["removed"]]
                  + [p["hand"] for p in snap["players"]]
                  + [c["cards"] for p in snap["players"] for c in p["corners"]])
        ids = [card for place in places for card in place]
        data = state.data
        box = data.wild_total - min(data.rules.wild_supply_per_player * state.players, data.wild_total)
        wilds = (snap["wild_supply"] + box + (1 if state.pending == "wild" else 0)
                 + sum(1 for p in snap["players"] for c in p["corners"] if c["wild"] is not None))
        return {
            "season_cards": len(ids),
            "distinct_season_cards": len(set(ids)),
            "wilds": wilds,
            "feathers": snap["feather_supply"] + snap["feathers_out"] + sum(p["feathers"] for p in snap["players"]),
            "animals": len(snap["animals"]),
        }

    def redeal_hidden(self, state: GameState, player: int, seed: int) -> GameState:
        """The other players' hands, the draw piles and the cards removed unseen, dealt anew among themselves,
        each place keeping the back of the card it had (backs are public): ``player``'s view is unchanged. The cards
        are sorted before they are shuffled, so two states ``player`` cannot tell apart give the same deal (what
        the bots' search samples its worlds with)."""
        snap = state.to_snapshot()
        back = state.t.back
        index = state.t.index
        slots: list[tuple[list[str], int]] = [(pile, i) for pile in snap["draw_piles"] for i in range(len(pile))]
        slots += [(snap["removed"], i) for i in range(len(snap["removed"]))]
        for seat, entry in enumerate(snap["players"]):
            if seat != player:
                slots += [(entry["hand"], i) for i in range(len(entry["hand"]))]
        rng = SeededRandom(seed)
        by_back: dict[str, list[tuple[list[str], int]]] = {}
        for place, i in slots:
            by_back.setdefault(back[index[place[i]]], []).append((place, i))
        for group in by_back.values():
            cards = sorted(place[i] for place, i in group)  # sorted first: the deal depends on the view alone
            rng.shuffle(cards)
            for (place, i), card in zip(group, cards):
                place[i] = card
        return GameState.from_snapshot(state.data, snap)

    def heuristic(self, data: FifteenDaysData) -> bot.Heuristic:
        """The heuristic bot: which card costs least and feeds an animal (:class:`bridge.rules.fifteen_days.bot.Heuristic`)."""
        return bot.Heuristic(data)

    def scores(self, state: GameState) -> list[int]:
        """Each seat's score (FD-9.3)."""
        return [standing.score for standing in state.standings()]

    def summary(self, state: GameState, actions: Sequence[Action]) -> dict[str, Any]:
        """Turns played, winners, how the game ended, every score and who owns each animal at the end."""
        outcome = state.outcome()
        return {
            "turns": state.turn,
            "actions": len(actions),
            "winners": list(outcome.winners) if outcome else [],
            "termination": outcome.reason if outcome else None,
            "decided_by": outcome.decided_by if outcome else None,
            "scores": [s.score for s in outcome.standings] if outcome else [],
            "animals": {animal: state.owner[animal] for animal in state.t.animals},
        }

    def aggregate(self, summaries: Sequence[dict[str, Any]], players: int) -> dict[str, Any]:
        """Mean turns, win figures by seat, why games ended, what decided them (FD-9.4), the mean score, and for
        each animal the share of games it ended owned, and by which seat."""
        games = len(summaries)
        scores = [score for s in summaries for score in s["scores"]]
        animals: dict[str, list[int]] = {}
        for summary in summaries:
            for animal, seat in summary["animals"].items():
                counts = animals.setdefault(animal, [0] * (players + 1))
                counts[players if seat is None else seat] += 1
        return {
            "mean_turns": round(sum(s["turns"] for s in summaries) / games, 4),
            **seat_figures([s["winners"] for s in summaries], players),
            "terminations": dict(sorted(Counter(s["termination"] for s in summaries).items())),
            "decided_by": dict(sorted(Counter(s["decided_by"] for s in summaries).items())),
            "mean_score": round(sum(scores) / len(scores), 4) if scores else 0.0,
            "animal_owned_rate": {animal: round(1 - counts[players] / games, 4) for animal, counts in animals.items()},
            "animal_owner_by_seat": {animal: [round(n / games, 4) for n in counts[:players]]
                                     for animal, counts in animals.items()},
        }


def _feathers_out(data: FifteenDaysData, snap: Mapping[str, Any]) -> int:
    """The feathers spent out of the game (``feather_returns_to_supply = false``): those of the box that are
    neither in the supply nor on a player's board. 0 when the snapshot's counts are not whole numbers (its
    reader then names the bad one) or hold more than the box (the reader says so)."""
    players = snap.get("players")
    counts = [snap.get("feather_supply")]
    if isinstance(players, list):
        counts += [entry.get("feathers") if isinstance(entry, Mapping) else None for entry in players]
    if any(isinstance(n, bool) or not isinstance(n, int) for n in counts):
        return 0
    return max(0, data.feather_total - sum(counts))


def _host_turn_seat(snap: Mapping[str, Any]) -> Any:
    """The seat whose turn ``turn`` is when seat 0 began: turns go round the seats in order (FD-2). None (the
    reader then says ``active`` is missing) when ``turn`` or ``players`` is not what it should be."""
    turn, players = snap.get("turn"), snap.get("players")
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1 or not isinstance(players, list) \
            or not players:
        return None
    return (turn - 1) % len(players)


FIFTEEN_DAYS = register_game(FifteenDays())
