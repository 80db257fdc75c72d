-- A game's pieces on the table (pure Lua over the TTS API; names no game): found by the id their memo names,
-- in decks and bags too; watched while they move; where one lies (on a slot, in a zone, in a hand); laid where
-- a snapshot puts them.
--
-- A piece is an object whose memo names an id: `id_of(memo)` (configure; by default memo.id), nil for an object
-- that is no piece. A place is the game's own table saying where a piece goes, except `{hand = colour}`, which
-- is the library's: the piece goes into that colour's hand zone. The game's `spot(place)` gives every other
-- place's `{position = {x, y, z}, rotation = {x, y, z}}` (rotation z 180: face down), and may say more of it:
--   pile = key     the pieces whose spot names the same key lie stacked at `position` (a pile, a deck): a piece sent
--                  there goes on top of what lies there (LIFT a card above the highest piece in the pile's area);
--                  a deck most of whose cards go to one pile is moved there whole, the others taken out of it a
--                  round later; a piece in a deck lying on its pile is in place;
--   zone = obj     the piece is in place anywhere inside that zone's box (the pile's area too);
--   near = d       in place within d of `position` (default NEAR);
--   any_face       in place whichever face it shows;
--   lock = bool    the piece is locked (true) or unlocked (false) as it is sent there: a locked piece does not
--                  merge into a card or deck it lands on (cards laid overlapping on purpose, as a column of
--                  cards each showing a strip, would otherwise form a deck, as cards dropped on cards do in TTS).
-- With `pile` or `zone`, a piece in place on the wrong face is turned where it lies.
-- Positions are read only once nothing moves (lib.stepper.when_settled, configured with M.moving: lib.play does),
-- and zones by position inside their box, never by getObjects(), which physics updates once per frame.
local seats = require("lib.seats")
local stepper = require("lib.stepper")
local util = require("lib.util")

local M = {}

M.NEAR = 0.3        -- a piece lies on its spot when its centre is this close (horizontal distance)
M.SLOT_NEAR = 0.6   -- a drop is on a snap point when it comes to rest this close to it
M.ROUNDS = 8        -- most rounds of moves laying the table takes (a deck's last card needs one of its own)
M.LIFT = 0.03       -- the height of one card in a pile

local settings = { id_of = function(memo) return memo.id end }
local tracked = {}   -- guid → object the library has set moving, until it rests

--- `options.id_of(memo)`: a piece's id from its memo (nil: not a piece).
function M.configure(options)
    settings.id_of = options.id_of or settings.id_of
    tracked = {}
end

--- The id of the piece `obj`, or nil when it is no piece.
function M.id_of(obj)
    return settings.id_of(util.memo(obj))
end

--- Watch an object that has just been set moving (or taken out of a container) until it rests.
function M.track(obj)
    if obj ~= nil then
        tracked[obj.getGUID()] = obj
    end
end

local function in_a_hand(obj)
    for _, colour in ipairs(getSeatedPlayers()) do
        if seats.in_hand(colour, obj) then
            return true
        end
    end
    return false
end

--- Whether anything the library (or the game, through M.track) set moving is still on its way or spawning, or
--  still falling once its smooth move has ended (not `resting` yet: it merges into a card, a deck or a bag it
--  lands on only then). An object held by a player, or lying in a hand (held there, not by physics), has
--  stopped moving for the library.
function M.moving()
    for guid, obj in pairs(tracked) do
        if obj.isDestroyed() then
            tracked[guid] = nil
        elseif obj.spawning or obj.isSmoothMoving() then
            return true
        elseif not obj.resting and (obj.held_by_color or "") == "" and not in_a_hand(obj) then
            return true
        else
            tracked[guid] = nil
        end
    end
    return false
end

--- The objects carrying `tag`, and every deck without it: cards that merge on the table (a player's drop, a
--  smooth move or a spawn onto a card) form a new deck, which carries no tag of theirs.
function M.tagged_and_decks(tag)
    local out = getObjectsWithTag(tag)
    for _, obj in ipairs(getObjects()) do
        if obj.type == "Deck" and not obj.hasTag(tag) then
            table.insert(out, obj)
        end
    end
    return out
end

--- Every piece on the table or in a container there: id → `{obj = the piece}` or `{container = it, guid = the
--  piece's GUID}`.
function M.find()
    local out = {}
    for _, obj in ipairs(M.tagged_and_decks("ttsmod")) do
        if obj.getQuantity() >= 0 then
            local own = M.id_of(obj)   -- a bag standing for a piece of its own
            if own ~= nil then
                out[own] = { obj = obj }
            end
            for _, entry in ipairs(obj.getObjects()) do
                local id = settings.id_of(util.decode(entry.memo))
                if id ~= nil then
                    out[id] = { container = obj, guid = entry.guid }
                end
            end
        else
            local id = M.id_of(obj)
            if id ~= nil then
                out[id] = { obj = obj }
            end
        end
    end
    return out
end

--- The first object carrying `tag` whose memo has every key/value of `match` (nil or {}: any), or nil.
function M.zone(tag, match)
    for _, obj in ipairs(getObjectsWithTag(tag)) do
        local memo, fits = util.memo(obj), true
        for k, v in pairs(match or {}) do
            fits = fits and memo[k] == v
        end
        if fits then
            return obj
        end
    end
    return nil
end

--- Whether position `p` lies inside `zone`'s box seen from above (a zone is a unit box scaled by its transform).
function M.holds(zone, p)
    local l = zone.positionToLocal(p)
    return math.abs(l.x) <= 0.5 and math.abs(l.z) <= 0.5
end

local function nearest_slot(p, tags)
    local best, best_d = nil, M.SLOT_NEAR
    for _, tag in ipairs(tags or {}) do
        for _, host in ipairs(getObjectsWithTag(tag)) do
            for i, point in ipairs(host.getSnapPoints()) do
                local d = util.flat_distance(host.positionToWorld(point.position), p)
                if d <= best_d then
                    best, best_d = { slot = i - 1, host = host, memo = util.memo(host) }, d
                end
            end
        end
    end
    return best
end

--- Where `obj` has come to rest: `{slot = index (0-based), host, memo = the host's memo}` on the nearest snap
--  point (within SLOT_NEAR) of an object carrying one of the tags `options.slots`; else `{zone, memo = its memo}`
--  in the first zone carrying one of `options.zones` that holds it; else `{hand = colour, memo = {}}` in the
--  hand of one of `options.colours`; else nil.
function M.where(obj, options)
    local p = obj.getPosition()
    local slot = nearest_slot(p, options.slots)
    if slot ~= nil then
        return slot
    end
    for _, tag in ipairs(options.zones or {}) do
        for _, zone in ipairs(getObjectsWithTag(tag)) do
            if not seats.same(zone, obj) and M.holds(zone, p) then
                return { zone = zone, memo = util.memo(zone) }
            end
        end
    end
    for _, colour in ipairs(options.colours or {}) do
        if seats.in_hand(colour, obj) then
            return { hand = colour, memo = {} }
        end
    end
    return nil
end

local function vec(v)
    return { x = v.x or v[1], y = v.y or v[2], z = v.z or v[3] }
end

--- The {position, rotation} of `place`: a hand's from its hand transform (face up, facing its player), any other
--  from the game's `spot`.
local function spot_of(place, spot)
    if place.hand == nil then
        return spot(place)
    end
    local t = Player[place.hand].getHandTransform()
    return { position = t.position, rotation = { 0, t.rotation.y + 180, 0 } }
end

local function face_down(at)
    return math.abs(vec(at.rotation).z - 180) < 1
end

--- Whether position `p` lies in the area of spot `at`: its zone, else within `near` (NEAR) of its position.
local function in_area(at, p)
    if at.zone ~= nil then
        return M.holds(at.zone, p)
    end
    return util.flat_distance(p, vec(at.position)) <= (at.near or M.NEAR)
end

--- How a found piece lies for its place: "ok", "turn" (in place, on the wrong face: turned where it lies) or
--  "move".
local function state_of(entry, place, at)
    if place.hand ~= nil then
        return (entry.obj ~= nil and seats.in_hand(place.hand, entry.obj)) and "ok" or "move"
    end
    local obj = entry.obj or entry.container
    if not in_area(at, obj.getPosition()) then
        return "move"
    end
    local loose = at.pile ~= nil or at.zone ~= nil
    if at.any_face or obj.is_face_down == face_down(at) or (loose and entry.container ~= nil) then
        return "ok"
    end
    return loose and "turn" or "move"
end

local function turn(obj, at)
    local r = vec(at.rotation)
    obj.setRotation({ r.x, r.y, r.z })
    M.track(obj)
end

--- Move a found piece to `at` (a piece in a container is taken out there; a deck left with one card becomes that
--  card, which is watched too).
local function move(entry, at)
    local p, r = vec(at.position), vec(at.rotation)
    if entry.container ~= nil then
        local taken = entry.container.takeObject({ guid = entry.guid, position = { p.x, p.y, p.z },
            rotation = { r.x, r.y, r.z }, smooth = false })
        if taken ~= nil and at.lock ~= nil then
            taken.setLock(at.lock)
        end
        M.track(taken)
        M.track(entry.container.remainder)
    else
        if at.lock ~= nil then
            entry.obj.setLock(at.lock)
        end
        turn(entry.obj, at)
        entry.obj.setPositionSmooth({ p.x, p.y, p.z }, false, true)
    end
end

local function sorted_ids(places)
    local ids = {}
    for id, _ in pairs(places) do
        table.insert(ids, id)
    end
    table.sort(ids)
    return ids
end

--- The piles of one round: the next free height on each (the highest piece in its area, then LIFT a card).
local function pile_tops(found)
    local heights = {}
    for _, entry in pairs(found) do
        table.insert(heights, (entry.obj or entry.container).getPosition())
    end
    local tops = {}
    return function(at)
        local p = vec(at.position)
        if tops[at.pile] == nil then
            local top = p.y - M.LIFT
            for _, q in ipairs(heights) do
                if q.y > top and in_area(at, q) then
                    top = q.y
                end
            end
            tops[at.pile] = top
        end
        tops[at.pile] = tops[at.pile] + M.LIFT
        return { position = { p.x, tops[at.pile], p.z }, rotation = at.rotation }
    end
end

--- The decks of `found` most of whose cards go to one pile they do not lie on: moved there whole. Returns
--  container GUID → the pile it went to, and the number of decks moved.
local function move_decks(found, spots, on_top)
    local decks = {}
    for id, entry in pairs(found) do
        if entry.container ~= nil and entry.container.type == "Deck" then
            local key = entry.container.getGUID()
            decks[key] = decks[key] or { obj = entry.container, n = 0, piles = {} }
            local d, at = decks[key], spots[id]
            d.n = d.n + 1
            if at ~= nil and at.pile ~= nil then
                d.piles[at.pile] = d.piles[at.pile] or { n = 0, at = at }
                d.piles[at.pile].n = d.piles[at.pile].n + 1
            end
        end
    end
    local moved_to, moved = {}, 0
    for key, d in pairs(decks) do
        local best = nil
        for _, pile in pairs(d.piles) do
            if best == nil or pile.n > best.n or (pile.n == best.n and pile.at.pile < best.at.pile) then
                best = pile
            end
        end
        if best ~= nil and best.n * 2 > d.n and not in_area(best.at, d.obj.getPosition()) then
            local to = on_top(best.at)
            turn(d.obj, to)
            local p = vec(to.position)
            d.obj.setPositionSmooth({ p.x, p.y, p.z }, false, true)
            moved_to[key], moved = best.at.pile, moved + 1
        end
    end
    return moved_to, moved
end

--- One round of moves towards `places`: decks moved whole to their piles, then every misplaced piece sent to its
--  spot (a pile's on its top) or turned where it lies, in id order, except a container's last piece (it becomes a
--  piece of its own when the one before is taken: moved next round) and the pieces of a deck moved this round
--  that go elsewhere. Returns the pieces moved and the pieces left for the next round.
local function lay_round(places, spot)
    local found = M.find()
    local spots, left = {}, {}
    for id, entry in pairs(found) do
        if places[id] ~= nil then
            spots[id] = spot_of(places[id], spot)
        end
        if entry.container ~= nil then
            local key = entry.container.getGUID()
            left[key] = (left[key] or 0) + 1
        end
    end
    local on_top = pile_tops(found)
    local moved_to, moved = move_decks(found, spots, on_top)
    local waiting = 0
    for _, id in ipairs(sorted_ids(places)) do
        local entry, place, at = found[id], places[id], spots[id]
        local key = entry ~= nil and entry.container ~= nil and entry.container.getGUID()
        if key and moved_to[key] ~= nil then
            if at.pile ~= moved_to[key] then
                waiting = waiting + 1   -- taken out of the deck once it lies on its pile
            end
        elseif entry ~= nil then
            local state = state_of(entry, place, at)
            if state == "turn" then
                turn(entry.obj, at)
                moved = moved + 1
            elseif state == "move" and key and left[key] <= 1 then
                waiting = waiting + 1
            elseif state == "move" then
                if key then
                    left[key] = left[key] - 1
                end
                if at.pile ~= nil then
                    at = on_top(at)
                end
                move(entry, at)
                moved = moved + 1
            end
        end
    end
    return moved, waiting
end

--- Lay every piece of `places` (id → place) on its spot (`spot(place)`, hands the library's), in rounds until a
--  round finds nothing to move (at most ROUNDS), each once the moves of the one before have ended; then `done()`.
function M.lay(places, spot, done)
    local round = 0
    local step = nil
    step = function()
        round = round + 1
        local moved, waiting = lay_round(places, spot)
        if moved + waiting == 0 then
            done()
        elseif round >= M.ROUNDS then
            print("ttsmod: the table could not be laid as the snapshot says; check the misplaced pieces")
            done()
        else
            Wait.frames(function() stepper.when_settled(step) end, 2)
        end
    end
    stepper.when_settled(step)
end

--- Send `obj` to `at`: `{position, rotation}`, or a hand place `{hand = colour}` (face up, facing its player); it is
--  watched until it rests (M.moving).
function M.send(obj, at)
    if at.hand ~= nil then
        at = spot_of(at)
    end
    move({ obj = obj }, at)
end

--- Send one piece back to its place in `places` (a refused drop); a piece `places` does not name stays.
function M.put_back(obj, places, spot)
    local place = places[M.id_of(obj)]
    if place ~= nil then
        move({ obj = obj }, spot_of(place, spot))
    end
end

return M
