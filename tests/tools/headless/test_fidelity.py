"""The headless table does what real TTS does where the mod depends on it (tools/headless/fidelity.py).

Each test is one documented TTS behaviour that a kinder stand-in got wrong, shown on the faithful table, and
where it matters the idealised table (``Fidelity.ideal()``) for contrast.
"""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import replace

from tools.headless import Fidelity, Table, Vec

from tests.tools.headless.test_table import _bag, _save, _token


def _zone(guid, pos, scale=(4, 2, 4), tags=()):
    return {"GUID": guid, "Name": "ScriptingTrigger", "Tags": list(tags),
            "Transform": {"posX": pos[0], "posY": pos[1], "posZ": pos[2], "rotX": 0, "rotY": 0, "rotZ": 0,
                          "scaleX": scale[0], "scaleY": scale[1], "scaleZ": scale[2]}}


def _board(guid, snaps, pos=(20, 1, 0)):
    board = _token(guid, ["board"], pos=pos)
    board["Name"] = "Custom_Tile"
    board["AttachedSnapPoints"] = [{"Position": {"x": x, "y": 0.2, "z": z}, "Tags": list(tags)}
                                   for (x, z), tags in snaps]
    return board


# --------------------------------------------------------------------------------------------------- hands

def test_only_objects_with_hands_true_are_held_in_a_hand():
    held = _token("held", ["potion"], pos=(0, 3, -20), Hands=True)
    stray = _token("stray", ["potion"], pos=(1, 3, -20), Hands=False)
    table = Table.load(_save("function hand() local out = {} for _, o in ipairs(Player.White.getHandObjects()) "
                             "do table.insert(out, o.getGUID()) end return out end", [held, stray]))
    table.boot()
    table.step()
    assert table.call_global("hand") == ["held"]
    assert [o.guid for o in table.hand("White")] == ["held"]
    ideal = Table.load(_save("", [held, stray]), fidelity=Fidelity.ideal())
    assert {o.guid for o in ideal.hand("White")} == {"held", "stray"}


def test_deal_leaves_an_object_without_hands_face_up_in_front_of_the_seat():
    bag = _bag("bag", [_token(f"p{i}", ["potion"], Hands=False) for i in range(3)])
    table = Table.load(_save('function deal() getObjectFromGUID("bag").deal(2, "White") end', [bag]))
    table.seat("White")
    table.boot()
    table.call_global("deal")
    table.advance(1.0)
    dealt = [o for o in table.objects if o.guid.startswith("p")]
    assert len(dealt) == 2 and table.hand("White") == []
    zone = table.hand_zone("White")
    for potion in dealt:
        assert not potion.face_down
        assert zone.position.z < potion.position.z < 0      # between the hand and the table's centre


def test_a_tagged_hand_zone_takes_only_objects_sharing_a_tag():
    save = _save("", [_token("mine", ["potion", "owner:White"], pos=(0, 3, -20), Hands=True),
                      _token("other", ["potion"], pos=(1, 3, -20), Hands=True)])
    save["ObjectStates"][-2]["Tags"] = ["owner:White"]       # White's hand zone
    table = Table.load(save)
    assert [o.guid for o in table.hand("White")] == ["mine"]


# --------------------------------------------------------------------------------------------------- zones

def test_a_zone_read_in_the_frame_of_a_move_still_sees_the_old_contents():
    card = _token("card", ["scene"], pos=(0, 1, 0))
    table = Table.load(_save("""
        function ids(zone) local out = {} for _, o in ipairs(getObjectFromGUID(zone).getObjects()) do
            table.insert(out, o.getGUID()) end return out end
        function move_and_read()
            getObjectFromGUID("card").setPosition({10, 1, 0})
            return { a = ids("za"), b = ids("zb") }
        end""", [card, _zone("za", (0, 1, 0), tags=["scene"]), _zone("zb", (10, 1, 0), tags=["scene"])]))
    table.boot()
    table.step()
    seen = table.call_global("move_and_read")        # (an empty Lua table comes back as {})
    assert seen["a"] == ["card"] and not seen["b"]
    table.step()
    assert not table.call_global("ids", "za") and table.call_global("ids", "zb") == ["card"]
    ideal = Table.load(_save(table.save_data["LuaScript"], table.save_data["ObjectStates"]),
                       fidelity=Fidelity.ideal())
    ideal.boot()
    seen = ideal.call_global("move_and_read")
    assert not seen["a"] and seen["b"] == ["card"]


def test_a_tagged_zone_ignores_objects_without_a_shared_tag():
    table = Table.load(_save("", [_token("a", ["scene"]), _token("b", ["other"]),
                                  _zone("z", (0, 1, 0), tags=["scene"])]))
    zone = table.object("z")
    assert [o.guid for o in table.in_zone(zone)] == ["a"]


# --------------------------------------------------------------------------------------------------- snap points

def test_a_tagged_snap_point_attracts_only_objects_sharing_a_tag():
    board = _board("board", [((0, 0), ["fh-slot", "fh-potion"]), ((0.9 / 1, 0), ["fh-slot"])])
    potion = _token("potion", ["fh-potion"])
    table = Table.load(_save("", [board, potion]))
    table.boot()
    host = table.object("board")
    obj = table.object("potion")
    untagged_point = host.snap_world(1)
    table.pick_up(obj, "White")
    table.drop(obj, "White", position=untagged_point + Vec(0.1, 0, 0))
    table.advance(0.5)
    assert abs(obj.position.x - (untagged_point.x + 0.1)) < 1e-9      # no snap to a point it shares no tag with
    table.pick_up(obj, "White")
    table.drop(obj, "White", position=host.snap_world(0) + Vec(0.3, 0, 0.2))
    table.advance(0.5)
    assert abs(obj.position.x - host.snap_world(0).x) < 1e-9 and abs(obj.position.z - host.snap_world(0).z) < 1e-9


def test_on_object_drop_fires_while_the_object_is_still_in_the_air():
    board = _board("board", [((0, 0), ["fh-potion"])])
    table = Table.load(_save("""
        seen = nil
        function onObjectDrop(colour, obj) local p = obj.getPosition(); seen = { y = p.y, resting = obj.resting } end
        function seen_at() return seen end""", [board, _token("potion", ["fh-potion"])]))
    table.boot()
    obj, point = table.object("potion"), table.object("board").snap_world(0)
    table.pick_up(obj, "White")
    table.drop(obj, "White", snap=(table.object("board"), 0))
    seen = table.call_global("seen_at")
    assert seen["resting"] is False and seen["y"] > point.y + 0.5
    table.advance(0.5)
    assert abs(obj.position.y - point.y) < 0.1


def test_a_slow_table_lands_drops_off_the_point_within_the_scatter():
    board = _board("board", [((0, 0), [])])
    table = Table.load(_save("", [board, _token("potion", [])]), fidelity=Fidelity.slow(), seed=4)
    host, obj = table.object("board"), table.object("potion")
    offsets = []
    for _ in range(12):
        table.pick_up(obj, "White")
        table.drop(obj, "White", snap=(host, 0))
        table.advance(0.5)
        offsets.append(obj.position.distance(host.snap_world(0) + Vec(0, 0.05, 0)))
    assert max(offsets) <= Fidelity.slow().drop_scatter + 1e-9
    assert any(d > 0.01 for d in offsets) and any(d < 1e-9 for d in offsets)   # some snap, some rest off it


# --------------------------------------------------------------------------------------------------- moves and spawns

def test_a_smooth_move_takes_time_and_reads_positions_on_the_way():
    table = Table.load(_save("""
        function go() getObjectFromGUID("t").setPositionSmooth({10, 1, 0}) end
        function state() local o = getObjectFromGUID("t"); return { x = o.getPosition().x,
            moving = o.isSmoothMoving(), resting = o.resting } end""", [_token("t", [])]))
    table.boot()
    table.call_global("go")
    table.advance(0.25)
    halfway = table.call_global("state")
    assert halfway["moving"] is True and halfway["resting"] is False and 3 < halfway["x"] < 7
    table.advance(0.3)
    assert table.call_global("state") == {"x": 10, "moving": False, "resting": False}   # it falls, then rests
    table.step(table.fidelity.drop_fall_frames)
    assert table.call_global("state") == {"x": 10, "moving": False, "resting": True}


def test_set_position_during_a_smooth_move_teleports_and_ends_it():
    table = Table.load(_save("""
        function go() getObjectFromGUID("t").setPositionSmooth({10, 1, 0}) end
        function jump() getObjectFromGUID("t").setPosition({-5, 1, 0}) end""", [_token("t", [])]))
    table.boot()
    table.call_global("go")
    table.advance(0.1)
    table.call_global("jump")
    table.advance(1.0)
    assert table.object("t").position.x == -5 and table.object("t").motion is None


def test_taken_objects_and_a_decks_remainder_spawn_over_frames():
    cards = [dict(_token(f"c{i}", ["scene"]), Name="Card") for i in range(2)]
    deck = dict(_bag("deck", cards), Name="Deck")
    table = Table.load(_save("""
        spawned = {}
        function take()
            local deck = getObjectFromGUID("deck")
            local card = deck.takeObject({ position = {0, 1, 8}, smooth = false,
                callback_function = function(o) table.insert(spawned, o.getGUID()) end })
            remainder = deck.remainder
            return { card.spawning, remainder.spawning, remainder.getName() }
        end
        function done() return { spawned, remainder.getGUID() } end""", [deck]))
    table.boot()
    assert table.call_global("take") == [True, True, "c1"]
    table.step()
    assert not table.call_global("done")[0]
    table.step(table.fidelity.spawn_frames)
    assert table.call_global("done") == [["c0"], "c1"]      # GUIDs final once spawned
    assert not table.object("c1").spawning_frames


# --------------------------------------------------------------------------------------------------- numbers

class _Editor:
    """A listening socket standing in for the bridge: collects what the table sends."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.port = self.server.getsockname()[1]
        self.raw: list[str] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                chunks = []
                while chunk := conn.recv(65536):
                    chunks.append(chunk)
                self.raw.append(b"".join(chunks).decode("utf-8"))

    def wait(self, count: int) -> list[dict]:
        for _ in range(500):
            if len(self.raw) >= count:
                break
            threading.Event().wait(0.01)
        return [json.loads(r) for r in self.raw]


def test_numbers_arrive_as_floats_in_custom_messages_and_lua_results():
    editor = _Editor()
    table = Table.load(_save("""function send() sendExternalMessage({ seat = 2, half = 2.5, list = {1, 2},
        flag = true }) end"""), bridge_port=editor.port, listen_port=0)
    try:
        table.boot()
        table.call_global("send")
        table.endpoint.inbox.put({"messageID": 3, "guid": "-1", "script": "return 7", "returnID": 1})
        table.step()
        first, second = editor.wait(2)
        assert '"seat": 2.0' in editor.raw[0] and '"list": [\n      1.0,' in editor.raw[0]
        assert first["customMessage"] == {"seat": 2.0, "half": 2.5, "list": [1.0, 2.0], "flag": True}
        assert second == {"messageID": 5, "returnID": 1, "returnValue": 7.0}
        assert '"returnValue": 7.0' in editor.raw[1]
    finally:
        table.close()
        editor.server.close()


# --------------------------------------------------------------------------------------------------- Save & Play

COUNTER = """
        count = 0
        function onLoad(state) if state ~= "" then count = JSON.decode(state).count end end
        function onSave() return JSON.encode({ count = count }) end
        function bump() count = count + 1; return count end"""
VERSION_2 = "\n        function version() return 2 end"


def _save_and_play(table: Table, script: str) -> None:
    """The editor's Save & Play of Global ``script`` (messageID 1), taken by the table."""
    table.endpoint.inbox.put({"messageID": 1, "scriptStates": [{"guid": "-1", "script": script, "ui": ""}]})
    table.step()


def _bump_move_and_save_and_play(table: Table, editor: "_Editor") -> None:
    """Boot the counter table, bump the count once and move t1 to x 7, then Save & Play a new version of the
    script: the editor is told the scripts loaded, and the new version runs."""
    table.boot()
    table.call_global("bump")
    table.object("t1").position = Vec(7, 1, 0)
    _save_and_play(table, COUNTER + VERSION_2)
    (loaded,) = editor.wait(1)
    assert loaded["messageID"] == 1 and loaded["scriptStates"][0]["script"] == COUNTER + VERSION_2
    assert table.call_global("version") == 2


def test_save_and_play_without_discarding_reloads_in_place_keeping_guids_and_the_saved_state():
    """Fidelity.save_and_play_discards off: the table as it lies is saved (onSave) and reloaded in place."""
    editor = _Editor()
    table = Table.load(_save(COUNTER, [_token("t1", ["x"], pos=(3, 1, 0))]), bridge_port=editor.port, listen_port=0,
                       fidelity=replace(Fidelity.faithful(), save_and_play_discards=False))
    try:
        _bump_move_and_save_and_play(table, editor)
        assert table.call_global("bump") == 2                                          # state came through onSave
        assert table.object("t1").position.x == 7                                      # GUIDs and places kept
    finally:
        table.close()
        editor.server.close()


# =================================================================================================== issue #24
# Each test below is one row of issue #24: what TTS does, on the faithful table, and the switch that turns it off.

def _card(guid, pos=(0, 1, 0), **extra):
    return dict(_token(guid, ["card"], pos=pos), Name="Card", CardID=100, **extra)


def _deck(guid, cards, pos=(0, 1, 0)):
    deck = _token(guid, ["deck"], pos=pos)
    deck["Name"] = "Deck"
    deck["ContainedObjects"] = list(cards)
    return deck


_ENTERED = """
    entered = {}
    function onObjectEnterContainer(c, o) table.insert(entered, c.getGUID() .. "<" .. o.getGUID()) end
    function seen() return entered end
    keep = {}
    function hold(guid) keep[guid] = getObjectFromGUID(guid) end
    function gone(guid) return keep[guid].isDestroyed() end"""


def _not_hands(table):
    return [o for o in table.objects if o.name != "HandTrigger"]


def _player_drop(table, obj, at):
    table.pick_up(obj, "White")
    table.drop(obj, "White", position=at)
    table.advance(0.5)


# --- row 1: merging and entering containers

def test_a_card_dropped_on_a_card_forms_a_deck_with_it_on_top():
    table = Table.load(_save(_ENTERED, [_card("lower", pos=(0, 1, 0)), _card("upper", pos=(8, 1, 0))]))
    table.boot()
    table.call_global("hold", "upper")
    before = len(table.objects)
    _player_drop(table, table.object("upper"), Vec(0.6, 1, 0.4))       # overlapping the lower card
    assert len(table.objects) == before - 1
    (deck,) = [o for o in _not_hands(table) if o.name == "Deck"]
    assert [c.guid for c in deck.contents] == ["upper", "lower"]       # the dropped card on top
    assert abs(deck.position.x) < 1e-9 and table.call_global("gone", "upper") is True
    assert sorted(table.call_global("seen")) == sorted([f"{deck.guid}<lower", f"{deck.guid}<upper"])
    off = Table.load(_save(_ENTERED, [_card("lower"), _card("upper", pos=(8, 1, 0))]),
                     fidelity=replace(Fidelity.faithful(), cards_merge=False))
    off.boot()
    _player_drop(off, off.object("upper"), Vec(0.6, 1, 0.4))
    assert {o.guid for o in _not_hands(off)} == {"lower", "upper"}


def test_a_card_dropped_on_a_deck_joins_it_on_top():
    deck = _deck("deck", [dict(_card("d1"), Name="Card"), dict(_card("d2"), Name="Card")])
    table = Table.load(_save(_ENTERED, [deck, _card("loose", pos=(8, 1, 0))]))
    table.boot()
    _player_drop(table, table.object("loose"), Vec(0.2, 1, -0.3))
    assert [c.guid for c in table.object("deck").contents] == ["loose", "d1", "d2"]
    assert table.object("loose") is None and table.call_global("seen") == ["deck<loose"]


def test_a_deck_dropped_on_a_deck_puts_its_cards_on_top_and_a_deck_dropped_on_a_card_takes_it_underneath():
    lower = _deck("lower", [_card("l1"), _card("l2")], pos=(0, 1, 0))
    upper = _deck("upper", [_card("u1"), _card("u2")], pos=(8, 1, 0))
    table = Table.load(_save(_ENTERED, [lower, upper, _card("single", pos=(-8, 1, 0))]))
    table.boot()
    _player_drop(table, table.object("upper"), Vec(0.3, 1, 0))
    assert [c.guid for c in table.object("lower").contents] == ["u1", "u2", "l1", "l2"]
    assert table.object("upper") is None
    _player_drop(table, table.object("lower"), Vec(-8.4, 1, 0.2))
    deck = table.object("lower")
    assert [c.guid for c in deck.contents] == ["u1", "u2", "l1", "l2", "single"]
    assert (deck.position.x, deck.position.z) == (-8, 0)            # where the card lay


def test_a_deck_left_with_one_card_becomes_that_card_however_it_is_emptied():
    deck = _deck("deck", [_card("c1", Hands=True), _card("c2", Hands=True)], pos=(0, 1, 0))
    table = Table.load(_save('function deal() getObjectFromGUID("deck").deal(1, "White") end', [deck]))
    table.seat("White")
    table.boot()
    table.call_global("deal")
    table.advance(1.0)
    assert table.object("deck") is None
    assert table.object("c2").name == "Card" and [o.guid for o in table.hand("White")] == ["c1"]


def test_cards_of_another_size_do_not_merge():
    big = _card("big", pos=(0, 1, 0))
    big["Transform"].update(scaleX=1.5, scaleZ=1.5)
    table = Table.load(_save("", [big, _card("small", pos=(8, 1, 0))]))
    table.boot()
    _player_drop(table, table.object("small"), Vec(0.5, 1, 0))
    assert {o.guid for o in _not_hands(table)} == {"big", "small"}


def test_put_object_of_a_card_on_a_card_forms_a_deck_and_a_card_goes_to_the_deck_end_nearest_in_y():
    deck = _deck("deck", [_card("d1"), _card("d2")], pos=(5, 1, 0))
    table = Table.load(_save("""
        function pair() return getObjectFromGUID("a").putObject(getObjectFromGUID("b")).getQuantity() end
        function put(guid) getObjectFromGUID("deck").putObject(getObjectFromGUID(guid)) end""",
                             [_card("a", pos=(0, 1, 0)), _card("b", pos=(0, 2, 0)), deck,
                              _card("low", pos=(9, 1, 0)), _card("high", pos=(9, 3, 0))]))
    table.boot()
    assert table.call_global("pair") == 2
    assert table.object("a") is None and table.object("b") is None
    table.call_global("put", "low")         # resting on the table, as the deck is: to the bottom
    table.call_global("put", "high")        # hovering above the deck: to the top
    assert [c.guid for c in table.object("deck").contents] == ["high", "d1", "d2", "low"]


def test_an_object_dropped_on_a_bag_enters_it_and_is_destroyed():
    table = Table.load(_save(_ENTERED, [_bag("bag", [], pos=(0, 1, 0)), _token("t", ["x"], pos=(8, 1, 0))]))
    table.boot()
    table.call_global("hold", "t")
    _player_drop(table, table.object("t"), Vec(0.3, 1, 0.2))
    assert [c.guid for c in table.object("bag").contents] == ["t"] and table.object("t") is None
    assert table.call_global("seen") == ["bag<t"] and table.call_global("gone", "t") is True
    off = Table.load(_save("", [_bag("bag", [], pos=(0, 1, 0)), _token("t", ["x"], pos=(8, 1, 0))]),
                     fidelity=replace(Fidelity.faithful(), drops_enter_containers=False))
    _player_drop(off, off.object("t"), Vec(0.3, 1, 0.2))
    assert off.object("t") is not None and not off.object("bag").contents


def test_an_object_put_into_a_container_is_destroyed_and_comes_out_as_a_new_object():
    table = Table.load(_save("""
        function put() local t = getObjectFromGUID("t"); keep = t; getObjectFromGUID("bag").putObject(t) end
        function take() again = getObjectFromGUID("bag").takeObject({ position = {0, 1, 9} }) end
        function check() return { keep.isDestroyed(), rawequal(keep, again), again.isDestroyed() } end""",
                             [_bag("bag", [], pos=(0, 1, 0)), _token("t", ["x"], pos=(8, 1, 0))]))
    table.boot()
    table.call_global("put")
    table.call_global("take")
    table.advance(1.0)
    assert table.call_global("check") == [True, False, False]


def test_a_taken_object_that_spawns_on_a_deck_enters_it():
    source = _deck("src", [_card("s1"), _card("s2"), _card("s3")], pos=(0, 1, 0))
    target = _deck("dst", [_card("t1"), _card("t2")], pos=(0, 1, 10))
    table = Table.load(_save("""
        function take() getObjectFromGUID("src").takeObject({ position = {0, 1.5, 10}, smooth = false,
            callback_function = function(o) called = o.isDestroyed() end }) end
        function was() return called end""", [source, target]))
    table.boot()
    table.call_global("take")
    table.advance(0.5)
    assert table.call_global("was") is False        # the callback sees it spawned; it enters a frame later
    assert [c.guid for c in table.object("dst").contents] == ["s1", "t1", "t2"]
    off = Table.load(_save(table.save_data["LuaScript"], [source, target]),
                     fidelity=replace(Fidelity.faithful(), spawns_enter_containers=False))
    off.boot()
    off.call_global("take")
    off.advance(0.5)
    assert off.object("s1") is not None and len(off.object("dst").contents) == 2


def test_a_smooth_move_onto_a_deck_joins_it():
    deck = _deck("deck", [_card("d1"), _card("d2")], pos=(0, 1, 0))
    script = 'function go() getObjectFromGUID("c").setPositionSmooth({0.2, 1.3, 0.1}, false, true) end'
    table = Table.load(_save(script, [deck, _card("c", pos=(8, 1, 0))]))
    table.boot()
    table.call_global("go")
    table.advance(1.0)
    assert [c.guid for c in table.object("deck").contents] == ["c", "d1", "d2"]
    off = Table.load(_save(script, [deck, _card("c", pos=(8, 1, 0))]),
                     fidelity=replace(Fidelity.faithful(), smooth_moves_merge=False))
    off.boot()
    off.call_global("go")
    off.advance(1.0)
    assert off.object("c") is not None and len(off.object("deck").contents) == 2


def test_cards_in_a_hand_never_merge():
    table = Table.load(_save("", [_card("h1", pos=(0, 3, -20), Hands=True), _card("h2", pos=(8, 1, 0), Hands=True)]))
    table.boot()
    _player_drop(table, table.object("h2"), Vec(0.4, 3, -20))
    assert {o.guid for o in table.hand("White")} == {"h1", "h2"}


# --- row 2: resting

def test_resting_is_false_on_a_destroyed_object():
    table = Table.load(_save("""
        function check() local t = getObjectFromGUID("t"); t.destruct(); return t.resting end""", [_token("t")]))
    table.boot()
    assert table.call_global("check") is False
    off = Table.load(_save(table.save_data["LuaScript"], [_token("t")]),
                     fidelity=replace(Fidelity.faithful(), resting_needs_rest=False))
    off.boot()
    assert off.call_global("check") is True


def test_an_object_left_in_the_air_by_a_smooth_move_is_not_resting_until_it_has_fallen():
    table = Table.load(_save("""
        function go() getObjectFromGUID("t").setPositionSmooth({10, 3, 0}) end
        function state() local o = getObjectFromGUID("t"); return { moving = o.isSmoothMoving(), resting = o.resting } end""",
                             [_token("t")]))
    table.boot()
    table.call_global("go")
    table.advance(table.fidelity.smooth_move_seconds + 1 / 60)
    assert table.call_global("state") == {"moving": False, "resting": False}
    table.step(table.fidelity.drop_fall_frames)
    assert table.call_global("state") == {"moving": False, "resting": True}


# --- rows 3 and 6: turns

_TURNS = """
    turns = {}
    function onPlayerTurn(player, previous) table.insert(turns, player.color) end
    function seen() return turns end
    function set(c) Turns.turn_color = c; return Turns.turn_color end"""


def test_turn_color_is_only_ever_a_seated_players_colour():
    table = Table.load(_save(_TURNS))
    table.seat("White", "Red")
    table.boot()
    table.call_global("set", "White")
    assert table.call_global("set", "Blue") == "White"           # nobody sits at Blue: the turn stays
    off = Table.load(_save(_TURNS), fidelity=replace(Fidelity.faithful(), turn_color_seated_only=False))
    off.seat("White", "Red")
    off.boot()
    assert off.call_global("set", "Blue") == "Blue"


def test_on_player_turn_fires_only_with_turns_enabled():
    table = Table.load(_save(_TURNS))
    table.seat("White", "Red")
    table.boot()
    table.call_global("set", "Red")
    table.step(2)
    assert not table.call_global("seen")
    table.turns["enable"] = True
    table.call_global("set", "White")
    table.step(2)
    assert table.call_global("seen") == ["White"]
    off = Table.load(_save(_TURNS), fidelity=replace(Fidelity.faithful(), turn_events_need_enable=False))
    off.seat("White", "Red")
    off.boot()
    off.call_global("set", "Red")
    off.step(2)
    assert off.call_global("seen") == ["Red"]


def test_turn_order_applies_only_with_the_custom_type():
    script = """
        function setup(kind) Turns.enable = true; Turns.type = kind; Turns.order = {"Red", "Blue", "White"}
            Turns.turn_color = "Red"; return Turns.getNextTurnColor() end"""
    table = Table.load(_save(script))
    table.seat("White", "Red", "Blue")
    table.boot()
    assert table.call_global("setup", 1) == "Blue"      # automatic: the seats' own order (White, Red, Blue)
    assert table.call_global("setup", 2) == "Blue"
    table.call_global("setup", 1)
    table.step()
    table.end_turn("Red")
    assert table.turns["turn_color"] == "Blue"
    custom = """
        function setup(kind) Turns.enable = true; Turns.type = kind; Turns.order = {"Red", "White", "Blue"}
            Turns.turn_color = "Red"; return Turns.getNextTurnColor() end"""
    table = Table.load(_save(custom))
    table.seat("White", "Red", "Blue")
    table.boot()
    assert table.call_global("setup", 1) == "Blue" and table.call_global("setup", 2) == "White"
    off = Table.load(_save(custom), fidelity=replace(Fidelity.faithful(), turn_order_needs_custom_type=False))
    off.seat("White", "Red", "Blue")
    off.boot()
    assert off.call_global("setup", 1) == "White"


# --- row 4: Save & Play

def test_save_and_play_runs_no_on_save_and_discards_changes_since_the_last_save():
    editor = _Editor()
    table = Table.load(_save(COUNTER, [_token("t1", ["x"], pos=(3, 1, 0))]), bridge_port=editor.port, listen_port=0)
    try:
        _bump_move_and_save_and_play(table, editor)
        assert table.call_global("bump") == 1                  # no onSave: the count was not carried over
        assert table.object("t1").position.x == 3              # the move since the load is discarded
        table.object("t1").position = Vec(5, 1, 0)
        table.save()                                           # a manual save: the new baseline
        table.object("t1").position = Vec(6, 1, 0)
        _save_and_play(table, COUNTER + VERSION_2)
        assert table.object("t1").position.x == 5 and table.call_global("bump") == 2
    finally:
        table.close()
        editor.server.close()


# --- row 5: onPlayerChangeColor

def test_on_player_change_color_fires_when_a_player_sits_changes_colour_or_leaves():
    script = """
        colours = {}
        function onPlayerChangeColor(c) table.insert(colours, c) end
        function seen() return colours end"""
    table = Table.load(_save(script))
    table.seat("White")
    table.boot()
    table.seat("Red")
    table.change_colour("Red", "Blue")
    table.unseat("White")
    assert table.call_global("seen") == ["Red", "Blue", "Grey"]
    assert table.seated == ["Blue"]
    off = Table.load(_save(script), fidelity=replace(Fidelity.faithful(), player_colour_events=False))
    off.boot()
    off.seat("Red")
    assert not off.call_global("seen")


# --- row 7: spawning

def test_a_spawning_objects_guid_is_final_only_once_it_has_spawned():
    deck = _deck("deck", [_card("dup"), _card("c2"), _card("c3")], pos=(0, 1, 0))
    table = Table.load(_save("""
        function take() taken = getObjectFromGUID("deck").takeObject({ position = {0, 1, 9} })
            early = taken.getGUID(); return early end
        function later() return taken.getGUID() end""", [deck, _token("dup", pos=(20, 1, 0))]))
    table.boot()
    early = table.call_global("take")
    table.advance(1.0)
    final = table.call_global("later")
    assert final != "dup"            # the GUID was taken on the table: a new one once spawned
    assert early != final
    off = Table.load(_save(table.save_data["LuaScript"], [deck, _token("dup", pos=(20, 1, 0))]),
                     fidelity=replace(Fidelity.faithful(), guid_final_after_spawn=False))
    off.boot()
    assert off.call_global("take") == "dup"


def test_a_smooth_move_waits_for_the_spawn():
    deck = _deck("deck", [_card("c1"), _card("c2"), _card("c3")], pos=(0, 1, 0))
    script = """
        function take() taken = getObjectFromGUID("deck").takeObject({ position = {0, 1, 9}, smooth = false })
            taken.setPositionSmooth({10, 1, 9}) end
        function x() return taken.getPosition().x end"""
    table = Table.load(_save(script, [deck]), fidelity=replace(Fidelity.faithful(), spawn_frames=10))
    table.boot()
    table.call_global("take")
    table.step(10)
    assert table.call_global("x") == 0                      # still spawning: the move has not begun
    table.advance(0.6)
    assert table.call_global("x") == 10
    off = Table.load(_save(script, [deck]), fidelity=replace(Fidelity.faithful(), spawn_frames=10,
                                                             physics_waits_for_spawn=False))
    off.boot()
    off.call_global("take")
    off.step(10)
    assert off.call_global("x") > 0


# --- row 8: takeObject's defaults

def test_take_object_ignores_flip_with_a_rotation_and_defaults_to_two_units_along_x():
    deck = _deck("deck", [_card(f"c{i}") for i in range(4)], pos=(3, 1, 4))
    script = """
        function take() local d = getObjectFromGUID("deck")
            local a = d.takeObject({ rotation = {0, 180, 0}, flip = true, smooth = false })
            local b = d.takeObject({ flip = true, smooth = false })
            return { a.is_face_down, b.is_face_down, b.getPosition().x, b.getPosition().y } end"""
    table = Table.load(_save(script, [deck]))
    table.boot()
    assert table.call_global("take") == [False, True, 5, 1]
    off = Table.load(_save(script, [deck]), fidelity=replace(Fidelity.faithful(), take_object_defaults=False))
    off.boot()
    assert off.call_global("take") == [True, True, 3, 3]


# --- row 9: prints and errors to the editor

def test_prints_and_lua_errors_go_to_the_editor():
    editor = _Editor()
    table = Table.load(_save("""
        function say() print("Hit player!", "White") end
        function broken() local x = nil; return x.y end"""), bridge_port=editor.port, listen_port=0, strict=False)
    try:
        table.boot()
        table.call_global("say")
        table.call_global("broken")
        printed, error = editor.wait(2)
        assert printed == {"messageID": 2, "message": "Hit player!\tWhite"}
        assert error["messageID"] == 3 and error["guid"] == "-1"
        assert error["errorMessagePrefix"] == "Error in Global Script: "
        assert error["error"].startswith("chunk_0:(3,") and "nil" in error["error"]
    finally:
        table.close()
        editor.server.close()
    quiet = _Editor()
    off = Table.load(_save('function say() print("x") end'), bridge_port=quiet.port, listen_port=0,
                     fidelity=replace(Fidelity.faithful(), editor_gets_prints_and_errors=False))
    try:
        off.boot()
        off.call_global("say")
        assert off.endpoint.sent == []
    finally:
        off.close()
        quiet.server.close()


# --- the presets

ISSUE_24_SWITCHES = ("cards_merge", "drops_enter_containers", "spawns_enter_containers", "smooth_moves_merge",
                     "entered_objects_destroyed", "resting_needs_rest", "turn_color_seated_only",
                     "turn_events_need_enable", "turn_order_needs_custom_type", "save_and_play_discards",
                     "player_colour_events", "guid_final_after_spawn", "physics_waits_for_spawn",
                     "take_object_defaults", "editor_gets_prints_and_errors")


def test_every_switch_of_issue_24_is_on_in_the_faithful_and_slow_tables_and_off_in_the_ideal_one():
    faithful, slow, ideal = Fidelity.faithful(), Fidelity.slow(), Fidelity.ideal()
    assert all(getattr(faithful, n) is True and getattr(slow, n) is True for n in ISSUE_24_SWITCHES)
    assert not any(getattr(ideal, n) for n in ISSUE_24_SWITCHES)
    # the slow table keeps its harsher timings
    assert slow.smooth_move_seconds > faithful.smooth_move_seconds and slow.spawn_frames > faithful.spawn_frames
    assert slow.drop_fall_frames > faithful.drop_fall_frames and slow.drop_scatter > 0


def test_docs_headless_names_every_switch(repo_root):
    text = (repo_root / "docs" / "headless.md").read_text(encoding="utf-8")
    assert [n for n in ISSUE_24_SWITCHES if f"| `{n}` (on) |" not in text] == []
