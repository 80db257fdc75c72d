"""``ttsmod simulate``: random legal playouts with balance and speed figures."""

from __future__ import annotations

import json
import os

import click

from bridge.catalog import load_game
from tools.simulate import simulate as run_simulation

PROGRESS_FROM = 50  # games; shorter runs finish before a bar would be worth drawing


@click.command(short_help='Play random legal games and report balance figures.')
@click.argument("game")
@click.option("--games", "-n", default=100, show_default=True, type=click.IntRange(min=1), help="Games to play.")
@click.option("--seed", "-s", default=0, show_default=True, type=int, help="Seed of the whole run.")
@click.option("--players", "-p", default=4, show_default=True, type=int, help="Players per game.")
@click.option("--mode", type=click.Choice(["kingdom", "fief"]), default="kingdom", show_default=True,
              help="Play on the kingdom map, or each player on a fief board.")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=0),
              help="Worker processes (0 = one per core).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a report.")
def simulate(game: str, games: int, seed: int, players: int, mode: str, jobs: int, as_json: bool) -> None:
    """Play random legal games and print games/s, rounds, win rates and goal rates."""
    data = load_game(game)
    info = data.info
    if not info.min_players <= players <= info.max_players:
        raise click.BadParameter(f"{info.name.en} takes {info.min_players} to {info.max_players} players",
                                 param_hint="--players")
    if mode not in info.modes:
        raise click.BadParameter(f"this game has modes {', '.join(info.modes)}", param_hint="--mode")
    jobs = jobs or os.cpu_count() or 1
    if as_json or games < PROGRESS_FROM:
        report = run_simulation(data, games=games, seed=seed, players=players, mode=mode, jobs=jobs)
    else:
        with click.progressbar(length=games, label="Playing", file=click.get_text_stream("stderr")) as bar:
            report = run_simulation(data, games=games, seed=seed, players=players, mode=mode, jobs=jobs,
                                    progress=bar.update)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
        return
    click.secho(f"{report['games']} {mode} games, {players} players, seed {seed}", bold=True)
    click.echo(f"  speed        {report['games_per_second']} games/s ({report['seconds']} s, {jobs} job(s))")
    click.echo(f"  mean rounds  {report['mean_rounds']}")
    click.echo(f"  mean turns   {report['mean_turns']}")
    click.echo("  win rate     " + "  ".join(f"seat {i}: {r:.1%}" for i, r in enumerate(report["win_rate_by_seat"])))
    click.echo("  game ends    " + ", ".join(f"{k} {v}" for k, v in report["terminations"].items()))
    click.echo("  goals completed (share of players, per game the goal was in play):")
    for goal, rate in report["goal_completion_rate"].items():
        click.echo(f"    {goal:<24} {rate:.1%}")
