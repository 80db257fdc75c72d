"""What ``ttsmod sweep`` writes: the figures as JSON and CSV, the plots as PNG (matplotlib's Agg canvas, no
display needed) and an ``index.html`` that shows them.

Every file but ``timing.json`` is a function of the sweep's figures alone, so the same arguments write the same
bytes. The folder is written at once (:func:`bridge.fsio.replace_tree`): the files below are replaced, anything
else in the folder is kept.
"""

from __future__ import annotations

import csv
import html
import io
import json
from typing import Any, Sequence

from bridge.errors import TtsmodError
from bridge.fsio import replace_tree
from tools.folderlock import folder_lock
from tools.sweep import Cell, SweepResult, show_value

PLOTS: tuple[tuple[str, str], ...] = (
    ("win_share_by_seat.png", "Win share by seat"),
    ("win_share_by_bot.png", "Win share by bot"),
    ("scores.png", "Final scores by bot"),
    ("game_length.png", "Game length (actions per game)"),
    ("figures.png", "The game's own figures"),
)
OUTPUTS: tuple[str, ...] = ("results.json", "results.csv", "timing.json", "index.html") + tuple(p for p, _ in PLOTS)
"""Every file a sweep writes into its folder (a plot the game has no data for is left out, and an old one
removed)."""

ROW_HEIGHT = 0.32   # inches per bar row
DPI = 100


# --- CSV ------------------------------------------------------------------------------------------------------


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}", item, out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _flatten(f"{prefix}.{i}", item, out)
    else:
        out[prefix] = value


def csv_columns(row: dict[str, Any]) -> dict[str, Any]:
    """One cell's row as CSV columns: nested figures as dotted names (``win_share.heuristic``,
    ``win_share_by_seat.0``, ``figures.goal_completion_rate.pilgrimage``), intervals as ``.low``/``.high``."""
    out: dict[str, Any] = {"cell": row["cell"]}
    for flag, value in row["flags"].items():
        out[f"flag.{flag}"] = show_value(value)
    out["players"] = row["players"]
    out["bots"] = ",".join(row["bots"])
    out["games"] = row["games"]
    for key, value in row.items():
        if key in ("cell", "flags", "players", "bots", "games"):
            continue
        if key.endswith("_ci"):
            if isinstance(value, dict):
                value = {name: {"low": low, "high": high} for name, (low, high) in value.items()}
            else:
                value = [{"low": low, "high": high} for low, high in value]
        _flatten(key, value, out)
    return out


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def column_order(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Every column of the rows, a dotted name kept beside its siblings (``win_share_by_seat.2`` of a 3-player
    cell right after ``.1``), each level in the order it first appears."""
    rank: dict[tuple[str, ...], int] = {}
    for row in rows:
        for column in row:
            parts = tuple(column.split("."))
            for depth in range(1, len(parts) + 1):
                rank.setdefault(parts[:depth], len(rank))
    columns = list(dict.fromkeys(column for row in rows for column in row))

    def key(column: str) -> list[int]:
        parts = tuple(column.split("."))
        return [rank[parts[:depth]] for depth in range(1, len(parts) + 1)]

    return sorted(columns, key=key)


def csv_text(report: dict[str, Any]) -> str:
    """The cells as CSV: one row per cell, the columns of every row in the order they first appear."""
    rows = [csv_columns(row) for row in report["cells"]]
    columns = column_order(rows)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell_text(row.get(column)) for column in columns])
    return buffer.getvalue()


# --- plots ----------------------------------------------------------------------------------------------------


def _figure(rows: int, panels: int = 1, columns: int = 1, width: float = 9.0):
    from matplotlib.figure import Figure

    height = max(2.5, ROW_HEIGHT * rows + 1.4)
    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    axes = figure.subplots(max(1, -(-panels // columns)), columns, squeeze=False)
    return figure, axes


def _png(figure) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _colours(names: Sequence[str]) -> dict[str, Any]:
    from matplotlib import colormaps

    palette = colormaps["tab10"]
    return {name: palette(i % 10) for i, name in enumerate(names)}


def _grouped_bars(ax, labels: Sequence[str], groups: Sequence[dict[str, float]], errors: Sequence[dict[str, list]],
                  fair: Sequence[dict[str, float]], colours: dict[str, Any], xlabel: str, title: str) -> None:
    """Horizontal bars, one group per label (top to bottom), one bar per key with its interval and a tick at
    its fair share."""
    for y, (group, interval, fairs) in enumerate(zip(groups, errors, fair)):
        keys = list(group)
        height = 0.8 / max(1, len(keys))
        for k, key in enumerate(keys):
            centre = y - 0.4 + height * (k + 0.5)
            share = group[key]
            low, high = interval[key]
            ax.barh(centre, share, height=height * 0.9, color=colours[key],
                    xerr=[[max(0.0, share - low)], [max(0.0, high - share)]], capsize=2, error_kw={"lw": 0.8})
            if key in fairs:
                ax.plot([fairs[key]] * 2, [centre - height / 2, centre + height / 2], color="black", lw=1.2)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_xlim(0, 1)
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(handles=_patches(colours), fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))


def _patches(colours: dict[str, Any]) -> list[Any]:
    from matplotlib.patches import Patch

    return [Patch(color=colour, label=str(key)) for key, colour in colours.items()]


def plot_seats(report: dict[str, Any], labels: Sequence[str]) -> bytes:
    cells = report["cells"]
    most = max(row["players"] for row in cells)
    seats = [f"seat {s}" for s in range(most)]
    colours = _colours(seats)
    groups = [{f"seat {s}": share for s, share in enumerate(row["win_share_by_seat"])} for row in cells]
    errors = [{f"seat {s}": ci for s, ci in enumerate(row["win_share_by_seat_ci"])} for row in cells]
    fair = [{f"seat {s}": 1 / row["players"] for s in range(row["players"])} for row in cells]
    figure, axes = _figure(sum(max(2, row["players"]) for row in cells) // 2 + len(cells))
    _grouped_bars(axes[0][0], labels, groups, errors, fair, colours, "share of the games won from the seat",
                  "Win share by seat (black tick: 1 ÷ players; whiskers: 95 % interval)")
    return _png(figure)


def plot_bots(report: dict[str, Any], labels: Sequence[str]) -> bytes:
    cells = report["cells"]
    names = list(dict.fromkeys(name for row in cells for name in row["win_share"]))
    colours = _colours(names)
    figure, axes = _figure(sum(len(row["win_share"]) for row in cells) // 2 + len(cells))
    _grouped_bars(axes[0][0], labels, [row["win_share"] for row in cells], [row["win_share_ci"] for row in cells],
                  [row["fair_share"] for row in cells], colours, "share of the games won by the bot",
                  "Win share by bot (black tick: its fair share, seats ÷ players; whiskers: 95 % interval)")
    return _png(figure)


def _boxes(ax, data: Sequence[Sequence[float]], labels: Sequence[str], colours: Sequence[Any], xlabel: str,
           title: str) -> None:
    parts = ax.boxplot(data, orientation="horizontal", patch_artist=True, widths=0.6,
                       medianprops={"color": "black"}, flierprops={"markersize": 3})
    for box, colour in zip(parts["boxes"], colours):
        box.set_facecolor(colour)
    ax.set_yticks(range(1, len(labels) + 1), labels, fontsize=8)
    ax.set_ylim(len(labels) + 0.5, 0.5)
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)


def plot_scores(result: SweepResult, labels: Sequence[str]) -> bytes | None:
    if any(scores is None for scores in result.scores):
        return None
    names = list(dict.fromkeys(name for scores in result.scores for name in scores))
    palette = _colours(names)
    data, box_labels, colours = [], [], []
    for label, scores in zip(labels, result.scores):
        for name, values in scores.items():
            data.append(values)
            box_labels.append(f"{label.split(' · ')[0]} {name}")
            colours.append(palette[name])
    figure, axes = _figure(len(data))
    _boxes(axes[0][0], data, box_labels, colours, "final score of each seat the bot held",
           "Final scores by bot (box: quartiles; whiskers: 1.5 × the box; dots: beyond)")
    return _png(figure)


def plot_lengths(result: SweepResult, labels: Sequence[str]) -> bytes:
    figure, axes = _figure(len(labels))
    _boxes(axes[0][0], result.lengths, labels, ["#9ecae1"] * len(labels), "actions per game",
           "Game length (box: quartiles; whiskers: 1.5 × the box; dots: beyond)")
    return _png(figure)


def plotted_figures(report: dict[str, Any]) -> list[str]:
    """The game figures drawn in ``figures.png``: those that are a number or a table of numbers in every cell."""
    def numeric(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    keys = list(dict.fromkeys(key for row in report["cells"] for key in row["figures"]))
    chosen = []
    for key in keys:
        values = [row["figures"].get(key) for row in report["cells"]]
        if all(numeric(v) for v in values) or all(isinstance(v, dict) and v and all(numeric(x) for x in v.values())
                                                  for v in values):
            chosen.append(key)
    return chosen


def plot_figures(report: dict[str, Any], labels: Sequence[str]) -> bytes | None:
    keys = plotted_figures(report)
    if not keys:
        return None
    cells = report["cells"]
    short = [label.split(" · ")[0] for label in labels]
    colours = _colours(short)
    columns = 2 if len(keys) > 1 else 1
    tall = max(max(len(row["figures"][key]) if isinstance(row["figures"][key], dict) else 1 for row in cells)
               for key in keys)
    per_panel = max(len(cells), tall * min(len(cells), 4) // 2)
    figure, axes = _figure(per_panel * -(-len(keys) // columns) + 2 * len(keys), len(keys), columns, width=12.0)
    flat = [ax for line in axes for ax in line]
    for ax, key in zip(flat, keys):
        values = [row["figures"][key] for row in cells]
        ax.set_title(key.replace("_", " "), fontsize=10)
        if isinstance(values[0], dict):
            names = list(dict.fromkeys(name for value in values for name in value))
            height = 0.8 / len(cells)
            for c, value in enumerate(values):
                ys = [n - 0.4 + height * (c + 0.5) for n in range(len(names))]
                ax.barh(ys, [value.get(name, 0) for name in names], height=height * 0.9, color=colours[short[c]],
                        label=short[c])
            ax.set_yticks(range(len(names)), names, fontsize=8)
            ax.set_ylim(len(names) - 0.5, -0.5)
        else:
            ax.barh(range(len(cells)), values, color=[colours[s] for s in short])
            ax.set_yticks(range(len(cells)), short, fontsize=8)
            ax.set_ylim(len(cells) - 0.5, -0.5)
        ax.grid(axis="x", alpha=0.3)
    for ax in flat[len(keys):]:
        ax.set_visible(False)
    figure.legend(handles=_patches({label: colours[s] for label, s in zip(labels, short)}), fontsize=8,
                  loc="outside upper center", ncols=max(1, min(2, len(labels))))
    return _png(figure)


def plots(result: SweepResult) -> dict[str, bytes]:
    """File name → PNG bytes of every plot the sweep has data for."""
    report = result.report
    labels = [_label(row) for row in report["cells"]]
    drawn = {
        "win_share_by_seat.png": plot_seats(report, labels),
        "win_share_by_bot.png": plot_bots(report, labels),
        "scores.png": plot_scores(result, labels),
        "game_length.png": plot_lengths(result, labels),
        "figures.png": plot_figures(report, labels),
    }
    return {name: png for name, png in drawn.items() if png is not None}


def _label(row: dict[str, Any]) -> str:
    cell = Cell(row["cell"], tuple(row["flags"].items()), row["players"], tuple(row["bots"]), 0)
    return cell.label()


# --- index.html -----------------------------------------------------------------------------------------------


STYLE = """body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #eee; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0 1.5em; }
.note { color: #555; max-width: 60em; }"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _share(share: float, ci: Sequence[float]) -> str:
    return f"{share:.3f} ({ci[0]:.3f}–{ci[1]:.3f})"


def index_html(report: dict[str, Any], written: Sequence[str]) -> str:
    """The page that shows the sweep: what ran, the table of cells, the plots, the game's figures."""
    cells = report["cells"]
    flags = list(report["grid"]["flags"])
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>ttsmod sweep: {_e(report['game'])}</title>", f"<style>\n{STYLE}\n</style>", "</head>", "<body>",
           f"<h1>Sweep of {_e(report['game'])}</h1>"]
    iterations = report["iterations"] if report["iterations"] is not None else "each level's own"
    out.append(f"<p>Mode <b>{_e(report['mode'])}</b>, seed <b>{_e(report['seed'])}</b>, <b>{_e(report['games'])}"
               f"</b> games per cell, {len(cells)} cells, search iterations: {_e(iterations)}. Figures: "
               '<a href="results.json">results.json</a>, <a href="results.csv">results.csv</a>; thinking time: '
               '<a href="timing.json">timing.json</a>.</p>')
    out.append('<p class="note">A bot is stronger than its opponents here when its win share is above its fair '
               "share (the seats it held ÷ players) and its 95 % interval does not reach down to it. Every cell "
               "deals its games from the same seeds, so a difference between cells is less a matter of luck."
               "</p>")
    out.append("<h2>Cells</h2>")
    head = ["cell", *flags, "players", "bots", "games", "win share (95 %)", "fair share", "mean score",
            "win share by seat", "mean actions"]
    out.append("<table>")
    out.append("<tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr>")
    for row in cells:
        names = list(row["win_share"])
        shares = "<br>".join(f"{_e(n)} {_share(row['win_share'][n], row['win_share_ci'][n])}" for n in names)
        fair = "<br>".join(f"{_e(n)} {row['fair_share'][n]:.3f}" for n in names)
        scores = ("<br>".join(f"{_e(n)} {row['mean_score'][n]}" for n in names) if row["mean_score"] else "–")
        seats = "<br>".join(f"seat {s}: {share:.3f}" for s, share in enumerate(row["win_share_by_seat"]))
        values = [f"#{row['cell']}", *(_e(show_value(row["flags"][f])) for f in flags), _e(row["players"]),
                  _e(", ".join(row["bots"])), _e(row["games"])]
        out.append("<tr>" + "".join(f"<td>{v}</td>" for v in values)
                   + f'<td class="n">{shares}</td><td class="n">{fair}</td><td class="n">{scores}</td>'
                   f'<td class="n">{seats}</td><td class="n">{_e(row["mean_actions"])}</td></tr>')
    out.append("</table>")
    for name, title in PLOTS:
        if name in written:
            out.append(f"<h2>{_e(title)}</h2>")
            out.append(f'<img src="{_e(name)}" alt="{_e(title)}">')
    out.append("<h2>The game's figures, cell by cell</h2>")
    out.append('<p class="note">What <code>ttsmod simulate</code> reports for the game, from each cell\'s games '
               "(docs/simulate.md).</p>")
    figure_rows = []
    for row in cells:
        flat: dict[str, Any] = {}
        _flatten("", row["figures"], flat)
        figure_rows.append({key[1:]: value for key, value in flat.items()})
    columns = list(dict.fromkeys(key for flat in figure_rows for key in flat))
    out.append("<table>")
    out.append("<tr><th>figure</th>" + "".join(f"<th>#{row['cell']}</th>" for row in cells) + "</tr>")
    for column in columns:
        out.append(f"<tr><td>{_e(column)}</td>" + "".join(f'<td class="n">{_e(_cell_text(flat.get(column)))}</td>'
                                                         for flat in figure_rows) + "</tr>")
    out.append("</table>")
    out.append("</body>")
    out.append("</html>")
    return "\n".join(out) + "\n"


# --- the folder -----------------------------------------------------------------------------------------------


def report_files(result: SweepResult) -> dict[str, bytes]:
    """Every file of the sweep's folder: name → bytes."""
    files = {
        "results.json": (json.dumps(result.report, ensure_ascii=False, indent=1) + "\n").encode("utf-8"),
        "results.csv": csv_text(result.report).encode("utf-8"),
        "timing.json": (json.dumps(result.timing, ensure_ascii=False, indent=1) + "\n").encode("utf-8"),
    }
    files.update(plots(result))
    files["index.html"] = index_html(result.report, list(files)).encode("utf-8")
    return files


def write_report(out_dir: str, result: SweepResult) -> list[str]:
    """Write the sweep's files into ``out_dir`` at once (other files there are kept); the names written."""
    files = report_files(result)
    try:
        with folder_lock(out_dir, what="sweep"):
            replace_tree(out_dir, files, owned=OUTPUTS)
    except OSError as exc:
        raise TtsmodError(f"{out_dir}: cannot write the sweep there ({exc.strerror or exc})") from None
    return list(files)
