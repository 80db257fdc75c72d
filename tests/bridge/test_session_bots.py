"""A bot's thinking never blocks the bridge's other answers: the session answers each request on a thread of its
own (bridge/session.py, ``Session._answer``), so a ``legal`` request sent while a slow ``bot_move`` is out is
answered first. The bot is Four Humours' real one; its search is held back by a gate until the ``legal`` reply
is out, as a long search at a hard level would be."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Mapping

from bridge.catalog import load
from bridge.games import GameRegistry
from bridge.protocol import CustomMessage
from bridge.session import Session
from tests.test_docs_json import DOCS, named_examples

EXAMPLES = named_examples(DOCS / "games" / "four-humours" / "protocol.md")


class GatedBots:
    """Four Humours' engine, whose ``bot_move`` waits for ``gate`` before the bot chooses."""

    def __init__(self) -> None:
        game = load("four-humours")
        self.engine, self.data = game.engine, game.data
        self.request_types = tuple(game.engine.request_types)
        self.gate = threading.Event()
        self.bot_started = threading.Event()

    def handle(self, request_type: str, body: Mapping[str, Any]) -> dict[str, Any]:
        if request_type == "bot_move":
            self.bot_started.set()
            assert self.gate.wait(10), "the test never opened the gate"
        return self.engine.handle(self.data, request_type, dict(body))


def _request(rid: int, kind: str, body: dict) -> dict:
    return {"ttsmod": 1, "id": rid, "type": kind, "game": "four-humours", "body": body}


def test_a_legal_request_is_answered_while_a_slow_bot_move_is_out():
    service = GatedBots()
    registry = GameRegistry()
    registry.register_service("four-humours", service)
    sent: list[dict] = []

    async def send(message) -> None:
        sent.append(message.custom_message)

    def replied(rid: int) -> dict | None:
        return next((m for m in sent if m.get("re") == rid), None)

    async def scenario() -> None:
        session = Session(registry, send)
        snapshot = EXAMPLES["snapshot"]
        session.on_message(CustomMessage(custom_message=_request(1, "bot_move", {
            "snapshot": snapshot, "level": "easy", "seed": 7})))
        assert await asyncio.to_thread(service.bot_started.wait, 5), "the bot_move never reached the engine"
        legal = dict(EXAMPLES["legal place request"], snapshot=snapshot)
        session.on_message(CustomMessage(custom_message=_request(2, "legal", legal)))
        for _ in range(500):
            if replied(2) is not None:
                break
            await asyncio.sleep(0.01)
        assert replied(2) is not None, "legal was not answered while bot_move was out"
        assert replied(1) is None and not service.gate.is_set()
        service.gate.set()
        await session.drain()

    asyncio.run(scenario())
    assert replied(2)["ok"] and replied(2)["body"] == EXAMPLES["legal place reply"]
    assert replied(1)["ok"] and replied(1)["body"] == EXAMPLES["bot_move reply"]
    assert [m["re"] for m in sent] == [2, 1]
