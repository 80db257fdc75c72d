"""Bridge latency against a floor, in the same run.

* ``hello`` round trips: fake TTS → bridge (port A) → fake TTS (port B), one connection each way, measured from
  the fake TTS's connect to the reply's arrival; against a minimal asyncio server doing only accept → read to
  EOF → ``json.loads`` → connect back → write. Targets: p50 ≤ 2 × floor p50, p99 ≤ 3 × floor p99.
* Rulings through the bridge, for each game given (default: every built-in game): each of the game's request
  types with ``{"snapshot": S, "choices": []}``, S taken from the positions of a seeded random 4-player game (or
  the nearest count the game takes) where the game accepts that request — e.g. an end of round where a round
  really ends. A request type no position answers (it needs more than a snapshot) is listed as skipped.
  Target: p50 ≤ 5 ms.
* ``legal`` requests answered by the dispatcher itself (no sockets: envelope checks, the game's service, the
  reply), for each game with one: at each position of a seeded random game, the action the game went on with
  (:func:`measure_legal`, p50/p95). Target: p50 ≤ 1 ms.
* Peak RSS of this process (bridge, fake TTS and engines together) and of an idle ``ttsmod bridge`` process.

Run: ``.venv/bin/python benchmarks/bridge.py [GAME ...] [--n 2000]``. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bridge.catalog import builtin_games, load  # noqa: E402
from bridge.faketts import FakeTTS  # noqa: E402
from bridge.games import default_registry  # noqa: E402
from bridge.rules.errors import RulesError  # noqa: E402
from bridge.rules.playout import play_random_game  # noqa: E402
from bridge.server import Bridge  # noqa: E402

PLAYERS = 4
SEED = 3
RULING_TARGET_MS = 5.0
LEGAL_TARGET_MS = 1.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def floor_server(reply_port_holder: dict) -> asyncio.AbstractServer:
    """accept → read to EOF → parse → connect back → write: the least a bridge can do."""

    async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        data = await reader.read(-1)
        writer.close()
        message = json.loads(data)
        custom = message["customMessage"]
        _r, back = await asyncio.open_connection("127.0.0.1", reply_port_holder["port"])
        back.write(json.dumps({"messageID": 2, "customMessage": {"ttsmod": 1, "re": custom["id"], "ok": True}}).encode())
        await back.drain()
        back.close()

    return await asyncio.start_server(on_connection, "127.0.0.1", 0)


async def round_trips(tts: FakeTTS, n: int, make_request) -> list[float]:
    times = []
    for i in range(n):
        start = time.perf_counter()
        await tts.send_custom(make_request(i))
        await tts.next_custom(timeout=10)
        times.append(time.perf_counter() - start)
    return times


def hello_for(game: str):
    def hello(i: int) -> dict:
        return {"ttsmod": 1, "id": i, "type": "hello", "game": game, "body": {"mod": "bench"}}

    return hello


def accepted_bodies(game: str) -> dict[str, list[dict]]:
    """Request type → the bodies (one per position of a seeded random game) the game answers without refusing."""
    loaded = load(game)
    players = min(max(PLAYERS, loaded.meta.min_players), loaded.meta.max_players)
    snapshots = [loaded.engine.new_game(loaded.data, players, seed=SEED).to_snapshot()]
    play_random_game(loaded.engine, loaded.data, players, seed=SEED,
                     on_step=lambda state, action, events: snapshots.append(state.to_snapshot()))
    bodies: dict[str, list[dict]] = {}
    for request_type in loaded.engine.request_types:
        bodies[request_type] = []
        for snapshot in snapshots:
            body = {"snapshot": snapshot, "choices": []}
            try:
                loaded.engine.handle(loaded.data, request_type, body)
            except RulesError:
                continue
            bodies[request_type].append(body)
    return bodies


def legal_bodies(game: str, positions: int = 200) -> list[dict]:
    """Bodies of ``legal`` requests: at each position of a seeded random game (up to ``positions`` of them) the
    action the game went on with, as the mod would ask whether it may be played."""
    loaded = load(game)
    players = min(max(PLAYERS, loaded.meta.min_players), loaded.meta.max_players)
    state = loaded.engine.new_game(loaded.data, players, seed=SEED)
    bodies: list[dict] = []

    def note(state_after, action, events) -> None:
        bodies.append({"snapshot": note.before, "action": action.to_json()})
        note.before = state_after.to_snapshot()

    note.before = state.to_snapshot()
    play_random_game(loaded.engine, loaded.data, players, seed=SEED, on_step=note)
    step = max(1, len(bodies) // positions)
    return bodies[::step][:positions]


def measure_legal(game: str, n: int = 2000) -> dict:
    """p50/p95 (ms) of a ``legal`` request answered by the bridge's dispatcher (envelope checks, the game's
    service, the reply; no sockets), over the positions of a seeded random game; ``None`` figures when the
    game has no ``legal`` request. Target: p50 ≤ 1 ms."""
    from bridge.session import Dispatcher

    loaded = load(game)
    result = {"game": loaded.meta.id, "n": 0, "p50_ms": None, "p95_ms": None, "target_p50_ms": LEGAL_TARGET_MS}
    if "legal" not in loaded.engine.request_types:
        return result
    bodies = legal_bodies(game)
    dispatcher = Dispatcher(default_registry())
    messages = [json.dumps({"ttsmod": 1, "id": i, "type": "legal", "game": loaded.meta.id, "body": body})
                for i, body in enumerate(bodies)]
    for text in messages[:20]:
        dispatcher.reply(json.loads(text))  # load the game and warm its caches
    times = []
    for i in range(n):
        custom = json.loads(messages[i % len(messages)])  # what the transport hands the dispatcher
        start = time.perf_counter()
        reply = dispatcher.reply(custom)
        times.append(time.perf_counter() - start)
        assert reply is not None and reply.get("ok"), reply
    result.update(n=n, positions=len(bodies), p50_ms=round(percentile(times, 0.5) * 1e3, 4),
                  p95_ms=round(percentile(times, 0.95) * 1e3, 4))
    return result


async def main(n: int, games: list[str]) -> dict:
    results: dict = {"rulings": {}}
    hello = hello_for(games[0])
    async with FakeTTS() as tts:
        # Floor
        holder = {"port": tts.port}
        server = await floor_server(holder)
        tts.bridge_port = server.sockets[0].getsockname()[1]
        await round_trips(tts, 200, hello)  # warm-up
        floor = await round_trips(tts, n, hello)
        server.close()
        await server.wait_closed()

        # Bridge, no journal (the journal's cost is measured separately below)
        async with Bridge(registry=default_registry(), port=0, tts_port=tts.port) as bridge:
            tts.bridge_port = bridge.port
            await round_trips(tts, 200, hello)
            through = await round_trips(tts, n, hello)

            for game in games:
                for request_type, bodies in accepted_bodies(game).items():
                    if not bodies:
                        results["rulings"][(game, request_type)] = None
                        continue

                    def ruling(i: int, game=game, request_type=request_type, bodies=bodies) -> dict:
                        return {"ttsmod": 1, "id": i, "type": request_type, "game": game,
                                "body": bodies[i % len(bodies)]}

                    await round_trips(tts, 20, ruling)
                    results["rulings"][(game, request_type)] = (len(bodies),
                                                                await round_trips(tts, max(50, n // 10), ruling))

        import tempfile

        from bridge.journal import Journal

        with tempfile.TemporaryDirectory() as folder:
            with Journal(Path(folder) / "j.jsonl") as journal:
                async with Bridge(registry=default_registry(), port=0, tts_port=tts.port, journal=journal) as bridge:
                    tts.bridge_port = bridge.port
                    await round_trips(tts, 200, hello)
                    journalled = await round_trips(tts, n, hello)

    results["floor"] = floor
    results["bridge"] = through
    results["bridge+journal"] = journalled
    return results


def idle_bridge_rss_mib() -> float | None:
    """RSS of a freshly started ``ttsmod bridge`` (Linux /proc only)."""
    if not Path("/proc/self/status").exists():
        return None
    root = Path(__file__).resolve().parent.parent
    process = subprocess.Popen(
        [sys.executable, "-c", "from tools.cli import main; main()", "bridge", "--port", "0", "--no-journal",
         "--tts-port", "9"],
        cwd=root, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line or re.search(r"listening on", line):
                break
        time.sleep(0.5)
        status = Path(f"/proc/{process.pid}/status").read_text()
        match = re.search(r"VmRSS:\s+(\d+) kB", status)
        return int(match.group(1)) / 1024 if match else None
    finally:
        process.kill()
        process.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="GAME", help="games to time rulings of (default: every built-in game)")
    parser.add_argument("--n", type=int, default=2000, help="round trips per series")
    args = parser.parse_args()
    results = asyncio.run(main(args.n, args.games or list(builtin_games())))
    floor = results["floor"]
    f50, f99 = percentile(floor, 0.50), percentile(floor, 0.99)
    print(f"hello round trips, n={args.n} each (ms):")
    print(f"  {'series':<16}{'p50':>8}{'p99':>8}{'p50/floor':>11}{'p99/floor':>11}")
    for name in ("floor", "bridge", "bridge+journal"):
        values = results[name]
        p50, p99 = percentile(values, 0.50), percentile(values, 0.99)
        print(f"  {name:<16}{p50 * 1e3:>8.3f}{p99 * 1e3:>8.3f}{p50 / f50:>10.2f}x{p99 / f99:>10.2f}x")
    print("  targets: p50 <= 2.00x, p99 <= 3.00x")
    print(f"rulings through the bridge (positions of a seeded random game; target p50 <= {RULING_TARGET_MS:g} ms):")
    for (game, request_type), timed in results["rulings"].items():
        if timed is None:
            print(f"  {game} {request_type}: skipped (no position of the game answers it with a snapshot alone)")
            continue
        positions, rulings = timed
        print(f"  {game} {request_type}, n={len(rulings)} over {positions} position(s): "
              f"p50 {percentile(rulings, 0.5) * 1e3:.3f} ms, p99 {percentile(rulings, 0.99) * 1e3:.3f} ms")
    print(f"legal requests through the dispatcher (no sockets; target p50 <= {LEGAL_TARGET_MS:g} ms):")
    for game in args.games or list(builtin_games()):
        legal = measure_legal(game, args.n)
        if legal["p50_ms"] is None:
            print(f"  {legal['game']}: no legal request")
            continue
        print(f"  {legal['game']}, n={legal['n']} over {legal['positions']} position(s): "
              f"p50 {legal['p50_ms']:.3f} ms, p95 {legal['p95_ms']:.3f} ms")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak_mib = peak / 1024 / (1024 if sys.platform == "darwin" else 1)
    print(f"peak RSS of this benchmark process: {peak_mib:.1f} MiB")
    idle = idle_bridge_rss_mib()
    if idle is not None:
        print(f"RSS of an idle `ttsmod bridge`: {idle:.1f} MiB (target < 150 MiB)")
