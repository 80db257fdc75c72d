"""mod/lib/bridge.lua on the headless table: ids, timeout with one retry, replies matched once, unknown ids ignored."""

from __future__ import annotations

from tests.mod.luasrc import bundle
from tools.headless import Table

ROOT = """
local bridge = require("lib.bridge")
outcome = {}
function onLoad()
    bridge.reset("toy-game", 100)
    bridge.timeout = 2
    bridge.request("legal", { x = 1 }, {
        reply = function(body) table.insert(outcome, "reply " .. tostring(body.legal)) end,
        refused = function(err) table.insert(outcome, "refused " .. err.code) end,
        lost = function() table.insert(outcome, "lost") end,
    })
end
function onExternalMessage(data) bridge.handle(data) end
function result() return table.concat(outcome, ",") end
function pending() return bridge.pending_count() end
"""


def _table():
    table = Table.load({"LuaScript": bundle(ROOT), "ObjectStates": []}, bridge_port=None, listen_port=0)
    table.boot()
    return table


def test_request_envelope_and_reply():
    with _table() as table:
        assert table.sent_custom == [{"ttsmod": 1, "id": 100, "type": "legal", "game": "toy-game",
                                      "body": {"x": 1}}]
        table.fire("onExternalMessage", {"ttsmod": 1, "re": 999, "ok": True, "body": {"legal": False}})
        table.fire("onExternalMessage", {"ttsmod": 1, "re": 100, "ok": True, "body": {"legal": True}})
        table.fire("onExternalMessage", {"ttsmod": 1, "re": 100, "ok": True, "body": {"legal": False}})
        assert table.call_global("result") == "reply true"
        assert table.call_global("pending") == 0


def test_timeout_retries_once_with_the_same_id_then_reports_lost():
    with _table() as table:
        table.advance(2.05)
        assert [m["id"] for m in table.sent_custom] == [100, 100]
        assert table.call_global("result") == ""
        table.advance(2.05)
        assert table.call_global("result") == "lost"
        # a late reply after giving up is ignored
        table.fire("onExternalMessage", {"ttsmod": 1, "re": 100, "ok": True, "body": {"legal": True}})
        assert table.call_global("result") == "lost"


def test_refusal_reaches_the_caller():
    with _table() as table:
        table.advance(2.05)
        table.fire("onExternalMessage", {"ttsmod": 1, "re": 100, "ok": False,
                                         "error": {"code": "bad_snapshot", "message": "no"}})
        assert table.call_global("result") == "refused bad_snapshot"
