"""The effect registry: every card effect of Kill the Unicorns is data naming one of these types.

Each type is a small function over a narrow context, so the real trick texts, powers and market items become
data (cards.toml) mapped onto these types, never code (rules spec §4.5, AMB-KU-02, AMB-KU-08).

Timings (when an effect acts):

- ``on_reveal`` — a trick card, when it is revealed in a hunt (KU-4.5), after the provisional winner is known;
- ``after_reveal`` — a character power, used by choice after the reveal of a hunt its character joined, before
  the provisional winner is found (AMB-KU-13);
- ``at_market`` — a character power that acts by itself on its character's black-market purchase;
- ``when_bought`` — a market item, at once when bought (the pâté turning in a unicorn);
- ``at_scoring`` — a pinned trick or a market token, at the final scoring (KU-7.2, KU-7.3).

Types and their parameters:

==================== ========================== =================================================================
type                 parameters                 effect
==================== ========================== =================================================================
hunt_sum_delta       target, delta              add ``delta`` to the sums of ``target``: ``self`` (the card's
                                                owner or the power's user, if a participant), ``winner``,
                                                ``each_participant``, ``others`` (every participant but self),
                                                ``highest`` (the participants holding the top sum); the winner is
                                                then found again by the tie cascade (none → runs away)
change_winner        rule                       ``second`` (the winner drops out, the cascade runs on the rest),
                                                ``lowest`` (the lowest sum held by one participant), ``self``;
                                                ignored when it names nobody or a player who passed (KU-E9)
runs_away            —                          the unicorn runs away (no winner, tricks discarded)
stars_delta          delta                      the unicorn it is attached to is worth ``delta`` more stars
set_colour           colour                     the unicorn counts as ``colour`` (a colour id, or
                                                ``owner_choice``: the scoring picks the best colour, KU-7.3)
points               delta                      its owner scores ``delta`` points
remove_own_unicorn   points, max_stars (opt.)   turn in one of the buyer's unicorns (with at most ``max_stars``
                                                printed stars): it leaves the game; the token scores ``points``
price_delta          delta                      the user's black-market price changes by ``delta`` (not below 0)
==================== ========================== =================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from bridge.rules.values import frozen_value
from bridge.rules.kill_the_unicorns.records import Effect

ON_REVEAL, AFTER_REVEAL, AT_MARKET, WHEN_BOUGHT, AT_SCORING = (
    "on_reveal", "after_reveal", "at_market", "when_bought", "at_scoring")
TIMINGS: tuple[str, ...] = (ON_REVEAL, AFTER_REVEAL, AT_MARKET, WHEN_BOUGHT, AT_SCORING)
POWER_TIMINGS: tuple[str, ...] = (AFTER_REVEAL, AT_MARKET)
OWNER_CHOICE = "owner_choice"

HUNT_TARGETS: tuple[str, ...] = ("self", "winner", "each_participant", "others", "highest")
WINNER_RULES: tuple[str, ...] = ("second", "lowest", "self")


@dataclass(frozen=True)
class EffectType:
    """What the data may say of one effect type: its parameters (required, optional) and its timings
    (the first is the default when the data names none)."""

    name: str
    required: tuple[str, ...]
    optional: tuple[str, ...]
    timings: tuple[str, ...]


HUNT_TIMINGS = (ON_REVEAL, AFTER_REVEAL)
EFFECT_TYPES: Mapping[str, EffectType] = {t.name: t for t in (
    EffectType("hunt_sum_delta", ("target", "delta"), (), HUNT_TIMINGS),
    EffectType("change_winner", ("rule",), (), HUNT_TIMINGS),
    EffectType("runs_away", (), (), HUNT_TIMINGS),
    EffectType("stars_delta", ("delta",), (), (AT_SCORING,)),
    EffectType("set_colour", ("colour",), (), (AT_SCORING,)),
    EffectType("points", ("delta",), (), (AT_SCORING,)),
    EffectType("remove_own_unicorn", ("points",), ("max_stars",), (WHEN_BOUGHT,)),
    EffectType("price_delta", ("delta",), (), (AT_MARKET,)),
)}


# --------------------------------------------------------------------------------------------- the hunt

def cascade(sums: Mapping[int, int], tie_rule: str = "drop_tied_groups") -> int | None:
    """The provisional winner of KU-4.4 among ``sums`` (participants only): the highest sum held by exactly one
    participant, tied groups dropping out from the top (AMB-KU-04); ``None`` when every sum is shared. With
    ``tie_rule == "runs_away"`` any tie at the top makes the unicorn run away."""
    if not sums:
        return None
    counts: dict[int, int] = {}
    for value in sums.values():
        counts[value] = counts.get(value, 0) + 1
    for value in sorted(counts, reverse=True):
        if counts[value] == 1:
            for seat, held in sums.items():
                if held == value:
                    return seat
        if tie_rule == "runs_away":
            return None
    return None


def lowest_unique(sums: Mapping[int, int]) -> int | None:
    """The participant holding the lowest sum nobody else holds, or ``None``."""
    counts: dict[int, int] = {}
    for value in sums.values():
        counts[value] = counts.get(value, 0) + 1
    for value in sorted(counts):
        if counts[value] == 1:
            return next(seat for seat, held in sums.items() if held == value)
    return None


@dataclass
class HuntContext:
    """What a hunt effect sees and changes: the participants' sums (changed in place), who passed, whose card
    or power it is (``owner``), and the provisional winner (``None`` while powers act, before it is found);
    ``explain`` False when nobody reads the result's ``detail`` (a playout without events): it may stay empty."""

    sums: dict[int, int]
    passed: frozenset[int]
    owner: int
    winner: int | None
    tie_rule: str = "drop_tied_groups"
    explain: bool = True


@frozen_value  # made for every trick and power of every hunt
class HuntResult:
    """What a hunt effect decided: the winner after it, whether the unicorn runs away, whether the effect was
    ignored (it named nobody, or a player who passed), and what it did (``detail``, JSON for the events)."""

    winner: int | None
    runs_away: bool
    ignored: bool
    detail: dict[str, Any]


def _targets(target: str, ctx: HuntContext) -> list[int]:
    if target == "self":
        return [ctx.owner] if ctx.owner in ctx.sums else []
    if target == "winner":
        return [ctx.winner] if ctx.winner is not None else []
    if target == "each_participant":
        return list(ctx.sums)
    if target == "others":
        return [seat for seat in ctx.sums if seat != ctx.owner]
    if target == "highest":
        top = max(ctx.sums.values(), default=None)
        return [seat for seat, value in ctx.sums.items() if value == top]
    raise ValueError(target)


def hunt_sum_delta(effect: Effect, ctx: HuntContext) -> HuntResult:
    seats = _targets(effect.target or "", ctx)
    for seat in seats:
        ctx.sums[seat] += effect.delta
    winner = cascade(ctx.sums, ctx.tie_rule)
    detail = {"changed": {str(seat): ctx.sums[seat] for seat in seats}} if ctx.explain else {}
    return HuntResult(winner, winner is None, not seats, detail)


def change_winner(effect: Effect, ctx: HuntContext) -> HuntResult:
    if effect.rule == "second":
        rest = {seat: value for seat, value in ctx.sums.items() if seat != ctx.winner}
        named = cascade(rest, ctx.tie_rule)
    elif effect.rule == "lowest":
        named = lowest_unique(ctx.sums)
    else:
        named = ctx.owner
    # KU-4.5 / KU-E9: the unicorn never goes to a player who passed (nor to nobody): the change is ignored.
    if named is None or named not in ctx.sums or named in ctx.passed:
        return HuntResult(ctx.winner, ctx.winner is None, True, {"named": named})
    return HuntResult(named, False, False, {"named": named})


def runs_away(effect: Effect, ctx: HuntContext) -> HuntResult:
    return HuntResult(None, True, False, {})


HUNT_EFFECTS = {"hunt_sum_delta": hunt_sum_delta, "change_winner": change_winner, "runs_away": runs_away}


def apply_hunt_effect(effect: Effect, ctx: HuntContext) -> HuntResult:
    """Apply a hunt effect (timing ``on_reveal`` or ``after_reveal``) to ``ctx``."""
    return HUNT_EFFECTS[effect.type](effect, ctx)


def is_hunt_effect(effect: Effect) -> bool:
    return effect.type in HUNT_EFFECTS


# --------------------------------------------------------------------------------------------- the market

def price_with(effects: Iterable[Effect], price: int) -> int:
    """A black-market price after the buyer's ``price_delta`` effects (never below 0)."""
    for effect in effects:
        if effect.type == "price_delta":
            price += effect.delta
    return max(0, price)


def may_turn_in(effect: Effect, stars: int) -> bool:
    """Whether ``remove_own_unicorn`` accepts a unicorn of ``stars`` printed stars."""
    return effect.max_stars is None or stars <= effect.max_stars


# --------------------------------------------------------------------------------------------- scoring

@dataclass(frozen=True)
class UnicornScore:
    """What the effects attached to one unicorn do at scoring: extra stars, points to its owner, and its colour
    (``None``: unchanged; ``owner_choice``: any colour, chosen by the optimiser)."""

    stars: int = 0
    points: int = 0
    colour: str | None = None


def unicorn_effects(effects: Iterable[Effect]) -> UnicornScore:
    """The scoring effects of the cards and tokens on one unicorn, in the order they were put there (the last
    colour wins: a token bought later covers a pinned trick's colour)."""
    stars = points = 0
    colour = None
    for effect in effects:
        if effect.type == "stars_delta":
            stars += effect.delta
        elif effect.type == "points":
            points += effect.delta
        elif effect.type == "set_colour":
            colour = effect.colour
    return UnicornScore(stars, points, colour)


def player_points(effects: Iterable[Effect]) -> int:
    """Points of the effects in front of a player (tokens of ``player_area`` items): ``points`` deltas and the
    points of turned-in unicorns (``remove_own_unicorn``)."""
    total = 0
    for effect in effects:
        if effect.type == "points":
            total += effect.delta
        elif effect.type == "remove_own_unicorn":
            total += effect.points
    return total
