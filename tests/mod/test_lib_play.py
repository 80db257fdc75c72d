"""The shared play loop (mod/lib/play.lua) and the pieces it moves (mod/lib/pieces.lua) on the headless table,
under a toy game's description, with the bridge's answers given by hand: Setup asked and dealt, a drop
recognised on a zone, a slot or a hand and asked of the bridge, a refusal putting the piece back, a ruling's
events (the game's handlers, the table laid anew for the rest), the ledger, the panels, the end of the game and a
reload in the middle of a ruling. None of it names a game."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bridge.luaproject.scriptfolder import expand_includes
from tests.mod.handtable import answer, connect, generated_game, generated_ttsmod, obj
from tests.mod.luasrc import MOD, bundle
from tools.headless import Fidelity, Table, Vec

ROOT = """
local play = require("lib.play")
local pieces = require("lib.pieces")
log = {}
local function places(snap)
    local out = {}
    for seat, p in ipairs(snap.players or {}) do
        for _, id in ipairs(p.hand or {}) do out[id] = { hand = play.colour_of(seat - 1) } end
    end
    for k, id in ipairs(snap.board or {}) do out[id] = { k = k } end
    return out
end
local function spot(place)
    local c = pieces.zone("toy-zone", { role = "board" }).getPosition()
    return { position = { c.x - 2 + 2 * (place.k - 1), 1.2, c.z }, rotation = { 0, 180, 0 } }
end
play.configure({
    game = require("generated.game"), ttsmod = require("generated.ttsmod"), places = places, spot = spot,
    zones = { "toy-zone" }, slots = { "toy-board" },
    action_for_drop = function(colour, o, where)
        local at = where.hand or where.slot or where.memo.role
        table.insert(log, "drop " .. colour .. " " .. pieces.id_of(o) .. " " .. tostring(at))
        if where.slot ~= nil then return "slot " .. tostring(where.slot) end
        if where.memo.role == "board" then return { action = "put", player = play.seat_of(colour), card = pieces.id_of(o) } end
        return nil
    end,
    handlers = { said = function(e)
        table.insert(log, "said " .. e.text)
        play.ledger().last_said = e.text
    end },
    setup_options = function(colours) return { variant = play.data().variant, first = colours[1] } end,
    step_delay = 0.2,
})
function onLoad(s) play.load(s) end
function onSave() return play.save() end
function onExternalMessage(m) play.handle(m) end
function onObjectDrop(colour, o) play.dropped(colour, o) end
function onSetupClick(player) play.setup(player.color) end
function lines() return table.concat(log, "|") end
"""

DATA = {"player_colours": ["White", "Red", "Blue"], "min_players": 2, "max_players": 3, "variant": "short"}
ENVELOPE = {"ttsmod_snapshot": 1, "game": "toy-game", "mode": "basic"}
DEALT = {**ENVELOPE, "players": [{"hand": ["a"]}, {"hand": ["b", "c"]}], "board": []}
PUT = {**ENVELOPE, "players": [{"hand": []}, {"hand": ["b", "c"]}], "board": ["a"]}
PUT_A = {"action": "put", "player": 0, "card": "a"}


def card(guid: str, piece: str) -> dict:
    return obj(guid, "Card", ["toy-card"], {"id": piece}, pos=(0, 1, 9), rot=(0, 180, 180))


def objects() -> list[dict]:
    deck = obj("dddddd", "Deck", ["toy-card"], {"role": "deck"}, pos=(0, 1, 9), rot=(0, 180, 180),
               ContainedObjects=[card("aaaaaa", "a"), card("bbbbbb", "b"), card("cccccc", "c")])
    zone = obj("zzzzzz", "ScriptingTrigger", ["toy-zone"], {"role": "board"}, pos=(0, 1.5, 0), scale=(8, 2, 4))
    board = obj("ssssss", "Custom_Tile", ["toy-board"], {"role": "slots"}, pos=(12, 1, 0),
                AttachedSnapPoints=[{"Position": {"x": -1, "y": 0.1, "z": 0}}, {"Position": {"x": 1, "y": 0.1, "z": 0}}])
    hands = [obj(f"h{c[:5].lower()}", "HandTrigger", ["toy-card"], pos=(x, 3, -15), scale=(8, 5, 3), FogColor=c)
             for c, x in (("White", -10), ("Red", 0), ("Blue", 10))]
    return [deck, zone, board, *hands]


def load_root(root: str, script_state: str = "", objs: list[dict] | None = None, seated=("White", "Red"),
              xml: str = '<Include src="lib/play.xml"/>', fidelity: Fidelity | None = None) -> Table:
    """The toy game with Global ``root`` on a headless table (``fidelity``, by default the faithful one), booted:
    ``objs`` (default :func:`objects`) laid, ``seated`` sat down, ``xml`` its UI."""
    save = {"LuaScript": bundle(root, {"generated.game": generated_game("toy-game", DATA, mode="basic"),
                                       "generated.ttsmod": generated_ttsmod("toy-game", mode="basic")}),
            "LuaScriptState": script_state, "XmlUI": expand_includes(xml, [MOD], "ui.xml"),
            "ObjectStates": objs if objs is not None else objects()}
    t = Table.load(save, seed=1, bridge_port=None, listen_port=0,
                   fidelity=fidelity if fidelity is not None else Fidelity.faithful())
    t.seat(*seated)
    t.boot()
    return t


def load(script_state: str = "", objs: list[dict] | None = None, seated=("White", "Red")) -> Table:
    return load_root(ROOT, script_state, objs, seated)


def piece(t: Table, piece_id: str):
    return next(o for o in t.objects if o.memo_json().get("id") == piece_id)


def seen(t: Table, piece_id: str) -> tuple[float, float, float, bool]:
    """Where a player sees a piece: ``(x, z, level, face_down)``, loose on the table or in a deck lying there
    (cards merge into decks on the faithful table): a card in a deck lies where the deck lies, shows the deck's
    face, and its level is the deck's height plus its place counted from the deck's bottom."""
    for o in t.objects:
        if o.memo_json().get("id") == piece_id:
            return o.position.x, o.position.z, round(o.position.y, 3), o.face_down
        for k, inner in enumerate(reversed(o.contents) if o.name == "Deck" else ()):
            if inner.memo_json().get("id") == piece_id:
                return o.position.x, o.position.z, round(o.position.y + 0.001 * k, 3), o.face_down
    raise AssertionError(f"no piece {piece_id} on the table")


def requests(t: Table, kind: str) -> list[dict]:
    return [m["body"] for m in t.sent_custom if m["type"] == kind]


def drop(t: Table, colour: str, piece_id: str, where: Vec) -> None:
    o = piece(t, piece_id)
    t.pick_up(o, colour)
    t.drop(o, colour, position=where)
    t.advance(1.0)


def ledger(t: Table) -> dict:
    return json.loads(t.call_global("onSave"))["ledger"]


def press_setup(t: Table) -> None:
    """The bridge connected, White presses Setup, the bridge answers: a to White's hand, b and c to Red's."""
    connect(t)
    t.click("setupButton", "White")
    answer(t, "setup", {"snapshot": DEALT, "events": [], "next": {"player": 0, "legal": [PUT_A]}})


@pytest.fixture
def dealt():
    """Setup pressed, answered and dealt; the first score answered."""
    with load() as t:
        press_setup(t)
        t.advance(3)
        answer(t, "score", {"standings": [{"player": 0, "score": 3}, {"player": 1, "score": 1}]})
        yield t


def test_setup_asks_for_the_seated_players_and_deals_the_answer_out_of_the_deck(dealt):
    (body,) = requests(dealt, "setup")
    assert body["players"] == 2 and body["mode"] == "basic" and isinstance(body["seed"], (int, float))
    assert (body["variant"], body["first"]) == ("short", "White")      # the game's own options
    assert sorted(o.memo_json()["id"] for o in dealt.hand("White")) == ["a"]
    # the deck's last card became a card of its own when b was taken: it went to Red's hand a round later
    assert sorted(o.memo_json()["id"] for o in dealt.hand("Red")) == ["b", "c"]
    assert not [o for o in dealt.objects if o.name == "Deck"]
    assert ledger(dealt)["phase"] == "play" and ledger(dealt)["colours"] == ["White", "Red"]
    assert ledger(dealt)["snapshot"] == DEALT
    assert dealt.ui_value("turnStatus") == "White to play"
    assert dealt.ui_attribute("setupButton", "active") == "false"
    assert dealt.turns["turn_color"] == "White"


def test_the_score_panel_shows_the_bridges_score_one_row_a_seat(dealt):
    assert requests(dealt, "score")[-1] == {"snapshot": DEALT}
    assert dealt.ui_value("scoreRound") == "Scores now"
    assert [dealt.ui_value(f"scoreRow{i}") for i in (1, 2)] == ["White: 3", "Red: 1"]


def test_a_drop_in_a_zone_asks_legal_and_a_refusal_puts_the_piece_back(dealt):
    drop(dealt, "White", "a", Vec(1, 1.2, 0.5))
    assert dealt.call_global("lines") == "drop White a board"
    assert requests(dealt, "legal") == [{"snapshot": DEALT, "action": PUT_A}]
    assert dealt.ui_value("turnStatus") == "checking White's move…"
    answer(dealt, "legal", {"legal": False, "reason": "nope", "message": "not now"})
    dealt.advance(1)
    assert [o.memo_json()["id"] for o in dealt.hand("White")] == ["a"]
    assert ("Not allowed: not now.", "White") in dealt.broadcasts
    assert dealt.ui_value("turnStatus") == "White to play"


def test_a_ruling_runs_the_games_handlers_lays_the_table_anew_and_keeps_its_snapshot(dealt):
    drop(dealt, "White", "a", Vec(-3, 1.2, 1))
    answer(dealt, "legal", {"legal": True, "events": [{"event": "said", "text": "hi"}, {"event": "put"}],
                            "snapshot": PUT, "next": {"player": 1, "legal": []}, "complete": True})
    dealt.advance(2)
    assert dealt.call_global("lines") == "drop White a board|said hi"
    assert ledger(dealt)["last_said"] == "hi"                           # a game's own field of the ledger
    a = piece(dealt, "a")
    assert (round(a.position.x, 3), round(a.position.z, 3)) == (-2, 0) and not a.face_down   # on its spot
    assert ledger(dealt)["snapshot"] == PUT and "ruling" not in ledger(dealt)      # done: nothing half applied
    assert dealt.ui_value("turnStatus") == "Red to play" and dealt.turns["turn_color"] == "Red"
    assert requests(dealt, "score")[-1] == {"snapshot": PUT}


def test_a_ruling_that_is_not_complete_is_never_finished(dealt):
    drop(dealt, "White", "a", Vec(-3, 1.2, 1))
    answer(dealt, "legal", {"legal": True, "events": [{"event": "said", "text": "hi"}], "snapshot": PUT,
                            "next": {"player": 1, "legal": []}})
    dealt.advance(5)
    assert dealt.call_global("lines") == "drop White a board|said hi"
    assert dealt.ui_value("turnStatus") == "checking White's move…"     # lib.stepper waits for the rest of it


def test_the_end_of_the_game_shows_the_winners(dealt):
    drop(dealt, "White", "a", Vec(-3, 1.2, 1))
    answer(dealt, "legal", {"legal": True, "events": [], "snapshot": PUT, "next": {"player": None, "legal": []},
                            "game_over": {"winners": [1], "decided_by": "cards"}, "complete": True})
    dealt.advance(2)
    answer(dealt, "score", {"standings": [{"player": 0, "score": 1}, {"player": 1, "score": 4}], "leaders": [1]})
    assert dealt.ui_value("turnStatus") == "Game over · Red won"
    assert ("Game over: Red won (decided by cards).", None) in dealt.broadcasts
    assert dealt.ui_value("scoreRound") == "Final scores · Red won"
    assert ledger(dealt)["phase"] == "over" and dealt.turns["enable"] is False


def test_a_drop_is_told_where_it_lies_a_slot_a_zone_or_a_hand_and_elsewhere_is_nothing(dealt):
    board = next(o for o in dealt.objects if o.name == "Custom_Tile")
    o = piece(dealt, "a")
    dealt.pick_up(o, "White")
    dealt.drop(o, "White", snap=(board, 1))
    dealt.advance(1)
    assert requests(dealt, "legal")[-1]["action"] == "slot 1"          # an action in its text form
    answer(dealt, "legal", {"legal": False, "reason": "nope", "message": "no"})
    dealt.advance(1)
    drop(dealt, "White", "a", Vec(-10, 3, -15))                         # within the hand: no action
    drop(dealt, "White", "a", Vec(30, 1.2, 30))                         # nowhere: not even asked
    assert dealt.call_global("lines") == "drop White a 1|drop White a White"
    assert len(requests(dealt, "legal")) == 1


def test_a_drop_while_a_move_is_checked_waits_and_goes_back(dealt):
    drop(dealt, "White", "a", Vec(1, 1.2, 0.5))
    drop(dealt, "Red", "b", Vec(-1, 1.2, 0.5))
    assert len(requests(dealt, "legal")) == 1
    assert ("Wait a moment: the last move is still being applied.", "Red") in dealt.broadcasts
    assert "b" in [o.memo_json()["id"] for o in dealt.hand("Red")]


def test_setup_needs_a_seated_count_the_game_takes():
    with load(seated=("White",)) as t:
        connect(t)
        t.click("setupButton", "White")
        t.advance(1)
        assert requests(t, "setup") == []
        assert ("Seat 2 to 3 players, then press Setup.", None) in t.broadcasts


def test_a_ruling_saved_half_applied_goes_on_after_a_reload(dealt):
    drop(dealt, "White", "a", Vec(-3, 1.2, 1))
    events = [{"event": "said", "text": "one"}, {"event": "said", "text": "two"}, {"event": "said", "text": "three"}]
    answer(dealt, "legal", {"legal": True, "events": events, "snapshot": PUT, "next": {"player": 1, "legal": []},
                            "complete": True})
    dealt.step(2)
    saved = dealt.save()
    assert json.loads(saved["LuaScriptState"])["ledger"]["applied"] == 1
    with load(saved["LuaScriptState"], saved["ObjectStates"]) as again:
        assert again.ui_value("turnStatus") == "checking White's move…"
        again.advance(3)
        assert again.call_global("lines") == "said two|said three"         # the events applied before are skipped
        assert again.ui_value("turnStatus") == "Red to play"
        a = piece(again, "a")
        assert (round(a.position.x, 3), round(a.position.z, 3)) == (-2, 0)


def test_a_table_saved_while_dealing_is_dealt_on_after_a_reload():
    with load() as t:
        press_setup(t)
        t.step(1)
        saved = t.save()
    assert json.loads(saved["LuaScriptState"])["ledger"]["phase"] == "dealing"
    with load(saved["LuaScriptState"], saved["ObjectStates"]) as again:
        assert again.ui_value("turnStatus") == "laying the table…"
        again.advance(4)
        assert sorted(o.memo_json()["id"] for o in again.hand("Red")) == ["b", "c"]
        assert [o.memo_json()["id"] for o in again.hand("White")] == ["a"]
        assert again.ui_value("turnStatus") == "White to play"


# ------------------------------------------------------------------ bots (the description's `perform`)
BOTS_ROOT = ROOT.replace("    step_delay = 0.2,\n})", "    step_delay = 0.2, perform = play.act,\n})") + """
function onBotClick(player, value, id) play.bot_click(player, id) end
function onPlayerChangeColor(colour) play.seat_changed(colour) end
"""
assert "perform = play.act" in BOTS_ROOT
PUT_B = {"action": "put", "player": 1, "card": "b"}
PUT_BY_RED = {**ENVELOPE, "players": [{"hand": ["a"]}, {"hand": ["c"]}], "board": ["b"]}


def load_with_bots(script_state: str = "", objs: list[dict] | None = None, seated=("White",)) -> Table:
    return load_root(BOTS_ROOT, script_state, objs, seated,
                     xml='<Include src="lib/play.xml"/><Include src="lib/bots.xml"/>')


def test_a_bot_seat_is_counted_at_setup_its_move_asked_and_made_and_the_turn_not_handed_to_it():
    with load_with_bots() as t:
        assert t.ui_visible("bot_Red") and not t.ui_visible("bot_White")   # a free seat of the game's colours
        t.click("bot_Red", "White")
        assert t.ui_value("bot_Red") == "Red: bot (easy)"
        connect(t)
        t.click("setupButton", "White")
        assert requests(t, "setup")[0]["players"] == 2                     # White and the bot seat
        answer(t, "setup", {"snapshot": DEALT, "events": [], "next": {"player": 1, "legal": [PUT_B]}})
        t.advance(3)
        assert ledger(t)["colours"] == ["White", "Red"] and ledger(t)["phase"] == "play"
        assert t.ui_value("turnStatus") == "Red to play" and t.turns["turn_color"] != "Red"
        (asked,) = requests(t, "bot_move")
        assert asked["snapshot"] == DEALT and asked["level"] == "easy" and isinstance(asked["seed"], (int, float))
        answer(t, "bot_move", {"player": 1, "level": "easy", "action": PUT_B})
        t.advance(1)
        assert ("Red (bot, easy) plays put.", None) in t.broadcasts
        assert requests(t, "legal") == [{"snapshot": DEALT, "action": PUT_B}]
        answer(t, "legal", {"legal": True, "events": [], "snapshot": PUT_BY_RED, "next": {"player": 0, "legal": []},
                            "complete": True})
        t.advance(3)
        b = piece(t, "b")
        assert (round(b.position.x, 3), round(b.position.z, 3)) == (-2, 0)    # laid as the ruling's snapshot says
        assert ledger(t)["bots"]["decisions"] == 1 and ledger(t)["moves"] == 2  # the deal and Red's move
        assert t.ui_value("turnStatus") == "White to play" and t.turns["turn_color"] == "White"
        assert len(requests(t, "bot_move")) == 1                            # White's move is White's


def test_a_bots_move_the_bridge_refuses_is_asked_once_more_then_its_seat_is_given_up():
    with load_with_bots() as t:
        t.click("bot_Red", "White")
        connect(t)
        t.click("setupButton", "White")
        answer(t, "setup", {"snapshot": DEALT, "events": [], "next": {"player": 1, "legal": [PUT_B]}})
        t.advance(3)
        for _ in range(2):
            answer(t, "bot_move", {"player": 1, "level": "easy", "action": PUT_B})
            t.advance(1)
            answer(t, "legal", {"legal": False, "reason": "nope", "message": "not that"})
            t.advance(2)
        seeds = [body["seed"] for body in requests(t, "bot_move")]
        assert len(seeds) == 2 and seeds[0] != seeds[1]                     # asked again with another seed
        assert any(m.startswith("Red's bot is off: the rules refused its move twice") for m, c in t.broadcasts)
        assert not ledger(t)["bots"]["seats"] and t.ui_value("bot_Red") == "Red: no bot"


def test_a_player_sitting_down_in_a_bot_seat_gets_the_turn_and_the_bot_asks_nothing():
    with load_with_bots() as t:
        t.click("bot_Red", "White")
        connect(t)
        t.click("setupButton", "White")
        answer(t, "setup", {"snapshot": DEALT, "events": [], "next": {"player": 1, "legal": [PUT_B]}})
        t.seat("White", "Red")
        t.fire("onPlayerChangeColor", "Red")
        t.advance(3)
        assert t.turns["turn_color"] == "Red" and not t.ui_visible("bot_Red")
        assert requests(t, "bot_move") == []


# ------------------------------------------------------------------ piles and loose places (lib.pieces' spots)
PILES_ROOT = ROOT.replace("""    for k, id in ipairs(snap.board or {}) do out[id] = { k = k } end""", """    for k, id in ipairs(snap.board or {}) do out[id] = { k = k } end
    for _, id in ipairs(snap.pile or {}) do out[id] = { pile = true } end
    for _, id in ipairs(snap.loose or {}) do out[id] = { loose = true } end""").replace("""    local c = pieces.zone("toy-zone", { role = "board" }).getPosition()""", """    local z = pieces.zone("toy-zone", { role = "board" })
    local c = z.getPosition()
    if place.pile then return { position = { c.x + 3, 1.1, c.z }, rotation = { 0, 180, 0 }, pile = "discard" } end
    if place.loose then
        return { position = { c.x - 3, 1.1, c.z }, rotation = { 0, 180, 0 }, zone = z, any_face = true }
    end""")
assert "pile = \"discard\"" in PILES_ROOT and "snap.loose" in PILES_ROOT


def load_piles(objs: list[dict], fidelity: Fidelity | None = None) -> Table:
    return load_root(PILES_ROOT, "", objs, fidelity=fidelity)


def deal_piles(t: Table, snapshot: dict) -> None:
    connect(t)
    t.click("setupButton", "White")
    answer(t, "setup", {"snapshot": snapshot, "events": [], "next": {"player": 0, "legal": []}})
    assert t.run_until(lambda: t.ui_value("turnStatus") == "White to play" and not any(o.in_motion for o in t.objects),
                       max_seconds=10)


def test_a_deck_most_of_whose_cards_go_to_one_pile_is_moved_there_whole_and_the_rest_taken_out_there():
    with load_piles(objects()) as t:
        deal_piles(t, {**ENVELOPE, "players": [{"hand": []}, {"hand": ["c"]}], "board": [], "pile": ["a", "b"]})
        (deck,) = [o for o in t.objects if o.name == "Deck"]
        assert (round(deck.position.x, 3), round(deck.position.z, 3)) == (3, 0)    # the deck made the pile
        assert sorted(c.memo_json()["id"] for c in deck.contents) == ["a", "b"]
        assert [o.memo_json()["id"] for o in t.hand("Red")] == ["c"]
        assert t.errors == []


@pytest.mark.parametrize("fidelity", [
    pytest.param(Fidelity.faithful(), id="faithful"),
    pytest.param(replace(Fidelity.faithful(), smooth_moves_merge=False), id="smooth-moves-never-merge"),
])
def test_loose_cards_sent_to_a_pile_lie_one_on_another_and_a_zones_piece_stays_where_it_lies(fidelity):
    cards = [obj(guid, "Card", ["toy-card"], {"id": piece_id}, pos=pos, rot=(0, 180, 180))
             for guid, piece_id, pos in (("aaaaaa", "a", (0, 1, 9)), ("bbbbbb", "b", (4, 1, 9)),
                                         ("cccccc", "c", (-4, 1, 9)), ("eeeeee", "e", (1, 1.2, 1)))]
    bag = obj("gggggg", "Bag", ["toy-card"], {"id": "g"}, pos=(8, 1, 9), ContainedObjects=[])   # a bag that is a piece
    with load_piles(cards + [bag] + objects()[1:], fidelity) as t:
        deal_piles(t, {**ENVELOPE, "players": [{"hand": []}, {"hand": []}], "board": [], "pile": ["a", "b", "c"],
                       "loose": ["e", "g"]})
        g = piece(t, "g")       # sent to its spot in the zone
        assert (round(g.position.x, 3), round(g.position.z, 3)) == (-3, 0)
        pile = [seen(t, i) for i in ("a", "b", "c")]     # loose cards, or a deck they merged into (issue #24 row 1)
        assert {(round(x, 3), round(z, 3)) for x, z, _, _ in pile} == {(3, 0)}
        assert len({level for _, _, level, _ in pile}) == 3 and not any(down for _, _, _, down in pile)
        e = piece(t, "e")       # inside the zone, face down: in place as it lies
        assert (round(e.position.x, 3), round(e.position.z, 3)) == (1, 1) and e.face_down
        assert t.errors == []


# ------------------------------------------------------------------ a game that lays and reads its own table
# (the description's deal, keep, snapshot, moving and panels, and play.decide for a decision of its own)
OWN_ROOT = """
local play = require("lib.play")
local pieces = require("lib.pieces")
log = {}
play.configure({
    game = require("generated.game"), ttsmod = require("generated.ttsmod"),
    deal = function(colours, done)
        table.insert(log, "deal " .. table.concat(colours, ","))
        local deck = pieces.find()["a"].container
        local t = Player["White"].getHandTransform()
        deck.takeObject({ guid = "aaaaaa", position = t.position, rotation = { 0, 180, 0 }, smooth = false })
        done({ player = 1 }, { round = 1, players = { { hand = { "a" } } } })
    end,
    keep = function(snap) return { round = snap.round } end,
    snapshot = function() return { read = "table", round = play.ledger().snapshot.round } end,
    moving = function() return moving_now end,
    panels = function() table.insert(log, "panels " .. play.ledger().phase) end,
    status = function(next, colour) return colour .. " to go (" .. tostring(next.player) .. ")" end,
    step_delay = 0.2,
})
moving_now = false
function set_moving(flag) moving_now = flag end
function onLoad(s) play.load(s) end
function onSave() return play.save() end
function onExternalMessage(m) play.handle(m) end
function onSetupClick(player) play.setup(player.color) end
function press()
    play.decide("Red", { action = "go", player = 1 }, {
        snapshot = function() return { asked = "with what Red moved" } end,
        undo = function() table.insert(log, "undo") end,
        done = function(result) table.insert(log, "done " .. tostring(result)) end })
end
function onPlayerTurn(player, previous) play.turn_changed() end
function pass_turn(colour) Turns.turn_color = colour end
function send(guid, at) pieces.send(getObjectFromGUID(guid), at) return pieces.moving() end
function lines() return table.concat(log, "|") end
"""


def load_own(script_state: str = "", objs: list[dict] | None = None) -> Table:
    return load_root(OWN_ROOT, script_state, objs)


def test_a_game_with_its_own_deal_lays_its_table_without_asking_setup_and_keeps_what_keep_keeps():
    with load_own() as t:
        t.click("setupButton", "White")          # no bridge: the game lays its own table
        t.advance(1)
        assert requests(t, "setup") == []
        assert [o.memo_json()["id"] for o in t.hand("White")] == ["a"]
        assert ledger(t)["phase"] == "play" and ledger(t)["colours"] == ["White", "Red"]
        assert ledger(t)["snapshot"] == {"round": 1} and ledger(t)["next"] == {"player": 1}
        assert t.ui_value("turnStatus") == "Red to go (1)" and t.turns["turn_color"] == "Red"
        assert t.call_global("lines").startswith("panels setup|panels dealing|deal White,Red|panels play")
        connect(t)
        t.advance(1)


def test_a_decision_of_the_games_own_is_asked_with_its_snapshot_put_back_on_a_refusal_and_kept_when_ruled():
    with load_own() as t:
        connect(t)
        t.click("setupButton", "White")
        t.advance(2)
        answer(t, "score", {"standings": [{"player": 0, "score": 0}, {"player": 1, "score": 0}]})
        assert requests(t, "score")[-1] == {"snapshot": {"read": "table", "round": 1}}   # the table it reads
        t.call_global("press")
        t.advance(1)
        assert requests(t, "legal") == [{"snapshot": {"asked": "with what Red moved"},
                                         "action": {"action": "go", "player": 1}}]
        assert t.ui_value("turnStatus") == "checking Red's move…"
        answer(t, "legal", {"legal": False, "reason": "nope", "message": "not yet"})
        t.advance(1)
        assert t.call_global("lines").endswith("panels play|undo|done false")
        assert ("Not allowed: not yet.", "Red") in t.broadcasts
        t.call_global("press")
        t.advance(1)
        answer(t, "legal", {"legal": True, "events": [], "snapshot": {"round": 2, "players": []},
                            "next": {"player": 0}, "complete": True})
        t.advance(2)
        assert ledger(t)["snapshot"] == {"round": 2}                     # what keep keeps of the ruling's
        assert "done true" in t.call_global("lines")
        assert t.ui_value("turnStatus") == "White to go (0)"


def test_the_library_waits_for_what_the_game_moves_itself_and_a_table_saved_while_it_deals_goes_on_to_play():
    with load_own() as t:
        t.call_global("set_moving", True)       # the game says something it moved is still on its way
        t.click("setupButton", "White")
        t.advance(1)
        assert ledger(t)["phase"] == "dealing" and t.ui_value("turnStatus") == "laying the table…"
        saved = t.save()
    with load_own(saved["LuaScriptState"], saved["ObjectStates"]) as again:
        assert again.ui_value("turnStatus") == "laying the table…"
        again.advance(3)
        assert ledger(again)["phase"] == "play" and again.ui_value("turnStatus") == "Red to go (1)"
        assert "deal White" not in again.call_global("lines")            # laid once, not dealt again


# ------------------------------------------------------------------ unhandled events and the game's own moves before the deal
OWN_DEAL_ROOT = ROOT.replace("    step_delay = 0.2,\n})", """    step_delay = 0.2,
    unhandled = function(e) table.insert(log, "unhandled " .. e.event) end,
    before_deal = function(snap, done, again)
        table.insert(log, "before_deal " .. tostring(#snap.players) .. " " .. tostring(again))
        play.ledger().before = (play.ledger().before or 0) + 1
        Wait.time(done, 0.5)
    end,
})""")
assert "before_deal = function" in OWN_DEAL_ROOT


def load_own_deal(script_state: str = "", objs: list[dict] | None = None) -> Table:
    return load_root(OWN_DEAL_ROOT, script_state, objs)


def test_the_games_own_moves_come_before_the_setups_events_and_the_deal_and_again_after_a_reload():
    with load_own_deal() as t:
        connect(t)
        t.click("setupButton", "White")
        answer(t, "setup", {"snapshot": DEALT, "events": [{"event": "said", "text": "go"}, {"event": "shuffled"}],
                            "next": {"player": 0, "legal": [PUT_A]}})
        assert t.call_global("lines") == "before_deal 2 false"        # nothing applied nor dealt yet
        assert ledger(t)["phase"] == "dealing" and ledger(t)["snapshot"] == DEALT and ledger(t)["applied"] == 0
        saved = t.save()
    with load_own_deal(saved["LuaScriptState"], saved["ObjectStates"]) as again:
        again.advance(5)
        # an event without a handler is the game's `unhandled` (not the table laid anew in the middle)
        assert again.call_global("lines") == "before_deal 2 true|said go|unhandled shuffled"
        assert ledger(again)["before"] == 2 and ledger(again)["phase"] == "play"
        assert sorted(o.memo_json()["id"] for o in again.hand("Red")) == ["b", "c"]
        assert again.ui_value("turnStatus") == "White to play"


def test_a_ruling_whose_game_over_is_false_goes_on(dealt):
    drop(dealt, "White", "a", Vec(-3, 1.2, 1))
    answer(dealt, "legal", {"legal": True, "events": [], "snapshot": PUT, "next": {"player": 1, "legal": []},
                            "game_over": False, "complete": True})
    dealt.advance(2)
    assert ledger(dealt)["phase"] == "play" and dealt.ui_value("turnStatus") == "Red to play"
    assert dealt.errors == []


# ------------------------------------------------------------------ the game's own words, rulings of its own requests
HOOKS_ROOT = ROOT.replace("    handlers = { said = function(e)", """    handlers = { ask = function(e)
        table.insert(log, "ask " .. e.who)
        return "stop"
    end, said = function(e)""").replace("    step_delay = 0.2,\n})", """    step_delay = 0.2,
    status_line = function(line) return "[" .. line .. "]" end,
    score_title = function(body) return "Round " .. tostring(body.round) end,
    score_line = function(row, colour, body)
        if body.leaders[1] == row.player then return colour .. " *" end
        return colour
    end,
    game_over = function(outcome) table.insert(log, "over " .. tostring(outcome.winners[1])) end,
    finished = function() table.insert(log, "finished " .. play.ledger().phase) end,
})
function rule(json, again) play.rule(JSON.decode(json), again) end
function busy() return play.busy() end""")
ASKED = [{"event": "said", "text": "one"}, {"event": "ask", "who": "White"}]


def load_hooks(script_state: str = "", objs: list[dict] | None = None) -> Table:
    assert "status_line" in HOOKS_ROOT and "ask = function" in HOOKS_ROOT
    return load_root(HOOKS_ROOT, script_state, objs)


def test_the_games_status_line_score_panel_and_game_over_and_its_clean_up_after_each_ruling():
    with load_hooks() as t:
        assert t.ui_value("turnStatus") == "[Seat 2 to 3 players, then press Setup.]"
        press_setup(t)
        t.advance(3)
        answer(t, "score", {"round": 2, "standings": [{"player": 0}, {"player": 1}], "leaders": [1]})
        assert t.ui_value("turnStatus") == "[White to play]"
        assert t.ui_value("scoreRound") == "Round 2"
        assert [t.ui_value(f"scoreRow{i}") for i in (1, 2)] == ["White", "Red *"]
        drop(t, "White", "a", Vec(-3, 1.2, 1))
        answer(t, "legal", {"legal": True, "events": [], "snapshot": PUT, "next": {"player": None, "legal": []},
                            "game_over": {"winners": [1], "decided_by": "cards"}, "complete": True})
        t.advance(2)
        assert t.call_global("lines") == "finished play|drop White a board|finished over|over 1"
        assert not any(m.startswith("Game over:") for m, _ in t.broadcasts)   # the game's own broadcast instead
        assert t.ui_value("turnStatus") == "[Game over · Red won]"


def test_a_ruling_of_the_games_own_request_stops_at_a_choice_shows_it_again_after_a_reload_and_goes_on():
    with load_hooks() as t:
        press_setup(t)
        t.advance(3)
        t.call_global("rule", json.dumps({"events": ASKED, "snapshot": DEALT, "complete": False}), False)
        t.advance(2)
        assert t.call_global("lines") == "finished play|said one|ask White"
        assert t.call_global("busy") is True
        saved = t.save()
    assert json.loads(saved["LuaScriptState"])["ledger"]["stopped"] is True
    with load_hooks(saved["LuaScriptState"], saved["ObjectStates"]) as again:
        again.advance(2)
        assert again.call_global("lines") == "ask White"                    # the choice is shown again, only it
        rest = ASKED + [{"event": "said", "text": "two"}]
        again.call_global("rule", json.dumps({"events": rest, "snapshot": DEALT, "next": {"player": 1, "legal": []},
                                              "complete": True}), True)
        again.advance(2)
        assert again.call_global("lines") == "ask White|said two|finished play"   # asked again: the rest of it
        assert again.call_global("busy") is False and "stopped" not in ledger(again)
        assert again.ui_value("turnStatus") == "[Red to play]"


def test_a_piece_sent_to_a_hand_or_a_spot_is_watched_until_it_rests_and_a_passed_turn_comes_back():
    with load_own() as t:
        t.click("setupButton", "White")
        t.advance(1)
        assert t.call_global("send", "aaaaaa", {"hand": "Red"}) is True     # moving: lib.play waits for it
        t.advance(1)
        assert [o.memo_json()["id"] for o in t.hand("Red")] == ["a"] and t.hand("White") == []
        t.call_global("send", "aaaaaa", {"position": [0, 1.2, 0], "rotation": [0, 180, 180]})
        t.advance(1)
        a = piece(t, "a")
        assert (round(a.position.x, 3), round(a.position.z, 3)) == (0, 0) and a.face_down
        # a player hands the TTS turn to someone else: it goes back to the seat `next` names
        t.call_global("pass_turn", "White")
        assert t.turns["turn_color"] == "White"
        t.advance(0.5)                                                     # TTS calls onPlayerTurn
        assert t.turns["turn_color"] == "Red"


# ------------------------------------------------------------------ play.forward: the event functions defined once
FORWARD_ROOT = ROOT.split("function onLoad(s)")[0] + """
function onSetupClick(player)
    table.insert(log, "own setup " .. player.color)
    play.setup(player.color)
end
play.forward()
function lines() return table.concat(log, "|") end
"""


def test_forward_defines_the_event_functions_the_script_leaves_out_and_keeps_its_own():
    assert "function onLoad" not in FORWARD_ROOT and "function onObjectDrop" not in FORWARD_ROOT
    with load_root(FORWARD_ROOT) as t:
        assert t.ui_value("turnStatus") == "Seat 2 to 3 players, then press Setup."      # onLoad: play.load
        press_setup(t)                                                                   # the game's own onSetupClick
        t.advance(3)
        assert t.call_global("lines") == "own setup White"
        drop(t, "White", "a", Vec(1, 1.2, 0.5))                                          # onObjectDrop: play.dropped
        assert requests(t, "legal") == [{"snapshot": DEALT, "action": PUT_A}]
        assert json.loads(t.call_global("onSave"))["ledger"]["phase"] == "play"          # onSave: play.save
