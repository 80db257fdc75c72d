"""``ttsmod simulate``: random legal playouts with balance and speed figures."""

from __future__ import annotations

import json
import os
from typing import Any

import click

from bridge.rules.bots import BOT_NAMES
from bridge.catalog import load, require_rules
from tools.simulate import simulate as run_simulation

PROGRESS_FROM = 50  # games; shorter runs finish before a bar would be worth drawing
DEFAULT_PLAYERS = 4  # brought into the game's own range when it takes fewer or more
RUN_FIELDS = ("schema_version", "games", "players", "mode", "seed", "bots", "seconds", "games_per_second")


@click.command(short_help='Play random legal games and report balance figures.')
@click.argument("game")
@click.option("--games", "-n", default=100, show_default=True, type=click.IntRange(min=1), help="Games to play.")
@click.option("--seed", "-s", default=0, show_default=True, type=int, help="Seed of the whole run.")
@click.option("--players", "-p", type=int,
              help=f"Players per game  [default: {DEFAULT_PLAYERS}, or the nearest count the game takes]")
@click.option("--mode", help="One of the game's modes  [default: its first]")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=0),
              help="Worker processes (0 = one per core).")
@click.option("--bots", "bot_list",
              help=f"Bots instead of random play: one for all seats, or one per seat, comma-separated "
                   f"({', '.join(BOT_NAMES)}); one per seat sets the player count.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a report.")
def simulate(game: str, games: int, seed: int, players: int | None, mode: str | None, jobs: int,
             bot_list: str | None, as_json: bool) -> None:
    """Play random legal games and print games/s, then the game's figures (win rates, rounds, …)."""
    loaded = load(game)
    require_rules(loaded.meta, "simulate")
    meta = loaded.meta
    bots = [name.strip() for name in bot_list.split(",")] if bot_list else None
    if bots is not None and len(bots) > 1:
        if players is not None and players != len(bots):
            raise click.BadParameter(f"{len(bots)} bots for {players} players", param_hint="--bots")
        players = len(bots)
    if players is None:
        players = min(max(DEFAULT_PLAYERS, meta.min_players), meta.max_players)
    if not meta.min_players <= players <= meta.max_players:
        raise click.BadParameter(f"{meta.name.en} takes {meta.min_players} to {meta.max_players} players",
                                 param_hint="--players")
    if bots is not None:
        if len(bots) == 1:
            bots = bots * players
        unknown = [name for name in bots if name not in BOT_NAMES]
        if unknown:
            raise click.BadParameter(f"unknown bot {unknown[0]!r} (expected one of {', '.join(BOT_NAMES)})",
                                     param_hint="--bots")
    mode = mode or meta.default_mode
    if mode not in meta.modes:
        raise click.BadParameter(f"this game has modes {', '.join(meta.modes)}", param_hint="--mode")
    jobs = jobs or os.cpu_count() or 1
    run: dict[str, Any] = dict(games=games, seed=seed, players=players, mode=mode, jobs=jobs, bots=bots)
    if as_json or games < PROGRESS_FROM:
        report = run_simulation(loaded.engine, loaded.data, **run)
    else:
        with click.progressbar(length=games, label="Playing", file=click.get_text_stream("stderr")) as bar:
            report = run_simulation(loaded.engine, loaded.data, **run, progress=bar.update)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
        return
    played_by = f", bots {', '.join(bots)}" if bots else ""
    click.secho(f"{report['games']} {mode} games, {players} players{played_by}, seed {seed}", bold=True)
    click.echo(f"  {'speed':<16} {report['games_per_second']} games/s ({report['seconds']} s, {jobs} job(s))")
    for key, value in report.items():
        if key not in RUN_FIELDS:
            for line in figure_lines(key, value):
                click.echo(line)


def figure_lines(key: str, value: Any) -> list[str]:
    """A game figure as report lines: rates (keys naming a rate) as percentages, a list per seat, a table one
    entry a line."""
    label = key.replace("_", " ")
    is_rate = "rate" in key

    def shown(number: Any) -> str:
        return f"{number:.1%}" if is_rate and isinstance(number, (int, float)) else str(number)

    if isinstance(value, list):
        return [f"  {label:<16} " + "  ".join(f"seat {i}: {shown(v)}" for i, v in enumerate(value))]
    if isinstance(value, dict):
        return [f"  {label}:"] + [f"    {str(k):<24} {shown(v)}" for k, v in value.items()]
    return [f"  {label:<16} {shown(value)}"]
