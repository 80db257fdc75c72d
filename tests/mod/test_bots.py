"""lib.bots on the headless table with a toy game's script: the seat buttons and their levels (kept in the saved
ledger), the seats Setup reads, and the bot's turn — one `bot_move` at a time, seeded from the game's seed and
the decisions taken, performed through the game's perform, asked again once after a refusal then switched off,
asked again after the bridge comes back. The bridge is played by the test (replies fired as onExternalMessage)."""

from __future__ import annotations

import json

from tests.mod.luasrc import MOD, bundle
from tools.headless import Table

UI_XML = """<Panel><Text id="bridgeStatus"></Text><Text id="turnStatus"></Text><Text id="scoreRound"></Text></Panel>
""" + (MOD / "lib" / "bots.xml").read_text(encoding="utf-8")

GENERATED = 'return { version = "9.8.7", protocol = 1, game = "toy-game", mode = "basic" }'

ROOT = """
local link = require("lib.link")
local saved = require("lib.ledger")
local bots = require("lib.bots")
local ttsmod = require("generated.ttsmod")
ledger = nil
performed = {}
answer = true          -- what the toy game's perform says: true (taken), false (refused), nil (not tried)
local COLOURS = { "White", "Red", "Yellow" }
function onLoad(script_state)
    ledger = saved.restore(script_state, { colours = {}, turn = nil, over = false })
    link.start({ game = ttsmod.game, version = ttsmod.version, first_id = 10, timeout = 1, hello_retry = 4 })
    bots.configure({
        ledger = ledger, player_colours = COLOURS, delay = 0.5, think_time = 3,
        colours = function() return ledger.colours end,
        over = function() return ledger.over end,
        decision = function()
            if ledger.turn == nil then return nil end
            return ledger.colours[ledger.turn], "turn " .. tostring(ledger.count or 0)
        end,
        request = function(colour) return { snapshot = { turn = ledger.turn } } end,
        seed = function() return 12345 end,
        describe = function(colour, action) return "takes " .. tostring(action.take) end,
        perform = function(colour, action, done)
            table.insert(performed, colour .. ":" .. tostring(action.take))
            if answer == true then
                ledger.count = (ledger.count or 0) + 1
                ledger.turn = ledger.turn % #ledger.colours + 1
            end
            done(answer)
        end,
    })
    bots.refresh()
    link.hello()
end
function onSave() return saved.save(ledger) end
function onExternalMessage(data) link.handle(data) end
function onBotClick(player, value, id) bots.click(player, id) end
function setup() ledger.colours = bots.colours_in_play(COLOURS); ledger.turn = 1; bots.refresh(); bots.play() end
function colours() return table.concat(ledger.colours, ",") end
function is_bot(c) return bots.isBot(c) end
function level(c) return bots.level(c) end
function bot_seats() return table.concat(bots.seats(), ",") end
function set_turn(t) ledger.turn = t; bots.play() end
function set_answer(a) answer = a end
function play() bots.play() end
function connected() return link.connected() end
function done_list() return table.concat(performed, "|") end
function decisions() return ledger.bots.decisions end
function finish() ledger.over = true; ledger.turn = nil; bots.refresh() end
"""


def _table(script_state: str = "", seated: tuple[str, ...] = ("White",)) -> Table:
    save = {"LuaScript": bundle(ROOT, {"generated.ttsmod": GENERATED}), "LuaScriptState": script_state,
            "XmlUI": UI_XML, "ObjectStates": []}
    table = Table.load(save, bridge_port=None, listen_port=0)
    table.seat(*seated)
    table.boot()
    return table


def _answer(table: Table, kind: str, body: dict, ok: bool = True) -> dict:
    request = [m for m in table.sent_custom if m["type"] == kind][-1]
    reply = {"ttsmod": 1, "re": request["id"], "ok": ok}
    reply.update({"body": body} if ok else {"error": body})
    table.fire("onExternalMessage", reply)
    return request


def _bot_moves(table: Table) -> list[dict]:
    return [m["body"] for m in table.sent_custom if m["type"] == "bot_move"]


def _give_bot(table: Table, colour: str, clicks: int) -> None:
    for _ in range(clicks):
        table.click(f"bot_{colour}", "White")


def _connected_game(**kwargs) -> Table:
    table = _table(**kwargs)
    _answer(table, "hello", {"bridge": "1.2.3"})
    return table


def test_a_button_per_free_seat_cycles_off_easy_normal_hard_and_setup_counts_the_bot_seats():
    with _table() as table:
        assert table.ui_visible("botPanel")
        assert not table.ui_visible("bot_White")          # a player sits there
        assert table.ui_visible("bot_Red") and table.ui_visible("bot_Yellow")
        assert not table.ui_visible("bot_Blue")           # not a colour of this game
        labels = []
        for _ in range(4):
            table.click("bot_Red", "White")
            labels.append(table.ui_value("bot_Red"))
        assert labels == ["Red: bot (easy)", "Red: bot (normal)", "Red: bot (hard)", "Red: no bot"]
        assert any(m == "Red's seat is played by a bot (easy)." for m, c in table.broadcasts if c is None)
        _give_bot(table, "Yellow", 2)
        assert table.call_global("is_bot", "Yellow") is True and table.call_global("is_bot", "Red") is False
        assert table.call_global("bot_seats") == "Yellow"
        table.call_global("setup")
        assert table.call_global("colours") == "White,Yellow"
        # once set up, only the game's free seats keep a button; at the end none does
        assert table.ui_visible("bot_Yellow") and not table.ui_visible("bot_Red")
        table.call_global("finish")
        assert not table.ui_visible("botPanel")


def test_the_bot_seats_survive_a_reload_and_a_player_sitting_down_plays_the_seat():
    with _table() as table:
        _give_bot(table, "Red", 2)
        state = table.save()["LuaScriptState"]
    assert json.loads(state)["ledger"]["bots"]["seats"] == {"Red": "normal"}
    with _table(state) as table:
        assert table.ui_value("bot_Red") == "Red: bot (normal)"
        assert table.call_global("level", "Red") == "normal"
    with _table(state, seated=("White", "Red")) as table:
        assert table.call_global("level", "Red") == "normal"
        assert table.call_global("is_bot", "Red") is False
        assert not table.ui_visible("bot_Red")


def test_a_bot_turn_asks_once_performs_the_reply_and_counts_the_decision():
    with _connected_game() as table:
        _give_bot(table, "Red", 1)
        table.call_global("setup")                     # White's turn: nothing is asked
        table.call_global("set_turn", 2)
        table.advance(0.6)
        table.call_global("play")
        table.call_global("play")
        moves = _bot_moves(table)
        assert len(moves) == 1
        assert moves[0] == {"snapshot": {"turn": 2}, "level": "easy", "seed": moves[0]["seed"]}
        first_seed = moves[0]["seed"]
        since = len(table.broadcasts)
        _answer(table, "bot_move", {"player": 1, "level": "easy", "action": {"take": "apple"}})
        assert table.call_global("done_list") == "Red:apple"
        assert table.call_global("decisions") == 1
        assert ("Red (bot, easy) takes apple.", None) in table.broadcasts[since:]
        # back to White: nothing more is asked until Red's next turn, which gets a new seed
        table.advance(2)
        assert len(_bot_moves(table)) == 1
        table.call_global("set_turn", 2)
        table.advance(0.6)
        assert len(_bot_moves(table)) == 2 and _bot_moves(table)[1]["seed"] != first_seed


def test_the_same_decision_after_a_reload_is_asked_with_the_same_seed():
    with _connected_game() as table:
        _give_bot(table, "Red", 1)
        table.call_global("setup")
        table.call_global("set_turn", 2)
        table.advance(0.6)
        seed = _bot_moves(table)[0]["seed"]
        state = table.save()["LuaScriptState"]
    with _table(state) as table:
        _answer(table, "hello", {"bridge": "1.2.3"})   # the bridge's answer plays the bot's turn
        table.advance(0.6)
        assert [m["seed"] for m in _bot_moves(table)] == [seed]


def test_a_refused_move_is_asked_again_once_then_the_seat_is_switched_off():
    with _connected_game() as table:
        _give_bot(table, "Red", 1)
        table.call_global("setup")
        table.call_global("set_answer", False)
        table.call_global("set_turn", 2)
        table.advance(0.6)
        _answer(table, "bot_move", {"player": 1, "level": "easy", "action": {"take": "pear"}})
        table.advance(0.8)
        moves = _bot_moves(table)
        assert len(moves) == 2 and moves[0]["seed"] != moves[1]["seed"]   # the second attempt is seeded anew
        _answer(table, "bot_move", {"player": 1, "level": "easy", "action": {"take": "pear"}})
        assert table.call_global("level", "Red") == "off"
        assert any(m.startswith("Red's bot is off: the rules refused its move twice") for m, _ in table.broadcasts)
        table.advance(2)
        assert len(_bot_moves(table)) == 2


def test_a_lost_request_is_asked_again_with_the_same_seed_when_the_bridge_answers_again():
    with _connected_game() as table:
        _give_bot(table, "Red", 1)
        table.call_global("setup")
        table.call_global("set_turn", 2)
        table.advance(0.6)
        table.advance(2.7)
        assert len(_bot_moves(table)) == 1             # a bot may think for think_time (3 s) before a resend
        table.advance(0.4)
        assert len(_bot_moves(table)) == 2
        table.advance(1.1)                             # the resend waits the usual timeout (1 s): lost
        assert table.call_global("connected") is False
        table.advance(4.1)                             # hello again, answered: the bridge is back
        _answer(table, "hello", {"bridge": "1.2.3"})
        table.advance(0.6)
        moves = _bot_moves(table)
        assert len(moves) == 3 and moves[2]["seed"] == moves[0]["seed"]
        _answer(table, "bot_move", {"player": 1, "level": "easy", "action": {"take": "plum"}})
        assert table.call_global("done_list") == "Red:plum"
