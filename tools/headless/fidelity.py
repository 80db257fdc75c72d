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

    # -- issue #24: merging, containers, resting, turns, Save & Play, seats, spawns, takeObject, the editor port
    #: Same-size cards combine: a card a player drops onto a card forms a deck with it (the dropped card on top),
    #: a card dropped onto a deck joins it on top, and ``putObject`` of a card onto a card forms a deck; a card
    #: put into a deck goes to the end nearest it in height — API docs, putObject: "If neither Object is a
    #: container, but they are able to be combined (like with 2 cards), then they form a deck/stack", and its
    #: "Putting Cards into Decks" note.
    cards_merge: bool = True
    #: An object a player drops onto a bag enters it (``onObjectEnterContainer``) — API docs,
    #: onObjectEnterContainer: "Called when an object enters a container".
    drops_enter_containers: bool = True
    #: An object taken out of a container that spawns lying on a bag, a deck or a same-size card enters it (or
    #: forms a deck) the frame after it has spawned — API docs, takeObject's advanced example: waiting a frame
    #: "has given the object time to enter another container, if it spawned on one".
    spawns_enter_containers: bool = True
    #: A smooth move that ends on a bag, a deck or a same-size card enters it once the object has fallen. The
    #: docs are silent (setPositionSmooth only says "Moves the Object smoothly"): the harsher choice.
    smooth_moves_merge: bool = True
    #: Whatever enters a container (a drop, ``putObject``, a merge) is destroyed: its reference reports
    #: ``isDestroyed()``, and what is taken out later is a new object — API docs, takeObject's example: "we must
    #: confirm the object is not destroyed".
    entered_objects_destroyed: bool = True
    #: ``resting`` is false on a destroyed object and while an object falls after a smooth move (it is not at
    #: rest until it has landed) — API docs, ``resting``: "If the Object is at rest"; the Wait.condition
    #: examples test ``isDestroyed() or resting``.
    resting_needs_rest: bool = True
    #: ``Turns.turn_color`` takes only a seated player's colour; any other is ignored — API docs, Turns
    #: ``turn_color``: "The color of the Player whose turn it is" (the docs do not say what another colour does:
    #: ignoring it is the harsher choice).
    turn_color_seated_only: bool = True
    #: ``onPlayerTurn`` fires only while Turns are enabled, and a player's End Turn needs them — API docs,
    #: onPlayerTurn: "Turns must be enabled."
    turn_events_need_enable: bool = True
    #: ``Turns.order`` is the turn order only with ``Turns.type`` 2 (custom); with 1 (automatic) the turn goes
    #: round the seated colours in their seat order — API docs, Turns ``type``: "1=auto, 2=custom"; Knowledge
    #: Base, Turns: the order applies "If Custom Type is selected".
    turn_order_needs_custom_type: bool = True
    #: Save & Play (editor messageID 1) runs no ``onSave`` and reloads the game as it was last (manually) loaded
    #: or saved, with the new scripts: every other change since is discarded — API docs, onSave: Save & Play
    #: "does not trigger the save event" and reloads "discarding any non-scripting changes".
    save_and_play_discards: bool = True
    #: ``onPlayerChangeColor`` fires when a player sits down (:meth:`Table.seat`), changes colour
    #: (:meth:`Table.change_colour`) or leaves (:meth:`Table.unseat`: ``"Grey"``) — API docs, onPlayerChangeColor:
    #: "Called when a player changes color or selects it for the first time. It also returns "Grey" if they
    #: disconnect."
    player_colour_events: bool = True
    #: A spawning object's GUID is provisional: it becomes final (the one it had in the container, or a new one
    #: if that GUID is already on the table) once ``spawning`` is false — API docs, ``guid``: "It is assigned
    #: correctly once the spawning member variable becomes false".
    guid_final_after_spawn: bool = True
    #: A smooth move (physics) of a spawning object starts only once it has spawned — API docs, takeObject:
    #: "Certain interactions (e.g. physics) will not be able to take place until the object has finished
    #: spawning."
    physics_waits_for_spawn: bool = True
    #: ``takeObject`` without a position puts the object 2 units along x from the container; ``flip`` is used
    #: only with decks and ignored when a rotation is given — API docs, takeObject: "defaults to container's
    #: position + 2 on the x axis", "Only used with decks", "If rotation is used, flip's Bool will be ignored."
    take_object_defaults: bool = True
    #: Every ``print()`` goes to the editor port as messageID 2 and every Lua error as messageID 3 — API docs,
    #: External Editor API: "TTS sends all print() messages to Atom" and "TTS sends all Lua error messages".
    editor_gets_prints_and_errors: bool = True

    @classmethod
    def faithful(cls) -> "Fidelity":
        """What TTS does (the default of :class:`~tools.headless.table.Table`)."""
        return cls()

    @classmethod
    def ideal(cls) -> "Fidelity":
        """The fast, idealised table: integers stay integers, membership is computed on read, every object may
        enter hands and snap anywhere, moves, spawns and falls are instant; nothing merges or enters a container
        by itself, turns take any colour and order, Save & Play keeps the table as it lies, no seat events, GUIDs
        final at once, nothing sent to the editor but what the scripts send."""
        return cls(numbers_as_floats=False, zones_update_per_frame=False, hands_need_use_hands=False,
                   tags_filter=False, smooth_move_seconds=0.0, spawn_frames=0, drop_fall_frames=0,
                   drop_scatter=0.0, snap_radius=0.5, cards_merge=False, drops_enter_containers=False,
                   spawns_enter_containers=False, smooth_moves_merge=False, entered_objects_destroyed=False,
                   resting_needs_rest=False, turn_color_seated_only=False, turn_events_need_enable=False,
                   turn_order_needs_custom_type=False, save_and_play_discards=False, player_colour_events=False,
                   guid_final_after_spawn=False, physics_waits_for_spawn=False, take_object_defaults=False,
                   editor_gets_prints_and_errors=False)

    @classmethod
    def slow(cls) -> "Fidelity":
        """A slow, clumsy table: one-second moves, drops landing up to 0.45 units off the aimed point and a
        small snap radius, so that some drops rest off their point and the mod's position tolerance counts."""
        return cls(smooth_move_seconds=1.0, spawn_frames=4, drop_fall_frames=12, drop_scatter=0.45,
                   snap_radius=0.25)
