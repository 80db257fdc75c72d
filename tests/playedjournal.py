"""A short game of any game played through the bridge's dispatcher into a real journal (``bridge.journal.Journal``),
as the bridge writes one: each request in (message 4) and its reply out (message 2), a bot's move, a score panel,
a refused action and the mod's ``broadcast`` notes. What ``ttsmod replay --html`` reads, without a table: the
end-to-end games (tests/games/<game>/e2e/) write theirs from the real mod on the headless table.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bridge.games import default_registry, game_folder_sources
from bridge.journal import Journal
from bridge.session import Dispatcher

HOSTILE = '<script>alert("x")</script> & <b>bold</b> "quoted" \'single\''
"""A text from the table that the page must show as text, never as markup."""


def play_journal(path: Path, source: str, players: int, *, moves: int = 6, seed: int = 3) -> dict[str, Any]:
    """Play ``moves`` decisions of GAME ``source`` (an id or a game folder) for ``players`` seats into the journal
    at ``path``; returns what was played: ``game`` (its id), ``rulings`` (how many answers changed the table),
    ``decisions`` (the actions sent, in order: ``(seat, action)``), ``said`` (the broadcast notes sent, in order),
    ``refused`` (the requests refused) and ``last`` (the last ruling's body)."""
    folders = game_folder_sources([source])
    game_id = next(iter(folders)) if folders else source
    registry = default_registry(folders)
    dispatcher = Dispatcher(registry)
    rng = random.Random(seed)
    played: dict[str, Any] = {"game": game_id, "rulings": 0, "decisions": [], "said": [], "refused": 0, "last": None}
    next_id = [1]

    with Journal(path) as journal:
        def ask(kind: str, body: dict[str, Any]) -> dict[str, Any]:
            request = {"ttsmod": 1, "id": next_id[0], "type": kind, "game": game_id, "body": body}
            next_id[0] += 1
            journal.record("in", {"messageID": 4, "customMessage": request})
            reply = dispatcher.reply(request)
            assert reply is not None
            journal.record("out", {"messageID": 2, "customMessage": reply})
            return reply

        def say(text: str) -> None:
            played["said"].append(text)
            journal.record("in", {"messageID": 4, "customMessage": {"ttsmod": 1, "type": "broadcast", "game": game_id,
                                                                     "body": {"text": text}}})

        journal.record("in", {"messageID": 4, "customMessage": {"ttsmod": 1, "id": 0, "type": "hello",
                                                                 "body": {"mod": "test"}}})
        reply = ask("setup", {"players": players, "seed": seed})
        assert reply["ok"], reply
        ruling = reply["body"]
        played["rulings"] += 1
        say(f"The game begins. {HOSTILE}")
        for move in range(moves):
            if ruling.get("game_over") or not ruling["next"]["legal"]:
                break
            snapshot = ruling["snapshot"]
            if move == 1:   # a bot decides this one: its move is then played as any other
                bot = ask("bot_move", {"snapshot": snapshot, "level": "random", "seed": move})
                assert bot["ok"], bot
                action = bot["body"]["action"]
            else:
                action = rng.choice(ruling["next"]["legal"])
            if move == 2:   # a refused one: the same action sent twice is applied once only
                wrong = _wrong_seat(ruling)
                if wrong is not None:
                    refused = ask("legal", {"snapshot": snapshot, "action": wrong})
                    if refused["ok"] and refused["body"].get("legal") is False:
                        played["refused"] += 1
            reply = ask("legal", {"snapshot": snapshot, "action": action})
            assert reply["ok"] and reply["body"]["legal"], reply
            played["decisions"].append((action.get("player"), action))
            ruling = reply["body"]
            played["rulings"] += 1
            say(f"Move {move + 1} is made.")
            ask("score", {"snapshot": ruling["snapshot"]})
        played["last"] = ruling
    return played


def _wrong_seat(ruling: dict[str, Any]) -> dict[str, Any] | None:
    """One of ``next.legal`` played by another seat than the one to move (a refusal), when actions name seats."""
    legal = ruling["next"]["legal"]
    players = len(ruling["snapshot"].get("players") or [])
    mover = ruling["next"].get("player")
    if not legal or not isinstance(legal[0].get("player"), int) or players < 2 or mover is None:
        return None
    return {**legal[0], "player": (mover + 1) % players}
