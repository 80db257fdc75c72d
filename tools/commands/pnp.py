"""``ttsmod pnp``: a game's cards as a print-and-play PDF (:mod:`tools.pnp`)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from bridge.rules.game import LANGUAGES

PAPERS = ("a4", "letter")   # tools.pnp.PAPERS, kept here so --help does not import Pillow


@click.command("pnp", short_help="Write a game's cards as a print-and-play PDF.")
@click.argument("game")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="The PDF to write (default: <build folder>/<Game>-pnp-<paper>.pdf).")
@click.option("--build-dir", type=click.Path(file_okay=False, path_type=Path),
              help="The build folder whose render cache is used (default: build/<game>/).")
@click.option("--paper", type=click.Choice(PAPERS), default="a4", show_default=True, help="Paper size.")
@click.option("--lang", type=click.Choice(LANGUAGES), default="en", show_default=True,
              help="Card language (one of the game's languages).")
@click.option("--mode", metavar="MODE", help="One of the game's modes (checked; the cards are the same for each).")
@click.option("--bleed", type=float, default=0.0, show_default=True, metavar="MM",
              help="Art extended past each cut line, in mm (edge pixels repeated outward).")
@click.option("--crop-marks/--no-crop-marks", default=True, show_default=True,
              help="Draw cut lines' marks in the margin.")
@click.option("--duplex/--no-duplex", default=True, show_default=True,
              help="A page of backs after each page of faces (long-edge flip); else each deck's back once.")
@click.option("--gap", type=float, default=0.0, show_default=True, metavar="MM",
              help="Space between neighbouring cards' bleeds, in mm.")
@click.option("--jobs", type=click.IntRange(min=1), help="Render processes (default: all cores).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: the PDF written, its pages, cards, other components, paper, duplex.")
def pnp_command(game: str, out: Path | None, build_dir: Path | None, paper: str, lang: str, mode: str | None,
                bleed: float, crop_marks: bool, duplex: bool, gap: float, jobs: int | None, as_json: bool) -> None:
    """Write GAME's cards (a built-in game id, or a game data folder) as a print-and-play PDF.

    Cards print at their size in millimetres (size_mm in the game's layouts.toml), as many per page as fit.
    The art comes from the build folder's render cache: card faces are drawn at print resolution (300 dpi) by
    the first PDF and kept there by content, so later PDFs draw nothing.
    """
    from tools.commands.common import ProgressBars, warn
    from tools.pnp import check_options, pnp

    check_options(paper, bleed, gap)
    with ProgressBars() as bars:
        path, plan, art = pnp(game, out, paper=paper, lang=lang, mode=mode, bleed=bleed, crop_marks=crop_marks,
                              duplex=duplex, gap=gap, build_dir=build_dir, jobs=jobs,
                              render_progress=bars.progress("rendering"),
                              face_progress=bars.progress("print faces"), page_progress=bars.progress("pages"))
    cards = sum(len(p.cards) for p in plan.pages if p.kind == "faces")
    if as_json:
        # docs/pnp.md: absolute paths, as build --json; what is not printed is a list (warned about on stderr too)
        if art.unsized:
            warn(f"not printed, no size_mm in layouts.toml: {', '.join(art.unsized)}")
        click.echo(json.dumps({"pdf": str(path.absolute()), "pages": len(plan.pages), "cards": cards,
                               "components": len(art.singles), "paper": paper, "duplex": duplex,
                               "not_printed": list(art.unsized)}, ensure_ascii=False))
        return
    click.echo(f"{path}  {len(plan.pages)} page(s), {cards} card(s), {len(art.singles)} other component(s), {paper}")
    if art.unsized:
        warn(f"not printed, no size_mm in layouts.toml: {', '.join(art.unsized)}")
    if duplex:
        click.secho("print double-sided, flip on the long edge", fg="green")
