-- 15 Days: Global script (root module of the bundle the build writes into the save).
--
-- The table is the state: cards, wilds, feathers and animals lie where the rules put them (the table map,
-- fifteen_days.tablemap, reads them back). The ledger keeps only what the table cannot show: the seats in
-- play, the phase, and the engine's turn bookkeeping as the bridge last wrote it (`turn`: whose turn, actions
-- left, a decision pending, the end trigger; `wilds_played`: each seat's wilds placed in the game), sent back
-- with every snapshot, the count of rulings applied (the key of the decision the table waits for) and
-- lib.bots' bot seats. It is saved with onSave, so a reloaded table or a restarted bridge carries on.
--
-- Flow: Setup lays the table for the seated players and the bot seats (FD-1) on the table itself; the engine
-- checks it with the first score. A player's button or drag becomes one engine decision
-- (docs/games/fifteen_days/protocol.md): the mod asks the bridge before changing anything; a refusal is told to
-- that player and whatever they moved goes back; a ruling's events are applied one at a time (lib.stepper).
-- After every change the bridge's `score` fills the score panel. A bot seat's decision (lib.bots asks the
-- bridge's `bot_move`) is made on the table as a player makes it and goes the same way (`perform`). The link,
-- the stepper, the ledger, the panels and the bots are the shared mod/lib/.
local seats = require("lib.seats")
local util = require("lib.util")
local link = require("lib.link")
local stepper = require("lib.stepper")
local saved = require("lib.ledger")
local panel = require("lib.panel")
local wiring = require("lib.wiring")
local bots = require("lib.bots")
local map = require("fifteen_days.tablemap")
local game = require("generated.game")
local ttsmod = require("generated.ttsmod")

local STEP_DELAY = 0.3       -- seconds between two steps of a ruling, so that players can follow them
local SETTLE_TIMEOUT = 3     -- longest wait for moves to end
local PILE_LIFT = 0.02       -- height of one card in a loose pile
local REMOVED_OFFSET = 5     -- cards out of the game lie this far (z) beyond draw pile 0, away from the market
local FACE_UP = { 0, 180, 0 }
local FACE_DOWN = { 0, 180, 180 }

local data = {}
local ledger = nil
-- Cards a player has dropped on the wild supply to take a wild (FD-2.C): the decision is sent once there are
-- as many as the rule asks (wild_discard_count); picking one up again takes it back. Until then they count
-- as still in that player's hand.
local offered = { colour = nil, cards = {} }

local function offered_cards()
    if offered.colour == nil then
        return nil
    end
    return { [offered.colour] = offered.cards }
end

--- Where the k-th spent feather out of the game lies (beside the removed cards, further from the market).
local function removed_spot_far(k)
    local zone = map.zone("fd-draw-pile", 0)
    local p = zone.getPosition()
    return { x = p.x + 1.5 * k, y = p.y + 0.1, z = p.z + REMOVED_OFFSET + 3 }
end
local busy = false           -- a decision is being checked or its ruling applied
local tell = panel.tell
local when_settled = stepper.when_settled

local function new_ledger()
    return { game = ttsmod.game, mode = ttsmod.mode, colours = {}, phase = "setup", values = {}, turn = {},
        applied = 0, ruling = nil, outcome = nil, rulings = 0 }
end

local function rules()
    return data.rules or {}
end

-- ------------------------------------------------------------------ seats and colours
local function seat_of(colour)
    return seats.seat_of(ledger.colours, colour)
end

local function colour_of(seat)
    return seats.colour_of(ledger.colours, seat)
end

local function active_colour()
    return colour_of(ledger.turn.active)
end

-- ------------------------------------------------------------------ panels
--- The engine's open decision ("draw", "take", "refill", "play", "wild") or nil.
local function pending_kind()
    local pending = ledger.turn.pending
    if type(pending) == "table" then
        return pending.kind
    end
    return nil
end

local function show_state()
    local line = "Seat the players, then press Setup."
    if ledger.phase == "play" then
        local colour = tostring(active_colour())
        if busy then
            line = "checking " .. colour .. "'s move…"
        elseif pending_kind() == "wild" then
            line = colour .. " places a wild"
        else
            line = colour .. " to play"
        end
    elseif ledger.phase == "ended" then
        local winners = {}
        for _, seat in ipairs((ledger.outcome or {}).winners or {}) do
            table.insert(winners, tostring(colour_of(seat)))
        end
        line = "Game over · " .. table.concat(winners, " and ") .. " won"
    end
    panel.status(line)
end

local function show_turn()
    local playing = ledger.phase == "play"
    UI.setAttribute("setupButton", "active", tostring(ledger.phase == "setup"))
    UI.setAttribute("actionPanel", "active", tostring(playing))
    local colour = active_colour()
    if playing and colour ~= nil and Turns.turn_color ~= colour then
        Turns.turn_color = colour
    end
    show_state()
end

local function set_busy(value)
    busy = value
    show_state()
end

--- One score row: "White: 12 (runs 9, animals 2, empty corners 0)".
local function score_line(row)
    local colour = tostring(colour_of(row.player))
    local line = colour .. ": " .. tostring(row.score)
    if row.runs ~= nil then
        line = line .. " (runs " .. tostring(row.runs) .. ", animals " .. tostring(row.animals)
            .. ", empty corners " .. tostring(row.empty_corners) .. ")"
    end
    return line
end

local function show_scores(body)
    local lines = {}
    for i, row in ipairs(body.standings or {}) do
        lines[i] = score_line(row)
    end
    local title = "Scores now"
    if ledger.phase == "ended" then
        title = "Final scores"
    end
    panel.scores(lines, title)
end

local function refresh_score()
    if ledger.phase == "setup" then
        return
    end
    wiring.refresh_score(function() return map.snapshot(ledger, offered_cards()) end, show_scores)
end

-- ------------------------------------------------------------------ moving cards
local function lay(obj, p, rotation)
    obj.setRotation(rotation)
    obj.setPositionSmooth({ p.x, p.y, p.z }, false, true)
end

local function to_hand(obj, colour)
    local t = Player[colour].getHandTransform()
    obj.setRotation({ 0, t.rotation.y + 180, 0 })
    obj.setPositionSmooth(t.position, false, true)
end

--- Where the next card of a pile zone goes: on top of what lies there.
local function top_of(zone, count)
    local p = zone.getPosition()
    return { x = p.x, y = p.y + 0.1 + PILE_LIFT * count, z = p.z }
end

--- The spot just above the highest card lying in a pile zone (but `except`): a card laid there is the pile's
--  new top whatever was taken from the pile before (a count of its cards would put it level with one).
local function above_pile(zone, except)
    local p = zone.getPosition()
    local y = p.y + 0.1 - PILE_LIFT
    for _, entry in ipairs(map.stack(zone)) do
        if entry.obj ~= nil and (except == nil or not map.same(entry.obj, except)) then
            y = math.max(y, entry.obj.getPosition().y)
        end
    end
    return { x = p.x, y = y + PILE_LIFT, z = p.z }
end

--- Where the k-th card (0-based) of a market column lies (docs/games/fifteen_days/table-contract.md).
local function column_spot(column, k)
    local zone = map.zone("fd-market-column", column)
    local p = zone.getPosition()
    local layout = data.layout or {}
    return { x = p.x, y = p.y + 0.1 + (layout.lift or 0.02) * k, z = p.z + (layout.market_step or 0) * k }
end

--- Take a card out of where it lies (a deck or the table) to position p with rotation; returns the object
--  (a card inside a deck spawns over frames; stepper.when_settled waits for it).
local function fetch(entry, p, rotation)
    if entry.deck ~= nil then
        return entry.deck.takeObject({ guid = entry.guid, position = { p.x, p.y, p.z }, rotation = rotation,
            smooth = false })
    end
    lay(entry.obj, p, rotation)
    return entry.obj
end

--- Lay a token (a feather) into a supply zone: spread along the zone's width, `count` tokens already there.
local function to_supply(obj, zone, count)
    local p = zone.getPosition()
    obj.setPositionSmooth({ p.x - 3 + 1.5 * (count % 5), p.y + 0.1 + 0.05 * math.floor(count / 5), p.z },
        false, true)
end

--- Out of the game, beside draw pile 0 (read by nothing): spent feathers when they do not return.
local function out_of_game(obj, count)
    obj.addTag(map.REMOVED)
    obj.setPositionSmooth(removed_spot_far(count), false, true)
end

local function object_of_card(id)
    for _, obj in ipairs(getObjectsWithTag("fd-card")) do
        if util.memo(obj).card == id then
            return obj
        end
    end
    return nil
end

-- ------------------------------------------------------------------ setup (FD-1, on the table)
local function removed_spot(count)
    local zone = map.zone("fd-draw-pile", 0)
    local p = zone.getPosition()
    return { x = p.x, y = p.y + 0.1 + PILE_LIFT * count, z = p.z + REMOVED_OFFSET }
end

--- Set aside `entries` (deck entries) out of the game, face down, tagged fd-removed (read by nothing).
local function set_aside(deck, entries)
    for i, entry in ipairs(entries) do
        local obj = deck.takeObject({ guid = entry.guid, position = removed_spot(i), rotation = FACE_DOWN,
            smooth = false })
        obj.addTag(map.REMOVED)
    end
end

--- The deck entries removed with two players (FD-1.2, AMB-FD-06): the first `each` cards from the top of
--  every back (or of every face season that has a back) of the shuffled deck, unseen.
local function two_player_removal(entries)
    local each = rules().two_player_removed_each or 5
    local by_face = rules().two_player_removal == "by_face"
    local taken = {}
    local out, kept = {}, {}
    for _, entry in ipairs(entries) do
        local m = util.decode(entry.memo)
        local key = m.back
        if by_face then
            key = m.season
        end
        if key ~= "spring" and (taken[key] or 0) < each then
            taken[key] = (taken[key] or 0) + 1
            table.insert(out, entry)
        else
            table.insert(kept, entry)
        end
    end
    return out, kept
end

local function start_play()
    ledger.phase = "play"
    Turns.enable = true
    Turns.order = ledger.colours
    show_turn()
    broadcastToAll("15 Days: " .. tostring(active_colour()) .. " begins.", { 1, 1, 1 })
    refresh_score()
    bots.refresh()
    bots.play()
end

function onSetupClick(player, value, id)
    if ledger.phase ~= "setup" then
        return
    end
    -- the seated players and the seats given a bot (lib.bots), in seat order
    local colours = bots.colours_in_play(data.player_colours)
    local least, most = data.min_players or 2, data.max_players or 4
    if #colours < least or #colours > most then
        broadcastToAll("Seat " .. tostring(least) .. " to " .. tostring(most)
            .. " players (a free seat may take a bot), then press Setup.", { 1, 0.6, 0.2 })
        return
    end
    ledger.colours = colours
    ledger.values = data.values or { 1, 2, 3, 4, 5, 6 }
    -- FD-1.8: a random first player (chosen first, so a reload in the middle of the deal knows it)
    local first = math.random(1, #colours) - 1
    ledger.turn = { active = first, turn = 1, actions_left = rules().actions_per_turn or 2, pending = false,
        boost = false, power = false, otter_turn = false, fresh_discards = {},
        ["end"] = { trigger = false, final_turns_left = false, bonus_given = false }, over = false }
    ledger.phase = "dealing"
    UI.setAttribute("setupButton", "active", "false")
    local deck = map.one("fd-season-deck")
    deck.shuffle()
    local entries = deck.getObjects()
    if #colours == 2 then
        local out, kept = two_player_removal(entries)
        set_aside(deck, out)
        entries = kept
    end
    local next_card = 0
    local function take(p, rotation)
        next_card = next_card + 1
        local entry = entries[next_card]
        return deck.takeObject({ guid = entry.guid, position = { p.x, p.y, p.z }, rotation = rotation,
            smooth = false })
    end
    -- FD-1.3: two cards to every hand, one feather each
    for _, colour in ipairs(colours) do
        local t = Player[colour].getHandTransform()
        for _ = 1, rules().starting_hand or 2 do
            take(t.position, { 0, t.rotation.y + 180, 0 })
        end
    end
    local feathers = map.in_supply("fd-feather-supply", "fd-feather")
    for i, colour in ipairs(colours) do
        local board = map.board_of(colour)
        for _, p in ipairs(map.points(board)) do
            if p.feather == 0 and feathers[i] ~= nil then
                feathers[i].setPositionSmooth({ p.position.x, p.position.y + 0.1, p.position.z }, false, true)
            end
        end
    end
    -- FD-1.4: three columns of three face-up cards; FD-1.5: one card starts the discard pile
    for column = 0, (rules().market_columns or 3) - 1 do
        for k = 0, (rules().market_column_height or 3) - 1 do
            take(column_spot(column, k), FACE_UP)
        end
    end
    take(top_of(map.one("fd-discard"), 0), FACE_UP)
    -- FD-1.6: the rest split in two face-down piles, the larger half on pile 0 (where the deck lies)
    local rest = #entries - next_card
    local on_pile_1 = math.floor(rest / 2)
    local pile_1 = map.zone("fd-draw-pile", 1)
    for i = 1, on_pile_1 do
        take(top_of(pile_1, i - 1), FACE_DOWN)
    end
    -- FD-1.7: 2 wilds per player in the supply, the others out of the game
    local wild_deck = map.one("fd-wild-deck")
    local wilds = wild_deck.getObjects()
    local keep = (rules().wild_supply_per_player or 2) * #colours
    local spare = {}
    for i = keep + 1, #wilds do
        table.insert(spare, wilds[i])
    end
    for i, entry in ipairs(spare) do
        local p = wild_deck.getPosition()
        local obj = wild_deck.takeObject({ guid = entry.guid,
            position = { p.x, p.y + 0.1 + PILE_LIFT * i, p.z + REMOVED_OFFSET },
            rotation = FACE_UP, smooth = false })
        obj.addTag(map.REMOVED)
    end
    when_settled(function() start_play() end)
end

-- ------------------------------------------------------------------ rulings
local handlers = {}
local send_decision = nil

local function pile_top(pile)
    local stack = map.stack(map.zone("fd-draw-pile", pile))
    return stack[#stack]
end

--- The wild awaiting a place (a wild taken, a bonus wild, one displaced by its real card): in its player's
--  hand, remembered by GUID in the ledger so that a reload still knows it.
local function awaited_wild()
    if ledger.wild_guid == nil then
        return nil
    end
    return getObjectFromGUID(ledger.wild_guid)
end

local function wild_to_hand(obj, player)
    ledger.wild_guid = obj.getGUID()
    to_hand(obj, colour_of(player))
    tell(colour_of(player), "Drop the wild from your hand on a free card point of your board.")
end

handlers.card_drawn = function(e)
    local colour = colour_of(e.player)
    -- a card the player dragged off this pile into their hand is the card drawn: it is there already
    local drag = ledger.drag
    if drag ~= nil and drag.pile == e.pile then
        ledger.drag = nil
        local obj = getObjectFromGUID(drag.guid)
        if obj ~= nil then
            to_hand(obj, colour)
            return nil
        end
    end
    local entry = pile_top(e.pile)
    if entry == nil then
        return nil
    end
    local t = Player[colour].getHandTransform()
    fetch(entry, t.position, { 0, t.rotation.y + 180, 0 })
end

handlers.column_refilled = function(e)
    local entry = pile_top(e.pile)
    if entry ~= nil then
        local k = #map.stack(map.zone("fd-market-column", e.column))
        fetch(entry, column_spot(e.column, k), FACE_UP)
    end
end

handlers.card_taken = function(e)
    local obj = object_of_card(e.card)
    if obj ~= nil then
        to_hand(obj, colour_of(e.player))
    end
end

--- A card on the card point of its corner and value; a wild it replaces goes to the player's hand to await a
--  new place (the engine's next event says whether it has one: wild_returned sends it back to the supply).
handlers.card_played = function(e)
    local obj = object_of_card(e.card)
    local board = map.board_of(colour_of(e.player))
    local p = map.card_point(board, e.corner, e.value)
    if e.replaced_wild then
        for _, wild in ipairs(getObjectsWithTag("fd-wild")) do
            if wild.held_by_color == nil and not wild.hasTag(map.REMOVED) then
                local corner, value = map.card_point_at(board, wild.getPosition())
                if corner == e.corner and value == e.value then
                    wild_to_hand(wild, e.player)
                end
            end
        end
    end
    if obj ~= nil and p ~= nil then
        lay(obj, { x = p.x, y = p.y + 0.1 + 0.01 * e.value, z = p.z }, { 0, board.getRotation().y, 0 })
    end
end

handlers.card_discarded = function(e)
    local obj = object_of_card(e.card)
    local zone = map.one("fd-discard")
    if obj ~= nil then
        lay(obj, above_pile(zone, obj), FACE_UP)
    end
end

--- A wild from the supply (the wild deck, or a loose wild once the deck has dissolved) to the player's hand.
handlers.wild_taken = function(e)
    local supply = map.wild_supply()
    local entry = supply[#supply]
    if entry == nil then
        return nil
    end
    local colour = colour_of(e.player)
    local t = Player[colour].getHandTransform()
    local obj = fetch(entry, t.position, { 0, t.rotation.y + 180, 0 })
    wild_to_hand(obj, e.player)
    if e.why == "bonus" then
        broadcastToAll(colour .. " takes a bonus wild for emptying a draw pile.", { 1, 0.85, 0.4 })
    end
end

handlers.wild_placed = function(e)
    local obj = awaited_wild()
    local board = map.board_of(colour_of(e.player))
    local p = map.card_point(board, e.corner, e.value)
    if obj ~= nil and p ~= nil then
        lay(obj, { x = p.x, y = p.y + 0.1 + 0.01 * e.value, z = p.z }, { 0, board.getRotation().y, 0 })
    end
    ledger.wild_guid = nil
end

handlers.wild_returned = function(e)
    local obj = awaited_wild()
    if obj ~= nil then
        local zone = map.one("fd-wild-supply")
        lay(obj, top_of(zone, #map.wild_supply() + 2), FACE_UP)
    end
    ledger.wild_guid = nil
    tell(colour_of(e.player), "No free place for the wild on your board: it goes back to the supply.")
end

--- A feather of the player's board to the supply (or out of the game with feather_returns_to_supply = false).
handlers.feather_spent = function(e)
    local colour = colour_of(e.player)
    local seat_zone = nil
    for _, zone in ipairs(getObjectsWithTag("fd-seat")) do
        if util.memo(zone).owner == colour then
            seat_zone = zone
        end
    end
    for _, obj in ipairs(getObjectsWithTag("fd-feather")) do
        if seat_zone ~= nil and map.inside(seat_zone, obj) then
            if e.to_supply then
                local zone = map.one("fd-feather-supply")
                to_supply(obj, zone, #map.in_supply("fd-feather-supply", "fd-feather"))
            else
                out_of_game(obj, #getObjectsWithTag(map.REMOVED))
            end
            break
        end
    end
    broadcastToAll(colour .. " spends a feather for the " .. tostring(e.animal) .. "'s power.", { 1, 1, 1 })
end

--- A feather from the supply onto a free feather point of the player's board (FD-6.3).
handlers.feather_gained = function(e)
    local feather = map.in_supply("fd-feather-supply", "fd-feather")[1]
    local board = map.board_of(colour_of(e.player))
    if feather == nil or board == nil then
        return nil
    end
    local taken = getObjectsWithTag("fd-feather")
    for _, p in ipairs(map.points(board)) do
        if p.feather ~= nil then
            local free = true
            for _, other in ipairs(taken) do
                if util.flat_distance(other.getPosition(), p.position) < map.NEAR then
                    free = false
                end
            end
            if free then
                feather.setPositionSmooth({ p.position.x, p.position.y + 0.1, p.position.z }, false, true)
                return nil
            end
        end
    end
    local p = board.getPosition()
    feather.setPositionSmooth({ p.x, p.y + 0.2, p.z }, false, true)
end

handlers.animal_taken = function(e)
    local colour = colour_of(e.player)
    for _, obj in ipairs(getObjectsWithTag("fd-animal:" .. e.animal)) do
        for _, p in ipairs(map.points(map.board_of(colour))) do
            if p.animal == e.animal then
                obj.setPositionSmooth({ p.position.x, p.position.y + 0.1, p.position.z }, false, true)
            end
        end
    end
    local from = "the supply"
    if e.from ~= nil then
        from = tostring(colour_of(e.from))
    end
    broadcastToAll(colour .. " takes the " .. e.animal .. " from " .. from .. ".", { 1, 1, 1 })
end

handlers.play_cost = function(e)
    if e.owed > 0 then
        tell(colour_of(e.player), "Pay " .. tostring(e.owed) .. " card(s): drop them on the discard pile.")
    end
end

handlers.draw_pile_emptied = function(e)
    if e.triggers_end then
        broadcastToAll("Draw pile " .. tostring(e.pile + 1) .. " is empty: " .. tostring(colour_of(e.player))
            .. " finishes the turn, then everyone else plays one last turn.", { 1, 0.85, 0.4 })
    else
        broadcastToAll("Draw pile " .. tostring(e.pile + 1) .. " is empty.", { 1, 0.85, 0.4 })
    end
end

handlers.turn_started = function(e)
    if e.final then
        broadcastToAll(tostring(colour_of(e.player)) .. " plays a last turn.", { 1, 0.85, 0.4 })
    end
end

handlers.game_over = function(e)
    ledger.outcome = { winners = e.winners, scores = e.scores, reason = e.reason, decided_by = e.decided_by }
end

--- The engine's bookkeeping of a ruling's snapshot (map.BOOKKEEPING and each seat's wilds_played). JSON.decode
--  drops a JSON null: a key it dropped is sent back left out, which the engine reads as its default (nothing
--  pending, not over), and `end` keeps every key, false for null, as the ledger has always shown it.
local function keep_bookkeeping(snapshot)
    for _, key in ipairs(map.BOOKKEEPING) do
        ledger.turn[key] = snapshot[key]
    end
    ledger.wilds_played = {}
    for seat, entry in ipairs(snapshot.players or {}) do
        ledger.wilds_played[seat] = entry.wilds_played
    end
    local ending = ledger.turn["end"] or {}
    for _, key in ipairs({ "trigger", "final_turns_left", "bonus_given", "complete_at_end" }) do
        if ending[key] == nil then
            ending[key] = false
        end
    end
    ledger.turn["end"] = ending
end

-- A bot's decision being ruled: told done(true) once its ruling has been applied (lib.bots; not saved: after
-- a reload the bot seat is asked again from the table as it lies).
local ruled_done = nil

local function finish_ruling(reply)
    return function()
        ledger.ruling = nil
        ledger.applied = 0
        ledger.drag = nil
        -- the engine's bookkeeping after the ruling (whose turn, the open decision, the end trigger)
        keep_bookkeeping(reply.snapshot or {})
        -- a new decision: the key lib.bots knows it by
        ledger.rulings = (ledger.rulings or 0) + 1
        if ledger.outcome ~= nil then
            ledger.phase = "ended"
            Turns.enable = false
            wiring.game_over(ledger.outcome, function(seat) return tostring(colour_of(seat)) end)
            bots.refresh()
        end
        set_busy(false)
        show_turn()
        refresh_score()
        local done = ruled_done
        ruled_done = nil
        if done ~= nil then
            done(true)
        end
        bots.play()
    end
end

local function apply_ruling(reply)
    -- the bridge's ruling says "complete": true (every decision is a request of its own; lib.stepper finishes
    -- complete ones)
    ledger.ruling = reply
    stepper.run(reply, handlers, ledger, function() return ledger.ruling ~= nil end, finish_ruling(reply))
end

--- Ask the bridge about `action` by `colour`; `moved` lists what the player moved for it (counted as still in
--  their hand by the snapshot); `taken` ({obj, tag, index}) is a card they dragged into their hand from a
--  market column, the discard pile or a draw pile (counted as still on top there); on a refusal, `undo()` puts
--  it back. `done` (a bot seat's decision, lib.bots) hears how it ended: true once its ruling is applied, false
--  when refused, nil when it could not be asked (lib.wiring.decide).
send_decision = function(colour, action, undo, moved, taken, done)
    local blocked = nil
    if ledger.phase ~= "play" then
        blocked = "Nothing can be played now: " .. ledger.phase .. "."
    elseif busy then
        blocked = "Wait a moment: the last move is still being applied."
    end
    wiring.decide({ colour = colour, action = action, undo = undo, blocked = blocked, busy = set_busy, done = done,
        snapshot = function() return map.snapshot(ledger, { [colour] = moved or {} }, taken) end,
        ruled = function(reply)
            ruled_done = done
            ledger.applied = 0
            if taken ~= nil and taken.tag == "fd-draw-pile" then
                -- saved with the ledger, so that a reload in the middle of the ruling still draws this card
                ledger.drag = { guid = taken.obj.getGUID(), pile = taken.index }
            end
            apply_ruling(reply)
        end })
end

-- ------------------------------------------------------------------ buttons and drags
local ANIMAL_BUTTONS = { featherOtter = "otter", featherFrog = "frog", featherSquirrel = "squirrel",
    featherRabbit = "rabbit" }

--- The decision a button stands for. A pile button refills an emptied market column while the engine waits
--  for one (FD-2.B); Take discard sends `column` false (Lua's null).
local function button_action(id, seat)
    local pile = ({ drawPile1 = 0, drawPile2 = 1 })[id]
    if pile ~= nil then
        if pending_kind() == "refill" then
            return { action = "refill", player = seat, pile = pile }
        end
        return { action = "draw", player = seat, pile = pile }
    end
    local column = ({ takeColumn1 = 0, takeColumn2 = 1, takeColumn3 = 2 })[id]
    if column ~= nil then
        return { action = "take", player = seat, column = column }
    end
    if id == "takeDiscard" then
        return { action = "take", player = seat, column = false }
    end
    if ANIMAL_BUTTONS[id] ~= nil then
        return { action = "feather", player = seat, animal = ANIMAL_BUTTONS[id] }
    end
    local simple = ({ endTurn = "end", done = "done", passAction = "pass" })[id]
    if simple ~= nil then
        return { action = simple, player = seat }
    end
    return nil
end

--- `colour` presses action button `id` (a player's click, or a bot seat's: `done` as for send_decision).
local function press(colour, id, done)
    local seat = seat_of(colour)
    if seat == nil then
        tell(colour, "Only seated players of this game play.")
        return
    end
    local action = button_action(id, seat)
    if action ~= nil then
        send_decision(colour, action, nil, nil, nil, done)
    end
end

function onActionClick(player, value, id)
    press(player.color, id, nil)
end


local function face_of(obj)
    local m = util.memo(obj)
    return { season = m.season, value = m.value }
end

local function offer_for_wild(colour, seat, obj, done)
    if offered.colour ~= colour then
        offered = { colour = colour, cards = {} }
    end
    table.insert(offered.cards, obj)
    local needed = rules().wild_discard_count or 2
    if #offered.cards < needed then
        tell(colour, "Drop " .. tostring(needed - #offered.cards)
            .. " more card(s) on the wild supply to take a wild for them.")
        return
    end
    local cards, faces = offered.cards, {}
    for i, card in ipairs(cards) do
        faces[i] = face_of(card)
    end
    offered = { colour = nil, cards = {} }
    local undo = function()
        for _, card in ipairs(cards) do
            to_hand(card, colour)
        end
    end
    send_decision(colour, { action = "wild", player = seat, cards = faces }, undo, cards, nil, done)
end

-- Cards picked up from a market column, the discard pile or a draw pile while the game is on, by GUID: where
-- each lay (tablemap.origin_of), so that its drop can be read as a take or a draw, or undone.
local picked = {}

local function origin_name(origin)
    if origin.tag == "fd-market-column" then
        return "market column " .. tostring(origin.index + 1)
    elseif origin.tag == "fd-draw-pile" then
        return "draw pile " .. tostring(origin.index + 1)
    end
    return "the discard pile"
end

--- Put a dragged card back where it was picked up: a pile's or the discard's top card on top of that pile
--  again, any other card on its old spot (a market column keeps its overlapping layout).
local function put_back(obj, origin)
    local zone = map.zone(origin.tag, origin.index)
    if origin.top and origin.tag ~= "fd-market-column" and zone ~= nil then
        lay(obj, above_pile(zone, obj), origin.rotation)
    else
        lay(obj, origin.position, origin.rotation)
    end
end

--- A card dragged out of a market column, the discard pile or a draw pile has come to rest. Into its
--  player's own hand it is the decision the button sends (take from that column or the discard, draw from
--  that pile), asked of the bridge with the card counted where it came from; anywhere else, or not the top
--  card, or refused, it goes back where it was and the player is told why (not when it was only put down
--  again in its own place).
local function dropped_from(origin, colour, obj)
    local undo = function() put_back(obj, origin) end
    if not map.over_hand(colour, obj) then
        local zone = map.zone(origin.tag, origin.index)
        undo()
        if zone == nil or not map.over(zone, obj) then
            tell(colour, "To take a card from " .. origin_name(origin)
                .. ", drag it into your hand: it goes back where it was.")
        end
        return
    end
    local seat = seat_of(colour)
    if seat == nil then
        undo()
        tell(colour, "Only seated players of this game play.")
        return
    end
    if not origin.top then
        undo()
        tell(colour, "Not allowed: only the top card of " .. origin_name(origin) .. " can be taken.")
        return
    end
    local action = { action = "take", player = seat, column = false }
    if origin.tag == "fd-market-column" then
        action.column = origin.index
    elseif origin.tag == "fd-draw-pile" then
        action = { action = "draw", player = seat, pile = origin.index }
    end
    send_decision(colour, action, undo, nil, { obj = obj, tag = origin.tag, index = origin.index })
end

function onObjectPickUp(colour, obj)
    if ledger ~= nil and ledger.phase == "play" then
        picked[obj.getGUID()] = map.origin_of(obj)
    end
    for i, card in ipairs(offered.cards) do
        if card.getGUID() == obj.getGUID() then
            table.remove(offered.cards, i)
            return
        end
    end
end

--- A card of `colour`'s hand (or the wild awaiting a place) has come to rest where they put it: on a card point
--  of their own board it is a `play` decision (FD-2.D); on the discard pile it pays for a Play action, or
--  discards down to the hand limit once both actions are made (FD-8); on the wild supply it is offered for a
--  wild. The wild awaiting a place on a card point is its `put-wild` decision (FD-5). `done` as for
--  send_decision (a bot seat's move; nil for a player's drop).
local function put_down(colour, obj, done)
    local seat = seat_of(colour)
    local board = map.board_of(colour)
    local corner, value = map.card_point_at(board, obj.getPosition())
    local undo = function() to_hand(obj, colour) end
    if obj.hasTag("fd-wild") then
        if ledger.wild_guid ~= obj.getGUID() then
            return
        end
        if corner ~= nil then
            send_decision(colour, { action = "put-wild", player = seat, corner = corner, value = value }, undo,
                { obj }, nil, done)
        else
            undo()
            tell(colour, "Drop the wild on a free card point of your board.")
        end
    elseif corner ~= nil then
        send_decision(colour, { action = "play", player = seat, card = face_of(obj), corner = corner }, undo,
            { obj }, nil, done)
    elseif map.inside(map.one("fd-discard"), obj) then
        local kind = "pay"
        if pending_kind() == nil and ledger.turn.actions_left == 0 then
            kind = "discard"
        end
        send_decision(colour, { action = kind, player = seat, card = face_of(obj) }, undo, { obj }, nil, done)
    elseif map.inside(map.one("fd-wild-supply"), obj) then
        offer_for_wild(colour, seat, obj, done)
    end
end

--- A card picked up from a market column, the discard pile or a draw pile is a take or a draw (dropped_from).
--  A hand card dropped on a card point of its player's own board is a `play` decision (FD-2.D); on the
--  discard pile it pays for a Play action, or discards down to the hand limit once both actions are made
--  (FD-8); on the wild supply it is offered for a wild. The wild awaiting a place dropped on a card point is
--  its `put-wild` decision (FD-5).
function onObjectDrop(colour, obj)
    if ledger == nil or ledger.phase ~= "play" then
        return
    end
    local is_wild = obj.hasTag("fd-wild")
    if not obj.hasTag("fd-season") and not is_wild then
        return
    end
    local origin = picked[obj.getGUID()]
    if origin ~= nil then
        picked[obj.getGUID()] = nil
        Wait.condition(function() dropped_from(origin, colour, obj) end, function() return obj.resting end,
            SETTLE_TIMEOUT)
        return
    end
    if seat_of(colour) == nil or map.board_of(colour) == nil then
        return
    end
    Wait.condition(function() put_down(colour, obj, nil) end, function() return obj.resting end, SETTLE_TIMEOUT)
end

-- ------------------------------------------------------------------ bot seats (lib.bots)
local function whole(n)
    return math.floor((tonumber(n) or 0) + 0.5)
end

local function face_text(face)
    return tostring(face.season) .. " " .. tostring(whole(face.value))
end

--- What a bot seat's action does, as its announcement says it ("plays the summer 3 into corner 1"; piles,
--  columns and corners counted from 1, as the buttons and the boards name them).
local function describe(action)
    local kind = action.action
    if kind == "draw" then
        return "draws a card from pile " .. tostring(whole(action.pile) + 1)
    elseif kind == "refill" then
        return "refills the market column from pile " .. tostring(whole(action.pile) + 1)
    elseif kind == "take" then
        if type(action.column) ~= "number" then
            return "takes the top card of the discard pile"
        end
        return "takes the top card of market column " .. tostring(whole(action.column) + 1)
    elseif kind == "wild" then
        local faces = {}
        for i, face in ipairs(action.cards or {}) do
            faces[i] = "the " .. face_text(face)
        end
        return "discards " .. table.concat(faces, " and ") .. " for a wild"
    elseif kind == "put-wild" then
        return "puts the wild into corner " .. tostring(whole(action.corner) + 1) .. " as a "
            .. tostring(whole(action.value))
    elseif kind == "play" then
        return "plays the " .. face_text(action.card) .. " into corner " .. tostring(whole(action.corner) + 1)
    elseif kind == "pay" then
        return "pays with the " .. face_text(action.card)
    elseif kind == "discard" then
        return "discards the " .. face_text(action.card) .. " down to the hand limit"
    elseif kind == "feather" then
        return "spends a feather for the " .. tostring(action.animal) .. "'s power"
    elseif kind == "done" then
        return "is done"
    elseif kind == "end" then
        return "ends the turn"
    elseif kind == "pass" then
        return "passes"
    end
    return tostring(kind)
end

--- The button a player presses for a button action (bot actions come as the engine's JSON: a take from the
--  discard pile has no column).
local function button_of(action)
    local kind = action.action
    if kind == "draw" or kind == "refill" then
        return "drawPile" .. tostring(whole(action.pile) + 1)
    elseif kind == "take" then
        if type(action.column) ~= "number" then
            return "takeDiscard"
        end
        return "takeColumn" .. tostring(whole(action.column) + 1)
    elseif kind == "feather" then
        for id, animal in pairs(ANIMAL_BUTTONS) do
            if animal == action.animal then
                return id
            end
        end
    end
    return ({ done = "done", ["end"] = "endTurn", pass = "passAction" })[kind]
end

--- A season card of `face` in `colour`'s hand that is not in `except` (a list), lowest card id first.
local function hand_card_of(colour, face, except)
    for _, obj in ipairs(map.hand_cards(colour)) do
        local m = util.memo(obj)
        if obj.hasTag("fd-season") and m.season == face.season and whole(m.value) == whole(face.value) then
            local free = true
            for _, other in ipairs(except or {}) do
                if map.same(other, obj) then
                    free = false
                end
            end
            if free then
                return obj
            end
        end
    end
    return nil
end

--- A bot seat moves `obj` to `p` as a player drags it there; `after()` runs once it has come to rest.
local function bot_drag(obj, p, after)
    obj.setPositionSmooth({ p.x, p.y + 0.3, p.z }, false, true)
    Wait.condition(after, function() return not obj.isSmoothMoving() and obj.resting end, SETTLE_TIMEOUT, after)
end

--- Where a bot seat drops a card on a pile zone: just above its highest card, like a player's drop.
local function drop_spot(tag, count)
    local zone = map.one(tag)
    if tag == "fd-wild-supply" then
        -- on the wild deck, each card offered a little aside and above the one before, inside the zone
        local p = zone.positionToWorld({ x = 0.2 * count - 0.1, y = 0, z = 0.1 })
        return { x = p.x, y = zone.getPosition().y + 0.3 + 0.05 * count, z = p.z }
    end
    return above_pile(zone)
end

--- Perform the decision lib.bots got for bot seat `colour` (`action`: the engine's JSON of it) as a player
--  would, then the same path as the player's move: a button action is that button pressed (onActionClick's
--  path); a card is moved by the mod from the seat's hand (or the wild awaiting a place) onto the card point,
--  the discard pile or the wild supply, and once it rests read where it lies as a player's drop is
--  (put_down). `done(result)`: true once the ruling is applied, false when the bridge refused it (the cards are
--  back in the hand), nil when it could not be asked (lib.wiring.decide).
local function perform(colour, action, done)
    local kind = action.action
    local button = button_of(action)
    if button ~= nil then
        press(colour, button, done)
        return
    end
    local board = map.board_of(colour)
    local function gone(what)
        tell(nil, colour .. " (bot) cannot find " .. what .. " to play.")
        done(false)
    end
    if kind == "play" or kind == "pay" or kind == "discard" then
        local obj = hand_card_of(colour, action.card)
        if obj == nil then
            return gone("the " .. face_text(action.card) .. " in its hand")
        end
        local p = nil
        if kind == "play" then
            p = map.card_point(board, whole(action.corner), whole(action.card.value))
        else
            p = drop_spot("fd-discard", 0)
        end
        bot_drag(obj, p, function() put_down(colour, obj, done) end)
    elseif kind == "put-wild" then
        local obj = awaited_wild()
        local p = map.card_point(board, whole(action.corner), whole(action.value))
        if obj == nil or p == nil then
            return gone("the wild awaiting a place")
        end
        bot_drag(obj, p, function() put_down(colour, obj, done) end)
    elseif kind == "wild" then
        -- the cards one after the other onto the wild supply, as a player drops them: the last one sends it
        local cards = {}
        for _, face in ipairs(action.cards or {}) do
            local obj = hand_card_of(colour, face, cards)
            if obj == nil then
                return gone("the " .. face_text(face) .. " in its hand")
            end
            table.insert(cards, obj)
        end
        local function offer(i)
            if i > #cards then
                return
            end
            bot_drag(cards[i], drop_spot("fd-wild-supply", i - 1), function()
                put_down(colour, cards[i], done)
                offer(i + 1)
            end)
        end
        offer(1)
    else
        gone("how to play " .. tostring(kind))
    end
end

--- Whose decision the table waits for (lib.bots): the active colour and a key naming this decision (the count
--  of rulings applied, saved in the ledger); nil while setting up, busy, applying a ruling, or once over.
local function bot_decision()
    if ledger.phase ~= "play" or busy or ledger.ruling ~= nil or ledger.outcome ~= nil then
        return nil
    end
    return active_colour(), "ruling " .. tostring(ledger.rulings or 0)
end

function onBotClick(player, value, id)
    bots.click(player, id)
end

function onPlayerChangeColor(colour)
    bots.refresh()
    bots.play()
end

function onPlayerTurn(player, previous_player)
    if ledger ~= nil and ledger.phase == "play" then
        local expected = active_colour()
        if expected ~= nil and Turns.turn_color ~= expected then
            Turns.turn_color = expected
        end
    end
end

-- ------------------------------------------------------------------ load, save, messages
function onLoad(script_state)
    data, ledger = wiring.load({ game = game, ttsmod = ttsmod, script_state = script_state, new_ledger = new_ledger,
        player_colours = { "White", "Red", "Yellow", "Blue" },
        moving = map.moving, step_delay = STEP_DELAY, settle_timeout = SETTLE_TIMEOUT })
    if ledger.phase == "dealing" then
        -- saved while the cards were being laid out: they lie where they were going by now
        ledger.phase = "play"
    end
    -- bots in empty seats: their buttons, and their decisions once the bridge answers hello
    bots.configure({ ledger = ledger, player_colours = data.player_colours,
        colours = function() return ledger.colours end,
        over = function() return ledger.phase == "ended" end,
        decision = bot_decision,
        request = function() return { snapshot = map.snapshot(ledger, offered_cards()) } end,
        perform = perform,
        describe = function(colour, action) return describe(action) end })
    bots.refresh()
    -- saved in the middle of a ruling: busy (no move is taken, the status line says so) until the rest of it is
    -- applied (the events applied before are skipped)
    busy = ledger.ruling ~= nil
    show_turn()
    link.hello()
    if ledger.ruling ~= nil then
        Wait.time(function() apply_ruling(ledger.ruling) end, 1)
    else
        Wait.time(function() refresh_score() end, 1)
    end
end

function onSave()
    return saved.save(ledger)
end

function onExternalMessage(data_in)
    link.handle(data_in)
end
