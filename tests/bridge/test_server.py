"""The real bridge server driven by a fake TTS over 127.0.0.1: envelope, concurrency, exec, push, pull."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from bridge import __version__
from bridge import protocol as p
from bridge.server import Bridge, PortInUse, send_message
from bridge.session import PushRefused, TtsNotRunning, TtsTimeout
from bridge.errors import InputError


def test_hello_answers_with_version_and_games(kit):
    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            await tts.send_custom({"ttsmod": 1, "id": 1, "type": "hello", "game": "toy", "body": {"mod": "0.1.0"}})
            return await tts.next_custom()
        finally:
            await kit.stop_pair(tts, bridge)

    reply = kit.run(scenario())
    assert reply == {"ttsmod": 1, "re": 1, "type": "hello", "ok": True, "body": {"bridge": __version__, "games": ["toy"]}}


def test_game_request_is_answered_by_its_service(kit):
    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            await tts.send_custom(kit.request("r-1", "double", {"n": 21}))
            return await tts.next_custom()
        finally:
            await kit.stop_pair(tts, bridge)

    assert kit.run(scenario()) == {"ttsmod": 1, "re": "r-1", "type": "double", "ok": True, "body": {"n": 42}}


@pytest.mark.parametrize(
    ("custom", "code"),
    [
        ({"ttsmod": 1, "id": 5, "type": "double", "game": "chess", "body": {}}, "unknown_game"),
        ({"ttsmod": 1, "id": 5, "type": "castle", "game": "toy", "body": {}}, "unknown_type"),
        ({"ttsmod": 1, "id": 5, "type": "double", "game": "toy", "body": "n=2"}, "bad_request"),
        ({"ttsmod": 1, "id": 5, "game": "toy", "body": {}}, "bad_request"),
        ({"ttsmod": 1, "id": 5, "type": "double", "body": {}}, "bad_request"),
        ({"ttsmod": 2, "id": 5, "type": "double", "game": "toy", "body": {}}, "bad_request"),
        ({"ttsmod": 1, "id": 5, "type": "refuse", "game": "toy", "body": {}}, "bad_request"),
        ({"ttsmod": 1, "id": 5, "type": "boom", "game": "toy", "body": {}}, "internal"),
    ],
)
def test_refused_requests_carry_an_error_code_and_the_bridge_keeps_serving(kit, custom, code):
    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            await tts.send_custom(custom)
            refused = await tts.next_custom()
            await tts.send_custom(kit.request(6, "double", {"n": 1}))
            return refused, await tts.next_custom()
        finally:
            await kit.stop_pair(tts, bridge)

    refused, after = kit.run(scenario())
    assert refused["ok"] is False and refused["re"] == 5
    assert refused["error"]["code"] == code and refused["error"]["message"]
    assert after["ok"] is True and after["body"] == {"n": 2}


def test_request_without_an_id_is_answered_with_re_null(kit):
    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            await tts.send_custom({"ttsmod": 1, "type": "hello", "body": {}})
            return await tts.next_custom()
        finally:
            await kit.stop_pair(tts, bridge)

    reply = kit.run(scenario())
    assert reply["re"] is None and reply["error"]["code"] == "bad_request"


def test_empty_lua_table_body_counts_as_an_empty_object(kit):
    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            await tts.send_custom({"ttsmod": 1, "id": 2, "type": "hello", "game": "toy", "body": []})
            return await tts.next_custom()
        finally:
            await kit.stop_pair(tts, bridge)

    assert kit.run(scenario())["ok"] is True


def test_custom_message_of_another_script_is_ignored(kit):
    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            await tts.send_custom({"type": "guids", "content": "{}"})
            await kit.wait_for(lambda: bridge.session.stats["received"] == 1)
            ignored = bridge.session.stats["ignored_custom"]
            await tts.send_custom({"ttsmod": 1, "id": "h", "type": "hello", "body": {}})
            first_reply = await tts.next_custom()
            return ignored, first_reply, len(tts.received)
        finally:
            await kit.stop_pair(tts, bridge)

    ignored, first_reply, received = kit.run(scenario())
    assert ignored == 1
    assert first_reply["re"] == "h"  # nothing was sent for the foreign message
    assert received == 1


def test_hundred_concurrent_requests_are_all_answered_and_correlated(kit):
    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            await asyncio.gather(*(tts.send_custom(kit.request(f"q{i}", "double", {"n": i})) for i in range(100)))
            return [await tts.next_custom() for _ in range(100)]
        finally:
            await kit.stop_pair(tts, bridge)

    replies = kit.run(scenario())
    by_id = {r["re"]: r for r in replies}
    assert len(by_id) == 100
    for i in range(100):
        assert by_id[f"q{i}"]["ok"] is True and by_id[f"q{i}"]["body"] == {"n": 2 * i}


def test_a_slow_ruling_does_not_hold_back_a_later_one(kit):
    game = kit.ToyGame()

    async def scenario():
        tts, bridge = await kit.start_pair(kit.toy_registry(game))
        try:
            await tts.send_custom(kit.request("slow", "wait"))
            await tts.send_custom(kit.request("fast", "double", {"n": 4}))
            first = await tts.next_custom()
            game.release.set()
            second = await tts.next_custom()
            return first, second
        finally:
            game.release.set()
            await kit.stop_pair(tts, bridge)

    first, second = kit.run(scenario())
    assert first["re"] == "fast" and first["body"] == {"n": 8}
    assert second["re"] == "slow" and second["body"] == {"waited": True}


def test_exec_returns_tables_nil_scalars_and_errors(kit):
    async def scenario():
        tts, bridge = await kit.start_pair()
        tts.lua = kit.lua_runner()
        try:
            session = bridge.session
            return await asyncio.gather(
                session.execute("return {a = 1, list = {1, 2, 3}}"),
                session.execute("local x = 1"),
                session.execute("return 'text'"),
                session.execute("error('nope')"),
                session.execute("return 1 +"),
            )
        finally:
            await kit.stop_pair(tts, bridge)

    table, nil, text, error, syntax = kit.run(scenario())
    assert table.ok and table.value == {"a": 1, "list": [1, 2, 3]}
    assert nil.ok and nil.value is None
    assert text.ok and text.value == "text"
    assert not error.ok and "nope" in error.error
    assert not syntax.ok and syntax.error


def test_exec_replies_are_correlated_by_return_id_even_when_they_arrive_reversed(kit):
    async def scenario():
        tts, bridge = await kit.start_pair()
        held: list[p.ExecuteLua] = []

        def hold(message):
            held.append(message)
            return []

        tts.lua = hold
        try:
            tasks = [asyncio.ensure_future(bridge.session.execute(f"return {i}", timeout=10)) for i in range(5)]
            await kit.wait_for(lambda: len(held) == 5)
            for message in reversed(held):
                value = json.dumps({"ok": True, "value": int(message.script.split("return ")[1].split("\n")[0])})
                await tts.send(p.ReturnValue(return_id=message.return_id, value=value, has_value=True))
            return await asyncio.gather(*tasks)
        finally:
            await kit.stop_pair(tts, bridge)

    results = kit.run(scenario())
    assert [r.value for r in results] == [0, 1, 2, 3, 4]


def test_exec_times_out_when_tts_never_answers(kit):
    async def scenario():
        tts, bridge = await kit.start_pair()
        tts.lua = lambda message: []
        try:
            with pytest.raises(TtsTimeout):
                await bridge.session.execute("return {}", timeout=0.2)
        finally:
            await kit.stop_pair(tts, bridge)

    kit.run(scenario())


def test_sending_when_tts_is_not_running_is_one_sentence():
    async def scenario():
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        with pytest.raises(TtsNotRunning) as info:
            await send_message(p.GetScripts(), "127.0.0.1", port, timeout=2)
        return str(info.value)

    text = asyncio.run(scenario())
    assert "Tabletop Simulator is not listening" in text and "\n" not in text


def test_port_already_taken_names_the_usual_suspects(kit):
    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            with pytest.raises(PortInUse) as info:
                await Bridge(registry=kit.toy_registry(), port=bridge.port, tts_port=tts.port).start()
            return str(info.value)
        finally:
            await kit.stop_pair(tts, bridge)

    text = kit.run(scenario())
    assert "VS Code" in text and "Atom" in text and "second ttsmod bridge" in text


def test_non_loopback_host_needs_allow_remote():
    with pytest.raises(InputError):
        Bridge(host="0.0.0.0")
    with pytest.raises(InputError):
        Bridge(tts_host="192.168.1.20")
    Bridge(host="0.0.0.0", allow_remote=True)  # accepted when asked for


def test_push_sends_script_and_ui_of_every_object_and_keeps_ui(kit, tmp_path):
    from bridge.luaproject.editor import read_script_files

    (tmp_path / "Global.-1.lua").write_text("print('v2')\n", encoding="utf-8")
    (tmp_path / "Board.abc123.lua").write_text("-- board v2\n", encoding="utf-8")

    async def scenario():
        tts, bridge = await kit.start_pair()
        tts.scripts = {
            "-1": p.ScriptState("Global", "-1", "print('v1')", "<Panel id='status'/>"),
            "abc123": p.ScriptState("Board", "abc123", "-- board v1", "<Button id='go'/>"),
        }
        try:
            loaded = await bridge.session.push(read_script_files(tmp_path), timeout=10)
            push = next(m for m in tts.received if isinstance(m, p.SaveAndPlay))
            return loaded, push, dict(tts.scripts)
        finally:
            await kit.stop_pair(tts, bridge)

    loaded, push, scripts = kit.run(scenario())
    assert all(s.script is not None and s.ui is not None for s in push.script_states)
    assert scripts["-1"].script == "print('v2')\n" and scripts["-1"].ui == "<Panel id='status'/>"
    assert scripts["abc123"].script == "-- board v2\n" and scripts["abc123"].ui == "<Button id='go'/>"
    assert {s.guid for s in loaded.script_states} == {"-1", "abc123"}


def test_push_refuses_an_empty_global_and_sends_nothing(kit):
    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            with pytest.raises(PushRefused):
                await bridge.session.push([p.ScriptState("Global", "-1", "  \n", "")], timeout=5)
            return list(tts.received)
        finally:
            await kit.stop_pair(tts, bridge)

    assert not [m for m in kit.run(scenario()) if isinstance(m, p.SaveAndPlay)]


def test_pull_writes_name_guid_files_that_push_reads_back(kit, tmp_path):
    from bridge.luaproject.editor import read_script_files, write_script_files

    async def scenario():
        tts, bridge = await kit.start_pair()
        tts.scripts = {
            "-1": p.ScriptState("Global", "-1", "x = 'ü'", "<Text>é</Text>"),
            "d1e2f3": p.ScriptState("Deck: A/B", "d1e2f3", "-- deck", None),
        }
        try:
            return (await bridge.session.get_scripts(timeout=5)).script_states
        finally:
            await kit.stop_pair(tts, bridge)

    states = kit.run(scenario())
    written = write_script_files(tmp_path, states)
    assert sorted(path.name for path in written) == ["Deck_ A_B.d1e2f3.lua", "Global.-1.lua", "Global.-1.xml"]
    again = {s.guid: s for s in read_script_files(tmp_path)}
    assert again["-1"].script == "x = 'ü'" and again["-1"].ui == "<Text>é</Text>"
    assert again["d1e2f3"].script == "-- deck" and again["d1e2f3"].ui is None


def test_prints_and_errors_are_mirrored_with_the_source_line(kit, tmp_path):
    from bridge.luaproject.errormap import error_locator
    from bridge.luaproject.bundle import bundle

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "util.lua").write_text("local M = {}\nfunction M.f()\n  return nil + 1\nend\nreturn M\n")
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "global.lua").write_text("local util = require('lib.util')\nutil.f()\n")
    built = bundle(tmp_path / "game" / "global.lua", [tmp_path])
    util = built.module("lib.util")
    bad_line = util.first_line + 2  # "return nil + 1"
    shown: list[tuple[str, str]] = []

    async def scenario():
        tts, bridge = await kit.start_pair(console=lambda kind, text: shown.append((kind, text)),
                                           locate_error=error_locator(tmp_path, "game/global.lua"))
        tts.scripts = {"-1": p.ScriptState("Global", "-1", built.text, "")}
        try:
            await tts.send(tts.game_loaded())
            await tts.send(p.PrintMessage(message="hello from Lua"))
            await tts.send(p.ErrorMessage(error=f"chunk_0:({bad_line},9-15): attempt to perform arithmetic on a nil value",
                                          guid="-1", error_message_prefix="Error in Global Script: "))
            await kit.wait_for(lambda: bridge.session.stats["received"] == 3)
        finally:
            await kit.stop_pair(tts, bridge)

    kit.run(scenario())
    assert ("print", "hello from Lua") in shown
    errors = [text for kind, text in shown if kind == "error"]
    assert len(errors) == 1
    assert errors[0].startswith("Error in Global Script: chunk_0:")
    assert errors[0].endswith(f"(at {tmp_path.name}/lib/util.lua:3)")


def test_malformed_frames_are_counted_and_ignored(kit):
    frames = [b"", b"garbage", b"[1,2]", b'{"messageID": 42}', b"\xff\xfe", b'{"messageID": 4, "customMessage": 1}',
              b"x" * 5000]

    async def scenario():
        tts, bridge = await kit.start_pair(max_size=4096)
        try:
            for frame in frames:
                await tts.send_bytes(frame)
            await kit.wait_for(lambda: bridge.session.stats["malformed"] == len(frames))
            await tts.send_custom({"ttsmod": 1, "id": 1, "type": "hello", "body": {}})
            return await tts.next_custom(), bridge.session.stats
        finally:
            await kit.stop_pair(tts, bridge)

    reply, stats = kit.run(scenario())
    assert reply["ok"] is True
    assert stats["malformed:too_large"] == 1 and stats["malformed:empty"] == 1


def test_hostile_input_ten_thousand_frames_then_hello_still_answers(kit):
    rng = random.Random(20261129)
    pieces = [b"{", b"}", b"[", b"]", b'"messageID"', b":", b"4", b"5", b",", b'"customMessage"', b'"ttsmod"',
              b"1", b"null", b"\xc3", b"\x00", b" ", b'"id"', b'"type"', b'"hello"', b"1e999", b"-", b"\xf0\x9f"]
    templates = [
        lambda: bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 64))),
        lambda: b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 30))),
        lambda: json.dumps({"messageID": rng.randint(-2, 9), "customMessage": rng.choice([None, 1, "x", [], {}])}).encode(),
        lambda: json.dumps({"messageID": 4, "customMessage": {"ttsmod": rng.choice([1, 2, "1", None]),
                            "id": rng.choice([1, "a", None, True, [1]]), "type": rng.choice(["hello", "double", "boom", 3]),
                            "game": rng.choice(["toy", "nope", None]), "body": rng.choice([{}, {"n": 1}, "x", [], None])}}).encode(),
        lambda: json.dumps({"messageID": 5, "returnID": rng.choice([1, 1.5, "x", None]), "returnValue": "{"}).encode(),
    ]
    frames = [rng.choice(templates)() for _ in range(10_000)]

    async def scenario():
        tts, bridge = await kit.start_pair(read_timeout=5)
        try:
            semaphore = asyncio.Semaphore(64)

            async def one(frame: bytes) -> None:
                async with semaphore:
                    await tts.send_bytes(frame)

            await asyncio.gather(*(one(frame) for frame in frames))
            await kit.wait_for(lambda: bridge.session.stats["received"] + bridge.session.stats["malformed"] == len(frames), 30)
            await bridge.session.drain()
            while not tts.custom.empty():
                tts.custom.get_nowait()
            await tts.send_custom({"ttsmod": 1, "id": "last", "type": "hello", "body": {}})
            while True:
                reply = await tts.next_custom()
                if reply.get("re") == "last":
                    return reply
        finally:
            await kit.stop_pair(tts, bridge)

    reply = kit.run(scenario(), limit=120)
    assert reply["ok"] is True and reply["body"]["bridge"] == __version__
