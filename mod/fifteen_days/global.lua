-- 15 Days: Global script (root module of the bundle the build writes into the save), on the shared play loop
-- (lib.play, docs/table-contract.md "A game's mod on lib.play").
--
-- The table is the state: cards, wilds, feathers and animals lie where the rules put them, and the table map
-- (fifteen_days.tablemap) reads them back for every snapshot (the description's `snapshot`). Of the bridge's
-- answers the ledger keeps only what the table cannot show (`keep`): the engine's turn bookkeeping (whose turn,
-- actions left, a decision pending, the end trigger, the rng; tablemap.BOOKKEEPING) and each seat's wilds played,
-- sent back with every snapshot; beside lib.play's own fields the ledger holds the game's `values`, the wild
-- awaiting a place (`wild_guid`) and a card being drawn by a drag (`drag`).
--
-- What is this game's own and stays here: Setup lays the table itself (FD-1, `deal`: no bridge needed; the
-- engine checks it with the first score); which button or drag is which engine decision
-- (docs/games/fifteen_days/protocol.md), each asked with play.decide and the table as it lies, what the player
-- moved counted where it came from (a refusal puts it back and tells that player why); each event's handler,
-- which moves the pieces it names (lib.play applies a ruling's events one at a time); the status line of a wild
-- awaiting its place; the score rows; the action buttons; a bot seat's decision made on the table as a player
-- makes it (`perform`, lib.bots through lib.play). The ledger, the status line, the score panel, the ruling
-- flow, game over, the link and the bots' wiring are lib.play's.
local play = require("lib.play")
local pieces = require("lib.pieces")
local util = require("lib.util")
local panel = require("lib.panel")
local map = require("fifteen_days.tablemap")

local STEP_DELAY = 0.3       -- seconds between two steps of a ruling, so that players can follow them
local SETTLE_TIMEOUT = 3     -- longest wait for moves to end
local PILE_LIFT = 0.02       -- height of one card in a loose pile
local REMOVED_OFFSET = 5     -- cards out of the game lie this far (z) beyond draw pile 0, away from the market
local FACE_UP = { 0, 180, 0 }
local FACE_DOWN = { 0, 180, 180 }

local data = {}              -- generated.game's data (play.data())
local ledger = nil           -- play.ledger()
local tell = panel.tell
local seat_of, colour_of = play.seat_of, play.colour_of
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

local function rules()
    return data.rules or {}
end

--- The engine's bookkeeping the ledger keeps (lib.play's `snapshot`, through `keep`).
local function kept()
    return ledger.snapshot or {}
end

--- The engine's open decision ("draw", "take", "refill", "play", "wild") or nil.
local function pending_kind()
    return (ledger.next or {}).pending
end

-- ------------------------------------------------------------------ panels
--- The status line while `colour` is to move: a wild awaiting its place says so.
local function status(next, colour)
    if (next or {}).pending == "wild" then
        return colour .. " places a wild"
    end
    return colour .. " to play"
end

--- One score row: "White: 12 (runs 9, animals 2, empty corners 0)".
local function score_line(row, colour)
    local line = colour .. ": " .. tostring(row.score)
    if row.runs ~= nil then
        line = line .. " (runs " .. tostring(row.runs) .. ", animals " .. tostring(row.animals)
            .. ", empty corners " .. tostring(row.empty_corners) .. ")"
    end
    return line
end

--- The action buttons, shown while a game is on.
local function panels()
    UI.setAttribute("actionPanel", "active", tostring(play.ledger().phase == "play"))
end

--- The table as the snapshot (tablemap.snapshot): the cards offered for a wild still count in their hand.
local function snapshot()
    return map.snapshot(ledger, offered_cards())
end

--- What the ledger keeps of an answer's snapshot: the engine's bookkeeping (map.BOOKKEEPING) and each seat's
--  wilds_played. JSON.decode drops a JSON null: a key it dropped is sent back left out, which the engine reads
--  as its default (nothing pending, not over), and `end` keeps every key, false for null.
local function keep(snap)
    local out = { players = {} }
    for _, key in ipairs(map.BOOKKEEPING) do
        out[key] = snap[key]
    end
    for seat, entry in ipairs(snap.players or {}) do
        out.players[seat] = { wilds_played = entry.wilds_played }
    end
    local ending = out["end"] or {}
    for _, key in ipairs({ "trigger", "final_turns_left", "bonus_given", "complete_at_end" }) do
        if ending[key] == nil then
            ending[key] = false
        end
    end
    out["end"] = ending
    return out
end

-- ------------------------------------------------------------------ moving cards
--- Where a card ref (map.ref: a card merged into a deck) is now: {deck, guid}, found again by its id.
local function in_deck(ref)
    local found = map.find_card(ref.card)
    if found ~= nil and found.deck ~= nil then
        return found
    end
    return nil
end

local function lay(obj, p, rotation)
    if map.is_ref(obj) then
        local found = in_deck(obj)
        if found ~= nil then
            found.deck.takeObject({ guid = found.guid, position = { p.x, p.y, p.z }, rotation = rotation,
                smooth = false })
        end
        return
    end
    pieces.send(obj, { position = p, rotation = rotation })
end

--- Lay a card on a card point of a board, locked: the points of a corner are closer than a card is wide, and
--  an unlocked card laid overlapping its neighbour would merge with it into a deck (TTS: a card onto a card
--  forms a deck); a locked object never combines. Cards on a board stay there (a wild a card replaces is
--  unlocked when it goes back to the hand).
local function lay_on_board(obj, p, rotation)
    obj.setLock(true)
    lay(obj, p, rotation)
end

--- A card (or a card ref: one inside a deck, map.ref) to colour's hand; a card in a deck is taken out of it.
local function to_hand(obj, colour)
    if map.is_ref(obj) then
        local found = in_deck(obj)
        local t = Player[colour].getHandTransform()
        if found ~= nil then
            found.deck.takeObject({ guid = found.guid, position = { t.position.x, t.position.y, t.position.z },
                rotation = { 0, t.rotation.y + 180, 0 }, smooth = false })
        end
        return
    end
    obj.setLock(false)
    pieces.send(obj, { hand = colour })
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
    return pieces.zone("fd-card", { card = id })
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

--- Setup (lib.play's `deal`): lay the table for the seated players and the bot seats `colours` on the table
--  itself, then tell lib.play who begins and the engine's bookkeeping of a game not yet begun.
local function deal(colours, done)
    ledger.values = data.values or { 1, 2, 3, 4, 5, 6 }
    -- FD-1.8: a random first player
    local first = math.random(1, #colours) - 1
    local bookkeeping = { active = first, turn = 1, actions_left = rules().actions_per_turn or 2, pending = false,
        boost = false, power = false, otter_turn = false, fresh_discards = {},
        ["end"] = { trigger = false, final_turns_left = false, bonus_given = false }, over = false }
    local deck = map.one("fd-season-deck")
    deck.shuffle()
    local entries = deck.getObjects()
    if #colours == 2 then
        local out, kept_entries = two_player_removal(entries)
        set_aside(deck, out)
        entries = kept_entries
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
    local keep_count = (rules().wild_supply_per_player or 2) * #colours
    local spare = {}
    for i = keep_count + 1, #wilds do
        table.insert(spare, wilds[i])
    end
    for i, entry in ipairs(spare) do
        local p = wild_deck.getPosition()
        local obj = wild_deck.takeObject({ guid = entry.guid,
            position = { p.x, p.y + 0.1 + PILE_LIFT * i, p.z + REMOVED_OFFSET },
            rotation = FACE_UP, smooth = false })
        obj.addTag(map.REMOVED)
    end
    panel.say("15 Days: " .. tostring(colours[first + 1]) .. " begins.", { 1, 1, 1 })
    done({ player = first, actions_left = bookkeeping.actions_left }, bookkeeping)
end

-- ------------------------------------------------------------------ rulings (lib.play applies them)
local handlers = {}
local send_decision = nil

local function pile_top(pile)
    local stack = map.stack(map.zone("fd-draw-pile", pile))
    return stack[#stack]
end

--- The wild awaiting a place (a wild taken, a bonus wild, one displaced by its real card): in its player's
--  hand, remembered by GUID in the ledger so that a reload still knows it.
local function awaited_wild()
    if ledger.wild_card == nil and ledger.wild_guid ~= nil then
        -- a ledger saved before wilds were remembered by card id
        local obj = getObjectFromGUID(ledger.wild_guid)
        return obj
    end
    if ledger.wild_card == nil then
        return nil
    end
    local found = map.find_card(ledger.wild_card)
    return found ~= nil and found.obj or nil
end

--- Whether obj is the wild awaiting a place.
local function is_awaited(obj)
    local wild = awaited_wild()
    return wild ~= nil and map.same(wild, obj)
end

--- The wild `obj` goes to `player`'s hand to await a place, remembered by its card id: a wild just taken out
--  of the wild deck is still spawning, and its GUID is final only once it has spawned (TTS: `guid`).
local function wild_to_hand(obj, player)
    ledger.wild_card = util.memo(obj).card
    ledger.wild_guid = nil
    to_hand(obj, colour_of(player))
    tell(colour_of(player), "Drop the wild from your hand on a free card point of your board.")
end

handlers.card_drawn = function(e)
    local colour = colour_of(e.player)
    -- a card the player dragged off this pile into their hand is the card drawn: it is there already
    local drag = ledger.drag
    ledger.drag = nil
    if drag ~= nil and drag.pile == e.pile then
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
    -- a market column's or the discard pile's cards may have merged into a deck there: taken out of it
    local found = map.find_card(e.card)
    if found == nil then
        return nil
    end
    if found.deck ~= nil then
        local t = Player[colour_of(e.player)].getHandTransform()
        fetch({ deck = found.deck, guid = found.guid }, t.position, { 0, t.rotation.y + 180, 0 })
    else
        to_hand(found.obj, colour_of(e.player))
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
        lay_on_board(obj, { x = p.x, y = p.y + 0.1 + 0.01 * e.value, z = p.z }, { 0, board.getRotation().y, 0 })
    end
end

handlers.card_discarded = function(e)
    local zone = map.one("fd-discard")
    local found = map.find_card(e.card)
    if found == nil then
        return nil
    end
    if found.obj ~= nil then
        lay(found.obj, above_pile(zone, found.obj), FACE_UP)
    elseif not map.inside(zone, found.deck) then
        -- dropped on the wild supply, it joined the wild deck there: taken out onto the discard pile
        fetch({ deck = found.deck, guid = found.guid }, above_pile(zone), FACE_UP)
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
        panel.say(colour .. " takes a bonus wild for emptying a draw pile.", { 1, 0.85, 0.4 })
    end
end

handlers.wild_placed = function(e)
    local obj = awaited_wild()
    local board = map.board_of(colour_of(e.player))
    local p = map.card_point(board, e.corner, e.value)
    if obj ~= nil and p ~= nil then
        lay_on_board(obj, { x = p.x, y = p.y + 0.1 + 0.01 * e.value, z = p.z }, { 0, board.getRotation().y, 0 })
    end
    ledger.wild_card, ledger.wild_guid = nil, nil
end

handlers.wild_returned = function(e)
    local obj = awaited_wild()
    if obj ~= nil then
        local zone = map.one("fd-wild-supply")
        obj.setLock(false)
        lay(obj, top_of(zone, #map.wild_supply() + 2), FACE_UP)
    end
    ledger.wild_card, ledger.wild_guid = nil, nil
    tell(colour_of(e.player), "No free place for the wild on your board: it goes back to the supply.")
end

--- A feather of the player's board to the supply (or out of the game with feather_returns_to_supply = false).
handlers.feather_spent = function(e)
    local colour = colour_of(e.player)
    local seat_zone = map.seat_of(colour)
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
    panel.say(colour .. " spends a feather for the " .. tostring(e.animal) .. "'s power.", { 1, 1, 1 })
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
    panel.say(colour .. " takes the " .. e.animal .. " from " .. from .. ".", { 1, 1, 1 })
end

handlers.play_cost = function(e)
    if e.owed > 0 then
        tell(colour_of(e.player), "Pay " .. tostring(e.owed) .. " card(s): drop them on the discard pile.")
    end
end

handlers.draw_pile_emptied = function(e)
    if e.triggers_end then
        panel.say("Draw pile " .. tostring(e.pile + 1) .. " is empty: " .. tostring(colour_of(e.player))
            .. " finishes the turn, then everyone else plays one last turn.", { 1, 0.85, 0.4 })
    else
        panel.say("Draw pile " .. tostring(e.pile + 1) .. " is empty.", { 1, 0.85, 0.4 })
    end
end

handlers.turn_started = function(e)
    if e.final then
        panel.say(tostring(colour_of(e.player)) .. " plays a last turn.", { 1, 0.85, 0.4 })
    end
end

--- Ask the bridge about `action` by `colour` (play.decide); `moved` lists what the player moved for it (counted
--  as still in their hand by the snapshot); `taken` ({obj, tag, index}) is a card they dragged into their hand
--  from a market column, the discard pile or a draw pile (counted as still on top there); on a refusal, `undo()`
--  puts it back. `done` (a bot seat's decision, lib.bots) hears how it ended: true once its ruling is applied,
--  false when refused, nil when it could not be asked (lib.wiring.decide).
send_decision = function(colour, action, undo, moved, taken, done)
    play.decide(colour, action, {
        snapshot = function()
            if taken ~= nil and taken.tag == "fd-draw-pile" then
                -- saved with the ledger, so that a reload in the middle of the ruling still draws this card
                ledger.drag = { guid = taken.obj.getGUID(), pile = taken.index }
            end
            return map.snapshot(ledger, { [colour] = moved or {} }, taken)
        end,
        undo = function()
            ledger.drag = nil
            if undo ~= nil then
                undo()
            end
        end,
        done = function(result)
            ledger.drag = nil
            if done ~= nil then
                done(result)
            end
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

--- Whether obj lies on the offer spots beside the wild supply (a save built before them has none).
local function on_offer_spots(obj)
    local zone = map.one("fd-wild-offer")
    return zone ~= nil and map.inside(zone, obj)
end

--- Where the k-th card (0-based) offered for a wild is dropped: on the k-th offer spot beside the wild deck, so
--  that the offered cards join neither the wild deck nor one another; in a save without offer spots, a little
--  aside and above the one before on the wild deck, inside the supply zone.
local function offer_spot(k)
    local zone = map.one("fd-wild-offer")
    if zone == nil then
        local supply = map.one("fd-wild-supply")
        local p = supply.positionToWorld({ x = 0.2 * k - 0.1, y = 0, z = 0.1 })
        return { x = p.x, y = supply.getPosition().y + 0.3 + 0.05 * k, z = p.z }
    end
    local slots = util.memo(zone).slots or 1
    local p, width = zone.getPosition(), math.abs(zone.getScale().x)
    return { x = p.x - width / 2 + (k % slots + 0.5) * width / slots, y = p.y, z = p.z }
end

local function offer_for_wild(colour, seat, obj, done)
    if offered.colour ~= colour then
        offered = { colour = colour, cards = {} }
    end
    table.insert(offered.cards, obj)
    local needed = rules().wild_discard_count or 2
    if #offered.cards < needed then
        tell(colour, "Drop " .. tostring(needed - #offered.cards)
            .. " more card(s) on the offer spots beside the wild deck to take a wild for them.")
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

--- The card `obj` (card id `id`) once it has come to rest: itself, or, when it merged into a deck where it
--  landed (dropped on the discard pile or the wild supply), a ref for it in that deck (map.ref).
local function settled(obj, id)
    if not obj.isDestroyed() then
        return obj
    end
    return map.ref(id)
end

-- Cards picked up from a market column, the discard pile or a draw pile while the game is on, by card id (a
-- card grabbed off a deck is still spawning when it is picked up, and its GUID is final only once it has
-- spawned): where each lay (tablemap.origin_of), so that its drop can be read as a take or a draw, or undone.
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
    local id = util.memo(obj).card
    if ledger ~= nil and ledger.phase == "play" and id ~= nil then
        picked[id] = map.origin_of(obj)
    end
    for i, card in ipairs(offered.cards) do
        if id ~= nil and util.memo(card).card == id then
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
    if obj == nil then
        if done ~= nil then
            done(nil)
        end
        return
    end
    local seat = seat_of(colour)
    local board = map.board_of(colour)
    local corner, value = map.card_point_at(board, obj.getPosition())
    local undo = function() to_hand(obj, colour) end
    if obj.hasTag("fd-wild") then
        if not is_awaited(obj) then
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
        if pending_kind() == nil and kept().actions_left == 0 then
            kind = "discard"
        end
        send_decision(colour, { action = kind, player = seat, card = face_of(obj) }, undo, { obj }, nil, done)
    elseif map.inside(map.one("fd-wild-supply"), obj) or on_offer_spots(obj) then
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
    local id = util.memo(obj).card
    local origin = picked[id]
    if origin ~= nil then
        picked[id] = nil
        Wait.condition(function()
            local card = settled(obj, id)
            if card ~= nil then
                dropped_from(origin, colour, card)
            end
        end, function() return obj.isDestroyed() or obj.resting end, SETTLE_TIMEOUT)
        return
    end
    if seat_of(colour) == nil or map.board_of(colour) == nil then
        return
    end
    Wait.condition(function() put_down(colour, settled(obj, id), nil) end,
        function() return obj.isDestroyed() or obj.resting end, SETTLE_TIMEOUT)
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
--  `after(card)` gets the card as it came to rest (settled: a ref once it merged into a pile's deck).
local function bot_drag(obj, p, after)
    local id = util.memo(obj).card
    local function then_after()
        after(settled(obj, id))
    end
    obj.setPositionSmooth({ p.x, p.y + 0.3, p.z }, false, true)
    Wait.condition(then_after, function() return obj.isDestroyed() or (not obj.isSmoothMoving() and obj.resting) end,
        SETTLE_TIMEOUT, then_after)
end

--- Where a bot seat drops a card on a pile zone: just above its highest card, like a player's drop; the
--  `count`-th card offered for a wild (tag fd-wild-supply) on its offer spot.
local function drop_spot(tag, count)
    if tag == "fd-wild-supply" then
        return offer_spot(count)
    end
    return above_pile(map.one(tag))
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
            -- onto a board's card point locked, as the mod lays board cards (lay_on_board): it overlaps its
            -- neighbours, and would merge with one; the hand unlocks it again on a refusal
            obj.setLock(true)
            p = map.card_point(board, whole(action.corner), whole(action.card.value))
        else
            p = drop_spot("fd-discard", 0)
        end
        bot_drag(obj, p, function(card) put_down(colour, card, done) end)
    elseif kind == "put-wild" then
        local obj = awaited_wild()
        local p = map.card_point(board, whole(action.corner), whole(action.value))
        if obj == nil or p == nil then
            return gone("the wild awaiting a place")
        end
        obj.setLock(true)
        bot_drag(obj, p, function(card) put_down(colour, card, done) end)
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
            bot_drag(cards[i], drop_spot("fd-wild-supply", i - 1), function(card)
                put_down(colour, card, done)
                offer(i + 1)
            end)
        end
        offer(1)
    else
        gone("how to play " .. tostring(kind))
    end
end


-- ------------------------------------------------------------------ the description, and what Global forwards
play.configure({
    game = require("generated.game"),
    ttsmod = require("generated.ttsmod"),
    deal = deal,
    snapshot = snapshot,
    keep = keep,
    moving = map.moving,
    handlers = handlers,
    status = status,
    score_line = score_line,
    panels = panels,
    perform = perform,
    describe = function(colour, action) return describe(action) end,
    step_delay = STEP_DELAY,
    settle_timeout = SETTLE_TIMEOUT,
})

--- A ledger saved by the mod before it ran on lib.play, read once: its turn bookkeeping (`turn`,
--  `wilds_played`) becomes the kept snapshot and `next`, its phase `ended` is `over`, a ruling it was applying
--  goes on with that ruling's snapshot, and its count of rulings is lib.play's `moves`.
local function upgrade(script_state)
    local state = util.decode(script_state)
    local old = state.ledger
    if type(old) ~= "table" or type(old.turn) ~= "table" or old.snapshot ~= nil then
        return script_state
    end
    local snap = { players = {} }
    for key, value in pairs(old.turn) do
        snap[key] = value
    end
    for seat, played in pairs(old.wilds_played or {}) do
        snap.players[seat] = { wilds_played = played }
    end
    local pending = old.turn.pending
    old.snapshot = snap
    old.next = { player = old.turn.active, actions_left = old.turn.actions_left,
        pending = type(pending) == "table" and pending.kind or nil }
    if type(old.ruling) == "table" and old.ruling.snapshot ~= nil then
        old.snapshot, old.next, old.outcome = keep(old.ruling.snapshot), old.ruling.next, old.ruling.game_over
        old.ruling = { events = old.ruling.events or {}, complete = old.ruling.complete }
    end
    if old.phase == "ended" then
        old.phase = "over"
    end
    old.moves, old.turn, old.wilds_played, old.rulings = old.rulings, nil, nil, nil
    return JSON.encode(state)
end

function onLoad(script_state)
    play.load(upgrade(script_state))
    data, ledger = play.data(), play.ledger()
end

play.forward()      -- onSave, onExternalMessage, onSetupClick, onBotClick, onPlayerChangeColor, onPlayerTurn
