-- Where things are on the Four Humours table (docs/games/four_humours/table-contract.md) and the snapshot read off it.
--
-- Everything is found by tags and memo, never by GUID or by where the build laid it. A potion is "on" the snap
-- point nearest to it when that one lies within NEAR units (horizontal distance): a potion pushed between two
-- party slots 0.9 apart counts on one of them, never on both. The snapshot has the physical part of
-- docs/games/four_humours/protocol.md read from the table (hands, bags, scenes, parties, goals, boards, scene deck) and the rest
-- from the ledger the mod keeps in its saved state (round, phase, whose turn, passes, goal marks, ...).
-- Objects are compared by GUID (two references to one object need not be the same Lua value in TTS).
--
-- What lies on a scene or goal spot is decided by position, not by the zone's getObjects(): TTS updates zone
-- membership with physics, once per frame, so a card moved away in this frame would still be listed there
-- (docs/headless.md). Positions are read only when nothing is moving (see `M.moving`).
local seats = require("lib.seats")
local util = require("lib.util")

local M = {}

M.NEAR = 0.6
M.RESOLVED = "fh-resolved"   -- tag the mod puts on a party tile once it has been resolved

M.one = seats.one
M.same = seats.same
M.colours_in_play = seats.colours_in_play

function M.bag_of(colour)
    for _, bag in ipairs(getObjectsWithTag("fh-bag")) do
        if bag.hasTag("owner:" .. colour) then
            return bag
        end
    end
    return nil
end

--- The potions in colour's hand, read by position in the hand zone (seats.in_hand: hand membership lags a frame).
function M.hand_potions(colour)
    local out = {}
    for _, obj in ipairs(getObjectsWithTag("fh-potion")) do
        if seats.in_hand(colour, obj) then
            table.insert(out, obj)
        end
    end
    return out
end

--- Humours of the potions inside a bag: humour → count.
function M.bag_counts(colour)
    local bag = { choleric = 0, melancholic = 0, phlegmatic = 0, sanguine = 0 }
    local bag_obj = M.bag_of(colour)
    if bag_obj ~= nil then
        for _, entry in ipairs(bag_obj.getObjects()) do
            local h = util.decode(entry.memo).humour
            if h ~= nil then
                bag[h] = (bag[h] or 0) + 1
            end
        end
    end
    return bag
end

--- World positions of an object's snap points carrying tag prefix (e.g. "fh-slot:"), keyed by the suffix.
function M.snaps(obj, prefix)
    local out = {}
    for _, sp in ipairs(obj.getSnapPoints()) do
        for _, tag in ipairs(sp.tags or {}) do
            if util.starts_with(tag, prefix) then
                out[string.sub(tag, string.len(prefix) + 1)] = obj.positionToWorld(sp.position)
            end
        end
    end
    return out
end

--- Objects tagged `tag` lying on position p (not held by a player), leaving out `exclude` (an object or nil).
function M.near(tag, p, exclude)
    local out = {}
    for _, obj in ipairs(getObjectsWithTag(tag)) do
        if not M.same(obj, exclude) and obj.held_by_color == nil
            and util.flat_distance(obj.getPosition(), p) < M.NEAR then
            table.insert(out, obj)
        end
    end
    return out
end

--- Whether obj lies on a spot zone: its centre inside the zone's box (seen from above), not held.
function M.on_spot(spot, obj)
    if obj.held_by_color ~= nil then
        return false
    end
    local q = spot.positionToLocal(obj.getPosition())
    return math.abs(q.x) <= 0.5 and math.abs(q.z) <= 0.5
end

--- The spot zone (tag) obj lies on, or nil.
function M.spot_of(obj, spot_tag)
    for _, spot in ipairs(getObjectsWithTag(spot_tag)) do
        if M.on_spot(spot, obj) then
            return spot
        end
    end
    return nil
end

--- Whether anything the snapshot reads is still on its way: a potion in a smooth move or spawning.
function M.moving()
    for _, obj in ipairs(getObjectsWithTag("fh-potion")) do
        if obj.spawning or obj.isSmoothMoving() then
            return true
        end
    end
    return false
end

--- The card (tag) lying on each spot zone (tag), in spot index order: list of {index, card, spot}.
local function cards_on_spots(spot_tag, card_tag)
    local out = {}
    local cards = getObjectsWithTag(card_tag)
    for _, spot in ipairs(getObjectsWithTag(spot_tag)) do
        local index = util.memo(spot).index or 0
        for _, obj in ipairs(cards) do
            if M.on_spot(spot, obj) then
                table.insert(out, { index = index, card = obj, spot = spot })
            end
        end
    end
    table.sort(out, function(a, b) return a.index < b.index end)
    return out
end

function M.scene_cards()
    return cards_on_spots("fh-scene-spot", "fh-scene")
end

function M.goal_cards()
    return cards_on_spots("fh-goal-spot", "fh-goal")
end

--- Spot zones (tag) in index order.
function M.spots(spot_tag)
    local spots = getObjectsWithTag(spot_tag)
    table.sort(spots, function(a, b) return (util.memo(a).index or 0) < (util.memo(b).index or 0) end)
    return spots
end

--- Every party tile in row order (resolved ones too).
function M.party_tiles()
    local out = {}
    for _, tile in ipairs(getObjectsWithTag("fh-party")) do
        table.insert(out, tile)
    end
    table.sort(out, function(a, b) return (util.memo(a).order or 0) < (util.memo(b).order or 0) end)
    return out
end

--- Board objects by board id ("kingdom" or a fief id).
function M.boards()
    local out = {}
    for _, obj in ipairs(getObjectsWithTag("fh-kingdom")) do
        out["kingdom"] = obj
    end
    for _, obj in ipairs(getObjectsWithTag("fh-fief")) do
        out[util.memo(obj).fief] = obj
    end
    return out
end

--- Slots on the table: list of {kind, card, slot (0-based), position, host}. Resolved party tiles are left
--  out unless `with_resolved` (a ruling still finds the potions on a tile it is resolving).
function M.slots(with_resolved)
    local out = {}
    for _, entry in ipairs(M.scene_cards()) do
        local card = util.memo(entry.card).card
        for index, p in pairs(M.snaps(entry.card, "fh-slot:")) do
            table.insert(out, { kind = "scene", card = card, slot = tonumber(index), position = p, host = entry.card })
        end
    end
    for _, tile in ipairs(M.party_tiles()) do
        if with_resolved or not tile.hasTag(M.RESOLVED) then
            local party = util.memo(tile).party
            for index, p in pairs(M.snaps(tile, "fh-slot:")) do
                table.insert(out, { kind = "party", card = party, slot = tonumber(index), position = p, host = tile })
            end
        end
    end
    return out
end

--- The open slot nearest p (within NEAR), or nil.
function M.slot_at(p)
    local best = nil
    local best_d = M.NEAR
    for _, slot in ipairs(M.slots(false)) do
        local d = util.flat_distance(slot.position, p)
        if d < best_d then
            best = slot
            best_d = d
        end
    end
    return best
end

function M.find_slot(kind, card, index)
    for _, slot in ipairs(M.slots(true)) do
        if slot.kind == kind and slot.card == card and slot.slot == index then
            return slot
        end
    end
    return nil
end

--- The board cell nearest p: board id, cell id, position (nils when none lies within NEAR).
function M.cell_at(p)
    for board_id, board in pairs(M.boards()) do
        for cell, q in pairs(M.snaps(board, "fh-cell:")) do
            if util.flat_distance(q, p) < M.NEAR then
                return board_id, cell, q
            end
        end
    end
    return nil, nil, nil
end

function M.cell_position(board_id, cell)
    local board = M.boards()[board_id]
    if board == nil then
        return nil
    end
    return M.snaps(board, "fh-cell:")[cell]
end

--- Scene ids still to deal, top card first: the deck's contents, or (once the deck has dissolved) the last
--  loose scene card that lies on no spot and is not discarded.
function M.scene_deck_ids(ledger)
    local out = {}
    local deck = M.one("fh-scene-deck")
    if deck ~= nil then
        for _, entry in ipairs(deck.getObjects()) do
            table.insert(out, util.decode(entry.memo).card)
        end
        return out
    end
    for _, card in ipairs(M.loose_scenes(ledger)) do
        table.insert(out, util.memo(card).card)
    end
    return out
end

--- Scene cards on the table that are neither on a spot nor discarded (a dissolved deck's remainder).
function M.loose_scenes(ledger)
    local out = {}
    for _, card in ipairs(getObjectsWithTag("fh-scene")) do
        local id = util.memo(card).card
        if util.index_of(ledger.scene_discard, id) == nil and M.spot_of(card, "fh-scene-spot") == nil then
            table.insert(out, card)
        end
    end
    return out
end

--- Take scene card `id` out of the deck (or pick up the deck's remainder) and lay it face up at p.
function M.take_scene(id, p, ledger)
    local deck = M.one("fh-scene-deck")
    if deck ~= nil then
        for _, entry in ipairs(deck.getObjects()) do
            if util.decode(entry.memo).card == id then
                return deck.takeObject({ guid = entry.guid, position = { p.x, p.y, p.z }, rotation = { 0, 180, 0 },
                    smooth = false })
            end
        end
    end
    for _, card in ipairs(M.loose_scenes(ledger)) do
        if util.memo(card).card == id then
            card.setPosition({ p.x, p.y, p.z })
            card.setRotation({ 0, 180, 0 })
            return card
        end
    end
    return nil
end

--- Every potion on the table (outside the bags): list of {obj, p (position), memo, loose}. `loose` potions —
--  held by a player, or the `exclude` one whose placement is being checked — lie on no slot or cell. Read
--  once per snapshot, so that each slot and cell does not ask every potion again.
local function table_potions(exclude)
    local out = {}
    local skip = nil
    if exclude ~= nil then
        skip = exclude.getGUID()
    end
    for _, obj in ipairs(getObjectsWithTag("fh-potion")) do
        local loose = obj.held_by_color ~= nil or obj.getGUID() == skip
        table.insert(out, { obj = obj, p = obj.getPosition(), memo = util.memo(obj), loose = loose })
    end
    return out
end

--- Points (slots and cells) a potion may lie on: {p, potions}. Each potion that is not loose goes to the
--  nearest point within NEAR, and is marked as placed (it is not in its owner's hand).
local function new_point(points, p)
    local point = { p = p, potions = {} }
    table.insert(points, point)
    return point
end

local function lay_potions(potions, points)
    for _, entry in ipairs(potions) do
        if not entry.loose then
            local best = nil
            local best_d = M.NEAR
            for _, point in ipairs(points) do
                local d = util.flat_distance(entry.p, point.p)
                if d < best_d then
                    best = point
                    best_d = d
                end
            end
            if best ~= nil then
                entry.placed = true
                table.insert(best.potions, entry)
            end
        end
    end
end

local function potion_json(entry, seat_of)
    return { owner = seat_of[entry.memo.owner], humour = entry.memo.humour }
end

--- The slot points of a card or tile, by 0-based index (as a string, the snap tag's suffix).
local function slot_points(host, points)
    local out = {}
    for index, p in pairs(M.snaps(host, "fh-slot:")) do
        out[index] = new_point(points, p)
    end
    return out
end

local function slot_list(pts, seat_of)
    local count = 0
    for index, _ in pairs(pts) do
        count = math.max(count, tonumber(index) + 1)
    end
    local slots = {}
    for i = 1, count do
        slots[i] = false   -- an empty slot (Lua tables cannot hold JSON null)
        local point = pts[tostring(i - 1)]
        if point ~= nil then
            for _, entry in ipairs(point.potions) do
                slots[i] = potion_json(entry, seat_of)
            end
        end
    end
    return slots
end

--- The snapshot of docs/games/four_humours/protocol.md: the table as it lies, plus the ledger's bookkeeping (copied, so that
--  the ledger changing later does not change a snapshot kept for a ruling).
--  `exclude` is a potion to count as still in its owner's hand (the one whose placement is being checked).
function M.snapshot(ledger, exclude)
    local colours = ledger.colours
    local seat_of = {}
    for i, colour in ipairs(colours) do
        seat_of[colour] = i - 1
    end
    local potions = table_potions(exclude)
    local points = {}
    local scene_slots = {}
    for _, entry in ipairs(M.scene_cards()) do
        table.insert(scene_slots, { card = util.memo(entry.card).card, pts = slot_points(entry.card, points) })
    end
    local party_slots = {}
    local resolved = {}
    for _, tile in ipairs(M.party_tiles()) do
        local party = util.memo(tile).party
        if tile.hasTag(M.RESOLVED) or util.index_of(ledger.resolved_parties, party) ~= nil then
            table.insert(resolved, party)
        else
            table.insert(party_slots, { party = party, pts = slot_points(tile, points) })
        end
    end
    local board_cells = {}
    for board_id, board in pairs(M.boards()) do
        local cells = {}
        for cell, p in pairs(M.snaps(board, "fh-cell:")) do
            cells[cell] = new_point(points, p)
        end
        board_cells[board_id] = cells
    end
    lay_potions(potions, points)
    local scenes = {}
    for _, entry in ipairs(scene_slots) do
        table.insert(scenes, { card = entry.card, slots = slot_list(entry.pts, seat_of) })
    end
    local parties = {}
    for _, entry in ipairs(party_slots) do
        table.insert(parties, { party = entry.party, slots = slot_list(entry.pts, seat_of) })
    end
    local goals = {}
    for _, entry in ipairs(M.goal_cards()) do
        local goal = util.memo(entry.card).goal
        table.insert(goals, { goal = goal, marked_by = util.copy_list(ledger.marks[goal] or {}) })
    end
    local boards = {}
    for board_id, cell_points in pairs(board_cells) do
        local cells = {}
        local any = false
        for cell, point in pairs(cell_points) do
            local here = {}
            for _, entry in ipairs(point.potions) do
                table.insert(here, potion_json(entry, seat_of))
            end
            if #here > 0 then
                cells[cell] = here
                any = true
            end
        end
        if any then
            boards[board_id] = cells
        end
    end
    -- A hand is every potion of its owner out of the bag and on no slot or cell: the hand zone, the player's
    -- grip, a potion on its way into the hand or dropped beside it.
    local hands = {}
    for _, colour in ipairs(colours) do
        hands[colour] = {}
    end
    for _, entry in ipairs(potions) do
        if not entry.placed and hands[entry.memo.owner] ~= nil then
            table.insert(hands[entry.memo.owner], entry.memo.humour)
        end
    end
    local players = {}
    for i, colour in ipairs(colours) do
        local fief = nil
        if ledger.fiefs ~= nil then
            fief = ledger.fiefs[i]
        end
        players[i] = { seat = i - 1, colour = colour, fief = fief, hand = hands[colour], bag = M.bag_counts(colour) }
    end
    return {
        ttsmod_snapshot = 1,
        game = ledger.game,
        mode = ledger.mode,
        phase = "placement",
        round = ledger.round,
        turn = ledger.turn,
        players = players,
        first_player = ledger.first_player,
        active_player = ledger.active_player,
        round_starter = ledger.round_starter,
        last_actor = ledger.last_actor,
        consecutive_passes = ledger.passes,
        passed_this_round = util.copy_list(ledger.passed),
        scene_deck = M.scene_deck_ids(ledger),
        scene_discard = util.copy_list(ledger.scene_discard),
        scenes = scenes,
        parties = parties,
        resolved_parties = resolved,
        goals = goals,
        boards = boards,
    }
end

return M
