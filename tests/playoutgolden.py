"""Golden random playouts: a few seeded games of one engine, recorded once, must replay exactly.

A speed-up of an engine must not change any game: the same seed gives the same actions, the same events and
the same end. ``record`` plays each (mode, players, seed) and keeps, per game, the number of actions, a digest
of every action's text with the JSON of its events, a digest of the final snapshot and the game's summary;
``check`` replays them and names the first game that differs. The golden file is JSON beside the game's
tests; regenerate it (only when a rules change is meant to change games) with
``python -m tests.playoutgolden GAME FILE``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from bridge.rules.playout import game_seeds, play_random_game

SEEDS_PER_SETUP = 4


def _setups(loaded: Any) -> list[tuple[str, int]]:
    meta = loaded.meta
    counts = sorted({meta.min_players, min(max(4, meta.min_players), meta.max_players), meta.max_players})
    return [(mode, players) for mode in meta.modes for players in counts]


def play(loaded: Any, mode: str, players: int, seed: int) -> dict[str, Any]:
    """One game's record: actions, digests of actions with events and of the end, and the summary."""
    steps = hashlib.sha256()

    def on_step(_state: Any, action: Any, events: list[Any]) -> None:
        steps.update(str(action).encode())
        steps.update(json.dumps([e.to_json() for e in events], sort_keys=True).encode())

    playout = play_random_game(loaded.engine, loaded.data, players, mode=mode, seed=seed, on_step=on_step)
    final = json.dumps(playout.state.to_snapshot(), sort_keys=True).encode()
    return {
        "mode": mode,
        "players": players,
        "seed": seed,
        "actions": len(playout.actions),
        "steps": steps.hexdigest()[:32],
        "final": hashlib.sha256(final).hexdigest()[:32],
        "summary": json.loads(json.dumps(loaded.engine.summary(playout.state, playout.actions))),
    }


def record(loaded: Any) -> list[dict[str, Any]]:
    """The golden records of ``loaded`` (a :class:`bridge.catalog.LoadedGame`)."""
    return [play(loaded, mode, players, seed)
            for mode, players in _setups(loaded) for seed in game_seeds(2024, SEEDS_PER_SETUP)]


def check(loaded: Any, golden_file: Path) -> None:
    """Assert that every game of ``golden_file`` replays as recorded."""
    golden = json.loads(golden_file.read_text(encoding="utf-8"))
    assert golden, "the golden file lists games"
    for expected in golden:
        found = play(loaded, expected["mode"], expected["players"], expected["seed"])
        assert found == expected, f"{expected['mode']}, {expected['players']} players, seed {expected['seed']}"


if __name__ == "__main__":
    from bridge.catalog import load

    game, out = sys.argv[1], Path(sys.argv[2])
    lines = [json.dumps(entry, sort_keys=True) for entry in record(load(game))]
    out.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    print(f"wrote {out}")
