"""The TTS Lua API members the headless table emulates, each as the official API docs describe it.

Only what the ttsmod mods use is here. Any other member of an emulated namespace or object raises
:class:`~tools.headless.lua.Unemulated` naming it; the TTS globals listed in :data:`UNEMULATED_GLOBALS` do the
same when a script reads them.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any, Callable

from tools.headless.common import PLAYER_COLOURS, Wait, json_clean
from tools.headless.geometry import Vec, position_to_local, position_to_world
from tools.headless.lua import HeadlessError, Unemulated
from tools.headless.objects import HObject

if TYPE_CHECKING:
    from tools.headless.table import Table

UNEMULATED_GLOBALS = frozenset({
    "addContextMenuItem", "addHotkey", "allowRewindStore", "chooseInHand", "chooseInHandOrCancel",
    "clearChooseInHand", "clearContextMenu", "clearHotkeys", "copy", "currentChooseInHand", "flipTable",
    "getAllObjects", "group", "logString", "logStyle", "paste", "setLookingForPlayers", "showHotkeyConfig",
    "spawnObject", "spawnObjectData", "spawnObjectJSON", "startLuaCoroutine", "storeRewindState",
    "Backgrounds", "Grid", "Hands", "Info", "Lighting", "MusicPlayer", "Notes", "Physics", "Tables", "Time",
    "Timer", "WebRequest", "Color", "Vector", "onUpdate", "onFixedUpdate",
})

# Color.fromString: each player colour's RGB, in PLAYER_COLOURS order (White, Brown, …, Pink, Grey, Black).
COLOURS_RGB = dict(zip(PLAYER_COLOURS, (
    (1, 1, 1), (0.443, 0.231, 0.09), (0.856, 0.1, 0.094), (0.956, 0.392, 0.113),
    (0.905, 0.898, 0.172), (0.192, 0.701, 0.168), (0.129, 0.694, 0.607),
    (0.118, 0.53, 1), (0.627, 0.125, 0.941), (0.96, 0.439, 0.807),
    (0.5, 0.5, 0.5), (0.25, 0.25, 0.25),
), strict=True))


def vec_to_lua(v: Vec) -> dict[Any, float]:
    """A TTS Vector as a plain table: ``x, y, z`` and ``1, 2, 3``."""
    return {"x": v.x, "y": v.y, "z": v.z, 1: v.x, 2: v.y, 3: v.z}


def vec_from(value: Any, what: str) -> Vec:
    """Lua vector-ish (``{x=,y=,z=}`` or ``{a,b,c}``; letter keys win) → Vec."""
    if isinstance(value, Vec):
        return value
    if isinstance(value, list) and len(value) >= 3:
        return Vec(float(value[0]), float(value[1]), float(value[2]))
    if isinstance(value, dict):
        def pick(letter: str, idx: int) -> float:
            v = value.get(letter, value.get(idx, 0.0))
            return float(v)

        return Vec(pick("x", 1), pick("y", 2), pick("z", 3))
    raise HeadlessError(f"{what}: expected a vector, got {value!r}")


class Proxy:
    """Base of everything Lua sees as a TTS object: ``index``/``newindex`` dispatch to members."""

    kind = "Object"

    def __init__(self, table: "Table") -> None:
        self.table = table
        self.target: Any = self
        """What this proxy stands for when Lua hands it back to Python (an object proxy: its HObject)."""
        self._methods: dict[str, Any] = {}

    def methods(self) -> dict[str, Callable[..., Any]]:
        return {}

    def getters(self) -> dict[str, Callable[[], Any]]:
        return {}

    def setters(self) -> dict[str, Callable[[Any], None]]:
        return {}

    def index(self, key: Any) -> Any:
        """``(value, is_method)``: the Lua side caches methods, so each crosses into Lua once."""
        getters = self.__dict__.get("_getters")
        if getters is None:     # asked for at every read of a field: made once (each reads its own target anew)
            getters = self._getters = self.getters()
        getter = getters.get(key)
        if getter is not None:
            return self.table.lua.to_lua(getter()), False
        if key not in self._methods:
            method = self.methods().get(key)
            if method is None:
                raise Unemulated(f"{self.kind}.{key}")
            self._methods[key] = self.table.lua.function(self._strip_self(method))
        return self._methods[key], True

    def _strip_self(self, method: Callable[..., Any]) -> Callable[..., Any]:
        """``method`` as the Lua side of a wrapper calls it: first whether that side dropped the object passed
        first (``obj:method(...)``), then the arguments; one it did not drop (another reference to the same
        object) is dropped here."""
        target = self.target

        def call(dropped: bool, *args: Any) -> Any:
            if not dropped and args and args[0] is target:
                args = args[1:]
            return method(*args)

        return call

    def newindex(self, key: Any, value: Any) -> None:
        setter = self.setters().get(key)
        if setter is None:
            raise Unemulated(f"{self.kind}.{key} (assignment)")
        setter(self.table.lua.to_py(value))

    def describe(self) -> str:
        return self.kind


class ObjectProxy(Proxy):
    """A TTS Object."""

    def __init__(self, table: "Table", obj: HObject) -> None:
        super().__init__(table)
        self.target = obj
        self.retired = False
        """True once the object entered a container: this reference is destroyed (a new one stands for it once
        it is out again), see Fidelity.entered_objects_destroyed."""

    def describe(self) -> str:
        return f"{self.target.nickname or self.target.name} ({self.target.lua_guid})"

    def gone(self) -> bool:
        """``isDestroyed()``: destroyed, or entered a container since this reference was made."""
        return self.retired or self.target.destroyed

    def getters(self) -> dict[str, Callable[[], Any]]:
        o, t = self.target, self.table

        def resting() -> bool:
            if t.fidelity.resting_needs_rest and self.gone():
                return False
            return not o.in_motion and o.held_by is None

        def remainder() -> Any:
            last = o.remainder
            return last if last is not None and last in t.objects else None

        return {
            "guid": lambda: o.lua_guid, "name": lambda: o.name, "type": lambda: o.type, "memo": lambda: o.memo,
            "locked": lambda: o.locked, "is_face_down": lambda: o.face_down, "held_by_color": lambda: o.held_by,
            "resting": resting, "spawning": lambda: o.spawning_frames > 0,
            "interactable": lambda: not o.data.get("__not_interactable", False),
            "remainder": remainder,
        }

    def setters(self) -> dict[str, Callable[[Any], None]]:
        o = self.target

        def set_memo(v: Any) -> None:
            o.data["Memo"] = None if v is None else str(v)

        def set_locked(v: Any) -> None:
            o.locked = bool(v)

        def set_interactable(v: Any) -> None:
            o.data["__not_interactable"] = not bool(v)

        return {"memo": set_memo, "locked": set_locked, "interactable": set_interactable}

    def methods(self) -> dict[str, Callable[..., Any]]:
        t, o = self.table, self.target

        def alive() -> None:
            if self.gone():
                raise HeadlessError(f"{o!r} was destroyed")

        def set_position(v: Any, *_: Any) -> bool:
            alive()
            t.teleport(o, position=vec_from(v, "setPosition"))
            return True

        def set_position_smooth(v: Any, *_: Any) -> bool:
            alive()
            t.move_smoothly(o, position=vec_from(v, "setPositionSmooth"))
            return True

        def set_rotation(v: Any, *_: Any) -> bool:
            alive()
            t.teleport(o, rotation=vec_from(v, "setRotation"))
            return True

        def set_rotation_smooth(v: Any, *_: Any) -> bool:
            alive()
            t.move_smoothly(o, rotation=vec_from(v, "setRotationSmooth"))
            return True

        def flip() -> bool:
            alive()
            t.teleport(o, rotation=Vec(o.rotation.x, o.rotation.y, (o.rotation.z + 180.0) % 360.0))
            return True

        def get_objects(*_: Any) -> list[Any]:
            alive()
            if o.name == "ScriptingTrigger":
                return t.zone_members(o)
            if not o.is_container:
                raise HeadlessError(f"getObjects on {o!r}, which is neither a container nor a zone")
            return [{"guid": c.guid, "index": i, "name": c.nickname, "nickname": c.nickname,
                     "description": c.description, "gm_notes": str(c.data.get("GMNotes", "")), "memo": c.memo,
                     "tags": c.tags, "lua_script": c.script, "lua_script_state": str(c.data.get("LuaScriptState", ""))}
                    for i, c in enumerate(o.contents)]

        def take_object(params: Any = None) -> Any:
            alive()
            p = params or {}
            if not isinstance(p, dict):
                raise HeadlessError("takeObject: parameters must be a table")
            index = p.get("index")
            obj = t.take_out(
                o, guid=p.get("guid"), index=None if index is None else int(index), top=p.get("top", True) is not False,
                position=vec_from(p["position"], "takeObject position") if p.get("position") is not None else None,
                rotation=vec_from(p["rotation"], "takeObject rotation") if p.get("rotation") is not None else None,
                flip=bool(p.get("flip", False)))
            if p.get("smooth", True) is not False:
                # a smooth take leaves the container and travels to its position
                t.move_smoothly(obj, position=obj.position, start=o.position + Vec(0, 1, 0))
            callback = p.get("callback_function")
            if callback is not None:
                t.when_spawned(obj, callback)
            return obj

        def put_object(other: Any, *_: Any) -> Any:
            alive()
            if not isinstance(other, HObject):
                raise HeadlessError("putObject: expected an Object")
            return t.put_into(o, other)

        def shuffle() -> bool:
            alive()
            if not o.is_container:
                raise HeadlessError(f"shuffle on {o!r}, which is not a container")
            t.random.shuffle(o.contents)
            return True

        def deal(number: Any, colour: Any, index: Any = 1) -> bool:
            alive()
            t.deal(o, int(number), str(colour), int(index or 1))
            return True

        def highlight_on(colour: Any, duration: Any = None) -> bool:
            alive()
            o.highlight = colour if isinstance(colour, str) else json.dumps(colour)
            if duration is not None:
                t.add_wait(_timed_off(t, o, float(duration)))
            return True

        def highlight_off(*_: Any) -> bool:
            o.highlight = None
            return True

        def get_snap_points() -> list[dict[str, Any]]:
            return [{"position": vec_to_lua(sp.position), "rotation": vec_to_lua(sp.rotation),
                     "rotation_snap": sp.rotation_snap, "tags": list(sp.tags)} for sp in o.snap_points]

        def add_tag(tag: Any) -> bool:
            tags = o.tags
            if tag in tags:
                return False
            o.data["Tags"] = tags + [str(tag)]
            return True

        def remove_tag(tag: Any) -> bool:
            tags = o.tags
            if tag not in tags:
                return False
            o.data["Tags"] = [x for x in tags if x != tag]
            return True

        def destruct() -> bool:
            alive()
            t.destroy(o)
            return True

        def set_name(name: Any) -> bool:
            o.data["Nickname"] = str(name)
            return True

        def call(fn: Any, param: Any = None) -> Any:
            if o.env is None:
                raise HeadlessError(f"call on {o!r}, which has no script")
            return t._event(o.env, str(fn), param)

        return {
            "getGUID": lambda: o.lua_guid,
            "getName": lambda: o.nickname,
            "setName": set_name,
            "getDescription": lambda: o.description,
            "getTags": lambda: o.tags,
            "hasTag": lambda tag: tag in o.tags,
            "hasAnyTag": lambda: bool(o.tags),
            "addTag": add_tag,
            "removeTag": remove_tag,
            "getPosition": lambda: vec_to_lua(o.position),
            "setPosition": set_position,
            "setPositionSmooth": set_position_smooth,
            "getRotation": lambda: vec_to_lua(o.rotation),
            "setRotation": set_rotation,
            "setRotationSmooth": set_rotation_smooth,
            "getScale": lambda: vec_to_lua(o.scale),
            "isSmoothMoving": lambda: o.smooth_moving,
            "flip": flip,
            "getQuantity": lambda: len(o.contents) if o.is_container else -1,
            "getObjects": get_objects,
            "takeObject": take_object,
            "putObject": put_object,
            "shuffle": shuffle,
            "deal": deal,
            "highlightOn": highlight_on,
            "highlightOff": highlight_off,
            "getSnapPoints": get_snap_points,
            "positionToWorld": lambda v: vec_to_lua(position_to_world(vec_from(v, "positionToWorld"), o.position,
                                                                       o.rotation, o.scale)),
            "positionToLocal": lambda v: vec_to_lua(position_to_local(vec_from(v, "positionToLocal"), o.position,
                                                                       o.rotation, o.scale)),
            "isDestroyed": self.gone,
            "destruct": destruct,
            "getLock": lambda: o.locked,
            "setLock": lambda v: setattr(o, "locked", bool(v)) or True,
            "call": call,
            "setVectorLines": lambda lines: o.data.__setitem__("AttachedVectorLines", list(lines or [])) or True,
            "getVectorLines": lambda: list(o.data.get("AttachedVectorLines") or []),
        }


def _timed_off(t: "Table", o: HObject, seconds: float) -> Any:
    def off(*_: Any) -> None:
        o.highlight = None

    return Wait(0, _PyCallable(off), due_time=t.time + seconds)


class _PyCallable:
    """A Python function stored where the clock expects a Lua function."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)


class PlayerProxy(Proxy):
    """A ``Player`` instance (``Player.White``, the ``player`` argument of UI clicks and turn events)."""

    kind = "Player"

    def __new__(cls, table: "Table", colour: str) -> "PlayerProxy":
        cache = table.__dict__.setdefault("_player_proxies", {})
        if colour not in cache:
            inst = super().__new__(cls)
            Proxy.__init__(inst, table)
            inst.colour = colour
            cache[colour] = inst
        return cache[colour]

    def __init__(self, table: "Table", colour: str) -> None:  # state set once in __new__
        pass

    def describe(self) -> str:
        return f"Player {self.colour}"

    def getters(self) -> dict[str, Callable[[], Any]]:
        return {"color": lambda: self.colour, "seated": lambda: self.colour in self.table.seated,
                "steam_name": lambda: f"{self.colour} player" if self.colour in self.table.seated else None}

    def methods(self) -> dict[str, Callable[..., Any]]:
        t = self.table

        def hand_transform(index: Any = 1) -> Any:
            zone = t.hand_zone(self.colour, int(index or 1))
            if zone is None:
                return None
            fwd = position_to_world(Vec(0, 0, 1), Vec(), zone.rotation, Vec(1, 1, 1))
            right = position_to_world(Vec(1, 0, 0), Vec(), zone.rotation, Vec(1, 1, 1))
            up = position_to_world(Vec(0, 1, 0), Vec(), zone.rotation, Vec(1, 1, 1))
            return {"position": vec_to_lua(zone.position), "rotation": vec_to_lua(zone.rotation),
                    "scale": vec_to_lua(zone.scale), "forward": vec_to_lua(fwd), "right": vec_to_lua(right),
                    "up": vec_to_lua(up)}

        def broadcast(message: Any, tint: Any = None) -> bool:
            t.broadcasts.append((str(message), self.colour))
            return True

        def print_(message: Any, tint: Any = None) -> bool:
            t.chat.append((str(message), self.colour))
            return True

        return {"getHandObjects": lambda index=1: t.hand_members(self.colour), "getHandTransform": hand_transform,
                "broadcast": broadcast, "print": print_}


class Namespace(Proxy):
    """An API namespace (``Wait``, ``UI``, ``JSON``, ``Turns``, ``Player``) with fixed members."""

    def __init__(self, table: "Table", kind: str, methods: dict[str, Callable[..., Any]],
                 getters: dict[str, Callable[[], Any]] | None = None,
                 setters: dict[str, Callable[[Any], None]] | None = None,
                 fallback: Callable[[Any], Any] | None = None) -> None:
        super().__init__(table)
        self.kind = kind
        self._m, self._g, self._s, self._fallback = methods, getters or {}, setters or {}, fallback

    def methods(self) -> dict[str, Callable[..., Any]]:
        return self._m

    def getters(self) -> dict[str, Callable[[], Any]]:
        return self._g

    def setters(self) -> dict[str, Callable[[Any], None]]:
        return self._s

    def index(self, key: Any) -> Any:
        if self._fallback is not None and key not in self._m and key not in self._g:
            return self.table.lua.to_lua(self._fallback(key)), False
        return super().index(key)


class GlobalScript(Proxy):
    """``Global``: the Global script as an object (``Global.call``, ``Global.getVar``)."""

    kind = "Global"

    def __init__(self, table: "Table") -> None:
        super().__init__(table)
        self.lua_proxy = self

    def methods(self) -> dict[str, Callable[..., Any]]:
        t = self.table

        def get_var(name: Any) -> Any:
            ok = t.global_env
            return t.lua.to_py(t.lua.runtime.eval("function(env, k) return rawget(env, k) end")(ok, name))

        return {"call": lambda fn, param=None: t._event(t.global_env, str(fn), param), "getVar": get_var}


# ---------------------------------------------------------------------------------- globals
def build_api(t: "Table") -> None:
    """Install the emulated globals into the runtime's shared API table."""
    lua = t.lua

    def proxy_for(value: Any) -> Any:
        if isinstance(value, HObject):
            if value.destroyed and value not in t.objects and value.container is None:
                pass
            cache = t.__dict__.setdefault("_object_proxies", {})
            if id(value) not in cache:
                cache[id(value)] = ObjectProxy(t, value)
            return cache[id(value)]
        if isinstance(value, (Proxy,)):
            return value
        return None

    original_to_lua = lua.to_lua

    def general_to_lua(value: Any) -> Any:
        proxy = proxy_for(value) if isinstance(value, (HObject, Proxy)) else None
        if proxy is not None:
            return lua.wrap(proxy)
        if isinstance(value, _PyCallable):
            return value
        return original_to_lua(value)

    # The mod asks the table for positions, object lists and decoded JSON hundreds of thousands of times a game:
    # the values of the plainest types take a short way to the same Lua values, built in the same order (a
    # table's keys in the dict's order, a list's items 1..n); every other value takes the general way above.
    # lupa's table_from fills a new table in one call, raw-setting the keys in the dict's order (the items 1..n),
    # which is how setting them one by one from Python fills it too: Lua lays out, and pairs() walks, the same table.
    table_from = lua.runtime.table_from
    plain = {type(None), bool, int, float, str}

    def to_lua(value: Any) -> Any:
        kind = type(value)
        if kind in plain:
            return value
        if kind is dict:
            return table_from({k: v if type(v) in plain else to_lua(v) for k, v in value.items()})
        if kind is list or kind is tuple:
            return table_from([v if type(v) in plain else to_lua(v) for v in value])
        return general_to_lua(value)

    lua.to_lua = to_lua  # type: ignore[method-assign]

    def fn(f: Callable[..., Any]) -> Any:
        return lua.function(f)

    base = lua.base

    def tagged_all(tags: Any) -> list[HObject]:
        tags = list(tags or [])
        return [o for o in t.objects if all(o.has_tag(x) for x in tags)]

    def tagged_any(tags: Any) -> list[HObject]:
        tags = list(tags or [])
        return [o for o in t.objects if any(o.has_tag(x) for x in tags)]

    def broadcast_all(message: Any, tint: Any = None) -> bool:
        t.broadcasts.append((str(message), None))
        return True

    def broadcast_colour(message: Any, colour: Any, tint: Any = None) -> bool:
        t.broadcasts.append((str(message), str(colour)))
        return True

    def print_all(message: Any, tint: Any = None) -> bool:
        t.chat.append((str(message), None))
        return True

    def print_colour(message: Any, colour: Any, tint: Any = None) -> bool:
        t.chat.append((str(message), str(colour)))
        return True

    def send_external(data: Any) -> bool:
        if not isinstance(data, dict):
            raise HeadlessError("sendExternalMessage: expected a table")
        return t.send_external(data)

    def destroy_object(obj: Any) -> bool:
        if isinstance(obj, HObject):
            t.destroy(obj)
            return True
        return False

    def colour_rgb(name: Any) -> Any:
        rgb = COLOURS_RGB.get(str(name))
        if rgb is None:
            return None
        return {"r": rgb[0], "g": rgb[1], "b": rgb[2], "a": 1, 1: rgb[0], 2: rgb[1], 3: rgb[2], 4: 1}

    def lua_print(*args: Any) -> None:
        text = "\t".join(_lua_str(a) for a in args)
        t.chat.append((text, "host"))
        t.editor_print(text)

    def lua_log(value: Any, label: Any = None, tags: Any = None) -> bool:
        t.chat.append((f"{label or ''}{_lua_str(value)}", "log"))
        return True

    for name, f in {
        "getObjectFromGUID": lambda guid: t.lua_object(str(guid)),
        "getObjects": lambda: list(t.objects),
        "getObjectsWithTag": lambda tag: [o for o in t.objects if o.has_tag(tag)],
        "getObjectsWithAllTags": tagged_all,
        "getObjectsWithAnyTags": tagged_any,
        "getSeatedPlayers": lambda: list(t.seated),
        "broadcastToAll": broadcast_all,
        "broadcastToColor": broadcast_colour,
        "printToAll": print_all,
        "printToColor": print_colour,
        "print": lua_print,
        "log": lua_log,
        "sendExternalMessage": send_external,
        "destroyObject": destroy_object,
        "stringColorToRGB": colour_rgb,
    }.items():
        base[name] = fn(f)

    # math.random on the table's seeded source, so a seeded table replays the same game
    maths = lua.runtime.table()
    for key, value in lua.runtime.globals().math.items():
        maths[key] = value
    lua_random = random.Random(t.seed)

    def math_random(m: Any = None, n: Any = None) -> Any:
        if m is None:
            return lua_random.random()
        low, high = (1, int(m)) if n is None else (int(m), int(n))
        if low > high:
            raise HeadlessError("bad argument to 'random' (interval is empty)")
        return lua_random.randint(low, high)

    def math_randomseed(x: Any = 0) -> None:
        lua_random.seed(x)

    maths["random"] = lua.function(math_random)
    maths["randomseed"] = lua.function(math_randomseed)
    base["math"] = maths
    base["Global"] = lua.wrap(t.global_script)
    base["JSON"] = lua.wrap(Namespace(t, "JSON", {"encode": lambda v: _json_encode(v, False),
                                                  "encode_pretty": lambda v: _json_encode(v, True),
                                                  "decode": _json_decode}))
    base["Wait"] = lua.wrap(_wait_namespace(t))
    base["UI"] = lua.wrap(_ui_namespace(t))
    base["Turns"] = lua.wrap(_turns_namespace(t))
    base["Player"] = lua.wrap(_player_namespace(t))


def _lua_str(v: Any) -> str:
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _json_encode(value: Any, pretty: bool) -> str:
    return json.dumps(json_clean(value), indent=2 if pretty else None, separators=None if pretty else (",", ":"),
                      ensure_ascii=False)


def _json_decode(text: Any) -> Any:
    def strip_null(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: strip_null(x) for k, x in v.items() if x is not None}
        if isinstance(v, list):
            return [strip_null(x) for x in v]
        return v

    try:
        return strip_null(json.loads(str(text)))
    except ValueError as exc:
        raise HeadlessError(f"JSON.decode: {exc}") from exc


def _wait_namespace(t: "Table") -> Namespace:
    def wait_time(fn: Any, seconds: Any, repetitions: Any = 1) -> int:
        s = float(seconds)
        return t.add_wait(Wait(0, fn, due_time=t.time + s, interval=s, repetitions=int(repetitions or 1)))

    def wait_frames(fn: Any, count: Any = 1) -> int:
        return t.add_wait(Wait(0, fn, due_frame=t.frame + max(1, int(count or 1))))

    def wait_condition(fn: Any, condition: Any, timeout: Any = None, timeout_fn: Any = None) -> int:
        deadline = t.time + float(timeout) if timeout is not None else None
        return t.add_wait(Wait(0, fn, condition=condition, deadline=deadline, timeout_fn=timeout_fn))

    def wait_stop(wait_id: Any) -> bool:
        return t.stop_wait(int(wait_id))

    def stop_all() -> bool:
        t._waits.clear()
        return True

    return Namespace(t, "Wait", {"time": wait_time, "frames": wait_frames, "condition": wait_condition,
                                 "stop": wait_stop, "stopAll": stop_all})


def _ui_namespace(t: "Table") -> Namespace:
    def element(eid: Any) -> Any:
        return t.ui.get(str(eid))

    def set_attribute(eid: Any, name: Any, value: Any) -> bool:
        el = element(eid)
        if el is None:
            t.errors.append(f"UI.setAttribute: no element {eid!r}")
            return False
        el.attributes[str(name)] = _lua_str(value)
        return True

    def set_attributes(eid: Any, values: Any) -> bool:
        return all(set_attribute(eid, k, v) for k, v in dict(values or {}).items())

    def get_attribute(eid: Any, name: Any) -> Any:
        el = element(eid)
        return None if el is None else el.attributes.get(str(name))

    def set_value(eid: Any, value: Any) -> bool:
        el = element(eid)
        if el is None:
            t.errors.append(f"UI.setValue: no element {eid!r}")
            return False
        el.value = _lua_str(value)
        return True

    def get_value(eid: Any) -> Any:
        el = element(eid)
        return None if el is None else el.value

    return Namespace(t, "UI", {
        "setAttribute": set_attribute, "setAttributes": set_attributes, "getAttribute": get_attribute,
        "setValue": set_value, "getValue": get_value,
        "show": lambda eid: set_attribute(eid, "active", "true"),
        "hide": lambda eid: set_attribute(eid, "active", "false"),
    })


def _turns_namespace(t: "Table") -> Namespace:
    def set_order(v: Any) -> None:
        t.turns["order"] = [str(c) for c in (v or [])]

    def order() -> list[str]:
        return t.turn_order()

    def next_colour() -> str:
        o = order()
        cur = t.turns.get("turn_color")
        return o[(o.index(cur) + 1) % len(o)] if cur in o else (o[0] if o else "")

    def previous_colour() -> str:
        o = order()
        cur = t.turns.get("turn_color")
        return o[(o.index(cur) - 1) % len(o)] if cur in o else (o[-1] if o else "")

    return Namespace(
        t, "Turns",
        {"getNextTurnColor": next_colour, "getPreviousTurnColor": previous_colour},
        getters={"enable": lambda: t.turns["enable"], "order": lambda: list(t.turns["order"]),
                 "turn_color": lambda: t.turns["turn_color"], "type": lambda: t.turns["type"],
                 "pass_turns": lambda: t.turns["pass_turns"]},
        setters={"enable": lambda v: t.turns.__setitem__("enable", bool(v)), "order": set_order,
                 "turn_color": lambda v: t.set_turn(str(v)), "type": lambda v: t.turns.__setitem__("type", int(v)),
                 "pass_turns": lambda v: t.turns.__setitem__("pass_turns", bool(v))})


def _player_namespace(t: "Table") -> Namespace:
    def by_colour(key: Any) -> Any:
        if key in PLAYER_COLOURS:
            return PlayerProxy(t, str(key))
        raise Unemulated(f"Player.{key}")

    return Namespace(t, "Player", {
        "getPlayers": lambda: [PlayerProxy(t, c) for c in t.seated],
        "getColors": lambda: list(PLAYER_COLOURS),
    }, fallback=by_colour)
