"""The headless table: laying saves, running Lua, the simulated clock, players' actions, the sandbox."""

from __future__ import annotations

import json
import socket

import pytest

from tools.headless import HeadlessError, Table, Unemulated, Vec


def _count(states):
    return sum(1 + _count(s.get("ContainedObjects") or []) for s in states)


@pytest.mark.parametrize("name", ["coinchesim", "canterbury", "arknova"])
def test_reference_saves_lay_every_object(reference_saves, name):
    save = json.loads(reference_saves[name].read_text(encoding="utf-8"))
    table = Table.load(save)
    assert len(table.objects) == len(save["ObjectStates"])
    contained = sum(_count(o.to_state().get("ContainedObjects") or []) for o in table.objects)
    assert len(table.objects) + contained == _count(save["ObjectStates"])
    snaps = sum(len(o.snap_points) for o in table.objects)
    assert snaps == sum(len(s.get("AttachedSnapPoints") or []) for s in save["ObjectStates"])


def test_reference_deck_contents_and_hands(reference_saves):
    table = Table.load(reference_saves["coinchesim"])
    deck = table.objects[0]
    assert deck.name == "Deck" and len(deck.contents) == 32
    assert {z.colour for z in table.hand_zones} == {"Red", "Yellow", "Green", "Blue"}


def test_canterbury_snap_points_and_zones(reference_saves):
    table = Table.load(reference_saves["canterbury"])
    zones = [o for o in table.objects if o.name == "ScriptingTrigger"]
    assert len(zones) == 67
    board = next(o for o in table.objects if o.nickname == "Game Board")
    assert len(board.snap_points) == 375
    # local snap positions are in the unscaled tile (2 units wide), so each lands on the 40-unit board
    for i in range(len(board.snap_points)):
        world = board.snap_world(i)
        assert abs(world.x - board.position.x) <= board.scale.x
        assert abs(world.z - board.position.z) <= board.scale.z


def _save(script: str, objects=(), xml: str = "", hands=("White", "Red")):
    states = list(objects)
    for i, colour in enumerate(hands):
        states.append({"GUID": f"hand{i:02d}", "Name": "HandTrigger", "FogColor": colour,
                       "Transform": {"posX": 0, "posY": 3, "posZ": -20 + 40 * i, "rotX": 0, "rotY": 180 * i,
                                     "rotZ": 0, "scaleX": 12, "scaleY": 5, "scaleZ": 3}})
    return {"LuaScript": script, "XmlUI": xml, "ObjectStates": states}


def _token(guid, tags=(), memo=None, pos=(0, 1, 0), **extra):
    d = {"GUID": guid, "Name": "Custom_Token", "Nickname": guid, "Tags": list(tags),
         "Transform": {"posX": pos[0], "posY": pos[1], "posZ": pos[2], "rotX": 0, "rotY": 0, "rotZ": 0,
                       "scaleX": 1, "scaleY": 1, "scaleZ": 1}}
    if memo is not None:
        d["Memo"] = json.dumps(memo)
    d.update(extra)
    return d


def _bag(guid, contents, pos=(5, 1, 5)):
    d = _token(guid, ["bag"], pos=pos)
    d["Name"] = "Bag"
    d["ContainedObjects"] = contents
    return d


def test_scripts_see_tags_memo_and_broadcast():
    table = Table.load(_save("""
        function onLoad()
            local t = getObjectsWithTag("potion")
            local m = JSON.decode(t[1].memo)
            broadcastToAll(#t .. " potion, humour " .. m.humour .. ", face down: " .. tostring(t[1].is_face_down))
        end""", [_token("p1", ["potion"], {"humour": "bile"})]))
    table.boot()
    assert table.broadcasts == [("1 potion, humour bile, face down: false", None)]


def test_wait_time_frames_and_condition_follow_the_simulated_clock():
    table = Table.load(_save("""
        flag = false
        function onLoad()
            Wait.time(function() broadcastToAll("time") end, 1)
            Wait.frames(function() broadcastToAll("frames") end, 3)
            Wait.condition(function() broadcastToAll("cond") end, function() return flag end)
            Wait.condition(function() end, function() return false end, 2, function() broadcastToAll("timeout") end)
            local id = Wait.time(function() broadcastToAll("stopped") end, 0.5)
            Wait.stop(id)
        end
        function raise() flag = true end"""))
    table.boot()
    table.step(3)
    assert [m for m, _ in table.broadcasts] == ["frames"]
    table.advance(1)
    assert [m for m, _ in table.broadcasts] == ["frames", "time"]
    table.call_global("raise")
    table.step()
    table.advance(1)
    assert [m for m, _ in table.broadcasts] == ["frames", "time", "cond", "timeout"]


def test_sandbox_has_no_os_io_or_require():
    table = Table.load(_save("""
        function onLoad()
            broadcastToAll(tostring(os) .. tostring(io) .. tostring(require) .. tostring(load) .. tostring(python))
        end"""))
    table.boot()
    assert table.broadcasts == [("nilnilnilnilnil", None)]


def test_unemulated_member_names_itself():
    table = Table.load(_save("function onLoad() getObjectsWithTag('x')[1].addForce({0,1,0}) end",
                             [_token("a", ["x"])]))
    with pytest.raises(Unemulated, match="Object.addForce"):
        table.boot()
    table = Table.load(_save("function onLoad() spawnObject({type='Card'}) end"))
    with pytest.raises(Unemulated, match="spawnObject"):
        table.boot()


def test_lua_error_raises_with_traceback():
    table = Table.load(_save("function onLoad() local x = nil; return x.y end"))
    with pytest.raises(HeadlessError, match="onLoad"):
        table.boot()


def test_players_take_from_bag_drop_on_snap_point_and_events_fire():
    board = _token("board", ["board"], pos=(0, 1, 0), AttachedSnapPoints=[
        {"Position": {"x": 0.25, "y": 0.1, "z": 0}, "Tags": ["slot"]}])
    board["Transform"]["scaleX"] = 4
    bag = _bag("bag", [_token("p1", ["potion"]), _token("p2", ["potion"])])
    table = Table.load(_save("""
        function onObjectLeaveContainer(c, o) broadcastToAll("left " .. c.getGUID() .. " " .. o.getName()) end
        function onObjectDrop(colour, o)
            local b = getObjectFromGUID("board")
            local p = b.positionToWorld(b.getSnapPoints()[1].position)
            local here = o.getPosition()
            broadcastToAll(colour .. " dropped " .. o.getName() .. " at " .. p.x .. "," .. here.x)
            o.flip()
        end
        function onObjectEnterContainer(c, o) broadcastToAll("entered " .. c.getGUID()) end""", [board, bag]))
    table.boot()
    bag_obj = table.object("bag")
    potion = table.take(bag_obj, "White")
    assert potion.guid == "p1" and potion.held_by == "White"
    table.drop(potion, "White", snap=(table.object("board"), 0))
    assert table.broadcasts[:2] == [("left bag p1", None), ("White dropped p1 at 1,1", None)]
    assert potion.face_down
    table.pick_up(potion, "White")
    table.drop_into(potion, bag_obj, "White")
    assert table.broadcasts[-1] == ("entered bag", None)
    assert [c.guid for c in bag_obj.contents] == ["p1", "p2"]


def test_deal_puts_objects_in_the_players_hand_once_they_arrive():
    bag = _bag("bag", [_token(f"p{i}", ["potion"], Hands=True) for i in range(5)])
    table = Table.load(_save("""
        function deal() getObjectFromGUID("bag").deal(3, "Red") end
        function count() return #Player.Red.getHandObjects() end""", [bag]))
    table.seat("Red", "White")
    table.boot()
    table.call_global("deal")
    assert len(table.object("bag").contents) == 2
    assert table.call_global("count") == 0          # on their way: a deal takes a smooth move
    table.advance(table.fidelity.smooth_move_seconds + 2 / 60)
    assert len(table.hand("Red")) == 3 and table.hand("White") == []
    assert table.call_global("count") == 3


def test_ui_click_respects_visibility_and_calls_global():
    xml = '<Panel id="p"><Button id="pass_Red" visibility="Red" onClick="onPass">Pass</Button></Panel>'
    table = Table.load(_save("""
        function onPass(player, value, id)
            UI.setValue("pass_Red", "passed by " .. id)
            UI.setAttribute("p", "active", false)
        end""", xml=xml))
    table.boot()
    with pytest.raises(HeadlessError, match="cannot see"):
        table.click("pass_Red", "White")
    table.click("pass_Red", "Red")
    assert table.ui_value("pass_Red") == "passed by pass_Red"
    assert not table.ui_visible("pass_Red")


def test_turns_fire_on_player_turn():
    table = Table.load(_save("""
        function onLoad() Turns.enable = true; Turns.order = {"White", "Red"}; Turns.turn_color = "White" end
        function onPlayerTurn(player, previous) broadcastToAll("turn " .. Turns.turn_color) end"""))
    table.seat("White", "Red")
    table.boot()
    table.step()
    table.end_turn("White")
    assert [m for m, _ in table.broadcasts] == ["turn White", "turn Red"]


def test_deck_dissolves_when_one_card_remains():
    deck = _bag("deck", [_token("c1", ["card"]), _token("c2", ["card"])])
    deck["Name"] = "Deck"
    table = Table.load(_save("""
        function take() d = getObjectFromGUID("deck"); c = d.takeObject({position={0,2,0}}); r = d.remainder end
        function read() return c.getGUID() .. " " .. tostring(d.isDestroyed()) .. " " .. r.getGUID() end""",
                             [deck]))
    table.boot()
    table.call_global("take")
    table.advance(0.1)                        # spawned: GUIDs final
    assert table.call_global("read") == "c1 true c2"
    assert {o.guid for o in table.objects if o.name != "HandTrigger"} == {"c1", "c2"}


def test_save_keeps_on_save_state_and_positions():
    table = Table.load(_save("""
        function onLoad(state) broadcastToAll("state=" .. state) end
        function onSave() return JSON.encode({round = 3}) end
        function move() getObjectFromGUID("a").setPosition({7, 1, 7}) end""", [_token("a")]))
    table.boot()
    table.call_global("move")
    saved = table.save()
    again = Table.load(saved)
    again.boot()
    assert again.broadcasts == [('state={"round":3}', None)]
    assert again.object("a").position == Vec(7, 1, 7)


def _listener():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(4)
    s.settimeout(5)
    return s


def _recv_one(server):
    conn, _ = server.accept()
    with conn:
        data = b""
        for _ in range(1000):
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
    return json.loads(data)


def _send(port, message):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(json.dumps(message).encode())


def test_external_editor_api_over_real_sockets():
    editor = _listener()
    try:
        with Table.load(_save("""
            function onLoad() sendExternalMessage({ttsmod = 1, id = 1, type = "hello"}) end
            function onExternalMessage(data) broadcastToAll("got " .. data.type) end"""),
                bridge_port=editor.getsockname()[1], listen_port=0) as table:
            table.boot()
            assert _recv_one(editor) == {"messageID": 4, "customMessage": {"ttsmod": 1, "id": 1, "type": "hello"}}
            _send(table.endpoint.port, {"messageID": 2, "customMessage": {"type": "reply"}})
            assert table.run_until(lambda: bool(table.broadcasts), max_seconds=5, real_pause=0.05)
            assert table.broadcasts == [("got reply", None)]
            _send(table.endpoint.port, {"messageID": 3, "guid": "-1", "script": "return 1+1", "returnID": 7})
            table.run_until(lambda: False, max_seconds=0.2, real_pause=0.05, reply_wait=0.05)
            assert _recv_one(editor) == {"messageID": 5, "returnID": 7, "returnValue": 2}
    finally:
        editor.close()


def test_send_without_a_listening_editor_is_not_delivered():
    probe = _listener()
    port = probe.getsockname()[1]
    probe.close()
    with Table.load(_save("function onLoad() ok = sendExternalMessage({a = 1}) end"),
                    bridge_port=port, listen_port=0) as table:
        table.boot()
        assert table.endpoint.undelivered == [{"messageID": 4, "customMessage": {"a": 1}}]


def test_run_until_waits_in_real_time_only_for_an_owed_answer():
    """A delivered message is owed an answer: the clock waits for it, and stops waiting once it came (or the
    peer went quiet); with nothing owed the clock runs without real waits."""
    editor = _listener()
    try:
        with Table.load(_save("""
            function onLoad() sendExternalMessage({ttsmod = 1, id = 1, type = "hello"}) end
            function onExternalMessage(data) broadcastToAll("got " .. data.type) end"""),
                bridge_port=editor.getsockname()[1], listen_port=0) as table:
            table.boot()
            assert table.endpoint.owed == 1 and not table.settled
            _recv_one(editor)

            def answer():
                _send(table.endpoint.port, {"messageID": 2, "customMessage": {"type": "reply"}})

            import threading
            timer = threading.Timer(0.3, answer)
            timer.start()
            # one simulated frame is enough: the table waits (in real time) for the answer before stepping
            assert table.run_until(lambda: bool(table.broadcasts), max_seconds=2 / 60, reply_wait=5)
            timer.join()
            assert table.broadcasts == [("got reply", None)] and table.endpoint.owed == 0 and table.settled
            # a peer that never answers is waited for once, then forgiven
            table.send_external({"ttsmod": 1, "id": 2, "type": "hello"})
            _recv_one(editor)
            assert not table.run_until(lambda: False, max_seconds=0.1, reply_wait=0.05)
            assert table.endpoint.owed == 0
    finally:
        editor.close()


def test_a_broadcast_note_is_owed_no_answer():
    """The mod's note of what the table told everyone (no id) is only journaled by the bridge: the clock never
    waits for an answer to it, while a request is still owed one."""
    editor = _listener()
    try:
        with Table.load(_save("""
            function onLoad()
                sendExternalMessage({ttsmod = 1, type = "broadcast", game = "g", body = {text = "hi"}})
            end"""), bridge_port=editor.getsockname()[1], listen_port=0) as table:
            table.boot()
            assert _recv_one(editor)["customMessage"]["type"] == "broadcast"
            assert table.endpoint.owed == 0 and table.settled
            table.send_external({"ttsmod": 1, "id": 2, "type": "broadcast"})   # with an id: a request like any
            _recv_one(editor)
            assert table.endpoint.owed == 1
    finally:
        editor.close()


def test_json_writes_an_empty_table_as_an_empty_list_like_tts():
    table = Table.load(_save("""
        function onLoad() broadcastToAll(JSON.encode({list = {}, obj = {a = {}}})) end"""))
    table.boot()
    assert json.loads(table.broadcasts[0][0]) == {"list": [], "obj": {"a": []}}


def test_math_random_follows_the_table_seed():
    script = """function onLoad() broadcastToAll(math.random(1, 1000) .. " " .. math.random(6)) end"""
    runs = []
    for seed in (7, 7, 8):
        table = Table.load(_save(script), seed=seed)
        table.boot()
        runs.append(table.broadcasts[0][0])
    assert runs[0] == runs[1] and runs[0] != runs[2]
    low, high = (int(x) for x in runs[0].split())
    assert low in range(1, 1001) and high in range(1, 7)


def test_hand_trigger_objects_of_the_save_are_the_hands():
    table = Table.load(_save("function count() return #Player.Red.getHandObjects() end",
                             [_token("p", ["potion"], pos=(0, 3, 20), Hands=True)]))
    table.boot()
    assert table.call_global("count") == 1 and table.hand("Red")[0].guid == "p"
    assert table.hand("White") == []


def test_a_table_never_changes_the_save_it_was_loaded_from():
    save = _save("""function onLoad() local t = getObjectsWithTag("x")[1]; t.addTag("y"); t.setPosition({5, 5, 5}) end""",
                 [_token("a", ["x"])])
    before = json.dumps(save, sort_keys=True)
    table = Table.load(save)
    table.boot()
    assert table.object("a").has_tag("y")
    assert json.dumps(save, sort_keys=True) == before
    again = Table.load(save)
    assert not again.object("a").has_tag("y")
