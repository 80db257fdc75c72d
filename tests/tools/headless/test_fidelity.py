"""The headless table does what real TTS does where the mod depends on it (tools/headless/fidelity.py).

Each test is one documented TTS behaviour that a kinder stand-in got wrong, shown on the faithful table, and
where it matters the idealised table (``Fidelity.ideal()``) for contrast.
"""

from __future__ import annotations

import json
import socket
import threading

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
            return { card.spawning, deck.remainder.spawning, deck.remainder.getGUID() }
        end
        function done() return spawned end""", [deck]))
    table.boot()
    assert table.call_global("take") == [True, True, "c1"]
    table.step()
    assert not table.call_global("done")
    table.step(table.fidelity.spawn_frames)
    assert table.call_global("done") == ["c0"]
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

def test_save_and_play_reloads_in_place_keeping_guids_and_the_saved_state():
    editor = _Editor()
    script = """
        count = 0
        function onLoad(state) if state ~= "" then count = JSON.decode(state).count end end
        function onSave() return JSON.encode({ count = count }) end
        function bump() count = count + 1; return count end"""
    table = Table.load(_save(script, [_token("t1", ["x"], pos=(3, 1, 0))]), bridge_port=editor.port, listen_port=0)
    try:
        table.boot()
        table.call_global("bump")
        table.object("t1").position = Vec(7, 1, 0)
        new_script = script + "\n        function version() return 2 end"
        table.endpoint.inbox.put({"messageID": 1, "scriptStates": [{"guid": "-1", "script": new_script, "ui": ""}]})
        table.step()
        (loaded,) = editor.wait(1)
        assert loaded["messageID"] == 1 and loaded["scriptStates"][0]["script"] == new_script
        assert table.call_global("version") == 2 and table.call_global("bump") == 2   # state came through onSave
        assert table.object("t1").position.x == 7                                      # GUIDs and places kept
    finally:
        table.close()
        editor.server.close()
