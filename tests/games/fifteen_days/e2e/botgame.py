"""A 15 Days table where scripted players sit at some seats and the mod's bots play the others (lib.bots).

:class:`BotGame` gives the free seats a bot with their seat buttons (as the host clicks them), presses Setup and
plays the scripted players' decisions with the harness's buttons and drags; the bots' decisions are the mod's
own. What the table did is read back from the requests the mod sent its bridge:

* every decision went to the bridge as a ``legal`` request (the table as the mod read it, and the action):
  :meth:`BotGame.chain` replays them on the engine, one after the other, and checks that each decision's table is
  the engine's state after the decision before (every hand, pile, column, corner, animal, feather, supply and
  the bookkeeping) and that the engine allows it;
* every bot decision was first a ``bot_move`` request: :meth:`BotGame.bot_moves` asks the engine the same
  request and checks that the action the mod then performed and sent is the one the bot chose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge.rules.fifteen_days.actions import Action
from bridge.rules.fifteen_days.game import FIFTEEN_DAYS
from bridge.rules.fifteen_days.state import GameState
from bridge.rules.contract import lua_json as whole_numbers
from tests.games.fifteen_days.e2e.harness import Game, bookkeeping, engine_state
from tests.games.fifteen_days.e2e.tableview import physical
from tests.e2e.harness import diff
from tools.headless import Fidelity


class BotGame(Game):
    """``humans`` seated and scripted; ``bots`` (colour → level) played by the mod (module docstring)."""

    def __init__(self, save: dict, data: Any, repo: Path, humans: list[str], bots: dict[str, str], *,
                 seed: int = 1, fidelity: Fidelity | None = None) -> None:
        colours = [c for c in ("White", "Red", "Yellow", "Blue") if c in humans or c in bots]
        super().__init__(save, data, repo, colours, seed=seed, fidelity=fidelity)
        self.humans, self.bots = list(humans), dict(bots)
        self.earlier: list[dict] = []   # the requests sent to the bridge before the last reload

    # ------------------------------------------------------------------ life cycle
    def start(self) -> None:
        """Bridge up, the scripted players seated, the bot seats' buttons clicked by the host up to their level,
        Setup pressed; returns once a scripted player is to decide (or the game is over)."""
        self.bridge.start()
        self.table.seat(*self.humans)
        self.table.boot()
        assert self.run(self.connected, 30)
        host = self.humans[0]
        for colour, level in self.bots.items():
            for _ in range(4):
                if self.table.ui_value(f"bot_{colour}") == f"{colour}: bot ({level})":
                    break
                self.table.click(f"bot_{colour}", host)
            assert self.table.ui_value(f"bot_{colour}") == f"{colour}: bot ({level})"
        self.table.click("setupButton", host)
        self.wait_mine()

    def reload(self) -> None:
        self.earlier += self.sent
        seated = self.colours
        self.colours = self.humans   # LiveGame.reload seats self.colours: only the players sit down again
        try:
            super().reload()
        finally:
            self.colours = seated

    def all_sent(self) -> list[dict]:
        """Every request the mod sent this game's bridge, reloads included."""
        return self.earlier + self.sent

    def all_requests(self, kind: str) -> list[dict]:
        return [m["body"] for m in self.all_sent() if m.get("type") == kind]

    # ------------------------------------------------------------------ waiting
    def mine(self) -> bool:
        """A scripted player is to decide (or the game is over), and nothing is moving or in flight."""
        s = self.status
        waiting = s.startswith("Game over") or any(s in (f"{c} to play", f"{c} places a wild") for c in self.humans)
        return waiting and self.table.settled and self.still()

    def wait_mine(self, max_seconds: float = 300.0) -> None:
        assert self.run(self.mine, max_seconds), \
            f"no scripted player's turn came; status {self.status!r}; told {self.messages_to(None)[-4:]}; " \
            f"errors {self.table.errors[-3:]}"

    def decide(self, action: Action) -> None:
        """A scripted player performs ``action``; then the bots play until a scripted player decides again."""
        self.last = None
        self.begin(action)
        self.wait_mine()

    # ------------------------------------------------------------------ reading back what happened
    def chain(self) -> GameState:
        """The engine's state after every decision sent (``legal``), each checked to start from the table the
        decision before left (module docstring); the state after the last one."""
        decisions = self.all_requests("legal")
        assert decisions, "no decision was sent"
        state = None
        for i, body in enumerate(decisions):
            table = engine_state(self.data, body["snapshot"])
            if state is not None:
                now, then = table.to_snapshot(), state.to_snapshot()
                assert physical(now) == physical(then), f"decision {i}: " + diff(physical(now), physical(then))
                assert bookkeeping(now) == bookkeeping(then), f"decision {i}"
            action = Action.from_json(whole_numbers(body["action"]))
            table.check(action)   # raises IllegalAction: the table sent a decision the rules refuse
            table.apply(action)
            state = table
        return state

    def bot_moves(self) -> list[tuple[str, Action]]:
        """Each bot decision of the game: (colour, the action its bot chose) — asked again of the engine from the
        mod's own ``bot_move`` request, and checked to be the action the mod then sent as ``legal``. A bot
        decision asked for more than once (its first request lost with a bridge that went away) counts once."""
        return self.bot_moves_in(self.all_sent())

    def bot_moves_in(self, sent: list[dict]) -> list[tuple[str, Action]]:
        """:meth:`bot_moves` among the requests ``sent``."""
        moves: list[tuple[str, Action]] = []
        for i, message in enumerate(sent):
            if message.get("type") != "bot_move":
                continue
            body = whole_numbers(message["body"])
            reply = FIFTEEN_DAYS.handle(self.data, "bot_move", body)
            later = next((m for m in sent[i + 1:] if m.get("type") in ("legal", "bot_move")), None)
            if later is None or later.get("type") == "bot_move":
                continue   # not performed: asked again (a lost request) or the game ended meanwhile
            colour = self.colours[reply["player"]]
            assert colour in self.bots
            performed = Action.from_json(whole_numbers(later["body"]["action"]))
            assert performed == Action.from_json(reply["action"]), (colour, performed, reply)
            assert body["level"] == self.bots[colour]
            moves.append((colour, performed))
        return moves

    def check_table(self, state: GameState) -> None:
        """The table as a player sees it (read in Python, not by the mod) is the engine's ``state``."""
        engine = state.to_snapshot()
        table = self.snapshot()
        assert physical(table) == physical(engine), diff(physical(table), physical(engine))
        assert bookkeeping(table) == bookkeeping(engine)
