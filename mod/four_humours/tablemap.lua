-- Where things are on the Four Humours table (docs/table-contract.md) and the snapshot read off it.
--
-- Everything is found by tags and memo, never by GUID. A potion is "on" a snap point when it lies within
-- NEAR units of it (horizontal distance). The snapshot has the physical part of docs/protocol.md read from
-- the table (hands, bags, scenes, parties, goals, boards, scene deck) and the rest from the ledger the mod
-- keeps in its saved state (round, phase, active player, passes, ...).
local util = require("lib.util")

local M = {}

M.NEAR = 0.6

function M.one(tag)
    local found = getObjectsWithTag(tag)
    return found[1]
end

function M.colours_in_play(player_colours)
    local seated = getSeatedPlayers()
    local out = {}
    for _, colour in ipairs(player_colours) do
        if util.index_of(seated, colour) ~= nil then
            table.insert(out, colour)
        end
    end
    return out
end

function M.bag_of(colour)
    for _, bag in ipairs(getObjectsWithTag("fh-bag")) do
        if bag.hasTag("owner:" .. colour) then
            return bag
        end
    end
    return nil
end

function M.hand_potions(colour)
    local out = {}
    for _, obj in ipairs(Player[colour].getHandObjects()) do
        if obj.hasTag("fh-potion") then
            table.insert(out, obj)
        end
    end
    return out
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

--- Objects tagged `tag` lying on position p.
function M.near(tag, p)
    local out = {}
    for _, obj in ipairs(getObjectsWithTag(tag)) do
        if util.flat_distance(obj.getPosition(), p) < M.NEAR then
            table.insert(out, obj)
        end
    end
    return out
end

--- The card (tag) inside each spot zone (tag), in spot index order: list of {index, card object}.
local function cards_on_spots(spot_tag, card_tag)
    local out = {}
    for _, spot in ipairs(getObjectsWithTag(spot_tag)) do
        local index = util.memo(spot).index
        for _, obj in ipairs(spot.getObjects()) do
            if obj.hasTag(card_tag) then
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

--- Every slot on the table: list of {kind, card, slot (0-based), position, host}.
function M.slots()
    local out = {}
    for _, entry in ipairs(M.scene_cards()) do
        local card = util.memo(entry.card).card
        for index, p in pairs(M.snaps(entry.card, "fh-slot:")) do
            table.insert(out, { kind = "scene", card = card, slot = tonumber(index), position = p, host = entry.card })
        end
    end
    for _, tile in ipairs(M.party_tiles()) do
        local party = util.memo(tile).party
        for index, p in pairs(M.snaps(tile, "fh-slot:")) do
            table.insert(out, { kind = "party", card = party, slot = tonumber(index), position = p, host = tile })
        end
    end
    return out
end

function M.slot_at(p)
    local best = nil
    local best_d = M.NEAR
    for _, slot in ipairs(M.slots()) do
        local d = util.flat_distance(slot.position, p)
        if d < best_d then
            best = slot
            best_d = d
        end
    end
    return best
end

function M.find_slot(kind, card, index)
    for _, slot in ipairs(M.slots()) do
        if slot.kind == kind and slot.card == card and slot.slot == index then
            return slot
        end
    end
    return nil
end

--- The cell snap point of a board nearest p: board id, cell id, position (nil when none is near).
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

local function potion_json(obj, seat_of)
    local m = util.memo(obj)
    return { owner = seat_of[m.owner], humour = m.humour }
end

local function slot_list(host, seat_of, exclude)
    local snaps = M.snaps(host, "fh-slot:")
    local count = 0
    for index, _ in pairs(snaps) do
        count = math.max(count, tonumber(index) + 1)
    end
    local slots = {}
    for i = 1, count do
        slots[i] = false   -- an empty slot (Lua tables cannot hold JSON null)
        local p = snaps[tostring(i - 1)]
        if p ~= nil then
            for _, obj in ipairs(M.near("fh-potion", p)) do
                if obj ~= exclude then
                    slots[i] = potion_json(obj, seat_of)
                end
            end
        end
    end
    return slots, count
end

--- The snapshot of docs/protocol.md: the table as it lies, plus the ledger's bookkeeping.
--  `exclude` is an object to leave out (a potion being checked is still "in hand" for the engine).
function M.snapshot(ledger, exclude)
    local colours = ledger.colours
    local seat_of = {}
    for i, colour in ipairs(colours) do
        seat_of[colour] = i - 1
    end
    local players = {}
    for i, colour in ipairs(colours) do
        local hand = {}
        for _, obj in ipairs(M.hand_potions(colour)) do
            table.insert(hand, util.memo(obj).humour)
        end
        if exclude ~= nil and util.memo(exclude).owner == colour then
            table.insert(hand, util.memo(exclude).humour)
        end
        local bag = { choleric = 0, melancholic = 0, phlegmatic = 0, sanguine = 0 }
        local bag_obj = M.bag_of(colour)
        if bag_obj ~= nil then
            for _, entry in ipairs(bag_obj.getObjects()) do
                local h = JSON.decode(entry.memo or "{}").humour
                if h ~= nil then
                    bag[h] = (bag[h] or 0) + 1
                end
            end
        end
        local fief = nil
        if ledger.fiefs ~= nil then
            fief = ledger.fiefs[i]
        end
        players[i] = { seat = i - 1, colour = colour, fief = fief, hand = hand, bag = bag }
    end
    local scenes = {}
    for _, entry in ipairs(M.scene_cards()) do
        local slots = slot_list(entry.card, seat_of, exclude)
        table.insert(scenes, { card = util.memo(entry.card).card, slots = slots })
    end
    local parties = {}
    for _, tile in ipairs(M.party_tiles()) do
        local party = util.memo(tile).party
        if util.index_of(ledger.resolved_parties, party) == nil then
            local slots = slot_list(tile, seat_of, exclude)
            table.insert(parties, { party = party, slots = slots })
        end
    end
    local goals = {}
    for _, entry in ipairs(M.goal_cards()) do
        local goal = util.memo(entry.card).goal
        table.insert(goals, { goal = goal, marked_by = ledger.marks[goal] or {} })
    end
    local boards = {}
    for board_id, board in pairs(M.boards()) do
        local cells = {}
        local any = false
        for cell, p in pairs(M.snaps(board, "fh-cell:")) do
            local here = {}
            for _, obj in ipairs(M.near("fh-potion", p)) do
                if obj ~= exclude then
                    table.insert(here, potion_json(obj, seat_of))
                end
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
    local deck = {}
    local deck_obj = M.one("fh-scene-deck")
    if deck_obj ~= nil then
        for _, entry in ipairs(deck_obj.getObjects()) do
            table.insert(deck, JSON.decode(entry.memo or "{}").card)
        end
    end
    return {
        game = ledger.game,
        mode = ledger.mode,
        phase = ledger.phase,
        round = ledger.round,
        turn = ledger.turn,
        players = players,
        first_player = ledger.first_player,
        active_player = ledger.active_player,
        round_starter = ledger.round_starter,
        last_actor = ledger.last_actor,
        consecutive_passes = ledger.passes,
        scene_deck = deck,
        scene_discard = ledger.scene_discard,
        scenes = scenes,
        parties = parties,
        resolved_parties = ledger.resolved_parties,
        goals = goals,
        boards = boards,
    }
end

return M
