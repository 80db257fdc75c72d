"""Requests that used to get no reply at all now get one: a non-finite id, absurd nesting, an unsendable ruling."""

from __future__ import annotations

import pytest

from bridge.games import FunctionService, GameRegistry
from bridge.journal import Journal, read_journal
from bridge.session import MAX_REQUEST_DEPTH


def _raw_custom(custom_json: str) -> bytes:
    return ('{"messageID":4,"customMessage":' + custom_json + "}").encode()


@pytest.mark.parametrize("number", ["1e999", "-1e999"])
def test_an_id_too_large_for_a_float_gets_bad_request_with_re_null(kit, tmp_path, number):
    journal = Journal(tmp_path / "j.jsonl")

    async def scenario():
        tts, bridge = await kit.start_pair(journal=journal)
        try:
            await tts.send_bytes(_raw_custom('{"ttsmod":1,"id":%s,"type":"double","game":"toy","body":{"n":1}}' % number))
            refused = await tts.next_custom()
            await tts.send_custom(kit.request(2, "double", {"n": 1}))
            return refused, await tts.next_custom()
        finally:
            await kit.stop_pair(tts, bridge)

    refused, after = kit.run(scenario())
    journal.close()
    assert refused["ok"] is False and refused["re"] is None
    assert refused["error"]["code"] == "bad_request" and "finite" in refused["error"]["message"]
    assert after["body"] == {"n": 2}
    assert all(entry.raw for entry in read_journal(tmp_path / "j.jsonl"))


@pytest.mark.parametrize("depth", [MAX_REQUEST_DEPTH + 1, 500, 970, 985])
def test_a_request_nested_absurdly_deep_gets_bad_request_and_the_journal_stays_readable(kit, tmp_path, depth):
    journal = Journal(tmp_path / "j.jsonl")
    deep = "[" * depth + "]" * depth

    async def scenario():
        tts, bridge = await kit.start_pair(journal=journal)
        try:
            await tts.send_bytes(_raw_custom('{"ttsmod":1,"id":"deep","type":"double","game":"toy","body":{"n":1,"x":%s}}' % deep))
            await kit.wait_for(lambda: bridge.session.stats["received"] + bridge.session.stats["malformed"] == 1)
            decoded = bridge.session.stats["received"] == 1
            refused = await tts.next_custom() if decoded else None
            await tts.send_custom(kit.request("after", "double", {"n": 3}))
            return decoded, refused, await tts.next_custom()
        finally:
            await kit.stop_pair(tts, bridge)

    decoded, refused, after = kit.run(scenario())
    journal.close()
    if decoded:  # past Python's JSON limit the frame cannot be read at all: counted malformed, nothing to answer
        assert refused["re"] == "deep" and refused["error"]["code"] == "bad_request"
        assert f"more than {MAX_REQUEST_DEPTH} levels" in refused["error"]["message"]
    assert after["re"] == "after" and after["body"] == {"n": 6}
    assert [entry.direction for entry in read_journal(tmp_path / "j.jsonl")][-1] == "out"


def test_a_request_at_the_depth_limit_is_still_answered(kit):
    nested: object = 1
    for _ in range(MAX_REQUEST_DEPTH - 2):  # the envelope and the body are two levels
        nested = [nested]

    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            await tts.send_custom(kit.request("ok", "double", {"n": 2, "x": nested}))
            return await tts.next_custom()
        finally:
            await kit.stop_pair(tts, bridge)

    assert kit.run(scenario())["body"] == {"n": 4}


def test_a_ruling_that_cannot_be_written_as_json_becomes_an_internal_error_reply(kit):
    registry = GameRegistry()
    registry.register_service("toy", FunctionService(("nan",), lambda kind, body: {"score": float("nan")}))

    async def scenario():
        tts, bridge = await kit.start_pair(registry)
        try:
            await tts.send_custom(kit.request(9, "nan"))
            return await tts.next_custom(), bridge.session.stats
        finally:
            await kit.stop_pair(tts, bridge)

    reply, stats = kit.run(scenario())
    assert reply == {"ttsmod": 1, "re": 9, "type": "nan", "ok": False,
                     "error": {"code": "internal", "message": "the bridge's reply could not be written as JSON"}}
    assert stats["replies"] == 1 and stats["reply_failures"] == 0


def test_a_request_whose_id_holds_a_lone_surrogate_is_answered_with_that_id(kit):
    # JSON may spell "\ud800", which UTF-8 cannot: the reply spells it the same way, so the mod gets its own id back
    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            await tts.send_bytes(_raw_custom('{"ttsmod":1,"id":"a\\ud800","type":"double","game":"toy","body":{"n":1}}'))
            answered = await tts.next_custom()
            await tts.send_bytes(_raw_custom('{"ttsmod":1,"id":"b","type":"\\udfff","game":"toy","body":{}}'))
            refused = await tts.next_custom()
            return answered, refused, bridge.session.stats
        finally:
            await kit.stop_pair(tts, bridge)

    answered, refused, stats = kit.run(scenario())
    assert answered["re"] == "a\ud800" and answered["ok"] is True and answered["body"] == {"n": 2}
    assert refused["re"] == "b" and refused["type"] == "\udfff" and refused["error"]["code"] == "unknown_type"
    assert stats["replies"] == 2 and stats["reply_failures"] == 0


def test_a_print_holding_a_lone_surrogate_is_mirrored_with_its_escape(kit):
    shown: list[tuple[str, str]] = []

    async def scenario():
        tts, bridge = await kit.start_pair(console=lambda kind, text: (text.encode("utf-8"), shown.append((kind, text))))
        try:
            await tts.send_bytes(b'{"messageID":2,"message":"bad\\ud800 print"}')
            await tts.send_bytes(b'{"messageID":3,"error":"bad\\udc00 error","guid":"-1","errorMessagePrefix":""}')
            await kit.wait_for(lambda: len(shown) == 2)
        finally:
            await kit.stop_pair(tts, bridge)

    kit.run(scenario())
    assert shown == [("print", "bad\\ud800 print"), ("error", "bad\\udc00 error")]


def test_a_broadcast_note_is_journaled_and_never_answered(kit, tmp_path):
    """The mod's note of what the table told everyone (no id): the bridge journals it, counts it, answers nothing
    (not even an error), and answers the next request as usual."""
    journal = Journal(tmp_path / "j.jsonl")
    note = {"ttsmod": 1, "type": "broadcast", "game": "toy", "body": {"text": "White passes.", "seats": ["White"]}}

    async def scenario():
        tts, bridge = await kit.start_pair(journal=journal)
        try:
            await tts.send_custom(note)
            await kit.wait_for(lambda: bridge.session.stats["broadcasts"] == 1)
            await tts.send_custom(kit.request(2, "double", {"n": 1}))
            return await tts.next_custom(), dict(bridge.session.stats.counts)
        finally:
            await kit.stop_pair(tts, bridge)

    after, counts = kit.run(scenario())
    journal.close()
    assert after["re"] == 2 and after["body"] == {"n": 2}   # the first reply is the request's: none for the note
    assert counts["broadcasts"] == 1 and counts["requests"] == 1 and not counts.get("ignored_custom")
    notes = [e.message["customMessage"] for e in read_journal(tmp_path / "j.jsonl")
             if e.direction == "in" and e.message and e.message.get("messageID") == 4]
    assert notes[0] == note
