-- Where things are on the 15 Days table (docs/games/fifteen_days/table-contract.md) and what lies where.
--
-- Everything is found by tags and memo, never by GUID or by where the build laid it. The table is the state:
-- a card's place is read from where it lies, a pile's order from height (the card laid last lies highest), a
-- corner's cards from the board's card snap points. Places are read only once nothing is moving (`M.moving`):
-- TTS updates positions and zone membership with physics, once per frame (docs/headless.md), so membership is
-- decided here by position inside a zone's box, never by the zone's getObjects().
--
-- A card is named by its memo `card` id; the snapshot names hand, pile, market and discard cards by face
-- (`summer-3`, the form the engine's actions use) and keeps the ids in `ids` for the mod's own moves.
local pieces = require("lib.pieces")
local seats = require("lib.seats")
local util = require("lib.util")

local M = {}

M.NEAR = 0.6          -- a card lies on a snap point when its centre is this close (horizontal distance)
M.REMOVED = "fd-removed"   -- tag the mod puts on a card Setup takes out of the game (FD-1.2, FD-1.7)

M.one = seats.one

-- Objects a player has just moved for a decision still being checked (a card dropped on a board or on the
-- discard pile, cards offered for a wild, a wild dropped on a card point): until the bridge rules, the
-- snapshot counts them where they were, in their player's hand, and nowhere else (see M.snapshot).
local held = {}

local function is_held(obj)
    return held[obj.getGUID()] ~= nil
end
M.same = seats.same
M.colours_in_play = seats.colours_in_play

--- Whether obj lies inside a scripting zone's box (seen from above) and is not held.
function M.inside(zone, obj)
    return obj.held_by_color == nil and pieces.holds(zone, obj.getPosition())
end

--- Whether obj lies inside a scripting zone's box (seen from above), held or not: where a card was when a
--  player picked it up.
function M.over(zone, obj)
    return pieces.holds(zone, obj.getPosition())
end

--- Whether obj lies inside colour's hand zone (a card a player has just dropped is read where it lies).
M.over_hand = seats.in_hand

-- The zones a player may take a card from by dragging it into their hand: market columns (FD-2.B), the
-- discard pile (FD-2.B) and the draw piles (FD-2.A).
local TAKE_ZONES = { { tag = "fd-market-column", count = 3 }, { tag = "fd-discard" },
    { tag = "fd-draw-pile", count = 2 } }

--- Where a season card a player picks up was lying, if in a market column, the discard pile or a draw pile:
--  {tag, index (nil for the discard pile), top (no other card of that zone lies higher), position, rotation};
--  nil anywhere else.
function M.origin_of(obj)
    if not obj.hasTag("fd-season") or obj.hasTag(M.REMOVED) then
        return nil
    end
    for _, kind in ipairs(TAKE_ZONES) do
        for i = 0, (kind.count or 1) - 1 do
            local index = nil
            if kind.count ~= nil then
                index = i
            end
            local zone = M.zone(kind.tag, index)
            if zone ~= nil and M.over(zone, obj) then
                local y = obj.getPosition().y
                local top = true
                for _, other in ipairs(getObjectsWithTag("fd-season")) do
                    if not M.same(other, obj) and not other.hasTag(M.REMOVED) and M.inside(zone, other)
                        and other.getPosition().y > y + 0.001 then
                        top = false
                    end
                end
                local p, r = obj.getPosition(), obj.getRotation()
                return { tag = kind.tag, index = index, top = top, position = { x = p.x, y = p.y, z = p.z },
                    rotation = { r.x, r.y, r.z } }
            end
        end
    end
    return nil
end

--- The zone with `tag` whose memo `index` is `index` (nil: the only one).
function M.zone(tag, index)
    return pieces.zone(tag, { index = index })
end

--- The face name of a season card's memo: "summer-3".
function M.face(memo)
    return tostring(memo.season) .. "-" .. tostring(math.floor(memo.value + 0.5))
end

local function by_height(a, b)
    local pa, pb = a.getPosition(), b.getPosition()
    if math.abs(pa.y - pb.y) > 0.001 then
        return pa.y < pb.y
    end
    return a.getGUID() < b.getGUID()
end

--- The decks lying in zone (not held), lowest first: any deck, tagged or not. Cards laid or dropped onto a card
--  merge into a deck there (TTS: a card onto a card forms a deck, onto a deck joins it), and a deck formed on
--  the table carries none of its cards' tags; what it holds is read from its contents' memos.
function M.decks_in(zone)
    local out = {}
    for _, obj in ipairs(getObjects()) do
        if obj.type == "Deck" and obj.held_by_color == nil and pieces.holds(zone, obj.getPosition()) then
            table.insert(out, obj)
        end
    end
    table.sort(out, by_height)
    return out
end

local function entry_removed(entry)
    for _, tag in ipairs(entry.tags or {}) do
        if tag == M.REMOVED then
            return true
        end
    end
    return false
end

--- The season card entries of a deck's contents that are in play (not set aside), bottom card first:
--  {id, face, guid, deck}.
local function deck_seasons(deck)
    local out = {}
    local contents = deck.getObjects()
    for i = #contents, 1, -1 do
        local m = util.decode(contents[i].memo)
        if m.card ~= nil and m.season ~= nil and not entry_removed(contents[i]) and not held[contents[i].guid] then
            table.insert(out, { id = m.card, face = M.face(m), guid = contents[i].guid, deck = deck })
        end
    end
    return out
end

--- Season cards on the table (not held, not in a container) lying in zone, lowest first. A deck lying in
--  the zone (the season deck, or one the pile's cards formed) counts with its contents, below the loose cards
--  (a deck's index 0 is its top). Returns a list of {id, face, obj (nil inside a deck), deck (the deck or nil)},
--  bottom first.
function M.stack(zone)
    local out = {}
    for _, deck in ipairs(M.decks_in(zone)) do
        for _, entry in ipairs(deck_seasons(deck)) do
            table.insert(out, entry)
        end
    end
    local loose = {}
    for _, obj in ipairs(getObjectsWithTag("fd-season")) do
        if not obj.hasTag(M.REMOVED) and not is_held(obj) and M.inside(zone, obj) then
            table.insert(loose, obj)
        end
    end
    table.sort(loose, by_height)
    for _, obj in ipairs(loose) do
        local m = util.memo(obj)
        table.insert(out, { id = m.card, face = M.face(m), guid = obj.getGUID(), obj = obj })
    end
    return out
end

--- Where card `id` is: {obj = it} lying loose on the table, or {deck = the deck, guid = its GUID} inside a deck
--  on the table (one a pile's or a column's cards formed); nil when it is nowhere.
function M.find_card(id)
    for _, obj in ipairs(getObjectsWithTag("fd-card")) do
        if util.memo(obj).card == id then
            return { obj = obj }
        end
    end
    for _, deck in ipairs(getObjects()) do
        if deck.type == "Deck" then
            for _, entry in ipairs(deck.getObjects()) do
                if util.decode(entry.memo).card == id then
                    return { deck = deck, guid = entry.guid, entry = entry }
                end
            end
        end
    end
    return nil
end

--- Card `id` as the mod handles a card a player has moved: the object lying loose, or, once it has merged into
--  a deck where it came to rest (a card dropped on a card or a deck joins it), a ref standing for it there:
--  `card`, `deck`, `guid`, `memo`, `getGUID()`, `getPosition()` (the deck's), `hasTag(tag)`, `isDestroyed()`
--  (false), `getRotation()`. nil when it is nowhere.
local refs = {}   -- the refs M.ref made (few: one per card that merged where a player dropped it)

--- Whether obj is a ref of M.ref (not a TTS object: TTS objects have no fields of the mod's own).
function M.is_ref(obj)
    return refs[obj] == true
end

function M.ref(id)
    local found = M.find_card(id)
    if found == nil or found.obj ~= nil then
        return found and found.obj
    end
    local entry, deck = found.entry, found.deck
    local ref = {
        card = id, deck = deck, guid = entry.guid, memo = entry.memo,
        getGUID = function() return entry.guid end,
        getPosition = function() return deck.getPosition() end,
        getRotation = function() return deck.getRotation() end,
        hasTag = function(tag)
            for _, t in ipairs(entry.tags or {}) do
                if t == tag then
                    return true
                end
            end
            return false
        end,
        isDestroyed = function() return deck.isDestroyed() end,
    }
    refs[ref] = true
    return ref
end

--- The player board of colour.
function M.board_of(colour)
    return pieces.zone("fd-board", { owner = colour })
end

--- The seat area of colour (where its animals and feathers lie).
function M.seat_of(colour)
    return pieces.zone("fd-seat", { owner = colour })
end

--- World positions of a board's snap points by tag prefix ("fd-corner:"), each with its tags.
function M.points(board)
    local out = {}
    for _, sp in ipairs(board.getSnapPoints()) do
        local entry = { position = board.positionToWorld(sp.position), corner = nil, value = nil, tags = sp.tags or {} }
        for _, tag in ipairs(sp.tags or {}) do
            if util.starts_with(tag, "fd-corner:") then
                entry.corner = tonumber(string.sub(tag, 11))
            elseif util.starts_with(tag, "fd-value:") then
                entry.value = tonumber(string.sub(tag, 10))
            elseif util.starts_with(tag, "fd-animal-spot:") then
                entry.animal = string.sub(tag, 16)
            elseif util.starts_with(tag, "fd-feather-spot:") then
                entry.feather = tonumber(string.sub(tag, 17))
            end
        end
        table.insert(out, entry)
    end
    return out
end

--- The card point of (corner, value) on a board, or nil.
function M.card_point(board, corner, value)
    for _, p in ipairs(M.points(board)) do
        if p.corner == corner and p.value == value then
            return p.position
        end
    end
    return nil
end

--- The card point of a board an object lies on: corner, value; nil when on none. `points` is
--  M.points(board) when the caller has it already (reading them is one API call per point).
function M.card_point_at(board, pos, points)
    local best, best_d = nil, M.NEAR
    for _, p in ipairs(points or M.points(board)) do
        if p.corner ~= nil and p.value ~= nil then
            local d = util.flat_distance(p.position, pos)
            if d < best_d then
                best, best_d = p, d
            end
        end
    end
    if best == nil then
        return nil, nil
    end
    return best.corner, best.value
end

--- Season and wild cards in colour's hand, read by position in the hand zone: getHandObjects is updated by
--  physics a frame late, so it would miss a card that came to rest in the hand (dealt by a ruling, sent back
--  after a refusal) in the frame the snapshot is taken.
function M.hand_cards(colour)
    local out = {}
    for _, obj in ipairs(getObjectsWithTag("fd-card")) do
        -- a card, not a deck that took its tags (a hand holds cards only)
        if util.memo(obj).card ~= nil and M.over_hand(colour, obj) then
            table.insert(out, obj)
        end
    end
    table.sort(out, function(a, b) return util.memo(a).card < util.memo(b).card end)
    return out
end

--- What lies on colour's board: corners[k+1] = {cards = {[value] = {id, face}}, wild = value or nil},
--  the animals and the number of feathers on it.
function M.board_contents(colour)
    local board = M.board_of(colour)
    local corners = {}
    for k = 1, 4 do
        corners[k] = { cards = {}, wild = nil }
    end
    local animals, feathers = {}, 0
    if board == nil then
        return corners, animals, feathers
    end
    local points = M.points(board)
    for _, obj in ipairs(getObjectsWithTag("fd-card")) do
        if obj.held_by_color == nil and not is_held(obj) and not obj.hasTag(M.REMOVED) then
            local corner, value = M.card_point_at(board, obj.getPosition(), points)
            if corner ~= nil then
                local m = util.memo(obj)
                if obj.hasTag("fd-wild") then
                    corners[corner + 1].wild = value
                    corners[corner + 1].wild_id = m.card
                else
                    corners[corner + 1].cards[value] = { id = m.card, face = M.face(m), season = m.season }
                end
            end
        end
    end
    local seat_zone = M.seat_of(colour)
    if seat_zone ~= nil then
        for _, obj in ipairs(getObjectsWithTag("fd-animal")) do
            if M.inside(seat_zone, obj) then
                table.insert(animals, util.memo(obj).animal)
            end
        end
        for _, obj in ipairs(getObjectsWithTag("fd-feather")) do
            if M.inside(seat_zone, obj) then
                feathers = feathers + 1
            end
        end
    end
    table.sort(animals)
    return corners, animals, feathers
end

--- Tokens (tag) lying in a supply zone (tag).
function M.in_supply(zone_tag, token_tag)
    local zone = M.one(zone_tag)
    local out = {}
    if zone == nil then
        return out
    end
    for _, obj in ipairs(getObjectsWithTag(token_tag)) do
        if M.inside(zone, obj) then
            table.insert(out, obj)
        end
    end
    table.sort(out, function(a, b) return a.getGUID() < b.getGUID() end)
    return out
end

--- The decks in the wild supply zone (the wild deck, or one wilds laid there formed); with no zone, the wild
--  deck.
local function wild_decks(zone)
    if zone == nil then
        return getObjectsWithTag("fd-wild-deck")
    end
    return M.decks_in(zone)
end

--- Wild cards in the wild supply: in the wild deck and loose in the supply zone. List of {id, guid, deck}.
function M.wild_supply()
    local out = {}
    local zone = M.one("fd-wild-supply")
    for _, deck in ipairs(wild_decks(zone)) do
        for _, entry in ipairs(deck.getObjects()) do
            if util.decode(entry.memo).role == "wild" and not entry_removed(entry) then
                table.insert(out, { id = util.decode(entry.memo).card, guid = entry.guid, deck = deck })
            end
        end
    end
    if zone ~= nil then
        for _, obj in ipairs(getObjectsWithTag("fd-wild")) do
            if not obj.hasTag(M.REMOVED) and not is_held(obj) and M.inside(zone, obj) then
                table.insert(out, { id = util.memo(obj).card, guid = obj.getGUID(), obj = obj })
            end
        end
    end
    return out
end

--- Whether anything the mod reads by position is still on its way: a card or token moving or spawning.
function M.moving()
    for _, tag in ipairs({ "fd-card", "fd-token" }) do
        for _, obj in ipairs(getObjectsWithTag(tag)) do
            if obj.spawning or obj.isSmoothMoving() then
                return true
            end
        end
    end
    return false
end

--- The seat (0-based) whose seat area holds the animal token, or false (in the supply).
local function animal_owner(animal, colours)
    for _, obj in ipairs(getObjectsWithTag("fd-animal:" .. animal)) do
        for seat, colour in ipairs(colours) do
            local zone = M.seat_of(colour)
            if zone ~= nil and M.inside(zone, obj) then
                return seat - 1
            end
        end
    end
    return false
end

-- ------------------------------------------------------------------ one reading of the cards, for a snapshot
-- A snapshot looks at every card several times (hands, boards, piles, supplies). It reads each card's memo, tags,
-- position and holder once instead: TTS (and the headless table) pay for every call into an object, and a
-- snapshot is taken for every decision, score and bot move.

--- Every card on the table (objects tagged fd-card), each read once: {obj, guid, memo, season, wild, removed,
--  held (a player holds it), pos}.
local function read_cards()
    local out = {}
    for _, obj in ipairs(getObjectsWithTag("fd-card")) do
        table.insert(out, { obj = obj, guid = obj.getGUID(), memo = util.memo(obj), season = obj.hasTag("fd-season"),
            wild = obj.hasTag("fd-wild"), removed = obj.hasTag(M.REMOVED), held = obj.held_by_color ~= nil,
            pos = obj.getPosition() })
    end
    return out
end

--- M.inside for read cards: whether a card entry lies inside the zone's box (seen from above) and is not held.
--  Only cards within the box's reach (half its diagonal, whatever its rotation) are asked positionToLocal.
local function zone_test(zone)
    local c, s = zone.getPosition(), zone.getScale()
    local reach = 0.5 * math.sqrt(s.x * s.x + s.y * s.y + s.z * s.z) + 0.01
    return function(entry)
        if entry.held or util.flat_distance(c, entry.pos) > reach then
            return false
        end
        local q = zone.positionToLocal(entry.pos)
        return math.abs(q.x) <= 0.5 and math.abs(q.z) <= 0.5
    end
end

local function entry_by_height(a, b)
    if math.abs(a.pos.y - b.pos.y) > 0.001 then
        return a.pos.y < b.pos.y
    end
    return a.guid < b.guid
end

--- The ids of M.stack(zone), from read cards.
local function stack_ids(zone, cards)
    local out = {}
    for _, deck in ipairs(M.decks_in(zone)) do
        for _, entry in ipairs(deck_seasons(deck)) do
            table.insert(out, entry.id)
        end
    end
    local within = zone_test(zone)
    local loose = {}
    for _, e in ipairs(cards) do
        if e.season and not e.removed and not held[e.guid] and within(e) then
            table.insert(loose, e)
        end
    end
    table.sort(loose, entry_by_height)
    for _, e in ipairs(loose) do
        table.insert(out, e.memo.card)
    end
    return out
end

--- The season card ids of M.hand_cards(colour) not held for a decision, from read cards (card id order).
local function hand_ids(colour, cards)
    local out = {}
    for _, e in ipairs(cards) do
        -- seats.in_hand reads only the position of what it is given
        if e.memo.card ~= nil and e.season and not held[e.guid]
            and M.over_hand(colour, { getPosition = function() return e.pos end }) then
            table.insert(out, e.memo.card)
        end
    end
    table.sort(out)
    return out
end

--- The corners of M.board_contents(colour) as the snapshot writes them (ids by value, lowest first; the wild's
--  value or false), from read cards.
local function corner_ids(colour, cards, values)
    local corners = {}
    local found = {}
    for k = 1, 4 do
        found[k] = { cards = {}, wild = false }
    end
    local board = M.board_of(colour)
    if board ~= nil then
        local points = M.points(board)
        for _, e in ipairs(cards) do
            if not e.held and not held[e.guid] and not e.removed then
                local corner, value = M.card_point_at(board, e.pos, points)
                if corner ~= nil then
                    if e.wild then
                        found[corner + 1].wild = value
                    else
                        found[corner + 1].cards[value] = e.memo.card
                    end
                end
            end
        end
    end
    for k, c in ipairs(found) do
        local ids_by_value = {}
        for _, value in ipairs(values or {}) do
            if c.cards[value] ~= nil then
                table.insert(ids_by_value, c.cards[value])
            end
        end
        corners[k] = { cards = ids_by_value, wild = c.wild }
    end
    return corners
end

--- The feathers lying in colour's seat area (M.board_contents' count).
local function feathers_of(colour)
    local count = 0
    local zone = M.seat_of(colour)
    for _, obj in ipairs(zone ~= nil and getObjectsWithTag("fd-feather") or {}) do
        if M.inside(zone, obj) then
            count = count + 1
        end
    end
    return count
end

--- #M.wild_supply(), from read cards.
local function wild_supply_count(cards)
    local count = 0
    local zone = M.one("fd-wild-supply")
    for _, deck in ipairs(wild_decks(zone)) do
        for _, entry in ipairs(deck.getObjects()) do
            if util.decode(entry.memo).role == "wild" and not entry_removed(entry) then
                count = count + 1
            end
        end
    end
    if zone ~= nil then
        local within = zone_test(zone)
        for _, e in ipairs(cards) do
            if e.wild and not e.removed and not held[e.guid] and within(e) then
                count = count + 1
            end
        end
    end
    return count
end

--- The engine's turn bookkeeping of a snapshot (every top-level key the table cannot show), kept in the ledger
--  (lib.play's `ledger.snapshot`, global.lua's `keep`); beside it the ledger keeps each seat's `wilds_played`
--  (`ledger.snapshot.players[seat].wilds_played`), the wilds it placed in the game, which the table cannot show
--  once one went back to the supply.
M.BOOKKEEPING = { "rng", "active", "turn", "actions_left", "pending", "boost", "power", "otter_turn",
    "fresh_discards", "end", "over", "feathers_out" }

--- The table as the snapshot of docs/games/fifteen_days/protocol.md (the engine's `to_snapshot` shape): the
--  envelope (`ttsmod_snapshot` 1, the game id and mode); card ids in every pile, column, hand and corner, bottom
--  card first; supplies and animal owners read off the table; the engine's bookkeeping (the keys
--  of M.BOOKKEEPING, and each seat's wilds_played, kept in `ledger.snapshot` as the bridge last wrote them)
--  sent back as it came.
--  Lua cannot hold null: an empty slot is written false (docs/protocol.md).
--  `moved` (optional) maps colour → the objects that player has just moved for the decision being asked
--  about: they count as still in that hand (a season card first among its hand, so that the engine takes that
--  copy of its face) and nowhere else; a wild in a hand is the wild awaiting a place, counted by the engine's
--  pending decision. `taken` (optional, {obj, tag, index}: a card a player has dragged out of a market
--  column, the discard pile or a draw pile into their hand, the take or draw being asked about) counts as the
--  top card of where it came from, and nowhere else.
function M.snapshot(ledger, moved, taken)
    held = {}
    for _, objs in pairs(moved or {}) do
        for _, obj in ipairs(objs) do
            held[obj.getGUID()] = true
        end
    end
    if taken ~= nil then
        held[taken.obj.getGUID()] = true
    end
    local snap = { ttsmod_snapshot = 1, game = ledger.game, mode = ledger.mode, players = {}, draw_piles = {},
        market = {}, discard = {}, removed = {}, animals = {} }
    local cards = read_cards()
    local kept = ledger.snapshot or {}
    for seat, colour in ipairs(ledger.colours) do
        local hand = {}
        for _, obj in ipairs((moved or {})[colour] or {}) do
            if obj.hasTag("fd-season") then
                table.insert(hand, util.memo(obj).card)
            end
        end
        for _, id in ipairs(hand_ids(colour, cards)) do
            table.insert(hand, id)
        end
        snap.players[seat] = { hand = hand, feathers = feathers_of(colour),
            corners = corner_ids(colour, cards, ledger.values), wilds_played = ((kept.players or {})[seat] or {}).wilds_played }
    end
    for i = 0, 1 do
        local zone = M.zone("fd-draw-pile", i)
        snap.draw_piles[i + 1] = {}
        if zone ~= nil then
            snap.draw_piles[i + 1] = stack_ids(zone, cards)
        end
    end
    for i = 0, 2 do
        local zone = M.zone("fd-market-column", i)
        snap.market[i + 1] = {}
        if zone ~= nil then
            snap.market[i + 1] = stack_ids(zone, cards)
        end
    end
    local discard = M.one("fd-discard")
    if discard ~= nil then
        snap.discard = stack_ids(discard, cards)
    end
    if taken ~= nil then
        local id = util.memo(taken.obj).card
        if taken.tag == "fd-draw-pile" then
            table.insert(snap.draw_piles[taken.index + 1], id)
        elseif taken.tag == "fd-market-column" then
            table.insert(snap.market[taken.index + 1], id)
        else
            table.insert(snap.discard, id)
        end
    end
    for _, e in ipairs(cards) do
        if e.season and e.removed then
            table.insert(snap.removed, e.memo.card)
        end
    end
    -- cards set aside together form a deck there: its season cards are still tagged fd-removed
    for _, deck in ipairs(getObjects()) do
        if deck.type == "Deck" then
            for _, entry in ipairs(deck.getObjects()) do
                local m = util.decode(entry.memo)
                if m.season ~= nil and entry_removed(entry) then
                    table.insert(snap.removed, m.card)
                end
            end
        end
    end
    table.sort(snap.removed)
    for _, animal in ipairs({ "otter", "frog", "squirrel", "rabbit" }) do
        snap.animals[animal] = animal_owner(animal, ledger.colours)
    end
    snap.wild_supply = wild_supply_count(cards)
    snap.feather_supply = #M.in_supply("fd-feather-supply", "fd-feather")
    for _, key in ipairs(M.BOOKKEEPING) do
        local value = kept[key]
        if value ~= nil then
            snap[key] = util.deep_copy(value)
        end
    end
    held = {}
    return snap
end

return M
