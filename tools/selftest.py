"""``ttsmod selftest``: probes run in a live Tabletop Simulator game, compared with what the mod assumes.

A game's mod and the headless table (``tools/headless/``) rest on beliefs about TTS that only the real game
can confirm: how numbers and nulls travel in custom messages, whether a dealt piece is held in a hand, when a
scripting zone sees an object that moved, which snap points a piece may use, how long a smooth move takes,
whether GUIDs survive a reload. Which objects the probes use is the game's own data: the ``[selftest]`` table
of its ``game.toml`` (:class:`SelftestTargets`); the running game names itself through the ``MOD_GAME``
global its mod sets. Each :class:`Probe` runs Lua in the game through the bridge's Execute
Lua link (``bridge.session.Session.execute``); probes that must wait frames report back with
``sendExternalMessage`` in the ttsmod envelope to the ``ttsmod-selftest`` service of the selftest's own bridge,
whose reply travels back to Lua, so numbers and nulls are observed in both directions.

Contract:

* :func:`selftest_registry` is the registry the selftest's bridge serves: every game of the normal bridge (the
  mod keeps its link while the selftest runs) plus :data:`SELFTEST_GAME`.
* :func:`run_selftest` runs the probes in :data:`PROBES` order on a started session and returns a
  :class:`SelftestReport`; every probe ends as ``pass``, ``differs``, ``could not run`` (with the reason) or
  ``skipped`` — a probe never raises. Only a game that cannot be reached at all raises
  (:class:`bridge.session.TtsNotRunning`, :class:`bridge.session.TtsTimeout`, :class:`SelftestError`).
* Every probe leaves the table as it was: potions go back to their bag, moved objects back to where they lay,
  the Lua hook the message probe installs is removed. The reload probe reloads the game (Save & Play with
  the scripts TTS already has), so it runs last.
* The judging half of each probe (``judge``) is a pure function of the observation, so what counts as a
  difference is testable without a game.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import secrets
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Mapping, Sequence

from bridge import __version__
from bridge.games import FunctionService, GameRegistry, default_registry
from bridge.protocol import CustomMessage, FromTTS
from bridge.catalog import read_toml, resolve_game
from bridge.errors import DataError, InputError, TtsmodError
from bridge.luaproject.bundle import lua_string
from bridge.rules import reader as r

log = logging.getLogger("ttsmod.selftest")

SELFTEST_GAME = "ttsmod-selftest"
REPORT_FORMAT = 1

PASS = "pass"
DIFFERS = "differs"
COULD_NOT_RUN = "could not run"
SKIPPED = "skipped"

ECHO_TEXT = "Чотири — 4"
#: What the selftest service answers to the ``echo`` request: the values whose arrival in Lua the message probe
#: inspects (whole and fractional numbers, nulls at the top, in a list and in an object, empty object and list).
ECHO_REPLY: dict[str, Any] = {
    "whole": 2, "negative": -3, "half": 2.5, "nothing": None, "list_with_null": [1, None, 3],
    "nested": {"inner": None, "kept": 1}, "empty_object": {}, "empty_list": [], "text": ECHO_TEXT,
}

WAIT_FRAMES = 10        # frames the zone probe watches a zone after a move
SETTLE_SECONDS = 3      # the mod's SETTLE_TIMEOUT: longest wait for a dealt potion to reach a hand
SMOOTH_LIMIT_SECONDS = 5  # a smooth move still going after this long is reported as never ending
NEAR = 0.25             # how close (table units, horizontally) a moved object must end to its target
MERGE_CLEARANCE = 5     # table units between the merge probe's cards, and from them to any card, deck or bag
MARKER_LIFT = 1.5       # how far up the reload probe moves a marker before Save & Play


class SelftestError(TtsmodError):
    """The selftest cannot run at all (no ttsmod game on the table); exit status 1."""


class CannotRun(Exception):
    """A probe could not be run; the message says why in one sentence."""


@dataclass(frozen=True)
class Fact:
    """One observation of a probe: what TTS did, what the mod (and the headless table) assume, and whether
    they agree (``ok`` is ``None`` for an observation nothing depends on, reported for the record)."""

    label: str
    observed: str
    expected: str | None = None
    ok: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "observed": self.observed, "expected": self.expected, "ok": self.ok}


@dataclass(frozen=True)
class ProbeResult:
    """The outcome of one probe, as printed and as written to the report."""

    name: str
    title: str
    verdict: str
    tts_did: str
    mod_assumes: str
    facts: tuple[Fact, ...] = ()
    note: str | None = None
    observation: Any = None

    def to_json(self) -> dict[str, Any]:
        return {"probe": self.name, "title": self.title, "verdict": self.verdict, "tts_did": self.tts_did,
                "mod_assumes": self.mod_assumes, "facts": [f.to_json() for f in self.facts], "note": self.note,
                "observation": self.observation}


@dataclass(frozen=True)
class SelftestReport:
    """Every probe's result with what was probed: the file a host sends back."""

    results: tuple[ProbeResult, ...]
    game: str | None
    mod_version: str | None
    created: str
    ttsmod_version: str = __version__

    @property
    def passed(self) -> bool:
        """No probe differs or could not run (skipped probes do not count)."""
        return all(r.verdict in (PASS, SKIPPED) for r in self.results)

    def to_json(self) -> dict[str, Any]:
        return {"ttsmod_selftest": REPORT_FORMAT, "ttsmod_version": self.ttsmod_version, "created": self.created,
                "game": self.game, "mod_version": self.mod_version, "passed": self.passed,
                "probes": [r.to_json() for r in self.results]}

    def to_text(self) -> str:
        """The report file's text: indented JSON, keys in a fixed order, ending with a newline."""
        return json.dumps(self.to_json(), ensure_ascii=False, indent=2) + "\n"


# ------------------------------------------------------------------------------------------------ helpers


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _count(value: Any) -> int:
    """A count that crossed the link (TTS sends ``3`` as ``3.0``)."""
    number = _number(value)
    return int(number) if number is not None and math.isfinite(number) else 0


def _point(value: Any) -> tuple[float, float, float] | None:
    if isinstance(value, list) and len(value) == 3 and all(_number(v) is not None for v in value):
        return (float(value[0]), float(value[1]), float(value[2]))
    return None


def _flat_distance(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    return math.hypot(a[0] - b[0], a[2] - b[2])


def _seconds(value: Any) -> str:
    number = _number(value) or 0.0
    return f"{number:.2f} s"


def _number_kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"{json.dumps(value)} (a boolean)"
    if isinstance(value, float):
        return f"{value!r} (a float)"
    if isinstance(value, int):
        return f"{value!r} (an integer)"
    return f"{json.dumps(value, ensure_ascii=False)} (not a number)"


# ------------------------------------------------------------------------------------------------ targets

TARGET_KEYS = ("piece", "bag", "spot", "spot_card", "marker")


@dataclass(frozen=True)
class SelftestTargets:
    """Which objects of a game the probes use, by tag: the ``[selftest]`` table of its ``game.toml``.

    ``piece`` is what players hold in hand (dealt from a ``bag`` tagged ``owner:<Colour>``), ``spot`` a
    scripting zone cards lie on, ``spot_card`` such a card, ``marker`` a loose object that can visit an empty
    spot, ``snap_points`` the tag prefixes of the snap points pieces are dropped on."""

    piece: str
    bag: str
    spot: str
    spot_card: str
    marker: str
    snap_points: tuple[str, ...]

    @classmethod
    def none(cls) -> "SelftestTargets":
        """No targets (a game without a ``[selftest]`` table): the probes that need one cannot run."""
        return cls("", "", "", "", "", ())

    def to_lua(self) -> str:
        fields = ", ".join(f"{key} = {lua_string(getattr(self, key))}" for key in TARGET_KEYS)
        snaps = ", ".join(lua_string(prefix) for prefix in self.snap_points)
        return f"{{ {fields}, snap_points = {{ {snaps} }} }}"


def parse_targets(document: Any) -> SelftestTargets:
    """The ``[selftest]`` table of a parsed ``game.toml``; a missing table gives :meth:`SelftestTargets.none`."""
    found = r.table(r.At.data("game.toml"), document)
    if "selftest" not in found:
        return SelftestTargets.none()
    at = r.At.data("game.toml", "[selftest]")
    table = r.table(at, found["selftest"])
    r.keys(at, table, (*TARGET_KEYS, "snap_points"))
    tags = {key: r.string(at.sub(key), table[key]) for key in TARGET_KEYS}
    snaps_at = at.sub("snap_points")
    snaps = tuple(r.string(snaps_at.sub(i), v) for i, v in enumerate(r.array(snaps_at, table["snap_points"])))
    return SelftestTargets(**tags, snap_points=snaps)


def selftest_targets(game: str | None) -> SelftestTargets:
    """The targets of the running game (found by the id its mod reports), or none when it is unknown here."""
    if game is None:
        return SelftestTargets.none()
    try:
        found = resolve_game(game)
        return parse_targets(read_toml(found.folder, "game.toml"))
    except DataError as exc:
        logging.getLogger("ttsmod").warning("selftest: the targets of %s cannot be read: %s", game, exc)
        return SelftestTargets.none()


# ------------------------------------------------------------------------------------------------ Lua

# Prepended to every probe's Lua. Probes that wait frames end with report(probe, observation): a ttsmod request
# to the selftest service, so the observation crosses the same link the mod's requests use.
_PRELUDE = """
TTSMOD_SELFTEST = TTSMOD_SELFTEST or { inbox = {} }
local ST = TTSMOD_SELFTEST
local RUN = "@RUN@"
local T = @TARGETS@
local function report(probe, observation)
  sendExternalMessage({ ttsmod = 1, id = "selftest-" .. probe .. "-" .. RUN, type = "result",
    game = "@GAME@", body = { probe = probe, run = RUN, observation = observation } })
end
local function xyz(v)
  return { v.x, v.y, v.z }
end
local function clock()
  -- TTS scripts have no clock both TTS and the headless table share; Wait.time ticks count seconds
  local c = { ticks = 0 }
  c.id = Wait.time(function() c.ticks = c.ticks + 1 end, 0.05, -1)
  c.stop = function() Wait.stop(c.id) return c.ticks * 0.05 end
  return c
end
local function owned(obj)
  for _, tag in ipairs(obj.getTags()) do
    if string.sub(tag, 1, 6) == "owner:" then return true end
  end
  return false
end
-- The container a seat's pieces come from: its own (tagged owner:<Colour>) or one every seat shares (no owner tag).
local function bag_with_potions(colour)
  local shared = nil
  for _, bag in ipairs(getObjectsWithTag(T.bag)) do
    if bag.getQuantity() > 0 then
      if colour == nil or bag.hasTag("owner:" .. colour) then return bag end
      if shared == nil and not owned(bag) then shared = bag end
    end
  end
  return shared
end
local function put_back(obj, bag, quantity, done)
  bag.putObject(obj)
  Wait.condition(function() done(true) end, function() return bag.getQuantity() >= quantity end, 3,
    function() done(false) end)
end
"""

_IDENTIFY = """
return { mod_version = MOD_VERSION, game = MOD_GAME, ttsmod_objects = #getObjectsWithTag("ttsmod"),
  seated = getSeatedPlayers() }
"""

_MESSAGES = """
ST.inbox = ST.inbox or {}
if not ST.hooked then
  -- replies to the selftest's requests are kept here; everything else goes to the mod's own handler
  ST.original = onExternalMessage
  ST.hooked = true
  onExternalMessage = function(data)
    if type(data) == "table" and type(data.re) == "string" and string.sub(data.re, 1, 9) == "selftest-" then
      ST.inbox[data.re] = data
      return
    end
    if ST.original ~= nil then
      return ST.original(data)
    end
  end
end
local id = "selftest-echo-" .. RUN
sendExternalMessage({ ttsmod = 1, id = id, type = "echo", game = "@GAME@",
  body = { whole = 2, negative = -3, zero = 0, half = 2.5, empty = {}, list = { 1, 2, 3 }, text = "@TEXT@",
    flag = true } })
Wait.condition(function()
  local reply = ST.inbox[id]
  local b = reply.body or {}
  local list = b.list_with_null
  local nested = b.nested
  local listed = type(list) == "table"
  report("messages", {
    arrived = true, ok = reply.ok == true,
    whole_type = type(b.whole), whole_equals = b.whole == 2, whole_text = tostring(b.whole),
    negative_equals = b.negative == -3, half_equals = b.half == 2.5,
    null_type = type(b.nothing),
    list_type = type(list), list_first = listed and list[1] == 1, list_third = listed and list[3] == 3,
    list_second_type = listed and type(list[2]) or "none",
    nested_null_type = type(nested) == "table" and type(nested.inner) or "none",
    nested_kept = type(nested) == "table" and nested.kept == 1,
    empty_object_type = type(b.empty_object), empty_list_type = type(b.empty_list),
    text_same = b.text == "@TEXT@",
  })
end, function() return ST.inbox[id] ~= nil end, 5, function() report("messages", { arrived = false }) end)
return "started"
"""

_HAND = """
local colour, bag = nil, nil
for _, c in ipairs(getSeatedPlayers()) do
  if bag == nil then
    bag = bag_with_potions(c)
    if bag ~= nil then colour = c end
  end
end
if bag == nil then
  return { cannot = "nobody is seated at a colour whose potion bag holds a potion: sit at a player colour" }
end
local quantity = bag.getQuantity()
local inside = {}
for _, e in ipairs(bag.getObjects()) do inside[e.guid] = true end
bag.deal(1, colour)
local guid = nil
for _, e in ipairs(bag.getObjects()) do inside[e.guid] = nil end
for g, _ in pairs(inside) do guid = g end
local frames = 0
local c = clock()
local function step()
  frames = frames + 1
  local held = false
  for _, o in ipairs(Player[colour].getHandObjects()) do
    if o.getGUID() == guid then held = true end
  end
  if held or c.ticks * 0.05 >= @SETTLE@ then
    local seconds = c.stop()
    local obs = { colour = colour, guid = guid, in_hand = held, frames = frames, seconds = seconds }
    local obj = getObjectFromGUID(guid or "")
    if obj == nil then
      obs.returned = false
      report("hand", obs)
      return
    end
    obs.position = xyz(obj.getPosition())
    put_back(obj, bag, quantity, function(ok) obs.returned = ok report("hand", obs) end)
  else
    Wait.frames(step, 1)
  end
end
Wait.frames(step, 1)
return "started"
"""

_ZONE = """
local obj, spot, kind = nil, nil, nil
local spots = getObjectsWithTag(T.spot)
for _, s in ipairs(spots) do
  for _, o in ipairs(s.getObjects()) do
    if obj == nil and o.hasTag(T.spot_card) then obj, spot, kind = o, s, "card" end
  end
end
if obj == nil then
  -- before Setup no card lies on a spot: a marker visits an empty spot instead
  obj = getObjectsWithTag(T.marker)[1]
  for _, s in ipairs(spots) do
    if spot == nil and #s.getObjects() == 0 then spot = s end
  end
  kind = "marker"
end
if obj == nil or spot == nil then
  return { cannot = "no card on a spot, nor a marker and an empty spot (the game's [selftest] spot, spot_card, marker)" }
end
local guid = obj.getGUID()
local function member()
  for _, o in ipairs(spot.getObjects()) do
    if o.getGUID() == guid then return true end
  end
  return false
end
local home, turned, locked = obj.getPosition(), obj.getRotation(), obj.getLock()
local sp, scale = spot.getPosition(), spot.getScale()
local start_inside = member()
local target
if start_inside then
  target = { sp.x + math.abs(scale.x) + math.abs(scale.z) + 2, home.y, sp.z }
else
  target = { sp.x, sp.y, sp.z }
end
obj.setLock(true)   -- no physics while it visits: it must not fall or slide into something
local seen = { there = {}, back = {} }
local function watch(list, n, done)
  table.insert(list, member())
  if n >= @FRAMES@ then done() else Wait.frames(function() watch(list, n + 1, done) end, 1) end
end
obj.setPosition(target)
watch(seen.there, 0, function()
  obj.setPosition(home)
  obj.setRotation(turned)
  watch(seen.back, 0, function()
    obj.setLock(locked)
    local now = obj.getPosition()
    report("zone", { kind = kind, start_inside = start_inside, there = seen.there, back = seen.back,
      restored = math.abs(now.x - home.x) + math.abs(now.y - home.y) + math.abs(now.z - home.z) < 0.001 })
  end)
end)
return "started"
"""

_SNAP = """
local function has_prefix(tags, prefix)
  for _, t in ipairs(tags or {}) do
    if string.sub(t, 1, string.len(prefix)) == prefix then return true end
  end
  return false
end
local sets, keys = {}, {}
local function add(tags)
  local copy = {}
  for _, t in ipairs(tags or {}) do table.insert(copy, t) end
  table.sort(copy)
  local key = table.concat(copy, ",")
  if not keys[key] then keys[key] = true table.insert(sets, copy) end
end
local potions = 0
for _, p in ipairs(getObjectsWithTag(T.piece)) do potions = potions + 1 add(p.getTags()) end
local in_decks = 0
for _, o in ipairs(getObjectsWithTag("ttsmod")) do
  if o.getQuantity() > 0 then
    for _, e in ipairs(o.getObjects()) do
      if has_prefix(e.tags, T.piece) then potions = potions + 1 add(e.tags) end
      if has_prefix(e.tags, T.spot_card) then in_decks = in_decks + 1 end
    end
  end
end
local points, lacking, examples = 0, 0, {}
for _, host in ipairs(getObjectsWithTag("ttsmod")) do
  for i, sp in ipairs(host.getSnapPoints()) do
    local aimed = false
    for _, prefix in ipairs(T.snap_points) do
      if has_prefix(sp.tags, prefix) then aimed = true end
    end
    if aimed then
      points = points + 1
      local shares_all = true
      for _, set in ipairs(sets) do
        local shares = false
        for _, a in ipairs(sp.tags or {}) do
          for _, b in ipairs(set) do
            if a == b then shares = true end
          end
        end
        if not shares then shares_all = false end
      end
      if not shares_all then
        lacking = lacking + 1
        if #examples < 3 then
          table.insert(examples, host.getName() .. " point " .. i .. " [" .. table.concat(sp.tags or {}, ", ") .. "]")
        end
      end
    end
  end
end
return { points = points, lacking = lacking, examples = examples, potions = potions, potion_tags = sets,
  scene_cards_in_decks = in_decks }
"""

_SMOOTH = """
local bag = bag_with_potions(nil)
if bag == nil then
  return { cannot = "no potion bag holds a potion" }
end
local quantity = bag.getQuantity()
local b = bag.getPosition()
local start = { b.x + 3, b.y + 0.5, b.z }
local target = { b.x + 3, b.y + 0.5, b.z + 4 }
bag.takeObject({ position = start, smooth = false, callback_function = function(obj)
  obj.setPositionSmooth(target, false, true)
  local obs = { moving_at_once = obj.isSmoothMoving(), target = target, frames = 0 }
  local c = clock()
  local function step()
    obs.frames = obs.frames + 1
    if obs.frames == 1 then obs.first_frame = xyz(obj.getPosition()) end
    if not obj.isSmoothMoving() or c.ticks * 0.05 >= @LIMIT@ then
      obs.seconds = c.stop()
      obs.still_moving = obj.isSmoothMoving()
      obs.final = xyz(obj.getPosition())
      put_back(obj, bag, quantity, function(ok) obs.returned = ok report("smooth", obs) end)
    else
      Wait.frames(step, 1)
    end
  end
  Wait.frames(step, 1)
end })
return "started"
"""

_MERGE = """
-- a deck of the game's own cards, unlocked, holding enough cards to lend five and still be a deck of two (the
-- largest such: of the game's `bag` decks, or any deck holding its pieces or spot cards)
local function usable(o)
  return o.type == "Deck" and o.getQuantity() >= 7 and not o.getLock() and o.held_by_color == nil
end
local function holds_game_cards(o)
  for _, e in ipairs(o.getObjects()) do
    for _, tag in ipairs(e.tags or {}) do
      if tag == T.piece or tag == T.spot_card then return true end
    end
  end
  return false
end
local deck = nil
local function consider(o)
  if deck == nil or o.getQuantity() > deck.getQuantity() then deck = o end
end
for _, o in ipairs(getObjectsWithTag(T.bag)) do
  if usable(o) then consider(o) end
end
for _, o in ipairs(getObjectsWithTag("ttsmod")) do
  if usable(o) and holds_game_cards(o) then consider(o) end
end
if deck == nil then
  return { cannot = "no unlocked deck of the game's cards holds 7 or more cards" }
end
local d = deck.getPosition()
-- five free spots in a row, each well away from every card, deck, bag and hand zone (nothing to merge with)
local blockers = {}
for _, o in ipairs(getObjects()) do
  local kind = o.type
  if kind == "Card" or kind == "Deck" or kind == "Bag" or kind == "Infinite" then
    table.insert(blockers, { p = o.getPosition(), r = @CLEAR@ })
  elseif kind == "Hand" then
    local s = o.getScale()
    table.insert(blockers, { p = o.getPosition(), r = math.max(math.abs(s.x), math.abs(s.z)) / 2 + @CLEAR@ })
  end
end
local function free(x, z)
  for _, b in ipairs(blockers) do
    if math.sqrt((b.p.x - x) ^ 2 + (b.p.z - z) ^ 2) < b.r then return false end
  end
  return true
end
local spots = nil
for ring = 1, 8 do
  for k = 0, 7 do
    if spots == nil then
      local angle = k * math.pi / 4
      local x0, z0 = d.x + ring * @CLEAR@ * math.cos(angle), d.z + ring * @CLEAR@ * math.sin(angle)
      local row, ok = {}, true
      for i = 0, 4 do
        local x = x0 + i * @CLEAR@
        if not free(x, z0) then ok = false end
        table.insert(row, { x, d.y + 0.5, z0 })
      end
      if ok then spots = row end
    end
  end
end
if spots == nil then
  return { cannot = "no free space near the deck for five cards" }
end
local order = {}
for _, e in ipairs(deck.getObjects()) do table.insert(order, e.guid) end
local cards, guids = {}, {}
local obs = { deck = deck.getName(), cards_in_deck = #order }

local function holds(container, guid)
  for _, e in ipairs(container.getObjects()) do
    if e.guid == guid then return true end
  end
  return false
end
-- the deck (other than the source deck) a lent card is in now, if it merged into one
local function deck_holding(guid)
  for _, o in ipairs(getObjects()) do
    if o.type == "Deck" and o ~= deck and holds(o, guid) then return o end
  end
  return nil
end
-- the lent cards `which` back into the source deck, on its top, in that order: each loose one, or the deck it
-- merged into; lifted above the deck first (a card put into a deck goes to its nearer end)
local function put_back(which, done)
  local list, seen = {}, {}
  for _, i in ipairs(which) do
    local obj = getObjectFromGUID(guids[i])
    if obj == nil or obj.isDestroyed() then obj = deck_holding(guids[i]) end
    if obj ~= nil and not seen[obj.getGUID()] then
      seen[obj.getGUID()] = true
      table.insert(list, obj)
    end
  end
  local function step(k)
    if k > #list then
      done()
      return
    end
    local obj = list[k]
    local want = deck.getQuantity() + math.max(obj.getQuantity(), 1)
    obj.setLock(false)
    obj.setPosition({ d.x, d.y + 2, d.z })
    deck.putObject(obj)
    Wait.condition(function() step(k + 1) end, function() return deck.getQuantity() >= want end, 3,
      function() step(k + 1) end)
  end
  step(1)
end
-- lent card `i` smooth-moved onto lent card `j` (nil: onto the source deck): did they combine once it landed?
local function move_onto(i, j, key, done)
  local mover = cards[i]
  local onto = j == nil and deck or cards[j]
  local p = onto.getPosition()
  local seen = {}
  mover.setPositionSmooth({ p.x, p.y + 0.5, p.z }, false, true)
  local ended, frames = false, 0
  local function watch()
    if not mover.isDestroyed() and mover.isSmoothMoving() then
      Wait.frames(watch, 1)
      return
    end
    if not ended then
      ended = true
      if not mover.isDestroyed() then seen.resting_when_move_ended = mover.resting end
    end
    if not mover.isDestroyed() and not mover.resting and frames < @LIMIT@ * 60 then
      frames = frames + 1
      Wait.frames(watch, 1)
      return
    end
    seen.frames_to_rest = frames
    Wait.frames(function()
      seen.destroyed = mover.isDestroyed()
      if j == nil then
        seen.merged = seen.destroyed and holds(deck, guids[i])
      else
        local formed = deck_holding(guids[i])
        seen.merged = seen.destroyed and formed ~= nil and holds(formed, guids[j])
      end
      if seen.destroyed then
        local ok, value = pcall(function() return mover.resting end)
        seen.resting_when_destroyed = ok and tostring(value) or "an error"
      end
      obs[key] = seen
      done()
    end, @FRAMES@)
  end
  Wait.frames(watch, 1)
end

local function take(i, done)
  if i > 5 then
    done()
    return
  end
  deck.takeObject({ position = spots[i], smooth = false, callback_function = function(obj)
    cards[i] = obj
    guids[i] = obj.getGUID()
    take(i + 1, done)
  end })
end

-- the cards lent are put back deepest first, so that the deck ends in its old order: E, then D and C, then B
-- and A (each pair on top as it merged: the mover on top)
take(1, function()
  move_onto(5, nil, "onto_deck", function()
    put_back({ 5 }, function()
      cards[4].setLock(true)
      move_onto(3, 4, "onto_locked_card", function()
        put_back({ 4, 3 }, function()
          move_onto(1, 2, "onto_card", function()
            put_back({ 2, 1 }, function()
              local now = {}
              for _, e in ipairs(deck.getObjects()) do table.insert(now, e.guid) end
              obs.restored = table.concat(now, ",") == table.concat(order, ",")
              report("merge", obs)
            end)
          end)
        end)
      end)
    end)
  end)
end)
return "started"
"""

_GUIDS = """
local guids = {}
for _, o in ipairs(getObjectsWithTag("ttsmod")) do
  table.insert(guids, o.getGUID())
  if o.getQuantity() > 0 then
    for _, e in ipairs(o.getObjects()) do table.insert(guids, e.guid) end
  end
end
return guids
"""

_MARK = """
-- a marker lifted and locked in the air: moved since the last save, and nothing for it to fall on
local obj = getObjectsWithTag(T.marker)[1]
if obj == nil then
  return { none = true }
end
local home = obj.getPosition()
local locked = obj.getLock()
obj.setLock(true)
obj.setPosition({ home.x, home.y + @LIFT@, home.z })
return { guid = obj.getGUID(), home = xyz(home), moved = xyz(obj.getPosition()), locked = locked }
"""

_UNMARK = """
-- after the reload: where the marker is, then back where it lay (with its lock) if the move was kept
local obj = getObjectFromGUID(@GUID@) or getObjectsWithTag(T.marker)[1]
if obj == nil then
  return { none = true }
end
local now = xyz(obj.getPosition())
local home = @HOME@
if math.abs(now[2] - home[2]) > 0.01 or math.abs(now[1] - home[1]) > 0.01 or math.abs(now[3] - home[3]) > 0.01 then
  obj.setPosition(home)
  obj.setLock(@LOCKED@)
end
return { after = now }
"""

_CLEAN_UP = """
local ST = TTSMOD_SELFTEST
if ST ~= nil and ST.hooked then
  onExternalMessage = ST.original
end
TTSMOD_SELFTEST = nil
return true
"""


def lua(code: str, run: str, targets: "SelftestTargets | None" = None) -> str:
    """A probe's Lua with the prelude, its run token, the game's targets (as Lua string literals) and limits
    filled in."""
    filled = (_PRELUDE + code).replace("@TARGETS@", (targets or SelftestTargets.none()).to_lua())
    filled = filled.replace("@RUN@", run).replace("@GAME@", SELFTEST_GAME).replace("@TEXT@", ECHO_TEXT)
    return (filled.replace("@SETTLE@", str(SETTLE_SECONDS)).replace("@FRAMES@", str(WAIT_FRAMES))
            .replace("@LIMIT@", str(SMOOTH_LIMIT_SECONDS)).replace("@CLEAR@", str(MERGE_CLEARANCE))
            .replace("@LIFT@", str(MARKER_LIFT)))


# ------------------------------------------------------------------------------------------------ the link


class Collector:
    """What crosses the link during a selftest: the raw ``echo`` request and each probe's ``result``.

    It listens to the session's decoded messages (``Session.listeners``), so it sees numbers exactly as TTS sent
    them, before any normalisation a game service may do. Create it inside the running loop."""

    def __init__(self, run: str) -> None:
        self.run = run
        self.echo_request: dict[str, Any] | None = None
        self.results: dict[str, Any] = {}
        self._changed = asyncio.Event()

    def __call__(self, message: FromTTS) -> None:
        if not isinstance(message, CustomMessage):
            return
        custom = message.custom_message
        if not isinstance(custom, Mapping) or custom.get("game") != SELFTEST_GAME:
            return
        body = custom.get("body")
        if custom.get("type") == "echo" and isinstance(body, Mapping):
            self.echo_request = dict(body)
        elif custom.get("type") == "result" and isinstance(body, Mapping) and body.get("run") == self.run:
            self.results[str(body.get("probe"))] = body.get("observation")
        else:
            return
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_for(self, probe: str, timeout: float) -> Any:
        """The observation ``probe`` reported; :class:`CannotRun` if none came within ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while probe not in self.results:
            left = deadline - loop.time()
            if left <= 0:
                raise CannotRun(f"the game sent no result within {timeout:g} s")
            try:
                async with asyncio.timeout(left):
                    await self._changed.wait()
            except TimeoutError:
                continue
        return self.results[probe]


def selftest_service() -> FunctionService:
    """The ``ttsmod-selftest`` game: ``echo`` answers :data:`ECHO_REPLY`, ``result`` acknowledges a report."""

    def handle(request_type: str, body: Mapping[str, Any]) -> dict[str, Any]:
        if request_type == "echo":
            return json.loads(json.dumps(ECHO_REPLY))
        return {"received": True}

    return FunctionService(("echo", "result"), handle)


def selftest_registry(base: GameRegistry | None = None) -> GameRegistry:
    """The games of the normal bridge (so the mod keeps its link during the selftest) plus the selftest's own."""
    registry = base if base is not None else default_registry()
    registry.register_service(SELFTEST_GAME, selftest_service())
    return registry


@dataclass
class ProbeContext:
    """What a probe's ``collect`` gets: the session, the collector, the limits and the game's targets."""

    session: Any
    collector: Collector
    timeout: float
    run: str = field(default_factory=lambda: secrets.token_hex(4))
    targets: "SelftestTargets | None" = None

    async def lua(self, code: str) -> Any:
        """Run ``code`` (with the prelude) in Global and return its value; :class:`CannotRun` on a Lua error."""
        result = await self.session.execute(lua(code, self.run, self.targets), timeout=self.timeout)
        if not result.ok:
            raise CannotRun(f"Lua error: {result.error}")
        if isinstance(result.value, dict) and isinstance(result.value.get("cannot"), str):
            raise CannotRun(result.value["cannot"])
        return result.value

    async def started(self, probe: str, code: str) -> Any:
        """Start an asynchronous probe and wait for the observation it reports."""
        await self.lua(code)
        return await self.collector.wait_for(probe, self.timeout + SETTLE_SECONDS + SMOOTH_LIMIT_SECONDS)


# ------------------------------------------------------------------------------------------------ probes


@dataclass(frozen=True)
class Probe:
    """One check: ``collect`` gathers an observation in the game, ``judge`` turns it into (what TTS did,
    facts). ``note`` is what a host should also look at with their own eyes."""

    name: str
    title: str
    assumes: str
    collect: Callable[[ProbeContext], Awaitable[Any]]
    judge: Callable[[Any], tuple[str, list[Fact]]]
    note: str | None = None


# ---- 1. custom messages and exec results, both directions


async def _collect_messages(ctx: ProbeContext) -> dict[str, Any]:
    returned = await ctx.session.execute("return 2", timeout=ctx.timeout, wrap=False)
    lua_side = await ctx.started("messages", _MESSAGES)
    return {"to_lua": lua_side, "from_lua": ctx.collector.echo_request,
            "exec_return": returned.value if returned.ok else None}


def judge_messages(obs: Mapping[str, Any]) -> tuple[str, list[Fact]]:
    sent = obs.get("from_lua")
    got = obs.get("to_lua") if isinstance(obs.get("to_lua"), Mapping) else {}
    facts: list[Fact] = []
    if isinstance(sent, Mapping):
        whole = sent.get("whole")
        facts.append(Fact("TTS→bridge: the whole number 2 in a custom message", _number_kind(whole),
                          "2.0 (a float)", isinstance(whole, float) and whole == 2))
        fraction = sent.get("half")
        facts.append(Fact("TTS→bridge: 2.5 in a custom message", _number_kind(fraction), "2.5 (a float)",
                          fraction == 2.5 and not isinstance(fraction, bool)))
        empty = sent.get("empty")
        facts.append(Fact("TTS→bridge: an empty Lua table", json.dumps(empty), "[]", empty == []))
        facts.append(Fact("TTS→bridge: text", "unchanged" if sent.get("text") == ECHO_TEXT else
                          json.dumps(sent.get("text"), ensure_ascii=False), "unchanged", sent.get("text") == ECHO_TEXT))
    else:
        facts.append(Fact("TTS→bridge: the echo request", "never arrived", "arrives", False))
    returned = obs.get("exec_return")
    facts.append(Fact("TTS→bridge: `return 2` run through Execute Lua", _number_kind(returned), "2.0 (a float)",
                      isinstance(returned, float) and returned == 2))
    if not got.get("arrived"):
        facts.append(Fact("bridge→TTS: the reply reached onExternalMessage", "no", "yes", False))
    else:
        facts += [
            Fact("bridge→TTS: the reply reached onExternalMessage", "yes", "yes", True),
            Fact("bridge→TTS: the whole number 2", f"{got.get('whole_type')} {got.get('whole_text')}",
                 "number 2", got.get("whole_type") == "number" and got.get("whole_equals") is True),
            Fact("bridge→TTS: -3 and 2.5", "unchanged" if got.get("negative_equals") and got.get("half_equals")
                 else "changed", "unchanged", bool(got.get("negative_equals") and got.get("half_equals"))),
            Fact("bridge→TTS: a null value", "absent (nil)" if got.get("null_type") == "nil" else
                 f"present as a {got.get('null_type')}", "absent (nil)", got.get("null_type") == "nil"),
            Fact("bridge→TTS: a null inside an object", "absent (nil)" if got.get("nested_null_type") == "nil" else
                 f"present as a {got.get('nested_null_type')}", "absent (nil)",
                 got.get("nested_null_type") == "nil" and got.get("nested_kept") is True),
            Fact("bridge→TTS: [1, null, 3]", "positions kept (list[3] == 3)" if got.get("list_first") and
                 got.get("list_third") else f"{got.get('list_type')}, positions not kept", None, None),
            Fact("bridge→TTS: {} and []", f"{got.get('empty_object_type')} and {got.get('empty_list_type')}",
                 "table and table", got.get("empty_object_type") == "table" and got.get("empty_list_type") == "table"),
            Fact("bridge→TTS: text", "unchanged" if got.get("text_same") else "changed", "unchanged",
                 got.get("text_same") is True),
        ]
    floats = "floats" if isinstance(sent, Mapping) and isinstance(sent.get("whole"), float) else "integers"
    null = "nil" if got.get("null_type") == "nil" else (got.get("null_type") or "never arrived")
    did = f"sent whole numbers as {floats}; a null reached Lua as {null}"
    return did, facts


# ---- 2. a dealt potion in a hand


async def _collect_hand(ctx: ProbeContext) -> Any:
    return await ctx.started("hand", _HAND)


def judge_hand(obs: Mapping[str, Any]) -> tuple[str, list[Fact]]:
    colour = obs.get("colour")
    held = obs.get("in_hand") is True
    where = _point(obs.get("position"))
    if held:
        observed = f"after {_count(obs.get('frames'))} frame(s) ({_seconds(obs.get('seconds'))})"
        did = f"a potion dealt to {colour} was in getHandObjects() {observed}"
    else:
        lies = f"; it lies at x {where[0]:.1f}, z {where[2]:.1f}" if where else ""
        observed = f"not after {SETTLE_SECONDS} s{lies}"
        did = f"a potion dealt to {colour} never reached getHandObjects(){lies}"
    facts = [
        Fact(f"a potion dealt with bag.deal(1, \"{colour}\") is in Player[\"{colour}\"].getHandObjects()", observed,
             f"yes, within {SETTLE_SECONDS} s", held),
        Fact("the potion went back into its bag", "yes" if obs.get("returned") is True else "no", "yes",
             obs.get("returned") is True),
    ]
    return did, facts


# ---- 3. zone membership after a move


def _caught_up(seen: Sequence[Any], want: bool) -> int | None:
    """The first frame (0 = the frame of the move) whose read shows ``want``."""
    for frame, value in enumerate(seen):
        if bool(value) == want:
            return frame
    return None


async def _collect_zone(ctx: ProbeContext) -> Any:
    return await ctx.started("zone", _ZONE)


def judge_zone(obs: Mapping[str, Any]) -> tuple[str, list[Fact]]:
    kind = obs.get("kind") or "object"
    start_inside = obs.get("start_inside") is True
    facts: list[Fact] = []
    reads = []
    for key, want, label in (("there", not start_inside, "out of" if start_inside else "into"),
                             ("back", start_inside, "back into" if start_inside else "back out of")):
        seen = obs.get(key) if isinstance(obs.get(key), list) else []
        same_frame = bool(seen[0]) if seen else None
        facts.append(Fact(f"getObjects() in the frame a {kind} moved {label} a scene spot",
                          "no reads" if same_frame is None else
                          ("the new contents" if same_frame == want else "the old contents"),
                          "the old contents", same_frame is not None and same_frame != want))
        frame = _caught_up(seen, want)
        facts.append(Fact(f"getObjects() caught up after the move {label} the spot",
                          f"after {frame} frame(s)" if frame is not None else f"not within {len(seen) - 1} frames",
                          f"within {WAIT_FRAMES} frames", frame is not None))
        reads.append("same frame" if frame == 0 else (f"{frame} frame(s) later" if frame is not None else "never"))
    facts.append(Fact(f"the {kind} is back where it lay", "yes" if obs.get("restored") is True else "no", "yes",
                      obs.get("restored") is True))
    did = f"a scene spot saw a {kind} move {reads[0]} (back: {reads[1]})"
    return did, facts


# ---- 4. snap point tags


async def _collect_snap(ctx: ProbeContext) -> Any:
    return await ctx.lua(_SNAP)


def judge_snap(obs: Mapping[str, Any]) -> tuple[str, list[Fact]]:
    points, lacking, potions = _count(obs.get("points")), _count(obs.get("lacking")), _count(obs.get("potions"))
    if points == 0 or potions == 0:
        raise CannotRun("no slot or cell snap points or no potions on the table: is a ttsmod game loaded?")
    examples = [str(e) for e in obs.get("examples") or []]
    facts = [Fact("slot and cell snap points sharing a tag with every potion", f"{points - lacking} of {points}",
                  f"all {points}", lacking == 0)]
    if examples:
        facts.append(Fact("for example", "; ".join(examples), None, None))
    tag_sets = [", ".join(str(t) for t in s) for s in obs.get("potion_tags") or [] if isinstance(s, list)]
    facts.append(Fact("potion tags", " | ".join(tag_sets[:3]) + (" | …" if len(tag_sets) > 3 else ""), None, None))
    hidden = _count(obs.get("scene_cards_in_decks"))
    if hidden:
        facts.append(Fact("scene cards inside a deck (their snap points are not readable there)", str(hidden),
                          None, None))
    did = (f"{points - lacking} of {points} slot/cell snap points share a tag with the potions"
           + (f" ({hidden} scene cards in the deck not checked)" if hidden else ""))
    return did, facts


# ---- 5. a smooth move's duration


async def _collect_smooth(ctx: ProbeContext) -> Any:
    return await ctx.started("smooth", _SMOOTH)


def judge_smooth(obs: Mapping[str, Any]) -> tuple[str, list[Fact]]:
    frames, seconds = _count(obs.get("frames")), _number(obs.get("seconds")) or 0.0
    target, final, first = _point(obs.get("target")), _point(obs.get("final")), _point(obs.get("first_frame"))
    finished = obs.get("still_moving") is not True
    arrived = target is not None and final is not None and _flat_distance(target, final) <= NEAR
    on_the_way = target is not None and first is not None and _flat_distance(target, first) > 0.05
    facts = [
        Fact("isSmoothMoving() right after setPositionSmooth", "true" if obs.get("moving_at_once") is True
             else "false", "true", obs.get("moving_at_once") is True),
        Fact("a position read one frame into the move", "on the way" if on_the_way else "already at the target",
             "on the way", on_the_way),
        Fact("the move ended", f"after {frames} frame(s) ({_seconds(seconds)})" if finished else
             f"still moving after {SMOOTH_LIMIT_SECONDS} s", f"after more than 1 frame, within "
             f"{SMOOTH_LIMIT_SECONDS} s", finished and frames > 1),
        Fact("where it ended", "at the target" if arrived else "off the target", "at the target", arrived),
        Fact("the potion went back into its bag", "yes" if obs.get("returned") is True else "no", "yes",
             obs.get("returned") is True),
    ]
    did = (f"a smooth move lasted {frames} frame(s) ({_seconds(seconds)})" if finished
           else f"a smooth move had not ended after {SMOOTH_LIMIT_SECONDS} s")
    return did, facts


# ---- 6. cards moved onto a deck, a card and a locked card; resting after a smooth move


async def _collect_merge(ctx: ProbeContext) -> Any:
    return await ctx.started("merge", _MERGE)


_LANDINGS = (("onto_deck", "a deck", "joined the deck", "lies on the deck, loose"),
             ("onto_card", "a single card", "formed a deck with it", "lies on it, loose"),
             ("onto_locked_card", "a locked card", "formed a deck with it", "lies on it, loose"))


def judge_merge(obs: Mapping[str, Any]) -> tuple[str, list[Fact]]:
    facts: list[Fact] = []
    did = []
    for key, what, joined, loose in _LANDINGS:
        seen = obs.get(key)
        if not isinstance(seen, Mapping):
            raise CannotRun(f"the move onto {what} was not reported")
        merged = seen.get("merged") is True
        facts.append(Fact(f"a card moved with setPositionSmooth onto {what}, once it landed",
                          joined if merged else loose, joined, merged))
        did.append(f"onto {what}: {'merged' if merged else 'stayed loose'}")
    moved = next((obs[key] for key, *_ in _LANDINGS if isinstance(obs.get(key), Mapping)
                  and obs[key].get("resting_when_move_ended") is not None), None)
    if moved is not None:
        frames = _count(moved.get("frames_to_rest"))
        at_end = moved.get("resting_when_move_ended") is True
        facts.append(Fact("resting in the frame isSmoothMoving() became false (the card still 0.5 above its "
                          "target)", "true" if at_end else "false", "false (it falls, then lands)", not at_end))
        facts.append(Fact("resting once the card has landed", f"true after {frames} frame(s)"
                          if frames < SMOOTH_LIMIT_SECONDS * 60 else f"still false after {SMOOTH_LIMIT_SECONDS} s",
                          f"true within {SMOOTH_LIMIT_SECONDS} s", frames < SMOOTH_LIMIT_SECONDS * 60))
    destroyed = next((obs[key] for key, *_ in _LANDINGS if isinstance(obs.get(key), Mapping)
                      and isinstance(obs[key].get("resting_when_destroyed"), str)), None)
    if destroyed is not None:
        value = destroyed["resting_when_destroyed"]
        facts.append(Fact("resting read on a card that merged (destroyed)", value, "false or an error",
                          value != "true"))
    facts.append(Fact(f"the deck ({obs.get('deck') or 'unnamed'}) holds its cards in their old order again",
                      "yes" if obs.get("restored") is True else "no", "yes", obs.get("restored") is True))
    return "a card moved " + "; ".join(did), facts


# ---- 7. GUIDs and a moved object across a reload


async def _collect_reload(ctx: ProbeContext) -> dict[str, Any]:
    before = await ctx.lua(_GUIDS)
    mark = await ctx.lua(_MARK)
    loaded = await ctx.session.get_scripts(timeout=ctx.timeout)
    # Save & Play with exactly the scripts TTS has: the game reloads with no change but the marker's move
    await ctx.session.push(list(loaded.script_states), fill_from_tts=True, timeout=ctx.timeout * 3)
    after = await ctx.lua(_GUIDS)
    observation: dict[str, Any] = {"before": before if isinstance(before, list) else [],
                                   "after": after if isinstance(after, list) else []}
    home = _point(mark.get("home")) if isinstance(mark, Mapping) else None
    if home is not None:
        unmark = (_UNMARK.replace("@GUID@", lua_string(str(mark.get("guid", ""))))
                  .replace("@HOME@", "{ %r, %r, %r }" % home)
                  .replace("@LOCKED@", "true" if mark.get("locked") is True else "false"))
        found = await ctx.lua(unmark)
        observation["marker"] = {"home": list(home), "moved": mark.get("moved"),
                                 "after": found.get("after") if isinstance(found, Mapping) else None}
    return observation


def judge_reload(obs: Mapping[str, Any]) -> tuple[str, list[Fact]]:
    before = {str(g) for g in obs.get("before") or []}
    after = {str(g) for g in obs.get("after") or []}
    if not before:
        raise CannotRun("no object tagged ttsmod before the reload")
    lost, new = sorted(before - after), sorted(after - before)
    kept = not lost and not new
    observed = "all kept" if kept else (f"{len(lost)} gone ({', '.join(lost[:5])}), {len(new)} new "
                                       f"({', '.join(new[:5])})")
    facts = [Fact(f"GUIDs of {len(before)} ttsmod objects (on the table and in containers) after Save & Play",
                  observed, "all kept", kept)]
    did = f"kept {len(before & after)} of {len(before)} GUIDs across a reload"
    marker = obs.get("marker") if isinstance(obs.get("marker"), Mapping) else None
    if marker is not None:
        home, moved, now = _point(marker.get("home")), _point(marker.get("moved")), _point(marker.get("after"))
        if now is None or home is None:
            where, ok = "gone", False
        elif math.dist(now, home) < 0.01:
            where, ok = "back where it lay (the move discarded)", True
        elif moved is not None and math.dist(now, moved) < 0.01:
            where, ok = "where it was moved (the move kept)", False
        else:
            where, ok = f"elsewhere (x {now[0]:.2f}, y {now[1]:.2f}, z {now[2]:.2f}): moved since the last save?", None
        facts.append(Fact(f"a marker lifted {MARKER_LIFT:g} units just before Save & Play, after it", where,
                          "back where it lay (the move discarded)", ok))
        did += f"; a marker moved before it was {where.split(' (')[0]}"
    return did, facts


PROBES: tuple[Probe, ...] = (
    Probe("messages", "custom messages and exec results, both directions",
          "TTS sends whole numbers as floats (2.0) and an empty table as []; a JSON null reaches Lua as nil; "
          "the bridge turns whole floats into integers", _collect_messages, judge_messages),
    Probe("hand", "a dealt potion is held in the hand",
          "a potion dealt from its bag is in Player[colour].getHandObjects() within 3 s (potions are built "
          "with Hands: true)", _collect_hand, judge_hand),
    Probe("zone", "zone membership after a move",
          "a scripting zone's getObjects() lags a move by a frame: the mod decides occupancy by position",
          _collect_zone, judge_zone),
    Probe("snap", "tagged snap points attract potions",
          "a tagged snap point attracts only objects sharing a tag: every slot and cell point shares one "
          "with the potions", _collect_snap, judge_snap,
          note="Drop a potion on a scene slot and on a board cell and watch it snap to the point; "
               "say in the report if it did not."),
    Probe("smooth", "a smooth move takes time",
          "setPositionSmooth takes a while (isSmoothMoving() meanwhile): the mod reads positions only once "
          "moves have ended", _collect_smooth, judge_smooth),
    Probe("merge", "cards moved onto a deck or a card merge",
          "a card smooth-moved onto a deck joins it once it lands, and onto a card (locked or not) forms a deck "
          "(the docs are silent: the headless table takes the harsher choice); resting is false until a moved "
          "card has landed; the mods read a merged card in its deck", _collect_merge, judge_merge,
          note="Drop a card from your hand on a deck and on a single card and watch them join; say in the report "
               "if they did not."),
    Probe("reload", "GUIDs kept and moves discarded across a reload",
          "a reloaded game (Save & Play) keeps every object's GUID and discards every change since the game was "
          "last saved or loaded", _collect_reload, judge_reload,
          note="The game is reloaded (Save & Play with its own scripts) during this probe."),
)

PROBE_NAMES: tuple[str, ...] = tuple(p.name for p in PROBES)


def check_probe_names(names: Sequence[str]) -> tuple[str, ...]:
    """``names`` checked against :data:`PROBE_NAMES`; :class:`InputError` names an unknown one."""
    for name in names:
        if name not in PROBE_NAMES:
            raise InputError(f"there is no probe {name!r} (probes: {', '.join(PROBE_NAMES)})")
    return tuple(names)


def verdict_of(facts: Sequence[Fact]) -> str:
    """``differs`` when any judged fact disagrees with the assumption, else ``pass``."""
    return DIFFERS if any(f.ok is False for f in facts) else PASS


async def run_probe(probe: Probe, ctx: ProbeContext) -> ProbeResult:
    """One probe, never raising: errors, timeouts and missing pieces become ``could not run`` with the reason."""
    observation: Any = None
    try:
        observation = await probe.collect(ctx)
        did, facts = probe.judge(observation if isinstance(observation, Mapping) else {})
    except CannotRun as exc:
        return ProbeResult(probe.name, probe.title, COULD_NOT_RUN, f"could not run: {exc}", probe.assumes,
                           note=probe.note, observation=observation)
    except TtsmodError as exc:      # TTS stopped answering, refused a push, ...
        return ProbeResult(probe.name, probe.title, COULD_NOT_RUN, f"could not run: {exc}", probe.assumes,
                           note=probe.note, observation=observation)
    except Exception as exc:        # a bug here must not hide the other probes' results
        log.debug("probe %s failed:\n%s", probe.name, traceback.format_exc())
        return ProbeResult(probe.name, probe.title, COULD_NOT_RUN,
                           f"could not run: internal error ({type(exc).__name__}: {exc})", probe.assumes,
                           note=probe.note, observation=observation)
    return ProbeResult(probe.name, probe.title, verdict_of(facts), did, probe.assumes, tuple(facts), probe.note,
                       observation)


async def run_selftest(session: Any, *, timeout: float = 10.0, skip: Sequence[str] = (),
                       now: Callable[[], datetime] | None = None) -> SelftestReport:
    """Run every probe not in ``skip`` on a started bridge session and return the report.

    Raises :class:`SelftestError` when the game has no ttsmod objects, and the session's
    :class:`~bridge.session.TtsNotRunning` / :class:`~bridge.session.TtsTimeout` when TTS does not answer at all.
    """
    skip = check_probe_names(skip)
    collector = Collector(secrets.token_hex(4))
    session.listeners.append(collector)
    ctx = ProbeContext(session, collector, timeout, collector.run)
    try:
        found = await session.execute(lua(_IDENTIFY, ctx.run), timeout=timeout)
        if not found.ok:
            raise SelftestError(f"the game did not run the selftest's Lua: {found.error}")
        info = found.value if isinstance(found.value, Mapping) else {}
        if _count(info.get("ttsmod_objects")) == 0:
            raise SelftestError("no ttsmod game is loaded in TTS (no object is tagged ttsmod)")
        game = info.get("game") if isinstance(info.get("game"), str) else None
        ctx.targets = selftest_targets(game)
        mod_version = info.get("mod_version") if isinstance(info.get("mod_version"), str) else None
        results = []
        for probe in PROBES:
            if probe.name in skip:
                results.append(ProbeResult(probe.name, probe.title, SKIPPED, "skipped (--skip)", probe.assumes,
                                           note=probe.note))
                continue
            if probe.name == "reload":
                await _clean_up(ctx)     # the hook goes before the reload, so the reloaded game never sees it
            results.append(await run_probe(probe, ctx))
        await _clean_up(ctx)
    finally:
        session.listeners.remove(collector)
    created = (now or (lambda: datetime.now(timezone.utc)))().replace(microsecond=0).isoformat()
    return SelftestReport(tuple(results), game, mod_version, created)


async def _clean_up(ctx: ProbeContext) -> None:
    try:
        await ctx.session.execute(_CLEAN_UP, timeout=ctx.timeout)
    except TtsmodError as exc:
        log.warning("could not remove the selftest's Lua hook: %s", exc)
