"""The External Editor API codec: every message id both ways, TTS's variations, and bad frames."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge import protocol as p

# ---- every message id, both directions: encode → bytes → decode gives the same message


TO_TTS_MESSAGES = [
    p.GetScripts(),
    p.SaveAndPlay(
        script_states=(
            p.ScriptState("Global", "-1", "print('hi')", "<Panel/>"),
            p.ScriptState("Deck", "a0b2d5", "-- deck", ""),
        )
    ),
    p.SendCustomMessage(custom_message={"ttsmod": 1, "re": 3, "ok": True, "body": {"x": [1, 2]}}),
    p.ExecuteLua(script="return 1+1", guid="-1", return_id=7),
]

FROM_TTS_MESSAGES = [
    p.PushNewObject(script_states=(p.ScriptState("Card", "abcdef", ""),)),
    p.GameLoaded(script_states=(p.ScriptState("Global", "-1", "x = 1", "<Text/>"),), save_path="C:/Saves/TS_Save_1.json"),
    p.PrintMessage(message="Hit player! White"),
    p.ErrorMessage(error="chunk_0:(36,4-8): unexpected symbol near 'deck'", guid="-1", error_message_prefix="Error in Global Script: "),
    p.CustomMessage(custom_message={"foo": "Hello", "bar": "World"}),
    p.ReturnValue(return_id=1, value=2.0, has_value=True),
    p.GameSaved(save_path="/saves/TS_Save_2.json"),
    p.ObjectCreated(guid="abcdef"),
]


@pytest.mark.parametrize("message", TO_TTS_MESSAGES, ids=lambda m: type(m).__name__)
def test_editor_to_tts_messages_round_trip(message):
    data = p.encode(message)
    assert json.loads(data)["messageID"] == message.message_id
    assert p.decode(data, p.ToTTS.direction) == message


@pytest.mark.parametrize("message", FROM_TTS_MESSAGES, ids=lambda m: type(m).__name__)
def test_tts_to_editor_messages_round_trip(message):
    data = p.encode(message)
    assert json.loads(data)["messageID"] == message.message_id
    assert p.decode(data) == message


def test_every_message_id_is_covered():
    assert sorted(type(m).message_id for m in TO_TTS_MESSAGES) == [0, 1, 2, 3]
    assert sorted(type(m).message_id for m in FROM_TTS_MESSAGES) == list(range(8))


def test_execute_lua_wire_fields_match_what_real_clients_send():
    wire = json.loads(p.encode(p.ExecuteLua(script="return 1+1", return_id=1)))
    assert wire == {"messageID": 3, "guid": "-1", "script": "return 1+1", "returnID": 1}


def test_save_and_play_keeps_empty_ui_and_script_fields():
    wire = json.loads(p.encode(p.SaveAndPlay(script_states=(p.ScriptState("Bag", "b1", "", ""),))))
    assert wire["scriptStates"] == [{"name": "Bag", "guid": "b1", "script": "", "ui": ""}]


# ---- tolerance where TTS varies


def test_pretty_printed_reply_with_float_value_and_integral_float_id():
    data = b'{\n  "messageID": 5,\n  "returnID": 1.0,\n  "returnValue": 2.0\n}'
    message = p.decode(data)
    assert message == p.ReturnValue(return_id=1, value=2.0, has_value=True)


def test_missing_return_value_means_nil():
    message = p.decode(b'{"messageID": 5, "returnID": 4}')
    assert isinstance(message, p.ReturnValue)
    assert message.has_value is False and message.value is None and message.return_id == 4


def test_unknown_fields_are_kept_and_written_back():
    data = b'{"messageID": 7, "guid": "abc123", "futureField": {"a": 1}}'
    message = p.decode(data)
    assert message.extra == {"futureField": {"a": 1}}
    assert json.loads(p.encode(message))["futureField"] == {"a": 1}


def test_game_loaded_keeps_unknown_script_state_fields_and_absent_ui():
    data = json.dumps(
        {"messageID": 1, "savePath": "s.json", "scriptStates": [{"name": "Global", "guid": "-1", "script": "", "extra": 2}]}
    ).encode()
    message = p.decode(data)
    assert message.script_states[0].ui is None
    assert message.script_states[0].extra == {"extra": 2}
    assert message.save_path == "s.json"


def test_empty_lua_table_as_custom_message_is_an_empty_object():
    assert p.decode(b'{"messageID": 4, "customMessage": []}') == p.CustomMessage(custom_message={})


def test_byte_order_mark_is_tolerated():
    assert p.decode('\ufeff{"messageID": 2, "message": "x"}'.encode()) == p.PrintMessage(message="x")


# ---- strictness: typed errors that blame the peer


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b'{"messageID": 2, "message": "cut', "not_json"),
        (b"\x00\xff garbage", "not_utf8"),
        (b"[1, 2, 3]", "not_object"),
        (b'"just a string"', "not_object"),
        (b"42", "not_object"),
        (b"null", "not_object"),
        (b'{"message": "no id"}', "no_message_id"),
        (b'{"messageID": 99}', "unknown_message_id"),
        (b'{"messageID": "two"}', "bad_field"),
        (b'{"messageID": 1.5}', "bad_field"),
        (b'{"messageID": true}', "bad_field"),
        (b'{"messageID": 4, "customMessage": "text"}', "bad_field"),
        (b'{"messageID": 1, "scriptStates": "x"}', "bad_field"),
        (b'{"messageID": 1, "scriptStates": [3]}', "bad_field"),
        (b'{"messageID": 3, "error": 5}', "bad_field"),
        (b'{"messageID": 2, "message": NaN}', "not_json"),
        (b"{ messageID: 0 }", "not_json"),
    ],
)
def test_bad_frames_raise_remote_protocol_errors(data, reason):
    with pytest.raises(p.RemoteProtocolError) as info:
        p.decode(data)
    assert info.value.reason == reason


def test_oversized_frame_is_refused_as_soon_as_the_cap_is_passed():
    receiver = p.MessageReceiver(max_size=100)
    receiver.receive_data(b"{" + b" " * 90)
    with pytest.raises(p.RemoteProtocolError) as info:
        receiver.receive_data(b" " * 20)
    assert info.value.reason == "too_large"


def test_default_cap_is_32_mib():
    assert p.MessageReceiver().max_size == 32 * 1024 * 1024 == p.DEFAULT_MAX_SIZE


def test_message_exactly_at_the_cap_is_accepted():
    data = b'{"messageID": 2, "message": "' + b"x" * 50 + b'"}'
    receiver = p.MessageReceiver(max_size=len(data))
    receiver.receive_data(data)
    assert receiver.finish() == p.PrintMessage(message="x" * 50)


def test_receiver_misuse_is_a_local_error():
    receiver = p.MessageReceiver()
    receiver.receive_data(b'{"messageID": 7, "guid": "a"}')
    receiver.finish()
    with pytest.raises(p.LocalProtocolError):
        receiver.receive_data(b"more")
    with pytest.raises(p.LocalProtocolError):
        receiver.finish()


def test_encoding_a_non_json_value_is_a_local_error():
    with pytest.raises(p.LocalProtocolError):
        p.encode(p.SendCustomMessage(custom_message={"x": float("nan")}))
    with pytest.raises(p.LocalProtocolError):
        p.encode(p.SendCustomMessage(custom_message={"x": object()}))


def test_a_lone_surrogate_is_sent_as_its_json_escape_and_comes_back_the_same():
    message = p.SendCustomMessage(custom_message={"re": "id\ud800", "text": "Привіт"})
    data = p.encode(message)
    assert data.decode("utf-8") == '{"messageID":2,"customMessage":{"re":"id\\ud800","text":"\\u041f\\u0440\\u0438\\u0432\\u0456\\u0442"}}'
    assert p.decode(data, "to_tts") == message
    assert p.encode(p.SendCustomMessage(custom_message={"text": "Привіт"})).decode("utf-8").endswith('"Привіт"}}')


def test_local_and_remote_errors_are_both_protocol_errors():
    assert issubclass(p.LocalProtocolError, p.ProtocolError)
    assert issubclass(p.RemoteProtocolError, p.ProtocolError)
    assert not issubclass(p.LocalProtocolError, p.RemoteProtocolError)


# ---- bytes split across reads


def test_non_ascii_text_split_inside_a_character_decodes_once_at_end():
    text = "Гумор: флегматик 😀 — ü"
    data = p.encode(p.PrintMessage(message=text))
    cut = data.index("😀".encode()) + 2  # in the middle of the 4-byte emoji
    receiver = p.MessageReceiver()
    receiver.receive_data(data[:cut])
    receiver.receive_data(data[cut:])
    assert receiver.finish() == p.PrintMessage(message=text)


@given(st.text(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=8))
@settings(max_examples=200, deadline=None)
def test_any_chunking_of_any_text_gives_the_same_message(text, cuts):
    data = p.encode(p.CustomMessage(custom_message={"text": text}))
    positions = sorted({c % (len(data) + 1) for c in cuts})
    receiver = p.MessageReceiver()
    start = 0
    for position in positions + [len(data)]:
        receiver.receive_data(data[start:position])
        start = position
    assert receiver.finish() == p.CustomMessage(custom_message={"text": text})


@given(st.binary(max_size=300))
@settings(max_examples=500, deadline=None)
def test_decode_raises_only_protocol_errors_on_arbitrary_bytes(data):
    try:
        message = p.decode(data)
    except p.RemoteProtocolError:
        return
    assert isinstance(message, p.FromTTS)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.sampled_from(["messageID", "scriptStates", "customMessage", "returnID", "returnValue",
                                         "guid", "error", "message", "savePath", "errorMessagePrefix"]),
                       json_values | st.integers(min_value=0, max_value=8)))
@settings(max_examples=200, deadline=None)
def test_decode_raises_only_protocol_errors_on_arbitrary_objects(obj):
    try:
        message = p.decode(json.dumps(obj).encode())
    except p.RemoteProtocolError:
        return
    # Whatever decoded re-encodes to valid JSON of the same id.
    assert json.loads(p.encode(message))["messageID"] == message.message_id
