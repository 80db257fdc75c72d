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

--- Whether `obj` lies in `colour`'s hand zone (seen from above), by the hand's transform. Mods read hands this
--  way, not with getHandObjects: TTS updates hand membership with physics, a frame late, so a card that came to
--  rest in a hand in the frame a snapshot is taken would be missing from it.
function M.in_hand(colour, obj)
    local t = Player[colour].getHandTransform()
    if t == nil then
        return false
    end
    local p = obj.getPosition()
    local d = { x = p.x - t.position.x, y = p.y - t.position.y, z = p.z - t.position.z }
    local across = (d.x * t.right.x + d.y * t.right.y + d.z * t.right.z) / math.max(t.scale.x, 0.001)
    local along = (d.x * t.forward.x + d.y * t.forward.y + d.z * t.forward.z) / math.max(t.scale.z, 0.001)
    return math.abs(across) <= 0.5 and math.abs(along) <= 0.5
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
