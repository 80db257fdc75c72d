"""The Kill the Unicorns snapshot (docs/games/kill_the_unicorns/protocol.md): its schema, declared once, the state
written to it, and a snapshot checked (the state is built from the checked tree by ``state.py``, which imports
this module; this one imports nothing of it).

:func:`schema` declares every key and what it must be (:mod:`bridge.rules.schema`): reading through it checks
each value, names the path of what is wrong and takes what Lua writes (``[]`` for an empty object, ``false`` for
none, keys left out). Every card, unicorn and token id may stand in one place only, and each player plays a
character of their own (the schema's ``Unique``). What spans keys is checked here, on the tree read: a hunt
exactly in the hunt phase, a pending decision exactly until the game is over.
"""

from __future__ import annotations

from typing import Any

from bridge.rules import schema as s
from bridge.rules.contract import envelope, read_envelope
from bridge.rules.kill_the_unicorns.records import KillTheUnicornsData

GAME_ID = "kill-the-unicorns"
PHASES = ("tricks", "hunt", "market", "over")
DECISIONS = ("place_trick", "open", "join", "choose_trick", "power", "market")
STEPS = ("open", "join", "power", "choose")

_SCHEMAS: dict[int, tuple[KillTheUnicornsData, s.Record]] = {}


def schema(data: KillTheUnicornsData) -> s.Record:
    """The snapshot's schema for this game data (its cards, unicorns, market items and rule flags), made once per
    data."""
    found = _SCHEMAS.get(id(data))
    if found is None or found[0] is not data:
        found = _SCHEMAS[id(data)] = (data, _schema(data))
    return found[1]


def _schema(data: KillTheUnicornsData) -> s.Record:
    F = s.Field

    def ids(known: Any, what: str) -> s.Shape:     # an id of ``known``, in one place only of the whole table
        return s.Unique(s.OneOf(frozenset(known), what), "ids")

    def id_list(known: Any, what: str) -> s.ListOf:
        return s.ListOf(ids(known, what), what="ids")

    hunting, tricks = frozenset(data.hunting_cards), frozenset(data.trick_cards)
    unicorn = ids(data.unicorn_by_id, "a unicorn id")
    trick = ids(tricks, "a trick card id")
    token = ids(data.token_item, "a token id")
    seat = s.Seat()
    seats = s.ListOf(seat, what="seats")
    catch = s.Record({
        "unicorn": F(unicorn, doc="the unicorn caught"),
        "pinned": F(s.ListOf(trick, what="ids"), [], doc="the pinned tricks travelling with it"),
        "tokens": F(s.ListOf(token, what="ids"), [], doc="the market tokens on it"),
    })
    player = s.Record({
        "character": F(s.Unique(s.OneOf(frozenset(data.character_by_id), "a character"), "characters"),
                       doc="the character the seat plays (each seat its own)"),
        "hand": F(id_list(hunting, "a hand card id"), [], doc="hunting cards in hand"),
        "played": F(id_list(hunting, "a played card id"), [], doc="hunting cards laid face down in this hunt"),
        "hunt_discard": F(id_list(hunting, "a hunt discard card id"), [], doc="hunting cards discarded, face up"),
        "trick_deck": F(id_list(tricks, "a trick deck card id"), [], doc="tricks face down, top last"),
        "trick_hand": F(id_list(tricks, "a trick hand card id"), [], doc="the tricks drawn today, not yet placed"),
        "trick_discard": F(id_list(tricks, "a trick discard card id"), [], doc="tricks discarded, face up"),
        "catch": F(s.ListOf(catch, what="unicorns"), [], doc="the unicorns caught, with their tricks and tokens"),
        "tokens": F(s.ListOf(token, what="ids"), [], doc="tokens in front of the player (pâté)"),
        "power_used": F(s.Boolean(), False, doc="whether no use of the power is left today"),
        "power_uses": F(s.Nullable(s.Integer(0)), None, doc="uses of the power today; left out: all of them "
                                                           "if power_used, else none"),
    })
    hunt = s.Record({
        "index": F(s.Integer(0, lambda reading: max(0, reading.count("line") - 1)), doc="the line position"),
        "holder": F(seat, doc="the first-player token's holder"),
        "opener": F(s.Nullable(seat), None, doc="who opened, or null"),
        "n": F(s.Nullable(s.Integer(1, 8)), None, doc="the number of cards the opener laid, or null"),
        "passed": F(seats, [], doc="players out of this hunt"),
        "declined": F(seats, [], doc="players who declined to open"),
        "joined": F(seats, [], doc="players who joined"),
        "to_decide": F(s.Nullable(seat), None, doc="who decides next, or null"),
        "step": F(s.OneOf(STEPS, "a hunt step"), doc="open, join, power or choose"),
        "sums": F(s.Nullable(s.MapOf(seat, s.Integer(-1000, 1000))), None,
                  doc="after the reveal: seat → sum, or null"),
        "winner": F(s.Nullable(seat), None, doc="the provisional winner, or null"),
    })
    pending = s.Record({"player": F(seat, doc="the seat that decides"),
                        "decision": F(s.OneOf(DECISIONS, "a decision"), doc="what it decides")})
    box = frozenset(data.unicorn_by_id) | frozenset(data.token_item) | frozenset(data.character_by_id)
    info = data.info
    return s.Record({
        **envelope(GAME_ID, info.modes),
        "day": F(s.Integer(1, data.rules.days), doc="the day, from 1"),
        "phase": F(s.OneOf(PHASES, "a phase"), doc="tricks, hunt, market or over"),
        "first": F(seat, doc="the seat holding the first-player token"),
        "players": F(s.ListOf(player, min_length=info.min_players, max_length=info.max_players,
                              count_as="players", what="players"), doc="the seats, in seat order"),
        "line": F(s.ListOf(s.Nullable(unicorn), count_as="line", what="unicorns"),
                  doc="the unicorn of each hunt, null once hunted"),
        "slots": F(s.ListOf(s.ListOf(s.Nullable(trick), length=2, what="slots (above, below)"),
                            length=lambda reading: reading.count("line"), what="pairs (one per line unicorn)"),
                   doc="[above, below] trick ids of each line unicorn, or null"),
        "unicorn_deck": F(id_list(data.unicorn_by_id, "a unicorn id"), doc="the unicorn deck, top last"),
        "unicorn_discard": F(id_list(data.unicorn_by_id, "a unicorn id"), doc="unicorns that ran away"),
        "box": F(id_list(box, "a unicorn, token or character id"), doc="what is out of the game"),
        "market": F(s.Record({item.id: F(id_list(data.tokens(item.id), f"a {item.id} token id"), [])
                              for item in data.market}, closed=True),
                    doc="each item's tokens on the market"),
        "hunt": F(s.Nullable(hunt), doc="the hunt in progress, null outside the hunt phase"),
        "pending": F(s.Nullable(pending), doc="who decides what, null once the game is over"),
        "rng": F(s.Hex(16), doc="the random state"),
    })


# ------------------------------------------------------------------------------------------------ writing

def write(state: Any) -> dict[str, Any]:
    """The whole state as its snapshot (hidden faces included), keys in the schema's order; every list a copy."""
    per_day = state.t.rules.power_uses_per_day
    hunt = state.hunt
    return s.write(schema(state.data), {
        "ttsmod_snapshot": 1, "game": GAME_ID, "mode": state.mode,
        "day": state.day, "phase": state.phase, "first": state.first,
        "players": [{
            "character": state.chars[seat],
            "hand": state.hand[seat], "played": state.played[seat], "hunt_discard": state.hunt_discard[seat],
            "trick_deck": state.trick_deck[seat], "trick_hand": state.trick_hand[seat],
            "trick_discard": state.trick_discard[seat],
            "catch": [{"unicorn": u, "pinned": p, "tokens": k} for u, p, k in state.catch[seat]],
            "tokens": state.tokens[seat],
            "power_used": state.power_uses[seat] >= per_day, "power_uses": state.power_uses[seat],
        } for seat in range(state.players)],
        "line": state.line, "slots": state.slots,
        "unicorn_deck": state.unicorn_deck, "unicorn_discard": state.unicorn_discard, "box": state.box,
        "market": state.market,
        "hunt": hunt,
        "pending": (None if state.pending_player is None else
                    {"player": state.pending_player, "decision": state.pending_decision}),
        "rng": state.rng.to_text(),
    })


# ------------------------------------------------------------------------------------------------ reading

def read(data: KillTheUnicornsData, snapshot: Any) -> dict[str, Any]:
    """``snapshot`` checked: its envelope, every key through :func:`schema`, then what spans keys. The checked
    tree, from which :meth:`GameState.from_snapshot` builds the state; :class:`~bridge.rules.errors.SnapshotError`
    naming the path of the first problem."""
    read_envelope(GAME_ID, data.info.modes, snapshot)
    tree = s.read(schema(data), snapshot, s.Reading(data))
    at = s.r.At.snapshot()
    phase = tree["phase"]
    if (tree["hunt"] is None) == (phase == "hunt"):
        raise at.sub("hunt").error("must be an object during the hunt phase and null in every other")
    if (tree["pending"] is None) != (phase == "over"):
        raise at.sub("pending").error("must be null exactly when the game is over")
    pending = tree["pending"]
    if pending is not None and pending["decision"] not in PHASE_DECISIONS[phase]:
        raise at.sub("pending").sub("decision").error(
            f"{s.show(pending['decision'])} is not a decision of the {phase} phase")
    if tree["hunt"] is not None:
        _check_hunt(at.sub("hunt"), tree["hunt"], pending, tree)
    return tree


PHASE_DECISIONS = {"tricks": ("place_trick",), "hunt": ("open", "join", "power", "choose_trick"),
                   "market": ("market",), "over": ()}
STEP_DECISION = {"open": "open", "join": "join", "power": "power", "choose": "choose_trick"}


def _check_hunt(at: Any, hunt: dict[str, Any], pending: dict[str, Any], tree: dict[str, Any]) -> None:
    """What the hunt's step says the other hunt keys hold (KU-4): the opener and ``n`` once opened, the sums from
    the reveal on, the winner in the trick choice, the decision of the step, a unicorn at ``index``."""
    step = hunt["step"]
    if pending["decision"] != STEP_DECISION[step]:
        raise at.sub("step").error(f"{s.show(step)} does not match the pending decision "
                                   f"{s.show(pending['decision'])}")
    if tree["line"][hunt["index"]] is None:
        raise at.sub("index").error(f"line[{hunt['index']}] holds no unicorn to hunt")
    opened, revealed = step != "open", step in ("power", "choose")
    for key in ("opener", "n"):
        if (hunt[key] is not None) != opened:
            raise at.sub(key).error("must be null in the open step and set after it")
    if (hunt["sums"] is not None) != revealed:
        raise at.sub("sums").error("must be null before the reveal (open and join steps) and set after it")
    if (hunt["winner"] is not None) != (step == "choose"):
        raise at.sub("winner").error("must be set exactly in the choose step")
    if revealed:
        hunters = {hunt["opener"], *hunt["joined"]}
        if set(hunt["sums"]) != hunters:
            raise at.sub("sums").error(f"must hold the sums of the opener and the players who joined "
                                       f"({', '.join(map(str, sorted(hunters)))})")
        if step == "power" and pending["player"] not in hunters:
            raise at.sub("to_decide").error("the seat using its power must be a hunter")
    if step == "choose":
        if hunt["winner"] not in hunt["sums"]:
            raise at.sub("winner").error("must be a hunter")
        if None in tree["slots"][hunt["index"]]:
            raise at.sub("index").error("the winner chooses between two tricks: both slots must hold one")
