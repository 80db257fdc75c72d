-- A bot seat's move performed on the Kill the Unicorns table as a player would make it.
--
-- The bridge's bot_move answers an engine action (docs/games/kill_the_unicorns/protocol.md). A player makes each
-- kind of action by moving cards and pressing a button; the bot seat does the same moves with scripted smooth
-- moves, then, once they have ended, takes the path the mod takes after the player's drop or click (TTS fires no
-- onObjectDrop for a scripted move): the trick dropped on a slot, the Hunt/Pass/Above/Below/Use power/Decline/
-- Buy/Skip button pressed. So the mod reads the decision off the table exactly as it reads a player's, asks the
-- bridge `legal`, and on a refusal puts the cards back with the same undo.
--
--   place-trick   the trick card from the seat's hand onto its slot of the line, face down
--   open / join   the hunting cards from the hand into the seat's hunt area, face down, then Hunt
--   buy           the paying cards onto the item's stock; the item's token onto the unicorn it goes on (or, paid
--                 with nothing, beside the character card), then Buy
--   pass, choose-trick, power, decline, skip      the button
local map = require("kill_the_unicorns.tablemap")

local M = {}

local BUTTON = { pass = "passButton", power = "powerButton", decline = "declineButton", skip = "skipButton",
    open = "huntButton", join = "huntButton", buy = "buyButton" }

-- what the Global script lends: configure() fills it
local game = {}

--- `options`: `ledger()` (the mod's ledger), `object_of(id)` (the loose card or token of an id), `facts(id)`
--  (a card's facts in the game data), `press(colour, button, outcome)` and `trick_dropped(colour, obj, outcome)`
--  (the paths a player's click and drop take), `when_settled(fn)` (fn once nothing the mod moved is moving).
function M.configure(options)
    game = options
end

local function face_down(zone)
    return { 0, zone.getRotation().y + 180, 180 }
end

local function face_up(zone)
    return { 0, zone.getRotation().y + 180, 0 }
end

--- Move obj to p (a little above it, as a dropped card falls) turned as `rotation`.
local function carry(obj, p, rotation)
    obj.setRotation(rotation)
    obj.setPositionSmooth({ p.x, p.y + 0.2, p.z }, false, true)
    map.track(obj)
end

local function mine(seat)
    return (((game.ledger().snapshot or {}).players or {})[seat + 1]) or {}
end

--- Where a token dropped on `unicorn` of the seat's catch lies: where the mod lays a token of that unicorn (the
--  strip of its card the next one leaves visible), so the table reads it as lying on that unicorn.
local function token_spot(colour, seat, unicorn)
    local catch = mine(seat).catch or {}
    local counts, slots = {}, {}
    for j, c in ipairs(catch) do
        local column = map.column_of(game.facts(c.unicorn))
        slots[j] = counts[column] or 0
        counts[column] = slots[j] + 1
    end
    for j, c in ipairs(catch) do
        if c.unicorn == unicorn then
            local column = map.column_of(game.facts(c.unicorn))
            return map.catch_spot(colour, column, slots[j], counts[column], "token", #(c.tokens or {}))
        end
    end
    return nil
end

--- The token of `item` lying on top of its stock (the one a player takes).
local function stock_token(item)
    local stock = (((game.ledger().snapshot or {}).market or {})[item]) or {}
    for i = #stock, 1, -1 do
        local obj = game.object_of(stock[i])
        if obj ~= nil and obj.held_by_color == nil then
            return obj
        end
    end
    return nil
end

--- The objects of `ids`, or nil (with the missing id) when one is not lying loose on the table.
local function objects(ids)
    local out = {}
    for i, id in ipairs(ids or {}) do
        local obj = game.object_of(id)
        if obj == nil then
            return nil, id
        end
        out[i] = obj
    end
    return out
end

--- Perform `action` (an engine action as bot_move answers it) for the bot seat `colour`: the moves, then the
--  decision path. `outcome(ok, why)` hears how it ended (send_decision's outcome; false with "missing" when a
--  card of the action is not on the table, "unknown" for an action kind the table has no way to make).
function M.perform(colour, action, outcome)
    local kind = action.action
    local seat = action.player
    local function then_press(button)
        game.when_settled(function() game.press(colour, button, outcome) end)
    end
    if kind == "place-trick" then
        local found, missing = objects({ action.card })
        if found == nil then
            outcome(false, "missing " .. tostring(missing))
            return
        end
        local zone = map.slot_zone(action.unicorn, action.slot)
        carry(found[1], zone.getPosition(), face_down(zone))
        game.when_settled(function() game.trick_dropped(colour, found[1], outcome) end)
    elseif kind == "open" or kind == "join" then
        local found, missing = objects(action.cards)
        if found == nil then
            outcome(false, "missing " .. tostring(missing))
            return
        end
        local area = map.seat_zone("ku-hunt-area", colour)
        local already = #(mine(seat).played or {})
        for k, obj in ipairs(found) do
            carry(obj, map.spread_spot(area, already + k - 1, 3), face_down(area))
        end
        then_press("huntButton")
    elseif kind == "buy" then
        local found, missing = objects(action.cards)
        if found == nil then
            outcome(false, "missing " .. tostring(missing))
            return
        end
        local stock = map.stock_zone(action.item)
        for k, obj in ipairs(found) do
            carry(obj, map.spread_spot(stock, k - 1, 4), face_up(stock))
        end
        local unicorn = action.unicorn
        if (unicorn ~= nil and unicorn ~= false) or #found == 0 then
            local token = stock_token(action.item)
            local spot = nil
            if unicorn ~= nil and unicorn ~= false then
                spot = token_spot(colour, seat, unicorn)
            else
                local beside = map.seat_zone("ku-character-spot", colour)
                spot = map.spread_spot(beside, #(mine(seat).tokens or {}) + 1, 4)
            end
            if token == nil or spot == nil then
                outcome(false, "missing " .. tostring(action.item) .. " token")
                return
            end
            carry(token, spot, face_up(map.seat_zone("ku-catch", colour)))
        end
        then_press("buyButton")
    elseif kind == "choose-trick" then
        if action.slot == "below" then
            then_press("belowButton")
        else
            then_press("aboveButton")
        end
    elseif BUTTON[kind] ~= nil then
        then_press(BUTTON[kind])
    else
        outcome(false, "unknown")
    end
end

--- What the table is told a bot seat does (nothing hidden: no trick face, no hunting card value), e.g.
--  "places a trick above unicorn 2", "opens the hunt with 2 cards", "buys Cotton Candy on Dusk Pigicorn".
function M.describe(action, name_of)
    local kind = action.action
    if kind == "place-trick" then
        return "places a trick " .. tostring(action.slot) .. " unicorn " .. tostring((action.unicorn or 0) + 1)
    elseif kind == "open" then
        return "opens the hunt with " .. tostring(#(action.cards or {})) .. " card(s)"
    elseif kind == "join" then
        return "joins the hunt with " .. tostring(#(action.cards or {})) .. " card(s)"
    elseif kind == "pass" then
        return "passes"
    elseif kind == "choose-trick" then
        return "chooses the trick " .. tostring(action.slot)
    elseif kind == "power" then
        return "uses their power"
    elseif kind == "decline" then
        return "declines their power"
    elseif kind == "buy" then
        local on = ""
        if action.unicorn ~= nil and action.unicorn ~= false then
            on = " on " .. name_of(action.unicorn)
        end
        return "buys " .. name_of(action.item) .. on
    elseif kind == "skip" then
        return "buys nothing"
    end
    return tostring(kind)
end

return M
