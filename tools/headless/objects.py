"""Objects of the headless table, built from save-format object states.

An :class:`HObject` keeps what the mod can observe of a TTS object: GUID, ``Name``, nickname, description,
tags, memo, transform, its script, the contents of a container (as HObjects that are not on the table),
attached snap points, and for zones the box they cover. ``data`` keeps the original save entry, so a
container's contents can be listed the way ``getObjects()`` lists them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from tools.headless.geometry import Vec, is_face_down, position_to_world

CONTAINER_NAMES = {"Bag", "Deck", "DeckCustom", "Infinite_Bag", "Custom_Model_Bag", "Custom_Model_Infinite_Bag",
                   "Custom_Assetbundle_Bag", "Custom_Assetbundle_Infinite_Bag"}

# obj.type as TTS reports it, for the Name values the built-in games' tables and the reference saves use.
TYPE_BY_NAME = {
    "Bag": "Bag", "Custom_Model_Bag": "Bag", "Infinite_Bag": "Infinite", "Custom_Model_Infinite_Bag": "Infinite",
    "Deck": "Deck", "DeckCustom": "Deck", "Card": "Card", "CardCustom": "Card",
    "Custom_Board": "Board", "Custom_Tile": "Tile", "Custom_Token": "Tile", "ScriptingTrigger": "Scripting",
    "HandTrigger": "Hand", "Custom_Model": "Generic", "3DText": "3D Text", "Notecard": "Notecard",
    "Counter": "Counter", "Custom_PDF": "Generic", "Custom_Assetbundle": "Generic",
}


@dataclass
class SnapPoint:
    """An attached snap point: local position, rotation and tags, as in ``AttachedSnapPoints``."""

    position: Vec
    rotation: Vec
    rotation_snap: bool
    tags: list[str]


def _vec(d: dict | None, keys: tuple[str, str, str] = ("x", "y", "z"), default: float = 0.0) -> Vec:
    d = d or {}
    return Vec(*(float(d.get(k, default)) for k in keys))


@dataclass
class Motion:
    """An object on its way: a smooth move (``isSmoothMoving``) or the fall after a drop.

    The position goes in a straight line from ``start`` to ``end`` over ``frames`` frames from ``first_frame``;
    ``rotation`` (when set) is applied on arrival. ``end`` is None once a script has set the position outright
    (``setPosition`` during a smooth move teleports the object; only a pending rotation is left)."""

    kind: str                      # "smooth" or "fall"
    start: Vec
    end: Vec | None
    rotation: Vec | None
    first_frame: int
    frames: int
    cause: str = ""                # a fall: "drop" (a player let go) or "settle" (after a smooth move)

    def position_at(self, frame: int) -> Vec:
        assert self.end is not None
        t = min(1.0, max(0.0, (frame - self.first_frame) / self.frames)) if self.frames > 0 else 1.0
        return Vec(self.start.x + (self.end.x - self.start.x) * t, self.start.y + (self.end.y - self.start.y) * t,
                   self.start.z + (self.end.z - self.start.z) * t)

    def done(self, frame: int) -> bool:
        return frame - self.first_frame >= self.frames


@dataclass(eq=False)
class HObject:
    guid: str
    name: str
    data: dict[str, Any]
    position: Vec = field(default_factory=Vec)
    rotation: Vec = field(default_factory=Vec)
    scale: Vec = field(default_factory=lambda: Vec(1.0, 1.0, 1.0))
    contents: list["HObject"] = field(default_factory=list)
    snap_points: list[SnapPoint] = field(default_factory=list)
    container: "HObject | None" = None      # the container holding it, when not on the table
    destroyed: bool = False
    held_by: str | None = None               # colour of the player holding it
    highlight: str | None = None             # colour of the highlight, None when off
    locked: bool = False
    motion: Motion | None = None             # a smooth move or a fall in progress
    spawning_frames: int = 0                 # frames left until it has finished spawning
    on_spawned: list[Any] = field(default_factory=list)   # callbacks to run once it has spawned
    settled_position: Vec | None = None      # where physics last saw it (zone membership reads this)
    env: Any = None                          # the Lua environment of its script, if it has one
    spawn_guid: str | None = None            # the provisional GUID scripts read while it spawns
    remainder: "HObject | None" = None       # a dissolved deck's last card (``remainder``)

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "HObject":
        t = state.get("Transform") or {}
        obj = cls(
            guid=str(state.get("GUID", "")),
            name=str(state.get("Name", "")),
            data=state,
            position=_vec(t, ("posX", "posY", "posZ")),
            rotation=_vec(t, ("rotX", "rotY", "rotZ")),
            scale=_vec(t, ("scaleX", "scaleY", "scaleZ"), 1.0),
            locked=bool(state.get("Locked", False)),
        )
        for sp in state.get("AttachedSnapPoints") or []:
            obj.snap_points.append(SnapPoint(_vec(sp.get("Position")), _vec(sp.get("Rotation")),
                                             "Rotation" in sp, list(sp.get("Tags") or [])))
        for child in state.get("ContainedObjects") or []:
            inner = cls.from_state(child)
            inner.container = obj
            obj.contents.append(inner)
        return obj

    # -- what scripts read -------------------------------------------------------------------
    @property
    def nickname(self) -> str:
        return str(self.data.get("Nickname", ""))

    @property
    def description(self) -> str:
        return str(self.data.get("Description", ""))

    @property
    def memo(self) -> str | None:
        return self.data.get("Memo")

    @property
    def tags(self) -> list[str]:
        return list(self.data.get("Tags") or [])

    @property
    def script(self) -> str:
        return str(self.data.get("LuaScript") or "")

    @property
    def type(self) -> str:
        return TYPE_BY_NAME.get(self.name, "Generic")

    @property
    def lua_guid(self) -> str:
        """The GUID scripts read: provisional while it spawns (see Fidelity.guid_final_after_spawn)."""
        return self.spawn_guid if self.spawn_guid is not None else self.guid

    @property
    def is_container(self) -> bool:
        return self.name in CONTAINER_NAMES

    @property
    def face_down(self) -> bool:
        return is_face_down(self.rotation)

    @property
    def use_hands(self) -> bool:
        """Whether it may be held in a hand zone (save ``"Hands"``; TTS's default is false but for cards)."""
        return bool(self.data.get("Hands", self.name in ("Card", "CardCustom")))

    @property
    def smooth_moving(self) -> bool:
        return self.motion is not None and self.motion.kind == "smooth"

    @property
    def in_motion(self) -> bool:
        """Moving (smoothly or falling) or still spawning: not at rest."""
        return self.motion is not None or self.spawning_frames > 0

    def has_tag(self, tag: str) -> bool:
        return tag in (self.data.get("Tags") or ())   # not a copy of the list: asked of every object each frame

    def snap_world(self, index: int) -> Vec:
        """World position of attached snap point ``index``."""
        return position_to_world(self.snap_points[index].position, self.position, self.rotation, self.scale)

    def memo_json(self) -> dict:
        """The memo decoded as JSON ({} when absent or not JSON) — a convenience for tests."""
        import json

        try:
            value = json.loads(self.memo or "")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def to_state(self) -> dict[str, Any]:
        """This object as a save entry, with its current transform and contents."""
        state = copy.deepcopy({k: v for k, v in self.data.items() if k != "ContainedObjects"})
        state["Transform"] = {
            "posX": self.position.x, "posY": self.position.y, "posZ": self.position.z,
            "rotX": self.rotation.x, "rotY": self.rotation.y, "rotZ": self.rotation.z,
            "scaleX": self.scale.x, "scaleY": self.scale.y, "scaleZ": self.scale.z,
        }
        state["Locked"] = self.locked
        if self.is_container or self.contents:
            state["ContainedObjects"] = [c.to_state() for c in self.contents]
        if self.name in ("Deck", "DeckCustom") and all("CardID" in c.data for c in self.contents):
            state["DeckIDs"] = [c.data["CardID"] for c in self.contents]
        return state

    def __repr__(self) -> str:
        return f"<HObject {self.guid} {self.name} {self.tags}>"
