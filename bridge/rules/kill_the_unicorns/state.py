"""The Kill the Unicorns game state: setup, the day (tricks → 4 hunts → black market → refresh), scoring.

Seats 0 … K-1 clockwise; the left of seat s is s+1 mod K. Lists are bottom/first first (a deck's top is its
last card). Every decision is an action of the seat that makes it (:mod:`actions`); whatever needs nobody's
choice (a player short of cards, a market turn nobody can afford, a hunt that ends) happens by itself and shows
as events. The snapshot (:meth:`GameState.to_snapshot`) is the whole state as JSON and reads back exactly.
"""

from __future__ import annotations

from itertools import chain, combinations
from typing import Any, Sequence

from bridge.rules.errors import IllegalAction, InvalidAction
from bridge.rules.kill_the_unicorns import effects as fx
from bridge.rules.kill_the_unicorns import events as ev
from bridge.rules.kill_the_unicorns import snapshot
from bridge.rules.kill_the_unicorns.actions import (
    SLOTS, Action, Buy, ChooseTrick, Decline, Join, Open, Pass, PlaceTrick, Skip, UsePower)
from bridge.rules.kill_the_unicorns.records import KillTheUnicornsData
from bridge.rules.kill_the_unicorns.scoring import GameOutcome, ScoredUnicorn, Standing, decide, standing
from bridge.rules.kill_the_unicorns.snapshot import GAME_ID
from bridge.rules.random import SeededRandom

_AFTER_REVEAL = fx.AFTER_REVEAL


_UNSET: Any = object()

REFUSAL_REASONS: dict[str, str] = {
    "game_over": "the game is over: nothing more is played",
    "not_your_turn": "another seat owes the pending decision",
    "wrong_decision": "the action is not one the pending decision takes (a purchase during a hunt …)",
    "trick_mandatory": "a drawn trick must be placed while a slot is free (mandatory_trick): skip is refused",
    "trick_not_drawn": "the trick card is not one of the tricks the player drew today",
    "no_unicorn": "no unicorn lies at that line position (hunted already, or beyond the line)",
    "slot_taken": "that trick slot of the unicorn already holds a trick",
    "too_many_cards": "a hunt is opened with more hunting cards than max_hunt_cards",
    "wrong_count": "a hunt is joined with another number of cards than the opener laid",
    "duplicate_card": "a hunting card is named twice",
    "not_in_hand": "a hunting card named is not in the player's hand",
    "unknown_item": "no market item has that id",
    "out_of_stock": "the item has no token left on the market",
    "cannot_afford": "the cards named do not pay the item's price",
    "unicorn_missing": "the item's token goes on a unicorn, and none is named",
    "cannot_turn_in": "the unicorn named is not one of the buyer's that the item may turn in (by its stars)",
    "token_in_front": "the item's token goes in front of the buyer: no unicorn may be named",
    "wrong_unicorn": "the token may not go on the unicorn named (not one of the buyer's, or not caught by anyone)",
}
"""Every ``reason`` a refused action carries (:meth:`GameState.check`), with its cause."""


class Tables:
    """Look-ups derived once per data (values, owners, effects) and the caches of canonical choices."""

    def __init__(self, data: KillTheUnicornsData) -> None:
        self.data = data
        self.rules = data.rules
        self.value = {cid: c.value for cid, c in data.hunting_cards.items()}
        self.hunt_index = {cid: c.index for cid, c in data.hunting_cards.items()}
        self.hunt_character = {cid: c.character for cid, c in data.hunting_cards.items()}
        self.trick_character = {cid: c.character for cid, c in data.trick_cards.items()}
        self.trick_kind = {cid: data.trick_by_id[c.kind] for cid, c in data.trick_cards.items()}
        self.unicorn = data.unicorn_by_id
        self.item = data.market_by_id
        self.token_item = data.token_item
        self.colours = data.colour_ids
        # A hunting card's bit, 1 << (index - 1): a hand of one character in index order (as the game keeps it:
        # dealt so, sorted each night, cards only taken out) is told by its mask, and so is each choice from it,
        # values going by index alone (hunting_values). Masks repeat across seats and characters.
        self.hunt_bit = {cid: 1 << (c.index - 1) for cid, c in data.hunting_cards.items()}
        self.hunt_ids: dict[str, list[str]] = {}
        for cid, c in data.hunting_cards.items():
            ids = self.hunt_ids.setdefault(c.character, [""] * len(self.rules.hunting_values))
            ids[c.index - 1] = cid
        # each character's trick cards in index order (a new game's decks before the shuffle)
        self.trick_ids: dict[str, list[str]] = {}
        for cid, card in sorted(data.trick_cards.items(), key=lambda entry: entry[1].index):
            self.trick_ids.setdefault(card.character, []).append(cid)
        # (hand mask, n) -> the mask of each choice
        self.mask_choices: dict[tuple[int, int | None], list[int]] = {}
        # (Open or Join, seat, character) -> choice mask -> the action, made once
        self.hunt_made: dict[tuple[type, int, str], dict[int, Any]] = {}
        # hand -> price -> its canonical payment (payment): the market asks one hand for every item's price
        self.payments: dict[tuple[str, ...], dict[int, tuple[str, ...] | None]] = {}
        self.hunt_actions: dict[tuple[int, tuple[str, ...], int | None], list[Any]] = {}
        # Each character's power, and the price effect of a market power (None for the others).
        self.power = {c.id: c.power for c in data.characters}
        self.market_power = {c.id: (c.power.effect if c.power.timing == fx.AT_MARKET else None)
                             for c in data.characters}
        # Actions are frozen values: one instance per distinct action serves every state of every game.
        self.place_tricks: dict[tuple[int, str], list[Any]] = {}
        # (seat, item, paid) -> unicorn -> the Buy (buys_of)
        self.buy_actions: dict[tuple[int, str, tuple[str, ...]], dict[str | None, Any]] = {}
        self.seat_actions: dict[int, tuple[Any, ...]] = {}
        self.pass_actions: dict[int, Any] = {}
        # (Open or Join, seat) -> cards -> the action, made once, for hands out of index order (hunt_choices)
        self.hunt_values: dict[tuple[type, int], dict[tuple[str, ...], Any]] = {}
        self.price_lists: dict[tuple[str, bool], dict[str, int]] = {}
        self.scored: dict[tuple[str, tuple[str, ...], tuple[str, ...]], ScoredUnicorn] = {}
        # Where each market item's token goes (GameState._token_targets): None on the player's area, "own" or
        # "any" captured unicorn, "turn_in" for an item that turns one of the buyer's unicorns in.
        self.targeting: dict[str, str | None] = {
            item: ("turn_in" if spec.effect.type == "remove_own_unicorn" else None if spec.target == "player_area"
                   else "any" if self.rules.token_target == "any_unicorn" else "own")
            for item, spec in self.item.items()}
        # The unicorns each turning-in item may take (fx.may_turn_in by their printed stars), worked out once.
        self.turn_in: dict[str, frozenset[str]] = {
            item: frozenset(u for u, card in self.unicorn.items() if fx.may_turn_in(spec.effect, card.stars))
            for item, spec in self.item.items() if spec.effect.type == "remove_own_unicorn"}

    def bare(self, seat: int) -> tuple[Any, ...]:
        """(Skip, UsePower, Decline, ChooseTrick above, ChooseTrick below) of ``seat``."""
        found = self.seat_actions.get(seat)
        if found is None:
            found = self.seat_actions[seat] = (Skip(seat), UsePower(seat), Decline(seat), ChooseTrick(seat, "above"),
                                               ChooseTrick(seat, "below"))
        return found

    def place_trick(self, seat: int, card: str, index: int, slot: int) -> Any:
        """``PlaceTrick(seat, card, index, SLOTS[slot])``, made once."""
        return self.placements(seat, card, index + 1)[2 * index + slot]

    def placements(self, seat: int, card: str, positions: int) -> list[Any]:
        """Entry ``2 * i + s`` (for every line position i below ``positions`` at least) is
        ``PlaceTrick(seat, card, i, SLOTS[s])``: the slots of the line in the order of ``chain(*slots)``."""
        made = self.place_tricks.get((seat, card))
        if made is None:
            made = self.place_tricks[(seat, card)] = []
        for i in range(len(made) // 2, positions):
            made += [PlaceTrick(seat, card, i, slot) for slot in SLOTS]
        return made

    def buys_of(self, seat: int, item: str, paid: tuple[str, ...]) -> dict[str | None, Any]:
        """The table of ``Buy(seat, item, paid, unicorn)`` by ``unicorn``, each made once (fill it through
        :meth:`buy`): one look-up per item, then one per unicorn the token may go on."""
        key = (seat, item, paid)
        found = self.buy_actions.get(key)
        if found is None:
            if len(self.buy_actions) > 16384:  # hands and catches vary: keep the table bounded
                self.buy_actions.clear()
            found = self.buy_actions[key] = {}
        return found

    def buy(self, seat: int, item: str, paid: tuple[str, ...], unicorn: str | None,
            made: dict[str | None, Any] | None = None) -> Any:
        """``Buy(seat, item, paid, unicorn)``, made once (``made``: its table, when the caller has it)."""
        if made is None:
            made = self.buys_of(seat, item, paid)
        found = made.get(unicorn)
        if found is None:
            found = made[unicorn] = Buy(seat, item, paid, unicorn)
        return found

    def hunt_choices(self, seat: int, hand: tuple[str, ...], n: int | None) -> list[Any]:
        """The legal actions of ``seat`` opening (``n`` None) or joining with ``n`` cards from ``hand`` (cached:
        hands repeat across games)."""
        key = (seat, hand, n)
        found = self.hunt_actions.get(key)
        if found is None:
            found = self.hunt_actions[key] = self._hunt_choices(seat, hand, n)
        return found

    def _hunt_choices(self, seat: int, hand: tuple[str, ...], n: int | None) -> list[Any]:
        # Another hand holds many of the same choices: each Open/Join is made once per (seat, cards), the frozen
        # dataclass's __init__ being several times the cost of a look-up.
        kind = Open if n is None else Join
        mask = self.hand_mask(hand)
        if mask is not None:
            character = self.hunt_character[hand[0]]
            made = self.hunt_made.get((kind, seat, character))
            if made is None:
                made = self.hunt_made[(kind, seat, character)] = {}
            choices = self.choices_of_mask(mask, n)
            if not all(map(made.__contains__, choices)):  # a choice not made yet for this seat and character
                ids = self.hunt_ids[character]
                for choice in choices:
                    if choice not in made:
                        made[choice] = kind(seat, tuple(ids[i] for i in range(len(ids)) if choice >> i & 1))
            found = [self.passes(seat)]
            found += map(made.__getitem__, choices)
            return found
        counts = range(1, min(self.rules.max_hunt_cards, len(hand)) + 1) if n is None else (n,)
        found = [self.passes(seat)]
        made_by_cards = self.hunt_values.get((kind, seat))
        if made_by_cards is None or len(made_by_cards) > 16384:  # hands vary: keep the table bounded
            made_by_cards = self.hunt_values[(kind, seat)] = {}
        for count in counts:
            for cards in self.card_choices(hand, count):
                action = made_by_cards.get(cards)
                if action is None:
                    action = made_by_cards[cards] = kind(seat, cards)
                found.append(action)
        return found

    def passes(self, seat: int) -> Any:
        """``Pass(seat)``, made once."""
        found = self.pass_actions.get(seat)
        if found is None:
            found = self.pass_actions[seat] = Pass(seat)
        return found

    def hand_mask(self, hand: Sequence[str]) -> int | None:
        """The mask of ``hand`` (the bits of its cards), or ``None`` unless it is a non-empty hand of one character
        in index order."""
        if not hand:
            return None
        bit, owner = self.hunt_bit, self.hunt_character
        character = owner[hand[0]]
        mask = 0
        for card in hand:
            b = bit[card]
            if b <= mask or owner[card] != character:  # not above every earlier card, or another's card
                return None
            mask |= b
        return mask

    def choices_of_mask(self, mask: int, n: int | None) -> list[int]:
        """:meth:`card_choices` of ``n`` cards (``None``: of 1 to ``max_hunt_cards`` cards, fewest first) from the
        hand of one character whose cards are those of ``mask`` in index order, each choice as its mask; made once
        per (mask, n)."""
        key = (mask, n)
        found = self.mask_choices.get(key)
        if found is None:
            values = self.rules.hunting_values
            held = [i for i in range(len(values)) if mask >> i & 1]
            found = []
            for count in (range(1, min(self.rules.max_hunt_cards, len(held)) + 1) if n is None else (n,)):
                for combo in value_choices([values[i] for i in held], count):
                    found.append(sum(1 << held[j] for j in combo))
            self.mask_choices[key] = found
        return found

    def card_choices(self, hand: Sequence[str], n: int) -> list[tuple[str, ...]]:
        """One choice of ``n`` cards of ``hand`` per distinct multiset of values: the first in combination order
        (lowest ids first in a hand in index order; see :func:`value_choices`)."""
        value = self.value
        return [tuple(hand[j] for j in combo) for combo in value_choices([value[c] for c in hand], n)]

    def prices(self, character: str, power_left: bool) -> dict[str, int]:
        """Every market item's price to ``character``, whose market power (if any) is still unused when
        ``power_left`` (made once)."""
        key = (character, power_left)
        found = self.price_lists.get(key)
        if found is None:
            effect = self.market_power[character]
            effects = [effect] if effect is not None and power_left else []
            found = self.price_lists[key] = {item: fx.price_with(effects, spec.price)
                                             for item, spec in self.item.items()}
        return found

    def payment(self, hand: tuple[str, ...], price: int) -> tuple[str, ...] | None:
        """The canonical payment of ``price`` from ``hand``: fewest cards, then lowest total, then lowest ids;
        ``None`` when the hand cannot pay."""
        known = self.payments_of(hand)
        found = known.get(price, _UNSET)
        if found is _UNSET:
            found = known[price] = self._payment(hand, price)
        return found

    def payments_of(self, hand: tuple[str, ...]) -> dict[int, tuple[str, ...] | None]:
        """The payments of ``hand`` worked out so far, by price (what :meth:`payment` fills)."""
        found = self.payments.get(hand)
        if found is None:
            found = self.payments[hand] = {}
        return found

    def _payment(self, hand: tuple[str, ...], price: int) -> tuple[str, ...] | None:
        best: tuple[str, ...] | None = None
        if price <= 0:
            best = ()
        elif self.rules.price_rule == "count":
            best = hand[:price] if len(hand) >= price else None
        else:
            # The first combination of the fewest cards whose total reaches the price with the lowest such total
            # (min over combinations in order), the values read once per hand.
            values = [self.value[c] for c in hand]
            for n in range(1, len(hand) + 1):
                best_total = 0
                for combo, paid in zip(combinations(hand, n), combinations(values, n)):
                    total = sum(paid)
                    if total >= price and (best is None or total < best_total):
                        best, best_total = combo, total
                if best is not None:
                    break
        return best

    def scored_unicorn(self, unicorn: str, pinned: Sequence[str], tokens: Sequence[str]) -> ScoredUnicorn:
        """How scoring sees ``unicorn`` with the tricks ``pinned`` to it and the ``tokens`` on it, in the order they
        were put there (made once per distinct three: most unicorns end a game bare)."""
        key = (unicorn, tuple(pinned), tuple(tokens))
        found = self.scored.get(key)
        if found is None:
            effects = [self.trick_kind[c].effect for c in pinned] + [
                self.item[self.token_item[k]].effect for k in tokens]
            card = self.unicorn[unicorn]
            on = fx.unicorn_effects(effects)
            if len(self.scored) > 65536:  # pinned tricks and tokens vary: keep the table bounded
                self.scored.clear()
            found = self.scored[key] = ScoredUnicorn(card.stars, on.colour or card.colour, on.stars + on.points)
        return found

    def pays(self, cards: Sequence[str], price: int) -> bool:
        if self.rules.price_rule == "count":
            return len(cards) >= price
        return sum(self.value[c] for c in cards) >= price


def value_choices(values: Sequence[int], n: int) -> list[tuple[int, ...]]:
    """The canonical choices of ``n`` cards from a hand whose cards have ``values`` (in hand order), as positions in
    the hand: one per distinct multiset of values, the first such combination in :func:`itertools.combinations`
    order."""
    seen: set[tuple[int, ...]] = set()
    found = []
    in_order = all(a <= b for a, b in zip(values, values[1:]))
    for combo, chosen in zip(combinations(range(len(values)), n), combinations(values, n)):
        if not in_order:  # a combination's values come sorted only from values in order
            chosen = tuple(sorted(chosen))
        if chosen not in seen:
            seen.add(chosen)
            found.append(combo)
    return found


_TABLES: dict[int, tuple[KillTheUnicornsData, Tables]] = {}


def tables_for(data: KillTheUnicornsData) -> Tables:
    found = _TABLES.get(id(data))
    if found is None or found[0] is not data:
        found = (data, Tables(data))
        _TABLES[id(data)] = found
    return found[1]


_KINDS = (Pass, Join, Open, PlaceTrick, Skip, Buy, UsePower, Decline, ChooseTrick)
"""Every action type, the most frequent first (apply_trusted's dispatch); none derives from another."""
_KIND_OF = {kind: kind for kind in _KINDS}


_CLOCKWISE: list[list[tuple[int, ...]]] = [
    [tuple((start + i) % players for i in range(players)) for start in range(players)] for players in range(17)]
"""``_CLOCKWISE[players][seat]``: every seat clockwise from ``seat`` (``seat`` first)."""

_AFTER: list[list[tuple[int, ...]]] = [[order[1:] for order in orders] for orders in _CLOCKWISE]
"""``_AFTER[players][seat]``: the other seats clockwise from ``seat``'s left (participants asks on every step)."""


def _clockwise(start: int, players: int) -> tuple[int, ...]:
    if players < len(_CLOCKWISE):
        return _CLOCKWISE[players][start]
    return tuple((start + i) % players for i in range(players))


class GameState:
    """A game of Kill the Unicorns in progress (the shared :class:`bridge.rules.game.GameState` interface)."""

    __slots__ = ("data", "t", "mode", "players", "chars", "day", "phase", "first", "hand", "played",
                 "hunt_discard", "trick_deck", "trick_hand", "trick_discard", "catch", "tokens", "power_uses", "line",
                 "slots", "unicorn_deck", "unicorn_discard", "box", "market", "hunt", "pending_player",
                 "pending_decision", "rng", "final", "market_buys")

    # ------------------------------------------------------------------------------------------ copy, snapshot

    def copy(self) -> "GameState":
        other = GameState.__new__(GameState)
        other.data, other.t, other.mode = self.data, self.t, self.mode
        other.players, other.chars = self.players, self.chars
        other.day, other.phase, other.first = self.day, self.phase, self.first
        for name in ("hand", "played", "hunt_discard", "trick_deck", "trick_hand", "trick_discard", "tokens"):
            setattr(other, name, [list(x) for x in getattr(self, name)])
        other.catch = [[[u, list(p), list(k)] for u, p, k in mine] for mine in self.catch]
        other.power_uses = list(self.power_uses)
        other.line = list(self.line)
        other.slots = [list(s) for s in self.slots]
        other.unicorn_deck, other.unicorn_discard, other.box = (
            list(self.unicorn_deck), list(self.unicorn_discard), list(self.box))
        other.market = {k: list(v) for k, v in self.market.items()}
        other.hunt = _copy_hunt(self.hunt)
        other.pending_player, other.pending_decision = self.pending_player, self.pending_decision
        other.rng = SeededRandom(self.rng.state)
        other.final = self.final
        other.market_buys = None  # the copy may be changed before it is asked (redeal_hidden, search)
        return other

    def to_snapshot(self) -> dict[str, Any]:
        """The whole state as JSON (docs/games/kill_the_unicorns/protocol.md; :mod:`.snapshot` declares it), hidden
        faces included: the envelope (``ttsmod_snapshot``, ``game``, ``mode``) first; :meth:`from_snapshot` reads it
        back exactly."""
        return snapshot.write(self)

    @classmethod
    def from_snapshot(cls, data: KillTheUnicornsData, snapshot_json: Any) -> "GameState":
        """The state of a snapshot (:func:`.snapshot.read`; envelope and ``rng`` included: the contract fills in
        what a mod may leave out): a bad one raises ``SnapshotError`` naming its path."""
        return _from_tree(data, snapshot.read(data, snapshot_json))

    # ------------------------------------------------------------------------------------------ the interface

    def to_move(self) -> int | None:
        return self.pending_player

    def is_over(self) -> bool:
        return self.phase == "over"

    def outcome(self) -> GameOutcome | None:
        if self.phase != "over":
            return None
        if self.final is None:   # computed once: a finished game never changes
            standings = self.standings()
            winners, decided_by = decide(standings, self.t.rules)
            self.final = GameOutcome(winners, decided_by, tuple(standings))
        return self.final

    def seat_of(self, character: str) -> int:
        return self.chars.index(character)

    def legal_actions(self) -> list[Action]:
        seat = self.pending_player
        if seat is None:
            return []
        decision = self.pending_decision
        t = self.t
        if decision == "open" or decision == "join":
            return list(t.hunt_choices(seat, tuple(self.hand[seat]), None if decision == "open" else self.hunt["n"]))
        if decision == "place_trick":
            free = self._free_slots()
            out = []
            if free:
                positions = len(self.line)
                for card in self.trick_hand[seat]:
                    out += map(t.placements(seat, card, positions).__getitem__, free)
            if not t.rules.mandatory_trick:
                out.append(t.bare(seat)[0])
            return out
        if decision == "power":
            return list(t.bare(seat)[1:3])
        if decision == "choose_trick":
            return list(t.bare(seat)[3:5])
        if decision == "market":
            buys = self.market_buys
            if buys is None or buys[0] != seat:
                buys = (seat, self._buys(seat))
            return [t.bare(seat)[0], *buys[1]]
        return []

    def _free_slots(self) -> list[int]:
        """The free trick slots of the line's unicorns, each as ``2 * position + slot``, in line order."""
        line = self.line
        return [k for k, card in enumerate(chain.from_iterable(self.slots))
                if card is None and line[k >> 1] is not None]

    def _price(self, seat: int, item: str) -> int:
        t = self.t
        return t.prices(self.chars[seat], self.power_uses[seat] < t.rules.power_uses_per_day)[item]

    def _token_targets(self, seat: int, item: str) -> list[str | None]:
        spec = self.t.item[item]
        if spec.effect.type == "remove_own_unicorn":
            may = self.t.turn_in[item]
            return [u for u, _, _ in self.catch[seat] if u in may]
        if spec.target == "player_area":
            return [None]
        if self.t.rules.token_target == "any_unicorn":
            return [u for mine in self.catch for u, _, _ in mine]
        return [u for u, _, _ in self.catch[seat]]

    def _buys(self, seat: int) -> list[Action]:
        out: list[Action] = []
        append = out.append
        hand = tuple(self.hand[seat])
        t = self.t
        # One look-up of the hand's payments and of each item's Buy table; a payment or a Buy met for the first
        # time is made through the tables' own methods (payment, buy).
        known, buys_of, targeting = t.payments_of(hand), t.buys_of, t.targeting
        prices = t.prices(self.chars[seat], self.power_uses[seat] < t.rules.power_uses_per_day)
        own = every = None  # the unicorns a token may go on, listed once a call (_token_targets)
        for item, stock in self.market.items():
            if not stock:
                continue
            price = prices[item]
            paid = known.get(price, _UNSET)
            if paid is _UNSET:
                paid = t.payment(hand, price)
            if paid is None:
                continue
            where = targeting[item]
            if where is None:                    # on the player's area
                targets: list[str | None] = [None]
            elif where == "own":
                if own is None:
                    own = [u for u, _, _ in self.catch[seat]]
                targets = own
            elif where == "any":
                if every is None:
                    every = [u for mine in self.catch for u, _, _ in mine]
                targets = every
            else:                                # turned in: the seat's own, up to the item's stars
                targets = self._token_targets(seat, item)
            made = buys_of(seat, item, paid)
            for unicorn in targets:
                action = made.get(unicorn)
                append(action if action is not None else t.buy(seat, item, paid, unicorn, made))
        return out

    # ------------------------------------------------------------------------------------------ apply

    def check(self, action: Action) -> None:
        """Raise :class:`IllegalAction` (with a reason code) unless ``action`` may be played now."""
        self._check(action)

    def _check(self, action: Action) -> None:
        if not isinstance(action, Action):
            raise InvalidAction("not a Kill the Unicorns action")
        if self.phase == "over":
            raise IllegalAction("the game is over", "game_over")
        if action.player != self.pending_player:
            raise IllegalAction(f"it is seat {self.pending_player}'s decision, not seat {action.player}'s",
                                "not_your_turn")
        decision = self.pending_decision
        seat = action.player
        if isinstance(action, PlaceTrick):
            self._expect(decision, "place_trick", action)
            if action.card not in self.trick_hand[seat]:
                raise IllegalAction(f"{action.card} is not one of the tricks you drew", "trick_not_drawn")
            if action.unicorn >= len(self.line) or self.line[action.unicorn] is None:
                raise IllegalAction(f"there is no unicorn at line position {action.unicorn}", "no_unicorn")
            if self.slots[action.unicorn][SLOTS.index(action.slot)] is not None:
                raise IllegalAction(f"the {action.slot} slot of unicorn {action.unicorn} already holds a trick",
                                    "slot_taken")
        elif isinstance(action, (Open, Join)):
            self._expect(decision, "open" if isinstance(action, Open) else "join", action)
            self._check_cards(seat, action.cards)
            n = len(action.cards)
            if isinstance(action, Open) and n > self.t.rules.max_hunt_cards:
                raise IllegalAction(f"a hunt is opened with 1 to {self.t.rules.max_hunt_cards} cards",
                                    "too_many_cards")
            if isinstance(action, Join) and n != self.hunt["n"]:
                raise IllegalAction(f"join with exactly {self.hunt['n']} cards", "wrong_count")
        elif isinstance(action, Pass):
            if decision not in ("open", "join"):
                raise IllegalAction(f"nothing to pass on now (the decision is {decision})", "wrong_decision")
        elif isinstance(action, (UsePower, Decline)):
            self._expect(decision, "power", action)
        elif isinstance(action, ChooseTrick):
            self._expect(decision, "choose_trick", action)
        elif isinstance(action, Skip):
            if decision == "place_trick" and self.t.rules.mandatory_trick:
                raise IllegalAction("a trick must be placed while a slot is free: it cannot be skipped",
                                    "trick_mandatory")
            if decision not in ("market", "place_trick"):
                raise IllegalAction(f"nothing to skip now (the decision is {decision})", "wrong_decision")
        elif isinstance(action, Buy):
            self._expect(decision, "market", action)
            self._check_buy(action)

    def _expect(self, decision: str | None, wanted: str, action: Action) -> None:
        if decision != wanted:
            raise IllegalAction(f"{action.name} is not the decision now (it is {decision})", "wrong_decision")

    def _check_cards(self, seat: int, cards: Sequence[str]) -> None:
        if len(set(cards)) != len(cards):
            raise IllegalAction("a card is named twice", "duplicate_card")
        hand = self.hand[seat]
        for card in cards:
            if card not in hand:
                raise IllegalAction(f"{card} is not in your hand", "not_in_hand")

    def _check_buy(self, action: Buy) -> None:
        seat = action.player
        if action.item not in self.market:
            raise IllegalAction(f"{action.item} is not a market item", "unknown_item")
        if not self.market[action.item]:
            raise IllegalAction(f"no {action.item} left on the market", "out_of_stock")
        self._check_cards(seat, action.cards)
        price = self._price(seat, action.item)
        if not self.t.pays(action.cards, price):
            raise IllegalAction(f"those cards do not pay the price {price}", "cannot_afford")
        if action.unicorn not in self._token_targets(seat, action.item):
            spec = self.t.item[action.item]
            if action.unicorn is None:
                raise IllegalAction(f"name the unicorn the {action.item} token goes on", "unicorn_missing")
            if spec.effect.type == "remove_own_unicorn":
                raise IllegalAction(f"{action.unicorn} is not one of your unicorns that {action.item} may turn in",
                                    "cannot_turn_in")
            if spec.target == "player_area":
                raise IllegalAction(f"the {action.item} token goes in front of you, not on a unicorn",
                                    "token_in_front")
            raise IllegalAction(f"{action.unicorn} is not a unicorn the token may go on", "wrong_unicorn")

    def apply(self, action: Action) -> list[Any]:
        """Play ``action`` (checked first) and return its events."""
        self._check(action)
        return self.apply_trusted(action)

    def apply_trusted(self, action: Action) -> list[Any]:
        """Play ``action`` taken from :meth:`legal_actions` of this very state, without checking it again: the same
        events and state as :meth:`apply` (random playouts use it)."""
        out: list[Any] = []
        self._play(action, out)
        return out

    def _play(self, action: Action, out: list[Any] | None = None) -> None:
        """:meth:`apply_trusted` into the event list ``out``; with ``out`` None (:meth:`apply_quiet`) the steps
        skip every event."""
        seat = action.player
        self.market_buys = None
        kind = _KIND_OF.get(type(action))
        if kind is None:  # a subclass of an action type: the type it derives from
            kind = next(k for k in _KINDS if isinstance(action, k))
        if kind is Pass:
            if self.pending_decision == "open":
                self._decline(seat, out, forced=False)
            else:
                self.hunt["passed"].append(seat)
                if out is not None:
                    out.append(ev.Passed(seat, False))
                self._next_joiner(seat, out)
        elif kind is Join:
            hand, played = self.hand[seat], self.played[seat]
            for card in action.cards:
                hand.remove(card)
                played.append(card)
            self.hunt["joined"].append(seat)
            if out is not None:
                out.append(ev.Joined(seat, len(action.cards)))
            self._next_joiner(seat, out)
        elif kind is Open:
            self._open(seat, action.cards, out)
        elif kind is PlaceTrick:
            self._place_trick(seat, action, out)
        elif kind is Skip:
            if self.phase == "tricks":
                for card in self.trick_hand[seat]:
                    self.trick_discard[seat].append(card)
                    if out is not None:
                        out.append(ev.TrickDiscarded(seat, card))
                self.trick_hand[seat] = []
                self._next_trick_turn(seat, out)
            else:
                if out is not None:
                    out.append(ev.Skipped(seat, False))
                self._next_buyer(seat, out)
        elif kind is Buy:
            self._buy(action, out)
        elif kind is UsePower:
            self._use_power(seat, out)
        elif kind is Decline:
            self._next_power(seat, out)
        elif kind is ChooseTrick:
            self._apply_trick(SLOTS.index(action.slot), out)

    apply_quiet = _play
    """``apply_quiet(action)``: :meth:`apply_trusted` without making the events (playouts that read none): the steps
    are given no event list (``out`` None) and skip every event. It is :meth:`_play` itself (one call fewer on every
    decision of a playout)."""

    # ------------------------------------------------------------------------------------------ setup and days

    def _ask(self, seat: int | None, decision: str | None) -> None:
        self.pending_player, self.pending_decision = seat, decision

    def start_day(self, out: list[Any] | None) -> None:
        """KU-2: lay the line, draw the tricks, start the trick phase with the first player."""
        rules = self.t.rules
        self.line = [self.unicorn_deck.pop() for _ in range(min(rules.unicorns_per_day, len(self.unicorn_deck)))]
        self.slots = [[None, None] for _ in self.line]
        self.power_uses = [0] * self.players
        self.phase = "tricks"
        self.hunt = None
        if out is not None:
            out.append(ev.DayStarted(self.day, tuple(self.line)))
        for seat in _clockwise(self.first, self.players):
            count = min(rules.tricks_drawn, len(self.trick_deck[seat]))
            for _ in range(count):
                self.trick_hand[seat].append(self.trick_deck[seat].pop())
            if out is not None:
                out.append(ev.TricksDrawn(seat, count))
        self._trick_turn(self.first, out)

    def _trick_turn(self, seat: int, out: list[Any] | None) -> None:
        """Ask ``seat`` or the next player clockwise who still holds tricks; then the hunts start."""
        for candidate in _clockwise(seat, self.players):
            if candidate != seat and candidate == self.first:
                break
            if not self.trick_hand[candidate]:
                continue
            if not self._free_slots():  # KU-3.3: nowhere to put a trick: both are discarded
                for card in self.trick_hand[candidate]:
                    self.trick_discard[candidate].append(card)
                    if out is not None:
                        out.append(ev.TrickDiscarded(candidate, card))
                self.trick_hand[candidate] = []
                continue
            self._ask(candidate, "place_trick")
            return
        self.phase = "hunt"
        self._start_hunt(0, out)

    def _next_trick_turn(self, seat: int, out: list[Any] | None) -> None:
        nxt = (seat + 1) % self.players
        if nxt == self.first:
            self.phase = "hunt"
            self._start_hunt(0, out)
        else:
            self._trick_turn(nxt, out)

    def _place_trick(self, seat: int, action: PlaceTrick, out: list[Any] | None) -> None:
        self.trick_hand[seat].remove(action.card)
        self.slots[action.unicorn][SLOTS.index(action.slot)] = action.card
        if out is not None:
            out.append(ev.TrickPlaced(seat, action.unicorn, action.slot))
        for card in self.trick_hand[seat]:
            self.trick_discard[seat].append(card)
            if out is not None:
                out.append(ev.TrickDiscarded(seat, card))
        self.trick_hand[seat] = []
        self._next_trick_turn(seat, out)

    # ------------------------------------------------------------------------------------------ a hunt

    def _start_hunt(self, index: int, out: list[Any] | None) -> None:
        while index < len(self.line) and self.line[index] is None:
            index += 1
        if index >= len(self.line):
            self._open_market(out)
            return
        self.hunt = {"index": index, "holder": self.first, "opener": None, "n": None, "passed": [],
                     "declined": [], "joined": [], "to_decide": self.first, "step": "open", "sums": None,
                     "winner": None}
        if out is not None:
            out.append(ev.HuntStarted(index, self.line[index], self.first))
        self._ask_opener(out)

    def _ask_opener(self, out: list[Any] | None) -> None:
        """KU-4.1: the token holder opens or passes; one without cards passes by force; all declined → runs away."""
        hunt = self.hunt
        while len(hunt["declined"]) < self.players:
            holder = hunt["holder"]
            if self.hand[holder]:
                hunt["to_decide"] = holder
                self._ask(holder, "open")
                return
            self._decline(holder, out, forced=True, ask_next=False)
        self._run_away(out)

    def _decline(self, seat: int, out: list[Any] | None, *, forced: bool, ask_next: bool = True) -> None:
        hunt = self.hunt
        hunt["declined"].append(seat)
        if self.t.rules.decline_to_open_passes:
            hunt["passed"].append(seat)
        if out is not None:
            out.append(ev.Passed(seat, forced))
        left = (seat + 1) % self.players
        hunt["holder"] = self.first = left
        if out is not None:
            out.append(ev.TokenPassed(seat, left))
        if ask_next:
            self._ask_opener(out)

    def _open(self, seat: int, cards: tuple[str, ...], out: list[Any] | None) -> None:
        hunt = self.hunt
        for card in cards:
            self.hand[seat].remove(card)
            self.played[seat].append(card)
        hunt["opener"], hunt["n"], hunt["step"] = seat, len(cards), "join"
        if out is not None:
            out.append(ev.Opened(seat, len(cards)))
        self._next_joiner(seat, out)

    def _next_joiner(self, seat: int, out: list[Any] | None) -> None:
        """KU-4.2: clockwise from the opener, each player who has not passed joins or passes."""
        hunt = self.hunt
        candidate = (seat + 1) % self.players
        while candidate != hunt["opener"]:
            if candidate not in hunt["passed"]:
                if len(self.hand[candidate]) < hunt["n"]:
                    hunt["passed"].append(candidate)
                    if out is not None:
                        out.append(ev.Passed(candidate, True))
                else:
                    hunt["to_decide"] = candidate
                    self._ask(candidate, "join")
                    return
            candidate = (candidate + 1) % self.players
        self._reveal(out)

    def participants(self) -> list[int]:
        """The hunters of the current hunt, clockwise from the opener."""
        hunt = self.hunt
        if hunt is None or hunt["opener"] is None:
            return []
        opener, joined = hunt["opener"], hunt["joined"]
        if not joined:
            return [opener]
        players = self.players
        after = _AFTER[players][opener] if players < len(_AFTER) else _clockwise(opener, players)[1:]
        return [opener] + [s for s in after if s in joined]

    def _reveal(self, out: list[Any] | None) -> None:
        hunt = self.hunt
        seats = self.participants()
        value = self.t.value
        played = self.played
        hunt["sums"] = {seat: sum(map(value.__getitem__, played[seat])) for seat in seats}
        if out is not None:
            out.append(ev.Revealed({str(s): list(self.played[s]) for s in seats},
                                   {str(s): hunt["sums"][s] for s in seats}))
        hunt["step"] = "power"
        self._next_power(None, out, seats)

    def _has_hunt_power(self, seat: int) -> bool:
        power = self.t.power[self.chars[seat]]
        return power.timing == fx.AFTER_REVEAL and self.power_uses[seat] < self.t.rules.power_uses_per_day

    def _next_power(self, after: int | None, out: list[Any] | None, seats: list[int] | None = None) -> None:
        """AMB-KU-13: each hunter whose power acts after the reveal may use it, clockwise from the opener (``seats``:
        the participants, when the caller has them)."""
        if seats is None:
            seats = self.participants()
        start = 0 if after is None else seats.index(after) + 1
        t = self.t
        power, chars, uses, limit = t.power, self.chars, self.power_uses, t.rules.power_uses_per_day
        for seat in seats[start:]:
            if power[chars[seat]].timing == _AFTER_REVEAL and uses[seat] < limit:  # _has_hunt_power(seat)
                self.hunt["to_decide"] = seat
                self._ask(seat, "power")
                return
        self._resolve(out)

    def _use_power(self, seat: int, out: list[Any] | None) -> None:
        hunt = self.hunt
        character = self.t.data.character_by_id[self.chars[seat]]
        effect = character.power.effect
        self.power_uses[seat] += 1
        ctx = fx.HuntContext(hunt["sums"], frozenset(hunt["passed"]), seat, None, self.t.rules.tie_rule,
                             out is not None)
        result = fx.apply_hunt_effect(effect, ctx)
        if out is not None:
            out.append(ev.PowerUsed(seat, character.id, effect.to_json(),
                                    {**result.detail, "sums": {str(s): v for s, v in hunt["sums"].items()}}))
        if effect.type == "runs_away":
            if out is not None:
                out.append(ev.Winner(None, ()))
            self._run_away(out)
        else:
            self._next_power(seat, out)

    def _resolve(self, out: list[Any] | None) -> None:
        """KU-4.4: the provisional winner by the tie cascade, then the tricks (KU-4.5) or the escape (KU-4.6)."""
        hunt = self.hunt
        sums = hunt["sums"]
        winner = fx.cascade(sums, self.t.rules.tie_rule)
        if out is not None:    # the tied groups that dropped out, for the event
            dropped = []
            for value in sorted(set(sums.values()), reverse=True):
                group = tuple(s for s in sums if sums[s] == value)
                if len(group) == 1 and group[0] == winner:
                    break
                if len(group) > 1:
                    dropped.append(group)
            out.append(ev.Winner(winner, tuple(dropped)))
        if winner is None:
            self._run_away(out)
            return
        hunt["winner"] = winner
        above, below = self.slots[hunt["index"]]
        if above is not None and below is not None:
            if self.t.rules.trick_choice == "random":
                self._apply_trick(self.rng.randbelow(2), out)
            else:
                hunt["step"] = "choose"
                hunt["to_decide"] = winner
                self._ask(winner, "choose_trick")
        elif above is not None or below is not None:  # the one trick there
            self._apply_trick(0 if above is not None else 1, out)
        else:
            self._capture(winner, [], out)

    def _owner(self, trick: str) -> int:
        return self.chars.index(self.t.trick_character[trick])

    def _apply_trick(self, slot: int, out: list[Any] | None) -> None:
        hunt = self.hunt
        index = hunt["index"]
        card = self.slots[index][slot]
        other = self.slots[index][1 - slot]
        self.slots[index] = [None, None]
        owner = self._owner(card)
        kind = self.t.trick_kind[card]
        if out is not None:
            out.append(ev.TrickRevealed(card, owner, index, SLOTS[slot]))
        before = hunt["winner"]
        if fx.is_hunt_effect(kind.effect):
            ctx = fx.HuntContext(hunt["sums"], frozenset(hunt["passed"]), owner, before, self.t.rules.tie_rule,
                                 out is not None)
            result = fx.apply_hunt_effect(kind.effect, ctx)
            after, runs, ignored = result.winner, result.runs_away, result.ignored
        else:
            after, runs, ignored = before, False, False
        if out is not None:
            out.append(ev.TrickApplied(card, kind.effect.to_json(), before, after, ignored))
        if other is not None:
            other_owner = self._owner(other)
            self.trick_discard[other_owner].append(other)
            if out is not None:
                out.append(ev.TrickUnplayed(other, other_owner))
        if runs or after is None:
            self.trick_discard[owner].append(card)
            self._run_away(out, (card,))
            return
        hunt["winner"] = after
        if kind.pinned:
            self._capture(after, [card], out)
        else:
            self.trick_discard[owner].append(card)
            self._capture(after, [], out)

    def _run_away(self, out: list[Any] | None, applied: tuple[str, ...] = ()) -> None:
        """KU-4.6: the unicorn and its tricks are discarded (tricks face up to their owners)."""
        index = self.hunt["index"]
        unicorn = self.line[index]
        tricks = list(applied)
        for card in self.slots[index]:
            if card is not None:
                self.trick_discard[self._owner(card)].append(card)
                tricks.append(card)
        self.slots[index] = [None, None]
        self.unicorn_discard.append(unicorn)
        if out is not None:
            out.append(ev.RanAway(unicorn, tuple(tricks)))
        self._end_hunt(None, out)

    def _capture(self, winner: int, pinned: list[str], out: list[Any] | None) -> None:
        index = self.hunt["index"]
        unicorn = self.line[index]
        self.catch[winner].append([unicorn, pinned, []])
        if out is not None:
            out.append(ev.Captured(winner, unicorn, tuple(pinned)))
        self._end_hunt(winner, out)

    def _end_hunt(self, catcher: int | None, out: list[Any] | None) -> None:
        """KU-4.8, 4.9: played cards to their owners' discards; the catcher takes the first-player token."""
        hunt = self.hunt
        self.line[hunt["index"]] = None
        for seat in self.participants():
            cards = self.played[seat]
            self.hunt_discard[seat].extend(cards)
            self.played[seat] = []
            if out is not None:
                out.append(ev.HuntingDiscarded(seat, tuple(cards)))
        if catcher is not None:
            self.first = catcher
            if out is not None:
                out.append(ev.FirstPlayer(catcher))
        self._start_hunt(hunt["index"] + 1, out)

    # ------------------------------------------------------------------------------------------ the market

    def _open_market(self, out: list[Any] | None) -> None:
        self.phase = "market"
        self.hunt = None
        if out is not None:
            out.append(ev.MarketOpened())
        self._market_turn(self.first, out)

    def _market_turn(self, seat: int, out: list[Any] | None) -> None:
        """KU-5.1: from the first player clockwise; a player who can buy nothing skips by force."""
        for candidate in _clockwise(seat, self.players):
            if candidate != seat and candidate == self.first:
                break
            buys = self._buys(candidate)
            if buys:
                self._ask(candidate, "market")
                self.market_buys = (candidate, buys)  # what legal_actions offers next, computed once
                return
            if out is not None:
                out.append(ev.Skipped(candidate, True))
            if (candidate + 1) % self.players == self.first:
                break
        self._end_day(out)

    def _next_buyer(self, seat: int, out: list[Any] | None) -> None:
        nxt = (seat + 1) % self.players
        if nxt == self.first:
            self._end_day(out)
        else:
            self._market_turn(nxt, out)

    def _buy(self, action: Buy, out: list[Any] | None) -> None:
        seat = action.player
        spec = self.t.item[action.item]
        power = self.t.data.character_by_id[self.chars[seat]].power
        if power.timing == fx.AT_MARKET and self.power_uses[seat] < self.t.rules.power_uses_per_day:
            if self._price(seat, action.item) != spec.price:
                self.power_uses[seat] += 1
        token = self.market[action.item].pop()
        for card in action.cards:
            self.hand[seat].remove(card)
            self.hunt_discard[seat].append(card)
        if out is not None:
            out.append(ev.Bought(seat, action.item, token, tuple(action.cards), action.unicorn))
        if spec.effect.type == "remove_own_unicorn":
            mine = self.catch[seat]
            at = next(i for i, entry in enumerate(mine) if entry[0] == action.unicorn)
            unicorn, pinned, tokens = mine.pop(at)
            for card in pinned:
                self.trick_discard[self._owner(card)].append(card)
            self.box.extend(tokens)
            self.box.append(unicorn)   # out of the game
            if out is not None:
                out.append(ev.UnicornTurnedIn(seat, unicorn))
            self.tokens[seat].append(token)
        elif spec.target == "player_area":
            self.tokens[seat].append(token)
        else:
            for mine in self.catch:
                for entry in mine:
                    if entry[0] == action.unicorn:
                        entry[2].append(token)
        self._next_buyer(seat, out)

    def _end_day(self, out: list[Any] | None) -> None:
        """KU-6: every hunting card back to hand; the next day, or the end after the last."""
        if out is not None:
            out.append(ev.DayEnded(self.day))
        index = self.t.hunt_index
        for seat in range(self.players):
            self.hand[seat] = sorted(self.hand[seat] + self.hunt_discard[seat] + self.played[seat],
                                     key=index.__getitem__)
            self.hunt_discard[seat] = []
            self.played[seat] = []
        if out is not None:
            out.append(ev.HandsReturned())
        if self.day >= self.t.rules.days:
            self.phase = "over"
            self.hunt = None
            self._ask(None, None)
            outcome = self.outcome()
            assert outcome is not None
            if out is not None:
                out.append(ev.GameOver(outcome.winners, outcome.decided_by,
                                       tuple(s.to_json() for s in outcome.standings)))
            return
        self.day += 1
        self.start_day(out)

    # ------------------------------------------------------------------------------------------ scoring

    def standings(self) -> list[Standing]:
        """KU-7 for every seat, on the unicorns captured so far (the score panel during the game)."""
        t = self.t
        scored_unicorn = t.scored_unicorn
        out = []
        for seat in range(self.players):
            scored = [scored_unicorn(unicorn, pinned, tokens) for unicorn, pinned, tokens in self.catch[seat]]
            points = fx.player_points(t.item[t.token_item[k]].effect for k in self.tokens[seat])
            out.append(standing(seat, scored, points, t.colours, t.rules))
        return out

    # ------------------------------------------------------------------------------------------ views

    def view(self, player: int) -> dict[str, Any]:
        """What ``player`` may know: their own hand and drawn tricks; of the others, counts. Nobody sees a trick
        deck's order, a placed trick (only its owner, by its back), or played hunting cards before the reveal."""
        snap = self.to_snapshot()
        del snap["rng"]
        revealed = self.hunt is not None and self.hunt["sums"] is not None
        for seat, entry in enumerate(snap["players"]):
            entry["trick_deck"] = len(entry["trick_deck"])
            if seat != player:
                entry["hand"] = len(entry["hand"])
                entry["trick_hand"] = len(entry["trick_hand"])
            if not revealed:
                entry["played"] = len(entry["played"])
        snap["slots"] = [[None if card is None else {"owner": self._owner(card)} for card in pair]
                         for pair in self.slots]
        snap["unicorn_deck"] = len(snap["unicorn_deck"])
        return snap


# ---------------------------------------------------------------------------------------------- a hunt's copy

def _copy_hunt(hunt: dict[str, Any] | None) -> dict[str, Any] | None:
    if hunt is None:
        return None
    other = dict(hunt)
    for key in ("passed", "declined", "joined"):
        other[key] = list(hunt[key])
    if hunt["sums"] is not None:
        other["sums"] = dict(hunt["sums"])
    return other


# ---------------------------------------------------------------------------------------------- new games

def choose_characters(data: KillTheUnicornsData, players: int, rng: SeededRandom) -> list[str]:
    """Characters dealt at random (KU-1.1); promo characters only when needed (``promo_characters``)."""
    pool = [c.id for c in data.characters]
    if data.rules.promo_characters == "when_needed":
        regular = [c.id for c in data.characters if not c.promo]
        if len(regular) >= players:
            pool = regular
    rng.shuffle(pool)
    return pool[:players]


def start_game(data: KillTheUnicornsData, players: int, *, mode: str | None = None, seed: int = 0,
               characters: Sequence[str] | None = None) -> tuple[GameState, list[Any]]:
    """A new game of ``mode`` (the game's first when None) for ``players`` seats dealt with ``seed`` (setup of
    KU-1.2, S3-3 … S3-10), ``characters`` in seat order or dealt at random when None, and the events of its first
    day's start. ``InvalidAction`` for a player count, mode or character list the game does not take."""
    meta = data.info
    if mode is None:
        mode = meta.modes[0]
    elif mode not in meta.modes:
        raise InvalidAction(f"Kill the Unicorns has no mode {mode!r} ({', '.join(meta.modes)})")
    if isinstance(players, bool) or not isinstance(players, int) or not meta.min_players <= players <= meta.max_players:
        raise InvalidAction(f"Kill the Unicorns takes {meta.min_players} to {meta.max_players} players, not {players}")
    t = tables_for(data)
    rng = SeededRandom(seed)
    if characters is None:
        chars = choose_characters(data, players, rng)
    else:
        chars = list(characters)
        if len(chars) != players:
            raise InvalidAction(f"{len(chars)} characters for {players} players")
        for c in chars:
            if c not in data.character_by_id:
                raise InvalidAction(f"{c!r} is not a character ({', '.join(data.character_by_id)})")
        if len(set(chars)) != len(chars):
            raise InvalidAction("each player plays a different character")
    state = GameState.__new__(GameState)
    state.data, state.t, state.mode, state.players, state.chars = data, t, mode, players, tuple(chars)
    state.day, state.phase = 1, "tricks"
    state.first = rng.randbelow(players) if data.rules.first_player == "random" else 0
    state.hand = [list(t.hunt_ids[c]) for c in chars]   # <character>-hunt-1 … in index order
    state.played = [[] for _ in chars]
    state.hunt_discard = [[] for _ in chars]
    state.trick_deck = []
    for c in chars:
        deck = list(t.trick_ids[c])                     # <character>-trick-1 … in index order
        rng.shuffle(deck)
        state.trick_deck.append(deck)
    state.trick_hand = [[] for _ in chars]
    state.trick_discard = [[] for _ in chars]
    starts = [u.id for u in data.start_unicorns]
    rng.shuffle(starts)
    deck = [u.id for u in data.deck_unicorns]
    rng.shuffle(deck)
    state.catch = []
    for seat in range(players):
        # Players beyond the start unicorns (7 players) take the top unicorn of the deck (rules.md).
        state.catch.append([[starts.pop() if starts else deck.pop(), [], []]])
    state.tokens = [[] for _ in chars]
    state.power_uses = [0] * players
    state.line, state.slots = [], []
    state.unicorn_deck, state.unicorn_discard = deck, []
    state.box = sorted(starts)
    state.market = {}
    for item in data.market:
        tokens = list(data.tokens(item.id))
        on_market = item.stock_for(players)
        state.market[item.id] = tokens[:on_market]
        state.box.extend(tokens[on_market:])
    state.box.extend(c.id for c in data.characters if c.id not in chars)
    state.hunt = None
    state.pending_player = state.pending_decision = None
    state.rng = rng
    state.final = None
    state.market_buys = None
    events: list[Any] = []
    if data.rules.first_player == "random":
        events.append(ev.FirstPlayer(state.first))
    state.start_day(events)
    return state, events


def new_game(data: KillTheUnicornsData, players: int, *, mode: str | None = None, seed: int = 0,
             characters: Sequence[str] | None = None) -> GameState:
    """:func:`start_game` without its events."""
    return start_game(data, players, mode=mode, seed=seed, characters=characters)[0]


def _from_tree(data: KillTheUnicornsData, tree: dict[str, Any]) -> GameState:
    """The state a checked snapshot tree (:func:`.snapshot.read`) describes."""
    state = GameState.__new__(GameState)
    players = tree["players"]
    state.data, state.t, state.mode, state.players = data, tables_for(data), tree["mode"], len(players)
    state.day, state.phase, state.first = tree["day"], tree["phase"], tree["first"]
    state.chars = tuple(p["character"] for p in players)
    for name in ("hand", "played", "hunt_discard", "trick_deck", "trick_hand", "trick_discard", "tokens"):
        setattr(state, name, [p[name] for p in players])
    state.catch = [[[c["unicorn"], c["pinned"], c["tokens"]] for c in p["catch"]] for p in players]
    per_day = data.rules.power_uses_per_day
    state.power_uses = [p["power_uses"] if p["power_uses"] is not None else per_day if p["power_used"] else 0
                        for p in players]
    state.line, state.slots = tree["line"], tree["slots"]
    state.unicorn_deck, state.unicorn_discard, state.box = tree["unicorn_deck"], tree["unicorn_discard"], tree["box"]
    state.market = tree["market"]
    state.hunt = tree["hunt"]
    pending = tree["pending"]
    state.pending_player, state.pending_decision = ((None, None) if pending is None else
                                                    (pending["player"], pending["decision"]))
    state.rng = SeededRandom.from_text(tree["rng"])
    state.final = None
    state.market_buys = None
    return state
