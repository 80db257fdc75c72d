"""End to end with bots in empty seats: one scripted player (White) and two bots (lib.bots, level easy) play a
whole 3-player game of Kill the Unicorns through a real bridge on the faithful headless table.

Bots owe decisions out of turn (joining a hunt someone else opened, a power after the reveal, the blind trick
choice, a purchase): the mod asks ``bot_move`` for whichever seat the engine's pending decision names and performs
the answer on the table as a player would (cards dragged from the hand to a slot, the hunt area or a stock, a
token onto a unicorn, then the button), so every move reaches the bridge as the same ``legal`` request a player's
move makes. The test follows every ruled move on the engine from the setup the mod asked for: each ``legal``
request's snapshot (the table as it lay) is the engine's state after the move before (the same cards in every
place, the same bookkeeping), each bot's move is the one the bridge chose for it, and at the end the table, the
winners and the score panel are the engine's. Then the bridge is stopped while a bot owes a decision: nothing
moves, and once it is back the same decision is asked again with the same seed; later the host reloads the
table while a bot owes a decision: the seats are still the bots', and they play on to the end.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from bridge.rules.kill_the_unicorns.actions import Action
from bridge.rules.contract import lua_json as whole_numbers
from tests.e2e.harness import diff
from tests.games.kill_the_unicorns.e2e.harness import Game, bookkeeping
from tests.games.kill_the_unicorns.e2e.tableview import physical

COLOURS = ("White", "Red", "Orange")
BOTS = {"Red": "easy", "Orange": "easy"}


def _start(games, save, data, repo_root, seed: int) -> Game:
    game = Game(save, data, repo_root, list(COLOURS), seed=seed, bots=BOTS)
    games.append(game)
    game.start()
    return game


def _exchanges(game: Game) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Every request the mod sent (once per id: a retry sends the same id again) with the bridge's reply to it
    (None when none came: the bridge was away); those of the tables before a reload first."""
    replies = {}
    for m in game.table.endpoint.received:
        reply = m.get("customMessage") if m.get("messageID") == 2 else None
        if isinstance(reply, dict) and "re" in reply:
            replies[reply["re"]] = whole_numbers(reply)
    seen, out = set(), list(getattr(game, "before_reload", []))
    for raw in game.table.sent_custom:
        if raw.get("type") == "broadcast":   # what the table said (journaled, never answered): not a request
            continue
        request = whole_numbers(raw)
        if request["id"] not in seen:
            seen.add(request["id"])
            out.append((request, replies.get(request["id"])))
    return out


def _same_move(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two actions alike but for the order of their cards (the mod reads laid cards sorted by id)."""
    a, b = dict(a), dict(b)
    for x in (a, b):
        if "cards" in x:
            x["cards"] = sorted(x["cards"])
        if x.get("unicorn") is False:
            x["unicorn"] = None
    return a == b


def _play_to_the_end(game: Game, max_turns: int = 300, stop_after: int | None = None,
                     reload_after: int | None = None) -> dict[str, Any]:
    """White plays whenever the table waits for White; the bots play the other seats. With ``stop_after``, once
    that many moves have been ruled and a bot owes the next decision, the bridge is stopped (the table run on
    for a while) and started again; returns what was seen then. With ``reload_after``, once that many moves have
    been ruled the host reloads the table at White's turn."""
    seen: dict[str, Any] = {}
    for _ in range(max_turns):
        game.wait_for_humans(max_seconds=300)
        if game.over:
            return seen
        game.begin(game.pick())
        if reload_after is not None and "reloaded" not in seen and len(_legal(game)) >= reload_after:
            # White's move is ruled and a bot owes the next decision when the host reloads
            if game.run(lambda: game.deciding() in game.bots and game.table.settled and game.still(), 60):
                seen["reloaded"] = _reload(game)
            continue
        if stop_after is not None and "lost" not in seen and len(_legal(game)) >= stop_after:
            # the ruling of White's move is being applied; the moment it hands over to a bot, the bridge goes
            if game.run(lambda: game.deciding() in game.bots, max_seconds=60):
                seen.update(_restart_while_a_bot_decides(game))
    raise AssertionError("the game did not end")


def _legal(game: Game) -> list[dict[str, Any]]:
    return [q for q, _ in _exchanges(game) if q["type"] == "legal"]


def _reload(game: Game) -> dict[str, Any]:
    """The host saves and reloads the table (the bridge keeps running) while a bot owes the decision: the seats
    are still bots', and once the reloaded table has said hello that bot plays."""
    colour, before, seats = game.deciding(), physical(game.read()), game.ledger()["bots"]["seats"]
    moves = len(_legal(game))
    game.before_reload = _exchanges(game)
    game.reload()
    assert game.table.run_until(game.connected, max_seconds=30)
    assert game.ledger()["bots"]["seats"] == seats == BOTS
    assert game.bot_label("Red") == "Red: bot (easy)"
    assert game.deciding() == colour and physical(game.read()) == before
    assert game.run(lambda: len(_legal(game)) > moves, max_seconds=60), "the bot did not play after the reload"
    return {"colour": colour}


def _restart_while_a_bot_decides(game: Game) -> dict[str, Any]:
    table = game.table
    colour = game.deciding()
    before = physical(game.read())
    asked = len(table.sent_custom)
    since = len(table.broadcasts)
    game.bridge.stop()
    assert table.run_until(lambda: "ttsmod bridge" in table.ui_value("bridgeStatus"), max_seconds=60)
    table.run_until(lambda: False, max_seconds=8)
    # nothing was played while it was away: the same decision waits, the table unchanged, everyone told
    assert game.deciding() == colour and physical(game.read()) == before
    assert any("not answering" in m for m in game.messages_to(None, since))
    lost = [whole_numbers(m) for m in table.sent_custom[asked:] if m.get("type") == "bot_move"]
    assert lost, "the bot's move was not asked for while the bridge was away"
    game.bridge.start()
    assert table.run_until(game.connected, max_seconds=60)
    return {"colour": colour, "lost": lost[0]["body"], "lost_ids": {m["id"] for m in lost}}


def _check_against_the_engine(game: Game) -> Counter:
    """Replay every ruled move on the engine (module docstring); the kinds of move the bots made."""
    engine, data = game.engine, game.data
    exchanges = _exchanges(game)
    setup = [(q, r) for q, r in exchanges if q["type"] == "setup"]
    assert len(setup) == 1 and setup[0][1]["ok"]
    body = setup[0][0]["body"]
    assert body["players"] == 3
    state = engine.from_snapshot(data, engine.handle(data, "setup", {
        "players": 3, "seed": body["seed"], "characters": body.get("characters") or None})["snapshot"])
    assert state.to_snapshot() == whole_numbers(setup[0][1]["body"]["snapshot"])
    bot_kinds: Counter = Counter()
    chosen: dict[str, dict[str, Any]] = {}   # colour → the move the bridge last chose for that bot seat
    for request, reply in exchanges:
        kind, sent = request["type"], request["body"]
        if kind == "bot_move" and reply is not None:
            assert reply["ok"], reply
            colour = COLOURS[reply["body"]["player"]]
            assert colour in BOTS and sent["level"] == BOTS[colour]
            assert reply["body"]["player"] == state.to_move(), "a bot was asked for a seat that owed no decision"
            chosen[colour] = reply["body"]["action"]
        if kind != "legal" or reply is None:
            continue
        assert reply["ok"] and reply["body"]["legal"], (sent["action"], reply)
        snapshot = sent["snapshot"]
        engine_now = whole_numbers(state.to_snapshot())
        assert physical(snapshot) == physical(engine_now), diff(physical(snapshot), physical(engine_now))
        assert bookkeeping(snapshot) == bookkeeping(engine_now) and snapshot["rng"] == engine_now["rng"]
        # the order of a pile is the table's (the engine draws from the top the table shows)
        state = engine.from_snapshot(data, snapshot)
        action = Action.from_json(sent["action"])
        colour = COLOURS[action.player]
        if colour in BOTS:
            assert colour in chosen and _same_move(chosen.pop(colour), sent["action"]), \
                f"{colour} played {sent['action']} for a move the bridge did not choose"
            bot_kinds[sent["action"]["action"]] += 1
        state.apply(action)
    # the table at the end is the engine's end: every card, the winners, the score panel
    assert state.is_over()
    table = game.snapshot()
    assert physical(table) == physical(whole_numbers(state.to_snapshot()))
    outcome = state.outcome()
    winners = " and ".join(COLOURS[s] for s in outcome.winners)
    assert game.status == f"Game over · {winners} won"
    game.check_scores(state)
    return bot_kinds


# One game carries both stories (a whole game with every kind of bot decision, and the bots playing on through
# a bridge restart and a reload): a second whole game of the same seats checked nothing the first does not.
def test_one_player_and_two_bots_play_a_whole_game_through_a_bridge_restart_and_a_reload(games, save, data,
                                                                                         repo_root):
    game = _start(games, save, data, repo_root, seed=22)
    # the seat buttons said so before Setup, and Setup dealt the bot seats in
    assert game.bot_label("Red") == "Red: bot (easy)" and game.bot_label("Orange") == "Orange: bot (easy)"
    assert game.ledger()["colours"] == list(COLOURS)
    first_table = game.table
    seen = _play_to_the_end(game, stop_after=12, reload_after=30)
    assert "lost" in seen, "no bot decision came after the twelfth move"
    assert "reloaded" in seen and game.reloads == 1
    # the decision the bridge missed was asked again once it was back, with the same table and seed (so the
    # same move), and answered
    again = [(q, r) for q, r in _exchanges(game) if q["type"] == "bot_move" and q["id"] not in seen["lost_ids"]
             and q["body"] == seen["lost"]]
    assert len(again) == 1 and again[0][1] is not None and again[0][1]["ok"], again
    assert COLOURS[again[0][1]["body"]["player"]] == seen["colour"]
    kinds = _check_against_the_engine(game)
    # the bots made decisions of every part of a day, out of turn too (joins, powers, trick choices)
    for kind in ("place-trick", "open", "join", "pass", "power", "choose-trick", "buy"):
        assert kinds[kind] > 0, kinds
    assert kinds["place-trick"] == 4 * 2
    # one announcement per bot move (on the table before the reload and after it), naming the seat and its
    # level, telling no hidden face
    said = [m for m, c in first_table.broadcasts if c is None and m.startswith(("Red (bot, ", "Orange (bot, "))]
    said += game.bot_announcements()
    assert len(said) == sum(kinds.values())
    assert all(m.startswith(("Red (bot, easy) ", "Orange (bot, easy) ")) for m in said)
    assert not any("-trick-" in m or "-hunt-" in m for m in said)
    # the game is over: no seat button is offered any more
    assert not game.table.ui_visible("botPanel")
    assert first_table.errors == [] and game.table.errors == []
