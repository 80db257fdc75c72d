"""What makes a build fast must not change a byte of it: the save's JSON text is exactly what the standard
encoder writes, and an incremental rebuild writes exactly what a cold build of the same data writes."""

from __future__ import annotations

import json
import math
from enum import IntEnum

import pytest

from tools.save import dumps


def standard(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)


class Level(IntEnum):
    LOW = 1


TRICKY = [
    {},
    [],
    {"a": {}, "b": [], "c": [{}], "d": [[]]},
    {"Nickname": "Ёлка \"quoted\" \\ back\tslash\n\u2028 \x00 \x1f é 🦄", "Description": ""},
    {"posX": 0.0, "posY": -1.5, "big": 1e300, "small": 5e-324, "third": 1 / 3, "neg": -0.0, "int": -12,
     "huge": 10 ** 40},
    {"flags": [True, False, None], "nested": {"deeper": {"deepest": [1, [2, [3, {"x": "y"}]]]}}},
    ("a", "tuple", ("inside",)),
    "just a string",
    3.25,
    7,
    None,
    True,
    {"LuaScript": "local t = {}\r\nreturn t -- ünïcödé", "ObjectStates": [{"GUID": "abc123"}] * 3},
    # the fast path leaves these to the standard encoder, whose text is the answer
    {1: "int key", 2.5: "float key", None: "null key", True: "bool key"},
    {"level": Level.LOW, "levels": [Level.LOW]},
]


@pytest.mark.parametrize("data", TRICKY, ids=range(len(TRICKY)))
def test_the_save_encoder_writes_what_the_standard_encoder_writes(data):
    assert dumps(data) == standard(data)


@pytest.mark.parametrize("data", [{"x": math.nan}, {"x": [math.inf]}, {"x": -math.inf}, {"x": object()},
                                  {(1, 2): "tuple key"}, [{1, 2}]], ids=range(6))
def test_what_the_standard_encoder_refuses_the_save_encoder_refuses_alike(data):
    with pytest.raises((ValueError, TypeError)) as expected:
        standard(data)
    with pytest.raises(expected.type) as got:
        dumps(data)
    assert str(got.value) == str(expected.value)


def test_a_lua_string_literal_reads_back_as_its_text_and_escapes_as_before():
    import random

    from bridge.luabundle import _LUA_ESCAPES, lua_string, tokenize

    alphabet = [chr(c) for c in range(130)] + ["é", "Ё", "🦄", "\u2028", "\\n", '\\"']
    rnd = random.Random(13)
    for _ in range(2000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 24)))
        literal = lua_string(text)
        # every byte that is not plain text escaped with a decimal or one-letter escape, nothing else touched
        assert literal == '"' + text.translate(_LUA_ESCAPES) + '"'
        (token,) = tokenize(literal)
        assert token.kind == "string" and token.value == text
        (token,) = tokenize("'" + literal[1:-1].replace("'", "\\'") + "'")   # the other quote reads alike
        assert token.value == text
