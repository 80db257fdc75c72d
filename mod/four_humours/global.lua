-- Four Humours: Global script (root module of the bundle the build writes into the save).
--
-- The table is the state: potions, cards and markers lie where the rules put them; the ledger below keeps
-- only the bookkeeping the table cannot show (round, whose turn, passes, goal marks in order, a ruling being
-- applied) and is saved with onSave, so a reloaded table or a restarted bridge carries on.
--
-- Flow: Setup deals goals, scenes and hands. In placement a potion dropped on a slot is checked with the
-- bridge (`legal`); a legal one is laid face down and its owner draws a replacement. When the engine says the
-- round is over the mod sends `end_round` with the snapshot read off the table and applies the ruling's
-- events one by one (lib.stepper). A `decision_required` event stops the ruling until the owner drops the
-- potion on an outlined cell; `end_round` is then sent again with the same snapshot and the choices so far.
-- The link to the bridge, the stepper, the saved ledger and the panels are the shared parts in mod/lib/.
-- A free seat may be given a bot (lib.bots): when its decision comes the bridge chooses it (`bot_move`) and
-- `perform_bot` below makes it on the table as its player would — the potion dropped on the slot or cell, the
-- Pass or Redraw button's code — through the same functions a player's drop or click runs.
local seats = require("lib.seats")
local util = require("lib.util")
local link = require("lib.link")
local stepper = require("lib.stepper")
local saved = require("lib.ledger")
local panel = require("lib.panel")
local wiring = require("lib.wiring")
local bots = require("lib.bots")
local map = require("four_humours.tablemap")
local text = require("four_humours.text")
local game = require("generated.game")
local ttsmod = require("generated.ttsmod")

local STEP_DELAY = 0.4       -- seconds between two steps of a ruling, so that players can follow them
local SETTLE_TIMEOUT = 3     -- longest wait for dealt potions to reach a hand, or for moves to end
local STACK_HEIGHT = 0.2     -- height of one potion in a stack on a board cell
local DISCARD_OFFSET = -6    -- the scene discard pile lies this far (z) from where the scene deck started

local data = {}
local busy = false              -- a placement or pass is being checked
local ledger = nil
local ask = link.ask
local tell = panel.tell
local when_settled = stepper.when_settled

local function new_ledger()
    return {
        game = game.game, mode = game.mode, colours = {}, fiefs = nil, phase = "setup", round = 1, turn = 0,
        first_player = 0, active_player = 0, round_starter = 0, last_actor = nil, passes = 0, passed = {},
        scene_discard = {}, resolved_parties = {}, set_aside = {}, marks = {}, discard_at = nil, marker_home = {},
        round_snapshot = nil, choices = {}, applied = 0, awaiting = nil, outcome = nil,
    }
end

local function rules()
    return data.rules or {}
end

-- ------------------------------------------------------------------ seats and colours
local function seat_of(colour)
    return seats.seat_of(ledger.colours, colour)
end

local function colour_of(seat)
    return seats.colour_of(ledger.colours, seat)
end

local function colours_of(seats)
    local out = {}
    for _, seat in ipairs(seats or {}) do
        table.insert(out, tostring(colour_of(seat)))
    end
    return out
end

-- ------------------------------------------------------------------ panels and notices
--- The one-line state of the game at the top of the scoreboard: what everyone waits for.
local function show_state()
    local line = "Seat the players, then press Setup."
    local round = "Round " .. tostring(ledger.round)
    if ledger.phase == "placement" then
        local colour = tostring(colour_of(ledger.active_player))
        if busy then
            line = round .. " · checking " .. colour .. "'s move…"
        else
            line = round .. " · " .. colour .. " to play"
        end
    elseif ledger.phase == "resolution" then
        if ledger.awaiting ~= nil then
            line = round .. " · " .. tostring(colour_of(ledger.awaiting.player)) .. " chooses a cell for a potion"
        else
            line = round .. " is being resolved…"
        end
    elseif ledger.phase == "ended" then
        local winners = {}
        if ledger.outcome ~= nil then
            winners = colours_of(ledger.outcome.winners)
        end
        line = "Game over · " .. text.join(winners) .. " won"
    end
    panel.status(line)
end

local function set_busy(value)
    busy = value
    show_state()
end

-- ------------------------------------------------------------------ moving things
local function to_hand(obj, colour)
    local t = Player[colour].getHandTransform()
    obj.setRotation({ 0, t.rotation.y + 180, 0 })
    obj.setPositionSmooth(t.position, false, true)
end

local function lay_face_down(obj, p)
    obj.setPosition({ p.x, p.y + 0.1, p.z })
    obj.setRotation({ 0, 180, 180 })
end

--- Deal up to `count` potions from colour's bag into their hand; `done(drawn)` runs once they are in it.
local function draw(colour, count, done)
    local bag = map.bag_of(colour)
    local before = #map.hand_potions(colour)
    local n = 0
    if bag ~= nil then
        n = math.min(count, bag.getQuantity())
    end
    if n > 0 then
        bag.shuffle()
        bag.deal(n, colour)
    end
    local finish = function()
        if done ~= nil then
            done(n)
        end
    end
    local want = before + n
    Wait.condition(finish, function() return #map.hand_potions(colour) >= want end, SETTLE_TIMEOUT, finish)
end

local function move_to_cell(obj, board_id, cell)
    local p = map.cell_position(board_id, cell)
    if p == nil then
        return false
    end
    local height = #map.near("fh-potion", p, obj) * STACK_HEIGHT
    obj.setRotation({ 0, 180, 0 })
    obj.setPositionSmooth({ p.x, p.y + 0.1 + height, p.z }, false, true)
    return true
end

--- The potion of owner_seat lying on a slot ({kind, card, slot}) — the nearest one — and the slot.
local function potion_on(source, owner_seat)
    local slot = map.find_slot(source.kind, source.card, source.slot)
    if slot == nil then
        return nil, nil
    end
    local best = nil
    local best_d = map.NEAR
    for _, obj in ipairs(map.near("fh-potion", slot.position, nil)) do
        local d = util.flat_distance(obj.getPosition(), slot.position)
        if util.memo(obj).owner == colour_of(owner_seat) and d < best_d then
            best = obj
            best_d = d
        end
    end
    return best, slot
end

local function card_title(kind, id)
    local tag = "fh-scene"
    local key = "card"
    if kind == "party" then
        tag = "fh-party"
        key = "party"
    end
    for _, obj in ipairs(getObjectsWithTag(tag)) do
        if util.memo(obj)[key] == id then
            local name = obj.getName()
            if name ~= nil and name ~= "" then
                return name
            end
        end
    end
    return tostring(id)
end

-- ------------------------------------------------------------------ scores and turns
local function show_scores(standings, leaders, round)
    local lines = {}
    for i, row in ipairs(standings or {}) do
        local colour = colour_of(row.player) or "?"
        local star = ""
        if util.index_of(leaders or {}, row.player) ~= nil then
            star = "★ "
        end
        lines[i] = star .. colour .. ": " .. text.figures(row)
    end
    panel.scores(lines, "Round " .. tostring(round) .. " · goals and tie-break figures")
end

local function refresh_score()
    if ledger.phase == "setup" then
        return
    end
    wiring.refresh_score(function() return map.snapshot(ledger, nil) end, function(body)
        show_scores(body.standings, body.leaders, ledger.round)
    end)
end

local function show_turn()
    local colour = colour_of(ledger.active_player)
    -- a bot seat has nobody to hand the TTS turn to: the turn stays where it is while the bot plays
    if ledger.phase == "placement" and colour ~= nil and Turns.turn_color ~= colour and not bots.isBot(colour) then
        Turns.turn_color = colour
    end
    for _, c in ipairs(data.player_colours) do
        UI.setAttribute("pass_" .. c, "active", tostring(ledger.phase == "placement" and c == colour))
    end
    show_state()
    bots.play()
end

local function four_identical(colour)
    local hand = map.hand_potions(colour)
    if #hand ~= (rules().hand_size or 4) then
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
    for _, colour in ipairs(data.player_colours) do
        local offer = ledger.phase == "placement" and rules().four_identical_redraw ~= false
            and util.index_of(ledger.colours, colour) ~= nil and four_identical(colour)
        UI.setAttribute("redraw_" .. colour, "active", tostring(offer))
    end
end

-- ------------------------------------------------------------------ scenes, markers, goal markers
local function scene_data(card)
    for _, scene in ipairs(data.scenes or {}) do
        if scene.id == card then
            return scene
        end
    end
    return nil
end

--- Where the scene marker of a scene goes: its cell, or for an animal scene the middle of its zone's cells.
local function marker_spot(scene)
    if scene.cell ~= nil and scene.cell ~= "" then
        return map.cell_position("kingdom", scene.cell)
    end
    local sum_x, sum_z, y, n = 0, 0, 0, 0
    for _, board in ipairs(data.boards or {}) do
        if board.id == "kingdom" then
            for _, cell in ipairs(board.cells) do
                if cell.tile == scene.zone then
                    local p = map.cell_position("kingdom", cell.id)
                    if p ~= nil then
                        sum_x, sum_z, y, n = sum_x + p.x, sum_z + p.z, p.y, n + 1
                    end
                end
            end
        end
    end
    if n == 0 then
        return nil
    end
    return { x = sum_x / n, y = y, z = sum_z / n }
end

--- Scene markers on the cells of the scenes in play (kingdom mode); the others back to their reserve.
--  Fief mode has no kingdom map, so the markers stay in reserve.
local function place_scene_markers()
    local markers = getObjectsWithTag("fh-scene-marker")
    table.sort(markers, function(a, b) return a.getGUID() < b.getGUID() end)
    local used = 0
    if ledger.mode ~= "fief" then
        for _, entry in ipairs(map.scene_cards()) do
            local scene = scene_data(util.memo(entry.card).card)
            local p = nil
            if scene ~= nil then
                p = marker_spot(scene)
            end
            if p ~= nil and markers[used + 1] ~= nil then
                used = used + 1
                markers[used].setPositionSmooth({ p.x + 0.45, p.y + 0.2, p.z + 0.45 }, false, true)
            end
        end
    end
    for i = used + 1, #markers do
        local home = ledger.marker_home[markers[i].getGUID()]
        if home ~= nil then
            markers[i].setPositionSmooth(home, false, true)
        end
    end
end

--- Every scene card on a spot goes to the discard pile (a potion still on one goes back to its bag first).
local function discard_scenes()
    for _, entry in ipairs(map.scene_cards()) do
        for _, p in pairs(map.snaps(entry.card, "fh-slot:")) do
            for _, obj in ipairs(map.near("fh-potion", p, nil)) do
                local bag = map.bag_of(util.memo(obj).owner)
                if bag ~= nil then
                    bag.putObject(obj)
                end
            end
        end
        local card = util.memo(entry.card).card
        if util.index_of(ledger.scene_discard, card) == nil then
            table.insert(ledger.scene_discard, card)
        end
        local d = ledger.discard_at
        if d ~= nil then
            entry.card.setPosition({ d.x, d.y + 0.05 * #ledger.scene_discard, d.z })
            entry.card.setRotation({ 0, 180, 0 })
        end
    end
end

--- Deal scene cards `ids` (in order) onto the free scene spots (in index order).
local function deal_scenes(ids)
    local taken = 0
    local cards = getObjectsWithTag("fh-scene")
    for _, spot in ipairs(map.spots("fh-scene-spot")) do
        local occupied = false
        for _, obj in ipairs(cards) do
            if map.on_spot(spot, obj) then
                occupied = true
            end
        end
        if not occupied and taken < #ids then
            taken = taken + 1
            local p = spot.getPosition()
            map.take_scene(ids[taken], { x = p.x, y = p.y - 0.4, z = p.z }, ledger)
        end
    end
end

local function deal_goals(count)
    local dealt = 0
    for _, spot in ipairs(map.spots("fh-goal-spot")) do
        local deck = map.one("fh-goal-deck")
        if deck ~= nil and dealt < count then
            dealt = dealt + 1
            local p = spot.getPosition()
            deck.takeObject({ position = { p.x, p.y - 0.4, p.z }, rotation = { 0, 180, 0 }, smooth = false })
        end
    end
end

local function place_goal_marker(colour, goal)
    local n = #(ledger.marks[goal] or {})
    for _, entry in ipairs(map.goal_cards()) do
        if util.memo(entry.card).goal == goal then
            for _, marker in ipairs(getObjectsWithTag("fh-goal-marker")) do
                if marker.hasTag("owner:" .. colour) and map.spot_of(marker, "fh-goal-spot") == nil then
                    local p = entry.card.getPosition()
                    marker.setPositionSmooth({ p.x - 1.2 + 0.6 * n, p.y + 0.3, p.z - 1.2 }, false, true)
                    return true
                end
            end
        end
    end
    return false
end

--- Party tiles resolved this game move out of the strip (once each). They are locked, so they are set in
--  place rather than moved smoothly (a smooth move is physics, which a locked object takes no part in).
local function set_aside_parties()
    for _, tile in ipairs(map.party_tiles()) do
        local party = util.memo(tile).party
        if tile.hasTag(map.RESOLVED) and util.index_of(ledger.set_aside, party) == nil then
            table.insert(ledger.set_aside, party)
            local p = tile.getPosition()
            tile.setPosition({ p.x + 6, p.y, p.z })
        end
    end
end

-- ------------------------------------------------------------------ setup
local function start_round_message()
    broadcastToAll("Round " .. tostring(ledger.round) .. ": " .. tostring(colour_of(ledger.active_player))
        .. " begins.", { 1, 1, 1 })
end

function onSetupClick(player, value, id)
    if ledger.phase ~= "setup" then
        return
    end
    local colours = bots.colours_in_play(data.player_colours)
    local least = data.min_players or 2
    if #colours < least then
        broadcastToAll("Seat at least " .. tostring(least) .. " players (or give free seats a bot), then press "
            .. "Setup.", { 1, 0.6, 0.2 })
        return
    end
    ledger.colours = colours
    bots.refresh()
    if ledger.mode == "fief" then
        -- seat i plays the i-th fief board of the game data (as the engine deals them)
        ledger.fiefs = {}
        for i = 1, #colours do
            ledger.fiefs[i] = data.boards[i].id
        end
    end
    local scene_deck = map.one("fh-scene-deck")
    local d = scene_deck.getPosition()
    ledger.discard_at = { x = d.x, y = d.y, z = d.z + DISCARD_OFFSET }
    for _, marker in ipairs(getObjectsWithTag("fh-scene-marker")) do
        local p = marker.getPosition()
        ledger.marker_home[marker.getGUID()] = { p.x, p.y, p.z }
    end
    map.one("fh-goal-deck").shuffle()
    scene_deck.shuffle()
    deal_goals(rules().goals_per_game or 4)
    local first_scenes = {}
    for i, card in ipairs(map.scene_deck_ids(ledger)) do
        if i <= (rules().scenes_face_up or 4) then
            table.insert(first_scenes, card)
        end
    end
    deal_scenes(first_scenes)
    local first = math.random(1, #colours) - 1
    if rules().first_player == "host" then
        first = 0
    end
    ledger.first_player = first
    ledger.active_player = first
    ledger.round_starter = first
    ledger.round = 1
    ledger.phase = "dealing"
    UI.setAttribute("setupButton", "active", "false")
    Turns.enable = true
    Turns.order = colours
    local left = #colours
    for _, colour in ipairs(colours) do
        draw(colour, rules().hand_size or 4, function()
            left = left - 1
            if left == 0 then
                for _, entry in ipairs(map.goal_cards()) do
                    ledger.marks[util.memo(entry.card).goal] = {}
                end
                ledger.phase = "placement"
                place_scene_markers()
                show_turn()
                offer_redraws()
                start_round_message()
                refresh_score()
            end
        end)
    end
end

--- `done(result)` (a bot's redraw, lib.bots): true once the new potions are in the hand, false when the bridge
--  refused the redraw, nil when it could not be asked.
local function redraw(colour, done)
    local finish = function(result)
        if done ~= nil then
            done(result)
        end
    end
    local seat = seat_of(colour)
    if seat == nil or ledger.phase ~= "placement" then
        finish(nil)
        return
    end
    when_settled(function() ask("legal", { snapshot = map.snapshot(ledger, nil),
                                           action = { action = "redraw", player = seat } },
        function(body)
            if not body.legal then
                tell(colour, "No redraw: " .. tostring(body.message) .. ".")
                finish(false)
                return
            end
            local bag = map.bag_of(colour)
            for _, obj in ipairs(map.hand_potions(colour)) do
                bag.putObject(obj)
            end
            UI.setAttribute("redraw_" .. colour, "active", "false")
            broadcastToAll(colour .. " showed four identical potions and draws four new ones.", { 1, 1, 1 })
            draw(colour, rules().hand_size or 4, function()
                offer_redraws()
                finish(true)
            end)
        end, function(err)
            tell(colour, "No redraw: " .. tostring(err.message))
            finish(false)
        end, nil, function() finish(nil) end) end)
end

function onRedrawClick(player, value, id)
    redraw(string.sub(id, string.len("redraw_") + 1))
end

-- ------------------------------------------------------------------ the ruling
local apply_ruling = nil
local send_end_round = nil

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

--- Show the decision the ruling waits for: the potion glows, the allowed cells are outlined.
local function show_decision()
    local a = ledger.awaiting
    local colour = colour_of(a.player)
    local obj = nil
    if a.guid ~= nil then
        obj = getObjectFromGUID(a.guid)
    end
    if obj ~= nil then
        obj.highlightOn(colour)
    end
    outline_cells(a.board, a.cells, colour)
    show_state()
    broadcastToAll(colour .. " chooses where their " .. tostring(a.humour) .. " potion goes: "
        .. table.concat(a.cells, ", ") .. " (outlined).", { 1, 1, 1 })
    tell(colour, "Drop your glowing potion on one of the outlined cells.")
    bots.play()
end

local function game_over_message(outcome)
    local winners = colours_of(outcome.winners)
    local verb = " wins"
    if #winners > 1 then
        verb = " share the win"
    end
    local figures = {}
    for _, s in ipairs(outcome.standings or {}) do
        table.insert(figures, tostring(colour_of(s.player)) .. " " .. text.figures(s))
    end
    return "Game over: " .. text.termination(outcome.termination) .. ". " .. text.join(winners) .. verb
        .. ". Goals and tie-break figures: " .. table.concat(figures, "; ") .. "."
end

-- Each handler applies one event of a ruling. It returns nil (the next step follows after STEP_DELAY),
-- "stop" (the ruling waits for a player) or "async" (the handler calls resume() itself).
local handlers = {}

handlers.round_ended = function(e)
    broadcastToAll("Round " .. tostring(e.round) .. " is over (" .. text.round_end(e.reason)
        .. "): the potions are revealed.", { 1, 1, 1 })
end

handlers.card_resolved = function(e)
    for _, p in ipairs(e.revealed or {}) do
        local obj = potion_on({ kind = e.card_kind, card = e.card, slot = p.slot }, p.owner)
        if obj ~= nil and obj.is_face_down then
            obj.setRotation({ 0, 180, 0 })
        end
    end
    local names = {}
    for _, w in ipairs(e.winners or {}) do
        table.insert(names, tostring(colour_of(w.owner)) .. " (" .. tostring(w.humour) .. ")")
    end
    local line = card_title(e.card_kind, e.card) .. ": won by " .. text.join(names)
    if #(e.sneakers or {}) > 0 then
        line = line .. ", " .. text.join(colours_of(util.pluck(e.sneakers, "owner"))) .. " sneaking away"
    end
    broadcastToAll(line .. ".", { 1, 1, 1 })
    if e.card_kind == "party" then
        if util.index_of(ledger.resolved_parties, e.card) == nil then
            table.insert(ledger.resolved_parties, e.card)
        end
        for _, tile in ipairs(map.party_tiles()) do
            if util.memo(tile).party == e.card then
                tile.addTag(map.RESOLVED)
            end
        end
    end
end

handlers.potion_moved = function(e)
    local obj = potion_on(e.from, e.owner)
    if obj ~= nil then    -- a potion its owner placed by choice is already on its cell
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
    local obj = potion_on(e.from, e.player)
    local guid = nil
    if obj ~= nil then
        guid = obj.getGUID()
    end
    ledger.awaiting = { player = e.player, from = e.from, board = e.board, cells = e.cells, humour = e.humour,
        guid = guid }
    show_decision()
    return "stop"
end

handlers.goal_marked = function(e)
    local colour = colour_of(e.player)
    ledger.marks[e.goal] = ledger.marks[e.goal] or {}
    if util.index_of(ledger.marks[e.goal], e.player) == nil then
        table.insert(ledger.marks[e.goal], e.player)
        place_goal_marker(colour, e.goal)
    end
    local title = e.goal
    for _, entry in ipairs(map.goal_cards()) do
        if util.memo(entry.card).goal == e.goal then
            title = entry.card.getName()
        end
    end
    broadcastToAll(tostring(colour) .. " achieves the goal " .. tostring(title) .. ".", { 1, 1, 1 })
end

handlers.round_started = function(e)
    discard_scenes()
    deal_scenes(e.scenes or {})
    ledger.round = e.round
    ledger.active_player = e.starter
    ledger.round_starter = e.starter
    ledger.passes = 0
    ledger.passed = {}
    ledger.last_actor = nil
    ledger.turn = 0
    show_state()
end

handlers.potions_drawn = function(e, resume)
    draw(colour_of(e.player), e.count, function() resume() end)
    return "async"
end

handlers.game_ended = function(e)
    ledger.outcome = e.outcome
end

local function finish_ruling()
    ledger.round_snapshot = nil
    ledger.choices = {}
    ledger.applied = 0
    ledger.awaiting = nil
    clear_outlines()
    set_aside_parties()
    if ledger.outcome ~= nil then
        discard_scenes()    -- the last round's scenes are cleaned up like every round's (FH-9)
        ledger.phase = "ended"
        Turns.enable = false
        bots.refresh()
        show_turn()
        offer_redraws()
        show_scores(ledger.outcome.standings, ledger.outcome.winners, ledger.round)
        broadcastToAll(game_over_message(ledger.outcome), { 0.5, 1, 0.5 })
        return
    end
    ledger.phase = "placement"
    place_scene_markers()
    show_turn()
    offer_redraws()
    start_round_message()
    refresh_score()
end

--- Apply the events of a ruling one at a time (lib.stepper), skipping those applied before (a ruling sent
--  again after a choice repeats the events up to that choice).
apply_ruling = function(ruling)
    stepper.run(ruling, handlers, ledger, function() return ledger.phase == "resolution" end, finish_ruling)
end

local function back_to_placement(message)
    ledger.phase = "placement"
    ledger.round_snapshot = nil
    ledger.choices = {}
    ledger.applied = 0
    if ledger.last_actor ~= nil then
        ledger.active_player = (ledger.last_actor + 1) % #ledger.colours
    end
    tell(nil, message)
    show_turn()
end

send_end_round = function()
    show_state()
    ask("end_round", { snapshot = ledger.round_snapshot, choices = ledger.choices, force = false },
        function(ruling) apply_ruling(ruling) end,
        function(err)
            back_to_placement("The bridge could not end the round (" .. tostring(err.message) .. "); play goes on.")
        end,
        function() send_end_round() end)
end

local function round_over()
    ledger.choices = {}
    ledger.applied = 0
    ledger.awaiting = nil
    ledger.phase = "resolution"
    show_turn()
    when_settled(function()
        ledger.round_snapshot = util.deep_copy(map.snapshot(ledger, nil))
        send_end_round()
    end)
end

--- A player dropped the potion the ruling waits for (`done`: see drop).
local function drop_choice(colour, obj, done)
    local a = ledger.awaiting
    local owner = colour_of(a.player)
    local board_id, cell = map.cell_at(obj.getPosition())
    if colour == owner and board_id == a.board and util.index_of(a.cells, cell) ~= nil then
        obj.highlightOff()
        table.insert(ledger.choices, { player = a.player, cell = cell })
        ledger.awaiting = nil
        clear_outlines()
        move_to_cell(obj, board_id, cell)
        broadcastToAll(owner .. " puts their potion on " .. cell .. ".", { 1, 1, 1 })
        send_end_round()
        if done ~= nil then
            done(true)
        end
        return
    end
    local slot = map.find_slot(a.from.kind, a.from.card, a.from.slot)
    if slot ~= nil then
        obj.setRotation({ 0, 180, 0 })
        obj.setPosition({ slot.position.x, slot.position.y + 0.1, slot.position.z })
    end
    if colour ~= owner then
        tell(colour, "Only " .. owner .. " chooses where that potion goes.")
    else
        tell(colour, "That potion may only go on one of: " .. table.concat(a.cells, ", ") .. " (outlined).")
    end
    if done ~= nil then
        done(false)
    end
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
    offer_redraws()
    refresh_score()
end

local function check_place(colour, obj, slot, done)
    local seat = seat_of(colour)
    local humour = util.memo(obj).humour
    local action = { action = "place", player = seat, humour = humour,
        target = { kind = slot.kind, card = slot.card, slot = slot.slot } }
    -- refused, or no answer: the potion goes back to the hand and nothing else changes
    wiring.decide({ colour = colour, action = action, busy = set_busy, done = done,
        undo = function() to_hand(obj, colour) end,
        snapshot = function() return map.snapshot(ledger, obj) end,
        refusal = function(body) return text.refusal(body, colour_of(ledger.active_player)) end,
        failure = function(err) return "The bridge could not check that move: " .. tostring(err.message) end,
        ruled = function(body)
            lay_face_down(obj, slot.position)
            ledger.passes = 0
            local after = function()
                set_busy(false)
                after_action(seat, body)
                if done ~= nil then
                    done(true)
                end
            end
            if rules().draw_after_place ~= false then
                draw(colour, 1, after)    -- FH-3.7: the placer draws a replacement from their bag
            else
                after()
            end
        end })
end

--- A potion dropped by `colour` (a player's drop, or a bot's move through perform_bot). `done(result)` (a bot's
--  move only) hears how it ended: true once the table has taken it, false when it was refused (the potion is back
--  where it came from), nil when it could not be tried now (busy, no bridge).
local function drop(colour, obj, done)
    local finish = function(result)
        if done ~= nil then
            done(result)
        end
    end
    if ledger == nil or not obj.hasTag("fh-potion") then
        finish(false)
        return
    end
    local m = util.memo(obj)
    if ledger.awaiting ~= nil and ledger.awaiting.guid == obj.getGUID() then
        drop_choice(colour, obj, done)
        return
    end
    if ledger.phase ~= "setup" and map.cell_at(obj.getPosition()) ~= nil then
        -- only the rules put potions on boards: a potion dropped on a cell would count as won there
        to_hand(obj, m.owner)
        tell(colour, "Potions reach the boards only by winning a scene or a party: drop it on a citizen slot.")
        finish(false)
        return
    end
    local slot = map.slot_at(obj.getPosition())
    if slot == nil then
        finish(false)
        return
    end
    if ledger.phase ~= "placement" then
        to_hand(obj, m.owner)
        if ledger.phase == "setup" then
            tell(colour, "Potions are placed once the game is set up: press Setup.")
        elseif ledger.phase == "resolution" then
            tell(colour, "Wait: the round is being resolved.")
        else
            tell(colour, "No more potions are placed: the game is over.")
        end
        finish(nil)
        return
    end
    if m.owner ~= colour then
        to_hand(obj, m.owner)
        tell(colour, "That potion belongs to " .. tostring(m.owner) .. ".")
        finish(false)
        return
    end
    if busy then
        to_hand(obj, colour)
        tell(colour, "Wait a moment: the last move is still being checked.")
        finish(nil)
        return
    end
    if not link.connected() then
        to_hand(obj, colour)
        tell(colour, "The rules bridge is not running, so nothing can be placed yet ('ttsmod bridge').")
        finish(nil)
        return
    end
    check_place(colour, obj, slot, done)
end

function onObjectDrop(colour, obj)
    drop(colour, obj, nil)
end

local function do_pass(colour, done)
    local seat = seat_of(colour)
    if ledger.phase ~= "placement" or seat ~= ledger.active_player or busy then
        if done ~= nil then
            done(nil)
        end
        return
    end
    wiring.decide({ colour = colour, action = { action = "pass", player = seat }, busy = set_busy, done = done,
        offline = "The rules bridge is not running, so you cannot pass yet ('ttsmod bridge').",
        snapshot = function() return map.snapshot(ledger, nil) end,
        refusal = function(body) return "You cannot pass: " .. tostring(body.message) .. "." end,
        failure = function(err) return "You cannot pass: " .. tostring(err.message) end,
        ruled = function(body)
            set_busy(false)
            ledger.passes = ledger.passes + 1
            if util.index_of(ledger.passed, seat) == nil then
                table.insert(ledger.passed, seat)
            end
            broadcastToAll(colour .. " passes.", { 1, 1, 1 })
            after_action(seat, body)
            if done ~= nil then
                done(true)
            end
        end })
end

function onPassClick(player, value, id)
    do_pass(string.sub(id, string.len("pass_") + 1))
end

function onPlayerTurn(player, previous_player)
    if ledger ~= nil and ledger.phase == "placement" and #ledger.colours > 0 then
        local expected = colour_of(ledger.active_player)
        if Turns.turn_color ~= expected and not bots.isBot(expected) then
            Turns.turn_color = expected
        end
    end
end

-- ------------------------------------------------------------------ bots in empty seats (lib.bots)
--- Whose decision the table waits for (a colour and a key naming the decision), or nil: the active seat in
--  placement, the owner of the glowing potion while a ruling waits for a cell; nobody while a move is checked.
local function bot_decision()
    if busy or ledger == nil then
        return nil
    end
    if ledger.phase == "placement" then
        return colour_of(ledger.active_player), "round " .. tostring(ledger.round) .. " turn " .. tostring(ledger.turn)
    end
    if ledger.phase == "resolution" and ledger.awaiting ~= nil then
        return colour_of(ledger.awaiting.player), "round " .. tostring(ledger.round) .. " choice "
            .. tostring(#ledger.choices + 1)
    end
    return nil
end

--- The bot_move body: the table in placement; the round's snapshot and the choices so far during a ruling.
local function bot_request(colour)
    if ledger.phase == "resolution" then
        return { snapshot = ledger.round_snapshot, choices = util.deep_copy(ledger.choices) }
    end
    return { snapshot = map.snapshot(ledger, nil) }
end

--- The words of a bot's announcement. A placed potion lies face down, so its humour is not told.
local function bot_words(colour, action)
    if action.action == "place" and type(action.target) == "table" then
        return "places a potion on " .. card_title(action.target.kind, action.target.card) .. " (slot "
            .. tostring((action.target.slot or 0) + 1) .. ")"
    elseif action.action == "pass" then
        return "passes"
    elseif action.action == "redraw" then
        return "shows four identical potions to redraw"
    elseif action.action == "choose" then
        return "chooses the cell " .. tostring(action.cell) .. " for its potion"
    end
    return "plays " .. tostring(action.action)
end

--- A bot's decision made on the table as its player would: a potion from the seat's hand dropped on the slot,
--  the glowing potion dropped on the chosen cell, or the Pass / Redraw button's code; then the same checks and
--  moves as a player's (drop, do_pass, redraw), which tell `done` how it ended.
local function perform_bot(colour, action, done)
    if action.action == "place" and type(action.target) == "table" then
        local slot = map.find_slot(action.target.kind, action.target.card, action.target.slot)
        local potion = nil
        for _, obj in ipairs(map.hand_potions(colour)) do
            if potion == nil and util.memo(obj).humour == action.humour then
                potion = obj
            end
        end
        if slot == nil or potion == nil then
            done(false)
            return
        end
        local p = slot.position
        potion.setPosition({ p.x, p.y + 0.1, p.z })
        drop(colour, potion, done)
    elseif action.action == "choose" and ledger.awaiting ~= nil then
        local a = ledger.awaiting
        local potion = nil
        if a.guid ~= nil then
            potion = getObjectFromGUID(a.guid)
        end
        local p = map.cell_position(a.board, action.cell)
        if potion == nil or p == nil then
            done(false)
            return
        end
        potion.setPosition({ p.x, p.y + 0.1, p.z })
        drop(colour, potion, done)
    elseif action.action == "pass" then
        do_pass(colour, done)
    elseif action.action == "redraw" then
        redraw(colour, done)
    else
        done(false)
    end
end

function onBotClick(player, value, id)
    bots.click(player, id)
end

function onPlayerChangeColor(colour)
    if ledger ~= nil then
        bots.refresh()
        show_turn()
    end
end

-- ------------------------------------------------------------------ load, save, messages
function onLoad(script_state)
    data, ledger = wiring.load({ game = game, ttsmod = ttsmod, script_state = script_state, new_ledger = new_ledger,
        player_colours = { "White", "Red", "Yellow", "Green", "Blue", "Purple" },
        moving = map.moving, step_delay = STEP_DELAY, settle_timeout = SETTLE_TIMEOUT })
    if ledger.phase == "dealing" then
        ledger.phase = "placement"   -- saved while the first hands were dealt: they are in the hands now
    end
    bots.configure({ ledger = ledger, player_colours = data.player_colours,
        colours = function() return ledger.colours end,
        over = function() return ledger.phase == "ended" end,
        decision = bot_decision, request = bot_request, perform = perform_bot, describe = bot_words })
    bots.refresh()
    UI.setAttribute("setupButton", "active", tostring(ledger.phase == "setup"))
    show_turn()
    link.hello()
    if ledger.phase == "resolution" and ledger.round_snapshot ~= nil then
        if ledger.awaiting ~= nil then
            show_decision()
        else
            -- the ruling is asked for again; the events applied before the save are skipped
            Wait.time(function() send_end_round() end, 1)
        end
    elseif ledger.phase == "resolution" then
        -- saved while the round's last moves were ending, before the snapshot was taken: take it now
        Wait.time(function() round_over() end, 1)
    end
end

function onSave()
    return saved.save(ledger)
end

function onExternalMessage(data_in)
    link.handle(data_in)
end
