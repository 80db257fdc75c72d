-- The Global script of a game drawn from data alone (no rules engine, no Lua of its own): ttsmod's build uses it
-- when the game folder has no mod/<mod>/global.lua. No bridge adjudicates such a game: the players play it as on
-- a real table. It greets them with the game's name and the ttsmod version it was built with, and says so.
local ttsmod = require("generated.ttsmod")
local game = require("generated.game")
local util = require("lib.util")

--- The line a table-only game greets its players with.
local function greeting(data, version)
    local name = data.name or game.game
    return name .. " (built by ttsmod " .. tostring(version) .. "): no rules are enforced, play as on a real table."
end

function onLoad()
    broadcastToAll(greeting(util.decode(game.data), ttsmod.version), { 0.9, 0.9, 0.9 })
end
