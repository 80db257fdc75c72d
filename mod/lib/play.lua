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
--              applied and its events `applied`, the rulings applied so far (`moves`), the bot seats (`bots`,
--              lib.bots'); saved by onSave, so a table reloaded while dealing or in the middle of a ruling
--              carries on;
--   bots       with `perform` given, a free seat may be given a bot (lib.bots: Setup counts its seat, the bot's
--              move is asked and performed when its seat is to move, the TTS turn is not handed to it).
-- A ruling is finished only when it says "complete": true (lib.stepper), as every shared ruling does.
--
-- The description (M.configure; what it leaves out is DEFAULTS):
--   game, ttsmod           generated.game (its `data` a JSON string with player_colours, min_players, max_players
--                          and whatever the game's Lua reads) and generated.ttsmod
--   places(snapshot)       piece id → place, for every piece the snapshot puts somewhere (lib.pieces; default
--                          none: the game's handlers move its pieces)
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
--   unhandled(event, resume)   what an event without a handler does (default M.relay: the table laid anew)
--   before_deal(snapshot, done, again)   the game's own moves once Setup is answered, before its events are
--                          applied and the table is laid (`again`: after a reload while dealing); done() once they
--                          are under way
--   deal(colours, done)    given: Setup lays the game's own table for `colours` instead of asking the bridge
--                          `setup` (no bridge needed); the game calls done(next, snapshot) once its moves are under
--                          way (the first decision's `next`, and the snapshot the ledger keeps, through `keep`)
--   keep(snapshot)         what of an answer's snapshot the ledger keeps as `snapshot` (default all of it; a game
--                          that reads its table in snapshot() keeps only the engine's bookkeeping it cannot show)
--   moving()               whether anything the game moved itself is still moving (default nothing)
--   panels()               the game's own panels, shown whenever lib.play shows its own (default none)
--   perform(colour, action, done)   given: free seats may be given a bot (lib.bots), whose move the bridge chooses
--                          (`bot_move`) and this makes on the table (M.act: asked as a player's drop would be);
--                          with it decision() (default: the seat `next` names while nothing is out), bot_request
--                          (default {snapshot}) and describe (lib.bots' options)
local bots = require("lib.bots")
local link = require("lib.link")
local panel = require("lib.panel")
local pieces = require("lib.pieces")
local saved = require("lib.ledger")
local seats = require("lib.seats")
local stepper = require("lib.stepper")
local util = require("lib.util")
local wiring = require("lib.wiring")

local M = {}

local game = {}       -- the description
local data = {}       -- generated.game's data, decoded
local ledger = nil
local busy = false     -- a request is out or a ruling is being applied: no drop is taken
local acted = nil      -- done(result) of the bot's move (M.act) whose ruling is being applied

local function new_ledger()
    return { game = game.ttsmod.game, mode = game.ttsmod.mode, colours = {}, phase = "setup", applied = 0,
        moves = 0 }
end

local names = nil   -- "White and Red": the colours of a list of seats (below)

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
    decision = function()
        if busy or ledger.phase ~= "play" or ledger.ruling ~= nil then
            return nil
        end
        return M.colour_of((ledger.next or {}).player), "move " .. tostring(ledger.moves or 0)
    end,
    bot_request = function() return { snapshot = game.snapshot() } end,
    places = function() return {} end,
    keep = function(snap) return snap end,
    moving = function() return false end,
    panels = function() end,
    status_line = function(line) return line end,
    score_title = function()
        if ledger.phase == "over" then
            return "Final scores · " .. names((ledger.outcome or {}).winners) .. " won"
        end
        return "Scores now"
    end,
    game_over = function(outcome)
        wiring.game_over(outcome, function(seat) return tostring(M.colour_of(seat)) end)
    end,
    finished = function() end,
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

names = function(list)
    local out = {}
    for _, seat in ipairs(list or {}) do
        table.insert(out, tostring(M.colour_of(seat)))
    end
    return table.concat(out, " and ")
end

local function snapshot()
    return game.snapshot()
end

local function library_line()
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

local function status_line()
    return game.status_line(library_line())
end

--- Whether a request is out or a ruling is being applied (or waits for a player's choice): no drop is taken.
function M.busy()
    return busy
end

--- Show the status line, the Setup button (while nothing is set up) and hand the TTS turn to the seat to move
--  (not to a bot's seat: nobody sits there; the turn stays where it is while the bot plays).
function M.show()
    panel.status(status_line())
    UI.setAttribute("setupButton", "active", tostring(ledger.phase == "setup"))
    local colour = M.colour_of((ledger.next or {}).player)
    -- only a seated player's colour (TTS ignores another: a bot's seat, a player who left)
    if ledger.phase == "play" and colour ~= nil and Turns.turn_color ~= colour and not bots.isBot(colour)
        and util.index_of(getSeatedPlayers(), colour) ~= nil then
        Turns.turn_color = colour
    end
    game.panels()
end

local function show_scores(body)
    local lines = {}
    for i, row in ipairs(body.standings or {}) do
        local colour = tostring(M.colour_of(row.player))
        lines[i] = game.score_line(row, colour, body)
    end
    panel.scores(lines, game.score_title(body))
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
    local places = game.places(ledger.snapshot)
    if next(places) == nil then
        resume()    -- nothing the library lays (a game whose handlers move its pieces)
    else
        pieces.lay(places, game.spot, resume)
    end
    return "async"
end

local function finish()
    M.relay(nil, function()
        ledger.ruling, ledger.applied = nil, 0
        ledger.moves = (ledger.moves or 0) + 1
        if ledger.phase == "dealing" then
            ledger.phase = "play"
            Turns.enable = true
            Turns.type = 2   -- custom: TTS applies Turns.order only then
            Turns.order = ledger.colours
        end
        if ledger.outcome ~= nil then
            ledger.phase = "over"
            Turns.enable = false
        end
        game.finished()
        if ledger.phase == "over" then
            game.game_over(ledger.outcome)
            bots.refresh()
        end
        busy = false
        M.show()
        M.refresh_score()
        local done = acted
        acted = nil
        if done ~= nil then
            done(true)
        end
        bots.play()
    end)
end

local function run_ruling()
    local handlers = {}
    for _, e in ipairs(ledger.ruling.events) do
        local handler = game.handlers[e.event] or game.unhandled or M.relay
        handlers[e.event] = function(event, resume)
            local outcome = handler(event, resume)
            ledger.stopped = outcome == "stop" or nil   -- a reload shows this event again (it waits for a player)
            return outcome
        end
    end
    stepper.run(ledger.ruling, handlers, ledger, function() return ledger.ruling ~= nil end, finish)
end

--- Keep an answer's snapshot, `next`, outcome and events (a setup's or a ruling's), not applied yet.
local function hold(reply, again)
    ledger.snapshot, ledger.next = game.keep(reply.snapshot), reply.next
    ledger.outcome = reply.game_over or nil   -- null or false: the game goes on
    ledger.ruling = { events = reply.events or {}, complete = reply.complete }
    ledger.stopped = nil
    if not again then
        ledger.applied = 0
    end
end

--- Keep an answer (above) and apply its events.
local function take(reply, again)
    hold(reply, again)
    run_ruling()
end

--- Apply a ruling the game asked for with a request of its own (its events, `snapshot`, `next`, `game_over`,
--  `complete`) as the library applies a drop's: busy until it is done, then the panels. `again`: the same ruling
--  asked once more with a player's choice (the events applied before are skipped).
function M.rule(reply, again)
    busy = true
    take(reply, again)
    M.show()
end

--- The game's own deal is laid (description `deal`): play begins once nothing moves.
local function start_play()
    ledger.phase = "play"
    Turns.enable = true
    Turns.type = 2   -- custom: TTS applies Turns.order only then
    Turns.order = ledger.colours
    M.show()
    M.refresh_score()
    bots.play()
end

--- The Setup button pressed by `colour`: with a seated count the game takes and the bridge connected, ask
--  `setup` and deal the table from its answer (a game with its own `deal` lays its table itself).
function M.setup(colour)
    if ledger.phase ~= "setup" or busy then
        return
    end
    local colours = seats.colours_in_play(data.player_colours)
    if game.perform ~= nil then
        colours = bots.colours_in_play(data.player_colours)   -- bot seats play too
    end
    if #colours < data.min_players or #colours > data.max_players then
        panel.say(status_line(), { 1, 0.6, 0.2 })
        return
    end
    if game.deal ~= nil then
        ledger.colours, ledger.phase = colours, "dealing"
        bots.refresh()
        M.show()
        game.deal(colours, function(next, snap)
            ledger.next, ledger.snapshot = next, game.keep(snap)
            stepper.when_settled(start_play)
        end)
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
        bots.refresh()
        reply.complete = true   -- a setup's events are all there is of it
        if game.before_deal ~= nil then
            hold(reply)   -- applied once the game's own moves are under way
            M.show()
            game.before_deal(ledger.snapshot, run_ruling, false)
            return
        end
        take(reply)
        M.show()
    end, function(err)
        busy = false
        panel.tell(nil, "The bridge refused Setup: " .. tostring(err.message))
    end, nil, function() busy = false end)
end

-- Ask the bridge whether `colour` may make `action`; `undo()` puts back what was moved for it, `done(result)`
-- hears how it ended (lib.bots' perform); `snap()` is the table asked about (default the description's snapshot).
local function decide(colour, action, undo, done, snap, options)
    options = options or {}
    local blocked = nil
    if ledger.phase ~= "play" then
        blocked = "Nothing can be played now."
    elseif busy then
        blocked = "Wait a moment: the last move is still being applied."
    end
    wiring.decide({ colour = colour, action = action, blocked = blocked, snapshot = snap or snapshot,
        busy = function(flag)
            busy, ledger.mover = flag, colour
            M.show()
        end,
        undo = undo, done = done,
        refusal = options.refusal, failure = options.failure, offline = options.offline,
        ruled = function(reply)
            acted = done
            take(reply)
        end })
end

local function recognise(colour, obj)
    local where = pieces.where(obj, { zones = game.zones, slots = game.slots, colours = ledger.colours })
    local action = where ~= nil and game.action_for_drop(colour, obj, where)
    if not action then
        return
    end
    decide(colour, action, function() pieces.put_back(obj, game.places(ledger.snapshot), game.spot) end, nil)
end

--- A move made for `colour` with no piece dropped for it (a bot's: `perform = play.act`): `action` asked of the
--  bridge as a drop's would be, its ruling applied and the table laid as its snapshot says; `done(result)` (lib.bots)
--  hears true once that is done, false when the bridge refused it, nil when it could not be asked now.
function M.act(colour, action, done)
    decide(colour, action, nil, done)
end

--- A decision of the game's own (a button, a drag lib.play does not recognise) asked of the bridge as a drop's is:
--  `options.undo()` puts back what `colour` moved for it, `options.snapshot()` is the table as asked about
--  (default the description's snapshot()), `options.done(result)` as M.act's; `options.refusal(reply)`,
--  `options.failure(err)` and `options.offline` the player's message (lib.wiring.decide's).
function M.decide(colour, action, options)
    options = options or {}
    decide(colour, action, options.undo, options.done, options.snapshot, options)
end

--- onObjectDrop: a piece dropped by a seated player is recognised once it rests (above).
function M.dropped(colour, obj)
    if ledger == nil or ledger.phase ~= "play" or M.seat_of(colour) == nil or pieces.id_of(obj) == nil then
        return
    end
    -- a piece dropped onto a card, a deck or a bag merges into it: its reference is destroyed, nothing to recognise
    Wait.condition(function()
        if not obj.isDestroyed() then
            recognise(colour, obj)
        end
    end, function() return obj.isDestroyed() or obj.resting end, game.settle_timeout)
end

--- onLoad: the game's data, the ledger restored, the link started; a ruling or a deal saved half done goes on.
function M.load(script_state)
    pieces.configure({ id_of = game.id_of })
    data, ledger = wiring.load({ game = game.game, ttsmod = game.ttsmod, script_state = script_state,
        new_ledger = new_ledger, moving = function() return pieces.moving() or game.moving() end,
        step_delay = game.step_delay,
        settle_timeout = game.settle_timeout })
    busy = ledger.ruling ~= nil
    panel.seated = function() return ledger.colours end   -- named in what panel.say journals
    if ledger.stopped then
        ledger.applied, ledger.stopped = ledger.applied - 1, nil   -- the event that waits for a player, again
    end
    if game.perform ~= nil then
        bots.configure({ ledger = ledger, player_colours = data.player_colours,
            colours = function() return ledger.colours end, over = function() return ledger.phase == "over" end,
            decision = game.decision, request = game.bot_request, perform = game.perform, describe = game.describe })
        bots.refresh()
    end
    M.show()
    link.hello()
    if ledger.ruling ~= nil and ledger.phase == "dealing" and game.before_deal ~= nil then
        Wait.time(function() game.before_deal(ledger.snapshot, run_ruling, true) end, 1)
    elseif ledger.ruling ~= nil then
        Wait.time(run_ruling, 1)
    elseif ledger.phase == "dealing" and game.deal ~= nil then
        -- saved while the game laid its own table: its pieces lie where they were going by now
        Wait.time(function() stepper.when_settled(start_play) end, 1)
    elseif ledger.phase ~= "setup" then
        Wait.time(M.refresh_score, 1)   -- a reloaded table: its scores as they stand
    end
end

--- onBotClick: a bot seat's button clicked (lib.bots: its level moves on).
function M.bot_click(player, id)
    bots.click(player, id)
end

--- onPlayerChangeColor: a player sat down or left: the seat buttons, the status line and the TTS turn, and a bot's
--  move if it is its seat's.
function M.seat_changed()
    if ledger == nil then
        return
    end
    bots.refresh()
    M.show()
    bots.play()
end

--- onPlayerTurn: while a game is on, the TTS turn goes back to the seat `next` names (a player who passed it by
--  hand); M.show.
function M.turn_changed()
    if ledger ~= nil and ledger.phase == "play" then
        M.show()
    end
end

--- Define the TTS event functions a Global on the library forwards to it (docs/table-contract.md, "What Global
--  forwards": onLoad, onSave, onExternalMessage, onObjectDrop, onSetupClick, onBotClick, onPlayerChangeColor,
--  onPlayerTurn), each one the script has not defined itself (before the call, or after it: a later definition
--  replaces the library's).
function M.forward()
    local events = {
        onLoad = function(script_state) M.load(script_state) end,
        onSave = function() return M.save() end,
        onExternalMessage = function(message) M.handle(message) end,
        onObjectDrop = function(colour, obj) M.dropped(colour, obj) end,
        onSetupClick = function(player) M.setup(player.color) end,
        onBotClick = function(player, _, id) M.bot_click(player, id) end,
        onPlayerChangeColor = function(colour) M.seat_changed(colour) end,
        onPlayerTurn = function() M.turn_changed() end,
    }
    for name, fn in pairs(events) do
        if _G[name] == nil then
            _G[name] = fn
        end
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
