"""Four Humours on the shared game interface (:class:`bridge.rules.game.Game`), registered under its id.

Its requests (docs/games/four_humours/protocol.md) are its own ``end_round``, then the shared ones of
:mod:`bridge.rules.contract`:

* ``end_round`` — ``{"snapshot": S, "choices": [{"player": 0, "cell": "abbey"}, …], "force": false}`` → the
  round's ruling (:func:`end_round`): the round of ``S`` ended, the choices so far applied, and what happened,
  grouped for the mod, up to the next decision a player owes.
* ``setup``, ``legal``, ``apply``, ``score`` — the contract's, with the game's ruling fields ``round_over``,
  ``round_end_reason`` and ``next_player`` (:meth:`FourHumours.ruling_extras`) and its score panel
  (:meth:`FourHumours.score`).
* ``bot_move`` — the contract's reply plus ``"seat"`` (the colour); with ``"choices"`` (as ``end_round`` takes
  them) the bot chooses the cell a ruling waits for (:func:`bot_move`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from bridge.rules import contract
from bridge.rules.contract import SHARED_REQUEST_TYPES, GameBase
from bridge.rules.errors import IllegalAction, InvalidAction
from bridge.rules.four_humours import bot, snapshot
from bridge.rules.four_humours import events as ev
from bridge.rules.four_humours.actions import Action, Pass, Place
from bridge.rules.four_humours.data import parse_four_humours
from bridge.rules.four_humours.records import HUMOURS, FourHumoursData
from bridge.rules.four_humours.state import (
    GAME_ID, REFUSAL_REASONS, GameState, Phase, new_game, snapshot_defaults,
)
from bridge.rules.game import GameMeta, register_game
from bridge.rules.schema import Record
from bridge.rules.playout import seat_figures
from bridge.rules.random import SeededRandom


class FourHumours(GameBase):
    """The Four Humours engine: kingdom and fief modes, 2–6 players."""

    id = GAME_ID
    request_types = ("end_round", *SHARED_REQUEST_TYPES)
    refusal_reasons = REFUSAL_REASONS
    search_levels = {"normal": 300, "hard": 1500}
    """Search iterations a move (:func:`bridge.rules.bots.search_iterations`): more than the shared levels, as a
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

    def snapshot_schema(self, data: FourHumoursData) -> Record:
        """Every key of the snapshot and what it must be (:func:`bridge.rules.four_humours.snapshot.schema`)."""
        return snapshot.schema(data)

    def snapshot_defaults(self, data: FourHumoursData) -> Mapping[str, Callable[[Mapping[str, Any]], Any]]:
        """The bookkeeping a snapshot may leave out, each derived from the rest of it
        (:func:`bridge.rules.four_humours.state.snapshot_defaults`)."""
        return snapshot_defaults(data)

    def requests(self, data: FourHumoursData) -> Mapping[str, Callable[[dict[str, Any]], dict[str, Any]]]:
        """``end_round`` (the game's own) and ``bot_move`` (the shared one, able to decide a ruling's cell)."""
        return {"end_round": lambda body: end_round(data, body),
                "bot_move": lambda body: bot_move(self, data, body)}

    def ruling_extras(self, state: GameState, events: Sequence[ev.Event]) -> dict[str, Any]:
        """What the mod reads of a ``legal`` (or ``apply``) ruling: whether these actions ended a round
        (``round_over``), why (``round_end_reason``: ``two_scenes_full``, ``all_passed`` or ``stuck``, else
        null), and the seat to act next (``next_player``; null once a round ended: the table then asks
        ``end_round``)."""
        ended = [event for event in events if isinstance(event, ev.RoundEnded)]
        return {"round_over": bool(ended), "round_end_reason": ended[-1].reason if ended else None,
                "next_player": None if ended else state.to_move()}

    def score(self, data: FourHumoursData, state: GameState) -> dict[str, Any]:
        """Standings now (goals and FH-10.4 tie-break figures), the current leaders and each goal's markers."""
        return {
            "round": state.round_no,
            "phase": state.phase.value,
            "standings": [s.to_json() for s in state.standings()],
            "leaders": list(state.leaders()),
            "goals": [{"goal": g, "marked_by": list(state.marks[g])} for g in state.goals],
        }

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


# ------------------------------------------------------------------------------------------------ end_round

def end_round(data: FourHumoursData, body: Mapping[str, Any]) -> dict[str, Any]:
    """The ``end_round`` request: the ruling for the end of the round of ``body["snapshot"]`` (the table when
    placement stopped, as the contract prepared it).

    ``body["choices"]`` (a list, none when absent) answer, in order, the decisions earlier rulings asked for
    (``awaiting``); the ruling runs as far as the rules go without a player and says who must choose next, or
    that the round is complete. ``body["force"]`` ends the round even when no round-end condition holds (a
    host's decision); without it such a table is refused with ``round_not_over``.
    """
    state, round_no, reason, events = _resolving(data, body)
    return _round_ruling(state, round_no, reason, events)


def _resolving(data: FourHumoursData, body: Mapping[str, Any]) -> tuple[GameState, int, str | None, list[ev.Event]]:
    """The state an ``end_round`` body rules from: its snapshot's round ended and its choices applied; with the
    round's number, why it ended and the events on the way."""
    choices = body.get("choices", [])
    if not isinstance(choices, list):
        raise InvalidAction("choices must be a list")
    state = GameState.from_snapshot(data, body["snapshot"])
    events: list[ev.Event] = []
    if state.phase is Phase.ENDED:
        raise IllegalAction("the game is over", "game_over")
    round_no = state.round_no
    reason = state.round_end_reason  # a snapshot taken mid-resolution says why its round ended
    if state.phase is Phase.PLACEMENT:
        reason = state.round_over_reason()
        if reason is None:
            if not body.get("force", False):
                raise IllegalAction(
                    "the round is not over: no two scenes are full, not everyone passed, someone can still place",
                    "round_not_over",
                )
            reason = "forced"
        events += state.end_round(reason)
    for index, value in enumerate(choices):
        if not isinstance(value, Mapping):
            raise InvalidAction(f"choices[{index}] must be an object with player and cell")
        try:
            events += state.apply(Action.from_json({"action": "choose", **value}))
        except IllegalAction as exc:
            raise IllegalAction(f"choices[{index}]: {exc}", exc.reason) from None
        except InvalidAction as exc:
            raise InvalidAction(f"choices[{index}]: {exc}") from None
    return state, round_no, reason, events


def _round_ruling(state: GameState, round_no: int, reason: str | None, events: list[ev.Event]) -> dict[str, Any]:
    """The ``end_round`` answer: the events, and the same events grouped as the mod and logs read them."""
    scenes, parties, moves, goals = [], [], [], []
    next_round = None
    for event in events:
        if isinstance(event, ev.CardResolved):
            (scenes if event.card_kind == "scene" else parties).append(event.to_json())
        elif isinstance(event, (ev.PotionMoved, ev.PotionReturned)):
            moves.append(event.to_json())
        elif isinstance(event, ev.GoalMarked):
            goals.append({"player": event.player, "goal": event.goal})
        elif isinstance(event, ev.RoundStarted):
            next_round = {"round": event.round, "scenes": list(event.scenes), "starter": event.starter, "draws": []}
        elif isinstance(event, ev.PotionsDrawn) and next_round is not None:
            next_round["draws"].append({"player": event.player, "count": event.count})
    awaiting = state.awaiting()
    outcome = state.outcome()
    return {
        "round": round_no,
        "round_end_reason": reason,
        "scenes": scenes,
        "moves": moves,
        "goals_marked": goals,
        "parties": parties,
        "awaiting": awaiting.to_json() if awaiting else None,
        "complete": awaiting is None,
        "next_round": next_round,
        "game_over": outcome.to_json() if outcome else None,
        "events": [e.to_json() for e in events],
    }


# ------------------------------------------------------------------------------------------------ bot_move

def bot_move(game: FourHumours, data: FourHumoursData, body: Mapping[str, Any]) -> dict[str, Any]:
    """The ``bot_move`` request: the contract's reply (:func:`bridge.rules.contract.bot_move`) for the seat to
    move, plus ``"seat"``, that seat's colour.

    Without ``choices`` the bot decides for the seat to move on the table of ``body["snapshot"]``: it places,
    passes or redraws in placement. With ``choices`` (a list, as ``end_round`` takes it) the round of the
    snapshot is ended and the choices so far applied, as :func:`end_round` does, and the bot chooses the cell
    of the potion the ruling waits for. ``InvalidAction`` when nobody is to decide (a round over in placement,
    a ruling that waits for nobody, the game over)."""
    if body.get("choices") is None:
        state = GameState.from_snapshot(data, body["snapshot"])
        if state.phase is Phase.PLACEMENT and state.round_over_reason() is not None:
            raise InvalidAction("the round is over: the table waits for end_round, not for a seat")
    else:
        state = _resolving(data, body)[0]
    reply = contract.bot_move(game, data, state, body)
    return {**reply, "seat": state.colours[reply["player"]]}


FOUR_HUMOURS = register_game(FourHumours())
