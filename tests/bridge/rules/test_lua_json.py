"""Numbers as TTS sends them (every number a float) reach the engines as whole numbers, fractions stay refused."""

from __future__ import annotations

import json


from bridge.session import Dispatcher
from bridge.rules.contract import lua_json

from tests.bridgekit import toy_registry


def test_whole_floats_become_ints_and_fractions_stay():
    sent = {"id": 7.0, "body": {"seat": 0.0, "bag": {"choleric": 3.0}, "list": [1.0, 2.5, -4.0],
                                "flag": True, "name": "2.0", "none": None}}
    got = lua_json(sent)
    assert got == {"id": 7, "body": {"seat": 0, "bag": {"choleric": 3}, "list": [1, 2.5, -4], "flag": True,
                                     "name": "2.0", "none": None}}
    assert type(got["id"]) is int and type(got["body"]["list"][1]) is float and got["body"]["flag"] is True
    assert sent["id"] == 7.0 and type(sent["id"]) is float      # the caller's data is left as it was


def test_huge_and_non_finite_floats_are_left_as_they_came():
    assert type(lua_json(2.0 ** 60)) is float
    assert lua_json([float("inf")]) == [float("inf")]


def test_deep_nesting_costs_no_recursion():
    deep: list = []
    node = deep
    for _ in range(50_000):
        node.append([])
        node = node[0]
    node.append(1.0)
    out = lua_json(deep)
    for _ in range(50_000):
        out = out[0]
    assert out == [1] and type(out[0]) is int


def test_a_request_sent_with_floats_is_answered_as_if_sent_with_ints():
    dispatcher = Dispatcher(toy_registry())
    reply = dispatcher.reply({"ttsmod": 1.0, "id": 7.0, "type": "double", "game": "toy", "body": {"n": 21.0}})
    assert reply == {"ttsmod": 1, "re": 7, "type": "double", "ok": True, "body": {"n": 42}}
    assert json.dumps(reply["body"]) == '{"n": 42}'


