-- Kill the Unicorns: Global script (root module of the bundle the build writes into the save), on the shared
-- play loop (lib.play, docs/table-contract.md "A game's mod on lib.play").
--
-- The table is the state: every card and token lies where the rules put it (the table map,
-- kill_the_unicorns.tablemap, reads it back into the engine's snapshot). lib.play keeps the ledger (the seats in
-- play, the engine's last snapshot, whose day, phase, hunt, pending decision and random state are sent back with
-- every snapshot, a ruling being applied, the bot seats), asks the bridge, applies rulings, lays the table from
-- a snapshot (lib.pieces: piles, spreads, catch spots and hands, as `places` and `spot` below say) and shows the
-- status line, the score panel and the game over.
--
-- What is this game's own (docs/games/kill_the_unicorns/playing.md): Setup sends the characters the players chose
-- by dropping a bag on their mat (or deals the others at random) and, once answered, opens the bags of the
-- characters in play onto their seats before the table is laid; a trick card dropped on a slot of the line and
-- the action buttons (Hunt, Pass, Above, Below, Use power, Decline, Buy, Skip) are the engine decisions of
-- docs/games/kill_the_unicorns/protocol.md, asked of the bridge with `legal` (a refusal puts what the player moved
-- back in their hand); a ruling's events are told one at a time and only then is the table laid as the ruling's
-- snapshot says; a bot seat's move is made on the table as a player makes it (kill_the_unicorns.botplay).
local play = require("lib.play")
local pieces = require("lib.pieces")
local panel = require("lib.panel")
local stepper = require("lib.stepper")
local util = require("lib.util")
local map = require("kill_the_unicorns.tablemap")
local botplay = require("kill_the_unicorns.botplay")

panel.SCORE_ROWS = 7         -- up to seven players (ui.xml has scoreRow1 … scoreRow7)
pieces.ROUNDS = 12           -- most rounds of moves laying the table from a snapshot takes

local tell = panel.tell
local seat_of, colour_of = play.seat_of, play.colour_of

local function data()
    return play.data()
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
    local names = data().names or {}
    if names[id] ~= nil then
        return english(names[id], id)
    end
    for _, list in ipairs({ data().characters or {}, data().market or {} }) do
        for _, entry in ipairs(list) do
            if entry.id == id then
                return english(entry.name, id)
            end
        end
    end
    local trick = (data().tricks or {})[id]
    if trick ~= nil then
        return english(trick.name, id)
    end
    local card = (data().cards or {})[id]
    if card ~= nil and card.name ~= nil then
        return english(card.name, id)
    end
    return tostring(id)
end

--- The engine's open decision {player, decision} or nil.
local function pending()
    local p = (play.ledger().snapshot or {}).pending
    if type(p) == "table" and p.decision ~= nil then
        return p
    end
    return nil
end

local function hunt_n()
    local hunt = (play.ledger().snapshot or {}).hunt
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
        return "to open the hunt (lay 1-" .. tostring((data().rules or {}).max_hunt_cards or 3)
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

--- The status line: the library's, but before Setup (how to choose a character), while a move is checked, and
--  while a player is to decide (what they are asked).
local function status_line(line)
    local ledger = play.ledger()
    if ledger.phase == "setup" then
        return "Seat " .. tostring(data().min_players) .. " to " .. tostring(data().max_players) .. " players (drop "
            .. "a character bag on your mat to choose, or give free seats a bot), then press Setup."
    elseif ledger.phase == "play" and play.busy() then
        return "checking the last move…"
    end
    return line
end

local function status(next, colour)
    if type(next) ~= "table" or next.decision == nil then
        return tostring(colour) .. " to play"
    end
    return tostring(colour) .. " " .. asked(next)
end

--- The action panel, with the buttons of the decision the engine waits for.
local function show_buttons()
    local playing = play.ledger().phase == "play"
    UI.setAttribute("actionPanel", "active", tostring(playing))
    local p = pending()
    local shown = {}
    if playing and p ~= nil then
        for _, id in ipairs(BUTTONS_OF[p.decision] or {}) do
            shown[id] = true
        end
    end
    for _, id in ipairs(BUTTONS) do
        UI.setAttribute(id, "active", tostring(shown[id] == true))
    end
end

--- One score row: "White: 23 (stars 15, modifiers 0, collections 8, rainbows 1)".
local function score_line(row, colour)
    local line = colour .. ": " .. tostring(row.score)
    if row.stars ~= nil then
        line = line .. " (stars " .. tostring(row.stars) .. ", modifiers " .. tostring(row.modifiers)
            .. ", collections " .. tostring(row.collections) .. ", rainbows " .. tostring(row.rainbow_sets or 0)
            .. ")"
    end
    return line
end

local function score_title(body)
    if play.ledger().phase == "over" or body.over then
        local winners = {}
        for _, seat in ipairs(body.leaders or {}) do
            table.insert(winners, who(seat))
        end
        return "Final scores · " .. table.concat(winners, " and ") .. " won"
    end
    return "Day " .. tostring(body.day or (play.ledger().snapshot or {}).day) .. " · scores now"
end

-- ------------------------------------------------------------------ where the snapshot puts every piece
local FACE_UP, FACE_DOWN = 0, 180

local function yaw_of(zone)
    return zone.getRotation().y + 180
end

--- Every card and token's place in `snap` (the engine's snapshot): id → {hand = colour} (lib.pieces') or {zone,
--  face (FACE_UP/FACE_DOWN), and how it lies there: pile (a key: the cards of one pile), spread (the k-th of a
--  spread over the zone, `columns` a row; keep_face: whichever face it shows) or catch (its catch spot), kind}.
local function places(snap)
    local out = {}
    local function put(id, place)
        if id ~= nil and id ~= false then
            out[id] = place
        end
    end
    for seat, p in ipairs(snap.players or {}) do
        local colour = play.ledger().colours[seat]
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
            local column = map.column_of((data().cards or {})[c.unicorn])
            slots[j] = counts[column] or 0
            counts[column] = slots[j] + 1
        end
        for j, c in ipairs(p.catch or {}) do
            local column = map.column_of((data().cards or {})[c.unicorn])
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

--- Where a place lies, for lib.pieces: a caught unicorn, pinned trick or token on its own spot of the catch
--  area (which moves when its column fills up), a spread's piece anywhere in its zone, a pile's on the pile.
local function spot(place)
    local zone = place.zone
    local rotation = { 0, yaw_of(zone), place.face }
    if place.catch ~= nil then
        local at = place.catch
        -- locked: the unicorns of a column overlap (each shows a strip), pinned tricks lie under them; unlocked,
        -- each would merge with the card it lands on into a deck, as cards laid on cards do in TTS
        return { position = map.catch_spot(at.colour, at.column, at.slot, at.count, place.what, place.k),
            rotation = rotation, near = map.CATCH_NEAR, lock = true }
    elseif place.spread ~= nil then
        return { position = map.spread_spot(zone, place.spread, place.columns or 3), rotation = rotation,
            zone = zone, any_face = place.keep_face, lock = false }
    end
    return { position = map.pile_spot(zone, 0), rotation = rotation, pile = place.pile, zone = zone, lock = false }
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
    for _, c in ipairs(data().characters or {}) do
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
--  beside it: the table laid from the snapshot then deals them); the other bags go to the box.
local function open_bags(snap)
    local in_play = {}
    for seat, p in ipairs(snap.players or {}) do
        in_play[p.character] = play.ledger().colours[seat]
    end
    local box = map.one("ku-box")
    local spare = 0
    for _, bag in ipairs(getObjectsWithTag("ku-character-bag")) do
        local character = util.memo(bag).character
        local colour = in_play[character]
        if colour ~= nil then
            -- each on a zone of its own (spawned lying on one another, they would merge into one deck): the
            -- character card on its spot, the trick deck on its pile, the hunting deck in the hunt area (from
            -- where the table laid from the snapshot deals it)
            local spot = map.seat_zone("ku-character-spot", colour)
            local yaw = yaw_of(spot)
            local zone_of = { ["trick-deck"] = map.seat_zone("ku-trick-deck", colour),
                ["hunting-deck"] = map.seat_zone("ku-hunt-area", colour) }
            for k, entry in ipairs(bag.getObjects()) do
                local role = (util.decode(entry.memo) or {}).role
                local p = map.pile_spot(zone_of[role] or spot, 0)
                if zone_of[role] == nil and role ~= "character" then
                    p = map.spread_spot(spot, k - 1, 3)
                end
                pieces.track(bag.takeObject({ guid = entry.guid, position = { p.x, p.y + 0.2 * k, p.z },
                    rotation = { 0, yaw, 0 }, smooth = false }))
            end
        elseif box ~= nil and not map.inside(box, bag) then
            -- two columns at the box's far end, a bag's width apart (a bag landing on a bag enters it)
            local p = map.box_spot(box, spare)
            spare = spare + 1
            bag.setPositionSmooth({ p.x, p.y + 0.5, p.z }, false, true)
            pieces.track(bag)
        end
    end
end

--- The character cards to their character spots.
local function place_character_cards(snap)
    for seat, p in ipairs(snap.players or {}) do
        local spot = map.seat_zone("ku-character-spot", play.ledger().colours[seat])
        for _, card in ipairs(getObjectsWithTag("ku-character-card")) do
            if util.memo(card).character == p.character and spot ~= nil and not map.inside(spot, card) then
                local c = spot.getPosition()
                pieces.send(card, { position = { c.x, c.y + 0.1, c.z }, rotation = { 0, yaw_of(spot), 0 } })
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
        pieces.track(token)
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
    local n = math.max(#(snap.line or {}), #(snap.slots or {}), (data().rules or {}).unicorns_per_day or 4)
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

--- Once Setup is answered (and again after a reload while dealing): who plays which character, the bags of the
--  characters in play opened onto their seats, the character cards and the first-player token put out; then
--  lib.play applies the setup's events and lays the table from its snapshot.
local function before_deal(snap, done, again)
    local colours = play.ledger().colours
    if not again then
        for seat, p in ipairs(snap.players or {}) do
            panel.say(colours[seat] .. " plays the " .. name_of(p.character) .. ".", { 1, 1, 1 })
        end
    end
    open_bags(snap)
    Wait.frames(function()
        stepper.when_settled(function()
            place_character_cards(snap)
            place_first_token(holder_of(snap))
            done()
        end)
    end, 2)
end

--- The characters of the seated players for the `setup` request (false: the engine deals them).
local function setup_options(colours)
    return { characters = characters_for(colours) or false }
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
    if play.ledger().phase == "dealing" then
        local p = pending()
        panel.say("Kill the Unicorns: day " .. tostring(e.day) .. " begins; "
            .. (p and who(p.player) or "?") .. " places the first trick.", { 1, 1, 1 })
        return
    end
    local names = {}
    for _, id in ipairs(e.line or {}) do
        table.insert(names, name_of(id))
    end
    panel.say("Day " .. tostring(e.day) .. ": the line is " .. table.concat(names, ", ") .. ".", { 1, 1, 1 })
end

handlers.trick_placed = function(e)
    panel.say(who(e.player) .. " slides a trick " .. tostring(e.slot) .. " unicorn "
        .. tostring(e.unicorn + 1) .. ".", { 1, 1, 1 })
end

handlers.hunt_started = function(e)
    place_first_token(e.holder)
    panel.say("Hunt " .. tostring(e.index + 1) .. ": " .. name_of(e.unicorn) .. ". " .. who(e.holder)
        .. " holds the first-player token.", { 1, 1, 1 })
end

--- The cards a player has laid for the hunt lie face down until the reveal (KU-1.3), however they were dropped.
local function hide_played(seat)
    local p = ((play.ledger().snapshot or {}).players or {})[seat + 1] or {}
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
    panel.say(who(e.player) .. " opens the hunt with " .. tostring(e.n) .. " card(s).", { 1, 1, 1 })
end

handlers.joined = function(e)
    hide_played(e.player)
    panel.say(who(e.player) .. " joins the hunt.", { 1, 1, 1 })
end

handlers.passed = function(e)
    local why = ""
    if e.forced then
        why = " (not enough cards)"
    end
    panel.say(who(e.player) .. " passes" .. why .. ".", { 1, 1, 1 })
end

handlers.token_passed = function(e)
    place_first_token(e.to)
    panel.say("The first-player token goes from " .. who(e.from) .. " to " .. who(e["to"]) .. ".",
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
    panel.say("Revealed: " .. table.concat(parts, ", ") .. ".", { 1, 0.85, 0.4 })
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
        panel.say(line .. "nobody wins the hunt: the unicorn runs away.", { 1, 0.85, 0.4 })
    else
        panel.say(line .. who(e.player) .. " wins the hunt for now.", { 1, 0.85, 0.4 })
    end
end

handlers.trick_revealed = function(e)
    flip_up(e.card)
    local facts = (data().cards or {})[e.card] or {}
    local kind = facts.trick or facts.kind
    local text = ""
    if kind ~= nil then
        text = ": " .. english(((data().tricks or {})[kind] or {}).text, "")
    end
    panel.say("Trick " .. tostring(e.slot) .. " (" .. who(e.owner) .. "'s): " .. name_of(kind or e.card) .. text,
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
    panel.say(line .. ".", { 1, 0.85, 0.4 })
end

handlers.trick_unplayed = function(e)
    panel.say(who(e.owner) .. "'s other trick is not played: it goes to their discard.", { 1, 1, 1 })
end

handlers.ran_away = function(e)
    panel.say(name_of(e.unicorn) .. " runs away.", { 1, 0.85, 0.4 })
end

handlers.captured = function(e)
    local pinned = ""
    if #(e.pinned or {}) > 0 then
        pinned = " (with " .. tostring(#e.pinned) .. " pinned trick(s))"
    end
    panel.say(who(e.player) .. " catches " .. name_of(e.unicorn) .. pinned .. ".", { 0.5, 1, 0.5 })
end

handlers.power_used = function(e)
    panel.say(who(e.player) .. " uses the " .. name_of(e.character) .. "'s power.", { 1, 0.85, 0.4 })
end

handlers.first_player = function(e)
    place_first_token(e.player)
    panel.say(who(e.player) .. " is first player.", { 1, 1, 1 })
end

handlers.market_opened = function()
    panel.say("The black market opens: one purchase each, pay with the hunting cards in your hand.",
        { 1, 1, 1 })
end

handlers.bought = function(e)
    local on = ""
    if e.unicorn ~= nil and e.unicorn ~= false then
        on = " on " .. name_of(e.unicorn)
    end
    panel.say(who(e.player) .. " buys " .. name_of(e.item) .. on .. ".", { 1, 1, 1 })
end

handlers.skipped = function(e)
    local why = ""
    if e.forced then
        why = " (can afford nothing)"
    end
    panel.say(who(e.player) .. " buys nothing" .. why .. ".", { 1, 1, 1 })
end

handlers.unicorn_turned_in = function(e)
    panel.say(who(e.player) .. " turns in " .. name_of(e.unicorn) .. ".", { 1, 1, 1 })
end

handlers.day_ended = function(e)
    panel.say("Day " .. tostring(e.day) .. " ends.", { 1, 1, 1 })
end

handlers.hands_returned = function()
    panel.say("Everybody takes their hunting cards back.", { 1, 1, 1 })
end

handlers.game_over = function(e)
    play.ledger().outcome = { winners = e.winners, decided_by = e.decided_by }
end

--- Ask the bridge about `action` by `colour` (lib.play); on a refusal `undo()` puts back what the player moved for
--  it. `done(result)` (optional: a bot seat's move, lib.bots) hears how it ended: true once its ruling is applied,
--  false when the bridge refused it, nil when nothing could be asked (the game busy, the bridge away).
local function send_decision(colour, action, undo, done)
    play.decide(colour, action, { undo = undo, done = done })
end

-- ------------------------------------------------------------------ buttons and drops
local function to_hand(obj, colour)
    pieces.send(obj, { hand = colour })
end

--- Put back in colour's hand the cards a player laid for a refused decision (entries of tablemap.everything() or
--  {id}: loose, or in a deck they formed where they were laid, as cards laid on cards do): a deck's cards are
--  taken out into the hand, and the card a deck is left with (its remainder) sent there too.
local function back_to_hand(entries, colour)
    return function()
        local found = pieces.find()
        local groups, order = {}, {}
        for _, entry in ipairs(entries) do
            local at = found[entry.id]
            if entry.obj ~= nil and not entry.obj.isDestroyed() then
                to_hand(entry.obj, colour)
            elseif at ~= nil and at.obj ~= nil then
                to_hand(at.obj, colour)
            elseif at ~= nil and at.container ~= nil then
                local key = at.container.getGUID()
                if groups[key] == nil then
                    groups[key] = { container = at.container, guids = {}, ids = {} }
                    table.insert(order, key)
                end
                table.insert(groups[key].guids, at.guid)
                groups[key].ids[entry.id] = true
            end
        end
        local t = Player[colour].getHandTransform()
        local p = t.position
        for _, key in ipairs(order) do
            local g = groups[key]
            for _, guid in ipairs(g.guids) do
                if g.container.isDestroyed() or g.container.getQuantity() < 2 then
                    break
                end
                pieces.track(g.container.takeObject({ guid = guid, position = { p.x, p.y, p.z },
                    rotation = { 0, t.rotation.y + 180, 0 }, smooth = false }))
                local rest = g.container.remainder
                if rest ~= nil then
                    if g.ids[pieces.id_of(rest)] then
                        to_hand(rest, colour)
                    end
                    break
                end
            end
        end
    end
end

--- The purchase a player has prepared: the item on whose stock their hunting cards lie (or, for a purchase
--  that costs nothing, of the token they dragged out of its stock), those cards, and the unicorn the token of
--  that item dragged into their catch area lies on (false: none). Returns nil when nothing is prepared.
local function prepared_purchase(colour, seat)
    local mine = (((play.ledger().snapshot or {}).players or {})[seat + 1]) or {}
    local item, cards = nil, {}
    for stock_item, entries in pairs(map.offered_payment()) do
        for _, entry in ipairs(entries) do
            if entry.memo.character == mine.character then
                item = stock_item
                table.insert(cards, entry)
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
    table.sort(cards, function(a, b) return a.id < b.id end)
    return item, cards, unicorn, token
end

local function card_ids(entries)
    local out = {}
    for i, entry in ipairs(entries) do
        out[i] = entry.id
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
        local laid = map.laid_for_hunt(play.ledger(), seat, colour)
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
                pieces.track(token)
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
--  `m` is the card's memo, `at` what lies where it was dropped (the card, or the deck it merged into there: a
--  card dropped on a card), `back()` puts it back in the hand; `done` as in send_decision (told false when the
--  drop was no decision).
local function trick_lies(colour, m, at, back, done)
    local seat = seat_of(colour)
    local mine = (((play.ledger().snapshot or {}).players or {})[(seat or -1) + 1] or {}).trick_hand or {}
    local index, slot = map.slot_at(at)
    if seat ~= nil and util.index_of(mine, m.card) ~= nil and index ~= nil then
        send_decision(colour, { action = "place-trick", player = seat, card = m.card, unicorn = index, slot = slot },
            back, done)
        return
    end
    if seat ~= nil and util.index_of(mine, m.card) ~= nil and not map.over_hand(colour, at) then
        back()
        tell(colour, "Drop the trick on a free slot above or below a unicorn of the line.")
    end
    if done ~= nil then
        done(false)
    end
end

local function trick_dropped(colour, obj, done)
    trick_lies(colour, util.memo(obj), obj, function() to_hand(obj, colour) end, done)
end

--- onObjectDrop (this game's own, not play.dropped): a trick card dropped is looked at once it rests
--  (trick_dropped: on a slot, a decision; elsewhere but the hand, back to the hand). Dropped on another card it
--  merges into a deck there (its reference destroyed): it is looked at in that deck, and taken out of it to go
--  back to the hand.
function onObjectDrop(colour, obj)
    local ledger = play.ledger()
    if ledger == nil or ledger.phase ~= "play" then
        return
    end
    if obj.hasTag("ku-trick") then
        local m = util.memo(obj)
        Wait.condition(function()
            if not obj.isDestroyed() then
                trick_dropped(colour, obj)
                return
            end
            local found = pieces.find()[m.card]
            if found ~= nil and found.container ~= nil then
                trick_lies(colour, m, found.container, back_to_hand({ { id = m.card } }, colour))
            end
        end, function() return obj.isDestroyed() or obj.resting end, 3)
    end
end

-- ------------------------------------------------------------------ the description lib.play runs
play.configure({
    game = require("generated.game"),
    ttsmod = require("generated.ttsmod"),
    places = places,
    spot = spot,
    id_of = function(memo)
        -- a card or token; an unused character's bag is in the box as that character (the engine lists it there)
        return map.id_of(memo) or (memo.role == "character-bag" and memo.character) or nil
    end,
    handlers = handlers,
    unhandled = function() end,          -- the table is laid once, after the last event
    keep = keep_nulls,
    snapshot = function() return map.snapshot(play.ledger()) end,
    status = status,
    status_line = status_line,
    panels = show_buttons,
    score_line = score_line,
    score_title = score_title,
    setup_options = setup_options,
    before_deal = before_deal,
    perform = function(colour, action, done)
        botplay.perform(colour, action, function(result, why)
            if why ~= nil then
                print("ttsmod: " .. colour .. "'s bot could not play " .. tostring(action.action) .. ": " .. why)
            end
            done(result)
        end)
    end,
    describe = function(_, action) return botplay.describe(action, name_of) end,
    step_delay = 0.3,
    settle_timeout = 3,
})

--- A ledger saved by the mod before it ran on lib.play: the engine's last snapshot was `last` (and `target`, the
--  one a ruling being applied lays), a deal under way had no ruling.
local function upgraded(script_state)
    local saved = util.decode(script_state)
    local ledger = saved.ledger
    if type(ledger) ~= "table" or ledger.snapshot ~= nil or ledger.last == nil then
        return script_state
    end
    ledger.snapshot = ledger.target or ledger.last
    ledger.next = ledger.snapshot.pending or nil
    ledger.last, ledger.target = nil, nil
    if ledger.phase == "dealing" and ledger.ruling == nil then
        ledger.ruling, ledger.applied = { events = {}, complete = true }, 0
    end
    return JSON.encode(saved)
end

function onLoad(script_state)
    play.load(upgraded(script_state))
    map.configure(play.data().layout)
    botplay.configure({ ledger = play.ledger, object_of = object_of,
        facts = function(id) return (play.data().cards or {})[id] end, press = press, trick_dropped = trick_dropped,
        when_settled = stepper.when_settled })
end

-- onSave, onExternalMessage, onSetupClick, onBotClick, onPlayerChangeColor and onPlayerTurn: lib.play's
-- (onLoad and onObjectDrop above are this game's own).
play.forward()
