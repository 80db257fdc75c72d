"""A bot's thinking never blocks the bridge's other answers: the session answers each request on a thread of its
own (bridge/session.py, ``Session._answer``), so a ``legal`` request sent while a slow ``bot_move`` is out is
answered first. The bot is every game's real one (:mod:`tests.everygame`, reached through bridge.catalog); its
search is held back by a gate until the ``legal`` reply is out, as a long search at the hard level would be."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Mapping

import pytest

from bridge.catalog import load
from bridge.games import GameRegistry
from bridge.protocol import CustomMessage
from bridge.rules.game import own_actions
from bridge.session import Session
from tests.everygame import GAMES


class GatedBots:
    """A game's engine whose ``bot_move`` waits for ``gate`` before the bot chooses."""

    def __init__(self, loaded: Any) -> None:
        self.engine, self.data = loaded.engine, loaded.data
        self.request_types = tuple(loaded.engine.request_types)
        self.gate = threading.Event()
        self.bot_started = threading.Event()

    def handle(self, request_type: str, body: Mapping[str, Any]) -> dict[str, Any]:
        if request_type == "bot_move":
            self.bot_started.set()
            assert self.gate.wait(10), "the test never opened the gate"
        return self.engine.handle(self.data, request_type, dict(body))


@pytest.mark.parametrize("source", GAMES)
def test_a_legal_request_is_answered_while_a_slow_bot_move_is_out(source):
    loaded = load(source)
    game_id = loaded.meta.id
    state = loaded.engine.new_game(loaded.data, loaded.meta.min_players, seed=5)
    snapshot = state.to_snapshot()
    action = own_actions(state.legal_actions(), state.to_move())[0].to_json()
    bot_body = {"snapshot": snapshot, "level": "easy", "seed": 7}
    legal_body = {"snapshot": snapshot, "action": action}
    service = GatedBots(loaded)
    registry = GameRegistry()
    registry.register_service(game_id, service)
    sent: list[dict] = []

    async def send(message) -> None:
        sent.append(message.custom_message)

    def replied(rid: int) -> dict | None:
        return next((m for m in sent if m.get("re") == rid), None)

    def request(rid: int, kind: str, body: dict) -> CustomMessage:
        return CustomMessage(custom_message={"ttsmod": 1, "id": rid, "type": kind, "game": game_id, "body": body})

    async def scenario() -> None:
        session = Session(registry, send)
        session.on_message(request(1, "bot_move", bot_body))
        assert await asyncio.to_thread(service.bot_started.wait, 5), "the bot_move never reached the engine"
        session.on_message(request(2, "legal", legal_body))
        for _ in range(500):
            if replied(2) is not None:
                break
            await asyncio.sleep(0.01)
        assert replied(2) is not None, "legal was not answered while bot_move was out"
        assert replied(1) is None and not service.gate.is_set()
        service.gate.set()
        await session.drain()

    asyncio.run(scenario())
    assert replied(2)["ok"] and replied(2)["body"] == loaded.engine.handle(loaded.data, "legal", legal_body)
    assert replied(1)["ok"] and replied(1)["body"] == loaded.engine.handle(loaded.data, "bot_move", bot_body)
    assert [m["re"] for m in sent] == [2, 1]
