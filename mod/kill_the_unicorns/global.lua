-- Kill the Unicorns: Global script (root module of the bundle the build writes into the save).
--
-- The table is the state: every card and token lies where the rules put it (the table map,
-- kill_the_unicorns.tablemap, reads it back into the engine's snapshot). The ledger keeps what the table cannot
-- show: the seats in play, the game and mode the table was built for (the snapshot's envelope), the engine's
-- bookkeeping as the bridge last wrote it (`last`: the engine's last snapshot, whose day, phase, hunt, pending
-- decision and random state are sent back with every snapshot) and a ruling being applied. It is saved with
-- onSave, so a reloaded table or a restarted bridge carries on.
--
-- Flow (docs/games/kill_the_unicorns/playing.md): Setup asks the bridge to set the game up for the seated players
-- and the characters they chose (or deals them at random), then lays the table from the snapshot it answers. A
-- player's drop or button becomes one engine decision (docs/games/kill_the_unicorns/protocol.md), asked of the
-- bridge with `legal` before anything is taken as done: a refusal is told to that player and whatever they moved
-- goes back; a ruling's events are told one at a time (lib.stepper), then the table is laid as the ruling's
-- snapshot says (`lay_table`: every card and token that is not where the engine has it is moved there). After
-- every ruling the bridge's `score` fills the score panel.
local seats = require("lib.seats")
local util = require("lib.util")
local link = require("lib.link")
local stepper = require("lib.stepper")
local saved = require("lib.ledger")
local panel = require("lib.panel")
local wiring = require("lib.wiring")
local bots = require("lib.bots")
local map = require("kill_the_unicorns.tablemap")
local botplay = require("kill_the_unicorns.botplay")
local game = require("generated.game")
local ttsmod = require("generated.ttsmod")

local STEP_DELAY = 0.3       -- seconds between two steps of a ruling, so that players can follow them
local SETTLE_TIMEOUT = 3     -- longest wait for moves to end
local LAY_PASSES = 12        -- most rounds of moves laying the table from a snapshot takes
local SETUP = "setup"        -- the bridge request that sets a game up

panel.SCORE_ROWS = 7         -- up to seven players (ui.xml has scoreRow1 … scoreRow7)

local data = {}
local ledger = nil
local busy = false           -- a decision is being checked or its ruling applied
local ask = link.ask
local tell = panel.tell
local when_settled = stepper.when_settled

local function new_ledger()
    return { game = ttsmod.game, mode = ttsmod.mode, colours = {}, phase = "setup", last = nil, target = nil,
        applied = 0, ruling = nil, outcome = nil, seed = nil, moves = 0 }
end

-- ------------------------------------------------------------------ seats, names
local function seat_of(colour)
    return seats.seat_of(ledger.colours, colour)
end

local function colour_of(seat)
    return seats.colour_of(ledger.colours, seat)
end

local function who(seat)
    return tostring(colour_of(tonumber(seat)))
end

local function english(name, fallback)
    if type(name) == "table" then
        return name.en or fallback
    end
    if type(name) == "string" then
        return name
    end
    return fallback
end

--- The English name of a card, token, trick kind, item or character id (the id itself when unknown).
local function name_of(id)
    if id == nil or id == false then
        return "nothing"
    end
    local names = data.names or {}
    if names[id] ~= nil then
        return english(names[id], id)
    end
    for _, list in ipairs({ data.characters or {}, data.market or {} }) do
        for _, entry in ipairs(list) do
            if entry.id == id then
                return english(entry.name, id)
            end
        end
    end
    local trick = (data.tricks or {})[id]
    if trick ~= nil then
        return english(trick.name, id)
    end
    local card = (data.cards or {})[id]
    if card ~= nil and card.name ~= nil then
        return english(card.name, id)
    end
    return tostring(id)
end

--- The engine's open decision {player, decision} or nil.
local function pending()
    local p = (ledger.last or {}).pending
    if type(p) == "table" and p.decision ~= nil then
        return p
    end
    return nil
end

local function hunt_n()
    local hunt = (ledger.last or {}).hunt
    if type(hunt) == "table" and type(hunt.n) == "number" then
        return hunt.n
    end
    return nil
end

-- ------------------------------------------------------------------ panels
local BUTTONS = { "huntButton", "passButton", "aboveButton", "belowButton", "powerButton", "declineButton",
    "buyButton", "skipButton" }
local BUTTONS_OF = {
    open = { "huntButton", "passButton" }, join = { "huntButton", "passButton" },
    choose_trick = { "aboveButton", "belowButton" }, power = { "powerButton", "declineButton" },
    market = { "buyButton", "skipButton" }, place_trick = {},
}

--- What the player to decide is asked, for the status line.
local function asked(p)
    local decision = p.decision
    if decision == "place_trick" then
        return "to place a trick (drop one on a slot of the line)"
    elseif decision == "open" then
        return "to open the hunt (lay 1-" .. tostring((data.rules or {}).max_hunt_cards or 3)
            .. " cards in the hunt area, Hunt) or Pass"
    elseif decision == "join" then
        return "to join the hunt (lay " .. tostring(hunt_n()) .. " card(s), Hunt) or Pass"
    elseif decision == "choose_trick" then
        return "to choose a trick blind: Above or Below"
    elseif decision == "power" then
        return "to use the character's power or Decline"
    elseif decision == "market" then
        return "to buy at the black market (cards on an item's stock, Buy) or Skip"
    end
    return "to " .. tostring(decision)
end

local function show_state()
    local line = "Seat the players (drop a character bag on your mat to choose), then press Setup."
    if ledger.phase == "dealing" then
        line = "laying the table…"
    elseif ledger.phase == "play" then
        local p = pending()
        if busy then
            line = "checking the last move…"
        elseif p ~= nil then
            line = who(p.player) .. " " .. asked(p)
        end
    elseif ledger.phase == "over" then
        local winners = {}
        for _, seat in ipairs((ledger.outcome or {}).winners or {}) do
            table.insert(winners, who(seat))
        end
        line = "Game over · " .. table.concat(winners, " and ") .. " won"
    end
    panel.status(line)
end

local function show_turn()
    UI.setAttribute("setupButton", "active", tostring(ledger.phase == "setup"))
    local playing = ledger.phase == "play"
    UI.setAttribute("actionPanel", "active", tostring(playing))
    local p = pending()
    local shown = {}
    if playing and p ~= nil then
        for _, id in ipairs(BUTTONS_OF[p.decision] or {}) do
            shown[id] = true
        end
        local colour = colour_of(p.player)
        -- a bot seat has nobody to hand the turn to (TTS turns are for seated players)
        if colour ~= nil and Turns.turn_color ~= colour and not bots.isBot(colour) then
            Turns.turn_color = colour
        end
    end
    for _, id in ipairs(BUTTONS) do
        UI.setAttribute(id, "active", tostring(shown[id] == true))
    end
    show_state()
end

local function set_busy(value)
    busy = value
    show_state()
end

--- One score row: "White: 23 (stars 15, modifiers 0, collections 8, rainbows 1)".
local function score_line(row)
    local line = who(row.player) .. ": " .. tostring(row.score)
    if row.stars ~= nil then
        line = line .. " (stars " .. tostring(row.stars) .. ", modifiers " .. tostring(row.modifiers)
            .. ", collections " .. tostring(row.collections) .. ", rainbows " .. tostring(row.rainbow_sets or 0)
            .. ")"
    end
    return line
end

local function show_scores(body)
    local lines = {}
    for i, row in ipairs(body.standings or {}) do
        lines[i] = score_line(row)
    end
    local title = "Day " .. tostring(body.day or (ledger.last or {}).day) .. " · scores now"
    if ledger.phase == "over" or body.over then
        local winners = {}
        for _, seat in ipairs(body.leaders or {}) do
            table.insert(winners, who(seat))
        end
        title = "Final scores · " .. table.concat(winners, " and ") .. " won"
    end
    panel.scores(lines, title)
end

--- Ask the bridge to score the table: `snapshot` (the engine's own, just laid on the table) or the table as
--  read now.
local function refresh_score(snapshot)
    if ledger.phase ~= "play" and ledger.phase ~= "over" then
        return
    end
    wiring.refresh_score(function() return snapshot or map.snapshot(ledger) end, show_scores)
end

-- ------------------------------------------------------------------ laying the table from a snapshot
local FACE_UP, FACE_DOWN = 0, 180

local function yaw_of(zone)
    return zone.getRotation().y + 180
end

--- Every card and token's place in `snap` (the engine's snapshot): id → {zone, hand (colour), spot (a
--  position, computed late: piles go on top of what lies there), face (FACE_UP/FACE_DOWN or nil: keep),
--  pile (a key: the cards of one pile), kind}.
local function places_of(snap)
    local out = {}
    local function put(id, place)
        if id ~= nil and id ~= false then
            out[id] = place
        end
    end
    for seat, p in ipairs(snap.players or {}) do
        local colour = ledger.colours[seat]
        for _, id in ipairs(p.hand or {}) do
            put(id, { hand = colour, kind = "hand" })
        end
        for _, id in ipairs(p.trick_hand or {}) do
            put(id, { hand = colour, kind = "hand" })
        end
        local area = map.seat_zone("ku-hunt-area", colour)
        for k, id in ipairs(p.played or {}) do
            put(id, { zone = area, spread = k - 1, face = FACE_DOWN, keep_face = true, kind = "played" })
        end
        for _, pile in ipairs({ { "hunt_discard", "ku-hunt-discard", FACE_UP },
            { "trick_deck", "ku-trick-deck", FACE_DOWN }, { "trick_discard", "ku-trick-discard", FACE_UP } }) do
            local zone = map.seat_zone(pile[2], colour)
            for _, id in ipairs(p[pile[1]] or {}) do
                put(id, { zone = zone, pile = pile[2] .. colour, face = pile[3], kind = pile[1] })
            end
        end
        -- each caught unicorn in its printed colour's column, in the order caught
        local catch = map.seat_zone("ku-catch", colour)
        local counts, slots = {}, {}
        for j, c in ipairs(p.catch or {}) do
            local column = map.column_of((data.cards or {})[c.unicorn])
            slots[j] = counts[column] or 0
            counts[column] = slots[j] + 1
        end
        for j, c in ipairs(p.catch or {}) do
            local column = map.column_of((data.cards or {})[c.unicorn])
            local at = { colour = colour, column = column, slot = slots[j], count = counts[column] }
            local function catch_place(what, k)
                return { zone = catch, catch = at, what = what, k = k, face = FACE_UP, kind = "catch" }
            end
            put(c.unicorn, catch_place(nil, nil))
            for k, id in ipairs(c.pinned or {}) do
                put(id, catch_place("pinned", k - 1))
            end
            for k, id in ipairs(c.tokens or {}) do
                put(id, catch_place("token", k - 1))
            end
        end
        local spot = map.seat_zone("ku-character-spot", colour)
        for k, id in ipairs(p.tokens or {}) do
            put(id, { zone = spot, spread = k, columns = 4, face = FACE_UP, kind = "tokens" })
        end
    end
    for i, id in ipairs(snap.line or {}) do
        put(id, { zone = map.line_zone(i - 1), pile = "line" .. i, face = FACE_UP, kind = "line" })
    end
    for i, pair in ipairs(snap.slots or {}) do
        for j, slot in ipairs({ "above", "below" }) do
            local id = pair[j]
            if id ~= nil and id ~= false then
                put(id, { zone = map.slot_zone(i - 1, slot), pile = "slot" .. i .. slot, face = FACE_DOWN,
                    kind = "slot" })
            end
        end
    end
    for _, id in ipairs(snap.unicorn_deck or {}) do
        put(id, { zone = map.one("ku-unicorn-deck-zone"), pile = "unicorn-deck", face = FACE_DOWN, kind = "deck" })
    end
    for _, id in ipairs(snap.unicorn_discard or {}) do
        put(id, { zone = map.one("ku-unicorn-discard"), pile = "unicorn-discard", face = FACE_UP,
            kind = "discard" })
    end
    local box = map.one("ku-box")
    for k, id in ipairs(snap.box or {}) do
        put(id, { zone = box, spread = k - 1, columns = 10, face = FACE_UP, kind = "box" })
    end
    for item, stock in pairs(snap.market or {}) do
        for _, id in ipairs(stock) do
            put(id, { zone = map.stock_zone(item), pile = "market" .. item, face = FACE_UP, kind = "market" })
        end
    end
    return out
end

--- Where a catch place (places_of) lies on the table.
local function catch_spot(place)
    local at = place.catch
    return map.catch_spot(at.colour, at.column, at.slot, at.count, place.what, place.k)
end

--- Whether a found entry (tablemap.everything) lies where its place says.
local function in_place(entry, place, by_id)
    if place.hand ~= nil then
        return entry.obj ~= nil and map.over_hand(place.hand, entry.obj)
    end
    if place.zone == nil or not map.entry_in(place.zone, entry) then
        return false
    end
    if place.catch ~= nil then
        -- a caught unicorn, pinned trick or token lies on its own spot (which moves when its column fills up)
        return util.flat_distance(entry.position, catch_spot(place)) <= map.CATCH_NEAR
    end
    return true
end

local function rotation_for(place, zone)
    if place.face == nil then
        return nil
    end
    return { 0, yaw_of(zone), place.face }
end

--- Move a found entry to a position (a card inside a container is taken out there).
local function move_entry(entry, p, rotation)
    if entry.container ~= nil then
        local params = { guid = entry.guid, position = { p.x, p.y, p.z }, smooth = false }
        if rotation ~= nil then
            params.rotation = rotation
        end
        map.track(entry.container.takeObject(params))
    else
        if rotation ~= nil then
            entry.obj.setRotation(rotation)
        end
        entry.obj.setPositionSmooth({ p.x, p.y, p.z }, false, true)
        map.track(entry.obj)
    end
end

local function hand_spot(colour)
    local t = map.hand_transform(colour)
    return t.position, { 0, t.rotation.y + 180, 0 }
end

--- The highest point of what lies in a zone (a card laid there is the pile's new top).
local function pile_top(zone, found)
    local y = zone.getPosition().y + 0.1 - map.LIFT
    for _, entry in ipairs(found) do
        if entry.obj ~= nil and map.entry_in(zone, entry) then
            y = math.max(y, entry.y)
        elseif entry.container ~= nil and map.entry_in(zone, entry) then
            y = math.max(y, entry.container.getPosition().y)
        end
    end
    return y
end

--- One round of moves towards `snap`: every misplaced card or token moved to its place (a container taken
--  apart one card at a time once it is down to two, because the last card of a deck becomes a card of its
--  own; a container whose cards mostly go to one pile goes there whole). Returns the number of moves.
local function lay_round(snap)
    local places = places_of(snap)
    local found = map.everything()
    local by_id = {}
    for _, entry in ipairs(found) do
        by_id[entry.id] = entry
    end
    local moves, deferred = 0, 0
    local tops = {}
    local function next_top(place)
        local key = place.pile
        if tops[key] == nil then
            tops[key] = pile_top(place.zone, found)
        end
        tops[key] = tops[key] + map.LIFT
        local c = place.zone.getPosition()
        return { x = c.x, y = tops[key], z = c.z }
    end
    local function spot_of(place)
        if place.catch ~= nil then
            return catch_spot(place)
        elseif place.spread ~= nil then
            local s = map.spread_spot(place.zone, place.spread, place.columns or 3)
            return s
        end
        return next_top(place)
    end
    -- containers: moved whole to where most of their cards go, else taken apart
    local taken_from = {}
    local containers = {}
    for _, entry in ipairs(found) do
        if entry.container ~= nil then
            local key = entry.container.getGUID()
            containers[key] = containers[key] or { obj = entry.container, entries = {} }
            table.insert(containers[key].entries, entry)
        end
    end
    for key, c in pairs(containers) do
        local count, best, best_n = {}, nil, 0
        for _, entry in ipairs(c.entries) do
            local place = places[entry.id]
            if place ~= nil and place.pile ~= nil then
                count[place.pile] = (count[place.pile] or 0) + 1
                if count[place.pile] > best_n then
                    best, best_n = place, count[place.pile]
                end
            end
        end
        if c.obj.type == "Deck" and best ~= nil and best_n * 2 > #c.entries and not map.entry_in(best.zone, c.entries[1]) then
            local p = spot_of(best)
            c.obj.setRotation(rotation_for(best, best.zone) or c.obj.getRotation())
            c.obj.setPositionSmooth({ p.x, p.y, p.z }, false, true)
            map.track(c.obj)
            taken_from[key] = #c.entries
            c.moved_to = best.pile
            moves = moves + 1
        end
    end
    for _, entry in ipairs(found) do
        local place = places[entry.id]
        if place ~= nil then
            local key = entry.container and entry.container.getGUID()
            local whole = key ~= nil and taken_from[key] ~= nil and taken_from[key] >= #containers[key].entries
            if whole then
                if place.pile ~= containers[key].moved_to then
                    deferred = deferred + 1   -- taken out of the deck once it lies where it goes
                end
            elseif not in_place(entry, place, by_id) then
                local allowed = true
                if key ~= nil then
                    local left = #containers[key].entries - (taken_from[key] or 0)
                    allowed = containers[key].obj.type ~= "Deck" or left > 2 or (taken_from[key] or 0) == 0
                    if left <= 1 then
                        allowed = false
                    end
                end
                if not allowed then
                    deferred = deferred + 1
                end
                if allowed then
                    if key ~= nil then
                        taken_from[key] = (taken_from[key] or 0) + 1
                    end
                    if place.hand ~= nil then
                        local p, rotation = hand_spot(place.hand)
                        move_entry(entry, p, rotation)
                    else
                        move_entry(entry, spot_of(place), rotation_for(place, place.zone))
                    end
                    moves = moves + 1
                end
            elseif entry.obj ~= nil and place.face ~= nil and not place.keep_face and place.hand == nil then
                -- in place but on the wrong face (a trick dropped face up on a slot, a discard face down)
                local down = entry.obj.is_face_down
                if down ~= (place.face == FACE_DOWN) then
                    entry.obj.setRotation(rotation_for(place, place.zone))
                    moves = moves + 1
                end
            end
        end
    end
    return moves, deferred
end

--- Lay the table as `snap` says, in rounds until nothing is left to move; then `done()`.
local function lay_table(snap, done)
    local round = 0
    local step = nil
    step = function()
        round = round + 1
        local moved, deferred = lay_round(snap)
        if moved > 0 and deferred == 0 then
            -- every misplaced card is on its way to its place: done once the moves end
            moved = 0
            Wait.frames(function() when_settled(done) end, 2)
            return
        end
        if moved == 0 or round >= LAY_PASSES then
            if moved > 0 then
                print("ttsmod: the table could not be laid exactly as the engine has it; check the misplaced cards")
            end
            done()
            return
        end
        Wait.frames(function() when_settled(step) end, 2)
    end
    when_settled(step)
end

-- ------------------------------------------------------------------ setup (KU-1)
local function bag_of(character)
    for _, bag in ipairs(getObjectsWithTag("ku-character-bag")) do
        if util.memo(bag).character == character then
            return bag
        end
    end
    return nil
end

--- The character whose bag a seated player has dropped on their seat mat (in one of its areas), or nil.
local function chosen_character(colour)
    for _, bag in ipairs(getObjectsWithTag("ku-character-bag")) do
        for _, tag in ipairs({ "ku-character-spot", "ku-hunt-area", "ku-catch", "ku-trick-deck",
            "ku-trick-discard", "ku-hunt-discard" }) do
            if map.inside(map.seat_zone(tag, colour), bag) then
                return util.memo(bag).character
            end
        end
    end
    return nil
end

--- The characters for the seated players: those chosen by dropping a bag on a mat, the others dealt at random
--  here among the rest (the promo ones only when needed), or nil when nobody chose (the engine deals).
local function characters_for(colours)
    local chosen, any, taken = {}, false, {}
    for i, colour in ipairs(colours) do
        local c = chosen_character(colour)
        if c ~= nil and not taken[c] then
            chosen[i], any, taken[c] = c, true, true
        end
    end
    if not any then
        return nil
    end
    local regular, promo = {}, {}
    for _, c in ipairs(data.characters or {}) do
        if not taken[c.id] then
            if c.promo then
                table.insert(promo, c.id)
            else
                table.insert(regular, c.id)
            end
        end
    end
    for i = 1, #colours do
        if chosen[i] == nil then
            local pool = regular
            if #pool == 0 then
                pool = promo
            end
            local k = math.random(1, #pool)
            chosen[i] = table.remove(pool, k)
        end
    end
    return chosen
end

--- Empty the bags of the characters in play onto their seats (character card on the character spot, decks
--  beside it: lay_table then deals them); the other bags go to the box.
local function open_bags(snap)
    local in_play = {}
    for seat, p in ipairs(snap.players or {}) do
        in_play[p.character] = ledger.colours[seat]
    end
    local box = map.one("ku-box")
    local spare = 0
    for _, bag in ipairs(getObjectsWithTag("ku-character-bag")) do
        local character = util.memo(bag).character
        local colour = in_play[character]
        if colour ~= nil then
            local spot = map.seat_zone("ku-character-spot", colour)
            local yaw = yaw_of(spot)
            for k, entry in ipairs(bag.getObjects()) do
                local p = map.spread_spot(spot, k - 1, 3)
                map.track(bag.takeObject({ guid = entry.guid, position = { p.x, p.y + 0.2 * k, p.z },
                    rotation = { 0, yaw, 0 }, smooth = false }))
            end
        elseif box ~= nil and not map.inside(box, bag) then
            local p = map.spread_spot(box, 40 + spare, 10)
            spare = spare + 1
            bag.setPositionSmooth({ p.x, p.y + 0.5, p.z }, false, true)
            map.track(bag)
        end
    end
end

--- The character cards to their character spots.
local function place_character_cards(snap)
    for seat, p in ipairs(snap.players or {}) do
        local spot = map.seat_zone("ku-character-spot", ledger.colours[seat])
        for _, card in ipairs(getObjectsWithTag("ku-character-card")) do
            if util.memo(card).character == p.character and spot ~= nil and not map.inside(spot, card) then
                local c = spot.getPosition()
                card.setRotation({ 0, yaw_of(spot), 0 })
                card.setPositionSmooth({ c.x, c.y + 0.1, c.z }, false, true)
                map.track(card)
            end
        end
    end
end

--- The first-player token in front of the seat holding it.
local function place_first_token(seat)
    local token = map.one("ku-first-player")
    local colour = colour_of(seat)
    if token == nil or colour == nil then
        return
    end
    local spot = map.seat_zone("ku-character-spot", colour)
    if spot ~= nil then
        local p = map.spread_spot(spot, 3, 4)
        token.setPositionSmooth({ p.x, p.y + 0.2, p.z }, false, true)
        map.track(token)
    end
end

local function holder_of(snap)
    local hunt = snap.hunt
    if type(hunt) == "table" and type(hunt.holder) == "number" then
        return hunt.holder
    end
    return snap.first
end

--- The engine's snapshot as the ledger keeps it: every value JSON's null dropped is written false again (Lua
--  cannot hold null; the engine reads false as null).
local function keep_nulls(snap)
    local n = math.max(#(snap.line or {}), #(snap.slots or {}), (data.rules or {}).unicorns_per_day or 4)
    local line, slots = {}, {}
    for i = 1, n do
        line[i] = (snap.line or {})[i] or false
        local pair = (snap.slots or {})[i] or {}
        slots[i] = { pair[1] or false, pair[2] or false }
    end
    snap.line, snap.slots = line, slots
    if snap.pending == nil then
        snap.pending = false
    end
    if snap.hunt == nil then
        snap.hunt = false
    elseif type(snap.hunt) == "table" then
        for _, key in ipairs({ "index", "holder", "opener", "n", "to_decide", "step" }) do
            if snap.hunt[key] == nil then
                snap.hunt[key] = false
            end
        end
        snap.hunt.passed = snap.hunt.passed or {}
        snap.hunt.joined = snap.hunt.joined or {}
    end
    return snap
end

local function start_play()
    ledger.phase = "play"
    ledger.target = nil
    Turns.enable = true
    Turns.order = ledger.colours
    set_busy(false)
    show_turn()
    local p = pending()
    broadcastToAll("Kill the Unicorns: day " .. tostring(ledger.last.day) .. " begins; "
        .. (p and who(p.player) or "?") .. " places the first trick.", { 1, 1, 1 })
    refresh_score()
    bots.refresh()
    bots.play()
end

--- Lay the table of a new game from the setup snapshot (also after a reload in the middle of it).
local function deal(snap)
    open_bags(snap)
    Wait.frames(function()
        when_settled(function()
            place_character_cards(snap)
            place_first_token(holder_of(snap))
            lay_table(snap, start_play)
        end)
    end, 2)
end

function onSetupClick(player, value, id)
    if ledger.phase ~= "setup" or busy then
        return
    end
    -- the seated players and the seats given a bot (lib.bots)
    local colours = bots.colours_in_play(data.player_colours)
    local least, most = data.min_players or 3, data.max_players or 7
    if #colours < least or #colours > most then
        broadcastToAll("Seat " .. tostring(least) .. " to " .. tostring(most) .. " players (or give free seats a "
            .. "bot), then press Setup.", { 1, 0.6, 0.2 })
        return
    end
    if not link.connected() then
        tell(player.color, "The rules bridge is not running ('ttsmod bridge'): Setup needs it.")
        return
    end
    local characters = characters_for(colours)
    local body = { players = #colours, seed = math.random(1, 1000000000), mode = ledger.mode,
        characters = characters or false }
    set_busy(true)
    ask(SETUP, body, function(reply)
        ledger.colours = colours
        ledger.seed = body.seed
        ledger.last = keep_nulls(reply.snapshot)
        ledger.target = ledger.last
        ledger.phase = "dealing"
        set_busy(false)
        show_turn()
        for seat, p in ipairs(reply.snapshot.players or {}) do
            broadcastToAll(colours[seat] .. " plays the " .. name_of(p.character) .. ".", { 1, 1, 1 })
        end
        deal(ledger.target)
    end, function(err)
        set_busy(false)
        tell(nil, "The bridge refused Setup: " .. tostring(err.message))
    end, nil, function() set_busy(false) end)
end

-- ------------------------------------------------------------------ rulings
local handlers = {}

local function object_of(id)
    for _, obj in ipairs(getObjectsWithTag("ttsmod")) do
        if (obj.hasTag("ku-card") or obj.hasTag("ku-token")) and map.id_of(util.memo(obj)) == id then
            return obj
        end
    end
    return nil
end

local function flip_up(id)
    local obj = object_of(id)
    if obj ~= nil and obj.is_face_down then
        local r = obj.getRotation()
        obj.setRotation({ 0, r.y, 0 })
    end
end

handlers.day_started = function(e)
    local names = {}
    for _, id in ipairs(e.line or {}) do
        table.insert(names, name_of(id))
    end
    broadcastToAll("Day " .. tostring(e.day) .. ": the line is " .. table.concat(names, ", ") .. ".", { 1, 1, 1 })
end

handlers.trick_placed = function(e)
    broadcastToAll(who(e.player) .. " slides a trick " .. tostring(e.slot) .. " unicorn "
        .. tostring(e.unicorn + 1) .. ".", { 1, 1, 1 })
end

handlers.hunt_started = function(e)
    place_first_token(e.holder)
    broadcastToAll("Hunt " .. tostring(e.index + 1) .. ": " .. name_of(e.unicorn) .. ". " .. who(e.holder)
        .. " holds the first-player token.", { 1, 1, 1 })
end

--- The cards a player has laid for the hunt lie face down until the reveal (KU-1.3), however they were dropped.
local function hide_played(seat)
    local p = ((ledger.target or {}).players or {})[seat + 1] or {}
    for _, id in ipairs(p.played or {}) do
        local obj = object_of(id)
        if obj ~= nil and not obj.is_face_down then
            local r = obj.getRotation()
            obj.setRotation({ 0, r.y, 180 })
        end
    end
end

handlers.opened = function(e)
    hide_played(e.player)
    broadcastToAll(who(e.player) .. " opens the hunt with " .. tostring(e.n) .. " card(s).", { 1, 1, 1 })
end

handlers.joined = function(e)
    hide_played(e.player)
    broadcastToAll(who(e.player) .. " joins the hunt.", { 1, 1, 1 })
end

handlers.passed = function(e)
    local why = ""
    if e.forced then
        why = " (not enough cards)"
    end
    broadcastToAll(who(e.player) .. " passes" .. why .. ".", { 1, 1, 1 })
end

handlers.token_passed = function(e)
    place_first_token(e.to)
    broadcastToAll("The first-player token goes from " .. who(e.from) .. " to " .. who(e["to"]) .. ".",
        { 1, 1, 1 })
end

handlers.revealed = function(e)
    local parts = {}
    for seat, cards in pairs(e.cards or {}) do
        for _, id in ipairs(cards) do
            flip_up(id)
        end
        table.insert(parts, who(seat) .. " " .. tostring((e.sums or {})[seat]))
    end
    table.sort(parts)
    broadcastToAll("Revealed: " .. table.concat(parts, ", ") .. ".", { 1, 0.85, 0.4 })
end

handlers.winner = function(e)
    local dropped = {}
    for _, group in ipairs(e.dropped or {}) do
        local names = {}
        for _, seat in ipairs(group) do
            table.insert(names, who(seat))
        end
        table.insert(dropped, table.concat(names, " and ") .. " tie and are out")
    end
    local line = table.concat(dropped, "; ")
    if line ~= "" then
        line = line .. ": "
    end
    if e.player == nil or e.player == false then
        broadcastToAll(line .. "nobody wins the hunt: the unicorn runs away.", { 1, 0.85, 0.4 })
    else
        broadcastToAll(line .. who(e.player) .. " wins the hunt for now.", { 1, 0.85, 0.4 })
    end
end

handlers.trick_revealed = function(e)
    flip_up(e.card)
    local facts = (data.cards or {})[e.card] or {}
    local kind = facts.trick or facts.kind
    local text = ""
    if kind ~= nil then
        text = ": " .. english(((data.tricks or {})[kind] or {}).text, "")
    end
    broadcastToAll("Trick " .. tostring(e.slot) .. " (" .. who(e.owner) .. "'s): " .. name_of(kind or e.card) .. text,
        { 1, 0.85, 0.4 })
end

handlers.trick_applied = function(e)
    local line = "The trick is applied"
    if e.ignored then
        line = "The trick would give the unicorn to a player who passed: that part is ignored"
    end
    if e.winner_after ~= e.winner_before then
        if e.winner_after == nil or e.winner_after == false then
            line = line .. "; the unicorn runs away"
        else
            line = line .. "; the hunt now goes to " .. who(e.winner_after)
        end
    end
    broadcastToAll(line .. ".", { 1, 0.85, 0.4 })
end

handlers.trick_unplayed = function(e)
    broadcastToAll(who(e.owner) .. "'s other trick is not played: it goes to their discard.", { 1, 1, 1 })
end

handlers.ran_away = function(e)
    broadcastToAll(name_of(e.unicorn) .. " runs away.", { 1, 0.85, 0.4 })
end

handlers.captured = function(e)
    local pinned = ""
    if #(e.pinned or {}) > 0 then
        pinned = " (with " .. tostring(#e.pinned) .. " pinned trick(s))"
    end
    broadcastToAll(who(e.player) .. " catches " .. name_of(e.unicorn) .. pinned .. ".", { 0.5, 1, 0.5 })
end

handlers.power_used = function(e)
    broadcastToAll(who(e.player) .. " uses the " .. name_of(e.character) .. "'s power.", { 1, 0.85, 0.4 })
end

handlers.first_player = function(e)
    place_first_token(e.player)
    broadcastToAll(who(e.player) .. " is first player.", { 1, 1, 1 })
end

handlers.market_opened = function()
    broadcastToAll("The black market opens: one purchase each, pay with the hunting cards in your hand.",
        { 1, 1, 1 })
end

handlers.bought = function(e)
    local on = ""
    if e.unicorn ~= nil and e.unicorn ~= false then
        on = " on " .. name_of(e.unicorn)
    end
    broadcastToAll(who(e.player) .. " buys " .. name_of(e.item) .. on .. ".", { 1, 1, 1 })
end

handlers.skipped = function(e)
    local why = ""
    if e.forced then
        why = " (can afford nothing)"
    end
    broadcastToAll(who(e.player) .. " buys nothing" .. why .. ".", { 1, 1, 1 })
end

handlers.unicorn_turned_in = function(e)
    broadcastToAll(who(e.player) .. " turns in " .. name_of(e.unicorn) .. ".", { 1, 1, 1 })
end

handlers.day_ended = function(e)
    broadcastToAll("Day " .. tostring(e.day) .. " ends.", { 1, 1, 1 })
end

handlers.hands_returned = function()
    broadcastToAll("Everybody takes their hunting cards back.", { 1, 1, 1 })
end

handlers.game_over = function(e)
    ledger.outcome = { winners = e.winners, decided_by = e.decided_by }
end

local function finish_ruling()
    local target = ledger.target
    lay_table(target, function()
        ledger.ruling = nil
        ledger.applied = 0
        ledger.last = target
        ledger.target = nil
        if ledger.outcome ~= nil then
            ledger.phase = "over"
            Turns.enable = false
            wiring.game_over(ledger.outcome, who)
            bots.refresh()
        end
        set_busy(false)
        show_turn()
        refresh_score(ledger.last)
        bots.play()
    end)
end

local function apply_ruling()
    stepper.run(ledger.ruling, handlers, ledger, function() return ledger.ruling ~= nil end, finish_ruling)
end

--- Ask the bridge about `action` by `colour`; on a refusal `undo()` puts back what the player moved for it.
--  `done(result)` (optional: a bot seat's move, lib.bots) hears how it ended: true once the bridge has ruled it
--  (the ruling is then applied like any other), false when the bridge refused it, nil when nothing could be
--  asked (the game busy, the bridge away).
local function send_decision(colour, action, undo, done)
    local blocked = nil
    if ledger.phase ~= "play" then
        blocked = "Nothing can be played now."
    elseif busy then
        blocked = "Wait a moment: the last move is still being applied."
    end
    wiring.decide({ colour = colour, action = action, undo = undo, blocked = blocked, busy = set_busy, done = done,
        snapshot = function() return map.snapshot(ledger) end,
        ruled = function(reply)
            ledger.applied = 0
            ledger.target = keep_nulls(reply.snapshot)
            ledger.ruling = { events = reply.events or {}, complete = true }
            ledger.moves = (ledger.moves or 0) + 1
            if done ~= nil then
                done(true)
            end
            apply_ruling()
        end })
end

-- ------------------------------------------------------------------ buttons and drops
local function to_hand(obj, colour)
    local p, rotation = hand_spot(colour)
    obj.setRotation(rotation)
    obj.setPositionSmooth({ p.x, p.y, p.z }, false, true)
    map.track(obj)
end

local function back_to_hand(objs, colour)
    return function()
        for _, obj in ipairs(objs) do
            to_hand(obj, colour)
        end
    end
end

--- The purchase a player has prepared: the item on whose stock their hunting cards lie (or, for a purchase
--  that costs nothing, of the token they dragged out of its stock), those cards, and the unicorn the token of
--  that item dragged into their catch area lies on (false: none). Returns nil when nothing is prepared.
local function prepared_purchase(colour, seat)
    local mine = (((ledger.last or {}).players or {})[seat + 1]) or {}
    local item, cards = nil, {}
    for stock_item, objs in pairs(map.offered_payment()) do
        for _, obj in ipairs(objs) do
            if util.memo(obj).character == mine.character then
                item = stock_item
                table.insert(cards, obj)
            end
        end
    end
    local before = {}
    for _, c in ipairs(mine.catch or {}) do
        for _, id in ipairs(c.tokens or {}) do
            before[id] = true
        end
    end
    for _, id in ipairs(mine.tokens or {}) do
        before[id] = true
    end
    local unicorn, token = false, nil
    local catch = map.seat_zone("ku-catch", colour)
    local spot = map.seat_zone("ku-character-spot", colour)
    for _, obj in ipairs(getObjectsWithTag("ku-token")) do
        local m = util.memo(obj)
        if (item == nil or m.item == item) and not before[m.token] then
            if map.inside(catch, obj) then
                -- the unicorn it lies on, by the rule the table is read with (tablemap.catch_owner)
                item, token = m.item, obj
                local unicorns = {}
                for _, u in ipairs(getObjectsWithTag("ku-unicorn")) do
                    if map.inside(catch, u) then
                        table.insert(unicorns, { id = util.memo(u).card, position = u.getPosition() })
                    end
                end
                unicorn = map.catch_owner(colour, obj.getPosition(), unicorns) or false
            elseif map.inside(spot, obj) then
                item, token = m.item, obj
            end
        end
    end
    if item == nil then
        return nil
    end
    table.sort(cards, function(a, b) return util.memo(a).card < util.memo(b).card end)
    return item, cards, unicorn, token
end

local function card_ids(objs)
    local out = {}
    for i, obj in ipairs(objs) do
        out[i] = util.memo(obj).card
    end
    return out
end

--- A press of action button `id` by `colour` (a player's click, or a bot seat's move: `done` as in
--  send_decision, told false when nothing was prepared for the button).
local function press(colour, id, done)
    local seat = seat_of(colour)
    local function nothing(message)
        tell(colour, message)
        if done ~= nil then
            done(false)
        end
    end
    if seat == nil then
        nothing("Only seated players of this game play.")
        return
    end
    if id == "huntButton" then
        local laid = map.laid_for_hunt(ledger, seat, colour)
        local p = pending()
        local kind = "open"
        if p ~= nil and p.decision == "join" then
            kind = "join"
        end
        if #laid == 0 then
            nothing("Lay your hunting cards face down in your hunt area first, then press Hunt.")
            return
        end
        send_decision(colour, { action = kind, player = seat, cards = card_ids(laid) }, back_to_hand(laid, colour),
            done)
    elseif id == "passButton" then
        send_decision(colour, { action = "pass", player = seat }, nil, done)
    elseif id == "aboveButton" or id == "belowButton" then
        local slot = "above"
        if id == "belowButton" then
            slot = "below"
        end
        send_decision(colour, { action = "choose-trick", player = seat, slot = slot }, nil, done)
    elseif id == "powerButton" then
        send_decision(colour, { action = "power", player = seat }, nil, done)
    elseif id == "declineButton" then
        send_decision(colour, { action = "decline", player = seat }, nil, done)
    elseif id == "buyButton" then
        local item, cards, unicorn, token = prepared_purchase(colour, seat)
        if item == nil then
            nothing("Drop the hunting cards you pay with on the stock of the item you buy (and drag its token "
                .. "onto the unicorn it goes on), then press Buy.")
            return
        end
        local undo = function()
            back_to_hand(cards, colour)()
            if token ~= nil then
                local p = map.pile_spot(map.stock_zone(item), 6)
                token.setPositionSmooth({ p.x, p.y, p.z }, false, true)
                map.track(token)
            end
        end
        send_decision(colour, { action = "buy", player = seat, item = item, cards = card_ids(cards),
            unicorn = unicorn }, undo, done)
    elseif id == "skipButton" then
        send_decision(colour, { action = "skip", player = seat }, nil, done)
    end
end

function onActionClick(player, value, id)
    press(player.color, id)
end

--- A trick card dropped on a trick slot of the line is a `place-trick` decision (KU-3.2); dropped anywhere else
--  but the hand while it is one of the player's two drawn tricks, it goes back to the hand.
--  `done` as in send_decision (told false when the drop was no decision).
local function trick_dropped(colour, obj, done)
    local seat = seat_of(colour)
    local m = util.memo(obj)
    local mine = (((ledger.last or {}).players or {})[(seat or -1) + 1] or {}).trick_hand or {}
    local index, slot = map.slot_at(obj)
    if seat ~= nil and util.index_of(mine, m.card) ~= nil and index ~= nil then
        send_decision(colour, { action = "place-trick", player = seat, card = m.card, unicorn = index, slot = slot },
            function() to_hand(obj, colour) end, done)
        return
    end
    if seat ~= nil and util.index_of(mine, m.card) ~= nil and not map.over_hand(colour, obj) then
        to_hand(obj, colour)
        tell(colour, "Drop the trick on a free slot above or below a unicorn of the line.")
    end
    if done ~= nil then
        done(false)
    end
end

function onObjectDrop(colour, obj)
    if ledger == nil or ledger.phase ~= "play" then
        return
    end
    if obj.hasTag("ku-trick") then
        Wait.condition(function() trick_dropped(colour, obj) end, function() return obj.resting end,
            SETTLE_TIMEOUT)
    end
end

function onPlayerTurn(player, previous_player)
    local p = ledger ~= nil and ledger.phase == "play" and pending()
    if p then
        local expected = colour_of(p.player)
        if expected ~= nil and Turns.turn_color ~= expected and not bots.isBot(expected) then
            Turns.turn_color = expected
        end
    end
end

-- ------------------------------------------------------------------ bots in empty seats (lib.bots)
--- The decision the table waits for, for lib.bots: the colour to decide and a key naming this decision (the
--  rulings applied so far, the seat and the decision), or nil while a move is being checked or applied.
local function bot_decision()
    if ledger.phase ~= "play" or busy or ledger.ruling ~= nil then
        return nil
    end
    local p = pending()
    if p == nil then
        return nil
    end
    return colour_of(p.player), tostring(ledger.moves or 0) .. ":" .. tostring(p.player) .. ":" .. tostring(p.decision)
end

local function configure_bots()
    botplay.configure({ ledger = function() return ledger end, object_of = object_of,
        facts = function(id) return (data.cards or {})[id] end, press = press, trick_dropped = trick_dropped,
        when_settled = when_settled })
    bots.configure({ ledger = ledger, player_colours = data.player_colours,
        colours = function() return ledger.colours or {} end,
        over = function() return ledger.phase == "over" end,
        decision = bot_decision,
        request = function() return { snapshot = map.snapshot(ledger) } end,
        perform = function(colour, action, done)
            botplay.perform(colour, action, function(result, why)
                if why ~= nil then
                    print("ttsmod: " .. colour .. "'s bot could not play " .. tostring(action.action) .. ": " .. why)
                end
                done(result)
            end)
        end,
        describe = function(_, action) return botplay.describe(action, name_of) end,
        seed = function() return ledger.seed or 0 end })
    bots.refresh()
end

function onBotClick(player, value, id)
    bots.click(player, id)
end

function onPlayerChangeColor(colour)
    bots.refresh()
    bots.play()
end

-- ------------------------------------------------------------------ load, save, messages
function onLoad(script_state)
    data, ledger = wiring.load({ game = game, ttsmod = ttsmod, script_state = script_state, new_ledger = new_ledger,
        player_colours = { "White", "Red", "Orange", "Yellow", "Green", "Blue", "Purple" },
        moving = map.moving, step_delay = STEP_DELAY, settle_timeout = SETTLE_TIMEOUT })
    map.configure(data.layout)
    configure_bots()
    -- saved in the middle of laying the table or of a ruling: busy (no move is taken, the status line says so)
    -- until the rest of it is done (the events applied before are skipped; laying the table is done again
    -- from where the cards lie)
    busy = ledger.ruling ~= nil
    show_turn()
    link.hello()
    if ledger.phase == "dealing" and ledger.target ~= nil then
        Wait.time(function() deal(ledger.target) end, 1)
    elseif ledger.ruling ~= nil then
        Wait.time(function() apply_ruling() end, 1)
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
