"""The headless table: a stand-in for Tabletop Simulator that loads a save and runs its Lua.

Contract (see docs/headless.md):

* :meth:`Table.load` reads a save (path or dict) and lays its objects; nothing runs until :meth:`boot`, which runs
  the Global script and every object script, then ``onLoad``.
* Time is simulated: one :meth:`step` is one frame of 1/60 s. ``Wait.time/frames/condition`` fire on that clock;
  External Editor messages received on the socket are dispatched at the start of a frame, on the caller's thread.
* Scripted players act through :meth:`seat`, :meth:`change_colour`, :meth:`unseat`, :meth:`take`, :meth:`pick_up`,
  :meth:`drop`, :meth:`drop_into`, :meth:`click`, :meth:`end_turn`; what players see is in :attr:`broadcasts`, :meth:`ui_value`,
  :meth:`ui_attribute`, object transforms, :meth:`hand`.
* A Lua error raises :class:`HeadlessError` with the Lua traceback (``strict=True``, the default) — a test never
  silently continues past a broken script. Use of a TTS member that is not emulated raises :class:`Unemulated`.
"""

from __future__ import annotations

import copy
import json
import math
import queue
import random
import re
import time as real_time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from tools.headless.api import GlobalScript, ObjectProxy, PlayerProxy, build_api
from tools.headless.common import PLAYER_COLOURS, Wait, json_clean
from tools.headless.eea import ExternalEditorEndpoint
from tools.headless.fidelity import Fidelity
from tools.headless.geometry import Vec, inside_box, position_to_local, position_to_world
from tools.headless.lua import HeadlessError, Lua, Unemulated
from tools.headless.objects import HObject, Motion

FRAME = 1.0 / 60.0
REPLY_WAIT = 15.0     # real seconds to wait for an owed answer before giving up on the peer (a loaded machine)

FALL_HEIGHT = 1.0    # a scripted player lets go of an object this high above where it comes to rest
REST_HEIGHT = 0.05   # an object dropped on a snap point rests this far above it

CARD_NAMES = ("Card", "CardCustom")
DECK_NAMES = ("Deck", "DeckCustom")
BAG_NAMES = ("Bag", "Custom_Model_Bag", "Custom_Assetbundle_Bag")
ZONE_NAMES = ("ScriptingTrigger", "HandTrigger")
CARD_HALF = (1.0, 1.4)   # half extents (x, z) of a card or deck at scale 1: 2 units across, a poker card's aspect
BAG_HALF = (1.0, 1.0)    # half extents of a bag at scale 1 (what a dropped object must land on to enter it)

__all__ = ["Table", "Fidelity", "HeadlessError", "Unemulated", "HObject", "Vec", "FRAME"]


@dataclass
class HandZone:
    colour: str
    position: Vec
    rotation: Vec
    scale: Vec
    tags: tuple[str, ...] = ()


def shares_tag(feature_tags: Iterable[str], obj: HObject) -> bool:
    """The Knowledge Base's rule for zones, hands and snap points: a feature with no tags interacts with every
    object; a feature with tags only with objects sharing at least one of them."""
    tags = set(feature_tags)
    return not tags or not tags.isdisjoint(obj.tags)


@dataclass
class UIElement:
    tag: str
    attributes: dict[str, str]
    value: str
    parent: "UIElement | None" = None
    children: list["UIElement"] = field(default_factory=list)


class Table:
    def __init__(self, save: dict[str, Any], *, seed: int = 0, bridge_port: int | None = None,
                 listen_port: int | None = None, strict: bool = True, fidelity: Fidelity | None = None) -> None:
        save = copy.deepcopy(save)   # objects keep their save entries and change them: never the caller's
        self.save_data = save
        self.strict = strict
        self.seed = seed
        self.fidelity = fidelity if fidelity is not None else Fidelity.faithful()
        self.random = random.Random(seed)
        self.scatter_random = random.Random(seed ^ 0x5CA77E)   # drops: kept apart so shuffles do not depend on it
        self._membership: dict[Any, tuple[int, list[HObject]]] = {}   # zone or hand colour → (frame, members)
        self.frame = 0
        self.time = 0.0
        self.objects: list[HObject] = []        # on the table, in load/spawn order
        self.broadcasts: list[tuple[str, str | None]] = []   # (message, colour or None for everyone)
        self.chat: list[tuple[str, str | None]] = []          # print/printToAll/printToColor
        self.errors: list[str] = []
        self.seated: list[str] = []
        self.turns: dict[str, Any] = {"enable": False, "order": [], "turn_color": "", "type": 1,
                                      "pass_turns": True, "reverse_order": False, "skip_empty_hands": False,
                                      "disable_interactations": False}
        self._waits: list[Wait] = []
        self._next_wait = 1
        self._deferred: list[Callable[[], None]] = []
        self._booted = False
        self.hand_zones: list[HandZone] = []
        self.ui: dict[str, UIElement] = {}
        self.ui_root: list[UIElement] = []
        self.lua = Lua()
        self.global_script = GlobalScript(self)
        self.global_env: Any = None
        self.endpoint: ExternalEditorEndpoint | None = None
        if listen_port is not None or bridge_port is not None:
            self.endpoint = ExternalEditorEndpoint(bridge_port, listen_port or 0)
        self._lay(save)
        build_api(self)
        # what Save & Play reloads: the game as last (manually) loaded or saved, with the scripts sent since
        self._baseline: dict[str, Any] = copy.deepcopy(save)
        self._guid_random = random.Random(seed ^ 0x6A1D)   # provisional and new GUIDs (apart from shuffles)

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, save: str | Path | dict[str, Any], **kwargs: Any) -> "Table":
        """A table laid from a save file (path) or an already parsed save dict."""
        if not isinstance(save, dict):
            save = json.loads(Path(save).read_text(encoding="utf-8"))
        return cls(save, **kwargs)

    def _lay(self, save: dict[str, Any]) -> None:
        for state in save.get("ObjectStates") or []:
            obj = HObject.from_state(state)
            self.objects.append(obj)
            obj.settled_position = obj.position
            if obj.name == "HandTrigger":
                colour = str(state.get("FogColor") or "")
                self.hand_zones.append(HandZone(colour, obj.position, obj.rotation, obj.scale, tuple(obj.tags)))
        for entry in (save.get("Hands") or {}).get("HandTransforms") or []:
            t = entry.get("Transform") or {}
            self.hand_zones.append(HandZone(
                str(entry.get("Color")), Vec(t.get("posX", 0), t.get("posY", 0), t.get("posZ", 0)),
                Vec(t.get("rotX", 0), t.get("rotY", 0), t.get("rotZ", 0)),
                Vec(t.get("scaleX", 1), t.get("scaleY", 1), t.get("scaleZ", 1))))
        self._parse_ui(str(save.get("XmlUI") or ""))

    def _parse_ui(self, xml: str) -> None:
        self.ui.clear()
        self.ui_root = []
        if not xml.strip():
            return
        try:
            root = ET.fromstring(f"<ttsmodroot>{xml}</ttsmodroot>")
        except ET.ParseError as exc:
            raise HeadlessError(f"Global XmlUI is not well-formed XML: {exc}") from exc

        def visit(node: ET.Element, parent: UIElement | None) -> UIElement:
            el = UIElement(node.tag, dict(node.attrib), (node.text or "").strip(), parent)
            if "id" in el.attributes:
                self.ui[el.attributes["id"]] = el
            for child in node:
                el.children.append(visit(child, el))
            return el

        self.ui_root = [visit(child, None) for child in root]

    # ------------------------------------------------------------------ scripts
    def boot(self) -> None:
        """Run the Global script and object scripts, then call ``onLoad(script_state)`` on each."""
        if self._booted:
            raise HeadlessError("the table is already booted")
        self._booted = True
        self.global_env = self._load_script(self.global_script.lua_proxy, str(self.save_data.get("LuaScript") or ""),
                                            "Global")
        for obj in list(self.objects):
            if obj.script.strip():
                obj.env = self._load_script(self._object_proxy(obj), obj.script, f"{obj.name}.{obj.guid}", obj)
        self._event(self.global_env, "onLoad", str(self.save_data.get("LuaScriptState") or ""))
        for obj in list(self.objects):
            if obj.env is not None:
                self._event(obj.env, "onLoad", str(obj.data.get("LuaScriptState") or ""))

    def _load_script(self, proxy: Any, code: str, name: str, owner: HObject | None = None) -> Any:
        env = self.lua.hl.new_env(self.lua.wrap(proxy), self.lua.function(self._guard_global))
        chunk, message = self.lua.hl.load(code, name, env)
        if chunk is None:
            self._fail(f"{name}: {message}", lua_error=str(message), owner=owner)
            return env
        ok, result = self.lua.hl.pcall(chunk)
        if not ok:
            self._fail(f"{name}: {result}", lua_error=str(result), owner=owner)
        return env

    def _object_proxy(self, obj: HObject) -> ObjectProxy:
        cache = self.__dict__.setdefault("_object_proxies", {})
        if id(obj) not in cache:
            cache[id(obj)] = ObjectProxy(self, obj)
        return cache[id(obj)]

    def _guard_global(self, name: Any) -> None:
        from tools.headless.api import UNEMULATED_GLOBALS

        if name in UNEMULATED_GLOBALS:
            raise Unemulated(str(name))
        return None

    def _fail(self, message: str, *, lua_error: str | None = None, owner: HObject | None = None) -> None:
        self.errors.append(message)
        if lua_error is not None:
            self.editor_error(lua_error, owner)
        if self.strict:
            if "headless table does not emulate" in message:
                raise Unemulated(message.split("does not emulate ", 1)[1].split("\n", 1)[0])
            raise HeadlessError(message)

    def _event(self, env: Any, name: str, *args: Any) -> Any:
        if env is None:
            return None
        ok, result, present = self.lua.hl.event(env, name, *[self.lua.to_lua(a) for a in args])
        if not ok:
            self._fail(f"{name}: {result}", lua_error=str(result), owner=self._owner_of(env))
            return None
        return self.lua.to_py(result) if present else None

    def _owner_of(self, env: Any) -> HObject | None:
        """The object whose script ``env`` is (None: Global)."""
        if env is None or env is self.global_env:
            return None
        return next((o for o in self.objects if o.env is env), None)

    def editor_error(self, error: str, owner: HObject | None = None) -> None:
        """A Lua error as TTS reports it to the editor port (messageID 3, see Fidelity): its first line, the
        position written as TTS writes it (``chunk_0:(line,column)``; the column is not known here: 1)."""
        if not self.fidelity.editor_gets_prints_and_errors or self.endpoint is None:
            return
        first = error.strip().split("\n", 1)[0]
        first = re.sub(r"^[^:\n]*:(\d+): ", lambda m: f"chunk_0:({m.group(1)},1): ", first, count=1)
        if owner is None:
            guid, prefix = "-1", "Error in Global Script: "
        else:
            guid, prefix = owner.guid, f"Error in Script ({owner.nickname or owner.name} - {owner.guid}): "
        self._send_raw({"messageID": 3, "error": first, "guid": guid, "errorMessagePrefix": prefix})

    def editor_print(self, message: str) -> None:
        """A ``print()`` as TTS mirrors it to the editor port (messageID 2, see Fidelity)."""
        if self.fidelity.editor_gets_prints_and_errors and self.endpoint is not None:
            self._send_raw({"messageID": 2, "message": message})

    def fire(self, name: str, *args: Any) -> None:
        """Call event ``name`` in Global and in every object script that defines it (TTS's universal events)."""
        self._event(self.global_env, name, *args)
        for obj in list(self.objects):
            if obj.env is not None:
                self._event(obj.env, name, *args)

    def call_lua(self, fn: Any, *args: Any) -> Any:
        """Call a Lua function held by Python (callbacks, waits); errors follow the strict rule."""
        from tools.headless.api import _PyCallable

        if isinstance(fn, _PyCallable):
            return fn(*args)
        ok, result = self.lua.hl.pcall(fn, *[self.lua.to_lua(a) for a in args])
        if not ok:
            self._fail(str(result), lua_error=str(result))
            return None
        return self.lua.to_py(result)

    def call_global(self, name: str, *args: Any) -> Any:
        """Call a global function of the Global script by name and return its (Python-converted) result."""
        return self._event(self.global_env, name, *args)

    # ------------------------------------------------------------------ clock
    def add_wait(self, wait: Wait) -> int:
        wait.id = self._next_wait
        self._next_wait += 1
        self._waits.append(wait)
        return wait.id

    def stop_wait(self, wait_id: int) -> bool:
        before = len(self._waits)
        self._waits = [w for w in self._waits if w.id != wait_id]
        return len(self._waits) != before

    def defer(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` at the start of the next frame (spawn callbacks, turn events)."""
        self._deferred.append(fn)

    def step(self, frames: int = 1) -> None:
        """Advance the simulated clock by ``frames`` frames, dispatching messages, deferred work and waits."""
        for _ in range(frames):
            self._drain_inbox()
            self.frame += 1
            self.time += FRAME
            deferred, self._deferred = self._deferred, []
            for fn in deferred:
                fn()
            self._physics()
            self._run_waits()

    def _physics(self) -> None:
        """One frame of "physics": moves and falls advance (not while the object spawns, on the faithful table),
        spawns finish, objects that came to rest land (and may merge or enter a container, see :class:`Fidelity`),
        and every object's position is what zone and hand membership will see until the next frame."""
        fid = self.fidelity
        spawned: list[HObject] = []
        landed: list[tuple[HObject, str]] = []
        for obj in self.objects:
            motion = obj.motion
            if motion is not None:
                if fid.physics_waits_for_spawn and obj.spawning_frames > 0:
                    motion.first_frame += 1              # physics waits for the spawn
                else:
                    if motion.end is not None:
                        obj.position = motion.position_at(self.frame)
                    if motion.done(self.frame):
                        if motion.rotation is not None:
                            obj.rotation = motion.rotation
                        obj.motion = None
                        if motion.kind == "smooth" and fid.resting_needs_rest and fid.drop_fall_frames > 0 \
                                and not obj.locked:
                            # the move is over; it falls before it rests (not resting meanwhile)
                            obj.motion = Motion("fall", obj.position, obj.position, None, self.frame,
                                                fid.drop_fall_frames, cause="settle")
                        else:
                            landed.append((obj, "drop" if motion.cause == "drop" else "smooth"))
            if obj.spawning_frames > 0:
                obj.spawning_frames -= 1
                if obj.spawning_frames == 0:
                    spawned.append(obj)
            obj.settled_position = obj.position
        for obj in spawned:
            self._finish_spawn(obj)
        for obj, cause in landed:
            self._landed(obj, cause)
        for obj in spawned:
            callbacks, obj.on_spawned = obj.on_spawned, []
            for callback in callbacks:
                self.call_lua(callback, obj)
            if obj.motion is None:
                # a frame to enter another container if it spawned on one (takeObject's example)
                self.defer(lambda obj=obj: self._landed(obj, "spawn"))

    def _finish_spawn(self, obj: HObject) -> None:
        """Its GUID becomes final: the one it had, or a new one if another object on the table has it."""
        if obj.spawn_guid is None:
            return
        obj.spawn_guid = None
        if any(o is not obj and o.guid == obj.guid for o in self.objects):
            obj.guid = self.new_guid()
            obj.data["GUID"] = obj.guid

    def new_guid(self) -> str:
        """A 6-hex-digit GUID no object on the table or in a container has."""
        used: set[str] = set()

        def collect(objs: Iterable[HObject]) -> None:
            for o in objs:
                used.add(o.guid)
                if o.spawn_guid is not None:
                    used.add(o.spawn_guid)
                collect(o.contents)

        collect(self.objects)
        while True:
            guid = f"{self._guid_random.randrange(16 ** 6):06x}"
            if guid not in used:
                return guid

    # ------------------------------------------------------------------ landing: merges and containers
    def _landed(self, obj: HObject, cause: str) -> None:
        """``obj`` came to rest after a player's drop (``cause`` "drop"), a smooth move ("smooth") or a spawn
        ("spawn"): lying on a bag it enters it, lying on a same-size card or deck it joins it on top — each as far
        as its switch of :class:`Fidelity` allows."""
        if obj not in self.objects or obj.held_by is not None or obj.locked or obj.spawning_frames > 0 \
                or obj.motion is not None:
            return
        fid = self.fidelity
        if not (fid.cards_merge or fid.drops_enter_containers or fid.spawns_enter_containers
                or fid.smooth_moves_merge):
            return
        target = self.lying_on(obj)
        if target is None:
            return
        bag = target.name in BAG_NAMES
        if cause == "drop":
            allowed = fid.drops_enter_containers if bag else fid.cards_merge
        elif cause == "spawn":
            allowed = fid.spawns_enter_containers
        else:
            allowed = fid.smooth_moves_merge      # a smooth take's travel too: it spawned at the container
        if not allowed:
            return
        if bag:
            self.put_into(target, obj)
        else:
            self.combine(obj, target, on_top=True)

    def lying_on(self, obj: HObject) -> HObject | None:
        """The bag, or the same-size card or deck, ``obj`` lies on as it is now (the nearest), if any: it lies
        over a bag's footprint, or its footprint overlaps the card's; never in a hand."""
        if obj.name in ZONE_NAMES or self.in_hand(obj) is not None:
            return None
        best: HObject | None = None
        best_d = math.inf
        for other in self.objects:
            if other is obj or other.held_by is not None or other.spawning_frames > 0 or other.motion is not None \
                    or other.name in ZONE_NAMES or obj.position.y < other.position.y - 1e-6:
                continue
            if other.name in BAG_NAMES:
                half = BAG_HALF
            elif stackable(obj) and stackable(other) and same_size(obj, other):
                if self.in_hand(other) is not None:
                    continue
                half = (2 * CARD_HALF[0], 2 * CARD_HALF[1])      # the two footprints overlap
            else:
                continue
            local = position_to_local(obj.position, other.position, Vec(0.0, other.rotation.y, 0.0),
                                      Vec(1.0, 1.0, 1.0))
            if abs(local.x) < half[0] * other.scale.x and abs(local.z) < half[1] * other.scale.z:
                d = math.hypot(local.x, local.z)
                if d < best_d:
                    best, best_d = other, d
        return best

    def combine(self, obj: HObject, target: HObject, *, on_top: bool = True) -> HObject:
        """Cards and decks combined as TTS combines them: ``obj`` (a card or a deck) onto (``on_top``) or under
        ``target``. Onto a deck it joins that deck; a card onto a card forms a new deck where the lower one lay;
        a deck onto a card takes the card at its other end and lies where the card lay. Returns the deck."""
        if target.name in DECK_NAMES:
            self._into_deck(target, obj, on_top)
            return target
        if obj.name in DECK_NAMES:
            obj.position = Vec(target.position.x, max(obj.position.y, target.position.y), target.position.z)
            obj.rotation = Vec(target.rotation.x, target.rotation.y, target.rotation.z)
            obj.motion = None
            self._into_deck(obj, target, not on_top)
            return obj
        custom: dict[str, Any] = {}
        for card in (target, obj):
            custom.update(card.data.get("CustomDeck") or {})
        data: dict[str, Any] = {"GUID": self.new_guid(), "Name": "Deck", "Nickname": "", "Description": "",
                                "Tags": [], "Hands": False, "DeckIDs": [], "CustomDeck": custom,
                                "ContainedObjects": []}
        deck = HObject(guid=data["GUID"], name="Deck", data=data, position=target.position,
                       rotation=Vec(target.rotation.x, target.rotation.y, target.rotation.z), scale=target.scale)
        deck.settled_position = deck.position
        self.objects.append(deck)
        self._into_deck(deck, target, True)
        self._into_deck(deck, obj, on_top)
        return deck

    def _into_deck(self, deck: HObject, thing: HObject, on_top: bool) -> None:
        """A card, or every card of a deck, enters ``deck`` at its top or bottom; ``onObjectEnterContainer``
        fires for each card."""
        cards = list(thing.contents) if thing.name in DECK_NAMES else [thing]
        if thing in self.objects:
            self.objects.remove(thing)
        if thing.name in DECK_NAMES:
            thing.contents = []
            thing.destroyed = True
            self._retire(thing)
        for card in cards:
            self._stow(card, deck)
        if on_top:
            deck.contents[0:0] = cards
        else:
            deck.contents.extend(cards)
        for card in cards:
            self.fire("onObjectEnterContainer", deck, card)
            self._entered(card)

    def _stow(self, obj: HObject, container: HObject) -> None:
        """``obj`` is now held by ``container``, off the table."""
        obj.container = container
        obj.held_by = None
        obj.highlight = None
        obj.motion = None
        obj.spawning_frames = 0
        obj.spawn_guid = None
        obj.on_spawned = []

    def _entered(self, obj: HObject) -> None:
        """``obj`` entered a container and ``onObjectEnterContainer`` has run: every reference scripts hold to it
        is destroyed (Fidelity.entered_objects_destroyed)."""
        if self.fidelity.entered_objects_destroyed:
            self._retire(obj)

    def _retire(self, obj: HObject) -> None:
        """Scripts' reference to ``obj`` is destroyed: a later reference (once it is out again) is a new one."""
        proxy = self.__dict__.get("_object_proxies", {}).pop(id(obj), None)
        if proxy is not None:
            proxy.retired = True

    def lua_object(self, guid: str) -> HObject | None:
        """``getObjectFromGUID``: the object on the table whose GUID scripts read is ``guid``."""
        for obj in self.objects:
            if obj.lua_guid == guid:
                return obj
        return None

    def advance(self, seconds: float) -> None:
        """Advance the simulated clock by ``seconds`` (rounded up to whole frames)."""
        self.step(max(1, math.ceil(seconds / FRAME - 1e-9)))

    def run_until(self, predicate: Callable[[], bool], *, max_seconds: float = 30.0, real_pause: float = 0.0,
                  reply_wait: float = REPLY_WAIT) -> bool:
        """Step frames until ``predicate()`` holds or ``max_seconds`` of simulated time pass.

        Before each frame, while a delivered message is still owed an answer (:attr:`ExternalEditorEndpoint.owed`)
        and none is queued, wait up to ``reply_wait`` real seconds for it: the simulated clock never outruns a live
        bridge, and never waits when nothing is expected (a stopped bridge costs no real time). ``real_pause``
        additionally waits that long for input on every frame (for peers that speak unprompted).
        Returns whether the predicate held.
        """
        for _ in range(max(1, math.ceil(max_seconds / FRAME))):
            if predicate():
                return True
            self.wait_for_peer(real_pause, reply_wait)
            self.step()
        return predicate()

    def wait_for_peer(self, real_pause: float = 0.0, reply_wait: float = REPLY_WAIT) -> None:
        """Wait in real time for an owed answer (at most ``reply_wait``), or ``real_pause`` for any input."""
        endpoint = self.endpoint
        if endpoint is None or not endpoint.inbox.empty():
            return
        if endpoint.owed > 0:
            if not endpoint.wait_for_input(reply_wait):
                endpoint.forgive()      # the peer went quiet: stop waiting on it
        elif real_pause > 0:
            endpoint.wait_for_input(real_pause)

    @property
    def settled(self) -> bool:
        """Nothing in flight: no answer owed by the peer, no message queued, no work deferred to the next frame."""
        endpoint = self.endpoint
        in_flight = endpoint is not None and (endpoint.owed > 0 or not endpoint.inbox.empty())
        return not in_flight and not self._deferred

    def _run_waits(self) -> None:
        for wait in list(self._waits):
            if wait not in self._waits:
                continue
            if wait.condition is not None:
                if self.call_lua(wait.condition):
                    self._waits.remove(wait)
                    self.call_lua(wait.fn)
                elif wait.deadline is not None and self.time >= wait.deadline - 1e-9:
                    self._waits.remove(wait)
                    if wait.timeout_fn is not None:
                        self.call_lua(wait.timeout_fn)
                continue
            due = (wait.due_frame is not None and self.frame >= wait.due_frame) or \
                  (wait.due_time is not None and self.time >= wait.due_time - 1e-9)
            if not due:
                continue
            if wait.repetitions == 1:
                self._waits.remove(wait)
            else:
                if wait.repetitions > 1:
                    wait.repetitions -= 1
                wait.due_time = self.time + wait.interval
            self.call_lua(wait.fn, wait.id)

    # ------------------------------------------------------------------ external editor API
    def _drain_inbox(self) -> None:
        if self.endpoint is None:
            return
        for _ in range(1000):
            try:
                message = self.endpoint.inbox.get_nowait()
            except queue.Empty:
                return
            self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("messageID")
        if kind == 2:
            custom = message.get("customMessage")
            if isinstance(custom, dict):
                self.fire("onExternalMessage", custom)
        elif kind == 3:
            self._execute(message)
        elif kind == 0:
            self._send_raw({"messageID": 1, "scriptStates": self._script_states()})
        elif kind == 1:
            self._save_and_play(message)
        else:
            self.errors.append(f"headless table does not emulate External Editor messageID {kind!r}")

    def _execute(self, message: dict[str, Any]) -> None:
        guid = str(message.get("guid", "-1"))
        env = self.global_env
        if guid != "-1":
            obj = self.object(guid)
            env = obj.env if obj is not None else None
        if env is None:
            self._send_raw({"messageID": 3, "guid": guid, "error": "Object reference not set to an instance of an object",
                            "errorMessagePrefix": "Error in Script: "})
            self._send_raw({"messageID": 5, "returnID": message.get("returnID")})
            return
        chunk, err = self.lua.hl.load(str(message.get("script", "")), "executeScript", env)
        reply: dict[str, Any] = {"messageID": 5, "returnID": message.get("returnID")}
        if chunk is None:
            self._send_raw({"messageID": 3, "guid": guid, "error": str(err), "errorMessagePrefix": "Error in Script: "})
        else:
            ok, result = self.lua.hl.pcall(chunk)
            if not ok:
                self._send_raw({"messageID": 3, "guid": guid, "error": str(result),
                                "errorMessagePrefix": "Error in Script: "})
            elif result is not None:
                value = self.lua.to_py(result)
                if isinstance(value, (str, int, float, bool)):
                    reply["returnValue"] = self._numbers_out(value)
        self._send_raw(reply)

    def _save_and_play(self, message: dict[str, Any]) -> None:
        """messageID 1 (Save & Play): the listed objects get the given script and UI (a missing field empties
        it, as in TTS), the game is saved and loaded again (:meth:`reload`), and the editor is told with a
        messageID 1 of its own.

        On the faithful table (Fidelity.save_and_play_discards) no ``onSave`` runs and the game reloaded is the one
        last (manually) loaded or saved (:meth:`save`, :meth:`reload`), with the scripts of this and earlier
        Save & Plays: every other change since is discarded. Without it, the table as it lies is saved first."""
        discard = self.fidelity.save_and_play_discards
        save = copy.deepcopy(self._baseline) if discard else self.save()
        targets = [save, self._baseline] if discard else [save]
        for entry in message.get("scriptStates") or []:
            if not isinstance(entry, dict):
                continue
            guid = str(entry.get("guid", ""))
            for whole in targets:
                by_guid = {str(state.get("GUID")): state for state in whole.get("ObjectStates") or []}
                target = whole if guid == "-1" else by_guid.get(guid)
                if target is None:
                    continue
                target["LuaScript"] = str(entry.get("script") or "")
                target["XmlUI"] = str(entry.get("ui") or "")
        self.reload(save)
        self._send_raw({"messageID": 1, "scriptStates": self._script_states()})

    def reload(self, save: dict[str, Any] | None = None) -> None:
        """Load ``save`` (default: :meth:`save` of this table) into this running table, as a host loading a
        save or TTS's Save & Play does: every object is laid anew with its GUID, scripts run again and
        ``onLoad`` gets the saved states. The clock, the seated players, the turn state and the editor
        connection carry on; Python references to the old objects are stale afterwards."""
        save = copy.deepcopy(save if save is not None else self.save())
        self.save_data = save
        self._baseline = copy.deepcopy(save)
        self.objects = []
        self.hand_zones = []
        self._waits = []
        self._deferred = []
        self._membership = {}
        self.__dict__.pop("_object_proxies", None)
        self.__dict__.pop("_player_proxies", None)
        self.lua = Lua()
        self.global_script = GlobalScript(self)
        self.global_env = None
        self._booted = False
        self._lay(save)
        build_api(self)
        self.boot()

    def _script_states(self) -> list[dict[str, Any]]:
        states = [{"name": "Global", "guid": "-1", "script": str(self.save_data.get("LuaScript") or ""),
                   "ui": str(self.save_data.get("XmlUI") or "")}]
        for obj in self.objects:
            if obj.script or obj.data.get("XmlUI"):
                entry = {"name": obj.nickname or obj.name, "guid": obj.guid, "script": obj.script}
                if obj.data.get("XmlUI"):
                    entry["ui"] = obj.data["XmlUI"]
                states.append(entry)
        return states

    def _send_raw(self, message: dict[str, Any]) -> bool:
        if self.endpoint is None:
            return False
        return self.endpoint.send(message)

    def send_external(self, data: dict[str, Any]) -> bool:
        """What Lua ``sendExternalMessage`` does: messageID 4 to the editor port (numbers as TTS writes them)."""
        return self._send_raw({"messageID": 4, "customMessage": self._numbers_out(json_clean(data))})

    def _numbers_out(self, value: Any) -> Any:
        """Numbers as TTS's JSON writer sends them: every number a float (``2.0``) on the faithful table."""
        if not self.fidelity.numbers_as_floats:
            return value
        return _as_floats(value)

    @property
    def sent_custom(self) -> list[dict[str, Any]]:
        """Every custom message the scripts sent (delivered or not), oldest first."""
        if self.endpoint is None:
            return []
        return [m["customMessage"] for m in self.endpoint.sent if m.get("messageID") == 4]

    def close(self) -> None:
        if self.endpoint is not None:
            self.endpoint.close()

    def __enter__(self) -> "Table":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ queries
    def object(self, guid: str) -> HObject | None:
        """The object with this GUID on the table (not inside a container)."""
        for obj in self.objects:
            if obj.guid == guid:
                return obj
        return None

    def with_tag(self, *tags: str) -> list[HObject]:
        """Objects on the table carrying all ``tags``."""
        return [o for o in self.objects if all(o.has_tag(t) for t in tags)]

    def find(self, *tags: str, **memo: Any) -> list[HObject]:
        """Objects on the table with all ``tags`` whose memo JSON has the given key/values."""
        return [o for o in self.with_tag(*tags) if all(o.memo_json().get(k) == v for k, v in memo.items())]

    def hand_zone(self, colour: str, index: int = 1) -> HandZone | None:
        zones = [z for z in self.hand_zones if z.colour == colour]
        return zones[index - 1] if 0 < index <= len(zones) else None

    def can_hold(self, zone: HandZone, obj: HObject) -> bool:
        """Whether a hand zone may hold ``obj`` at all: ``Hands: true`` and a shared tag (as the fidelity asks)."""
        if obj.name in ("HandTrigger", "ScriptingTrigger"):
            return False
        if self.fidelity.hands_need_use_hands and not obj.use_hands:
            return False
        return not self.fidelity.tags_filter or shares_tag(zone.tags, obj)

    def _hand_of(self, obj: HObject, position: Vec | None) -> str | None:
        if position is None or obj.held_by is not None or obj.spawning_frames > 0:
            return None
        for zone in self.hand_zones:
            if self.can_hold(zone, obj) and inside_box(position, zone.position, zone.rotation, zone.scale):
                return zone.colour
        return None

    def in_hand(self, obj: HObject) -> str | None:
        """The colour whose hand holds ``obj`` as it lies now, if any (what a player sees)."""
        if obj not in self.objects:
            return None
        return self._hand_of(obj, obj.position)

    def hand(self, colour: str) -> list[HObject]:
        """Objects in ``colour``'s hand as they lie now, left to right (what a player sees)."""
        return [o for o in self.objects if self.in_hand(o) == colour]

    def hand_members(self, colour: str) -> list[HObject]:
        """``Player[colour].getHandObjects()``: the hand as physics last saw it (see :class:`Fidelity`)."""
        if not self.fidelity.zones_update_per_frame:
            return self.hand(colour)
        key = ("hand", colour)
        cached = self._membership.get(key)
        if cached is None or cached[0] != self.frame:
            members = [o for o in self.objects if self._hand_of(o, o.settled_position) == colour]
            cached = (self.frame, members)
            self._membership[key] = cached
        return [o for o in cached[1] if o in self.objects and o.held_by is None]

    def hand_slot(self, colour: str, index: int = 1, arriving: int = 0) -> Vec:
        """A free position in ``colour``'s hand zone (objects spread along the zone's width); ``arriving``
        counts objects already on their way into it."""
        zone = self.hand_zone(colour, index)
        if zone is None:
            raise HeadlessError(f"no hand zone for {colour} in this save")
        count = len(self.hand(colour)) + arriving
        x = -0.4 + 0.8 * ((count * 0.137) % 1.0)
        return position_to_world(Vec(x, 0.0, 0.0), zone.position, zone.rotation, zone.scale)

    def before_hand(self, colour: str, index: int = 1, arriving: int = 0) -> Vec:
        """Where a dealt object that no hand may hold comes to rest: on the table just in front of the hand
        zone (towards the table's centre), face up for everyone to see."""
        zone = self.hand_zone(colour, index)
        if zone is None:
            raise HeadlessError(f"no hand zone for {colour} in this save")
        x = -0.4 + 0.8 * ((arriving * 0.137) % 1.0)
        local = Vec(x, -0.5 + 0.5 / max(zone.scale.y, 1e-6), 0.5 + 1.0 / max(zone.scale.z, 1e-6))
        return position_to_world(local, zone.position, zone.rotation, zone.scale)

    def deal(self, container: HObject, number: int, colour: str, index: int = 1) -> None:
        """``deal``: the top ``number`` objects travel from ``container`` into ``colour``'s hand zone ``index``.
        An object the hand may not hold (``Hands: false``) lands in front of the hand instead (API docs, deal:
        "If dealing an individual item to a hand zone, it is a good idea to make sure that its Member Variable
        for use_hands is true")."""
        zone = self.hand_zone(colour, index)
        if zone is None:
            raise HeadlessError(f"no hand zone for {colour} in this save")
        for n in range(number):
            if not container.contents or container.destroyed or container not in self.objects:
                break
            top = container.contents[0]
            target = (self.hand_slot(colour, index, n) if self.can_hold(zone, top)
                      else self.before_hand(colour, index, n))
            obj = self.take_out(container, position=target, rotation=Vec(0.0, zone.rotation.y + 180.0, 0.0))
            self.move_smoothly(obj, position=target, start=container.position + Vec(0, 1, 0))

    def when_spawned(self, obj: HObject, callback: Any) -> None:
        """Run a Lua callback with ``obj`` once it has finished spawning (the next frame at the earliest)."""
        if obj.spawning_frames > 0:
            obj.on_spawned.append(callback)
        else:
            self.defer(lambda: self.call_lua(callback, obj))

    def _zone_holds(self, zone: HObject, obj: HObject, position: Vec | None) -> bool:
        return (position is not None and obj is not zone and obj.name not in ("ScriptingTrigger", "HandTrigger")
                and obj.spawning_frames == 0 and (not self.fidelity.tags_filter or shares_tag(zone.tags, obj))
                and inside_box(position, zone.position, zone.rotation, zone.scale))

    def in_zone(self, zone: HObject) -> list[HObject]:
        """Objects on the table inside a scripting zone's box as they lie now (what a player sees)."""
        return [o for o in self.objects if self._zone_holds(zone, o, o.position)]

    def zone_members(self, zone: HObject) -> list[HObject]:
        """A scripting zone's ``getObjects()``: its contents as physics last saw them (see :class:`Fidelity`)."""
        if not self.fidelity.zones_update_per_frame:
            return self.in_zone(zone)
        cached = self._membership.get(id(zone))
        if cached is None or cached[0] != self.frame:
            cached = (self.frame, [o for o in self.objects if self._zone_holds(zone, o, o.settled_position)])
            self._membership[id(zone)] = cached
        return [o for o in cached[1] if o in self.objects]

    def ui_element(self, element_id: str) -> UIElement:
        if element_id not in self.ui:
            raise HeadlessError(f"no XmlUI element with id {element_id!r}")
        return self.ui[element_id]

    def ui_value(self, element_id: str) -> str:
        return self.ui_element(element_id).value

    def ui_attribute(self, element_id: str, name: str) -> str | None:
        return self.ui_element(element_id).attributes.get(name)

    def ui_visible(self, element_id: str, colour: str | None = None) -> bool:
        """Whether the element is shown (it and every ancestor active) — to ``colour`` if given."""
        el: UIElement | None = self.ui_element(element_id)
        while el is not None:
            if el.attributes.get("active", "true").lower() == "false":
                return False
            vis = el.attributes.get("visibility", "")
            if colour is not None and vis and colour not in vis.split("|"):
                return False
            el = el.parent
        return True

    # ------------------------------------------------------------------ players
    def seat(self, *colours: str) -> None:
        """Seat players (TTS colours); ``getSeatedPlayers`` lists them in TTS's colour order. Once the scripts
        run, each new player's colour fires ``onPlayerChangeColor`` (see Fidelity.player_colour_events)."""
        for c in colours:
            if c not in PLAYER_COLOURS:
                raise HeadlessError(f"{c!r} is not a TTS player colour")
            if c not in self.seated:
                self.seated.append(c)
                self.seated.sort(key=PLAYER_COLOURS.index)
                self._colour_changed(c)

    def unseat(self, colour: str) -> None:
        """The player at ``colour`` leaves the game: ``onPlayerChangeColor("Grey")``."""
        if colour not in self.seated:
            raise HeadlessError(f"nobody sits at {colour}")
        self.seated.remove(colour)
        self._colour_changed("Grey")

    def change_colour(self, old: str, new: str) -> None:
        """The player at ``old`` moves to the free colour ``new``: ``onPlayerChangeColor(new)``."""
        if old not in self.seated:
            raise HeadlessError(f"nobody sits at {old}")
        if new not in PLAYER_COLOURS or new in self.seated:
            raise HeadlessError(f"{new!r} is not a free TTS player colour")
        self.seated.remove(old)
        self.seated.append(new)
        self.seated.sort(key=PLAYER_COLOURS.index)
        self._colour_changed(new)

    def _colour_changed(self, colour: str) -> None:
        if self._booted and self.fidelity.player_colour_events:
            self.fire("onPlayerChangeColor", colour)

    def click(self, element_id: str, colour: str, value: str = "-1") -> None:
        """A player clicks an XmlUI element: its ``onClick`` Global function gets (player, value, id)."""
        el = self.ui_element(element_id)
        if not self.ui_visible(element_id, colour):
            raise HeadlessError(f"{colour} cannot see {element_id!r}")
        if el.attributes.get("interactable", "true").lower() == "false":
            raise HeadlessError(f"{element_id!r} is not interactable")
        handler = el.attributes.get("onClick")
        if not handler:
            raise HeadlessError(f"{element_id!r} has no onClick")
        if "/" in handler:
            raise Unemulated("XmlUI onClick on an object script")
        self._event(self.global_env, handler, PlayerProxy(self, colour), value, element_id)
        self.step()

    def take(self, container: HObject, colour: str, *, guid: str | None = None, index: int = 0) -> HObject:
        """A player drags an object out of a container; it is then held by ``colour``."""
        obj = self.take_out(container, guid=guid, index=index, position=container.position + Vec(0, 2, 0))
        obj.held_by = colour
        self.fire("onObjectPickUp", colour, obj)
        return obj

    def pick_up(self, obj: HObject, colour: str) -> HObject:
        """A player picks up an object on the table or in a hand."""
        self._require_on_table(obj)
        obj.held_by = colour
        self.fire("onObjectPickUp", colour, obj)
        return obj

    def drop(self, obj: HObject, colour: str, position: Vec | None = None,
             snap: tuple[HObject, int] | None = None) -> None:
        """A player lets go of a held object aiming at ``position``, or at attached snap point
        ``snap=(host, index)``.

        As in TTS (see :class:`Fidelity`): the object lands up to ``drop_scatter`` from the aimed point; it comes
        to rest on the nearest snap point within ``snap_radius`` that it may use (a tagged point only attracts
        objects sharing a tag), else where it landed; ``onObjectDrop`` fires at the release, while the object is
        still in the air above the landing point, and the fall takes ``drop_fall_frames``."""
        self._require_on_table(obj)
        if obj.held_by != colour:
            raise HeadlessError(f"{colour} is not holding {obj!r}")
        if snap is not None:
            host, index = snap
            aim = host.snap_world(index) + Vec(0, REST_HEIGHT, 0)
        else:
            aim = position if position is not None else obj.position
        fid = self.fidelity
        landing = aim
        if fid.drop_scatter > 0:
            angle = self.scatter_random.uniform(0.0, 2 * math.pi)
            radius = fid.drop_scatter * math.sqrt(self.scatter_random.random())
            landing = Vec(aim.x + radius * math.cos(angle), aim.y, aim.z + radius * math.sin(angle))
        rest = landing
        point = self.snap_point_near(obj, landing)
        if point is not None:
            rest = point + Vec(0, REST_HEIGHT, 0)
        obj.held_by = None
        obj.motion = None
        if fid.drop_fall_frames > 0:
            obj.position = Vec(landing.x, rest.y + FALL_HEIGHT, landing.z)
            obj.motion = Motion("fall", obj.position, rest, None, self.frame, fid.drop_fall_frames, cause="drop")
        else:
            obj.position = rest
        self.fire("onObjectDrop", colour, obj)
        if obj.env is not None:
            self._event(obj.env, "onDrop", colour)
        if obj.motion is None:
            self._landed(obj, "drop")
        self.step()

    def snap_point_near(self, obj: HObject, p: Vec) -> Vec | None:
        """World position of the snap point ``obj`` comes to rest on when dropped at ``p``: the nearest one
        within ``snap_radius`` (horizontally) whose tags allow it, on any other object or the table."""
        radius = self.fidelity.snap_radius
        if radius <= 0 or not obj.data.get("Snap", True):
            return None
        best, best_d = None, radius
        candidates: list[tuple[Vec, list[str]]] = []
        for host in self.objects:
            if host is obj or host.held_by is not None or not host.snap_points:
                continue
            for i, sp in enumerate(host.snap_points):
                candidates.append((host.snap_world(i), sp.tags))
        for sp in self.save_data.get("SnapPoints") or []:
            pos = sp.get("Position") or {}
            candidates.append((Vec(float(pos.get("x", 0)), float(pos.get("y", 0)), float(pos.get("z", 0))),
                               list(sp.get("Tags") or [])))
        for where, tags in candidates:
            if self.fidelity.tags_filter and not shares_tag(tags, obj):
                continue
            d = math.hypot(where.x - p.x, where.z - p.z)
            if d <= best_d:
                best, best_d = where, d
        return best

    # ------------------------------------------------------------------ moving objects (shared with Lua)
    def smooth_frames(self) -> int:
        return max(0, math.ceil(self.fidelity.smooth_move_seconds / FRAME - 1e-9))

    def move_smoothly(self, obj: HObject, position: Vec | None = None, rotation: Vec | None = None,
                      start: Vec | None = None) -> None:
        """``setPositionSmooth``/``setRotationSmooth``: the object travels for ``smooth_move_seconds``
        (``isSmoothMoving()`` meanwhile); a rotation is applied on arrival. Instant on the idealised table."""
        frames = self.smooth_frames()
        if start is not None:
            obj.position = start
        if frames == 0:
            if position is not None:
                obj.position = position
            if rotation is not None:
                obj.rotation = rotation
            obj.motion = None
            return
        current = obj.motion
        if position is None:
            position = current.end if current is not None and current.end is not None else obj.position
        if rotation is None and current is not None:
            rotation = current.rotation
        obj.motion = Motion("smooth", obj.position, position, rotation, self.frame, frames)

    def teleport(self, obj: HObject, position: Vec | None = None, rotation: Vec | None = None) -> None:
        """``setPosition``/``setRotation``: at once; it ends the matching part of a move in progress."""
        motion = obj.motion
        if position is not None:
            obj.position = position
            if motion is not None:
                motion.end = None
        if rotation is not None:
            obj.rotation = rotation
            if motion is not None:
                motion.rotation = None
        if motion is not None and motion.end is None and motion.rotation is None:
            obj.motion = None

    def drop_into(self, obj: HObject, container: HObject, colour: str) -> None:
        """A player drops a held object onto a container: it enters the container (a card dropped on a deck:
        on top, Fidelity.cards_merge)."""
        self._require_on_table(obj)
        obj.held_by = None
        if self.fidelity.cards_merge and stackable(container) and stackable(obj):
            self.combine(obj, container, on_top=True)
        else:
            self.put_into(container, obj)
        self.step()

    def end_turn(self, colour: str) -> None:
        """A player presses TTS's own "end turn": the next colour in the turn order gets the turn."""
        if self.fidelity.turn_events_need_enable and not self.turns.get("enable"):
            raise HeadlessError("Turns are not enabled: there is no End Turn to press")
        order = self.turn_order()
        if not order or self.turns.get("turn_color") != colour:
            raise HeadlessError(f"it is not {colour}'s turn")
        nxt = order[(order.index(colour) + 1) % len(order)]
        self.set_turn(nxt)
        self.step()

    def turn_order(self) -> list[str]:
        """The seated colours in turn order: ``Turns.order`` (custom type 2, or any type on a table without
        Fidelity.turn_order_needs_custom_type), else the seats' own order."""
        custom = self.turns.get("type") == 2 or not self.fidelity.turn_order_needs_custom_type
        order = (self.turns.get("order") or self.seated) if custom else self.seated
        return [c for c in order if c in self.seated]

    def set_turn(self, colour: str) -> None:
        """``Turns.turn_color = colour``: only a seated colour takes the turn (Fidelity.turn_color_seated_only);
        ``onPlayerTurn`` fires the next frame, while Turns are enabled (Fidelity.turn_events_need_enable)."""
        if self.fidelity.turn_color_seated_only and colour not in self.seated:
            return
        previous = self.turns.get("turn_color") or ""
        self.turns["turn_color"] = colour
        if previous != colour and (self.turns.get("enable") or not self.fidelity.turn_events_need_enable):
            self.defer(lambda: self.fire("onPlayerTurn", PlayerProxy(self, colour),
                                         PlayerProxy(self, previous) if previous else None))

    # ------------------------------------------------------------------ object operations (shared with Lua)
    def _require_on_table(self, obj: HObject) -> None:
        if obj.destroyed or obj not in self.objects:
            raise HeadlessError(f"{obj!r} is not on the table")

    def take_out(self, container: HObject, *, guid: str | None = None, index: int | None = 0,
                 top: bool = True, position: Vec | None = None, rotation: Vec | None = None,
                 flip: bool = False) -> HObject:
        """Remove one object from a container onto the table (``takeObject`` semantics)."""
        self._require_on_table(container)
        if not container.contents:
            raise HeadlessError(f"{container!r} is empty")
        if guid is not None:
            matches = [o for o in container.contents if o.guid == guid]
            if not matches:
                raise HeadlessError(f"no object {guid} in {container!r}")
            obj = matches[0]
        elif index is not None and index != 0:
            if not 0 <= index < len(container.contents):
                raise HeadlessError(f"index {index} out of range in {container!r}")
            obj = container.contents[index]
        else:
            obj = container.contents[0] if top else container.contents[-1]
        fid = self.fidelity
        container.contents.remove(obj)
        obj.container = None
        obj.settled_position = None         # physics has not seen it yet
        obj.spawning_frames = fid.spawn_frames
        if fid.guid_final_after_spawn and obj.spawning_frames > 0:
            obj.spawn_guid = self.new_guid()
        # takeObject's defaults: 2 units along x; flip only from a deck and never with a rotation
        offset = Vec(2, 0, 0) if fid.take_object_defaults else Vec(0, 2, 0)
        obj.position = position if position is not None else container.position + offset
        obj.rotation = rotation if rotation is not None else Vec(container.rotation.x, container.rotation.y,
                                                                  container.rotation.z)
        if flip and fid.take_object_defaults and (rotation is not None or container.name not in DECK_NAMES):
            flip = False
        if flip:
            obj.rotation = Vec(obj.rotation.x, obj.rotation.y, (obj.rotation.z + 180.0) % 360.0)
        self.objects.append(obj)
        self.fire("onObjectLeaveContainer", container, obj)
        if container.name in DECK_NAMES and len(container.contents) == 1:
            last = container.contents.pop()
            last.container = None
            last.position, last.rotation = container.position, container.rotation
            last.settled_position = None
            last.spawning_frames = fid.spawn_frames   # the remainder spawns in the deck's place
            if fid.guid_final_after_spawn and last.spawning_frames > 0:
                last.spawn_guid = self.new_guid()
            self.objects.append(last)
            container.remainder = last
            self.destroy(container)
        return obj

    def put_into(self, container: HObject, obj: HObject) -> HObject:
        """Put a table object into a container (``putObject`` / a drop onto a bag); returns the container, or the
        deck formed. On the faithful table (Fidelity.cards_merge) a card put onto a card forms a deck, and a card
        goes to the end of a deck nearest it in height (above it: the top; else the bottom)."""
        self._require_on_table(container)
        self._require_on_table(obj)
        if obj is container:
            raise HeadlessError("an object cannot enter itself")
        if self.fidelity.cards_merge and stackable(container) and stackable(obj):
            return self.combine(obj, container, on_top=obj.position.y > container.position.y + 1e-6)
        self.objects.remove(obj)
        self._stow(obj, container)
        if container.name in DECK_NAMES:
            container.contents.append(obj)
        else:
            container.contents.insert(0, obj)
        self.fire("onObjectEnterContainer", container, obj)
        self._entered(obj)
        return container

    def destroy(self, obj: HObject) -> None:
        if obj in self.objects:
            self.fire("onObjectDestroy", obj)
            self.objects.remove(obj)
        obj.destroyed = True

    # ------------------------------------------------------------------ saving
    def save(self) -> dict[str, Any]:
        """The table as a save: objects as they lie now, ``onSave()`` results as script states."""
        save = dict(self.save_data)
        state = self._event(self.global_env, "onSave") if self._booted else None
        save["LuaScriptState"] = state if isinstance(state, str) else str(self.save_data.get("LuaScriptState") or "")
        save["ObjectStates"] = [o.to_state() for o in self.objects]
        self._baseline = copy.deepcopy(save)     # a manual save: what Save & Play reloads from now on
        return save


def stackable(obj: HObject) -> bool:
    """A card or a deck: what combines into decks."""
    return obj.name in CARD_NAMES or obj.name in DECK_NAMES


def same_size(a: HObject, b: HObject) -> bool:
    """Cards of one size (their scale on the table): only these combine."""
    return abs(a.scale.x - b.scale.x) < 1e-3 and abs(a.scale.z - b.scale.z) < 1e-3


def _as_floats(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {k: _as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_floats(v) for v in value]
    return value


def objects_named(objs: Iterable[HObject], name: str) -> list[HObject]:
    return [o for o in objs if o.name == name]


def wait_real(seconds: float) -> None:
    """Sleep real time (for tests waiting on a process); bounded by the caller."""
    real_time.sleep(seconds)
