"""15 Days on the shared game interface (:class:`bridge.rules.game.Game`), registered under its id."""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from bridge.rules.errors import InvalidAction
from bridge.rules.fifteen_days import bot, service
from bridge.rules.fifteen_days.actions import Action
from bridge.rules.fifteen_days.data import parse_fifteen_days
from bridge.rules.fifteen_days.records import FifteenDaysData
from bridge.rules.fifteen_days.state import GAME_ID, GameState, new_game
from bridge.rules.game import GameMeta, register_game
from bridge.rules.playout import seat_figures
from bridge.rules.random import SeededRandom


class FifteenDays:
    """The 15 Days engine: one mode (``standard``), 2–4 players."""

    id = GAME_ID
    request_types = service.REQUEST_TYPES

    def parse(self, documents: Mapping[str, Any]) -> FifteenDaysData:
        return parse_fifteen_days(documents)

    def meta(self, data: FifteenDaysData) -> GameMeta:
        return data.info

    def new_game(self, data: FifteenDaysData, players: int, *, mode: str | None = None,
                 seed: int = 0) -> GameState:
        return new_game(data, players, mode=mode, seed=seed)

    def from_snapshot(self, data: FifteenDaysData, snapshot: Any) -> GameState:
        return GameState.from_snapshot(data, snapshot)

    def handle(self, data: FifteenDaysData, request_type: str, body: Any) -> dict[str, Any]:
        return service.handle_request(data, request_type, body)

    def choice_json(self, data: FifteenDaysData, player: int, answer: str) -> dict[str, Any]:
        """15 Days has no decisions outside its actions: every choice is an action (``apply``)."""
        raise InvalidAction("15 Days asks no separate decisions: send every choice as an action (apply)")

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


FIFTEEN_DAYS = register_game(FifteenDays())
