"""A played game read back from the bridge's journal, as one self-contained HTML page (``ttsmod replay --html``).

Pure: journal entries (:func:`bridge.journal.read_journal`) and the games' engines in, a model and HTML text out;
the command reads the journal and writes the page. The page holds no script, no external style, font or image:
inline CSS and an inline SVG plot, so it opens anywhere, offline, and can be mailed around.

What it shows, for every game the journal holds (a game begins at a ``setup`` ruling, or where the game id of the
requests changes; a journal cut mid-game begins with a game whose start it did not see):

- every adjudication request in order (``hello`` and the mod's ``broadcast`` notes are not requests) with its
  answer: a ruling (how many events), a refusal (its reason and message), an error, or no answer recorded;
- the events as the players read them: the sentences the mod broadcast to everyone while it applied the ruling
  (its ``broadcast`` notes, ``lib.panel.say``), under the ruling they followed, and the ruling's event names;
- every decision and who made it: the actions of ``legal`` and ``apply`` (in the game's text form), the answers a
  ruling asked for (``choices``), and each bot's choice (``bot_move``: the seat and its level);
- the scores after every ruling (a *ruling* is an answer with a snapshot and events: ``setup``, an allowed
  ``legal``, ``apply`` and a game's own rulings), drawn as one SVG polyline per player, with a legend;
- the final standings: the game's score panel of the table after the last ruling, and the winners once over.

Scores and standings come from the game's engine (its optional ``scores(state)`` and its ``score`` answer on each
ruling's snapshot); a game this ttsmod does not know gets its requests, sentences and decisions without them.
Seats are named by their colours as the mod's broadcast notes list them (``"seats"``), else by the colour a
snapshot gives them (``players[i].colour``), else ``Seat 1``, ….
Every text that came from the table or the journal is escaped.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from bridge.journal import JournalEntry

RULING_KEYS = ("snapshot", "events")
"""An answer carrying both is a ruling: it changed the table."""

NOT_REQUESTS = ("hello", "broadcast")

# TTS's seat colours (their tint in the game) for the plot's lines; other seats get the palette.
SEAT_TINTS = {
    "White": "#9a9a9a", "Brown": "#713b17", "Red": "#da1918", "Orange": "#f4641d", "Yellow": "#c9b400",
    "Green": "#31b32b", "Teal": "#21b19b", "Blue": "#1f87ff", "Purple": "#a020f0", "Pink": "#f570ce",
    "Black": "#191919",
}
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


# ---------------------------------------------------------------------------------------------------- the model

@dataclass
class Decision:
    """One decision and who made it: ``seat`` (None when the request names none), ``by`` (``"player"``,
    ``"bot"``), the bot's ``level``, and ``text`` (the action as the game prints it)."""

    seat: int | None
    text: str
    by: str = "player"
    level: str | None = None
    action: Any = None   # the action's JSON, until the engine gives its text

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "by": self.by, "level": self.level, "text": self.text}


@dataclass
class Step:
    """One request with its answer, the decisions it carried and what the table said after it."""

    line: int
    time: str
    type: str
    id: Any
    request: Mapping[str, Any]
    reply: Mapping[str, Any] | None = None
    decisions: list[Decision] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    scores: list[float] | None = None
    resends: int = 0

    @property
    def body(self) -> Mapping[str, Any]:
        body = (self.reply or {}).get("body")
        return body if isinstance(body, Mapping) else {}

    @property
    def is_ruling(self) -> bool:
        return bool(self.reply and self.reply.get("ok") is True and all(k in self.body for k in RULING_KEYS)
                    and isinstance(self.body.get("events"), list))

    @property
    def events(self) -> list[Mapping[str, Any]]:
        events = self.body.get("events") if self.is_ruling else None
        return [e for e in events if isinstance(e, Mapping)] if isinstance(events, list) else []

    def outcome(self) -> str:
        """The answer in a few words."""
        if self.reply is None:
            return "no answer recorded"
        if self.reply.get("ok") is not True:
            error = self.reply.get("error") if isinstance(self.reply.get("error"), Mapping) else {}
            return f"error {text_of(error.get('code'))}: {text_of(error.get('message'))}"
        body = self.body
        if body.get("legal") is False:
            return f"refused ({text_of(body.get('reason'))}): {text_of(body.get('message'))}"
        if self.is_ruling:
            n = len(self.events)
            words = f"ruling, {n} event{'s' if n != 1 else ''}"
            if body.get("complete") is False:
                words += ", waits for a decision"
            if body.get("game_over"):
                words += ", game over"
            return words
        if self.type == "bot_move":
            return "the bot's move"
        if self.type == "score":
            return "the score panel"
        return "answered"

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "time": self.time, "type": self.type, "id": self.id,
                "answer": self.outcome(), "ruling": self.is_ruling,
                "events": [text_of(e.get("event")) for e in self.events],
                "decisions": [d.to_json() for d in self.decisions], "said": list(self.said),
                "scores": self.scores}


@dataclass
class PlayedGame:
    """One game of a journal: its id, the steps in order, what was said before its first answer, its seats'
    names and its final standings (the game's score panel, or None without an engine)."""

    game: str
    steps: list[Step] = field(default_factory=list)
    said_before: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    standings: Mapping[str, Any] | None = None
    game_over: Mapping[str, Any] | None = None
    scored: bool = False
    started: bool = False   # its setup ruling is in the journal (a mod that lays its own table asks none)
    seats: list[str] = field(default_factory=list)   # the seats' colours, as the mod's broadcast notes name them

    @property
    def rulings(self) -> list[Step]:
        return [s for s in self.steps if s.is_ruling]

    def name(self, seat: Any) -> str:
        if isinstance(seat, bool) or not isinstance(seat, int):
            return "nobody" if seat is None else f"seat {text_of(seat)}"
        return self.names[seat] if 0 <= seat < len(self.names) else f"Seat {seat + 1}"

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "started": self.started, "players": list(self.names),
                "requests": len(self.steps), "rulings": len(self.rulings),
                "decisions": sum(len(s.decisions) for s in self.steps),
                "said": len(self.said_before) + sum(len(s.said) for s in self.steps),
                "scores": [s.scores for s in self.rulings] if self.scored else None,
                "standings": self.standings, "game_over": self.game_over,
                "steps": [s.to_json() for s in self.steps]}


@dataclass
class Engine:
    """What the page asks of a game's engine (:class:`bridge.catalog.LoadedGame` gives it): ``scores(snapshot)``
    (each seat's score, or None when the game declares none), ``panel(snapshot)`` (its ``score`` answer) and
    ``action_text(action)`` (an action's text form). Each may raise: the page then goes without."""

    scores: Callable[[Mapping[str, Any]], Sequence[float] | None]
    panel: Callable[[Mapping[str, Any]], Mapping[str, Any]]
    action_text: Callable[[Any], str]


def engine_of(loaded: Any) -> Engine:
    """The :class:`Engine` of a :class:`bridge.catalog.LoadedGame` (the game interface of bridge/rules/game.py)."""
    from bridge.rules.contract import prepare_snapshot

    game, data = loaded.engine, loaded.data

    def state(snapshot: Mapping[str, Any]) -> Any:
        return game.from_snapshot(data, prepare_snapshot(game, data, dict(snapshot)))

    def scores(snapshot: Mapping[str, Any]) -> Sequence[float] | None:
        if getattr(game, "scores", None) is None:
            return None
        return list(game.scores(state(snapshot)))

    def panel(snapshot: Mapping[str, Any]) -> Mapping[str, Any]:
        return game.handle(data, "score", {"snapshot": dict(snapshot)})

    def action_text(action: Any) -> str:
        return str(game.action_from_json(data, action))

    return Engine(scores, panel, action_text)


Engines = Callable[[str], Engine | None]


# ---------------------------------------------------------------------------------------------------- reading

def text_of(value: Any) -> str:
    """A value as one line of text (strings as they are, the rest as compact JSON)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "), default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def _key(value: Any, request_type: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps([value, request_type], sort_keys=True, default=str)


def _custom(entry: JournalEntry, message_id: int) -> Mapping[str, Any] | None:
    message = entry.message
    if not message or message.get("messageID") != message_id:
        return None
    custom = message.get("customMessage")
    return custom if isinstance(custom, Mapping) and "ttsmod" in custom else None


def _whole(value: Any) -> Any:
    """TTS's floats (``2.0``) back to integers, recursively (a request as the bridge read it)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _whole(v) for k, v in value.items()}
    return value


def read_games(entries: Iterable[JournalEntry], engines: Engines | None = None) -> list[PlayedGame]:
    """The games of a journal, in order (module docstring). ``engines(game_id)`` gives a game's
    :class:`Engine`, or None for a game without one (no scores nor standings then)."""
    games: list[PlayedGame] = []
    pending: dict[str, list[Step]] = {}   # requests waiting for their reply, by id and type
    latest: dict[str, Step] = {}           # the last request of each id and type (a resend is the same again)
    last_ruling: Step | None = None

    def current(game_id: str) -> PlayedGame:
        if not games or games[-1].game != game_id:
            games.append(PlayedGame(game_id))
        return games[-1]

    for entry in entries:
        if entry.direction == "in":
            custom = _custom(entry, 4)
            if custom is None:
                continue
            kind = custom.get("type")
            game_id = custom.get("game")
            if kind == "broadcast":
                body = custom.get("body") if isinstance(custom.get("body"), Mapping) else {}
                text = body.get("text")
                if isinstance(text, str) and isinstance(game_id, str):
                    if last_ruling is not None and games and games[-1].game == game_id:
                        last_ruling.said.append(text)
                    else:
                        current(game_id).said_before.append(text)
                    seats = body.get("seats")
                    if isinstance(seats, list) and seats and all(isinstance(c, str) for c in seats):
                        games[-1].seats = list(seats)
                continue
            if kind in NOT_REQUESTS or not isinstance(kind, str) or not isinstance(game_id, str):
                continue
            request = _whole(dict(custom))
            key = _key(request.get("id"), kind)
            previous = latest.get(key)
            if previous is not None and previous.request == request:
                previous.resends += 1   # the mod sent it again (no reply in time): the same request
                continue
            body = _body(request)
            if not games or games[-1].game != game_id or (kind == "setup" and games[-1].rulings):
                games.append(PlayedGame(game_id))   # a setup that was refused does not end the game before it
                last_ruling = None
            game = games[-1]
            step = Step(entry.line, entry.time, kind, request.get("id"), request)
            step.decisions = _decisions(kind, body, game)
            game.steps.append(step)
            latest[key] = step
            pending.setdefault(key, []).append(step)
        else:
            custom = _custom(entry, 2)
            if custom is None:
                continue
            waiting = pending.get(_key(custom.get("re"), custom.get("type")))
            if not waiting:
                continue
            step = next((s for s in waiting if s.reply is None), None)
            if step is None:
                continue   # a second answer to a request sent twice: the first counts, as for the mod
            step.reply = dict(custom)
            if all(s.reply is not None for s in waiting):
                pending.pop(_key(custom.get("re"), custom.get("type")), None)
            if step.type == "bot_move" and step.body:
                step.decisions = [Decision(_seat(step.body.get("player")), "", by="bot",
                                           level=_text_or_none(step.body.get("level")))]
            if step.is_ruling:
                last_ruling = step
    for game in games:
        _finish(game, engines(game.game) if engines is not None else None)
    return games


def _body(request: Mapping[str, Any]) -> Mapping[str, Any]:
    body = request.get("body")
    return body if isinstance(body, Mapping) else {}   # Lua writes an empty body as []


def _seat(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text_or_none(value: Any) -> str | None:
    return None if value is None else text_of(value)


def _decisions(kind: str, body: Mapping[str, Any], game: PlayedGame) -> list[Decision]:
    """The decisions a request carries: ``action`` (legal), ``actions`` (apply), new ``choices`` (a ruling that
    asked for them: those beyond the ones the previous request of the same type carried)."""
    found: list[Decision] = []
    actions = [body["action"]] if "action" in body else body.get("actions") if isinstance(body.get("actions"), list) else []
    for action in actions:
        seat = _seat(action.get("player")) if isinstance(action, Mapping) else None
        found.append(Decision(seat, "", action=action))
    choices = body.get("choices")
    if isinstance(choices, list):
        # a ruling that asks decisions is asked again with the answers so far appended: the new ones are those
        # beyond the previous request's, when that request's answers begin this one's (else all are new)
        before = next((_body(s.request).get("choices") for s in reversed(game.steps) if s.type == kind), None)
        earlier = len(before) if isinstance(before, list) and choices[:len(before)] == before else 0
        for choice in choices[earlier:]:
            seat = _seat(choice.get("player")) if isinstance(choice, Mapping) else None
            answer = {k: v for k, v in choice.items() if k != "player"} if isinstance(choice, Mapping) else choice
            found.append(Decision(seat, "chooses " + _answer_text(answer)))
    return found


def _answer_text(answer: Any) -> str:
    if isinstance(answer, Mapping) and len(answer) == 1:
        return text_of(next(iter(answer.values())))
    return text_of(answer)


def _finish(game: PlayedGame, engine: Engine | None) -> None:
    """Names, decision texts, scores and standings, once the game's steps are all read."""
    rulings = game.rulings
    game.started = any(s.type == "setup" and s.is_ruling for s in game.steps)
    for step in rulings:
        players = step.body["snapshot"].get("players") if isinstance(step.body.get("snapshot"), Mapping) else None
        if isinstance(players, list) and len(players) >= len(game.names):
            game.names = [p["colour"] if isinstance(p, Mapping) and isinstance(p.get("colour"), str)
                          else f"Seat {i + 1}" for i, p in enumerate(players)]
    if game.seats and len(game.seats) >= len(game.names):
        game.names = list(game.seats)
    for step in game.steps:
        for decision in step.decisions:
            raw = decision.action
            if raw is None:
                continue
            text = None
            if engine is not None:
                try:
                    text = engine.action_text(raw)
                except Exception:   # an action this engine does not read: its JSON
                    text = None
            decision.text = text if text is not None else text_of(raw)
        if step.type == "bot_move" and step.decisions and step.body.get("action") is not None:
            action = step.body.get("action")
            try:
                text = engine.action_text(action) if engine is not None else None
            except Exception:
                text = None
            step.decisions[0].text = "chooses " + (text if text is not None else text_of(action))
    if engine is None or not rulings:
        game.game_over = _game_over(rulings)
        return
    scored = True
    for step in rulings:
        try:
            scores = engine.scores(step.body["snapshot"])
        except Exception:
            scores = None
        if scores is None:
            scored = False
            break
        step.scores = [float(x) if not isinstance(x, int) else x for x in scores]
    if not scored:
        for step in rulings:
            step.scores = None
    game.scored = scored
    try:
        game.standings = dict(engine.panel(rulings[-1].body["snapshot"]))
    except Exception:
        game.standings = None
    game.game_over = _game_over(rulings)
    if not game.names and game.scored and rulings[-1].scores:
        game.names = [f"Seat {i + 1}" for i in range(len(rulings[-1].scores))]


def _game_over(rulings: Sequence[Step]) -> Mapping[str, Any] | None:
    for step in reversed(rulings):
        over = step.body.get("game_over")
        if isinstance(over, Mapping) and over:
            return over
    return None


# ---------------------------------------------------------------------------------------------------- writing

def e(value: Any) -> str:
    """Escaped for HTML text and attribute values (quotes included)."""
    return html.escape(text_of(value), quote=True)


STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 1.5rem;color:#1d1d1f;background:#fbfbfa}
h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.3rem;border-bottom:2px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
.meta{color:#555}.minor{color:#777}
table.standings{border-collapse:collapse;margin:.3rem 0}
table.standings th,table.standings td{border:1px solid #ccc;padding:.2rem .6rem;text-align:left;vertical-align:top}
table.standings th{background:#f0f0ee}tr.winner td{font-weight:600;background:#eef8ec}
figure.plot{margin:.5rem 0}svg.plot{background:#fff;border:1px solid #ddd;max-width:100%;height:auto}
svg.plot .axis{stroke:#888;stroke-width:1}svg.plot .grid{stroke:#eee;stroke-width:1}
svg.plot text{font-size:11px;fill:#555}svg.plot polyline{fill:none;stroke-width:2.5}
ul.legend{list-style:none;padding:0;margin:.3rem 0;display:flex;flex-wrap:wrap;gap:1rem}
ul.legend .swatch{display:inline-block;width:1.4rem;height:.35rem;vertical-align:middle;margin-right:.35rem}
ol.steps{padding-left:0;list-style:none}
li.step{border-left:4px solid #ccc;padding:.25rem .7rem;margin:.35rem 0;background:#fff}
li.step.ruling{border-left-color:#4a8}li.step.refused{border-left-color:#d90}li.step.error{border-left-color:#c33}
li.step.minor{background:transparent;border-left-color:#e6e6e6;padding:.05rem .7rem}
.request{font-size:.85rem;color:#666}.request .type{font-weight:600;color:#333}
p.decision{margin:.15rem 0;font-weight:600}p.decision .by{font-weight:400;color:#666}
ul.said{margin:.2rem 0 .2rem 1rem;padding:0}ul.said li{margin:.1rem 0}
.events{font-size:.8rem;color:#777}.events code{background:#f3f3f1;padding:0 .25rem;border-radius:3px}
p.said-before{font-style:italic}
"""


def render(games: Sequence[PlayedGame], *, title: str) -> str:
    """The page of ``games`` (:func:`read_games`) as HTML text; ``title`` names it (the journal's file name)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}: a played game read back</title>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{e(title)}</h1>",
    ]
    if not games:
        parts.append('<p class="meta" id="no-games">This journal holds no adjudication request: no game was played '
                     "through the bridge while it was written.</p>")
    else:
        total = sum(len(g.rulings) for g in games)
        parts.append(f'<p class="meta">{len(games)} game{"s" if len(games) != 1 else ""} · '
                     f"{sum(len(g.steps) for g in games)} requests · {total} rulings. Made by ttsmod replay --html "
                     "from the bridge's journal.</p>")
    for number, game in enumerate(games, 1):
        parts += _game_section(number, game)
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def _game_section(number: int, game: PlayedGame) -> list[str]:
    players = f"{len(game.names)} players: {', '.join(game.names)}" if game.names else "players unknown"
    out = [f'<section class="game" id="game-{number}" data-game="{e(game.game)}" '
           f'data-rulings="{len(game.rulings)}" data-players="{len(game.names)}">',
           f"<h2>Game {number}: {e(game.game)}</h2>",
           f'<p class="meta">{e(players)} · {len(game.steps)} requests · {len(game.rulings)} rulings</p>']
    out += _plot(game)
    out += _standings(game)
    out.append("<h3>Request by request</h3>")
    if game.said_before:
        out.append('<ul class="said said-before">' + "".join(f"<li>{e(t)}</li>" for t in game.said_before) + "</ul>")
    out.append('<ol class="steps">')
    ruling_no = 0
    for step in game.steps:
        if step.is_ruling:
            ruling_no += 1
        out.append(_step(game, step, ruling_no if step.is_ruling else None))
    out += ["</ol>", "</section>"]
    return out


def _step(game: PlayedGame, step: Step, ruling_no: int | None) -> str:
    body = step.body
    if ruling_no is not None:
        kind = "ruling"
    elif step.reply is None or step.reply.get("ok") is not True:
        kind = "error"
    elif body.get("legal") is False:
        kind = "refused"
    elif not step.decisions:
        kind = "minor"
    else:
        kind = "answer"
    again = f" · sent {step.resends + 1} times" if step.resends else ""
    number = f" · ruling {ruling_no}" if ruling_no is not None else ""
    lines = [f'<li class="step {kind}" id="line-{step.line}" data-type="{e(step.type)}">',
             f'<div class="request">line {step.line} · <span class="type">{e(step.type)}</span> · id {e(step.id)}'
             f"{number}{again} · <span class=\"answer\">{e(step.outcome())}</span></div>"]
    for decision in step.decisions:
        who = e(game.name(decision.seat))
        by = f' <span class="by">(bot, {e(decision.level)})</span>' if decision.by == "bot" else ""
        lines.append(f'<p class="decision" data-seat="{e(decision.seat)}" data-by="{e(decision.by)}">'
                     f"{who}{by}: {e(decision.text)}</p>")
    if step.said:
        lines.append('<ul class="said">' + "".join(f"<li>{e(t)}</li>" for t in step.said) + "</ul>")
    if step.events:
        names = " ".join(f"<code>{e(ev.get('event'))}</code>" for ev in step.events)
        lines.append(f'<div class="events">events: {names}</div>')
    if step.scores is not None:
        scores = ", ".join(f"{e(game.name(i))} {e(_number(s))}" for i, s in enumerate(step.scores))
        lines.append(f'<div class="events scores">scores: {scores}</div>')
    lines.append("</li>")
    return "\n".join(lines)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _colour(game: PlayedGame, seat: int) -> str:
    name = game.names[seat] if seat < len(game.names) else ""
    return SEAT_TINTS.get(name) or PALETTE[seat % len(PALETTE)]


def _plot(game: PlayedGame, width: int = 720, height: int = 260) -> list[str]:
    out = ["<h3>Scores after every ruling</h3>"]
    rulings = game.rulings
    if not game.scored or not rulings:
        why = "no ruling in this journal" if not rulings else "this game's engine gives no scores here"
        return out + [f'<p class="meta no-plot">No plot: {e(why)}.</p>']
    seats = max(len(s.scores or ()) for s in rulings)
    values = [v for s in rulings for v in (s.scores or ())]
    low, high = min(values + [0]), max(values + [0])
    if high == low:
        high = low + 1
    left, right, top, bottom = 44, 12, 12, 30
    inner_w, inner_h = width - left - right, height - top - bottom
    n = len(rulings)

    def x(i: int) -> float:
        return left + (inner_w * i / (n - 1) if n > 1 else inner_w / 2)

    def y(v: float) -> float:
        return top + inner_h * (high - v) / (high - low)

    svg = [f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="scores after every ruling">']
    for tick in _ticks(low, high):
        svg.append(f'<line class="grid" x1="{left}" y1="{y(tick):.1f}" x2="{width - right}" y2="{y(tick):.1f}"/>')
        svg.append(f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{e(_number(tick))}</text>')
    svg.append(f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + inner_h}"/>')
    svg.append(f'<line class="axis" x1="{left}" y1="{top + inner_h}" x2="{width - right}" y2="{top + inner_h}"/>')
    svg.append(f'<text x="{left}" y="{height - 8}">ruling 1</text>')
    svg.append(f'<text x="{width - right}" y="{height - 8}" text-anchor="end">ruling {n}</text>')
    for seat in range(seats):
        points = " ".join(f"{x(i):.1f},{y((s.scores or [0] * seats)[seat] if seat < len(s.scores or ()) else 0):.1f}"
                          for i, s in enumerate(rulings))
        svg.append(f'<polyline class="score-line" data-seat="{seat}" data-player="{e(game.name(seat))}" '
                   f'stroke="{_colour(game, seat)}" points="{points}"><title>{e(game.name(seat))}</title></polyline>')
    svg.append("</svg>")
    legend = ['<ul class="legend">']
    for seat in range(seats):
        final = rulings[-1].scores[seat] if rulings[-1].scores and seat < len(rulings[-1].scores) else None
        legend.append(f'<li data-seat="{seat}"><span class="swatch" style="background:{_colour(game, seat)}"></span>'
                      f"{e(game.name(seat))}" + (f" ({e(_number(final))})" if final is not None else "") + "</li>")
    legend.append("</ul>")
    return out + ['<figure class="plot">', *svg, *legend, "</figure>"]


def _ticks(low: float, high: float) -> list[float]:
    span = high - low
    step = 1.0
    for candidate in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000):
        step = candidate
        if span / candidate <= 6:
            break
    first = (low // step) * step
    ticks, value = [], first
    while value <= high + 1e-9:
        if value >= low - 1e-9:
            ticks.append(value)
        value += step
    return ticks


def _standings(game: PlayedGame) -> list[str]:
    out = ["<h3>Final standings</h3>"]
    panel = game.standings
    over = game.game_over
    rows = panel.get("standings") if isinstance(panel, Mapping) else None
    if not isinstance(rows, list) and isinstance(over, Mapping):
        rows = over.get("standings")
    winners = over.get("winners") if isinstance(over, Mapping) else None
    if isinstance(winners, list):
        names = ", ".join(game.name(w) for w in winners) or "nobody"
        out.append(f'<p class="winners">Game over: {e(names)} won.</p>')
    else:
        leaders = panel.get("leaders") if isinstance(panel, Mapping) else None
        lead = f" Leading: {', '.join(game.name(l) for l in leaders)}." if isinstance(leaders, list) and leaders else ""
        out.append(f'<p class="winners meta">The journal ends before the game does: the standings after its last '
                   f"ruling.{e(lead)}</p>")
    if not isinstance(rows, list) or not rows:
        return out + ['<p class="meta">No standings: this game\'s engine is not known here.</p>']
    columns: list[str] = []
    for row in rows:
        if isinstance(row, Mapping):
            columns += [k for k in row if k not in columns and k != "player"]
    winning = set(winners) if isinstance(winners, list) else set()
    head = "".join(f"<th>{e(c)}</th>" for c in columns)
    out += ['<table class="standings">', f"<thead><tr><th>player</th>{head}</tr></thead>", "<tbody>"]
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            continue
        seat = row.get("player", i)
        mark = ' class="winner"' if seat in winning else ""
        cells = "".join(f"<td>{e(row.get(c, ''))}</td>" for c in columns)
        out.append(f'<tr{mark} data-seat="{e(seat)}"><td>{e(game.name(seat))}</td>{cells}</tr>')
    out += ["</tbody>", "</table>"]
    return out


def page(entries: Iterable[JournalEntry], engines: Engines | None = None, *, title: str = "Journal") -> str:
    """The HTML page of a journal's entries: :func:`read_games` then :func:`render`."""
    return render(read_games(entries, engines), title=title)
