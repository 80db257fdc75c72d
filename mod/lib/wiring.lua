-- The wiring of the shared library every game's Global script does alike (names no game): loading (the game's
-- data, the saved ledger, lib.stepper, lib.link), asking the bridge to rule a player's decision (what the player
-- moved for it goes back on a refusal, and they are told why), and refreshing the score panel from the bridge.
-- A game's global.lua keeps only its own handlers: its status line, its table, its events.
local util = require("lib.util")
local link = require("lib.link")
local stepper = require("lib.stepper")
local saved = require("lib.ledger")
local panel = require("lib.panel")

local M = {}

M.OFFLINE = "The rules bridge is not running, so nothing can be played yet ('ttsmod bridge')."

--- onLoad's shared part: the game's data decoded from `options.game` (generated.game; `options.player_colours`
--  when it names none), the ledger restored from `options.script_state` over `options.new_ledger()`, the stepper
--  set up (`options.moving`, `options.step_delay`, `options.settle_timeout`) and the link started
--  (`options.ttsmod`: generated.ttsmod; `options.request_timeout`, `options.hello_retry` or lib.link's defaults;
--  a request id range of its own, so that a late reply to the previous script is not taken for one of this
--  one's). Returns data, ledger; the game then shows its table and calls link.hello().
function M.load(options)
    local data = util.decode(options.game.data)
    data.player_colours = data.player_colours or options.player_colours
    local ledger = saved.restore(options.script_state, options.new_ledger())
    stepper.configure({ moving = options.moving, step_delay = options.step_delay,
                        settle_timeout = options.settle_timeout })
    link.start({ game = options.ttsmod.game, version = options.ttsmod.version,
                 first_id = math.random(1, 1000) * 1000, timeout = options.request_timeout,
                 hello_retry = options.hello_retry })
    return data, ledger
end

--- Ask the bridge whether `d.colour` may make decision `d.action` (request `legal`, with `d.snapshot()` taken
--  once nothing moves) and hand a legal ruling to `d.ruled(reply)` (the game is still busy: it applies the
--  ruling and says when it is done). `d.busy(flag)` marks the game busy while the request is out.
--  Nothing is asked, `d.undo()` (if any) puts back what the player moved for it and the player is told why, when
--  `d.blocked` says why nothing can be played now, or the bridge is away (`d.offline`, default M.OFFLINE).
--  Likewise when the bridge refuses the decision (`d.refusal(reply)`, default "Not allowed: <message>.") or the
--  request (`d.failure(err)`, default "Not allowed: <message>"); with no answer at all `undo()` runs (lib.link
--  tells everyone the bridge is away).
--  `d.done(result)` (optional; a bot's move gives it, lib.bots) hears how a decision that was not ruled ended:
--  false when the bridge refused it, nil when nothing could be asked or no answer came (a ruled decision is the
--  game's to finish: its `ruled` says done(true) once the table has taken it).
function M.decide(d)
    local refusal = d.refusal or function(reply) return "Not allowed: " .. tostring(reply.message) .. "." end
    local failure = d.failure or function(err) return "Not allowed: " .. tostring(err.message) end
    local function refuse(message, result)
        if d.undo ~= nil then
            d.undo()
        end
        if message ~= nil then
            panel.tell(d.colour, message)
        end
        if d.done ~= nil then
            d.done(result)
        end
    end
    if d.blocked ~= nil then
        refuse(d.blocked, nil)
        return
    end
    if not link.connected() then
        refuse(d.offline or M.OFFLINE, nil)
        return
    end
    d.busy(true)
    stepper.when_settled(function()
        link.ask("legal", { snapshot = d.snapshot(), action = d.action }, function(reply)
            if not reply.legal then
                d.busy(false)
                refuse(refusal(reply), false)
                return
            end
            d.ruled(reply)
        end, function(err)
            d.busy(false)
            refuse(failure(err), false)
        end, nil, function()
            d.busy(false)
            refuse(nil, nil)
        end)
    end)
end

--- Refresh the score panel: once nothing moves, the bridge's `score` of `snapshot()`, shown by `show(body)`
--  (a refusal is printed for the host).
function M.refresh_score(snapshot, show)
    stepper.when_settled(function()
        link.ask("score", { snapshot = snapshot() }, show, function(err)
            print("ttsmod: the bridge could not score the table: " .. tostring(err.message))
        end, nil)
    end)
end

--- The broadcast that ends a game: "Game over: White and Red won (decided by <decided_by>)." (`name(seat)`:
--  a seat's name).
function M.game_over(outcome, name)
    local winners = {}
    for _, seat in ipairs(outcome.winners or {}) do
        table.insert(winners, name(seat))
    end
    panel.say("Game over: " .. table.concat(winners, " and ") .. " won (decided by "
        .. tostring(outcome.decided_by) .. ").", { 0.5, 1, 0.5 })
end

return M
