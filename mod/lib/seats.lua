-- Seats and look-ups every game's table map needs (pure Lua over the TTS API; names no game).
--
-- Engine seat i is the i-th colour of the game's player colours that is seated (docs/table-contract.md).
-- Objects are compared by GUID: two references to one object need not be the same Lua value in TTS.
local util = require("lib.util")

local M = {}

--- The first object carrying `tag`, or nil.
function M.one(tag)
    return getObjectsWithTag(tag)[1]
end

--- Whether two object references name the same object.
function M.same(a, b)
    return a ~= nil and b ~= nil and a.getGUID() == b.getGUID()
end

--- The seated colours among `player_colours`, in seat order.
function M.colours_in_play(player_colours)
    local seated = getSeatedPlayers()
    local out = {}
    for _, colour in ipairs(player_colours) do
        if util.index_of(seated, colour) ~= nil then
            table.insert(out, colour)
        end
    end
    return out
end

--- The seat (0-based) of `colour` among `colours`, or nil.
function M.seat_of(colours, colour)
    local i = util.index_of(colours, colour)
    if i == nil then
        return nil
    end
    return i - 1
end

--- The colour of `seat` (0-based) among `colours`, or nil.
function M.colour_of(colours, seat)
    if seat == nil then
        return nil
    end
    return colours[seat + 1]
end

return M
