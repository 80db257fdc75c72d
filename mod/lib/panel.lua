-- What every ttsmod mod shows on screen: the bridge status line, the game's status line, the score panel and
-- notices to players. What everyone is told (say) is also sent to the bridge, which journals it, so that
-- `ttsmod replay --html` shows a played game in the very sentences the table showed (docs/protocol.md). The game's ui.xml provides the elements by id (docs/table-contract.md):
--   bridgeStatus (text)      the state of the link to the bridge
--   turnStatus (text)        one line: what everyone is waiting for
--   scoreRound (text)        the score panel's title
--   scoreRow1..scoreRowN     one line per player (N = M.SCORE_ROWS), inactive when unused
local bridge = require("lib.bridge")

local M = {}

M.SCORE_ROWS = 6

--- A function giving the colours of the seats in play, in seat order (lib.play sets it), or nil: say sends them
--  along, so that a page read back from the journal names the seats as the table does.
M.seated = nil

--- The bridge status line: `message` in `colour` (a "#RRGGBB" string).
function M.bridge(message, colour)
    UI.setValue("bridgeStatus", message)
    UI.setAttribute("bridgeStatus", "color", colour)
end

--- The game's one-line status.
function M.status(line)
    UI.setValue("turnStatus", line)
end

--- The score panel: `lines` (at most SCORE_ROWS strings, one per row, in order) under `title`.
function M.scores(lines, title)
    for i = 1, M.SCORE_ROWS do
        UI.setAttribute("scoreRow" .. i, "active", "false")
    end
    for i, line in ipairs(lines) do
        UI.setAttribute("scoreRow" .. i, "active", "true")
        UI.setValue("scoreRow" .. i, line)
    end
    UI.setValue("scoreRound", title)
end

--- A broadcast to everyone (`colour` an {r, g, b} table), also sent to the bridge as a `broadcast` message
--  (no id, never answered: the bridge only journals it).
function M.say(message, colour)
    broadcastToAll(message, colour)
    local body = { text = message }
    if M.seated ~= nil then
        body.seats = M.seated()
    end
    sendExternalMessage({ ttsmod = bridge.PROTOCOL, type = "broadcast", game = bridge.game, body = body })
end

--- A notice: to everyone (white) when colour is nil, otherwise to that player only (amber).
function M.tell(colour, message)
    if colour == nil then
        M.say(message, { 1, 1, 1 })
    else
        broadcastToColor(message, colour, { 1, 0.85, 0.4 })
    end
end

return M
