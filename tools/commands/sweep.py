"""``ttsmod sweep``: a balance study over rule flags × player counts × bots, written as CSV, JSON, plots and a
page."""

from __future__ import annotations

import os
import sys

import click

from bridge.rules.bots import BOT_NAMES
from bridge.catalog import read_documents, resolve_game, require_rules
from bridge.rules.playout import PlayoutDidNotEnd


@click.command(short_help="Run a balance study over rule flags, player counts and bots.")
@click.argument("game")
@click.option("--set", "settings", multiple=True, metavar="FLAG=V1,V2",
              help="A rule flag of the game's [rules] table (game.toml) and the values to try, written as there "
                   "(true, 3, zone, [1, 2]); repeat for more flags.")
@click.option("--players", "-p", "players", metavar="N[,N…]",
              help="Player counts to try  [default: each line-up's own length, or the game's smallest]")
@click.option("--bots", "-b", "bot_specs", multiple=True, metavar="A[,B…]",
              help=f"A line-up, one bot per seat ({', '.join(BOT_NAMES)}); the extra seats take its last bot, so "
                   "one name fills every seat; repeat for more line-ups  [default: random]")
@click.option("--games", "-n", default=100, show_default=True, type=click.IntRange(min=1), help="Games per cell.")
@click.option("--out", "-o", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for results.csv, results.json, the plots and index.html.")
@click.option("--seed", "-s", default=0, show_default=True, type=int, help="Seed of the whole run.")
@click.option("--mode", help="One of the game's modes  [default: its first]")
@click.option("--iterations", type=click.IntRange(min=1),
              help="Search iterations a move for normal and hard  [default: their level's]")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=0),
              help="Worker processes here, or of --cluster local (0 = one per core).")
@click.option("--cluster", metavar="local|tcp://HOST:PORT",
              help="Run the games on Dask: 'local' starts a local cluster of --jobs workers, an address connects "
                   "to a running scheduler. The figures are the same as without it.")
def sweep_command(game: str, settings: tuple[str, ...], players: str | None, bot_specs: tuple[str, ...],
                  games: int, out_dir: str, seed: int, mode: str | None, iterations: int | None, jobs: int,
                  cluster: str | None) -> None:
    """Play GAME's bots in every cell of a grid (each --set flag's values × --players × --bots line-ups),
    GAMES games a cell with seats rotated, and write each cell's win shares by bot and by seat, scores, game
    lengths and the game's own figures into OUT as results.csv, results.json, PNG plots and index.html.

    Needs the sim extra (Dask, matplotlib): pip install -e '.[sim]' in a checkout, pip install
    'ttsmod-<version>-py3-none-any.whl[sim]' from a wheel, or pip install 'dask[distributed]' matplotlib.
    """
    from tools.sweep import (connect, parse_line_ups, parse_players, plan_sweep, require_sim_extra, run_sweep,
                             show_value)

    require_sim_extra()
    from tools.sweep_report import write_report

    found = resolve_game(game)
    require_rules(found.meta, "sweep")
    documents, origins = read_documents(found.folder, found.meta)
    plan = plan_sweep(found.engine(), documents, engine_module=found.meta.engine, folder=str(found.folder),
                      settings=settings, players=parse_players(players),
                      line_ups=parse_line_ups(bot_specs or ("random",)), games=games, seed=seed, mode=mode,
                      iterations=iterations, locate=origins.locate)
    jobs = jobs or os.cpu_count() or 1
    client, local = connect(cluster, jobs) if cluster else (None, None)
    try:
        with click.progressbar(length=plan.total_games, label=f"{len(plan.cells)} cells",
                               file=sys.stderr) as bar:
            result = run_sweep(plan, jobs=jobs, client=client, progress=bar.update)
    except PlayoutDidNotEnd as exc:  # a rules bug: every game must end
        click.secho(f"error: {exc}", fg="red", err=True)
        raise SystemExit(1) from None
    finally:
        if client is not None:
            client.close()
        if local is not None:
            local.close()
    written = write_report(out_dir, result)
    report = result.report
    timing = result.timing
    click.secho(f"{len(report['cells'])} cells × {games} {report['mode']} games, seed {seed} "
                f"({timing['seconds']} s, {timing['seconds_per_move'] * 1000:.3g} ms a move)", bold=True)
    for row in report["cells"]:
        flags = " ".join(f"{flag}={show_value(value)}" for flag, value in row["flags"].items())
        shares = "  ".join(f"{name} {share:.1%}" for name, share in row["win_share"].items())
        click.echo(f"  #{row['cell']:<3} {row['players']}p {','.join(row['bots']):<24} {flags}  {shares}")
    click.echo(f"wrote {len(written)} files to {out_dir}: open {os.path.join(out_dir, 'index.html')}")
