-- Four Humours: Global script (root module of the bundle the build writes into the save).
local bridge = require("lib.bridge")
local game = require("generated.game")

MOD_VERSION = "0.1.0"
HELLO_TIMEOUT = 5

local status = { connected = false, bridge_version = nil }

local function show_status(text, colour)
    UI.setValue("bridgeStatus", text)
    UI.setAttribute("bridgeStatus", "color", colour)
end

local function say_hello()
    bridge.request("hello", { mod = MOD_VERSION }, {
        reply = function(body)
            status.connected = true
            status.bridge_version = body.bridge
            show_status("bridge connected (ttsmod " .. tostring(body.bridge) .. ")", "#7CFC00")
        end,
        refused = function(err)
            status.connected = false
            show_status("bridge refused hello: " .. tostring(err.message), "#FF6347")
        end,
        lost = function()
            status.connected = false
            show_status("No bridge. On the host computer run:  ttsmod bridge", "#FFD700")
            Wait.time(say_hello, HELLO_TIMEOUT)
        end,
    })
end

function onLoad(script_state)
    bridge.reset(game.game, 1)
    bridge.timeout = HELLO_TIMEOUT
    show_status("Connecting to the ttsmod bridge…", "#FFFFFF")
    say_hello()
end

function onExternalMessage(data)
    bridge.handle(data)
end
