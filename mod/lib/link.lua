-- The mod's link to the ttsmod bridge: hello, the bridge status line, requests that survive a bridge that
-- is away (docs/protocol.md).
--
-- start() says hello. While the bridge does not answer, the status line tells the host how to start it and
-- hello is sent again every `hello_retry` seconds. ask() sends a request through lib.bridge (one retry after
-- `timeout`); when no reply comes at all the players are told once, and the request's `retry` function (if
-- any) runs again as soon as the bridge answers hello.
local bridge = require("lib.bridge")
local panel = require("lib.panel")

local M = {}

local NO_BRIDGE = "No bridge. On the host computer run:  ttsmod bridge"

local settings = { version = "?", hello_retry = 5 }
local status = { connected = false, polling = false }
local waiting_for_bridge = {}   -- functions to run again once the bridge answers hello
local on_connected = {}         -- functions to run each time the bridge answers hello after being away

--- Whether the last hello was answered (and no request has been lost since).
function M.connected()
    return status.connected
end

local say_hello = nil

local function bridge_lost(retry)
    if retry ~= nil then
        table.insert(waiting_for_bridge, retry)
    end
    if status.connected or not status.polling then
        status.connected = false
        panel.bridge(NO_BRIDGE, "#FFD700")
        broadcastToAll("The rules bridge is not answering: nothing on the table was changed. Start it with "
            .. "'ttsmod bridge'; the game continues when it answers.", { 1, 0.6, 0.2 })
    end
    if not status.polling then
        status.polling = true
        Wait.time(function() say_hello() end, settings.hello_retry)
    end
end

say_hello = function()
    bridge.request("hello", { mod = settings.version }, {
        reply = function(body)
            local was_down = not status.connected
            status.connected = true
            status.polling = false
            panel.bridge("bridge connected (ttsmod " .. tostring(body.bridge) .. ")", "#7CFC00")
            if was_down and #waiting_for_bridge > 0 then
                local again = waiting_for_bridge
                waiting_for_bridge = {}
                for _, fn in ipairs(again) do
                    fn()
                end
            end
            if was_down then
                for _, fn in ipairs(on_connected) do
                    fn()
                end
            end
        end,
        refused = function(err)
            panel.bridge("bridge refused hello: " .. tostring(err.message), "#FF6347")
        end,
        lost = function()
            status.connected = false
            status.polling = true
            panel.bridge(NO_BRIDGE, "#FFD700")
            Wait.time(function() say_hello() end, settings.hello_retry)
        end,
    })
end

--- Prepare the link at load time: `options.game` (the game id every request names), `options.version` (the
--  mod's version, sent with hello), `options.first_id` (first request id), `options.timeout` (seconds before
--  a request is sent again, once, then given up) and `options.hello_retry` (seconds between two hellos while
--  the bridge is away). Shows "Connecting…"; hello() then says hello.
function M.start(options)
    settings.version = options.version
    settings.hello_retry = options.hello_retry or 5
    status.connected = false
    status.polling = false
    waiting_for_bridge = {}
    on_connected = {}
    bridge.reset(options.game, options.first_id)
    bridge.timeout = options.timeout or 5
    panel.bridge("Connecting to the ttsmod bridge…", "#FFFFFF")
end

--- Run `fn()` each time the bridge answers hello after being away: the first answer after start() and every
--  answer after a request was lost (a bridge restarted). Cleared by start().
function M.when_connected(fn)
    table.insert(on_connected, fn)
end

--- Say hello to the bridge (and keep saying it until it answers).
function M.hello()
    say_hello()
end

--- Send a request. `on_reply(body)` runs on an answer, `on_refused(error)` on a refusal (without one, every
--  player is told what the bridge refused). When no reply comes (after one retry): `on_lost` runs at once
--  and `retry` (a function, or nil) is queued to run again when the bridge answers hello again.
function M.ask(kind, body, on_reply, on_refused, retry, on_lost)
    bridge.request(kind, body, {
        reply = on_reply,
        refused = function(err)
            if on_refused ~= nil then
                on_refused(err)
            else
                panel.tell(nil, "The bridge refused " .. kind .. ": " .. tostring(err.message))
            end
        end,
        lost = function()
            if on_lost ~= nil then
                on_lost()
            end
            bridge_lost(retry)
        end,
    })
end

--- ask() for a request the bridge may take long to answer (a bot's search): the first wait for the reply is
--  `seconds` instead of the usual timeout; the one resend waits the usual timeout.
function M.ask_within(seconds, kind, body, on_reply, on_refused, retry, on_lost)
    local usual = bridge.timeout
    bridge.timeout = seconds    -- read once, by this request's first wait
    M.ask(kind, body, on_reply, on_refused, retry, on_lost)
    bridge.timeout = usual
end

--- Pass what onExternalMessage received; true when it was a reply to one of our requests.
function M.handle(data)
    return bridge.handle(data)
end

return M
