"""What every game's end-to-end harness shares: its built save on the headless table, talking to a real
`ttsmod bridge` process.

:func:`build` builds a game's save (once per test run). :class:`LiveGame` owns the life cycle of one game: a
bridge on an ephemeral 127.0.0.1 port, the save loaded on a headless table pointed at it, players seated,
scripts booted, the bridge connected, Setup pressed, then the clock run until the table is ready
(:meth:`LiveGame.start`); a host's reload (:meth:`LiveGame.reload`) and, through ``game.bridge``, the bridge
stopped and started again. It also reads what every game's table shows alike: the status line, broadcasts, the
mod's saved ledger and the requests it sent (read as the bridge reads them). Seats given in ``bots`` (colour →
level) are nobody's: their seat buttons (lib.bots) are set before Setup and the bridge's bots play them
(:meth:`LiveGame.wait_for_humans` runs the clock while they do).

A game's harness (``tests/games/<game>/e2e/harness.py``) extends it with only its own players and table
reading: when its table waits for a player (:meth:`LiveGame.waiting`), how a player performs an action, and how
the table is read and checked against the engine.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

from bridge.rules.contract import lua_json as whole_numbers
from tests.livebridge import Bridge, free_port
from tools.headless import Fidelity, HObject, Table
from tools.headless.geometry import inside_box

__all__ = ["Bridge", "LiveGame", "build", "diff", "flat", "free_port", "inside", "lua_nulls", "ttsmod"]


def ttsmod(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from tools.cli import main; main()", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def build(repo: Path, out: Path, game: str, *options: str) -> dict:
    """``ttsmod build GAME --out OUT`` (with ``options``): the save it writes, as a dict."""
    done = ttsmod("build", game, "--out", str(out), "--jobs", "2", *options, cwd=repo)
    assert done.returncode == 0, done.stderr
    saves = sorted(out.glob("*.json"))
    assert len(saves) == 1, saves
    return json.loads(saves[0].read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------- reading a table
def flat(a, b) -> float:
    """Horizontal (x/z) distance between two positions."""
    return ((a.x - b.x) ** 2 + (a.z - b.z) ** 2) ** 0.5


def inside(z: HObject, obj: HObject) -> bool:
    """Whether ``obj`` lies inside zone ``z``'s box."""
    return inside_box(obj.position, z.position, z.rotation, z.scale)


def lua_nulls(value: Any) -> Any:
    """Lua's false (and an absent key) for the engine's null, recursively in dicts."""
    if value is False:
        return None
    if isinstance(value, dict):
        return {k: lua_nulls(v) for k, v in value.items() if lua_nulls(v) is not None}
    return value


def diff(table: dict[str, Any], engine: dict[str, Any]) -> str:
    """Where the physical part of the table differs from the engine's (player by player, key by key)."""
    lines = []
    for key in table:
        if table[key] == engine[key]:
            continue
        if key == "players" and all(isinstance(p, dict) for p in table[key] + engine[key]):
            for i, (a, b) in enumerate(zip(table[key], engine[key])):
                lines += [f"players[{i}].{k}: table {a[k]!r}\n   engine {b.get(k)!r}" for k in a if a[k] != b.get(k)]
        else:
            lines.append(f"{key}: table {table[key]!r}\n   engine {engine[key]!r}")
    return "the table is not the engine's state:\n" + "\n".join(lines)


# ---------------------------------------------------------------------------------------------- a live game
class LiveGame:
    """One game's save on a headless table with a live bridge, played by scripted players (module docstring).

    Subclasses say when the table waits for a player (:meth:`waiting`), how the engine's choice is picked
    (``pick``) and played (``play``), and forget what they read off a table once it is reloaded
    (:meth:`reloaded`)."""

    def __init__(self, save: dict, repo: Path, colours: list[str], *, seed: int = 1,
                 fidelity: Fidelity | None = None, bots: dict[str, str] | None = None) -> None:
        self.colours, self.seed = colours, seed
        self.bots = dict(bots or {})   # seat colour → level (lib.bots): a bot plays it, nobody sits there
        self.humans = [c for c in colours if c not in self.bots]
        assert self.humans, "at least one player sits at the table (they press Setup)"
        self.rng = random.Random(seed)
        self.fidelity = fidelity if fidelity is not None else Fidelity.faithful()
        self.reloads = 0
        port = free_port()
        self.table = Table.load(save, seed=seed, bridge_port=port, listen_port=0, fidelity=self.fidelity)
        self.bridge = Bridge(repo, port, self.table.endpoint.port)
        self._sent: list[dict] = []

    @classmethod
    def started(cls, games: list[LiveGame], *args: Any, **kwargs: Any):
        """A game made with ``args``, appended to ``games`` (the fixture that closes them) and started."""
        game = cls(*args, **kwargs)
        games.append(game)
        game.start()
        return game

    # ------------------------------------------------------------------ life cycle
    def close(self) -> None:
        self.bridge.stop()
        self.table.close()

    def start(self) -> None:
        """Bridge up, players seated, scripts loaded, bridge connected, the bot seats given their levels with the
        seat buttons, Setup pressed, the table ready."""
        self.bridge.start()
        self.table.seat(*self.humans)
        self.table.boot()
        assert self.table.run_until(self.connected, max_seconds=30)
        for colour, level in self.bots.items():
            self.set_bot(colour, level)
        self.table.click("setupButton", self.humans[0])
        self.wait_ready()

    def connected(self) -> bool:
        return "bridge connected" in self.table.ui_value("bridgeStatus")

    def reload(self) -> None:
        """Save the table, close it, load the save into a fresh table on the same port and boot it (what a host
        reloading the game does); the bridge keeps running."""
        saved = self.table.save()
        port = self.table.endpoint.port
        self.table.close()
        self.reloads += 1
        self.table = Table.load(saved, seed=self.seed + self.reloads, bridge_port=self.bridge.port,
                                listen_port=port, fidelity=self.fidelity)
        self.table.seat(*self.humans)
        self.table.boot()
        self._sent = []
        self.reloaded()

    def reloaded(self) -> None:
        """Forget what was read off the table before a reload."""

    # ------------------------------------------------------------------ what players see
    @property
    def status(self) -> str:
        return self.table.ui_value("turnStatus")

    @property
    def over(self) -> bool:
        return self.status.startswith("Game over")

    def waiting(self, status: str) -> bool:
        """Whether the status line says the table waits for a player (or the game is over)."""
        raise NotImplementedError

    def still(self) -> bool:
        """Nothing on the table is moving."""
        return not any(o.in_motion for o in self.table.objects)

    def ready(self) -> bool:
        """The table waits for a player (or the game is over) and nothing is in flight or moving."""
        return self.waiting(self.status) and self.table.settled and self.still()

    def run(self, predicate: Callable[[], bool], max_seconds: float = 120.0) -> bool:
        """Run the clock until ``predicate`` holds (at most ``max_seconds`` of table time)."""
        return self.table.run_until(predicate, max_seconds=max_seconds)

    def wait_ready(self, max_seconds: float = 120.0) -> None:
        assert self.run(self.ready, max_seconds), \
            f"the table did not get ready; status {self.status!r}; errors {self.table.errors[-3:]}"

    def messages_to(self, colour: str | None, since: int = 0) -> list[str]:
        """The broadcasts to ``colour`` (None: to everyone) from broadcast ``since`` on."""
        return [m for m, c in self.table.broadcasts[since:] if c == colour]

    def ledger(self) -> dict[str, Any]:
        """The mod's ledger as its ``onSave`` writes it."""
        return json.loads(self.table.call_global("onSave"))["ledger"]

    @property
    def sent(self) -> list[dict]:
        """Every request the mod sent to this table's bridge, read as the bridge reads it (TTS's floats back to
        whole numbers)."""
        raw = self.table.sent_custom
        self._sent += [whole_numbers(m) for m in raw[len(self._sent):]]
        return self._sent

    def requests(self, kind: str, since: int = 0) -> list[dict[str, Any]]:
        """The bodies of the requests of ``kind`` the mod sent (from message ``since`` on)."""
        return [m["body"] for m in self.sent[since:] if m.get("type") == kind]

    # ------------------------------------------------------------------ bot seats (lib.bots)
    def bot_label(self, colour: str) -> str:
        """What ``colour``'s seat button says ("Red: no bot", "Red: bot (easy)")."""
        return self.table.ui_value(f"bot_{colour}")

    def set_bot(self, colour: str, level: str) -> None:
        """The first seated player clicks ``colour``'s seat button until it shows ``level`` (off, easy, normal,
        hard)."""
        want = f"{colour}: no bot" if level == "off" else f"{colour}: bot ({level})"
        for _ in range(4):
            if self.bot_label(colour) == want:
                return
            self.table.click(f"bot_{colour}", self.humans[0])
        assert self.bot_label(colour) == want, self.bot_label(colour)

    def bot_announcements(self, since: int = 0) -> list[str]:
        """The broadcasts to everyone announcing a bot's move ("Red (bot, easy) ...") from broadcast ``since``."""
        return [m for m in self.messages_to(None, since) if any(m.startswith(f"{c} (bot, ") for c in self.bots)]

    def deciding(self) -> str | None:
        """The colour whose decision the table waits for (None when nobody's, or the game is over)."""
        raise NotImplementedError

    def human_ready(self) -> bool:
        """The table is ready (:meth:`ready`) and waits for a seated player, or the game is over."""
        return self.ready() and (self.over or self.deciding() in self.humans)

    def wait_for_humans(self, max_seconds: float = 120.0) -> None:
        """Run the clock while the bots play, until the table waits for a seated player or the game is over."""
        assert self.run(self.human_ready, max_seconds), \
            f"the bots did not hand over; status {self.status!r}; errors {self.table.errors[-3:]}"

    # ------------------------------------------------------------------ players
    def move(self, obj: HObject, colour: str, *, position=None, snap: tuple[HObject, int] | None = None) -> None:
        """``colour`` picks ``obj`` up and drops it at ``position`` or on snap point ``snap``."""
        self.table.pick_up(obj, colour)
        self.table.drop(obj, colour, position=position, snap=snap)

    def step(self, **policy: Any) -> None:
        """Whatever the table waits for, picked by the engine from the table as it lies, played."""
        self.play(self.pick(**policy))

    def pick(self, **policy: Any):
        raise NotImplementedError

    def play(self, action) -> Any:
        raise NotImplementedError

    def play_game(self, max_actions: int = 2000, **policy: Any) -> None:
        for _ in range(max_actions):
            if self.over:
                return
            self.step(**policy)
        raise AssertionError("the game did not end")
