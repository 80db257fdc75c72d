"""End-to-end harness for Kill the Unicorns: the built save on the headless table, talking to a real `ttsmod bridge`.

:class:`Game` plays as scripted players would: it seats them, presses Setup, and for every decision asks the
engine for the legal actions of the table as it lies (:meth:`Game.state`: the table read in Python by
``tableview.read_table`` plus the engine's bookkeeping the mod keeps in its saved ledger), picks one, and performs
it the way a player does: a trick card dragged from the hand onto a slot of the line, hunting cards laid in the
hunt area and *Hunt* pressed, *Pass*, *Above*/*Below*, *Use power*/*Decline*, payment dropped on an item's stock
(and a token of it dragged onto the unicorn it goes on) and *Buy*, or *Skip*. Once the mod has asked the bridge
and applied the ruling, :meth:`Game.check` compares the table with what the engine makes of the same action on the
same table: every hand, pile, area, slot, the line, the catch areas with their pinned tricks and tokens, the
market and the box, the decision the mod now waits for, and the score panel. The life cycle (build, bridge,
start, reload) is :class:`tests.e2e.harness.LiveGame`'s.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bridge.rules.game import registered_game
from bridge.rules.contract import lua_json as whole_numbers
from tests.e2e.harness import LiveGame, diff, flat, inside, lua_nulls
from tests.games.kill_the_unicorns.e2e.tableview import CARD, catch_owner, physical, read_table, seat_zone, zone
from tools.headless import Fidelity, HObject
from tools.headless.geometry import Vec, position_to_world

GAME = "kill-the-unicorns"
PHYSICAL_TOP = ("line", "slots", "unicorn_deck", "unicorn_discard", "box", "market")
PHYSICAL_PLAYER = ("hand", "played", "hunt_discard", "trick_deck", "trick_hand", "trick_discard", "catch", "tokens")



def bookkeeping(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The keys of a snapshot the table does not show (the engine's bookkeeping), null and false alike."""
    out = {k: lua_nulls(v) for k, v in snapshot.items() if k not in PHYSICAL_TOP and k not in ("players", "rng")}
    out["players"] = [{k: lua_nulls(v) for k, v in p.items() if k not in PHYSICAL_PLAYER}
                      for p in snapshot["players"]]
    return out


class Game(LiveGame):
    """Scripted players at a headless Kill the Unicorns table with a live bridge (see the module docstring)."""

    def __init__(self, save: dict, data: Any, repo: Path, colours: list[str], *, seed: int = 1,
                 fidelity: Fidelity | None = None, bots: dict[str, str] | None = None) -> None:
        super().__init__(save, repo, colours, seed=seed, fidelity=fidelity, bots=bots)
        self.data = data
        self.engine = registered_game(GAME)
        self.items = [m.id for m in data.market]
        self.actions_checked = 0
        self.kinds: dict[str, int] = {}
        self.over_checked = False
        self._read_key: tuple[int, int] | None = None

    def reloaded(self) -> None:
        self._read_key = None

    # ------------------------------------------------------------------ what players see
    def waiting(self, s: str) -> bool:
        return any(s.startswith(f"{c} to ") for c in self.colours) or s.startswith("Game over")

    def deciding(self) -> str | None:
        """The colour the status line names as the one to decide (None once the game is over)."""
        return next((c for c in self.colours if self.status.startswith(f"{c} to ")), None)

    def read(self) -> dict[str, Any]:
        """The table read in Python (read again only once the clock has moved)."""
        key = (id(self.table), self.table.frame)
        if self._read_key != key:
            self._read_key, self._read = key, read_table(self.table, self.colours, self.items)
        return json.loads(json.dumps(self._read))

    def snapshot(self) -> dict[str, Any]:
        """The engine's snapshot of the table as it lies: what lies where, read in Python, in the order the
        engine's last snapshot (kept by the mod) has each list, with the bookkeeping the mod keeps."""
        last = whole_numbers(self.ledger()["snapshot"])
        table = self.read()
        assert physical(table) == physical(_fill(last, table)), "the table differs from the mod's last snapshot"
        return _fill(last, table)

    def state(self):
        return self.engine.from_snapshot(self.data, self.snapshot())

    # ------------------------------------------------------------------ player actions
    def obj(self, card: str) -> HObject:
        found = [o for o in self.table.objects if o.memo_json().get("card") == card
                 or o.memo_json().get("token") == card]
        assert len(found) == 1, (card, found)
        return found[0]

    def drag(self, obj: HObject, colour: str, position: Vec) -> None:
        self.move(obj, colour, position=position)
        self.table.run_until(self.still, max_seconds=5)

    def spot(self, z: HObject, x: float, zz: float = 0.0) -> Vec:
        return position_to_world(Vec(x, 0.0, zz), z.position, z.rotation, z.scale)

    def drop_on_unicorn(self, token: HObject, unicorn: HObject, colour: str) -> None:
        """Drop ``token`` on the part of ``unicorn`` a player sees in their catch area (the strip the unicorn
        caught after it in its column leaves visible, near its upper edge), again if it landed on another card."""
        area = seat_zone(self.table, "ku-catch", colour)
        far = position_to_world(Vec(0.0, 0.0, -0.5), area.position, area.rotation, area.scale)
        near = position_to_world(Vec(0.0, 0.0, 0.5), area.position, area.rotation, area.scale)
        length = flat(far, near)
        inset = CARD[1] / 2 - 0.2
        where = Vec(unicorn.position.x + (far.x - near.x) / length * inset, unicorn.position.y,
                    unicorn.position.z + (far.z - near.z) / length * inset)
        unicorn_id = unicorn.memo_json()["card"]
        for _ in range(10):
            self.drag(token, colour, where)
            unicorns = [(o.memo_json()["card"], o) for o in self.table.with_tag("ku-unicorn") if inside(area, o)]
            if inside(area, token) and catch_owner(area, unicorns, token.position) == unicorn_id:
                return
        raise AssertionError(f"the token could not be dropped on {unicorn_id}")

    def begin(self, action) -> None:
        """The player performs ``action`` (drags, then a click) without waiting for the ruling."""
        a = action.to_json()
        colour = self.colours[a["player"]]
        t = self.table
        kind = a["action"]
        if kind == "place-trick":
            slot = zone(t, "ku-trick-slot", index=a["unicorn"], slot=a["slot"])
            self.drag(self.obj(a["card"]), colour, slot.position)
        elif kind in ("open", "join"):
            area = seat_zone(t, "ku-hunt-area", colour)
            for k, card in enumerate(a["cards"]):
                self.drag(self.obj(card), colour, self.spot(area, -0.3 + 0.3 * k))
            t.click("huntButton", colour)
        elif kind == "buy":
            stock = zone(t, "ku-market-stock", item=a["item"])
            for card in a["cards"]:
                self.drag(self.obj(card), colour, stock.position)
            if a.get("unicorn") or not a["cards"]:
                # the token of the item onto the unicorn it goes on (or, paid with nothing, in front of the buyer)
                token = next(o for o in t.with_tag("ku-token") if o.memo_json()["item"] == a["item"]
                             and inside(stock, o) and o.held_by is None)
                if a.get("unicorn"):
                    self.drop_on_unicorn(token, self.obj(a["unicorn"]), colour)
                else:
                    self.drag(token, colour, seat_zone(t, "ku-character-spot", colour).position)
            t.click("buyButton", colour)
        else:
            button = {"pass": "passButton", "power": "powerButton", "decline": "declineButton",
                      "skip": "skipButton"}.get(kind)
            if kind == "choose-trick":
                button = "aboveButton" if a["slot"] == "above" else "belowButton"
            assert button is not None, f"no way to play {a}"
            t.click(button, colour)

    def play(self, action) -> Any:
        """Perform ``action``, wait for the ruling to be applied, check the table against the engine: the
        snapshot the mod sent with the decision is the table as it lay (what the player moved for it counted
        where it was), and the table after the ruling is what the engine makes of that snapshot and action."""
        before = self.snapshot()
        asked = len(self.table.sent_custom)
        self.begin(action)
        self.wait_ready()
        sent = self.requests("legal", asked)
        assert len(sent) == 1, sent
        assert sent[0]["action"] == lua_nulls(action.to_json()) or sent[0]["action"] == action.to_json(), sent[0]
        assert physical(sent[0]["snapshot"]) == physical(before)
        assert bookkeeping(sent[0]["snapshot"]) == bookkeeping(before)
        state = self.engine.from_snapshot(self.data, sent[0]["snapshot"])
        state.apply(action)
        self.check(state)
        name = action.to_json()["action"]
        self.kinds[name] = self.kinds.get(name, 0) + 1
        return state

    def check(self, state) -> None:
        """The table is the engine's ``state``: what lies where, the bookkeeping, the decision, the panels."""
        engine = whole_numbers(state.to_snapshot())
        table = self.snapshot()
        assert physical(table) == physical(engine), diff(physical(table), physical(engine))
        assert bookkeeping(table) == bookkeeping(engine)
        pending = engine.get("pending")
        if state.is_over():
            outcome = state.outcome()
            winners = " and ".join(self.colours[s] for s in outcome.winners)
            assert self.status == f"Game over · {winners} won"
            final = [m for m in self.messages_to(None) if m.startswith("Game over")]
            assert final and final[-1].startswith(f"Game over: {winners} won")
            self.over_checked = True
        else:
            colour = self.colours[pending["player"]]
            assert self.status.startswith(f"{colour} to "), (self.status, pending)
            assert self.table.turns["turn_color"] == colour
        self.check_scores(state)
        self.actions_checked += 1

    def check_scores(self, state) -> None:
        score = whole_numbers(self.engine.handle(self.data, "score", {"snapshot": state.to_snapshot()}))
        assert self.table.run_until(
            lambda: self.table.ui_value("scoreRow1").startswith(f"{self.colours[0]}: "), max_seconds=10)
        self.table.run_until(lambda: self.table.settled, max_seconds=10)
        for row in score["standings"]:
            shown = self.table.ui_value(f"scoreRow{row['player'] + 1}")
            assert shown.startswith(f"{self.colours[row['player']]}: {row['score']} (stars {row['stars']}, "), shown

    # ------------------------------------------------------------------ choosing
    def pick(self, weights: dict[str, float] | None = None):
        """A legal action of the player to decide, chosen at random (by kind ``weights``)."""
        legal = self.state().legal_actions()
        assert legal, "no legal action on a game not over"
        table = {"pass": 0.4, "skip": 0.5, **(weights or {})}
        return self.rng.choices(legal, [table.get(a.to_json()["action"], 1.0) for a in legal])[0]


def _fill(last: dict[str, Any], table: dict[str, Any]) -> dict[str, Any]:
    """The engine's last snapshot with every physical list replaced by the table's, in the engine's order where
    the same cards lie there (a pile's order is the table's business; the engine reads the same cards)."""
    out = json.loads(json.dumps(last))

    def ordered(old: list, new: list) -> list:
        if sorted(old or []) == sorted(new):
            return list(old)
        return list(new)

    for key in ("unicorn_deck", "unicorn_discard", "box"):
        out[key] = ordered(last.get(key), table[key])
    out["line"] = [u if u is not None else None for u in table["line"]]
    out["slots"] = table["slots"]
    out["market"] = {k: ordered((last.get("market") or {}).get(k), v) for k, v in table["market"].items()}
    for p, q, r in zip(out["players"], last["players"], table["players"]):
        for key in ("hand", "played", "hunt_discard", "trick_deck", "trick_hand", "trick_discard", "tokens"):
            p[key] = ordered(q.get(key), r[key])
        old = {c["unicorn"]: c for c in q.get("catch") or []}
        catch = []
        for c in r["catch"]:
            was = old.get(c["unicorn"])
            if was is not None and sorted(was.get("pinned") or []) == c["pinned"] \
                    and sorted(was.get("tokens") or []) == c["tokens"]:
                catch.append(was)
            else:
                catch.append(c)
        order = [c["unicorn"] for c in q.get("catch") or []]
        catch.sort(key=lambda c: order.index(c["unicorn"]) if c["unicorn"] in order else len(order))
        p["catch"] = catch
    return out

