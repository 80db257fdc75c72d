"""Kill the Unicorns on the shared game interface (:class:`bridge.rules.game.Game`), registered under its id.

Its requests are the shared ones of :mod:`bridge.rules.contract` (docs/games/kill_the_unicorns/protocol.md):

* ``setup`` — ``{"players": 3..7, "seed", "mode"?, "characters": [ids] | null}`` → ``{"snapshot", "events",
  "next"}``: the characters in seat order, or dealt at random when ``characters`` is null, false or absent.
* ``legal``, ``apply`` — a ruling ``{"events", "snapshot", "next", "game_over"}``; ``next`` carries
  ``decision`` (the pending decision) beside ``player`` and ``legal``.
* ``score`` — ``{"day", "over", "standings", "leaders", "decided_by"}``.
* ``bot_move`` — the move a bot plays for the seat that owes the table's pending decision (any decision: a trick
  to place, a hunt to open or join, a power, a blind trick choice, a purchase).

Every choice is an action (the blind trick choice is ``choose-trick``): the game asks no separate decisions.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from bridge.rules.contract import SHARED_REQUEST_TYPES, GameBase
from bridge.rules.errors import InvalidAction
from bridge.rules.game import GameMeta, register_game
from bridge.rules.kill_the_unicorns import bot, snapshot
from bridge.rules.kill_the_unicorns.actions import Action
from bridge.rules.kill_the_unicorns.data import parse_kill_the_unicorns
from bridge.rules.kill_the_unicorns.records import KillTheUnicornsData
from bridge.rules.kill_the_unicorns.scoring import decide
from bridge.rules.kill_the_unicorns.state import GAME_ID, REFUSAL_REASONS, GameState, new_game, start_game
from bridge.rules.playout import seat_figures
from bridge.rules.schema import Record
from bridge.rules.random import SeededRandom


class KillTheUnicorns(GameBase):
    """The Kill the Unicorns engine: one mode (``standard``), 3–7 players (7 with the promo character)."""

    id = GAME_ID
    request_types = SHARED_REQUEST_TYPES
    refusal_reasons = REFUSAL_REASONS

    def parse(self, documents: Mapping[str, Any]) -> KillTheUnicornsData:
        return parse_kill_the_unicorns(documents)

    def meta(self, data: KillTheUnicornsData) -> GameMeta:
        return data.info

    def new_game(self, data: KillTheUnicornsData, players: int, *, mode: str | None = None,
                 seed: int = 0) -> GameState:
        return new_game(data, players, mode=mode, seed=seed)

    def from_snapshot(self, data: KillTheUnicornsData, snapshot: Any) -> GameState:
        return GameState.from_snapshot(data, snapshot)

    def snapshot_schema(self, data: KillTheUnicornsData) -> Record:
        return snapshot.schema(data)

    def setup(self, data: KillTheUnicornsData, players: int, *, mode: str, seed: int,
              options: Mapping[str, Any]) -> tuple[GameState, list[Any]]:
        """A new table and the events of its first day's start; ``options["characters"]`` are the seated players'
        characters in seat order (distinct ids), or null, false or absent to deal them at random."""
        characters = options.get("characters")
        if characters is False:
            characters = None
        if characters is not None and (not isinstance(characters, list)
                                       or not all(isinstance(c, str) for c in characters)):
            raise InvalidAction("characters must be a list of character ids, or null to deal them at random")
        return start_game(data, players, mode=mode, seed=seed, characters=characters)

    def snapshot_defaults(self, data: KillTheUnicornsData) -> Mapping[str, Callable[[Mapping[str, Any]], Any]]:
        """``hunt`` and ``pending`` may be left out where they are null: no hunt outside the hunt phase, no
        pending decision once the game is over (the snapshot reader refuses a null anywhere else)."""
        return {"hunt": _none, "pending": _none}

    def next_extras(self, state: GameState) -> dict[str, Any]:
        """``next.decision``: the decision the seat to move owes (null once the game is over)."""
        return {"decision": state.pending_decision}

    def score(self, data: KillTheUnicornsData, state: GameState) -> dict[str, Any]:
        """The score panel: the day, whether the game is over, every standing (KU-7 on the unicorns caught so
        far), the leaders and what decides between them."""
        standings = state.standings()
        leaders, decided_by = decide(standings, data.rules)
        return {"day": state.day, "over": state.is_over(), "standings": [s.to_json() for s in standings],
                "leaders": list(leaders), "decided_by": decided_by}

    def action_from_json(self, data: KillTheUnicornsData, value: Any) -> Action:
        return Action.from_json(value)

    def action_from_text(self, data: KillTheUnicornsData, text: str) -> Action:
        return Action.from_text(text)

    def components(self, state: GameState) -> Mapping[str, int]:
        """Hunting cards, trick cards, unicorns and market tokens, wherever they are (each counted once by id)."""
        snap = state.to_snapshot()
        hunting, tricks, unicorns, tokens = [], [], [], []
        for p in snap["players"]:
            hunting += p["hand"] + p["played"] + p["hunt_discard"]
            tricks += p["trick_deck"] + p["trick_hand"] + p["trick_discard"]
            for entry in p["catch"]:
                unicorns.append(entry["unicorn"])
                tricks += entry["pinned"]
                tokens += entry["tokens"]
            tokens += p["tokens"]
        tricks += [c for pair in snap["slots"] for c in pair if c is not None]
        unicorns += [u for u in snap["line"] if u is not None] + snap["unicorn_deck"] + snap["unicorn_discard"]
        item = state.t.token_item
        for thing in snap["box"]:
            if thing in item:
                tokens.append(thing)
            elif thing in state.t.unicorn:
                unicorns.append(thing)
        tokens += [k for stock in snap["market"].values() for k in stock]
        return {"hunting_cards": len(hunting), "distinct_hunting_cards": len(set(hunting)),
                "trick_cards": len(tricks), "distinct_trick_cards": len(set(tricks)),
                "unicorns": len(unicorns), "distinct_unicorns": len(set(unicorns)),
                "tokens": len(tokens), "distinct_tokens": len(set(tokens))}

    def redeal_hidden(self, state: GameState, player: int, seed: int) -> GameState:
        """A copy where what ``player`` cannot see and no action of theirs can show next is dealt anew: each other
        player's undrawn and drawn tricks (one pile of the same back), the order of ``player``'s own trick deck,
        and the unicorn deck below the next line. Played hunting cards, placed tricks and the next line are
        kept: ``player``'s own next action (the last pass, a trick choice, the last purchase) may reveal them."""
        other = state.copy()
        rng = SeededRandom(seed)
        for seat in range(other.players):
            if seat == player:
                rng.shuffle(other.trick_deck[seat])
                continue
            pool = other.trick_deck[seat] + other.trick_hand[seat]
            rng.shuffle(pool)
            cut = len(other.trick_deck[seat])
            other.trick_deck[seat], other.trick_hand[seat] = pool[:cut], pool[cut:]
        keep = state.t.rules.unicorns_per_day
        if len(other.unicorn_deck) > keep:
            below = other.unicorn_deck[:-keep]
            rng.shuffle(below)
            other.unicorn_deck[:-keep] = below
        return other

    def determinize(self, state: GameState, player: int, seed: int) -> GameState:
        """A world ``player`` cannot tell from ``state``: hunting hands, face-down hunting cards, trick decks and
        placed tricks, the unicorn deck dealt anew (:func:`bridge.rules.kill_the_unicorns.bot.determinize`)."""
        return bot.determinize(state, player, seed)

    def heuristic(self, data: Any) -> bot.Heuristic:
        """The heuristic bot: which unicorn is worth a bid, what to pay
        (:class:`bridge.rules.kill_the_unicorns.bot.Heuristic`)."""
        return bot.Heuristic(data)

    def scores(self, state: GameState) -> list[int]:
        """Each seat's final score (KU-7)."""
        return [standing.score for standing in state.standings()]

    def summary(self, state: GameState, actions: Sequence[Action]) -> dict[str, Any]:
        """Winners, characters by seat, each score and its parts, unicorns that ran away."""
        outcome = state.outcome()
        standings = [s.to_json() for s in outcome.standings] if outcome else []
        return {
            "actions": len(actions),
            "winners": list(outcome.winners) if outcome else [],
            "decided_by": outcome.decided_by if outcome else None,
            "characters": list(state.chars),
            "standings": standings,
            "ran_away": len(state.unicorn_discard),
        }

    def aggregate(self, summaries: Sequence[dict[str, Any]], players: int) -> dict[str, Any]:
        """Win rate by seat and by character, unicorns run away per game, the mean score and its parts."""
        games = len(summaries)
        played: Counter[str] = Counter()
        won: Counter[str] = Counter()
        for s in summaries:
            played.update(s["characters"])
            won.update(s["characters"][seat] for seat in s["winners"])
        parts = ("score", "stars", "modifiers", "collections", "rainbows")
        entries = [st for s in summaries for st in s["standings"]]
        return {
            "mean_actions": round(sum(s["actions"] for s in summaries) / games, 4),
            **seat_figures([s["winners"] for s in summaries], players),
            "win_rate_by_character": {c: round(won[c] / played[c], 4) for c in sorted(played)},
            "decided_by": dict(sorted(Counter(s["decided_by"] for s in summaries).items())),
            "ran_away_per_game": round(sum(s["ran_away"] for s in summaries) / games, 4),
            **{f"mean_{part}": round(sum(e[part] for e in entries) / len(entries), 4) if entries else 0.0
               for part in parts},
        }


def _none(snapshot: Mapping[str, Any]) -> None:
    return None


KILL_THE_UNICORNS = register_game(KillTheUnicorns())
