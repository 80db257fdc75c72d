-- Bots in empty seats (docs/bots-at-the-table.md): the host gives a free seat a bot and a level, and when that
-- seat's decision comes the mod asks the bridge for the bot's move (request `bot_move`) and performs it on the
-- table as a player would, through the game's own `perform`. Names no game.
--
-- What a game does with it:
--
--   * ui.xml includes the seat buttons: <Include src="lib/bots.xml"/> (a panel `botPanel` with one button
--     `bot_<Colour>` per TTS seat colour, all hidden; onClick="onBotClick").
--   * Global forwards the button and the seat changes:
--         function onBotClick(player, value, id) bots.click(player, id) end
--         function onPlayerChangeColor(colour) bots.refresh() end
--   * onLoad, once wiring.load has returned the ledger:  bots.configure({...}) (options below), then
--     bots.refresh(). The bridge's first hello answer (and every answer after a bridge restart) calls
--     bots.play() by itself (lib.link's when_connected).
--   * Setup reads its seats with bots.colours_in_play(player_colours): seated players plus bot seats.
--   * The game calls bots.play() whenever the decision the table waits for may have changed (after a ruling, a
--     turn, Setup, a reload) and bots.refresh() when the seats may have changed (after Setup, at game end).
--
-- Saved state: `ledger.bots` = { seats = { [colour] = level }, decisions = n, seed = s }. `decisions` counts
-- the bot decisions the table has taken; the seed sent with a request is derived from the game's seed and that
-- count (and the attempt, below), so the same decision asked again after a reload or a bridge restart gets the
-- same move.
--
-- Asking and performing: one decision at a time (a second play() while one is out does nothing). The reply's
-- action goes to the game's perform(colour, action, done); the game moves the objects a player would move and
-- runs the same code as after a player's drop or button, then calls done(true) once the table has taken the
-- decision, done(false) when the bridge refused it (the game has put the objects back), done(nil) when it could
-- not be tried (the bridge away, the game busy: the next play() asks again). A decision refused twice (or a
-- bot_move refused twice) turns that seat's bot off, with a message to everyone.
local util = require("lib.util")
local link = require("lib.link")
local panel = require("lib.panel")
local stepper = require("lib.stepper")

local M = {}

--- The levels a seat button cycles through, in order (off → easy → normal → hard → off).
M.LEVELS = { "off", "easy", "normal", "hard" }
--- Prefix of the seat buttons' ids (`bot_Red`), as lib/bots.xml names them.
M.BUTTON = "bot_"
--- Seeds sent to the bridge stay below this (a Lua number keeps them exact, JSON carries them whole).
M.SEED_RANGE = 2147483647

local settings = nil
local flight = nil     -- the decision asked for or being performed: { colour, key }
local refused = {}     -- decision key → refused attempts

local function saved()
    local l = settings.ledger
    if type(l.bots) ~= "table" then
        l.bots = {}
    end
    local b = l.bots
    if type(b.seats) ~= "table" then
        b.seats = {}
    end
    b.decisions = b.decisions or 0
    if b.seed == nil then
        b.seed = math.random(0, M.SEED_RANGE - 1)
    end
    return b
end

local function seated(colour)
    return util.index_of(getSeatedPlayers(), colour) ~= nil
end

--- Set up the library for this script (onLoad, after the ledger is restored). `options`:
--   ledger             the game's ledger table (the bots keep `ledger.bots` in it)
--   player_colours     every seat colour of the game, in seat order
--   colours()          the game's seats once set up (seat order), an empty list before Setup
--   over()             optional: true once the game is over (no seat buttons then); before it the buttons are
--                      for colours(), or for player_colours before Setup
--   decision()         whose decision the table waits for now: colour, key (a string naming this decision, e.g.
--                      "round 2 turn 5"); nil while nobody is to decide, the game is busy or over
--   request(colour)    the body of the game's `bot_move` request for that decision ({snapshot = ..., ...}); the
--                      library adds `level` and `seed`
--   perform(colour, action, done)   performs the bot's action on the table (see the header)
--   describe(colour, action)        optional: the words after "Red (bot, easy) " in the announcement ("places a
--                      choleric potion on The Mill"); default "plays <action.action>"
--   seed()             optional: the game's own seed (a whole number ≥ 0); default one drawn once and saved
--   delay              optional: seconds between the table coming to rest once a decision has come and the bot
--                      being asked (default 0.6), so that players can follow the bots' moves
--   think_time         optional: seconds to wait for the bridge's answer before sending the request once more
--                      (default 30: a hard bot searches for seconds; lib.link.ask_within)
function M.configure(options)
    settings = options
    settings.delay = options.delay or 0.6
    settings.think_time = options.think_time or 30
    flight = nil
    refused = {}
    saved()
    link.when_connected(function() M.play() end)
end

--- The level of `colour`'s seat: "off", "easy", "normal" or "hard".
function M.level(colour)
    if settings == nil or colour == nil then
        return "off"
    end
    return saved().seats[colour] or "off"
end

--- Whether a bot plays `colour`: its seat has a level and no player sits there (a player who sits down in a bot
--  seat plays it; the level is kept for when they leave).
function M.isBot(colour)
    return M.level(colour) ~= "off" and not seated(colour)
end

--- The bot seats among `colours` (default: the game's player colours), in that order.
function M.seats(colours)
    local out = {}
    for _, colour in ipairs(colours or settings.player_colours) do
        if M.isBot(colour) then
            table.insert(out, colour)
        end
    end
    return out
end

--- The colours that play a game Setup starts now: every seated player and every bot seat among
--  `player_colours`, in that order.
function M.colours_in_play(player_colours)
    local out = {}
    for _, colour in ipairs(player_colours) do
        if seated(colour) or M.isBot(colour) then
            table.insert(out, colour)
        end
    end
    return out
end

--- The seats whose button may be shown now: none once the game is over, its seats during it, every player colour
--  before Setup.
local function candidates()
    if settings.over ~= nil and settings.over() then
        return {}
    end
    local colours = settings.colours()
    if colours ~= nil and #colours > 0 then
        return colours
    end
    return settings.player_colours
end

--- The label of `colour`'s seat button ("Red: no bot", "Red: bot (normal)").
function M.label(colour)
    local level = M.level(colour)
    if level == "off" then
        return colour .. ": no bot"
    end
    return colour .. ": bot (" .. level .. ")"
end

--- Show a seat button for every free seat the game may give a bot now (candidates without a seated player),
--  each labelled with its level; hide the others, and the panel when none is shown.
function M.refresh()
    if settings == nil then
        return
    end
    local shown = 0
    local open = candidates()
    for _, colour in ipairs(settings.player_colours) do
        local show = util.index_of(open, colour) ~= nil and not seated(colour)
        if show then
            shown = shown + 1
        end
        UI.setAttribute(M.BUTTON .. colour, "active", tostring(show))
        UI.setValue(M.BUTTON .. colour, M.label(colour))
    end
    UI.setAttribute("botPanel", "active", tostring(shown > 0))
end

--- Set `colour`'s seat to `level` (one of LEVELS), refresh the buttons, tell everyone and play if it is that
--  seat's decision.
function M.set_level(colour, level)
    if util.index_of(M.LEVELS, level) == nil then
        return
    end
    local before = M.level(colour)
    if level == "off" then
        saved().seats[colour] = nil
    else
        saved().seats[colour] = level
    end
    M.refresh()
    if level == before then
        return
    end
    if level == "off" then
        panel.tell(nil, colour .. "'s seat has no bot now.")
    else
        panel.tell(nil, colour .. "'s seat is played by a bot (" .. level .. ").")
    end
    M.play()
end

--- A seat button was clicked (`id` = "bot_<Colour>"): that seat's level moves to the next of LEVELS. A seat
--  with a player, or one the game does not offer now, is left as it is.
function M.click(player, id)
    if settings == nil then
        return
    end
    local colour = string.sub(id, string.len(M.BUTTON) + 1)
    if util.index_of(candidates(), colour) == nil or seated(colour) then
        if player ~= nil and player.color ~= nil then
            panel.tell(player.color, "Only a free seat of this game can take a bot.")
        end
        return
    end
    local i = util.index_of(M.LEVELS, M.level(colour)) or 1
    M.set_level(colour, M.LEVELS[i % #M.LEVELS + 1])
end

--- The seed of the bot's request for the current decision: the game's seed, the count of bot decisions taken
--  so far and the attempt (0, or 1 when the decision is asked again after a refusal), mixed.
function M.seed(attempt)
    local b = saved()
    local base = b.seed
    if settings.seed ~= nil then
        base = settings.seed()
    end
    local s = math.floor(base) % M.SEED_RANGE
    s = (s * 48271 + b.decisions + 1) % M.SEED_RANGE
    s = (s * 48271 + (attempt or 0)) % M.SEED_RANGE
    return s
end

local function describe(colour, action)
    if settings.describe ~= nil then
        return settings.describe(colour, action)
    end
    return "plays " .. tostring(action.action)
end

-- Whether `f` is still the decision the table waits for, and its seat still a bot's.
local function current(f)
    if flight ~= f then
        return false
    end
    local colour, key = settings.decision()
    return colour == f.colour and tostring(key) == f.key and M.isBot(colour)
end

local function later()
    Wait.time(function() M.play() end, 0.1)
end

-- A refused attempt: asked again once, then the seat's bot is switched off.
local function refuse(f, why)
    refused[f.key] = (refused[f.key] or 0) + 1
    if refused[f.key] >= 2 then
        saved().seats[f.colour] = nil
        M.refresh()
        panel.tell(nil, f.colour .. "'s bot is off: " .. why .. ". Press " .. f.colour
            .. "'s seat button to give it a bot again, or sit down to play it.")
        return
    end
    later()
end

local function finished(f, result)
    if flight ~= f then
        return
    end
    flight = nil
    if result == true then
        saved().decisions = saved().decisions + 1
        refused[f.key] = nil
        later()
    elseif result == false then
        refuse(f, "the rules refused its move twice")
    end
    -- nil: not tried (the bridge away, the game busy); the next play() asks again
end

local function ask(f)
    stepper.when_settled(function()
        if not current(f) then
            if flight == f then
                flight = nil
                later()
            end
            return
        end
        local level = M.level(f.colour)
        local body = settings.request(f.colour)
        body.level = level
        body.seed = M.seed(refused[f.key] or 0)
        link.ask_within(settings.think_time, "bot_move", body, function(reply)
            if not current(f) then
                flight = nil
                later()
                return
            end
            panel.tell(nil, f.colour .. " (bot, " .. level .. ") " .. describe(f.colour, reply.action) .. ".")
            settings.perform(f.colour, reply.action, function(result) finished(f, result) end)
        end, function(err)
            print("ttsmod: the bridge could not choose " .. f.colour .. "'s move: " .. tostring(err.message))
            if flight == f then
                flight = nil
                refuse(f, "the bridge could not choose its move (" .. tostring(err.message) .. ")")
            end
        end, nil, function()
            if flight == f then
                flight = nil    -- lib.link says hello until the bridge is back; its answer calls play()
            end
        end)
    end)
end

--- Play if it is a bot's decision: when the table waits for a bot seat (options.decision()), nothing else is
--  asked for it now and the bridge is connected, the bot's move is asked for (options.delay after the table has
--  come to rest) and performed. Safe to call at any time and as often as wanted.
function M.play()
    if settings == nil or flight ~= nil or not link.connected() then
        return
    end
    local colour, key = settings.decision()
    if colour == nil or not M.isBot(colour) then
        return
    end
    local f = { colour = colour, key = tostring(key) }
    flight = f
    -- the delay counts from when the table has come to rest (the moves of a ruling fall and land before that)
    stepper.when_settled(function() Wait.time(function() ask(f) end, settings.delay) end)
end

--- Whether a bot's decision is being asked for or performed now.
function M.thinking()
    return flight ~= nil
end

return M
