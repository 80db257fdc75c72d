"""``ttsmod arena``: bots against bots, seats rotated, and how often each wins."""

from __future__ import annotations

import json
import os

import click

from bridge.rules.bots import BOT_NAMES
from bridge.catalog import load, require_rules
from bridge.rules.playout import PlayoutDidNotEnd
from tools.arena import arena as run_arena
from tools.arena import check_bots

PROGRESS_FROM = 10  # games; bots are slow enough for a bar from here on


@click.command(short_help="Play bots against each other and report their win shares.")
@click.argument("game")
@click.option("--bots", "-b", "bot_list", required=True,
              help=f"One bot per seat, comma-separated ({', '.join(BOT_NAMES)}); a name may repeat.")
@click.option("--games", "-n", default=100, show_default=True, type=click.IntRange(min=1), help="Games to play.")
@click.option("--seed", "-s", default=0, show_default=True, type=int, help="Seed of the whole run.")
@click.option("--mode", help="One of the game's modes  [default: its first]")
@click.option("--iterations", type=click.IntRange(min=1),
              help="Search iterations a move for normal and hard  [default: their level's]")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=0),
              help="Worker processes (0 = one per core).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a report.")
def arena(game: str, bot_list: str, games: int, seed: int, mode: str | None, iterations: int | None, jobs: int,
          as_json: bool) -> None:
    """Play GAME with one bot per seat (seats rotated over the games) and print each bot's win share with its
    95 % interval, mean score and thinking time."""
    loaded = load(game)
    require_rules(loaded.meta, "arena")
    meta = loaded.meta
    bots = [name.strip() for name in bot_list.split(",")]
    try:
        check_bots(bots, meta.min_players, meta.max_players)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--bots") from None
    mode = mode or meta.default_mode
    if mode not in meta.modes:
        raise click.BadParameter(f"this game has modes {', '.join(meta.modes)}", param_hint="--mode")
    jobs = jobs or os.cpu_count() or 1
    run = dict(games=games, seed=seed, mode=mode, jobs=jobs, iterations=iterations)
    try:
        if as_json or games < PROGRESS_FROM:
            report = run_arena(loaded.engine, loaded.data, bots, **run)
        else:
            with click.progressbar(length=games, label="Playing", file=click.get_text_stream("stderr")) as bar:
                report = run_arena(loaded.engine, loaded.data, bots, **run, progress=bar.update)
    except PlayoutDidNotEnd as exc:  # a rules bug: every game must end
        click.secho(f"error: {exc}", fg="red", err=True)
        raise SystemExit(1) from None
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
        return
    click.secho(f"{games} {mode} games, {len(bots)} players ({', '.join(bots)}), seed {seed}", bold=True)
    for name in report["win_share"]:
        low, high = report["win_share_ci"][name]
        score = report["mean_score"][name] if report["mean_score"] else "-"
        click.echo(f"  {name:<10} wins {report['win_share'][name]:.1%} (95% {low:.1%}-{high:.1%}; fair "
                   f"{report['fair_share'][name]:.1%})  mean score {score}  "
                   f"{report['seconds_per_move'][name] * 1000:.1f} ms/move")
    click.echo(f"  {'by seat':<10} " + "  ".join(f"seat {i}: {share:.1%}"
                                                 for i, share in enumerate(report["win_share_by_seat"])))
