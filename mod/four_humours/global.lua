-- Four Humours: Global script (root module of the bundle the build writes into the save).
--
-- The table is the state: potions, cards and markers lie where the rules put them; the ledger below keeps
-- only the bookkeeping the table cannot show (round, whose turn, passes, marks order, a round's ruling in
-- progress) and is saved with onSave, so a reloaded table or a restarted bridge carries on.
local bridge = require("lib.bridge")
local util = require("lib.util")
local map = require("four_humours.tablemap")
local game = require("generated.game")

MOD_VERSION = "0.1.0"
REQUEST_TIMEOUT = 5
HELLO_RETRY = 5
STEP_DELAY = 0.4
STACK_HEIGHT = 0.25

local data = {}
local status = { connected = false, polling = false }
local waiting_for_bridge = {}   -- actions to retry once hello is answered again
local busy = false              -- a placement or pass is being checked
local ledger = nil

local function new_ledger()
    return {
        game = game.game, mode = game.mode, colours = {}, fiefs = nil, phase = "setup", round = 1, turn = 0,
        first_player = 0, active_player = 0, round_starter = 0, last_actor = nil, passes = 0,
        scene_discard = {}, resolved_parties = {}, marks = {}, round_snapshot = nil, choices = {}, applied = 0,
        awaiting = nil,
    }
end

-- ------------------------------------------------------------------ status panel and notices
local function show_status(text, colour)
    UI.setValue("bridgeStatus", text)
    UI.setAttribute("bridgeStatus", "color", colour)
end

local function tell(colour, message)
    if colour == nil then
        broadcastToAll(message, { 1, 1, 1 })
    else
        broadcastToColor(message, colour, { 1, 0.85, 0.4 })
    end
end

local say_hello = nil

local function bridge_lost(retry)
    if retry ~= nil then
        table.insert(waiting_for_bridge, retry)
    end
    if status.connected or not status.polling then
        status.connected = false
        show_status("No bridge. On the host computer run:  ttsmod bridge", "#FFD700")
        broadcastToAll("The rules bridge is not answering: nothing on the table was changed. Start it with "
            .. "'ttsmod bridge'; the game continues when it answers.", { 1, 0.6, 0.2 })
    end
    if not status.polling then
        status.polling = true
        Wait.time(function() say_hello() end, HELLO_RETRY)
    end
end

--- Send a request. When no reply comes (after one retry): `on_lost` runs at once, `retry` (a function) is
--  queued and run again when the bridge answers hello again.
local function ask(kind, body, on_reply, on_refused, retry, on_lost)
    bridge.request(kind, body, {
        reply = on_reply,
        refused = function(err)
            if on_refused ~= nil then
                on_refused(err)
            else
                tell(nil, "The bridge refused " .. kind .. ": " .. tostring(err.message))
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

say_hello = function()
    bridge.request("hello", { mod = MOD_VERSION }, {
        reply = function(body)
            local was_down = not status.connected
            status.connected = true
            status.polling = false
            show_status("bridge connected (ttsmod " .. tostring(body.bridge) .. ")", "#7CFC00")
            if was_down and #waiting_for_bridge > 0 then
                local again = waiting_for_bridge
                waiting_for_bridge = {}
                for _, fn in ipairs(again) do
                    fn()
                end
            end
        end,
        refused = function(err)
            show_status("bridge refused hello: " .. tostring(err.message), "#FF6347")
        end,
        lost = function()
            status.connected = false
            status.polling = true
            show_status("No bridge. On the host computer run:  ttsmod bridge", "#FFD700")
            Wait.time(function() say_hello() end, HELLO_RETRY)
        end,
    })
end

-- ------------------------------------------------------------------ small table helpers
local function seat_of(colour)
    local i = util.index_of(ledger.colours, colour)
    if i == nil then
        return nil
    end
    return i - 1
end

local function colour_of(seat)
    return ledger.colours[seat + 1]
end

local function to_hand(obj, colour)
    local t = Player[colour].getHandTransform()
    obj.setRotation({ 0, t.rotation.y + 180, 0 })
    obj.setPositionSmooth(t.position, false, true)
end

local function lay_face_down(obj, p)
    obj.setPosition({ p.x, p.y + 0.1, p.z })
    obj.setRotation({ 0, 180, 180 })
end

local function refresh_score()
    if ledger.phase == "setup" then
        return
    end
    ask("score", { snapshot = map.snapshot(ledger, nil) }, function(body)
        for i = 1, 6 do
            UI.setAttribute("scoreRow" .. i, "active", "false")
        end
        for i, row in ipairs(body.standings or {}) do
            local colour = colour_of(row.player) or "?"
            UI.setAttribute("scoreRow" .. i, "active", "true")
            UI.setValue("scoreRow" .. i, colour .. ": " .. tostring(row.goals) .. " goals, " .. tostring(row.placed)
                .. " potions placed")
        end
        UI.setValue("scoreRound", "Round " .. tostring(body.round))
    end, nil, nil)
end

local function show_turn()
    local colour = colour_of(ledger.active_player)
    Turns.turn_color = colour
    for _, c in ipairs(data.player_colours) do
        UI.setAttribute("pass_" .. c, "active", tostring(ledger.phase == "placement" and c == colour))
    end
end

local function four_identical(colour)
    local hand = map.hand_potions(colour)
    if #hand ~= 4 then
        return false
    end
    local first = util.memo(hand[1]).humour
    for _, obj in ipairs(hand) do
        if util.memo(obj).humour ~= first then
            return false
        end
    end
    return true
end

local function offer_redraws()
    for _, colour in ipairs(ledger.colours) do
        UI.setAttribute("redraw_" .. colour, "active", tostring(four_identical(colour)))
    end
end

-- ------------------------------------------------------------------ setup
local function scene_cell(card)
    for _, scene in ipairs(data.scenes or {}) do
        if scene.id == card then
            return scene.cell
        end
    end
    return nil
end

local function place_scene_markers()
    local markers = getObjectsWithTag("fh-scene-marker")
    local used = 0
    for _, entry in ipairs(map.scene_cards()) do
        local cell = scene_cell(util.memo(entry.card).card)
        if cell ~= nil then
            local board_id = "kingdom"
            if ledger.mode == "fief" then
                board_id = nil
            end
            local p = nil
            if board_id ~= nil then
                p = map.cell_position(board_id, cell)
            end
            if p ~= nil and markers[used + 1] ~= nil then
                used = used + 1
                markers[used].setPositionSmooth({ p.x + 0.3, p.y + 0.2, p.z + 0.3 }, false, true)
            end
        end
    end
end

local function deal_to_spots(deck_tag, spot_tag, wanted)
    local deck = map.one(deck_tag)
    local spots = getObjectsWithTag(spot_tag)
    table.sort(spots, function(a, b) return util.memo(a).index < util.memo(b).index end)
    local taken = 0
    for _, spot in ipairs(spots) do
        local occupied = false
        for _, obj in ipairs(spot.getObjects()) do
            if obj.hasTag("fh-scene") or obj.hasTag("fh-goal") then
                occupied = true
            end
        end
        if not occupied and deck ~= nil and taken < #wanted then
            taken = taken + 1
            local p = spot.getPosition()
            local params = { position = { p.x, p.y, p.z }, rotation = { 0, 180, 0 }, smooth = false }
            if wanted[taken] ~= true then
                params.guid = wanted[taken]
            end
            deck.takeObject(params)
        end
    end
end

local function guids_for(deck_tag, cards)
    local deck = map.one(deck_tag)
    local out = {}
    if deck == nil then
        return out
    end
    for _, card in ipairs(cards) do
        for _, entry in ipairs(deck.getObjects()) do
            if JSON.decode(entry.memo or "{}").card == card then
                table.insert(out, entry.guid)
            end
        end
    end
    return out
end

function onSetupClick(player, value, id)
    if ledger.phase ~= "setup" then
        return
    end
    local colours = map.colours_in_play(data.player_colours)
    if #colours < (data.min_players or 2) then
        broadcastToAll("Seat at least " .. tostring(data.min_players or 2) .. " players, then press Setup.",
            { 1, 0.6, 0.2 })
        return
    end
    ledger.colours = colours
    if ledger.mode == "fief" then
        ledger.fiefs = {}
        local fiefs = getObjectsWithTag("fh-fief")
        table.sort(fiefs, function(a, b) return tostring(util.memo(a).fief) < tostring(util.memo(b).fief) end)
        for i = 1, #colours do
            ledger.fiefs[i] = util.memo(fiefs[i]).fief
        end
    end
    local goal_deck = map.one("fh-goal-deck")
    local scene_deck = map.one("fh-scene-deck")
    goal_deck.shuffle()
    scene_deck.shuffle()
    local four = { true, true, true, true }
    deal_to_spots("fh-goal-deck", "fh-goal-spot", four)
    deal_to_spots("fh-scene-deck", "fh-scene-spot", four)
    for _, colour in ipairs(colours) do
        local bag = map.bag_of(colour)
        bag.shuffle()
        bag.deal(4, colour)
    end
    for _, entry in ipairs(map.goal_cards()) do
        ledger.marks[util.memo(entry.card).goal] = {}
    end
    local first = math.random(1, #colours) - 1
    if data.first_player == "host" then
        first = 0
    end
    ledger.first_player = first
    ledger.active_player = first
    ledger.round_starter = first
    ledger.phase = "placement"
    UI.setAttribute("setupButton", "active", "false")
    Turns.enable = true
    Turns.order = colours
    Wait.frames(function()
        place_scene_markers()
        show_turn()
        offer_redraws()
        broadcastToAll("Round 1: " .. colour_of(first) .. " begins.", { 1, 1, 1 })
        refresh_score()
    end, 2)
end

local function redraw(colour)
    local seat = seat_of(colour)
    ask("legal", { snapshot = map.snapshot(ledger, nil), action = { action = "redraw", player = seat } },
        function(body)
            if not body.legal then
                tell(colour, "No redraw: " .. tostring(body.message))
                return
            end
            local bag = map.bag_of(colour)
            for _, obj in ipairs(map.hand_potions(colour)) do
                bag.putObject(obj)
            end
            bag.shuffle()
            bag.deal(4, colour)
            UI.setAttribute("redraw_" .. colour, "active", "false")
            broadcastToAll(colour .. " showed four identical potions and drew four new ones.", { 1, 1, 1 })
            Wait.frames(offer_redraws, 2)
        end, nil, nil, nil)
end

function onRedrawClick(player, value, id)
    redraw(string.sub(id, string.len("redraw_") + 1))
end

-- ------------------------------------------------------------------ the round's end and its ruling
local apply_ruling = nil
local send_end_round = nil

local function potion_on(source, owner_seat)
    local slot = map.find_slot(source.kind, source.card, source.slot)
    if slot == nil then
        return nil, nil
    end
    for _, obj in ipairs(map.near("fh-potion", slot.position)) do
        if util.memo(obj).owner == colour_of(owner_seat) then
            return obj, slot
        end
    end
    return nil, slot
end

local function move_to_cell(obj, board_id, cell)
    local p = map.cell_position(board_id, cell)
    if p == nil then
        return false
    end
    local height = #map.near("fh-potion", p) * STACK_HEIGHT
    obj.setRotation({ 0, 180, 0 })
    obj.setPositionSmooth({ p.x, p.y + 0.1 + height, p.z }, false, true)
    return true
end

local function outline_cells(board_id, cells, colour)
    local board = map.boards()[board_id]
    if board == nil then
        return
    end
    local lines = {}
    for _, sp in ipairs(board.getSnapPoints()) do
        for _, tag in ipairs(sp.tags or {}) do
            for _, cell in ipairs(cells) do
                if tag == "fh-cell:" .. cell then
                    local q = sp.position
                    local d = 0.04
                    table.insert(lines, { points = { { q.x - d, q.y + 0.01, q.z - d }, { q.x + d, q.y + 0.01, q.z - d },
                        { q.x + d, q.y + 0.01, q.z + d }, { q.x - d, q.y + 0.01, q.z + d }, { q.x - d, q.y + 0.01, q.z - d } },
                        color = stringColorToRGB(colour), thickness = 0.05 })
                end
            end
        end
    end
    board.setVectorLines(lines)
end

local function clear_outlines()
    for _, board in pairs(map.boards()) do
        board.setVectorLines({})
    end
end

local handlers = {}

handlers.round_ended = function(e)
    broadcastToAll("Round " .. tostring(e.round) .. " is over (" .. tostring(e.reason) .. "): the potions are revealed.",
        { 1, 1, 1 })
end

handlers.card_resolved = function(e)
    for _, p in ipairs(e.revealed or {}) do
        local obj = potion_on({ kind = e.card_kind, card = e.card, slot = p.slot }, p.owner)
        if obj ~= nil and obj.is_face_down then
            obj.flip()
        end
    end
    local names = {}
    for _, w in ipairs(e.winners or {}) do
        table.insert(names, tostring(colour_of(w.owner)) .. " (" .. tostring(w.humour) .. ")")
    end
    local who = "nobody"
    if #names > 0 then
        who = table.concat(names, ", ")
    end
    broadcastToAll(tostring(e.card) .. ": won by " .. who .. ".", { 1, 1, 1 })
    if e.card_kind == "party" and util.index_of(ledger.resolved_parties, e.card) == nil then
        table.insert(ledger.resolved_parties, e.card)
    end
end

handlers.potion_moved = function(e)
    local obj = potion_on(e.from, e.owner)
    if obj ~= nil then
        move_to_cell(obj, e.board, e.cell)
    end
end

handlers.potion_returned = function(e)
    local obj = potion_on(e.from, e.owner)
    local bag = map.bag_of(colour_of(e.owner))
    if obj ~= nil and bag ~= nil then
        bag.putObject(obj)
    end
end

handlers.decision_required = function(e)
    local colour = colour_of(e.player)
    local obj = potion_on(e.from, e.player)
    ledger.awaiting = { player = e.player, from = e.from, board = e.board, cells = e.cells, humour = e.humour }
    if obj ~= nil then
        obj.highlightOn(colour)
    end
    outline_cells(e.board, e.cells, colour)
    broadcastToAll(colour .. " chooses where their " .. tostring(e.humour) .. " potion goes: "
        .. table.concat(e.cells, ", ") .. " (outlined).", { 1, 1, 1 })
    tell(colour, "Drop your highlighted potion on one of the outlined cells.")
end

handlers.goal_marked = function(e)
    local colour = colour_of(e.player)
    ledger.marks[e.goal] = ledger.marks[e.goal] or {}
    if util.index_of(ledger.marks[e.goal], e.player) == nil then
        table.insert(ledger.marks[e.goal], e.player)
    end
    for _, entry in ipairs(map.goal_cards()) do
        if util.memo(entry.card).goal == e.goal then
            for _, marker in ipairs(getObjectsWithTag("fh-goal-marker")) do
                local p = entry.card.getPosition()
                local free = util.flat_distance(marker.getPosition(), p) > 3
                if marker.hasTag("owner:" .. colour) and free then
                    local n = #ledger.marks[e.goal]
                    marker.setPositionSmooth({ p.x - 1 + 0.5 * n, p.y + 0.3, p.z - 1.2 }, false, true)
                    break
                end
            end
        end
    end
    broadcastToAll(colour .. " achieves the goal " .. tostring(e.goal) .. ".", { 1, 1, 1 })
end

handlers.game_ended = function(e)
    ledger.phase = "ended"
end

local function finish_round(ruling)
    ledger.awaiting = nil
    ledger.round_snapshot = nil
    ledger.choices = {}
    ledger.applied = 0
    clear_outlines()
    if ruling.game_over ~= nil then
        ledger.phase = "ended"
        local names = {}
        for _, seat in ipairs(ruling.game_over.winners or {}) do
            table.insert(names, colour_of(seat))
        end
        local figures = {}
        for _, s in ipairs(ruling.game_over.standings or {}) do
            table.insert(figures, tostring(colour_of(s.player)) .. " " .. tostring(s.goals) .. " goals/"
                .. tostring(s.placed) .. " placed")
        end
        broadcastToAll("Game over (" .. tostring(ruling.game_over.termination) .. "). Winner: "
            .. table.concat(names, " and ") .. ". " .. table.concat(figures, "; "), { 0.5, 1, 0.5 })
        show_turn()
        refresh_score()
        return
    end
    local nr = ruling.next_round
    if nr == nil then
        return
    end
    -- scenes that do not continue leave the table; the new ones are dealt from the deck
    local keep = {}
    for _, card in ipairs(nr.scenes) do
        keep[card] = true
    end
    local deck = map.one("fh-scene-deck")
    local on_table = {}
    for i, entry in ipairs(map.scene_cards()) do
        local card = util.memo(entry.card).card
        on_table[card] = true
        if not keep[card] then
            table.insert(ledger.scene_discard, card)
            local p = deck.getPosition()
            entry.card.setPosition({ p.x + 4, p.y + 0.2 * #ledger.scene_discard, p.z })
        end
    end
    local wanted = {}
    for _, card in ipairs(nr.scenes) do
        if not on_table[card] then
            table.insert(wanted, card)
        end
    end
    deal_to_spots("fh-scene-deck", "fh-scene-spot", guids_for("fh-scene-deck", wanted))
    for _, draw in ipairs(nr.draws or {}) do
        local colour = colour_of(draw.player)
        map.bag_of(colour).shuffle()
        map.bag_of(colour).deal(draw.count, colour)
    end
    ledger.phase = "placement"
    ledger.round = nr.round
    ledger.active_player = nr.starter
    ledger.round_starter = nr.starter
    ledger.passes = 0
    ledger.last_actor = nil
    Wait.frames(function()
        place_scene_markers()
        show_turn()
        offer_redraws()
        broadcastToAll("Round " .. tostring(nr.round) .. ": " .. colour_of(nr.starter) .. " begins.", { 1, 1, 1 })
        refresh_score()
    end, 2)
end

--- Apply the events of a ruling one at a time (STEP_DELAY apart), skipping those applied before.
apply_ruling = function(ruling)
    local events = ruling.events or {}
    local function step()
        if ledger.applied >= #events then
            if ruling.complete then
                finish_round(ruling)
            end
            return
        end
        ledger.applied = ledger.applied + 1
        local e = events[ledger.applied]
        local handler = handlers[e.event]
        if handler ~= nil then
            handler(e)
        end
        if e.event == "decision_required" then
            return
        end
        Wait.time(step, STEP_DELAY)
    end
    step()
end

send_end_round = function()
    ledger.phase = "resolution"
    show_turn()
    ask("end_round", { snapshot = ledger.round_snapshot, choices = ledger.choices, force = false },
        function(body) apply_ruling(body) end,
        function(err) tell(nil, "The bridge could not end the round: " .. tostring(err.message)) end,
        function() send_end_round() end)
end

local function round_over()
    local snap = map.snapshot(ledger, nil)
    snap.phase = "placement"
    ledger.round_snapshot = snap
    ledger.choices = {}
    ledger.applied = 0
    send_end_round()
end

-- ------------------------------------------------------------------ placement and passing
local function after_action(seat, body)
    ledger.turn = ledger.turn + 1
    ledger.last_actor = seat
    if body.round_over then
        round_over()
        return
    end
    if body.next_player ~= nil then
        ledger.active_player = body.next_player
    end
    show_turn()
end

local function check_place(colour, obj, slot)
    local seat = seat_of(colour)
    local humour = util.memo(obj).humour
    busy = true
    local action = { action = "place", player = seat, humour = humour,
        target = { kind = slot.kind, card = slot.card, slot = slot.slot } }
    ask("legal", { snapshot = map.snapshot(ledger, obj), action = action }, function(body)
        busy = false
        if not body.legal then
            to_hand(obj, colour)
            tell(colour, "Not there: " .. tostring(body.message))
            return
        end
        lay_face_down(obj, slot.position)
        ledger.passes = 0
        after_action(seat, body)
        refresh_score()
    end, function(err)
        busy = false
        to_hand(obj, colour)
        tell(colour, "Not there: " .. tostring(err.message))
    end, nil, function()
        -- a lost request: the potion goes back to the hand, nothing else changes
        busy = false
        to_hand(obj, colour)
    end)
end

local function choose_cell(colour, obj, board_id, cell)
    local a = ledger.awaiting
    if board_id ~= a.board or util.index_of(a.cells, cell) == nil then
        return false
    end
    obj.highlightOff()
    table.insert(ledger.choices, { player = a.player, cell = cell })
    ledger.awaiting = nil
    clear_outlines()
    move_to_cell(obj, board_id, cell)
    send_end_round()
    return true
end

function onObjectDrop(colour, obj)
    if ledger == nil or not obj.hasTag("fh-potion") then
        return
    end
    local m = util.memo(obj)
    local p = obj.getPosition()
    if ledger.phase == "resolution" and ledger.awaiting ~= nil then
        local a = ledger.awaiting
        if m.owner == colour and seat_of(colour) == a.player and m.humour == a.humour then
            local board_id, cell = map.cell_at(p)
            if board_id ~= nil and choose_cell(colour, obj, board_id, cell) then
                return
            end
            local slot = map.find_slot(a.from.kind, a.from.card, a.from.slot)
            if slot ~= nil then
                obj.setPosition({ slot.position.x, slot.position.y + 0.1, slot.position.z })
            end
            tell(colour, "That potion may only go on one of: " .. table.concat(a.cells, ", "))
        end
        return
    end
    local slot = map.slot_at(p)
    if slot == nil then
        return
    end
    if ledger.phase ~= "placement" then
        to_hand(obj, m.owner)
        tell(colour, "Potions are placed only during a round, after Setup.")
        return
    end
    if m.owner ~= colour then
        to_hand(obj, m.owner)
        tell(colour, "That potion belongs to " .. tostring(m.owner) .. ".")
        return
    end
    if busy then
        to_hand(obj, colour)
        tell(colour, "Wait a moment: the last move is still being checked.")
        return
    end
    if not status.connected then
        to_hand(obj, colour)
        tell(colour, "The rules bridge is not running, so nothing can be placed yet ('ttsmod bridge').")
        return
    end
    check_place(colour, obj, slot)
end

local function do_pass(colour)
    local seat = seat_of(colour)
    if ledger.phase ~= "placement" or seat ~= ledger.active_player or busy then
        return
    end
    busy = true
    ask("legal", { snapshot = map.snapshot(ledger, nil), action = { action = "pass", player = seat } },
        function(body)
            busy = false
            if not body.legal then
                tell(colour, "You cannot pass: " .. tostring(body.message))
                return
            end
            ledger.passes = ledger.passes + 1
            broadcastToAll(colour .. " passes.", { 1, 1, 1 })
            after_action(seat, body)
        end, function(err)
            busy = false
            tell(colour, "You cannot pass: " .. tostring(err.message))
        end, nil, function()
            busy = false
        end)
end

function onPassClick(player, value, id)
    do_pass(string.sub(id, string.len("pass_") + 1))
end

function onPlayerTurn(player, previous_player)
    if ledger ~= nil and ledger.phase == "placement" and #ledger.colours > 0 then
        local expected = colour_of(ledger.active_player)
        if Turns.turn_color ~= expected then
            Turns.turn_color = expected
        end
    end
end

-- ------------------------------------------------------------------ load, save, messages
function onLoad(script_state)
    data = {}
    if game.data ~= nil and game.data ~= "" then
        data = JSON.decode(game.data)
    end
    data.player_colours = data.player_colours or { "White", "Red", "Yellow", "Green", "Blue", "Purple" }
    ledger = new_ledger()
    if script_state ~= nil and script_state ~= "" then
        local saved = JSON.decode(script_state)
        if type(saved) == "table" and saved.ledger ~= nil then
            for k, v in pairs(saved.ledger) do
                ledger[k] = v
            end
        end
    end
    bridge.reset(game.game, math.random(1, 1000) * 1000)
    bridge.timeout = REQUEST_TIMEOUT
    show_status("Connecting to the ttsmod bridge…", "#FFFFFF")
    UI.setAttribute("setupButton", "active", tostring(ledger.phase == "setup"))
    if ledger.phase ~= "setup" then
        show_turn()
    end
    say_hello()
    if ledger.phase == "resolution" and ledger.round_snapshot ~= nil and ledger.awaiting == nil then
        Wait.time(function() send_end_round() end, 1)
    end
end

function onSave()
    return JSON.encode({ ledger = ledger })
end

function onExternalMessage(data_in)
    bridge.handle(data_in)
end
