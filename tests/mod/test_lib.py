"""The shared Lua library (mod/lib/) on the headless table, with a toy game's script: the ruling stepper, the
link to the bridge (hello, status line, retries), the saved ledger and the panels. None of it names a game."""

from __future__ import annotations

import json

from tests.mod.luasrc import MOD, bundle
from tools.headless import Table

UI_XML = """<Panel><Text id="bridgeStatus"></Text><Text id="turnStatus"></Text><Text id="scoreRound"></Text>
<Text id="scoreRow1" active="false"></Text><Text id="scoreRow2" active="false"></Text>
<Text id="scoreRow3" active="false"></Text><Text id="scoreRow4" active="false"></Text>
<Text id="scoreRow5" active="false"></Text><Text id="scoreRow6" active="false"></Text></Panel>"""

# A stand-in for the module the build generates (the real one carries the package version).
GENERATED = 'return { version = "9.8.7", protocol = 1, game = "toy-game", mode = "basic" }'

ROOT = """
local link = require("lib.link")
local stepper = require("lib.stepper")
local saved = require("lib.ledger")
local panel = require("lib.panel")
local ttsmod = require("generated.ttsmod")
log = {}
moving = false
ledger = nil
local handlers = {
    say = function(e) table.insert(log, "say " .. e.text) end,
    ask = function(e) table.insert(log, "ask " .. e.text); return "stop" end,
    slow = function(e, resume)
        table.insert(log, "slow " .. e.text)
        Wait.time(function() table.insert(log, "slow done"); resume() end, 2)
        return "async"
    end,
}
function onLoad(script_state)
    ledger = saved.restore(script_state, { applied = 0, phase = "resolution", added = "fresh" })
    stepper.configure({ moving = function() return moving end, step_delay = 0.5, settle_timeout = 3 })
    link.start({ game = ttsmod.game, version = ttsmod.version, first_id = 10, timeout = 1, hello_retry = 4 })
    link.hello()
end
function onSave() return saved.save(ledger) end
function onExternalMessage(data) link.handle(data) end
function run(ruling_json)
    stepper.run(JSON.decode(ruling_json), handlers, ledger, function() return ledger.phase == "resolution" end,
        function() table.insert(log, "finished") end)
end
function lines() return table.concat(log, "|") end
function applied() return ledger.applied end
function set(key, value) ledger[key] = value end
function field(key) return ledger[key] end
function ask_score()
    link.ask("score", { n = 1 }, function(body) table.insert(log, "score " .. tostring(body.n)) end, nil,
        function() table.insert(log, "asked again"); ask_score() end)
end
function set_moving(value) moving = value end
function connected() return link.connected() end
function scores() panel.scores({ "White: 3", "Red: 1" }, "Round 2") end
"""


def _table(script_state: str = "") -> Table:
    save = {"LuaScript": bundle(ROOT, {"generated.ttsmod": GENERATED}), "LuaScriptState": script_state,
            "XmlUI": UI_XML, "ObjectStates": []}
    table = Table.load(save, bridge_port=None, listen_port=0)
    table.boot()
    return table


def _answer_hello(table: Table, bridge: str = "1.2.3") -> None:
    hello = [m for m in table.sent_custom if m["type"] == "hello"][-1]
    table.fire("onExternalMessage", {"ttsmod": 1, "re": hello["id"], "ok": True, "body": {"bridge": bridge}})


def test_no_shared_lua_names_a_game():
    for path in sorted((MOD / "lib").glob("*.lua")):
        text = path.read_text(encoding="utf-8").lower()
        assert "four" not in text and "humour" not in text and "fh-" not in text, path.name


def test_hello_carries_the_generated_version_and_game_and_the_status_line_follows_the_bridge():
    with _table() as table:
        assert table.sent_custom[0] == {"ttsmod": 1, "id": 10, "type": "hello", "game": "toy-game",
                                        "body": {"mod": "9.8.7"}}
        assert table.ui_value("bridgeStatus") == "Connecting to the ttsmod bridge…"
        _answer_hello(table)
        assert table.ui_value("bridgeStatus") == "bridge connected (ttsmod 1.2.3)"
        assert table.call_global("connected") is True


def test_no_hello_answer_shows_how_to_start_the_bridge_and_says_hello_again():
    with _table() as table:
        table.advance(2.1)   # one retry after the 1 s timeout, then given up
        assert table.ui_value("bridgeStatus") == "No bridge. On the host computer run:  ttsmod bridge"
        assert [m["type"] for m in table.sent_custom] == ["hello", "hello"]
        table.advance(4.1)
        assert [m["type"] for m in table.sent_custom] == ["hello", "hello", "hello"]


def test_a_lost_request_tells_everyone_once_and_is_asked_again_when_the_bridge_is_back():
    with _table() as table:
        _answer_hello(table)
        table.call_global("ask_score")
        table.advance(2.1)   # the score request and its retry go unanswered
        assert table.call_global("connected") is False
        assert table.ui_value("bridgeStatus") == "No bridge. On the host computer run:  ttsmod bridge"
        lost = [m for m, _ in table.broadcasts if m.startswith("The rules bridge is not answering")]
        assert len(lost) == 1
        table.advance(4.1)   # hello again; this time the bridge answers
        _answer_hello(table)
        assert table.call_global("lines") == "asked again"
        assert [m["type"] for m in table.sent_custom].count("score") == 3


def test_the_stepper_applies_events_one_by_one_waits_for_async_ones_and_stops_at_a_decision():
    ruling = {"complete": True, "events": [{"event": "say", "text": "a"}, {"event": "slow", "text": "b"},
                                           {"event": "unknown"}, {"event": "ask", "text": "c"},
                                           {"event": "say", "text": "d"}]}
    with _table() as table:
        table.call_global("run", json.dumps(ruling))
        assert table.call_global("lines") == "say a"            # the first at once, the next after the delay
        table.advance(0.6)
        assert table.call_global("lines") == "say a|slow b"
        table.advance(1.0)
        assert table.call_global("lines") == "say a|slow b"     # the async event is still working
        table.advance(1.1)
        assert table.call_global("lines") == "say a|slow b|slow done"
        table.advance(1.5)
        assert table.call_global("lines") == "say a|slow b|slow done|ask c"
        table.advance(5)
        assert table.call_global("applied") == 4                # stopped at the decision
        # the ruling comes again with the choice: the events applied before are skipped
        table.call_global("run", json.dumps(ruling))
        table.advance(1)
        assert table.call_global("lines") == "say a|slow b|slow done|ask c|say d|finished"


def test_the_stepper_waits_for_moves_to_end_and_a_newer_ruling_stops_an_older_one():
    with _table() as table:
        table.call_global("set_moving", True)
        table.call_global("run", json.dumps({"complete": True, "events": [{"event": "say", "text": "old"}]}))
        assert table.call_global("lines") == ""
        table.call_global("set_moving", False)
        table.advance(0.1)
        assert table.call_global("lines") == "say old"
        table.call_global("set", "applied", 0)
        table.call_global("run", json.dumps({"complete": False, "events": [{"event": "say", "text": "x"},
                                                                           {"event": "say", "text": "y"}]}))
        table.call_global("run", json.dumps({"complete": True, "events": [{"event": "say", "text": "new"}]}))
        table.advance(2)
        assert table.call_global("lines") == "say old|say x|finished"


def test_the_ledger_survives_a_save_and_a_load_and_new_fields_keep_their_fresh_value():
    with _table() as table:
        table.call_global("set", "applied", 3)
        table.call_global("set", "phase", "placement")
        state = table.save()["LuaScriptState"]
    assert json.loads(state)["ledger"] == {"applied": 3, "phase": "placement", "added": "fresh"}
    with _table(json.dumps({"ledger": {"applied": 2, "phase": "ended"}})) as table:
        assert (table.call_global("applied"), table.call_global("field", "phase"),
                table.call_global("field", "added")) == (2, "ended", "fresh")
    with _table("not json") as table:
        assert table.call_global("field", "phase") == "resolution"


def test_the_score_panel_shows_one_row_per_line_and_hides_the_rest():
    with _table() as table:
        table.call_global("scores")
        assert table.ui_value("scoreRound") == "Round 2"
        assert [table.ui_value(f"scoreRow{i}") for i in (1, 2)] == ["White: 3", "Red: 1"]
        assert [table.ui_attribute(f"scoreRow{i}", "active") for i in range(1, 7)] == \
            ["true", "true", "false", "false", "false", "false"]
