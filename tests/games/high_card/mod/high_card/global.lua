-- High Card (the tests' example game, tests/games/high_card/): a whole game's Global on the shared play loop
-- (lib.play, docs/table-contract.md). It says only what is this game's own: where each card of a snapshot goes
-- (places) and where that is on the table (spot), which drop is an action (a card of the hand dropped in the
-- play zone) and what each event tells the players. Setup, dealing, asking the bridge, putting a refused card
-- back, applying rulings, the ledger and the panels are the library's.
local play = require("lib.play")
local pieces = require("lib.pieces")

local FACE_UP, FACE_DOWN = 0, 180
-- how each zone lays its cards: the first card's offset from the zone's centre (x) and the gap to the next; a
-- seat's won cards and the stock are piles (a deck once cards merge on them, as cards laid on cards do in TTS)
local SPREAD = { play = { -4.2, 2.8 }, won = { -3.8, 0 }, stock = { 0, 0 } }

--- Every card's place in a snapshot: in a hand, in the trick (the play zone), in a seat's won pile, set aside.
local function places(snap)
    local out = {}
    for seat, p in ipairs(snap.players or {}) do
        local colour = play.colour_of(seat - 1)
        for _, id in ipairs(p.hand or {}) do
            out[id] = { hand = colour }
        end
        for k, id in ipairs(p.won or {}) do
            out[id] = { role = "won", owner = colour, k = k, face = FACE_DOWN }
        end
    end
    for k, played in ipairs(snap.trick or {}) do
        out[played.card] = { role = "play", k = k, face = FACE_UP }
    end
    for k, id in ipairs(snap.stock or {}) do
        out[id] = { role = "stock", k = k, face = FACE_DOWN }
    end
    return out
end

--- Where a place lies: the k-th card of the trick, laid along the zone from the left; a pile's top.
local function spot(place)
    local centre = pieces.zone("hc-zone", { role = place.role, owner = place.owner }).getPosition()
    local spread = SPREAD[place.role]
    return { position = { centre.x + spread[1] + spread[2] * (place.k - 1), 1.2, centre.z },
        rotation = { 0, 180, place.face }, pile = place.role ~= "play" and place.role .. (place.owner or "") or nil }
end

--- A card dropped in the play zone is its player's play of it.
local function action_for_drop(colour, obj, where)
    if where.memo.role == "play" then
        return { action = "play", player = play.seat_of(colour), card = pieces.id_of(obj) }
    end
    return nil
end

local function say(line)
    broadcastToAll(line, { 1, 1, 1 })
end

local handlers = {
    played = function(e)
        say(play.colour_of(e.player) .. " plays " .. tostring(e.value) .. ".")
    end,
    trick_won = function(e, resume)
        say(play.colour_of(e.player) .. " wins the trick (" .. tostring(e.tricks) .. " so far).")
        return play.relay(e, resume)
    end,
}

play.configure({
    game = require("generated.game"),
    ttsmod = require("generated.ttsmod"),
    places = places,
    spot = spot,
    zones = { "hc-zone" },
    action_for_drop = action_for_drop,
    handlers = handlers,
    status = function(_, colour) return colour .. " to play: drop a card in the middle" end,
    score_line = function(row, colour) return colour .. ": " .. tostring(row.score) .. " trick(s)" end,
})

play.forward()      -- onLoad, onSave, onExternalMessage, onObjectDrop, onSetupClick: the library's
