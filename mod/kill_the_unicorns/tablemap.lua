-- Where things are on the Kill the Unicorns table (docs/games/kill_the_unicorns/table-contract.md) and what
-- lies where.
--
-- Everything is found by tags and memo, never by GUID or by where the build laid it. The table is the state:
-- a card's place is the zone it lies in (read by position inside the zone's box, never by the zone's
-- getObjects(), which physics updates once per frame), a pile's order is its height (the card laid last lies
-- highest, a deck lying in a zone below its loose cards), a captured unicorn lies in its colour's column of the
-- catch area (the catch list keeps the engine's order) and what is attached to it (pinned tricks, market tokens)
-- is what lies in the catch area on it (M.catch_owner).
--
-- Places. The mod lays the table from the engine's snapshot (global.lua's `places` gives every card's place and
-- `spot` where it goes, lib.pieces moves them there) and reads it back (M.snapshot). A place is a table {kind, seat, index, slot, item, k}:
--   hand (seat)                  hunting cards and the two drawn tricks, in the player's hand zone
--   played (seat, k)             hunting cards laid face down in the hunt area
--   hunt_discard / trick_discard / trick_deck (seat, k)   piles on the seat mat
--   catch (seat, index)          the index-th captured unicorn; pinned (seat, index, k) / catch_token (seat,
--                                index, k) lie on it
--   tokens (seat, k)             market tokens in front of the player (pâté), beside the character card
--   character (seat)             the character card
--   line (index)                 a unicorn of the day's line; slot (index, slot = "above"/"below") a trick
--   unicorn_deck / unicorn_discard / box (k)      piles and the box
--   market (item, k)             a token in stock
local libpieces = require("lib.pieces")
local seats = require("lib.seats")
local util = require("lib.util")

local M = {}

M.NEAR = 0.6          -- a card lies on a spot when its centre is this close (horizontal distance)
M.LIFT = 0.03         -- height of one card in a loose pile
M.CATCH_NEAR = 0.15   -- a caught unicorn, pinned trick or token lies on its spot when its centre is this close

M.one = seats.one
M.same = seats.same
M.colours_in_play = seats.colours_in_play

M.SNAPSHOT_FORMAT = 1  -- "ttsmod_snapshot": the snapshot format every snapshot sent carries (docs/protocol.md)

-- the snapshot keys the table shows (the others are the engine's bookkeeping, kept in the ledger)
M.PHYSICAL = { "line", "slots", "unicorn_deck", "unicorn_discard", "box", "market" }
M.PLAYER_PHYSICAL = { "hand", "played", "hunt_discard", "trick_deck", "trick_hand", "trick_discard", "catch",
    "tokens" }

-- ------------------------------------------------------------------ zones
--- Whether obj lies inside a scripting zone's box (seen from above) and is not held.
function M.inside(zone, obj)
    if zone == nil or obj.held_by_color ~= nil then
        return false
    end
    return M.holds(zone, obj.getPosition())
end

-- Zones never move during a game: each lookup and each zone's box (centre, turn, size) is read once.
local zone_cache = {}
local box_cache = {}
local hands = {}

--- A zone's box seen from above: centre, the sine and cosine of its turn about the vertical, half sizes.
local function box_of(zone)
    local key = zone.getGUID()
    local box = box_cache[key]
    if box == nil then
        local p, r, s = zone.getPosition(), zone.getRotation(), zone.getScale()
        local a = math.rad(r.y)
        box = { x = p.x, y = p.y, z = p.z, sin = math.sin(a), cos = math.cos(a), hx = s.x / 2, hz = s.z / 2 }
        box_cache[key] = box
    end
    return box
end

--- Whether position p lies inside a zone's box, seen from above (pure Lua over the zone's cached box).
function M.holds(zone, p)
    local b = box_of(zone)
    local dx, dz = p.x - b.x, p.z - b.z
    local lx = dx * b.cos - dz * b.sin
    local lz = dx * b.sin + dz * b.cos
    return math.abs(lx) <= b.hx + 1e-6 and math.abs(lz) <= b.hz + 1e-6
end

--- The zone with `tag` whose memo matches every key of `match` (nil: the first one).
function M.zone(tag, match)
    local key = tag
    for k, v in pairs(match or {}) do
        key = key .. "|" .. tostring(k) .. "=" .. tostring(v)
    end
    local cached = zone_cache[key]
    if cached ~= nil then
        return cached
    end
    cached = libpieces.zone(tag, match)
    zone_cache[key] = cached
    return cached
end

--- A seat's zone of a kind ("ku-hunt-area", "ku-catch", "ku-trick-deck", "ku-trick-discard",
--  "ku-hunt-discard", "ku-character-spot").
function M.seat_zone(tag, colour)
    return M.zone(tag, { owner = colour })
end

function M.line_zone(index)
    return M.zone("ku-line", { index = index })
end

function M.slot_zone(index, slot)
    return M.zone("ku-trick-slot", { index = index, slot = slot })
end

function M.stock_zone(item)
    return M.zone("ku-market-stock", { item = item })
end

--- The seat mat of colour.
function M.mat_of(colour)
    return M.zone("ku-seat-mat", { owner = colour })
end

--- colour's hand transform (read once: hand zones do not move during a game).
function M.hand_transform(colour)
    if hands[colour] == nil then
        hands[colour] = Player[colour].getHandTransform()
    end
    return hands[colour]
end

--- Whether position p lies in colour's hand zone (seen from above), by the hand's transform.
local function in_hand_zone(colour, p)
    local t = M.hand_transform(colour)
    if t == nil then
        return false
    end
    local d = { x = p.x - t.position.x, y = p.y - t.position.y, z = p.z - t.position.z }
    local across = (d.x * t.right.x + d.y * t.right.y + d.z * t.right.z) / math.max(t.scale.x, 0.001)
    local along = (d.x * t.forward.x + d.y * t.forward.y + d.z * t.forward.z) / math.max(t.scale.z, 0.001)
    return math.abs(across) <= 0.5 and math.abs(along) <= 0.5
end

--- Whether obj lies in colour's hand zone (seen from above), by the hand's transform: a card a player has just
--  dropped is read where it lies, not from getHandObjects (updated by physics, a frame late).
function M.over_hand(colour, obj)
    return in_hand_zone(colour, obj.getPosition())
end

-- ------------------------------------------------------------------ objects
--- The card or token id an object stands for: memo `card`, `token`, or a character card's `character`.
function M.id_of(memo)
    return memo.card or memo.token
end

local function by_height(a, b)
    if math.abs(a.y - b.y) > 0.001 then
        return a.y < b.y
    end
    return a.guid < b.guid
end

--- Every card and token of the game on the table (loose, not held) or in a deck or bag lying on it:
--  a list of {id, memo, obj (loose) | container, guid, position, y}. Objects inside a container sit below
--  the container's loose neighbours, index 0 (the top) highest.
local memo_cache = {}

--- A memo decoded once, keyed by its text (never by GUID: a spawning object's GUID is provisional, and an object
--  taken out of a container may come back with a new one).
local function decoded(text)
    local key = text or ""
    local m = memo_cache[key]
    if m == nil then
        m = util.decode(text)
        memo_cache[key] = m
    end
    return m
end

--- An object's memo (a memo never changes).
local function memo_of(obj)
    return decoded(obj.memo)
end

local function entry_memo(entry)
    return decoded(entry.memo)
end

local PIECE_TAGS = { "ku-card", "ku-token", "ku-character-bag", "ku-unicorn-deck", "ku-start-deck",
    "ku-character-hunting-deck", "ku-character-trick-deck" }

--- The cards, tokens, decks and bags of the game lying on the table (each once), and the decks cards formed on
--  the table by merging (a card laid or dropped on a card: a new deck, without their tags).
local function pieces()
    local seen, out = {}, {}
    for _, tag in ipairs(PIECE_TAGS) do
        for _, obj in ipairs(libpieces.tagged_and_decks(tag)) do
            local guid = obj.getGUID()
            if not seen[guid] then
                seen[guid] = true
                table.insert(out, obj)
            end
        end
    end
    return out
end

function M.everything()
    local out = {}
    for _, obj in ipairs(pieces()) do
        if obj.held_by_color == nil then
            local kind = obj.type
            if kind == "Bag" and obj.hasTag("ku-character-bag") then
                -- an unused character's bag is in the box as that character (the engine lists it there)
                local guid = obj.getGUID()
                local m = memo_of(obj, guid)
                local p = obj.getPosition()
                table.insert(out, { id = m.character, memo = m, obj = obj, guid = guid, position = p, y = p.y })
            end
            if kind == "Deck" or kind == "Bag" then
                local p = obj.getPosition()
                local contents = obj.getObjects()
                for i, entry in ipairs(contents) do
                    local m = entry_memo(entry)
                    local id = M.id_of(m)
                    if id ~= nil then
                        table.insert(out, { id = id, memo = m, container = obj, guid = entry.guid, position = p,
                            y = p.y - 0.5 + 0.001 * (#contents - i) })
                    end
                end
            elseif kind ~= "Bag" then
                local guid = obj.getGUID()
                local m = memo_of(obj, guid)
                local id = M.id_of(m)
                if id ~= nil then
                    local p = obj.getPosition()
                    table.insert(out, { id = id, memo = m, obj = obj, guid = guid, position = p, y = p.y })
                end
            end
        end
    end
    return out
end

--- Whether a found entry (M.everything) lies in zone.
local function entry_in(zone, entry)
    if zone == nil then
        return false
    end
    return M.holds(zone, entry.position)
end
M.entry_in = entry_in

--- Watch an object the mod has just set moving (lib.pieces: lib.play waits for it before reading the table).
M.track = libpieces.track

-- ------------------------------------------------------------------ where things go
--- A position in zone-local coordinates (x and z in -0.5 … 0.5 across the zone), at `lift` above the table.
local function local_spot(zone, x, z, lift)
    local w = zone.positionToWorld({ x = x, y = 0, z = z })
    return { x = w.x, y = zone.getPosition().y + 0.1 + (lift or 0), z = w.z }
end

-- The catch area. A caught unicorn lies in its printed colour's column (legendary unicorns in the last one),
-- whatever colour a token makes it count as: the column's first unicorn on the mat's snap point tagged
-- `ku-catch-column:<colour>`, each later one `catch_step` nearer the owner (closer when a column holds more than
-- fits in full steps, so that every unicorn stays on the mat). A pinned trick lies under its unicorn, a market
-- token on it, both with their centre on the strip of the unicorn the next one leaves visible: read back, such a
-- centre lies inside that unicorn's card and under no later one (M.catch_owner).
local layout = { card = { 2.0, 2.8 }, catch_columns = { "legendary" }, catch_step = 0.6, catch_lift = 0.05 }
local frames = {}

--- Take the table's geometry from generated.game (`layout`).
function M.configure(geometry)
    for k, v in pairs(geometry or {}) do
        layout[k] = v
    end
    frames = {}
end

--- The catch-area column of a unicorn (its memo or card facts): its colour, or "legendary".
function M.column_of(facts)
    local c = (facts or {}).colour
    if type(c) == "string" and c ~= "" then
        return c
    end
    return "legendary"
end

local function unit(a, b)
    local dx, dz = b.x - a.x, b.z - a.z
    local n = math.sqrt(dx * dx + dz * dz)
    if n < 1e-9 then
        return { x = 0, z = 0 }
    end
    return { x = dx / n, z = dz / n }
end

local function dot(v, d)
    return v.x * d.x + v.z * d.z
end

--- colour's catch-area frame (read once): the zone, `toward` (unit vector to the owner's edge), `right` (to the
--  owner's right), each column's first spot and how far a column may reach (`room`: from the first unicorn's
--  centre to the last one's, the whole card staying inside the zone).
function M.catch_frame(colour)
    local f = frames[colour]
    if f ~= nil then
        return f
    end
    local zone = M.seat_zone("ku-catch", colour)
    local mat = M.mat_of(colour)
    if zone == nil or mat == nil then
        return nil
    end
    local far, near = zone.positionToWorld({ x = 0, y = 0, z = -0.5 }), zone.positionToWorld({ x = 0, y = 0, z = 0.5 })
    local left, right = zone.positionToWorld({ x = 0.5, y = 0, z = 0 }), zone.positionToWorld({ x = -0.5, y = 0, z = 0 })
    f = { zone = zone, toward = unit(far, near), right = unit(left, right), first = {}, y = zone.getPosition().y }
    local centre = zone.getPosition()
    local half = math.abs(zone.getScale().z) / 2
    for _, sp in ipairs(mat.getSnapPoints()) do
        for _, tag in ipairs(sp.tags or {}) do
            if util.starts_with(tag, "ku-catch-column:") then
                local w = mat.positionToWorld(sp.position)
                f.first[string.sub(tag, string.len("ku-catch-column:") + 1)] = { x = w.x, z = w.z }
            end
        end
    end
    f.room = {}
    for column, p in pairs(f.first) do
        local along = dot({ x = p.x - centre.x, z = p.z - centre.z }, f.toward)
        f.room[column] = math.max(0, half - along - layout.card[2] / 2)
    end
    frames[colour] = f
    return f
end

--- The step between two unicorns of a column holding `count`: catch_step, or less when they would not fit.
function M.catch_step(f, column, count)
    local step = layout.catch_step
    local room = (f.room or {})[column] or 0
    if count > 1 and step * (count - 1) > room + 1e-6 then
        step = room / (count - 1)
    end
    return step
end

--- Where the `slot`-th (0-based) unicorn of `column` lies in colour's catch area when the column holds
--  `count`; with `what` = "pinned" or "token", its k-th (0-based) pinned trick or token.
function M.catch_spot(colour, column, slot, count, what, k)
    local f = M.catch_frame(colour)
    local first = f.first[column] or f.first.legendary
    local step = M.catch_step(f, column, count)
    local a, r = slot * step, 0
    local y = f.y + 0.1 + layout.catch_lift * slot
    if what ~= nil then
        -- the centre of the strip of this unicorn that the next one leaves visible
        a = a - layout.card[2] / 2 + step / 2
        if what == "pinned" then
            r, y = 0.3, f.y + 0.05 + 0.01 * k
            a = a + 0.05 * k
        else
            r, y = 0.55 - 0.35 * k, f.y + 0.2 + layout.catch_lift * count + 0.05 * k
        end
    end
    return { x = first.x + a * f.toward.x + r * f.right.x, y = y, z = first.z + a * f.toward.z + r * f.right.z }
end

--- Which of `unicorns` (a list of {id, position}, lying in colour's catch area) a pinned trick or token lying at
--  p belongs to: the one whose card (seen from above) contains p; where cards of a column overlap there, the one
--  nearer the owner (laid later, lying on top: the one a player sees there). A point on no card: the nearest one.
function M.catch_owner(colour, p, unicorns)
    local f = M.catch_frame(colour)
    local hw, hd = layout.card[1] / 2 + 1e-3, layout.card[2] / 2 + 1e-3
    local best, best_along = nil, nil
    for _, u in ipairs(unicorns) do
        local d = { x = p.x - u.position.x, z = p.z - u.position.z }
        if math.abs(dot(d, f.right)) <= hw and math.abs(dot(d, f.toward)) <= hd then
            local along = dot(u.position, f.toward)
            if best_along == nil or along > best_along then
                best, best_along = u.id, along
            end
        end
    end
    if best ~= nil then
        return best
    end
    local best_d = nil
    for _, u in ipairs(unicorns) do
        local d = util.flat_distance(u.position, p)
        if best_d == nil or d < best_d then
            best, best_d = u.id, d
        end
    end
    return best
end

--- A pile's k-th card (0-based) in a zone: on top of the k below it.
function M.pile_spot(zone, k)
    return local_spot(zone, 0, 0, M.LIFT * k)
end

--- A spread of k items over a zone (the box, the hunt area, the tokens beside the character card).
function M.spread_spot(zone, k, columns)
    columns = columns or 8
    local x = -0.45 + 0.9 * ((k % columns) + 0.5) / columns   -- three cards apart across a hunt area
    local z = 0.3 - 0.2 * math.floor(k / columns)
    return local_spot(zone, x, z, 0.01 * math.floor(k / (columns * 4)))
end

--- Where the k-th spare character bag lies in the box: two columns at its far end, the bags further apart than
--  a bag is wide (a bag landing on a bag enters it), clear of the box's spread of unicorns and tokens.
function M.box_spot(zone, k)
    local x = 0.22 * (2 * (k % 2) - 1)
    local z = -0.3 - 0.13 * math.floor(k / 2)
    return local_spot(zone, x, z, 0)
end

-- ------------------------------------------------------------------ reading the table
--- The card lists of a zone read off `found` (M.everything): the ids lying in it, bottom first; `keep(entry)`
--  filters.
local function ids_in(zone, found, keep)
    local list = {}
    for _, entry in ipairs(found) do
        if entry_in(zone, entry) and (keep == nil or keep(entry)) then
            table.insert(list, entry)
        end
    end
    table.sort(list, by_height)
    local out = {}
    for i, entry in ipairs(list) do
        out[i] = entry.id
    end
    return out
end

local function role(entry)
    return entry.memo.role
end

local function is_role(name)
    return function(entry) return entry.memo.role == name end
end

--- Sort `list` (entries with .id) in the order `known` (ids) has them; the others after, by `fallback`.
local function in_known_order(list, known, fallback)
    local rank = {}
    for i, id in ipairs(known or {}) do
        rank[id] = i
    end
    table.sort(list, function(a, b)
        local ra, rb = rank[a.id], rank[b.id]
        if ra ~= nil and rb ~= nil then
            return ra < rb
        elseif ra ~= nil or rb ~= nil then
            return ra ~= nil
        end
        return fallback(a, b)
    end)
end

--- What lies in colour's catch area: a list of {unicorn, pinned, tokens}, in the order of `before` (the
--  player's catch in the engine's last snapshot), unicorns it does not list after them by column and place.
--  A pinned trick or token belongs to the unicorn it lies on (M.catch_owner).
local function read_catch(colour, found, before)
    local zone = M.seat_zone("ku-catch", colour)
    local f = M.catch_frame(colour)
    local unicorns = {}
    for _, entry in ipairs(found) do
        if role(entry) == "unicorn" and entry_in(zone, entry) then
            table.insert(unicorns, entry)
        end
    end
    local column_rank = {}
    for i, c in ipairs(layout.catch_columns or {}) do
        column_rank[c] = i
    end
    local order, attached_before = {}, {}
    for i, c in ipairs(before or {}) do
        order[i] = c.unicorn
        attached_before[c.unicorn] = { pinned = c.pinned or {}, tokens = c.tokens or {} }
    end
    in_known_order(unicorns, order, function(a, b)
        local ca, cb = column_rank[M.column_of(a.memo)] or 99, column_rank[M.column_of(b.memo)] or 99
        if ca ~= cb then
            return ca < cb
        end
        return dot(a.position, f.toward) < dot(b.position, f.toward)
    end)
    local out, attached, index = {}, {}, {}
    for i, u in ipairs(unicorns) do
        out[i] = { unicorn = u.id, pinned = {}, tokens = {} }
        attached[i] = { pinned = {}, tokens = {} }
        index[u.id] = i
    end
    for _, entry in ipairs(found) do
        local kind = role(entry)
        if (kind == "trick" or kind == "token") and entry_in(zone, entry) and #unicorns > 0 then
            local i = index[M.catch_owner(colour, entry.position, unicorns)]
            if kind == "trick" then
                table.insert(attached[i].pinned, entry)
            else
                table.insert(attached[i].tokens, entry)
            end
        end
    end
    for i = 1, #out do
        local was = attached_before[out[i].unicorn] or {}
        in_known_order(attached[i].pinned, was.pinned, by_height)
        in_known_order(attached[i].tokens, was.tokens, by_height)
        out[i].pinned = util.pluck(attached[i].pinned, "id")
        out[i].tokens = util.pluck(attached[i].tokens, "id")
    end
    return out
end

--- Hunting and trick cards lying in colour's hand zone, by id, read by position (`found`: M.everything(), the
--  cards not held): getHandObjects is updated by physics a frame late, so it would miss a card that came to rest
--  in the hand (sent back after a refusal, dealt by a ruling) in the frame the snapshot is taken.
function M.hand_cards(colour, found)
    local hunting, tricks = {}, {}
    for _, entry in ipairs(found or M.everything()) do
        local role = entry.memo.role
        if entry.obj ~= nil and (role == "hunting" or role == "trick") and in_hand_zone(colour, entry.position) then
            table.insert(role == "hunting" and hunting or tricks, entry.id)
        end
    end
    table.sort(hunting)
    table.sort(tricks)
    return hunting, tricks
end

local function contains(list, value)
    return util.index_of(list or {}, value) ~= nil
end

--- The table as the snapshot of docs/games/kill_the_unicorns/protocol.md: the envelope (`ttsmod_snapshot`,
--  and the `game` and `mode` the table was built for, `ledger.game` and `ledger.mode`), every physical key read
--  off the table (ids bottom first), the engine's bookkeeping (`ledger.snapshot`, the engine's last snapshot, minus
--  its physical keys) sent back as it came. Lua cannot hold null: an empty place is written false.
--
--  What a player has moved for the decision being asked about counts where the engine last had it
--  (`ledger.snapshot`): hunting cards laid in the hunt area before Hunt is pressed or dropped on a market stock to
--  pay are still in the hand; a trick card just dropped on a slot is still in the trick hand; a market token
--  dragged out of its stock onto a unicorn (to name the unicorn a purchase goes on) is still in stock.
function M.snapshot(ledger)
    local last = ledger.snapshot or {}
    local snap = {}
    for k, v in pairs(last) do
        if not contains(M.PHYSICAL, k) and k ~= "players" then
            snap[k] = util.deep_copy(v)
        end
    end
    -- the envelope, also on a table the engine has not described yet (before Setup's answer)
    snap.ttsmod_snapshot = M.SNAPSHOT_FORMAT
    snap.game = ledger.game or last.game
    snap.mode = ledger.mode or last.mode
    local found = M.everything()
    local colours = ledger.colours or {}
    local seat_of_character = {}
    snap.players = {}
    for seat, colour in ipairs(colours) do
        local before = (last.players or {})[seat] or {}
        local p = {}
        for k, v in pairs(before) do
            if not contains(M.PLAYER_PHYSICAL, k) then
                p[k] = util.deep_copy(v)
            end
        end
        if p.character ~= nil then
            seat_of_character[p.character] = seat
        end
        local hand, trick_hand = M.hand_cards(colour, found)
        p.hand, p.trick_hand = hand, trick_hand
        local area = M.seat_zone("ku-hunt-area", colour)
        p.played = {}
        for _, id in ipairs(ids_in(area, found, is_role("hunting"))) do
            if contains(before.played, id) then
                table.insert(p.played, id)
            else
                table.insert(p.hand, id)
            end
        end
        p.hunt_discard = ids_in(M.seat_zone("ku-hunt-discard", colour), found, is_role("hunting"))
        p.trick_deck = ids_in(M.seat_zone("ku-trick-deck", colour), found, is_role("trick"))
        p.trick_discard = ids_in(M.seat_zone("ku-trick-discard", colour), found, is_role("trick"))
        p.catch = read_catch(colour, found, before.catch)
        p.tokens = ids_in(M.seat_zone("ku-character-spot", colour), found, is_role("token"))
        snap.players[seat] = p
    end
    -- the line and its trick slots
    local lines = #(last.line or {})
    if lines == 0 then
        lines = 4
    end
    snap.line, snap.slots = {}, {}
    for i = 0, lines - 1 do
        local on = ids_in(M.line_zone(i), found, is_role("unicorn"))
        snap.line[i + 1] = on[#on] or false
        local pair = {}
        for j, slot in ipairs({ "above", "below" }) do
            local here = ids_in(M.slot_zone(i, slot), found, is_role("trick"))
            local before = ((last.slots or {})[i + 1] or {})[j]
            local id = false
            for _, card in ipairs(here) do
                if card == before then
                    id = card
                else
                    -- just dropped there: still in its owner's trick hand until the engine rules
                    local owner = nil
                    for _, entry in ipairs(found) do
                        if entry.id == card then
                            owner = seat_of_character[entry.memo.character]
                        end
                    end
                    if owner ~= nil then
                        table.insert(snap.players[owner].trick_hand, card)
                    end
                end
            end
            pair[j] = id
        end
        snap.slots[i + 1] = pair
    end
    snap.unicorn_deck = ids_in(M.one("ku-unicorn-deck-zone"), found, is_role("unicorn"))
    snap.unicorn_discard = ids_in(M.one("ku-unicorn-discard"), found, is_role("unicorn"))
    snap.box = ids_in(M.one("ku-box"), found, function(entry)
        local kind = entry.memo.role
        return kind == "unicorn" or kind == "token" or kind == "character-bag"
    end)
    -- the market: tokens in their stock, and those dragged out for a purchase not yet ruled
    snap.market = {}
    for item, _ in pairs(last.market or {}) do
        snap.market[item] = ids_in(M.stock_zone(item), found, is_role("token"))
    end
    for seat, p in ipairs(snap.players) do
        local before = (last.players or {})[seat] or {}
        local kept = {}
        for _, id in ipairs(p.tokens) do
            if contains(before.tokens, id) then
                table.insert(kept, id)
            end
        end
        p.tokens = kept
        for j, c in ipairs(p.catch) do
            local was = {}
            for _, old in ipairs(before.catch or {}) do
                if old.unicorn == c.unicorn then
                    was = old.tokens or {}
                end
            end
            local tokens = {}
            for _, id in ipairs(c.tokens) do
                if contains(was, id) then
                    table.insert(tokens, id)
                end
            end
            p.catch[j].tokens = tokens
        end
    end
    for item, stock in pairs(last.market or {}) do
        for _, id in ipairs(stock) do
            if not contains(snap.market[item], id) then
                local placed = false
                for _, p in ipairs(snap.players) do
                    if contains(p.tokens, id) then
                        placed = true
                    end
                    for _, c in ipairs(p.catch) do
                        if contains(c.tokens, id) then
                            placed = true
                        end
                    end
                end
                if not placed then
                    table.insert(snap.market[item], id)
                end
            end
        end
    end
    -- hunting cards dropped on a market stock to pay are still in their owner's hand
    for item, _ in pairs(last.market or {}) do
        for _, entry in ipairs(found) do
            if entry.memo.role == "hunting" and entry_in(M.stock_zone(item), entry) then
                local seat = seat_of_character[entry.memo.character]
                if seat ~= nil then
                    table.insert(snap.players[seat].hand, entry.id)
                end
            end
        end
    end
    for _, p in ipairs(snap.players) do
        table.sort(p.hand)
        table.sort(p.trick_hand)
    end
    return snap
end

--- Hunting cards lying in colour's hunt area that the engine has not taken as played yet (laid for Hunt): entries
--  of M.everything() (loose, or in a deck they formed there: cards laid on cards merge), by id.
function M.laid_for_hunt(ledger, seat, colour)
    local before = (((ledger.snapshot or {}).players or {})[seat + 1] or {}).played or {}
    local area = M.seat_zone("ku-hunt-area", colour)
    local out = {}
    for _, entry in ipairs(M.everything()) do
        if entry.memo.role == "hunting" and entry_in(area, entry) and not contains(before, entry.id) then
            table.insert(out, entry)
        end
    end
    table.sort(out, function(a, b) return a.id < b.id end)
    return out
end

--- Hunting cards lying on a market stock zone, by item: the payment offered for a purchase (entries of
--  M.everything(): cards dropped on one stock merge into a deck there).
function M.offered_payment()
    local out = {}
    local found = M.everything()
    for _, zone in ipairs(getObjectsWithTag("ku-market-stock")) do
        local item = util.memo(zone).item
        for _, entry in ipairs(found) do
            if entry.memo.role == "hunting" and entry_in(zone, entry) then
                out[item] = out[item] or {}
                table.insert(out[item], entry)
            end
        end
    end
    return out
end

--- The trick slot (index, slot) a card lies in, or nil.
function M.slot_at(obj)
    for _, zone in ipairs(getObjectsWithTag("ku-trick-slot")) do
        if M.inside(zone, obj) then
            local m = util.memo(zone)
            return m.index, m.slot
        end
    end
    return nil, nil
end

return M
