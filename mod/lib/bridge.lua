-- Request/reply client for the ttsmod bridge over the External Editor API.
--
-- Contract:
--   * request(kind, body, handlers) sends {"ttsmod":1,"id":n,"type":kind,"game":game,"body":body}
--     with sendExternalMessage and returns the id. handlers.reply(body, reply) runs on an ok reply,
--     handlers.refused(error, reply) on an ok:false reply, handlers.lost() when no reply came after the
--     timeout and one retry (the same id is sent again, so a late first reply still counts).
--   * handle(data) takes what onExternalMessage received; it returns true when the message was a reply
--     to a pending request, false otherwise (replies for unknown ids are ignored).
--   * Each request is answered at most once.
local M = {}

M.PROTOCOL = 1
M.timeout = 5
M.game = nil    -- the game id every request names; set by reset (the mod reads it from generated.ttsmod)

local pending = {}
local next_id = 1

--- Reset all state (used at load time; a reloaded script starts with no pending requests). `game` is the id
--  of the game being played; `first_id` the first request id (a reloaded script picks a new range, so that a
--  late reply to the previous script's request is not taken for one of its own).
function M.reset(game, first_id)
    pending = {}
    next_id = first_id or 1
    if game ~= nil then
        M.game = game
    end
end

--- Number of requests still waiting for a reply.
function M.pending_count()
    local n = 0
    for _, _ in pairs(pending) do
        n = n + 1
    end
    return n
end

local function transmit(entry)
    sendExternalMessage({
        ttsmod = M.PROTOCOL,
        id = entry.id,
        type = entry.kind,
        game = M.game,
        body = entry.body,
    })
end

local function arm_timeout(entry)
    local id = entry.id
    local tries = entry.tries
    Wait.time(function()
        local current = pending[id]
        if current == nil or current.tries ~= tries then
            return
        end
        if current.tries < 2 then
            current.tries = current.tries + 1
            transmit(current)
            arm_timeout(current)
        else
            pending[id] = nil
            if current.handlers.lost ~= nil then
                current.handlers.lost()
            end
        end
    end, M.timeout)
end

function M.request(kind, body, handlers)
    local id = next_id
    next_id = next_id + 1
    local entry = { id = id, kind = kind, body = body or {}, handlers = handlers or {}, tries = 1 }
    pending[id] = entry
    transmit(entry)
    arm_timeout(entry)
    return id
end

function M.handle(data)
    if type(data) ~= "table" or data.ttsmod == nil or data.re == nil then
        return false
    end
    local entry = pending[data.re]
    if entry == nil then
        return false
    end
    pending[data.re] = nil
    if data.ok then
        if entry.handlers.reply ~= nil then
            entry.handlers.reply(data.body or {}, data)
        end
    else
        if entry.handlers.refused ~= nil then
            entry.handlers.refused(data.error or {}, data)
        end
    end
    return true
end

return M
