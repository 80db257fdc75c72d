-- The ruling stepper: a ruling's events are applied one at a time, `step_delay` seconds apart so that players
-- can follow them, each once the moves of the one before have ended.
--
-- A game gives one handler per event name. A handler returns nil (the next step follows after step_delay),
-- "stop" (the ruling waits for a player: the game asks for the ruling again with the choice, and run() is
-- called with it) or "async" (the handler calls the resume function it was given when it is done).
-- Progress is counted in `progress.applied` (a field of the saved ledger), so a ruling sent again after a
-- choice or a reload skips the events applied before. A newer run() stops an older one's steps.
local M = {}

local settings = { step_delay = 0.4, settle_timeout = 3, moving = function() return false end }
local serial = 0

--- `options.moving()` says whether anything the mod reads is still moving; `options.step_delay` and
--  `options.settle_timeout` (the longest wait for moves to end) are in seconds.
function M.configure(options)
    settings.moving = options.moving or settings.moving
    settings.step_delay = options.step_delay or settings.step_delay
    settings.settle_timeout = options.settle_timeout or settings.settle_timeout
end

--- Run fn once nothing is moving (at most settle_timeout later): positions read in the middle of a smooth
--  move would put an object on no spot or on the wrong one.
function M.when_settled(fn)
    if not settings.moving() then
        fn()
        return
    end
    Wait.condition(fn, function() return not settings.moving() end, settings.settle_timeout, fn)
end

--- Apply `ruling` ({events = [...], complete = bool}) with `handlers` (event name → function(event, resume)).
--  `progress.applied` counts the events already applied; `active()` is false once the game has left the
--  state in which the ruling applies (the steps then stop); `finish()` runs after the last event of a
--  complete ruling.
function M.run(ruling, handlers, progress, active, finish)
    serial = serial + 1
    local mine = serial
    local events = ruling.events or {}
    local step = nil
    local resume = function()
        Wait.time(function() M.when_settled(step) end, settings.step_delay)
    end
    step = function()
        if mine ~= serial or not active() then
            return
        end
        if progress.applied >= #events then
            if ruling.complete then
                finish()
            end
            return
        end
        progress.applied = progress.applied + 1
        local e = events[progress.applied]
        local handler = handlers[e.event]
        local outcome = nil
        if handler ~= nil then
            outcome = handler(e, resume)
        end
        if outcome == nil then
            resume()
        end
    end
    M.when_settled(step)
end

return M
