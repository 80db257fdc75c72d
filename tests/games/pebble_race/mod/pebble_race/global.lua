-- Pebble Race (the tests' toy game): the smallest mod on ttsmod's shared Lua. It asks the bridge to score the
-- table the build laid, through the shared client, so a test can watch a whole round trip.
local bridge = require("lib.bridge")
local ttsmod = require("generated.ttsmod")
local game = require("generated.game")

local scored = nil

function onLoad()
    bridge.reset(ttsmod.game, 1)
    bridge.request("score", { snapshot = game.start }, {
        reply = function(body) scored = body end,
    })
end

function onExternalMessage(data)
    bridge.handle(data)
end

--- What the bridge answered (for the tests), or nil.
function last_score()
    return scored
end
