-- The play loop every game's Global runs alike, over a small description the game gives (names no game;
-- docs/table-contract.md, "A game's mod on lib.play"):
--   Setup      the Setup button asks the bridge `setup` for the seated colours (their count, a seed, the mode,
--              the game's own options), keeps the answer in the ledger and lays the table from its snapshot;
--   a drop     a piece a seated player drops is looked at once it rests (lib.pieces.where: on a slot, in a zone,
--              in a hand); the game's `action_for_drop` makes it an action or nothing; the bridge is asked
--              `legal` (lib.wiring.decide): on a refusal the piece goes back to its place and the player is told
--              why; a ruling's events are applied one by one (lib.stepper: the game's handler of each event, by
--              default M.relay, the table laid anew from the ruling's snapshot), then the table is laid as that
--              snapshot says and the ruling is done;
--   panels     the status line (whose move `next` says it is, whose move is being checked, or who won), the score
--              panel from `score`, the TTS turn handed to the seat to move;
--   ledger     the seats in play (`colours`), the `phase` (setup, dealing, play, over), the engine's last
--              `snapshot` and `next`, the `outcome`, the `mover` whose move was asked last, a `ruling` being
--              applied and its events `applied`; saved by onSave, so a table reloaded while dealing or in the
--              middle of a ruling carries on.
-- A ruling is finished only when it says "complete": true (lib.stepper), as every shared ruling does.
--
-- The description (M.configure; what it leaves out is DEFAULTS):
--   game, ttsmod           generated.game (its `data` a JSON string with player_colours, min_players, max_players
--                          and whatever the game's Lua reads) and generated.ttsmod
--   places(snapshot)       piece id → place, for every piece the snapshot puts somewhere (lib.pieces)
--   spot(place)            {position, rotation} of a place that is not a hand (lib.pieces)
--   zones, slots           the tags of the zones, and of the objects whose snap points are slots, drops land on
--   action_for_drop(colour, obj, where)   the action a drop is (its JSON table or its text form), or nil
--   handlers               event name → function(event, resume), as lib.stepper runs them
--   snapshot()             what `legal` and `score` are asked about (default: the kept snapshot, the table as the
--                          engine last laid it; JSON.decode dropped its nulls)
--   status(next, colour)   the status line while `colour` is to move (default "<Colour> to play")
--   score_line(row, colour)   one row of the score panel (default "<Colour>: <row.score>")
--   setup_options(colours) the game's own fields of the `setup` request (default none)
--   id_of(memo)            a piece's id (lib.pieces); step_delay, settle_timeout (lib.stepper)
local link = require("lib.link")
local panel = require("lib.panel")
local pieces = require("lib.pieces")
local saved = require("lib.ledger")
local seats = require("lib.seats")
local stepper = require("lib.stepper")
local wiring = require("lib.wiring")

local M = {}

local game = {}       -- the description
local data = {}       -- generated.game's data, decoded
local ledger = nil
local busy = false     -- a request is out or a ruling is being applied: no drop is taken

local function new_ledger()
    return { game = game.ttsmod.game, mode = game.ttsmod.mode, colours = {}, phase = "setup", applied = 0 }
end

-- What a description leaves out: the kept snapshot, the plain status line and score rows, no options of
-- its own for setup, no drop recognised, the table laid anew for every event.
local DEFAULTS = {
    snapshot = function() return ledger.snapshot end,
    status = function(_, colour) return tostring(colour) .. " to play" end,
    score_line = function(row, colour) return colour .. ": " .. tostring(row.score) end,
    setup_options = function() return {} end,
    action_for_drop = function() return nil end,
    handlers = {},
    settle_timeout = 3,
}

--- Take the game's description (above; what it leaves out, DEFAULTS); call it before onLoad runs M.load.
function M.configure(description)
    game = {}
    for k, v in pairs(DEFAULTS) do
        game[k] = v
    end
    for k, v in pairs(description) do
        game[k] = v
    end
end

--- The ledger (the library's fields above; a game may keep its own fields in it too).
function M.ledger()
    return ledger
end

--- The game's data from generated.game.
function M.data()
    return data
end

--- The seat (0-based) of a colour in play, or nil.
function M.seat_of(colour)
    return seats.seat_of(ledger.colours, colour)
end

--- The colour of a seat (0-based), or nil.
function M.colour_of(seat)
    return seats.colour_of(ledger.colours, seat)
end

local function names(list)
    local out = {}
    for _, seat in ipairs(list or {}) do
        table.insert(out, tostring(M.colour_of(seat)))
    end
    return table.concat(out, " and ")
end

local function snapshot()
    return game.snapshot()
end

local function status_line()
    if ledger.phase == "setup" then
        return "Seat " .. tostring(data.min_players) .. " to " .. tostring(data.max_players)
            .. " players, then press Setup."
    elseif ledger.phase == "over" then
        return "Game over · " .. names((ledger.outcome or {}).winners) .. " won"
    elseif ledger.phase == "dealing" then
        return "laying the table…"
    elseif busy then
        return "checking " .. tostring(ledger.mover) .. "'s move…"
    end
    local colour = M.colour_of((ledger.next or {}).player)
    return game.status(ledger.next, colour)
end

--- Show the status line, the Setup button (while nothing is set up) and hand the TTS turn to the seat to move.
function M.show()
    panel.status(status_line())
    UI.setAttribute("setupButton", "active", tostring(ledger.phase == "setup"))
    local colour = M.colour_of((ledger.next or {}).player)
    if ledger.phase == "play" and colour ~= nil and Turns.turn_color ~= colour then
        Turns.turn_color = colour
    end
end

local function show_scores(body)
    local lines = {}
    for i, row in ipairs(body.standings or {}) do
        local colour = tostring(M.colour_of(row.player))
        lines[i] = game.score_line(row, colour)
    end
    local title = "Scores now"
    if ledger.phase == "over" then
        title = "Final scores · " .. names((ledger.outcome or {}).winners) .. " won"
    end
    panel.scores(lines, title)
end

--- Ask the bridge to score the table and show it on the score panel (once something is laid).
function M.refresh_score()
    if ledger.phase == "play" or ledger.phase == "over" then
        wiring.refresh_score(snapshot, show_scores)
    end
end

--- The default handler of an event: lay the table anew from the ruling's snapshot, then go on (lib.stepper's
--  "async": `resume()` once laid).
function M.relay(_, resume)
    pieces.lay(game.places(ledger.snapshot), game.spot, resume)
    return "async"
end

local function finish()
    M.relay(nil, function()
        ledger.ruling, ledger.applied = nil, 0
        if ledger.phase == "dealing" then
            ledger.phase = "play"
            Turns.enable = true
            Turns.order = ledger.colours
        end
        if ledger.outcome ~= nil then
            ledger.phase = "over"
            Turns.enable = false
            wiring.game_over(ledger.outcome, function(seat) return tostring(M.colour_of(seat)) end)
        end
        busy = false
        M.show()
        M.refresh_score()
    end)
end

local function run_ruling()
    local handlers = {}
    for _, e in ipairs(ledger.ruling.events) do
        handlers[e.event] = game.handlers[e.event] or M.relay
    end
    stepper.run(ledger.ruling, handlers, ledger, function() return ledger.ruling ~= nil end, finish)
end

--- Keep an answer's snapshot, `next` and outcome, and apply its events (a setup's or a ruling's).
local function take(reply)
    ledger.snapshot, ledger.next, ledger.outcome = reply.snapshot, reply.next, reply.game_over
    ledger.ruling = { events = reply.events or {}, complete = reply.complete }
    ledger.applied = 0
    run_ruling()
end

--- The Setup button pressed by `colour`: with a seated count the game takes and the bridge connected, ask
--  `setup` and deal the table from its answer.
function M.setup(colour)
    if ledger.phase ~= "setup" or busy then
        return
    end
    local colours = seats.colours_in_play(data.player_colours)
    if #colours < data.min_players or #colours > data.max_players then
        broadcastToAll(status_line(), { 1, 0.6, 0.2 })
        return
    end
    if not link.connected() then
        panel.tell(colour, "The rules bridge is not running ('ttsmod bridge'): Setup needs it.")
        return
    end
    local body = { players = #colours, seed = math.random(1, 1000000000), mode = ledger.mode }
    for k, v in pairs(game.setup_options(colours)) do
        body[k] = v
    end
    busy = true
    link.ask("setup", body, function(reply)
        ledger.colours, ledger.seed, ledger.phase = colours, body.seed, "dealing"
        reply.complete = true   -- a setup's events are all there is of it
        take(reply)
        M.show()
    end, function(err)
        busy = false
        panel.tell(nil, "The bridge refused Setup: " .. tostring(err.message))
    end, nil, function() busy = false end)
end

local function recognise(colour, obj)
    local where = pieces.where(obj, { zones = game.zones, slots = game.slots, colours = ledger.colours })
    local action = where ~= nil and game.action_for_drop(colour, obj, where)
    if not action then
        return
    end
    local blocked = nil
    if ledger.phase ~= "play" then
        blocked = "Nothing can be played now."
    elseif busy then
        blocked = "Wait a moment: the last move is still being applied."
    end
    wiring.decide({ colour = colour, action = action, blocked = blocked, snapshot = snapshot,
        busy = function(flag)
            busy, ledger.mover = flag, colour
            M.show()
        end,
        undo = function() pieces.put_back(obj, game.places(ledger.snapshot), game.spot) end,
        ruled = take })
end

--- onObjectDrop: a piece dropped by a seated player is recognised once it rests (above).
function M.dropped(colour, obj)
    if ledger == nil or ledger.phase ~= "play" or M.seat_of(colour) == nil or pieces.id_of(obj) == nil then
        return
    end
    Wait.condition(function() recognise(colour, obj) end, function() return obj.resting end, game.settle_timeout)
end

--- onLoad: the game's data, the ledger restored, the link started; a ruling or a deal saved half done goes on.
function M.load(script_state)
    pieces.configure({ id_of = game.id_of })
    data, ledger = wiring.load({ game = game.game, ttsmod = game.ttsmod, script_state = script_state,
        new_ledger = new_ledger, moving = pieces.moving, step_delay = game.step_delay,
        settle_timeout = game.settle_timeout })
    busy = ledger.ruling ~= nil
    M.show()
    link.hello()
    if ledger.ruling ~= nil then
        Wait.time(run_ruling, 1)
    elseif ledger.phase ~= "setup" then
        Wait.time(M.refresh_score, 1)   -- a reloaded table: its scores as they stand
    end
end

--- onSave: the ledger as text.
function M.save()
    return saved.save(ledger)
end

--- onExternalMessage: a reply of the bridge.
function M.handle(message)
    link.handle(message)
end

return M
