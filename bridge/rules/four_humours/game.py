"""Four Humours on the shared game interface (:class:`bridge.rules.game.Game`), registered under its id."""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from bridge.rules.four_humours import bot, service
from bridge.rules.four_humours.actions import Action, Pass, Place
from bridge.rules.four_humours.data import parse_four_humours
from bridge.rules.four_humours.records import HUMOURS, FourHumoursData
from bridge.rules.four_humours.state import GAME_ID, GameState, Phase, new_game
from bridge.rules.game import GameMeta, register_game
from bridge.rules.playout import seat_figures
from bridge.rules.random import SeededRandom


class FourHumours:
    """The Four Humours engine: kingdom and fief modes, 2–6 players."""

    id = GAME_ID
    request_types = service.REQUEST_TYPES
    search_levels = {"normal": 300, "hard": 1500}
    """Search iterations a move (:func:`bridge.bots.search_iterations`): more than the shared levels, as a
    playout's moves are cheap here and the search keeps to the heuristic's shortlist."""

    def parse(self, documents: Mapping[str, Any]) -> FourHumoursData:
        return parse_four_humours(documents)

    def meta(self, data: FourHumoursData) -> GameMeta:
        return data.info

    def new_game(self, data: FourHumoursData, players: int, *, mode: str | None = None,
                 seed: int = 0) -> GameState:
        return new_game(data, players, mode=mode or data.info.default_mode, seed=seed)

    def from_snapshot(self, data: FourHumoursData, snapshot: Any) -> GameState:
        return GameState.from_snapshot(data, snapshot)

    def handle(self, data: FourHumoursData, request_type: str, body: Any) -> dict[str, Any]:
        return service.handle_request(data, request_type, body)

    def choice_json(self, data: FourHumoursData, player: int, answer: str) -> dict[str, Any]:
        """The cell where ``player`` puts the potion awaiting their choice: ``{"player": 1, "cell": "harbour"}``."""
        return {"player": player, "cell": answer}

    def action_from_json(self, data: FourHumoursData, value: Any) -> Action:
        return Action.from_json(value)

    def action_from_text(self, data: FourHumoursData, text: str) -> Action:
        return Action.from_text(text)

    def components(self, state: GameState) -> Mapping[str, int]:
        """Every player's potions by humour, wherever they are (bag, hand, slot, board, pending)."""
        snap = state.to_snapshot()
        counts: Counter[str] = Counter()
        for seat, player in enumerate(snap["players"]):
            for humour in player["hand"]:
                counts[f"{seat}:{humour}"] += 1
            for humour, n in player["bag"].items():
                counts[f"{seat}:{humour}"] += n
        slots = [s for card in snap["scenes"] + snap["parties"] for s in card["slots"] if s]
        on_boards = [p for cells in snap["boards"].values() for ps in cells.values() for p in ps]
        for potion in slots + on_boards + snap["pending"]:
            counts[f"{potion['owner']}:{potion['humour']}"] += 1
        return dict(counts)

    def redeal_hidden(self, state: GameState, player: int, seed: int) -> GameState | None:
        """The other players' hands and bags dealt anew from the same potions (what ``player`` cannot see of
        them); ``None`` outside placement."""
        if state.phase is not Phase.PLACEMENT:
            return None
        snap = state.to_snapshot()
        rng = SeededRandom(seed)
        for seat, entry in enumerate(snap["players"]):
            if seat == player:
                continue
            pool = list(entry["hand"]) + [h for h in HUMOURS for _ in range(entry["bag"][h])]
            rng.shuffle(pool)
            hand, rest = pool[:len(entry["hand"])], pool[len(entry["hand"]):]
            entry["hand"] = hand
            entry["bag"] = {h: rest.count(h) for h in HUMOURS}
        return GameState.from_snapshot(state.data, snap)

    def determinize(self, state: GameState, player: int, seed: int) -> GameState:
        """A world ``player`` cannot tell from ``state``: hands, bags, face-down potions and the scene deck
        dealt anew (:func:`bridge.rules.four_humours.bot.determinize`)."""
        return bot.determinize(state, player, seed)

    def heuristic(self, data: FourHumoursData) -> bot.Heuristic:
        """The heuristic bot: where a potion is likely to win (:class:`bridge.rules.four_humours.bot.Heuristic`)."""
        return bot.Heuristic(data)

    def scores(self, state: GameState) -> list[int]:
        """Goals marked by each seat (what decides the winner first)."""
        return [sum(1 for goal in state.goals if seat in state.marks[goal]) for seat in range(state.num_players)]

    def summary(self, state: GameState, actions: Sequence[Action]) -> dict[str, Any]:
        """Rounds played, turns (placements and passes), winners, how the game ended and each goal's markers."""
        outcome = state.outcome()
        return {
            "rounds": state.round_no,
            "turns": sum(1 for action in actions if isinstance(action, (Place, Pass))),
            "winners": list(outcome.winners) if outcome else [],
            "termination": outcome.termination.value if outcome else None,
            "goals_in_play": list(state.goals),
            "completions": [[goal, len(state.marks[goal])] for goal in state.goals],
        }

    def aggregate(self, summaries: Sequence[dict[str, Any]], players: int) -> dict[str, Any]:
        """Mean rounds and turns, win figures by seat, why games ended, and each goal's completion rate (the
        share of players who marked it, over the games it was in play)."""
        games = len(summaries)
        appearances: Counter[str] = Counter()
        completions: Counter[str] = Counter()
        for summary in summaries:
            appearances.update(summary["goals_in_play"])
            for goal, count in summary["completions"]:
                completions[goal] += count
        return {
            "mean_rounds": round(sum(s["rounds"] for s in summaries) / games, 4),
            "mean_turns": round(sum(s["turns"] for s in summaries) / games, 4),
            **seat_figures([s["winners"] for s in summaries], players),
            "terminations": dict(sorted(Counter(s["termination"] for s in summaries).items())),
            "goal_completion_rate": {
                goal: round(completions[goal] / (appearances[goal] * players), 4) for goal in sorted(appearances)
            },
        }


FOUR_HUMOURS = register_game(FourHumours())
