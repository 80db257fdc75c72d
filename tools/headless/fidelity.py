"""How closely the headless table follows real Tabletop Simulator.

A mod is only done when it works in the real game, so the table behaves like TTS by default
(:meth:`Fidelity.faithful`): each switch below names the TTS behaviour it follows and the sentence of the
official API docs or Knowledge Base it rests on (also listed in ``docs/headless.md``). :meth:`Fidelity.ideal`
restores the fast, idealised table for unit tests that check something else; :meth:`Fidelity.slow` is a harsher
table (long moves, drops that land off the point) the end-to-end games also pass on.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fidelity:
    """Switches of the stand-in; the defaults are what TTS does."""

    #: TTS's JSON writer sends every number as a float (``2.0``) in the messages it sends to the editor
    #: (custom messages, messageID 4, and Execute Lua results, messageID 5) — tts-facts.md, the spike against TTS.
    numbers_as_floats: bool = True
    #: Zone and hand membership is updated by physics once per frame, not when a script asks: a zone read in the
    #: frame an object moved still sees the old contents.
    zones_update_per_frame: bool = True
    #: Only objects whose ``use_hands`` (save ``"Hands"``) is true are held in a hand zone, by a drop or by
    #: ``deal`` — API docs, Object ``use_hands``: "If this object can be held in a hand zone".
    hands_need_use_hands: bool = True
    #: A zone, hand zone or snap point with tags interacts only with objects sharing one of them — Knowledge Base,
    #: Object Tags: "If the feature has one or more tags, then it will interact only with objects which share at
    #: least one of those tags."
    tags_filter: bool = True
    #: How long ``setPositionSmooth``/``setRotationSmooth`` (and smooth ``takeObject``/``deal``) take; while they
    #: last, ``isSmoothMoving()`` is true and ``getPosition()`` returns a point on the way.
    smooth_move_seconds: float = 0.5
    #: Frames an object taken out of a container (or a deck's remainder) spends spawning before its callback
    #: runs — API docs, takeObject: "Objects that are taken out of a container will take one or more frames to
    #: spawn."
    spawn_frames: int = 2
    #: Frames a dropped object falls before it rests: ``onObjectDrop`` fires at the release, while the object is
    #: still in the air above where the player let go (before any snap).
    drop_fall_frames: int = 6
    #: A scripted player's drop lands up to this far (table units, horizontally) from the point aimed at;
    #: seeded by the table's seed.
    drop_scatter: float = 0.0
    #: A dropped object within this distance of a snap point it may use comes to rest on it (the nearest one).
    snap_radius: float = 0.5

    @classmethod
    def faithful(cls) -> "Fidelity":
        """What TTS does (the default of :class:`~tools.headless.table.Table`)."""
        return cls()

    @classmethod
    def ideal(cls) -> "Fidelity":
        """The fast, idealised table: integers stay integers, membership is computed on read, every object may
        enter hands and snap anywhere, moves, spawns and falls are instant."""
        return cls(numbers_as_floats=False, zones_update_per_frame=False, hands_need_use_hands=False,
                   tags_filter=False, smooth_move_seconds=0.0, spawn_frames=0, drop_fall_frames=0,
                   drop_scatter=0.0, snap_radius=0.5)

    @classmethod
    def slow(cls) -> "Fidelity":
        """A slow, clumsy table: one-second moves, drops landing up to 0.45 units off the aimed point and a
        small snap radius, so that some drops rest off their point and the mod's position tolerance counts."""
        return cls(smooth_move_seconds=1.0, spawn_frames=4, drop_fall_frames=12, drop_scatter=0.45,
                   snap_radius=0.25)
